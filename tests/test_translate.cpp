// test_translate.cpp — the translation task `translate` (issue 25): its grammar against
// hand-written sentence pairs, its vocabulary, lengths and sentence count against brute force,
// corpus BLEU against a hand-computed example and Python's (tests/torch/bleu_reference.py),
// the padded encoder–decoder against the independent naive forward and finite differences,
// and a trained translator's held-out exact accuracy and BLEU.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli_run.h"
#include "grad_check.h"
#include "joined.h"
#include "model_trace/block_trace.h"
#include "interop/checkpoint.h"
#include "train/kv_cache.h"
#include "naive_model.h"
#include "train/bleu.h"
#include "train/tasks.h"
#include "train/train_config.h"
#include "train/trainer.h"
#include "train/translate.h"

using namespace lab;

namespace {

// Draws: subject, tense, time, place, verb, object, adjective, relative clause.
void check_pair(std::vector<int32_t> draws, const char* english, const char* chinese) {
    CAPTURE(english);
    const TranslatePair p = translate_pair(draws.data());
    CHECK(joined(p.english, " ") == english);
    CHECK(joined(p.chinese, "") == chinese);
}

// Every draw by plain nested loops, canonical or not.
template <class F>
void for_all_draws(F f) {
    const int* b = translate_draw_bounds();
    std::vector<int32_t> d(kTranslateDraws);
    long n = 1;
    for (int k = 0; k < kTranslateDraws; ++k) n *= b[k];
    for (long i = 0; i < n; ++i) {
        long rest = i;
        for (int k = 0; k < kTranslateDraws; ++k) d[static_cast<size_t>(k)] = static_cast<int32_t>(rest % b[k]), rest /= b[k];
        f(d);
    }
}

}  // namespace

TEST_CASE("translate pairs are hand-written Chinese, character by character") {
    check_pair({0, 0, 1, 1, 1, 5, 1, 0}, "i washed a big car at home yesterday .", "我昨天在家洗了一辆大汽车。");
    check_pair({2, 1, 0, 3, 2, 1, 0, 0}, "the cat did not take a fish in the park .", "小猫没有在公园拿鱼。");
    check_pair({5, 2, 1, 0, 3, 0, 0, 0}, "the student draws an apple every day .", "学生每天画一个苹果。");
    check_pair({1, 3, 2, 2, 0, 3, 3, 0}, "you do not buy a red book at school at night .", "你晚上不在学校买红书。");
    // A relative clause moves before its noun; a person object has no measure word.
    check_pair({3, 2, 1, 0, 3, 9, 0, 1 + 2 * 6 + 3}, "the dog that took a book draws the student every day .",
               "拿书的小狗每天画学生。");
    check_pair({4, 0, 0, 0, 1, 7, 0, 0}, "the teacher washed the dog .", "老师洗了小狗。");
    check_pair({3, 0, 0, 0, 1, 8, 0, 0}, "the dog washed the teacher .", "小狗洗了老师。");  // same words, other roles
    check_pair({2, 2, 0, 0, 0, 4, 2, 0}, "the cat buys a small bird .", "小猫买一只小鸟。");  // 小 twice, two meanings
    check_pair({0, 1, 0, 0, 1, 4, 2, 0}, "i did not wash a small bird .", "我没有洗小鸟。");  // negated: no 一只
    // A person is never their own object ("the teacher washed the teacher"): the generator draws again.
    const int32_t self[] = {4, 0, 0, 0, 1, 8, 0, 0};
    CHECK_FALSE(translate_draws_valid(self));
}

