// test_train_coref.cpp — the pronoun task `coref` (issue 24): its grammar against hand-written
// sentences, its vocabulary and held-out split against brute force, the encoder-only model
// against the independent naive forward (naive_model.h) and finite differences, and a trained
// model's answer and resolving head on the tutorials' sentence.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cli_run.h"
#include "grad_check.h"
#include "joined.h"
#include "interop/checkpoint.h"
#include "model_trace/block_trace.h"
#include "naive_model.h"
#include "teach/lessons/lesson_model.h"
#include "train/coref_probe.h"
#include "train/tasks.h"
#include "train/train_config.h"
#include "train/trainer.h"

using namespace lab;

namespace {

// Every draw of the grammar, by plain nested loops.
std::vector<std::vector<int32_t>> all_draws() {
    std::vector<std::vector<int32_t>> all;
    for (int a = 0; a < 4; ++a)
        for (int o = 0; o < 6; ++o)
            for (int order = 0; order < 2; ++order)
                for (int v = 0; v < 6; ++v)
                    for (int p = 0; p < 12; ++p) all.push_back({a, o, order, v, p});
    return all;
}

TrainConfig coref_config(CorefLang lang, int steps) {
    TrainConfig c;
    c.task = TaskKind::Coref;
    c.lang = lang;
    c.steps = steps;
    c.eval_every = steps;
    return c;
}

}  // namespace

TEST_CASE("coref sentences are the issue's sentences, token by token") {
    const int32_t cat_ball_happy[] = {0, 0, 0, 0, 0}, cat_ball_rolled[] = {0, 0, 0, 0, 6};
    const CorefSentence zh = coref_sentence(cat_ball_happy, CorefLang::Zh);
    CHECK(joined(zh.tokens, " ") == "小 猫 追 着 球 跑 ， 它 玩 得 很 开 心 。");
    CHECK(zh.pronoun == 7);
    CHECK(zh.referent == 0);
    CHECK(zh.nouns[0].begin == 0);
    CHECK(zh.nouns[0].end == 2);
    CHECK(zh.nouns[1].begin == 4);
    CHECK(zh.nouns[1].cls == 4);
    CHECK(coref_sentence(cat_ball_rolled, CorefLang::Zh).referent == 4);  // 球
    CHECK(joined(coref_sentence(cat_ball_rolled, CorefLang::En).tokens, " ") ==
          "the cat chased the ball , it rolled far away .");
    // The object first (order 1), 撞到了 (verb 1), 小狗 (animal 1), 纸团 (object 5), 破了 (predicate 7).
    const int32_t paper_first[] = {1, 5, 1, 1, 7};
    const CorefSentence pz = coref_sentence(paper_first, CorefLang::Zh), pe = coref_sentence(paper_first, CorefLang::En);
    CHECK(joined(pz.tokens, "") == "纸团撞到了小狗，它破了。");
    CHECK(joined(pe.tokens, " ") == "the paper ball bumped into the dog , it broke .");
    CHECK(pz.referent == 9);
    CHECK(pe.pronoun == 8);
    CHECK(pe.nouns[0].end - pe.nouns[0].begin == 2);  // "paper ball" is two words
}

