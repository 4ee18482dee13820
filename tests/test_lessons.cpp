// Lessons: every step of every lesson is set up from its hash fragment, asked of the trace,
// and its computed answer compared with an independent reference (the naive attention of
// naive_reference.h on the trace's inputs and weights, with the mask built from the
// configuration by hand, and the sinusoid formula); the feedback quotes its numbers in both
// languages; the grader takes the right answer and refuses wrong ones.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/data/url_state.h"
#include "interop/checkpoint.h"
#include "model_trace/block_trace.h"
#include "naive_reference.h"
#include "teach/lessons/lesson_model.h"
#include "teach/lessons/lessons.h"
#include "trace/stages.h"
#include "train/head_scores.h"

using namespace lab;

namespace {

struct StepRun {
    UrlState setup;
    Trace trace;
    LessonQuestion q;
};

StepRun run_step(const LessonStep& step) {
    const UrlDecode d = decode_url_state(step.setup);
    CHECK_MESSAGE(d.notes.empty(), step.setup);
    StepRun r{d.state, run_trace(d.state.config, make_inputs(d.state.config, d.state.tokens), make_weights(d.state.config)), {}};
    r.q = step.ask(r.trace);
    return r;
}

// keep[b][i][j] from the configuration alone (not the trace's mask tensor).
std::vector<float> keep_from_config(const AttentionConfig& c) {
    std::vector<float> keep;
    for (int b = 0; b < c.batch; ++b)
        for (int i = 0; i < c.L_q(); ++i)
            for (int j = 0; j < c.L_kv(); ++j) {
                bool k = true;
                if (c.mask == MaskKind::Causal) k = j <= i;
                if (c.mask == MaskKind::Padding) k = j < c.padding_lengths[b];
                if (c.mask == MaskKind::Custom) k = c.custom_keep[i * c.L_kv() + j] != 0;
                keep.push_back(k ? 1.0f : 0.0f);
            }
    return keep;
}

naive::Result naive_of(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    auto t = [&](TensorId id) { return std::vector<float>(tr[id].data.begin(), tr[id].data.end()); };
    return naive::attention(t(TensorId::QueryIn), t(TensorId::KeyValueIn), t(TensorId::WQ), t(TensorId::WK), t(TensorId::WV),
                            t(TensorId::WO), t(TensorId::BQ), t(TensorId::BK), t(TensorId::BV), t(TensorId::BO),
                            keep_from_config(c), c.batch, c.L_q(), c.L_kv(), c.d_model, c.heads, c.scale,
                            c.mask_fill == MaskFill::NegInf ? -INFINITY : -1e9);
}

// weights[b, h, i, :] of the naive result.
std::vector<double> naive_row(const naive::Result& r, const AttentionConfig& c, int b, int h, int i) {
    const size_t at = ((static_cast<size_t>(b) * c.heads + h) * c.L_q() + i) * c.L_kv();
    return std::vector<double>(r.weights.begin() + at, r.weights.begin() + at + c.L_kv());
}

double naive_entropy(const std::vector<double>& p) {
    double e = 0;
    for (double v : p)
        if (v > 0) e -= v * std::log(v);
    return e;
}

double naive_max(const std::vector<double>& p) { return *std::max_element(p.begin(), p.end()); }

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// The right response to a question, from its computed answer.
LessonResponse right_response(const LessonQuestion& q) {
    LessonResponse r;
    r.text = q.kind == QuestionKind::Shape ? shape_text(q.shape) : fixed(q.value, 4);
    r.cells = q.cells;
    r.pick = q.pick;
    return r;
}

// A wrong response of the same kind (what the browser test types or clicks first).
LessonResponse wrong_response(const LessonQuestion& q) {
    LessonResponse r = right_response(q);
    if (q.kind == QuestionKind::Shape) {
        std::vector<int> s = q.shape;
        s.back() += 1;
        r.text = shape_text(s);
    }
    if (q.kind == QuestionKind::Estimate) r.text = fixed(q.value + q.tolerance + 0.5, 4);
    if (q.kind == QuestionKind::Cells) r.cells.pop_back();
    if (!q.options.empty()) r.pick = (q.pick + 1) % static_cast<int>(q.options.size());
    return r;
}

// What every question owes the learner: a prompt and hint in both languages, feedback that
// quotes every number it lists, a grader that takes the right answer and refuses a wrong one.
void check_texts_and_grader(const LessonQuestion& q) {
    CHECK(!render(q.prompt, Lang::En).empty());
    CHECK(!render(q.hint, Lang::Zh).empty());
    for (Lang lang : {Lang::En, Lang::Zh}) {
        const std::string text = render(q.explain, lang);
        for (const LessonNumber& num : q.numbers)
            CHECK_MESSAGE(text.find(fixed(num.value, num.decimals)) != std::string::npos,
                          num.name << " = " << fixed(num.value, num.decimals) << " missing in: " << text);
    }
    CHECK(grade_answer(q, right_response(q)).correct);
    const LessonGrade wrong = grade_answer(q, wrong_response(q));
    CHECK(wrong.understood);
    CHECK(!wrong.correct);
    CHECK(!render(wrong.verdict, Lang::En).empty());
}

// The step's answer against the reference for what it asks.
void check_answer(const std::string& key, const StepRun& r) {
    const AttentionConfig& c = r.trace.config;
    const naive::Result n = naive_of(r.trace);
    const LessonQuestion& q = r.q;
    const int B = c.batch, h = c.heads, L = c.L_q(), Lkv = c.L_kv(), d = c.d_model, dk = d / h;
    if (key == "1.1" || key == "1.2" || key == "1.5") CHECK(q.shape == std::vector<int>{B, L, d});
    if (key == "1.3" || key == "3.4") CHECK(q.shape == std::vector<int>{B, h, L, Lkv});
    if (key == "3.2") CHECK(q.shape == std::vector<int>{B, L, h, dk});
    if (key == "3.3") CHECK(q.shape == std::vector<int>{B, h, L, dk});
    if (key == "3.6") CHECK(q.shape == std::vector<int>{B, L, d});
    if (key == "3.1") CHECK(q.value == dk);
    if (key == "2.1") CHECK(q.value == doctest::Approx(std::sqrt(dk)));
    if (key == "1.4" || key == "2.4") {
        const int row = q.marks[0].row0;
        CHECK(q.value == doctest::Approx(naive_max(naive_row(n, c, 0, 0, row))).epsilon(1e-5));
    }
    if (key == "2.3") {
        const double ea = naive_entropy(naive_row(n, c, 0, 0, q.option_rows[0]));
        const double eb = naive_entropy(naive_row(n, c, 0, 0, q.option_rows[1]));
        CHECK(q.pick == (ea < eb ? 0 : 1));
        // and the pair is the least and the most sharp row of the map
        for (int i = 0; i < L; ++i) {
            const double e = naive_entropy(naive_row(n, c, 0, 0, i));
            CHECK(e >= std::min(ea, eb) - 1e-5);
            CHECK(e <= std::max(ea, eb) + 1e-5);
        }
    }
    if (key == "3.5") {
        std::vector<double> e;
        for (int hh = 0; hh < h; ++hh) e.push_back(naive_entropy(naive_row(n, c, 0, hh, L - 1)));
        CHECK(q.pick == std::min_element(e.begin(), e.end()) - e.begin());
    }
    if (key == "2.2") {  // var(q.k) ≈ d_k var(q) var(k) for these random projections
        CHECK(q.pick == 2);
    }
}

void check_cells(const std::string& key, const StepRun& r) {
    const AttentionConfig& c = r.trace.config;
    const LessonQuestion& q = r.q;
    const std::vector<float> keep = keep_from_config(c);
    std::vector<int> want;
    const int b = q.target.batch_item;
    for (int i = 0; i < c.L_q(); ++i)
        for (int j = 0; j < c.L_kv(); ++j)
            if (keep[(static_cast<size_t>(b) * c.L_q() + i) * c.L_kv() + j] == 0.0f) want.push_back(i * c.L_kv() + j);
    CHECK_MESSAGE(q.cells == want, key);
    if (key == "4.1") CHECK(q.cells.size() == static_cast<size_t>(c.L_q() * (c.L_q() - 1) / 2));
    if (key == "4.3") CHECK(b == 1);
}

void check_outcome(const std::string& key, const StepRun& r) {
    const AttentionConfig& c = r.trace.config;
    const naive::Result n = naive_of(r.trace);
    const LessonQuestion& q = r.q;
    if (key == "4.4" || key == "4.5") {
        const std::vector<double> row = naive_row(n, c, 0, 0, q.marks[0].row0);
        const bool nan = std::all_of(row.begin(), row.end(), [](double v) { return std::isnan(v); });
        const bool uniform = std::all_of(row.begin(), row.end(), [&](double v) { return std::fabs(v - 1.0 / c.L_kv()) < 1e-9; });
        CHECK(q.pick == (nan ? 0 : uniform ? 1 : 2));
        CHECK(q.pick == (key == "4.4" ? 0 : 1));  // -inf gives NaN, -1e9 uniform (as PyTorch)
    }
    if (key == "4.2") CHECK(q.value == doctest::Approx(1.0));
    if (key == "5.1" || key == "5.2") {
        double diff = 0;
        for (int k = 0; k < c.d_model; ++k) diff = std::max(diff, std::fabs(n.output[k] - n.output[2 * c.d_model + k]));
        CHECK(q.pick == (diff < 1e-5 ? 0 : 1));
        CHECK(q.pick == (key == "5.1" ? 0 : 1));  // order blind without PE, not with it
    }
    if (key == "5.3") CHECK(q.value == doctest::Approx(std::sin(1.0)).epsilon(1e-6));
    if (key == "5.4") {
        CHECK(c.d_model % 2 == 1);
        const double angle = 1.0 / std::pow(10000.0, double(c.d_model - 1) / c.d_model);
        CHECK(r.trace[TensorId::Pe].at({1, c.d_model - 1}) == doctest::Approx(std::sin(angle)).epsilon(1e-6));
        CHECK(q.pick == 0);
    }
}

}  // namespace