TEST_CASE("translate's vocabulary, lengths and sentence count are the brute-force ones") {
    const TranslateVocab& v = translate_vocab();
    std::unordered_set<std::string> en, zh, sentences;
    size_t src_len = 0, dec_len = 0;
    for_all_draws([&](std::vector<int32_t> d) {
        canonical_translate_draws(d.data());
        if (!translate_draws_valid(d.data())) return;
        const TranslatePair p = translate_pair(d.data());
        en.insert(p.english.begin(), p.english.end());
        zh.insert(p.chinese.begin(), p.chinese.end());
        src_len = std::max(src_len, p.english.size()), dec_len = std::max(dec_len, p.chinese.size());
        sentences.insert(joined(p.english, " "));
    });
    CHECK(static_cast<size_t>(v.english) == en.size());
    CHECK(v.tokens.size() == en.size() + zh.size());
    for (int i = 0; i < static_cast<int>(v.tokens.size()); ++i) CHECK((i < v.english ? en : zh).count(v.tokens[static_cast<size_t>(i)]) == 1);
    CHECK(static_cast<size_t>(v.src_len) == src_len);
    CHECK(static_cast<size_t>(v.dec_len) == dec_len);
    CHECK(static_cast<size_t>(translate_combinations()) == sentences.size());  // canonical draws: one per sentence
    std::unordered_set<std::string> chinese;  // and every English sentence has a Chinese of its own
    for_all_draws([&](std::vector<int32_t> d) {
        canonical_translate_draws(d.data());
        if (translate_draws_valid(d.data())) chinese.insert(joined(translate_pair(d.data()).chinese, ""));
    });
    CHECK(chinese.size() == sentences.size());
    CHECK(v.tokens[static_cast<size_t>(v.stop)] == "。");
    MESSAGE("translate: " << sentences.size() << " sentences, " << en.size() << " English words, " << zh.size()
                          << " Chinese characters, lengths " << src_len << " / " << dec_len);
}

TEST_CASE("translate examples: the source padded with BOS, targets counted through 。") {
    TrainConfig c = resolve_train_config([] { TrainConfig t; t.task = TaskKind::Translate; return t; }());
    CHECK(validate_train_config(c).empty());
    const TaskSpec spec = task_spec(c);
    const ModelShape m = model_shape(c);
    CHECK(m.kind == ModelKind::EncoderDecoder);
    CHECK(m.pad == spec.bos());
    CHECK(m.vocab_out == static_cast<int>(translate_vocab().tokens.size()));
    const int32_t draws[] = {2, 1, 0, 3, 2, 1, 0, 0};  // the cat did not take a fish in the park . (11 words, 10 characters)
    std::vector<int32_t> src(static_cast<size_t>(spec.src_len())), in(static_cast<size_t>(spec.dec_len())), out(in.size());
    std::vector<uint8_t> mask(in.size());
    task_example(src.data(), in.data(), out.data(), mask.data(), draws, spec);
    const TranslateVocab& v = translate_vocab();
    CHECK(src[0] == v.id("the"));
    CHECK(src[10] == v.id("."));
    for (size_t i = 11; i < src.size(); ++i) CHECK(src[i] == spec.bos());
    CHECK(in[0] == spec.bos());
    CHECK(out[0] == v.id("小"));
    CHECK(out[9] == v.stop);
    for (size_t i = 0; i < mask.size(); ++i) CHECK(mask[i] == (i < 10 ? 1 : 0));
    for (size_t i = 1; i < in.size(); ++i) CHECK(in[i] == out[i - 1]);
    // Typed text: lower-cased, "." split off, unknown words named once; a Chinese character is no English word.
    const TranslateText t = read_translate_text("The Cat washed a zebra. zebra 猫");
    CHECK(joined(t.words, " ") == "the cat washed a zebra . zebra 猫");
    CHECK(t.unknown == std::vector<std::string>{"zebra", "猫"});
    CHECK(t.ids[1] == v.id("cat"));
    CHECK(t.ids[4] == -1);
}

