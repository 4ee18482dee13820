// lesson_model.cpp — Attention Lab core: a trained model's heads measured for the lessons
// (knockout losses and attention diagonals) and the questions asked of them.
#include "teach/lessons/lesson_model.h"

#include <algorithm>
#include <cstdio>

#include "train/head_scores.h"

namespace lab {

namespace {

// Mean weight of query i on key i and on key L-1-i, over `samples` held-out samples.
void diagonals(Trainer& t, int block, int samples, std::vector<LessonHead>* heads, int first) {
    const int n = std::max(1, std::min(samples, t.held_out_count()));
    for (int s = 0; s < n; ++s) {
        const AttentionMap m = t.attention_map(t.held_out_sample(s), block);
        if (m.L_q != m.L_kv || m.L_q == 0) return;
        const int L = m.L_q;
        for (int h = 0; h < m.heads; ++h) {
            LessonHead& out = (*heads)[first + h];
            for (int i = 0; i < L; ++i) {
                const float* row = &m.weights[(static_cast<size_t>(h) * L + i) * L];
                out.diagonal += row[i] / (static_cast<double>(L) * n);
                out.anti_diagonal += row[L - 1 - i] / (static_cast<double>(L) * n);
            }
        }
    }
}

Msg head_label(const LessonHead& h) {
    return Msg(Str::lesson_opt_layer_head, h.layer, attention_kind_row(h.kind).brief, h.head);
}

// "L0 cross h1" in the list of losses (the same in both languages).
std::string head_code(const LessonHead& h) {
    return "L" + std::to_string(h.layer) + " " + attention_kind_row(h.kind).code + " h" + std::to_string(h.head);
}

// A head to pick among all of the model's: the options name them, the pick has the largest
// `score`; `list` quotes every head's score (and `also`'s, when given) for the feedback.
LessonQuestion pick_head(const LessonModel& m, Str prompt, Str hint, double LessonHead::*score, double LessonHead::*also,
                         std::string* list) {
    LessonQuestion q;
    q.kind = QuestionKind::PickHead, q.prompt = Msg(prompt), q.hint = Msg(hint);
    for (size_t i = 0; i < m.heads.size(); ++i) {
        const LessonHead& h = m.heads[i];
        q.options.push_back(head_label(h));
        char buf[64];
        if (also) std::snprintf(buf, sizeof buf, ": %.3f / %.3f", h.*score, h.*also);
        else std::snprintf(buf, sizeof buf, ": %.3f", h.*score);
        *list += (i ? ", " : "") + head_code(h) + buf;
        if (q.pick < 0 || h.*score > m.heads[q.pick].*score) q.pick = static_cast<int>(i);
    }
    return q;
}

LessonQuestion model_not_ready(QuestionKind kind) {
    LessonQuestion q;
    q.kind = kind, q.ready = false, q.not_ready = Msg(Str::lesson_needs_model_view);
    return q;
}

}  // namespace

LessonModel measure_lesson_model(Trainer& t, int samples) {
    LessonModel m;
    if (!t.ready()) return m;
    const int H = t.config().heads, blocks = static_cast<int>(t.layout().blocks.size());
    m.heads_per_block = H;
    m.loss = t.evaluate().loss;
    std::vector<uint8_t> keep(static_cast<size_t>(blocks) * H, 1);
    for (int b = 0; b < blocks; ++b) {
        const AttentionBlockInfo& info = t.layout().blocks[b];
        for (int h = 0; h < H; ++h) {
            LessonHead head;
            head.block = b, head.layer = info.layer, head.head = h, head.kind = info.kind;
            keep[static_cast<size_t>(b) * H + h] = 0;
            head.knockout_loss = t.evaluate(&keep).loss;
            keep[static_cast<size_t>(b) * H + h] = 1;
            m.heads.push_back(head);
        }
        diagonals(t, b, samples, &m.heads, b * H);
    }
    for (const HeadScore& s : induction_head_scores(t, samples)) {
        LessonHead& h = m.heads[static_cast<size_t>(s.block) * H + s.head];
        h.previous_token = s.previous_token, h.induction = s.induction;
    }
    if (t.task().kind == TaskKind::Coref) m.coref = coref_head_scores(t, t.held_out_count());
    m.ready = true;
    return m;
}

LessonQuestion coref_referent_question(const LessonModel& m) {
    const CorefReading& r = m.typed;
    if (m.coref.resolving < 0 || r.answer < 0 || r.text.nouns.size() != 2 || r.heads.size() != m.coref.heads.size())
        return model_not_ready(QuestionKind::PickOption);
    const CorefHeadScore& best = m.coref.heads[static_cast<size_t>(m.coref.resolving)];
    const CorefHeadRow& row = r.heads[static_cast<size_t>(m.coref.resolving)];
    const std::string query = r.text.tokens[static_cast<size_t>(r.text.query)];
    std::string nouns[2];
    for (int n = 0; n < 2; ++n)
        for (int k = r.text.nouns[n].begin; k < r.text.nouns[n].end; ++k) nouns[n] += r.text.tokens[static_cast<size_t>(k)];
    LessonQuestion q;
    q.kind = QuestionKind::PickOption;
    q.prompt = Msg(Str::lesson_coref_prompt, best.layer, best.head, query);  // layers counted from 0, as the stepper
    q.hint = Msg(Str::lesson_coref_hint, query);
    q.options = {Msg::literal(nouns[0]), Msg::literal(nouns[1])};
    q.pick = row.on_noun[1] > row.on_noun[0] ? 1 : 0;
    q.explain = Msg(Str::lesson_coref_explain, best.layer, best.head, query, row.on_noun[0], nouns[0], row.on_noun[1], nouns[1],
                    r.probability, best.margin[0], best.margin[1]);
    q.numbers = {{"on_first", row.on_noun[0], 2}, {"on_second", row.on_noun[1], 2}};
    return q;
}

LessonQuestion cross_pattern_question(const LessonModel& m) {
    const LessonHead* best = nullptr;  // the cross-attention head most focused on one diagonal
    for (const LessonHead& h : m.heads)
        if (h.kind == AttentionKind::Cross && (!best || std::max(h.diagonal, h.anti_diagonal) > std::max(best->diagonal, best->anti_diagonal)))
            best = &h;
    if (!best) return model_not_ready(QuestionKind::PickOption);
    LessonQuestion q;
    q.kind = QuestionKind::PickOption;
    q.prompt = Msg(Str::lesson_cross_prompt);
    q.hint = Msg(Str::lesson_cross_hint);
    q.options = {Msg(Str::lesson_opt_diagonal), Msg(Str::lesson_opt_anti_diagonal), Msg(Str::lesson_opt_spread)};
    q.pick = std::max(best->diagonal, best->anti_diagonal) < 0.5 ? 2 : best->anti_diagonal > best->diagonal ? 1 : 0;
    q.explain = Msg(Str::lesson_cross_explain, best->head, best->anti_diagonal, best->diagonal);
    q.numbers = {{"head", static_cast<double>(best->head), 0}, {"anti_diagonal", best->anti_diagonal, 3}, {"diagonal", best->diagonal, 3}};
    return q;
}

LessonQuestion induction_head_question(const LessonModel& m) {
    const bool decoder_only = !m.heads.empty() && std::all_of(m.heads.begin(), m.heads.end(), [](const LessonHead& h) {
        return h.kind == AttentionKind::DecoderSelf;
    });
    if (!decoder_only) return model_not_ready(QuestionKind::PickHead);
    std::string list;
    LessonQuestion q = pick_head(m, Str::lesson_induction_prompt, Str::lesson_induction_hint, &LessonHead::induction,
                                 &LessonHead::previous_token, &list);
    const LessonHead& best = m.heads[q.pick];
    q.explain = Msg(Str::lesson_induction_explain, head_label(best), best.induction, list);
    q.numbers = {{"induction", best.induction, 3}};
    for (const LessonHead& h : m.heads) q.numbers.push_back({"previous_token", h.previous_token, 3});
    return q;
}

LessonQuestion knockout_question(const LessonModel& m) {
    if (m.heads.empty()) return model_not_ready(QuestionKind::PickHead);
    std::string list;
    LessonQuestion q = pick_head(m, Str::lesson_knockout_prompt, Str::lesson_knockout_hint, &LessonHead::knockout_loss, nullptr,
                                 &list);
    const LessonHead& worst = m.heads[q.pick];
    q.explain = Msg(Str::lesson_knockout_explain, m.loss, head_label(worst), worst.knockout_loss, worst.knockout_loss - m.loss, list);
    q.numbers = {{"loss", m.loss, 4}, {"knockout_loss", worst.knockout_loss, 3}, {"rise", worst.knockout_loss - m.loss, 3}};
    return q;
}

}  // namespace lab