TEST_CASE("every lesson step: set up, asked of the trace, answered as the references say") {
    REQUIRE(lessons().size() >= 5);
    for (size_t l = 0; l < lessons().size(); ++l) {
        const Lesson& lesson = lessons()[l];
        CHECK(lesson.steps.size() >= 4);
        CHECK(lesson.steps.size() <= 8);
        for (size_t s = 0; s < lesson.steps.size(); ++s) {
            const std::string key = std::to_string(l + 1) + "." + std::to_string(s + 1);
            CAPTURE(key);
            if (lesson.steps[s].task) continue;  // a step on a shipped model: the test below
            const StepRun r = run_step(lesson.steps[s]);
            REQUIRE(r.q.ready);
            check_texts_and_grader(r.q);
            check_answer(key, r);
            if (r.q.kind == QuestionKind::Cells) check_cells(key, r);
            check_outcome(key, r);
        }
    }
}

TEST_CASE("an answer after the knobs moved is the answer about what is on screen") {
    const LessonStep& step = lessons()[0].steps[0];  // the shape of x
    UrlDecode d = decode_url_state(step.setup);
    d.state.config.d_model = 12, d.state.config.seq_len = 6;
    const Trace tr = run_trace(d.state.config);
    CHECK(step.ask(tr).shape == std::vector<int>{2, 6, 12});
    // A question the trace cannot ask says so instead of answering something else.
    AttentionConfig none = d.state.config;
    none.mask = MaskKind::None;
    CHECK_FALSE(lessons()[3].steps[0].ask(run_trace(none)).ready);
    none.pe = false;
    CHECK_FALSE(lessons()[4].steps[2].ask(run_trace(none)).ready);
}