TEST_CASE("BLEU: a hand-computed corpus, the brevity penalty, and Python's figures") {
    // hyp 1 2 3 4 5 / ref 1 2 3 4 6: p1 4/5, p2 3/4, p3 2/3, p4 1/2, c = r: BLEU = (4/5·3/4·2/3·1/2)^(1/4) = 0.2^(1/4)
    BleuStats s;
    bleu_add(s, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 6});
    CHECK(bleu_score(s) == doctest::Approx(100 * std::pow(0.2, 0.25)).epsilon(1e-12));
    // Clipping: 7 7 7 7 against 7 1 2 3 counts 7 once (p1 = 1/4) and no 2-gram: 0 without smoothing.
    BleuStats clipped;
    bleu_add(clipped, {7, 7, 7, 7}, {7, 1, 2, 3});
    CHECK(clipped.matches[0] == 1);
    CHECK(bleu_score(clipped) == 0);
    // Corpus counts add before dividing; a short hypothesis pays exp(1 − r/c).
    BleuStats corpus;
    bleu_add(corpus, {1, 2, 3, 4}, {1, 2, 3, 4, 5, 6});
    bleu_add(corpus, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 5});
    CHECK(corpus.hyp_len == 9);
    CHECK(corpus.ref_len == 11);
    CHECK(bleu_score(corpus) == doctest::Approx(100 * std::exp(1 - 11.0 / 9)).epsilon(1e-12));
    // tests/fixtures/bleu_cases.txt: corpora and Python's BLEU (tests/torch/bleu_reference.py).
    std::ifstream in(std::string(LAB_FIXTURE_DIR) + "/bleu_cases.txt");
    REQUIRE(in);
    int corpora = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream row(line);
        int pairs = 0;
        double python = 0;
        row >> pairs >> python;
        BleuStats b;
        for (int i = 0; i < pairs; ++i) {
            std::string hyp, ref;
            REQUIRE(std::getline(in, hyp));
            REQUIRE(std::getline(in, ref));
            auto ids = [](const std::string& text) {
                std::vector<int32_t> v;
                std::istringstream ss(text);
                for (int32_t x; ss >> x;) v.push_back(x);
                return v;
            };
            bleu_add(b, ids(hyp), ids(ref));
        }
        CAPTURE(corpora);
        CHECK(bleu_score(b) == doctest::Approx(python).epsilon(1e-9));
        ++corpora;
    }
    CHECK(corpora >= 20);
}

TEST_CASE("the padded encoder-decoder is the naive forward with the source's padding keys out, and its gradient is exact") {
    TrainConfig c = resolve_train_config([] { TrainConfig t; t.task = TaskKind::Translate; return t; }());
    c.d_model = 6, c.heads = 2, c.d_ff = 10, c.layers = 1;
    const TaskSpec spec = task_spec(c);
    ModelShape shape = model_shape(c);
    shape.label_smoothing = 0.1;
    const ModelLayout layout = make_layout(shape);
    std::vector<double> params = generic_params(layout);
    Workspace<double> ws;
    workspace_resize(ws, layout, 1);
    const int32_t draws[] = {0, 0, 1, 1, 1, 5, 1, 0};  // i washed a big car at home yesterday . (9 words)
    ws.loss_mask.resize(ws.dec_in.size());
    task_example(ws.src.data(), ws.dec_in.data(), ws.dec_out.data(), ws.loss_mask.data(), draws, spec);
    REQUIRE(ws.src.back() == spec.bos());
    const double loss = model_forward(ws, layout, params.data());
    const naive::Model naive{layout, params, {}};
    CHECK(loss == doctest::Approx(naive.loss(ws.src, ws.dec_in, ws.dec_out, ws.loss_mask)).epsilon(1e-7));
    // The padding keys get no weight: with the decoder's first input a word (so that the padding id
    // is read by the source's padding only), moving the padding token's embedding row leaves the loss
    // exactly as it was; a real source word's row moves it.
    Workspace<double> other;
    workspace_resize(other, layout, 1);
    other.src = ws.src, other.dec_in = ws.dec_in, other.dec_out = ws.dec_out, other.loss_mask = ws.loss_mask;
    other.dec_in[0] = translate_vocab().id("我");
    const double before = model_forward(other, layout, params.data());
    auto moved_row = [&](int32_t id) {
        std::vector<double> moved = params;
        for (int e = 0; e < shape.d_model; ++e) moved[layout.embedding + static_cast<size_t>(id) * shape.d_model + e] += 0.5;
        return model_forward(other, layout, moved.data());
    };
    CHECK(moved_row(spec.bos()) == doctest::Approx(before).epsilon(1e-13));
    CHECK(moved_row(translate_vocab().id("car")) != doctest::Approx(before).epsilon(1e-6));
    std::vector<double> grads(layout.total);
    model_forward(ws, layout, params.data());
    model_backward(ws, layout, params.data(), grads.data());
    for (const ParamInfo& p : layout.params) {
        CAPTURE(p.name);
        std::vector<size_t> at;
        for (size_t e = 0; e < p.size; e += p.size > 6 ? p.size / 6 : 1) at.push_back(p.offset + e);
        if (p.name == "embedding.weight")
            for (int32_t id : {ws.src[0], ws.src[4], ws.dec_in[0], ws.dec_in[3]})
                for (int e = 0; e < shape.d_model; e += 2) at.push_back(p.offset + static_cast<size_t>(id) * shape.d_model + e);
        CHECK_GRAD(p.name, check_grad(params, grads, [&] { return model_forward(ws, layout, params.data()); }, at));
    }
}