TEST_CASE("coref's vocabulary holds every token of the grammar, and its length is the longest sentence") {
    for (CorefLang lang : {CorefLang::Zh, CorefLang::En}) {
        CAPTURE(coref_lang_name(lang));
        const CorefVocab& v = coref_vocab(lang);
        std::set<std::string> seen;
        size_t longest = 0;
        for (const std::vector<int32_t>& d : all_draws()) {
            const CorefSentence s = coref_sentence(d.data(), lang);
            longest = std::max(longest, s.tokens.size());
            for (const std::string& t : s.tokens) seen.insert(t);
            CHECK(s.tokens[static_cast<size_t>(s.pronoun)] == (lang == CorefLang::Zh ? "它" : "it"));
        }
        CHECK(v.tokens.size() == seen.size());  // nothing missing, nothing extra
        for (const std::string& t : seen) CHECK(v.id(t) >= 0);
        CHECK(v.max_len == static_cast<int>(longest));
        CHECK(static_cast<int>(all_draws().size()) == coref_combinations());
    }
    CHECK(coref_vocab(CorefLang::Zh).max_len == 15);  // 小猫追着纸团跑，它摇了摇尾巴。
    // The referent is the noun whose kind the predicate fits: the lists, written out here.
    const char* animal_predicates[] = {"玩得很开心", "叫了一声", "饿了", "睡着了", "跑开了", "摇了摇尾巴"};
    const char* animals[] = {"小猫", "小狗", "小兔", "小鸟"};
    for (const std::vector<int32_t>& d : all_draws()) {
        const CorefSentence s = coref_sentence(d.data(), CorefLang::Zh);
        const std::string text = joined(s.tokens, "");
        const std::string predicate = text.substr(text.find("它") + 3, text.size() - text.find("它") - 6);
        bool fits_animal = false;
        for (const char* p : animal_predicates) fits_animal |= predicate == p;
        CAPTURE(text);
        CHECK((s.referent < kCorefAnimals) == fits_animal);
        const std::string said = coref_vocab(CorefLang::Zh).nouns[static_cast<size_t>(s.referent)];
        CHECK(text.find(said) != std::string::npos);
        CHECK((text.find(animals[d[0]]) != std::string::npos));
    }
}

TEST_CASE("coref's held-out sentences are whole combinations the training stream never draws") {
    TaskSpec spec = task_spec(resolve_train_config(coref_config(CorefLang::Zh, 10)));
    const HeldOut held = make_held_out(spec, 1, 256);
    CHECK(held.count() == 256);
    std::set<std::vector<int32_t>> held_draws;
    for (int i = 0; i < 256; ++i) held_draws.insert(std::vector<int32_t>(held.draws.begin() + i * 5, held.draws.begin() + (i + 1) * 5));
    CHECK(held_draws.size() == 256);
    TaskStream stream(spec, 1, &held);
    std::set<std::vector<int32_t>> trained;
    std::vector<int32_t> d(5);
    for (int i = 0; i < 80000; ++i) {  // enough to draw each of the 3200 others (coupon collector: ~28000)
        stream.next_draws(d.data());
        trained.insert(d);
    }
    int overlap = 0;
    for (const auto& h : held_draws) overlap += static_cast<int>(trained.count(h));
    CHECK(overlap == 0);
    CHECK(trained.size() == static_cast<size_t>(coref_combinations() - 256));  // everything else is drawn
    CHECK(make_held_out(spec, 1, 256).draws == held.draws);  // deterministic from the seed
    CHECK(make_held_out(spec, 2, 256).draws != held.draws);
    // The arrays: padded with BOS, one counted position, at the pronoun, holding the referent.
    std::vector<int32_t> dec_in(static_cast<size_t>(spec.dec_len())), dec_out(dec_in.size());
    std::vector<uint8_t> mask(dec_in.size());
    const int32_t rolled[] = {0, 0, 0, 0, 6};
    task_example(nullptr, dec_in.data(), dec_out.data(), mask.data(), rolled, spec);
    CHECK(dec_in[13] == spec.bos());
    CHECK(dec_in[14] == spec.bos());
    CHECK(dec_in[12] == coref_vocab(CorefLang::Zh).id("。"));
    for (int p = 0; p < spec.dec_len(); ++p) CHECK(mask[static_cast<size_t>(p)] == (p == 7 ? 1 : 0));
    CHECK(dec_out[7] == 4);
}