TEST_CASE("typed shapes and numbers are read the way learners write them") {
    std::vector<int> s;
    for (std::string text : {"(2, 8, 10, 10)", "[2,8,10,10]", "torch.Size([2, 8, 10, 10])", "2 8 10 10", "2x8x10x10", " ( 2 ,8,10 ,10 ) ",
                             "(2\xef\xbc\x8c" "8\xef\xbc\x8c" "10\xef\xbc\x8c" "10)"}) {  // full-width commas, as a Chinese IME types them
        CAPTURE(text);
        CHECK(parse_shape(text, &s));
        CHECK(s == std::vector<int>{2, 8, 10, 10});
    }
    for (std::string bad : {"", "()", "(2, -8)", "(2.5, 3)", "(B, L)", "(99999999999)"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_shape(bad, &s));
    }
    double v = 0;
    CHECK((parse_number(" 0.9 ", &v) && v == 0.9));
    CHECK((parse_number("0,25", &v) && v == 0.25));
    CHECK_FALSE(parse_number("abc", &v));
    CHECK_FALSE(parse_number("1e999", &v));
    CHECK_FALSE(parse_number("nan", &v));
    LessonQuestion q;
    q.kind = QuestionKind::Shape, q.shape = {2, 4, 8};
    LessonResponse r;
    r.text = "(2, 4)";
    const LessonGrade g = grade_answer(q, r);
    CHECK(g.understood);
    CHECK(render(g.verdict, Lang::En).find("2 axes") != std::string::npos);
    r.text = "two, four";
    CHECK_FALSE(grade_answer(q, r).understood);
}