TEST_CASE("a translator trained for 300 steps translates held-out sentences: exact accuracy and BLEU") {
    TrainConfig c;
    c.task = TaskKind::Translate;
    c.steps = 300;
    c.eval_every = 300;
    Trainer t;
    REQUIRE(t.init(c, nullptr));
    t.step(c.steps);
    REQUIRE(!t.evals().empty());
    const EvalReport& e = t.evals().back();
    MESSAGE("translate after 300 steps: held-out exact " << e.exact_accuracy << ", token " << e.token_accuracy << ", BLEU " << e.bleu);
    CHECK(e.exact_accuracy > 0.9);
    CHECK(e.bleu > 90);
    CHECK(e.bleu <= 100);
    // The greedy output of a held-out sentence ends at 。 and is the reference when it is right.
    const Sample s = t.held_out_sample(0);
    const std::vector<int32_t> out = t.greedy_decode(s);
    REQUIRE(!out.empty());
    CHECK(out.back() == translate_vocab().stop);
    // Every attention of the trained model: the map cut to the sentence (source words, target
    // through 。), the stepper's trace of it with the source's padding masked as in the model and
    // every check passing, its weights the model's own.
    const int n_src = static_cast<int>(translate_pair(s.draws.data()).english.size()), n_dec = s.gen_end;
    for (int block = 0; block < static_cast<int>(t.layout().blocks.size()); ++block) {
        const AttentionKind kind = t.layout().blocks[static_cast<size_t>(block)].kind;
        CAPTURE(block);
        const AttentionMap map = t.attention_map(s, block);
        CHECK(map.L_q == (kind == AttentionKind::EncoderSelf ? n_src : n_dec));
        CHECK(map.L_kv == (kind == AttentionKind::DecoderSelf ? n_dec : n_src));
        ModelTrace m;
        std::string error;
        REQUIRE_MESSAGE(trace_model(t, s, block, &m, &error), error);
        CHECK(m.trace.config.mask == (kind == AttentionKind::DecoderSelf ? MaskKind::Causal : MaskKind::Padding));
        if (kind != AttentionKind::DecoderSelf) CHECK(m.trace.config.padding_lengths == std::vector<int>{n_src});
        for (const StageRecord& st : m.trace.stages)
            for (const InvariantCheck& c : st.checks) CHECK_MESSAGE((c.passed() || !c.is_check()), c.id);
        const Tensor& w = m.trace[TensorId::Weights];
        const int L_kv = w.shape.back();
        for (int h = 0; h < map.heads; ++h)
            for (int i = 0; i < map.L_q; ++i)
                for (int j = 0; j < map.L_kv; ++j)
                    CHECK(w.data[(static_cast<size_t>(h) * w.shape[w.shape.size() - 2] + i) * L_kv + j] ==
                          doctest::Approx(map.weights[(static_cast<size_t>(h) * map.L_q + i) * map.L_kv + j]).epsilon(1e-5));
    }
    // The KV cache decodes it as the full recompute does (the source's padding left out of the
    // cached cross-attention keys), every step equal, the same greedy tokens.
    DecodeOptions to_stop;
    to_stop.stop = translate_vocab().stop;
    const DecodeRun run = kv_decode(t.layout(), t.params().data(), s.src, s.dec_in, s.gen_begin, t.task().dec_len(), to_stop);
    CHECK(run.failed == 0);
    CHECK(run.worst > 0);
    REQUIRE(run.steps.size() == out.size());  // it stopped at 。 as greedy_decode did
    for (size_t p = 0; p < out.size(); ++p) CHECK(run.steps[p].token_out == out[p]);
    // An untrained model's BLEU is low (a check that could pass by accident would be no check).
    Trainer fresh;
    c.steps = 1, c.eval_every = 1;
    REQUIRE(fresh.init(c, nullptr));
    fresh.step(1);
    CHECK(fresh.evals().back().bleu < 5);
}