TEST_CASE("the encoder-only model is the naive unmasked forward with padding keys out, and its gradient is exact") {
    TrainConfig c = resolve_train_config(coref_config(CorefLang::En, 1));
    c.d_model = 6, c.heads = 2, c.d_ff = 10;
    const TaskSpec spec = task_spec(c);
    ModelShape shape = model_shape(c);
    shape.label_smoothing = 0.1;
    const ModelLayout layout = make_layout(shape);
    CHECK(layout.blocks[0].kind == AttentionKind::EncoderSelf);
    CHECK(layout.blocks[1].name == "layers.1.self_attn");
    std::vector<double> params = generic_params(layout);
    Workspace<double> ws;
    workspace_resize(ws, layout, 1);
    const int32_t short_one[] = {2, 2, 0, 2, 7};  // "the rabbit pushed the car , it broke ." (9 of 14 tokens)
    task_example(nullptr, ws.dec_in.data(), ws.dec_out.data(), nullptr, short_one, spec);
    ws.loss_mask.assign(ws.dec_in.size(), 0);
    ws.loss_mask[6] = 1, ws.loss_mask[1] = 1;  // the pronoun and a noun: both directions of attention count
    CHECK(ws.dec_in.back() == spec.bos());
    const double loss = model_forward(ws, layout, params.data());
    const naive::Model naive{layout, params, {}};
    // (the lab's positional encoding is float32 even in double: agreement to ~1e-8)
    CHECK(loss == doctest::Approx(naive.loss({}, ws.dec_in, ws.dec_out, ws.loss_mask)).epsilon(1e-7));
    // The padding keys get no weight: a padding token's embedding row does not change the loss.
    std::vector<double> moved = params;
    for (int e = 0; e < shape.d_model; ++e) moved[layout.embedding + static_cast<size_t>(spec.bos()) * shape.d_model + e] += 0.5;
    CHECK(model_forward(ws, layout, moved.data()) == doctest::Approx(loss).epsilon(1e-12));
    // Not causal: the pronoun's output depends on the predicate after it.
    Workspace<double> other;
    workspace_resize(other, layout, 1);
    other.dec_in = ws.dec_in, other.dec_out = ws.dec_out, other.loss_mask = ws.loss_mask;
    other.dec_in[7] = coref_vocab(CorefLang::En).id("fell");
    CHECK(model_forward(other, layout, params.data()) != doctest::Approx(loss).epsilon(1e-6));
    std::vector<double> grads(layout.total);
    model_forward(ws, layout, params.data());
    model_backward(ws, layout, params.data(), grads.data());
    for (const ParamInfo& p : layout.params) {
        CAPTURE(p.name);
        std::vector<size_t> at;
        for (size_t e = 0; e < p.size; e += p.size > 6 ? p.size / 6 : 1) at.push_back(p.offset + e);
        if (p.name == "embedding.weight")  // the rows of tokens in the sentence (the others have no gradient)
            for (int pos : {0, 1, 6, 8})
                for (int e = 0; e < shape.d_model; e += 2)
                    at.push_back(p.offset + static_cast<size_t>(ws.dec_in[static_cast<size_t>(pos)]) * shape.d_model + e);
        CHECK_GRAD(p.name, check_grad(params, grads, [&] { return model_forward(ws, layout, params.data()); }, at));
    }
}

TEST_CASE("typed sentences: English normalised, nouns found longest first, unknown tokens named") {
    const CorefText en = read_coref_text("The paper ball bumped into the Dog, it broke.", CorefLang::En);
    CHECK(joined(en.tokens, " ") == "the paper ball bumped into the dog , it broke .");
    CHECK(en.unknown.empty());
    REQUIRE(en.nouns.size() == 2);
    CHECK(en.nouns[0].cls == 9);  // paper ball, not ball
    CHECK(en.nouns[1].cls == 1);
    CHECK(en.query == 8);
    const CorefText zh = read_coref_text("小猫追着飞机跑, 它玩得很开心。", CorefLang::Zh);
    CHECK(zh.unknown == std::vector<std::string>{"飞", "机"});
    CHECK(zh.tokens[7] == "，");  // an ASCII comma is the Chinese one
    CHECK(read_coref_text("小猫追着球跑，它玩得很开心。", CorefLang::Zh, "球").query == 4);
    CHECK(read_coref_text("小猫追着球跑。", CorefLang::Zh).query == -1);
}