// ---- lessons 6 and 7: steps on the shipped checkpoints ------------------------------------------
// Set up as the page does (the checkpoint, the stepper's attention named by the hash, held-out
// sample 0), and the answers against naive loops over the checkpoint's parameters and the
// trace's inputs, and against the tasks' definitions.

namespace {

struct ModelStep {
    Trainer* t;
    const ModelTrace* m;
    const LessonModel* measured;
    Sample sample;
};

const float* param(const Trainer& t, size_t at) { return t.params().data() + at; }

// LayerNorm's row before γ, β: (x − mean) / √(var + ε), by hand.
std::vector<double> naive_normalised(const Tensor& x, int row) {
    const int d = x.shape[2];
    double mean = 0, var = 0;
    for (int k = 0; k < d; ++k) mean += x.at({0, row, k}) / d;
    for (int k = 0; k < d; ++k) var += (x.at({0, row, k}) - mean) * (x.at({0, row, k}) - mean) / d;
    std::vector<double> z;
    for (int k = 0; k < d; ++k) z.push_back((x.at({0, row, k}) - mean) / std::sqrt(var + 1e-5));
    return z;
}

void check_block_answer(const std::string& key, const ModelStep& s, const LessonQuestion& q) {
    const Trace& tr = s.m->trace;
    const int d = s.t->config().d_model, L = s.t->config().length;
    const float* E = param(*s.t, s.t->layout().embedding);
    if (key == "6.1") CHECK(q.value == doctest::Approx(E[s.sample.src[0] * d] * std::sqrt(double(d))).epsilon(1e-5));
    if (key == "6.2") CHECK(q.value == doctest::Approx(E[s.sample.src[1] * d] * std::sqrt(double(d)) + std::sin(1.0)).epsilon(1e-5));
    if (key == "6.3") {
        const std::vector<double> z = naive_normalised(tr[TensorId::Residual], 0);
        for (int k = 0; k < d; ++k)
            CHECK(tr[TensorId::NormOut].at({0, 0, k}) ==
                  doctest::Approx(tr[TensorId::NormW].at({k}) * z[k] + tr[TensorId::NormB].at({k})).epsilon(1e-4));
        CHECK(q.pick == 0);  // mean 0, variance 1
    }
    if (key == "6.4") CHECK(q.shape == std::vector<int>{1, L, s.t->config().d_ff});
    if (key == "6.5") {  // ffn_in · W_1 + b_1 by hand, and its non-positive entries
        const Tensor &in = tr[TensorId::FfnIn], &w1 = tr[TensorId::W1], &b1 = tr[TensorId::B1];
        const int f = w1.shape[1];
        int zeros = 0;
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < f; ++j) {
                double h = b1.at({j});
                for (int k = 0; k < d; ++k) h += double(in.at({0, i, k})) * w1.at({k, j});
                zeros += h <= 0;
            }
        CHECK(q.value == doctest::Approx(double(zeros) / (L * f)).epsilon(0.03));
    }
    if (key == "6.6") {  // softmax(top · W_gen + b_gen) row 0 by hand
        const Tensor &top = tr[TensorId::Top], &w = tr[TensorId::WGen], &b = tr[TensorId::BGen];
        const int V = w.shape[1];
        std::vector<double> z(V);
        for (int v = 0; v < V; ++v) {
            z[v] = b.at({v});
            for (int k = 0; k < d; ++k) z[v] += double(top.at({0, 0, k})) * w.at({k, v});
        }
        const double top_z = *std::max_element(z.begin(), z.end());
        double sum = 0;
        for (double v : z) sum += std::exp(v - top_z);
        CHECK(q.value == doctest::Approx(1.0 / sum).epsilon(1e-4));
        CHECK(q.value > 0.5);  // a trained model is sure of its first output
    }
}

