// Lessons on trained models: the shipped checkpoints measured head by head. A knockout is
// checked against an independent knockout (the head's rows of W^O set to zero in the
// parameters, every head kept), the reverse model's cross-attention against the task's
// definition (output i is input L-1-i), and the questions against both.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "interop/checkpoint.h"
#include "teach/lessons/lesson_model.h"

using namespace lab;

namespace {

void open_shipped(const char* task, Trainer* t) {
    std::vector<ConfigError> errors;
    REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/" + task, "final", t, &errors));
}

// The held-out loss with head h of block b silenced by zeroing its d_k rows of W^O
// ((d_in, d_out): the rows that read its context), no head_keep.
double loss_without_rows(Trainer& t, int block, int head) {
    const TrainerState saved = t.save_state();
    TrainerState edited = saved;
    const int d = t.config().d_model, dk = d / t.config().heads;
    const size_t w_out = attention_slots(t.layout(), block).w_out;
    for (int r = head * dk; r < (head + 1) * dk; ++r)
        for (int c = 0; c < d; ++c) edited.params[w_out + static_cast<size_t>(r) * d + c] = 0.0f;
    t.restore_state(edited);
    const double loss = t.evaluate().loss;
    t.restore_state(saved);
    return loss;
}

}  // namespace

TEST_CASE("lesson 7: knockout losses and the head that hurts most, against W^O rows set to zero") {
    for (const char* task : {"reverse", "induction"}) {
        CAPTURE(task);
        Trainer t;
        open_shipped(task, &t);
        const LessonModel m = measure_lesson_model(t, 8);
        REQUIRE(m.ready);
        REQUIRE(m.heads.size() == t.layout().blocks.size() * static_cast<size_t>(t.config().heads));
        CHECK(m.loss == doctest::Approx(t.evaluate().loss));
        int worst = 0;
        for (size_t i = 0; i < m.heads.size(); ++i) {
            const LessonHead& h = m.heads[i];
            const double ref = loss_without_rows(t, h.block, h.head);
            CHECK(h.knockout_loss == doctest::Approx(ref).epsilon(1e-4));
            if (ref > loss_without_rows(t, m.heads[worst].block, m.heads[worst].head)) worst = static_cast<int>(i);
        }
        const LessonQuestion q = knockout_question(m);
        REQUIRE(q.ready);
        CHECK(q.pick == worst);
        CHECK(q.options.size() == m.heads.size());
        CHECK(m.heads[q.pick].knockout_loss > m.loss);  // a trained model needs its most important head
        for (Lang lang : {Lang::En, Lang::Zh}) {
            const std::string text = render(q.explain, lang);
            for (const LessonNumber& n : q.numbers) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.*f", n.decimals, n.value);
                CHECK_MESSAGE(text.find(buf) != std::string::npos, n.name << " " << buf << " in " << text);
            }
        }
        LessonResponse right, wrong;
        right.pick = q.pick, wrong.pick = (q.pick + 1) % static_cast<int>(q.options.size());
        CHECK(grade_answer(q, right).correct);
        CHECK_FALSE(grade_answer(q, wrong).correct);
    }
}

TEST_CASE("lesson 7: the reverse model's cross-attention reads input L-1-i for output i") {
    Trainer t;
    open_shipped("reverse", &t);
    const LessonModel m = measure_lesson_model(t, 16);
    // The reference: the anti-diagonal mass of every cross-attention head, from the maps.
    double best_anti = 0;
    for (size_t b = 0; b < t.layout().blocks.size(); ++b) {
        if (t.layout().blocks[b].kind != AttentionKind::Cross) continue;
        for (int h = 0; h < t.config().heads; ++h) {
            double anti = 0;
            for (int s = 0; s < 16; ++s) {
                const AttentionMap map = t.attention_map(t.held_out_sample(s), static_cast<int>(b));
                const int L = map.L_q;
                for (int i = 0; i < L; ++i) anti += map.weights[(static_cast<size_t>(h) * L + i) * L + (L - 1 - i)] / (16.0 * L);
            }
            const LessonHead& mh = m.heads[b * t.config().heads + h];
            CHECK(mh.anti_diagonal == doctest::Approx(anti).epsilon(1e-5));
            best_anti = std::max(best_anti, anti);
        }
    }
    CHECK(best_anti > 0.5);  // a head that learned the task's alignment
    const LessonQuestion q = cross_pattern_question(m);
    REQUIRE(q.ready);
    CHECK(q.pick == 1);  // anti-diagonal
    // The induction model has no cross-attention: the question says so instead of guessing.
    Trainer dec;
    open_shipped("induction", &dec);
    CHECK_FALSE(cross_pattern_question(measure_lesson_model(dec, 4)).ready);
}
