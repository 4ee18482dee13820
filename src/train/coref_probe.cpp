// train/coref_probe.cpp — Attention Lab core: a trained coref model's answer and its heads'
// weights from the pronoun, for one sentence and over the held-out set.
#include "train/coref_probe.h"

#include <algorithm>
#include <cmath>

namespace lab {

namespace {

const ModelShape& shape(const Trainer& t) { return t.layout().shape; }

// The query row of every head of every attention in ws (one item), over the first n keys.
std::vector<CorefHeadRow> head_rows(const Trainer& t, const Workspace<float>& ws, int query, int n,
                                    const std::vector<CorefNoun>& nouns) {
    std::vector<CorefHeadRow> rows;
    const int L = ws.dec_len, h = shape(t).heads;
    for (int blk = 0; blk < static_cast<int>(t.layout().blocks.size()); ++blk) {
        const float* w = block_acts(ws, t.layout(), blk).weights.x;
        for (int head = 0; head < h; ++head) {
            CorefHeadRow r{blk, t.layout().blocks[static_cast<size_t>(blk)].layer, head, {}, {}};
            const float* row = w + (static_cast<long>(head) * L + query) * L;
            r.row.assign(row, row + n);
            for (const CorefNoun& noun : nouns) {
                double sum = 0;
                for (int k = noun.begin; k < noun.end; ++k) sum += row[k];
                r.on_noun.push_back(sum);
            }
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

std::string joined(const std::vector<std::string>& words) {
    std::string s;
    for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
}

}  // namespace

bool coref_read(Trainer& t, const std::string& text, const std::string& from, CorefReading* out, Msg* problem) {
    if (!t.ready() || t.task().kind != TaskKind::Coref) {
        *problem = Msg(Str::coref_not_coref, t.ready() ? task_name(t.task().kind) : "-");
        return false;
    }
    const CorefLang lang = t.task().lang;
    CorefReading r;
    r.text = read_coref_text(text, lang, from);
    const int n = static_cast<int>(r.text.tokens.size()), L = t.task().dec_len();
    const std::string query = from.empty() ? (lang == CorefLang::Zh ? "它" : "it") : from;
    if (!r.text.unknown.empty()) *problem = Msg(Str::coref_unknown, coref_lang_name(lang), joined(r.text.unknown));
    else if (n > L) *problem = Msg(Str::coref_too_long, n, L);
    else if (r.text.query < 0) *problem = Msg(Str::coref_no_query, query);
    if (!r.text.unknown.empty() || n > L || r.text.query < 0) return false;
    std::vector<int32_t> ids(r.text.ids.begin(), r.text.ids.end());
    ids.resize(static_cast<size_t>(L), t.task().bos());
    const Workspace<float>* ws = t.forward_tokens({}, ids);
    if (!ws) return false;  // cannot happen: sizes and ids were checked
    const int V = shape(t).vocab_out;
    const float* logits = ws->logits.x + static_cast<long>(r.text.query) * V;
    r.answer = static_cast<int>(std::max_element(logits, logits + V) - logits);
    double sum = 0;
    for (int c = 0; c < V; ++c) sum += std::exp(static_cast<double>(logits[c] - logits[r.answer]));
    r.probability = 1.0 / sum;
    r.heads = head_rows(t, *ws, r.text.query, n, r.text.nouns);
    *out = std::move(r);
    return true;
}

Sample coref_sample(const Trainer& t, const CorefReading& r) {
    Sample s;
    t.make_typed_sample(std::vector<int32_t>(r.text.ids.begin(), r.text.ids.end()), r.text.query, r.answer, &s, nullptr);
    return s;
}

CorefScores coref_head_scores(Trainer& t, int samples) {
    CorefScores s;
    if (!t.ready() || t.task().kind != TaskKind::Coref) return s;
    s.samples = std::max(0, std::min(samples, t.held_out_count()));
    const int L = t.task().dec_len();
    int counts[2] = {0, 0};  // sentences whose referent is the animal, the object
    for (int i = 0; i < s.samples; ++i) {
        const Sample sample = t.held_out_sample(i);
        const CorefSentence sentence = coref_sentence(sample.draws.data(), t.task().lang);
        const Workspace<float>* ws = t.forward_tokens(sample.src, sample.dec_in);
        if (!ws) return CorefScores{};
        const std::vector<CorefNoun> nouns(sentence.nouns, sentence.nouns + 2);
        const std::vector<CorefHeadRow> rows = head_rows(t, *ws, sentence.pronoun, L, nouns);
        if (s.heads.empty())
            for (const CorefHeadRow& r : rows) s.heads.push_back({r.block, r.layer, r.head});
        const int ref = sentence.nouns[0].cls == sentence.referent ? 0 : 1;
        const int kind = sentence.referent < kCorefAnimals ? 0 : 1;
        ++counts[kind];
        for (size_t k = 0; k < rows.size(); ++k) {
            const double on_ref = rows[k].on_noun[static_cast<size_t>(ref)], on_other = rows[k].on_noun[static_cast<size_t>(1 - ref)];
            s.heads[k].referent += on_ref / s.samples;
            s.heads[k].other += on_other / s.samples;
            s.heads[k].margin[kind] += on_ref - on_other;  // a sum until the end
        }
    }
    for (CorefHeadScore& h : s.heads)
        for (int kind = 0; kind < 2; ++kind) h.margin[kind] = counts[kind] ? h.margin[kind] / counts[kind] : 0;
    s.exact = t.evaluate().exact_accuracy;
    const size_t all = t.layout().blocks.size() * static_cast<size_t>(shape(t).heads);
    for (size_t k = 0; k < s.heads.size(); ++k) {
        std::vector<uint8_t> keep(all, 1);
        keep[k] = 0;  // heads are listed block by block, head by head: k is the head_keep index
        s.heads[k].knockout_exact = t.evaluate(&keep).exact_accuracy;
        const CorefHeadScore& h = s.heads[k];
        const CorefHeadScore* best = s.resolving < 0 ? nullptr : &s.heads[static_cast<size_t>(s.resolving)];
        if (!best || h.resolution() > best->resolution()) s.resolving = static_cast<int>(k);
    }
    return s;
}

}  // namespace lab