TEST_CASE("attnlab train --task translate prints BLEU; --vocab and --length are the grammar's") {
    const CliRun bad = run({"train", "--task", "translate", "--vocab", "20"});
    CHECK(bad.code != 0);
    CHECK(bad.err.find("--vocab: vocab is fixed by the grammar of translate (vocab=91, length=18)") != std::string::npos);
    const CliRun ok = run({"train", "--task", "translate", "--steps", "20", "--eval-every", "10", "--eval-size", "32"});
    CHECK(ok.code == 0);
    CHECK(ok.out.find("train translate: encoder-decoder N=2") != std::string::npos);
    CHECK(ok.out.find("  BLEU ") != std::string::npos);
    CHECK(ok.out.find(", BLEU ") != std::string::npos);
}

TEST_CASE("the shipped translator: held-out BLEU, and its cross-attention aligns 昨 with yesterday, off the diagonal") {
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/translate", "final", &t, &errors));
    const EvalReport e = t.evaluate();
    MESSAGE("shipped translate: held-out exact " << e.exact_accuracy << ", BLEU " << e.bleu);
    CHECK(e.exact_accuracy >= 0.98);
    CHECK(e.bleu >= 99);
    // attnlab decode prints the held-out sentence and its translation as text, every step equal to the recompute.
    const CliRun decoded = run({"decode", "--checkpoint", std::string(LAB_CHECKPOINT_DIR) + "/translate", "--sample", "3"});
    CHECK(decoded.code == 0);
    const TranslatePair pair = translate_pair(t.held_out_sample(3).draws.data());
    CHECK(decoded.out.find("source: " + joined(pair.english, " ") + "\ndecoded: " + joined(pair.chinese, "") + "\n") != std::string::npos);
    // i washed a big car at home yesterday . → 我昨天在家洗了一辆大汽车。: the decoder row that writes 昨
    // (row 1, reading 我) and the one that writes 在 (row 3): which English word each head weighs most.
    Sample s;
    std::string error;
    REQUIRE_MESSAGE(t.make_sample({0, 0, 1, 1, 1, 5, 1, 0}, &s, &error), error);
    const TranslateVocab& v = translate_vocab();
    REQUIRE(s.dec_out[1] == v.id("昨"));
    REQUIRE(s.dec_out[3] == v.id("在"));
    auto best_weight_on = [&](int row, int key) {
        double best = 0;
        for (int block = 0; block < static_cast<int>(t.layout().blocks.size()); ++block) {
            const AttentionMap m = t.attention_map(s, block);
            if (m.block.kind != AttentionKind::Cross) continue;
            for (int h = 0; h < m.heads; ++h) best = std::max(best, static_cast<double>(m.weights[(static_cast<size_t>(h) * m.L_q + row) * m.L_kv + key]));
        }
        return best;
    };
    const double yesterday = best_weight_on(1, 7), at = best_weight_on(3, 5);  // "yesterday" is word 7, "at" word 5
    MESSAGE("cross-attention: row 昨 on 'yesterday' " << yesterday << ", row 在 on 'at' " << at << " (uniform 1/9)");
    CHECK(yesterday > 0.5);
    CHECK(at > 0.3);
}