TEST_CASE("a trained coref model answers the tutorials' sentence and a later-layer head resolves it") {
    for (CorefLang lang : {CorefLang::Zh, CorefLang::En}) {
        CAPTURE(coref_lang_name(lang));
        Trainer t;
        REQUIRE(t.init(coref_config(lang, 400), nullptr));
        t.step(400);
        REQUIRE(!t.evals().empty());
        CHECK(t.evals().back().exact_accuracy >= 0.99);
        const bool zh = lang == CorefLang::Zh;
        CorefReading happy, rolled;
        Msg problem;
        REQUIRE(coref_read(t, zh ? "小猫追着球跑，它玩得很开心。" : "the cat chased the ball, it was very happy.", "", &happy, &problem));
        REQUIRE(coref_read(t, zh ? "小猫追着球跑，它滚得很远。" : "the cat chased the ball, it rolled far away.", "", &rolled, &problem));
        CHECK(happy.answer == 0);   // 小猫 / cat
        CHECK(rolled.answer == 4);  // 球 / ball
        // Every row is a softmax row over the sentence (padding keys take nothing).
        for (const CorefHeadRow& h : happy.heads) {
            double sum = 0;
            for (float w : h.row) sum += w;
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
        }
        const CorefScores s = coref_head_scores(t, t.held_out_count());
        REQUIRE(s.resolving >= 0);
        const CorefHeadScore& r = s.heads[static_cast<size_t>(s.resolving)];
        CHECK(r.layer == 1);  // layer 0's pronoun row cannot know the predicate (coref_probe.h)
        CHECK(r.margin[0] > 0.3);
        CHECK(r.margin[1] > 0.3);
        const CorefHeadRow& before = happy.heads[static_cast<size_t>(s.resolving)];
        const CorefHeadRow& after = rolled.heads[static_cast<size_t>(s.resolving)];
        CHECK(before.on_noun[0] > before.on_noun[1]);  // on 小猫
        CHECK(after.on_noun[1] > after.on_noun[0]);    // moved to 球
        // Knocking every head out leaves chance or worse; the measured accuracy is the trainer's own.
        CHECK(s.exact == doctest::Approx(t.evaluate().exact_accuracy));
        CHECK(!coref_read(t, zh ? "小猫追着飞机跑，它玩得很开心。" : "the cat chased the plane, it was very happy.", "",
                          &happy, &problem));
        CHECK(render(problem, Lang::En).find(zh ? "飞 机" : "plane") != std::string::npos);
    }
}