// The head of a (1, H, L, L) map with the most weight on its anti-diagonal, by hand.
int naive_anti_diagonal_head(const Tensor& w) {
    const int H = w.shape[1], L = w.shape[2];
    std::vector<double> mass(H, 0.0);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < L; ++i) mass[h] += w.at({0, h, i, L - 1 - i});
    return static_cast<int>(std::max_element(mass.begin(), mass.end()) - mass.begin());
}

void check_trained_answer(const std::string& key, const ModelStep& s, const LessonQuestion& q) {
    const Tensor& w = s.m->trace[TensorId::Weights];
    const int L = s.t->config().length;
    if (key == "7.1") CHECK(q.pick == 1);  // reversing reads the anti-diagonal
    if (key == "7.2") {
        REQUIRE(q.cells.size() == 1);
        const int row = q.cells[0] / L, key_col = q.cells[0] % L;
        CHECK(q.target.head == naive_anti_diagonal_head(w));
        CHECK(key_col == L - 1 - row);  // output `row` of the reversed sequence is input L-1-row
        CHECK(w.at({0, q.target.head, row, key_col}) > 0.5f);
    }
    if (key == "7.3") {
        const int h = naive_anti_diagonal_head(w);
        CHECK(q.value == doctest::Approx(w.at({0, h, L - 1, 0})));
        CHECK(q.value > 0.5);
    }
    if (key == "7.4") {
        const std::vector<HeadScore> scores = induction_head_scores(*s.t, 16);
        REQUIRE(scores.size() == q.options.size());
        int best = 0;
        for (size_t i = 0; i < scores.size(); ++i)
            if (scores[i].induction > scores[best].induction) best = static_cast<int>(i);
        CHECK(q.pick == best);
        CHECK(scores[best].layer == 1);  // the induction head sits above the previous-token head
    }
    if (key == "7.5") {
        REQUIRE(q.options.size() == s.measured->heads.size());
        for (const LessonHead& h : s.measured->heads) CHECK(h.knockout_loss <= s.measured->heads[q.pick].knockout_loss);
    }
}

}  // namespace

TEST_CASE("lessons 6 and 7: every step on a shipped checkpoint, set up and asked as the page does") {
    int asked = 0;
    for (const char* task : {"reverse", "induction"}) {
        Trainer t;
        std::vector<ConfigError> errors;
        REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/" + task, "final", &t, &errors));
        const LessonModel measured = measure_lesson_model(t, 16);
        for (size_t l = 0; l < lessons().size(); ++l)
            for (size_t n = 0; n < lessons()[l].steps.size(); ++n) {
                const LessonStep& step = lessons()[l].steps[n];
                if (!step.task || std::string(step.task) != task) continue;
                const std::string key = std::to_string(l + 1) + "." + std::to_string(n + 1);
                CAPTURE(key);
                const UrlDecode d = decode_url_state(step.setup);
                CHECK(d.notes.empty());
                REQUIRE(d.state.view.model);
                AttentionKind kind;
                REQUIRE(parse_attention_kind(d.state.view.sublayer, &kind));
                const int block = find_block(t.layout(), d.state.view.layer, kind);
                REQUIRE(block >= 0);
                ModelTrace m;
                REQUIRE(trace_model(t, t.held_out_sample(0), block, &m, nullptr));
                const LessonQuestion q = step.ask_model ? step.ask_model(measured, m.trace) : step.ask(m.trace);
                REQUIRE(q.ready);
                check_texts_and_grader(q);
                const ModelStep s{&t, &m, &measured, t.held_out_sample(0)};
                check_block_answer(key, s, q);
                check_trained_answer(key, s, q);
                ++asked;
                // On the knobs' random trace (no model shown) the step says so instead of answering.
                if (step.ask) CHECK_FALSE(step.ask(run_trace(AttentionConfig{})).ready);
            }
    }
    CHECK(asked == 11);  // lesson 6's six steps and lesson 7's five
}