TEST_CASE("attnlab train --task coref and attnlab attend: answers, weights, and bad input named") {
    const CliRun bad = run({"train", "--task", "coref", "--vocab", "12"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--vocab: vocab is fixed by the grammar of coref zh") != std::string::npos);
    CHECK(run({"train", "--task", "coref", "--lang", "fr"}).err.find("--lang 'fr' is not zh or en") != std::string::npos);
    CHECK(run({"attend", "--text", "x"}).err.find("--checkpoint needs a value") != std::string::npos);
    CHECK(run({"attend", "--checkpoint", "/nonexistent/coref", "--text", "x"}).code == 2);
    const std::string dir = (std::filesystem::temp_directory_path() / "lab_test_coref_attend").string();
    std::filesystem::remove_all(dir);
    REQUIRE(run({"train", "--task", "coref", "--out", dir, "--save", "final", "--quiet"}).code == 0);
    const CliRun happy = run({"attend", "--checkpoint", dir, "--text", "小猫追着球跑，它玩得很开心。"});
    CHECK(happy.code == 0);
    CHECK(happy.out.find("answer: 小猫") != std::string::npos);
    CHECK(happy.out.find("layers.1.self_attn (layer 1) head 1:\ntensor([") != std::string::npos);
    CHECK(happy.out.find("summed on nouns: 小猫 ") != std::string::npos);
    CHECK(run({"attend", "--checkpoint", dir, "--text", "小猫追着球跑，它滚得很远。"}).out.find("answer: 球") != std::string::npos);
    const CliRun unknown = run({"attend", "--checkpoint", dir, "--text", "小猫追着飞机跑，它玩得很开心。"});
    CHECK(unknown.code == 2);
    CHECK(unknown.err == "attnlab: attend: --text: not in the coref vocabulary (zh): 飞 机\n");
    const CliRun from = run({"attend", "--checkpoint", dir, "--text", "小猫追着球跑，它玩得很开心。", "--from", "狗"});
    CHECK(from.err.find("no \"狗\" in the sentence") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("the stepper traces a coref model's attention: padding keys masked as in the model, every check passing") {
    Trainer t;
    REQUIRE(t.init(coref_config(CorefLang::Zh, 60), nullptr));
    t.step(60);
    const Sample s = t.held_out_sample(3);
    const int n = static_cast<int>(coref_sentence(s.draws.data(), CorefLang::Zh).tokens.size());
    for (int block = 0; block < 2; ++block) {
        CAPTURE(block);
        ModelTrace m;
        std::string error;
        REQUIRE_MESSAGE(trace_model(t, s, block, &m, &error), error);
        CHECK(m.trace.config.mask == MaskKind::Padding);
        CHECK(m.trace.config.padding_lengths == std::vector<int>{n});
        CHECK(m.query_tokens[static_cast<size_t>(s.gen_begin)] == "它");
        CHECK(m.query_tokens.back() == "PAD");
        for (const StageRecord& st : m.trace.stages)
            for (const InvariantCheck& c : st.checks) CHECK_MESSAGE((c.passed() || !c.is_check()), c.id);
        for (const BlockStageRecord& st : m.stages)
            for (const InvariantCheck& c : st.checks) CHECK_MESSAGE((c.passed() || !c.is_check()), c.id);
        // The trace's weights are the model's own (trimmed map: the sentence's rows and columns).
        const AttentionMap map = t.attention_map(s, block);
        REQUIRE(map.L_q == n);
        const Tensor& w = m.trace[TensorId::Weights];
        const int L = t.task().dec_len();
        for (int h = 0; h < map.heads; ++h)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    CHECK(w.data[(static_cast<size_t>(h) * L + i) * L + j] ==
                          doctest::Approx(map.weights[(static_cast<size_t>(h) * n + i) * n + j]).epsilon(1e-5));
    }
}

TEST_CASE("lesson 7's coref steps on the shipped checkpoints: the sentence, the resolving head's noun, from the live model") {
    int asked = 0;
    for (CorefLang lang : {CorefLang::Zh, CorefLang::En}) {
        CAPTURE(coref_lang_name(lang));
        Trainer t;
        std::vector<ConfigError> errors;
        REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/coref/" + coref_lang_name(lang), "final", &t, &errors));
        LessonModel measured = measure_lesson_model(t, 16);
        REQUIRE(measured.coref.resolving >= 0);
        const Lang ui = lang == CorefLang::Zh ? Lang::Zh : Lang::En;
        int pick = 0;  // the happy sentence first (小猫), then the rolled one (球)
        for (const Lesson& lesson : lessons())
            for (const LessonStep& step : lesson.steps) {
                if (!step.task || std::string(step.task) != "coref") continue;
                REQUIRE(step.tokens != Str::Count_);
                const std::string sentence = render(Msg(step.tokens), ui);
                // Not answerable before the sentence is read.
                measured.typed = CorefReading{};
                CHECK_FALSE(step.ask_model(measured, Trace{}).ready);
                Msg problem;
                REQUIRE(coref_read(t, sentence, "", &measured.typed, &problem));
                const LessonQuestion q = step.ask_model(measured, Trace{});
                REQUIRE(q.ready);
                REQUIRE(q.options.size() == 2);
                CHECK(render(q.options[0], ui) == (lang == CorefLang::Zh ? "小猫" : "cat"));
                CHECK(render(q.options[1], ui) == (lang == CorefLang::Zh ? "球" : "ball"));
                CHECK(q.pick == pick);
                CHECK(measured.typed.answer == (pick == 0 ? 0 : 4));  // the model answers what its head looks at
                const CorefHeadRow& row = measured.typed.heads[static_cast<size_t>(measured.coref.resolving)];
                CHECK(row.on_noun[static_cast<size_t>(pick)] > 5 * row.on_noun[static_cast<size_t>(1 - pick)]);
                for (const Msg& m : {q.prompt, q.hint, q.explain})
                    for (Lang l : {Lang::En, Lang::Zh}) CHECK(render(m, l).find('%') == std::string::npos);
                char weight[64];
                std::snprintf(weight, sizeof weight, "%.2f on %s", row.on_noun[static_cast<size_t>(pick)],
                              render(q.options[static_cast<size_t>(pick)], ui).c_str());
                CHECK(render(q.explain, Lang::En).find(weight) != std::string::npos);
                ++pick, ++asked;
            }
    }
    CHECK(asked == 4);
}
