// train_experiments.cpp — Attention Lab app: the paper's claims that need trained models,
// as experiments of the registry (experiments_view.cpp): how many heads, ÷√d_k during
// training, positional encoding, and induction heads. Each trains a few toy models (the
// training engine, core/train) in slices of the frame loop while it is shown, draws a
// progress bar, and keeps its results per configuration of its options, so going back
// to an earlier setting shows them at once.
#include "app/panels/train_experiments.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "app/widgets/heatmap.h"
#include "app/widgets/line_plot.h"
#include "app/widgets/text_wrap.h"
#include "train/head_scores.h"
#include "train/table3.h"

namespace lab {

namespace {

// One model an experiment trains, and what it records along the way.
struct Run {
    Msg label;                          // "h = 4, d_k = 8", "reverse, PE off", ... said in the interface's language
    TrainConfig config;
    // Alive only while the run trains: made when its turn comes, freed when it ends (an experiment
    // of 48 models cannot hold 48 trainers' workspaces in the page), its evaluations kept below.
    std::unique_ptr<Trainer> trainer;
    std::vector<EvalReport> evals;      // once done: the trainer's evaluations
    int steps_done = 0;
    bool stopped = false;               // once done: it stopped on a non-finite loss or gradient
    std::vector<double> steps, losses;  // the training loss of every step
    std::vector<double> stat_steps, saturation;       // every few steps: mean softmax max weight
    std::vector<std::string> groups;                  // gradient-norm groups (layers)
    std::vector<std::vector<double>> group_norms;     // per group, at stat_steps
    std::vector<AttentionMap> maps;     // at the end, on held-out sample 0
    std::vector<HeadScore> scores;      // at the end (induction)
    double seconds = 0;
    bool done = false;
};

struct Planned {
    Msg label;
    TrainConfig config;
};

TrainConfig experiment_config(TaskKind task, int steps, int seed) {
    TrainConfig c;
    c.task = task, c.steps = steps, c.seed = static_cast<uint32_t>(seed);
    c.eval_size = 128, c.eval_every = std::max(1, steps / 5);
    return c;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
const std::chrono::steady_clock::time_point kEpoch = std::chrono::steady_clock::now();

const EvalReport* final_eval(const Run& r) {
    const std::vector<EvalReport>& evals = r.trainer ? r.trainer->evals() : r.evals;
    return evals.empty() ? nullptr : &evals.back();
}

// Every n-th value (and the last), so state() stays small for long runs.
Json thinned(const std::vector<double>& v, size_t most = 100) {
    Json out = Json::array();
    const size_t stride = std::max<size_t>(1, (v.size() + most - 1) / most);
    for (size_t i = 0; i < v.size(); ++i)
        if (i % stride == 0 || i + 1 == v.size()) out.push_back(json_number(v[i]));
    return out;
}

// The base of the four panels: the runs of the current options, trained a slice per frame.
class TrainingPanel : public ExperimentPanel {
public:
    void compute(const AttentionConfig&) override {
        std::string key;
        const std::vector<Planned> planned = plan();
        for (const Planned& p : planned) key += render(p.label, Lang::En) + ":" + describe_config(train_keys(), p.config) + ";";
        if (cache_.count(key) == 0) {
            Runs& runs = cache_[key];
            for (const Planned& p : planned) {
                Run r;
                r.label = p.label, r.config = resolve_train_config(p.config);
                r.done = !validate_train_config(r.config).empty();  // the plans are valid; a bad one is skipped
                runs.push_back(std::move(r));
            }
        }
        runs_ = &cache_[key];
    }

    void draw(LabApp& app) override {
        if (!runs_) return;
        // The time since the last slice ended: the rest of the frame (or a pause while hidden).
        const double now = seconds_since(kEpoch) * 1000, between = now - last_end_ms_;
        between_ms_ = between > 1000 ? 0 : 0.8 * between_ms_ + 0.2 * between;
        advance(training_slice_ms(between_ms_));
        last_end_ms_ = seconds_since(kEpoch) * 1000;
        stale |= draw_options(app);
        draw_progress(app);
        draw_results(app);
    }

    void write_state(Json& out, Lang lang) const override {
        if (!runs_) return;
        int done = 0, total = 0;
        double seconds = 0;
        for (const Run& r : *runs_) done += r.steps_done, total += r.config.steps, seconds += r.seconds;
        out["progress"] = total ? static_cast<double>(done) / total : 1.0;
        out["done"] = !busy();
        out["seconds"] = json_number(seconds);
        Json series = Json::array();
        for (const Run& r : *runs_) series.push_back(run_json(r, lang));
        out["series"] = series;
    }

    bool busy() const override {
        if (!runs_) return false;
        for (const Run& r : *runs_)
            if (!r.done) return true;
        return false;
    }

protected:
    using Runs = std::vector<Run>;
    virtual std::vector<Planned> plan() const = 0;
    virtual bool draw_options(LabApp& app) = 0;  // true when an option changed
    virtual void draw_results(LabApp& app) = 0;
    virtual void finish(Run&) {}                 // after a run's last step
    virtual void write_run(const Run&, Json&) const {}
    int stat_every_ = 0;                         // > 0: record the training statistics every so many steps
    Runs* runs_ = nullptr;

    const Run& run(size_t i) const { return (*runs_)[i]; }
    size_t count() const { return runs_ ? runs_->size() : 0; }

    // The options every panel has: the steps of each run and the seed.
    bool steps_and_seed(LabApp& app, int* steps, int* seed, int lo, int hi) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
        bool changed = ImGui::SliderInt(ui_label(app, UiStr::tx_steps, "tx_steps").c_str(), steps, lo, hi);
        lab_note_rect(app, "tx:steps");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        changed |= ImGui::InputInt(ui_label(app, UiStr::xv_seed, "tx_seed").c_str(), seed);
        *seed = std::max(0, *seed);
        return changed;
    }

    // Training loss of every run against the step, one colour per run.
    void loss_plot(LabApp& app, const char* id, float w, float h) const {
        std::vector<std::string> labels;
        for (size_t i = 0; i < count(); ++i) labels.push_back(say(app, run(i).label));
        std::vector<PlotSeries> series;
        for (size_t i = 0; i < count(); ++i)
            series.push_back({labels[i].c_str(), run(i).steps.data(), run(i).losses.data(), static_cast<int>(run(i).steps.size()),
                              head_color(static_cast<int>(i))});
        PlotAxes axes{false, true};
        axes.x_include_lo = 0, axes.x_include_hi = 1;
        for (size_t i = 0; i < count(); ++i)
            if (!run(i).steps.empty()) axes.x_include_hi = std::max(axes.x_include_hi, run(i).steps.back());
        LinePlot(id, series.data(), static_cast<int>(series.size()), w, h, tr(app, UiStr::tv_axis_step),
                 tr(app, UiStr::tx_axis_training_loss), axes);
    }

    // Held-out accuracy of every run at its last evaluation, as bars. A run still training
    // shows its latest evaluation, said to be provisional and drawn faded.
    void accuracy_bars(LabApp& app, float w) const {
        ImGui::TextDisabled("%s", tr(app, busy() ? UiStr::tx_accuracy_so_far : UiStr::tx_final_accuracy));
        for (size_t i = 0; i < count(); ++i) {
            const Run& r = run(i);
            const EvalReport* e = final_eval(r);
            std::string label = say(app, r.label);
            if (e && r.done) label = say(app, Msg(UiStr::tx_accuracy_bar, r.label, 100 * e->exact_accuracy, 100 * e->token_accuracy));
            else if (e) label = say(app, Msg(UiStr::tx_accuracy_bar_live, r.label, 100 * e->exact_accuracy, e->step, r.config.steps));
            ImVec4 colour = ImGui::ColorConvertU32ToFloat4(head_color(static_cast<int>(i)));
            if (!r.done) colour.w = 0.45f;
            ImGui::PushStyleColor(ImGuiCol_PlotHistogram, colour);
            ImGui::ProgressBar(e ? static_cast<float>(e->exact_accuracy) : 0.0f, ImVec2(w, 0), label.c_str());
            ImGui::PopStyleColor();
            check_item(label.c_str());
        }
    }

    // The loss curves (55 % of the width, `height` tall) beside the accuracy bars and an
    // optional note under them.
    void loss_beside_bars(LabApp& app, const char* id, float height, const char* note = nullptr) const {
        const float width = ImGui::GetContentRegionAvail().x;
        loss_plot(app, id, width * 0.55f, height);
        ImGui::SameLine();
        ImGui::BeginGroup();
        accuracy_bars(app, width * 0.42f);
        if (note) {
            ImGui::Spacing();
            text_wrapped_disabled(note);
        }
        ImGui::EndGroup();
    }

    // A run's final maps of one block, every head side by side.
    void maps_row(LabApp& app, const Run& r, size_t run_index, int block, float side) const {
        if (block < 0 || block >= static_cast<int>(r.maps.size())) return;
        const AttentionMap& m = r.maps[static_cast<size_t>(block)];
        for (int h = 0; h < m.heads; ++h) {
            if (h) ImGui::SameLine(0, 3);
            HeatmapOptions opt;
            opt.range = {ColorMap::Sequential, 0.0f, 1.0f};
            opt.gpu = &app.gpu;
            const std::string key = "tx/" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "/" + std::to_string(run_index) + "/" +
                                    std::to_string(block) + "/" + std::to_string(h);
            opt.gpu_key = key.c_str();
            opt.gpu_version = static_cast<unsigned long long>(r.steps_done);
            opt.max_cell = side / std::max(m.L_q, m.L_kv);
            MatrixHeatmap(key.c_str(), m.weights.data() + static_cast<size_t>(h) * m.L_q * m.L_kv, m.L_q, m.L_kv, m.L_kv, opt,
                          side, side);
        }
    }

private:
    void advance(double budget_ms) {
        const auto t0 = std::chrono::steady_clock::now();
        for (Run& r : *runs_) {
            if (r.done) continue;
            const auto r0 = std::chrono::steady_clock::now();
            if (!r.trainer) {
                r.trainer = std::make_unique<Trainer>();
                std::vector<ConfigError> errors;
                if (!r.trainer->init(r.config, &errors)) r.trainer.reset(), r.done = true;
                if (r.done) continue;
            }
            while (!r.trainer->finished() && seconds_since(t0) * 1000 < budget_ms) step(r);
            r.seconds += seconds_since(r0);
            if (r.trainer->finished()) end_run(r);
            if (seconds_since(t0) * 1000 >= budget_ms) return;
        }
    }

    // The run's last figures and maps, then its trainer freed.
    void end_run(Run& r) {
        r.done = true;
        r.maps.clear();
        const Sample s = r.trainer->held_out_sample(0);
        for (size_t b = 0; b < r.trainer->layout().blocks.size(); ++b) r.maps.push_back(r.trainer->attention_map(s, static_cast<int>(b)));
        finish(r);
        r.evals = r.trainer->evals(), r.steps_done = r.trainer->steps_done();
        r.stopped = r.trainer->stop().cause != StopCause::None;
        r.trainer.reset();
    }

    void step(Run& r) {
        Trainer& t = *r.trainer;
        if (t.step(1) == 0) return;
        r.steps_done = t.steps_done();
        r.steps.push_back(t.steps_done());
        r.losses.push_back(t.losses().back());
        if (stat_every_ <= 0 || t.steps_done() % stat_every_ != 0) return;
        const TrainStats st = t.stats();
        double sat = 0;
        for (double v : st.saturation) sat += v;
        r.stat_steps.push_back(t.steps_done());
        r.saturation.push_back(st.saturation.empty() ? 0 : sat / st.saturation.size());
        if (r.groups.empty())
            for (const ParamGradNorm& g : st.groups) r.groups.push_back(g.name), r.group_norms.emplace_back();
        for (size_t g = 0; g < st.groups.size() && g < r.group_norms.size(); ++g) r.group_norms[g].push_back(st.groups[g].norm);
    }

    void draw_progress(LabApp& app) const {
        int done = 0, total = 0;
        double seconds = 0;
        const Run* now = nullptr;
        for (const Run& r : *runs_) {
            done += r.steps_done, total += r.config.steps, seconds += r.seconds;
            if (!now && !r.done) now = &r;
        }
        const double left = done > 0 ? seconds / done * (total - done) : 0;  // at the steps' mean cost so far
        const std::string label = now ? say(app, Msg(UiStr::tx_progress_training, now->label, done, total, seconds, left))
                                      : say(app, Msg(UiStr::tx_progress_done, count(), seconds));
        ImGui::ProgressBar(total ? static_cast<float>(done) / total : 1.0f, ImVec2(-1, 0), label.c_str());
        lab_note_rect(app, "tx:progress");
    }

    Json run_json(const Run& r, Lang lang) const {
        const EvalReport* e = final_eval(r);
        Json evals = Json::array();
        for (const EvalReport& v : r.trainer ? r.trainer->evals() : r.evals)
            evals.push_back({{"step", v.step}, {"loss", json_number(v.loss)}, {"token_acc", json_number(v.token_accuracy)},
                             {"exact_acc", json_number(v.exact_accuracy)}});
        Json j = {{"label", render(r.label, lang)}, {"config", keys_json(train_keys().rows, &r.config)}, {"step", r.steps_done},
                  {"done", r.done}, {"seconds", json_number(r.seconds)}, {"loss", thinned(r.losses)}, {"evals", evals},
                  {"final_loss", r.losses.empty() ? Json(nullptr) : json_number(r.losses.back())},
                  {"held_out_loss", e ? json_number(e->loss) : Json(nullptr)},
                  {"token_acc", e ? json_number(e->token_accuracy) : Json(nullptr)},
                  {"exact_acc", e ? json_number(e->exact_accuracy) : Json(nullptr)}};
        write_run(r, j);
        return j;
    }

    std::map<std::string, Runs> cache_;  // per configuration of the options
    double last_end_ms_ = 0, between_ms_ = 0;
};

// 1. How many heads -------------------------------------------------------------------------
class HeadsTraining : public TrainingPanel {
    int task_ = static_cast<int>(TaskKind::Sort), steps_ = 150, seed_ = 1;

    std::vector<Planned> plan() const override {
        std::vector<Planned> p;
        for (int h : {1, 2, 4, 8, 16}) {
            TrainConfig c = experiment_config(static_cast<TaskKind>(task_), steps_, seed_);
            c.heads = h, c.d_model = 32, c.d_ff = 64;
            p.push_back({Msg::literal("h = " + std::to_string(h) + ", d_k = " + std::to_string(32 / h)), c});
        }
        return p;
    }

    bool draw_options(LabApp& app) override {
        bool changed = task_combo(app, &task_);
        ImGui::SameLine();
        return steps_and_seed(app, &steps_, &seed_, 50, 1000) || changed;
    }

    void draw_results(LabApp& app) override {
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        loss_beside_bars(app, "tx_heads_loss", avail.y * 0.45f);
        ImGui::TextDisabled("%s", tr(app, UiStr::tx_heads_maps));
        const float side = std::min(avail.y * 0.09f, (avail.x - 160) / 16 - 3);
        for (size_t i = 0; i < count(); ++i) {
            ImGui::TextUnformatted(say(app, run(i).label).c_str());
            ImGui::SameLine(ImGui::GetFontSize() * 9);
            maps_row(app, run(i), i, static_cast<int>(run(i).maps.size()) - 1, side);  // the encoder-decoder attention
            if (run(i).maps.empty()) ImGui::NewLine();
        }
    }

    void write_run(const Run& r, Json& j) const override { j["heads"] = r.config.heads, j["d_k"] = r.config.d_model / r.config.heads; }

public:
    static bool task_combo(LabApp& app, int* task) {
        // The digit tasks (the experiment's tokens are digits), named as the task key spells them.
        const char* names[] = {task_name(TaskKind::Copy), task_name(TaskKind::Reverse), task_name(TaskKind::Sort)};
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        const bool changed = ImGui::Combo(ui_label(app, UiStr::tv_task, "tx_task").c_str(), task, names, 3);
        lab_note_rect(app, "tx:task");
        return changed;
    }
};

// 2. ÷√d_k while training -----------------------------------------------------------------
class ScalingTraining : public TrainingPanel {
    int d_k_ = 0, steps_ = 150, seed_ = 1;  // d_k_: index into kDk
    static constexpr int kDk[] = {64, 128};

    std::vector<Planned> plan() const override {
        std::vector<Planned> p;
        for (bool scale : {true, false}) {
            TrainConfig c = experiment_config(TaskKind::Reverse, steps_, seed_);
            c.d_model = c.d_ff = kDk[d_k_], c.heads = 1, c.batch = 16, c.scale = scale;
            p.push_back({Msg(scale ? UiStr::tx_run_scaled : UiStr::tx_run_unscaled), c});
        }
        return p;
    }

    bool draw_options(LabApp& app) override {
        const char* items[] = {"d_k = 64", "d_k = 128"};
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
        bool changed = ImGui::Combo("##tx_dk", &d_k_, items, 2);
        lab_note_rect(app, "tx:d_k");
        ImGui::SameLine();
        changed |= steps_and_seed(app, &steps_, &seed_, 30, 600);
        stat_every_ = std::max(1, steps_ / 75);
        return changed;
    }

    // Gradient norms of the layers holding attention (solid: scaled, dashed: not).
    void gradient_plot(LabApp& app, float w, float h) const {
        std::vector<PlotSeries> series;
        std::vector<std::string> labels;
        labels.reserve(16);
        for (size_t i = 0; i < count(); ++i)
            for (size_t g = 0; g < run(i).groups.size(); ++g) {
                const std::string& name = run(i).groups[g];
                if (name.find("layers") == std::string::npos) continue;
                labels.push_back(name + (i ? " (" + say(app, run(i).label) + ")" : ""));
                series.push_back({labels.back().c_str(), run(i).stat_steps.data(), run(i).group_norms[g].data(),
                                  static_cast<int>(run(i).stat_steps.size()), head_color(static_cast<int>(g)), i > 0 ? LineStyle::Dashed : LineStyle::Solid});
            }
        LinePlot("tx_scaling_grad", series.data(), static_cast<int>(series.size()), w, h, tr(app, UiStr::tv_axis_step),
                 tr(app, UiStr::tx_axis_grad_norm), {false, true});
    }

    void draw_results(LabApp& app) override {
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float w = avail.x / 3 - 8, h = avail.y * 0.62f;
        loss_plot(app, "tx_scaling_loss", w, h);
        ImGui::SameLine();
        gradient_plot(app, w, h);
        ImGui::SameLine();
        std::vector<std::string> names;
        for (size_t i = 0; i < count(); ++i) names.push_back(say(app, run(i).label));
        std::vector<PlotSeries> sat;
        for (size_t i = 0; i < count(); ++i)
            sat.push_back({names[i].c_str(), run(i).stat_steps.data(), run(i).saturation.data(),
                           static_cast<int>(run(i).stat_steps.size()), head_color(static_cast<int>(i))});
        PlotAxes axes{false, false};
        axes.y_include_lo = 0, axes.y_include_hi = 1;
        LinePlot("tx_scaling_saturation", sat.data(), static_cast<int>(sat.size()), w, h, tr(app, UiStr::tv_axis_step),
                 tr(app, UiStr::tx_axis_saturation), axes);
        if (count() == 2 && !busy()) draw_summary(app);
    }

    void draw_summary(LabApp& app) const {
        const Run &a = run(0), &b = run(1);
        const size_t at = std::min(a.losses.size(), b.losses.size()) / 3;
        const size_t st = std::min(a.saturation.size(), b.saturation.size());
        if (at == 0 || st == 0) return;
        const double sat_a = a.saturation[st / 3], sat_b = b.saturation[st / 3];
        text_wrapped("%s", say(app, Msg(UiStr::tx_scaling_summary, kDk[d_k_], static_cast<int>(at + 1), a.losses[at], b.losses[at],
                                        sat_a, sat_b, a.losses.back(), b.losses.back()))
                               .c_str());
    }

    void write_run(const Run& r, Json& j) const override {
        j["scale"] = r.config.scale, j["d_k"] = r.config.d_model / r.config.heads;
        Json norms = Json::object();
        for (size_t g = 0; g < r.groups.size(); ++g) norms[r.groups[g]] = thinned(r.group_norms[g]);
        j["stat_steps"] = thinned(r.stat_steps), j["saturation"] = thinned(r.saturation), j["grad_norm"] = norms;
    }
};
constexpr int ScalingTraining::kDk[];

// 3. Positional encoding -----------------------------------------------------------------
class PeTraining : public TrainingPanel {
    int steps_ = 250, seed_ = 1;

    std::vector<Planned> plan() const override {
        std::vector<Planned> p;
        for (TaskKind task : {TaskKind::Reverse, TaskKind::Sort})
            for (bool pe : {true, false}) {
                TrainConfig c = experiment_config(task, steps_, seed_);
                c.pe = pe;
                p.push_back({Msg(pe ? UiStr::tx_run_pe_on : UiStr::tx_run_pe_off, task_name(task)), c});
            }
        return p;
    }

    bool draw_options(LabApp& app) override { return steps_and_seed(app, &steps_, &seed_, 50, 1000); }

    void draw_results(LabApp& app) override {
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const std::string verdict = say_verdict(app);
        loss_beside_bars(app, "tx_pe_loss", avail.y * 0.5f, verdict.c_str());
        ImGui::TextDisabled("%s", tr(app, UiStr::tx_pe_maps));
        const float side = std::min(avail.y * 0.18f, avail.x / 9);
        for (size_t i = 0; i < 2 && i < count(); ++i) {  // reverse with and without PE: the cross-attention
            ImGui::TextUnformatted(say(app, run(i).label).c_str());
            ImGui::SameLine(ImGui::GetFontSize() * 9);
            maps_row(app, run(i), i, static_cast<int>(run(i).maps.size()) - 1, side);
            if (run(i).maps.empty()) ImGui::NewLine();
        }
    }

    void write_run(const Run& r, Json& j) const override { j["task"] = task_name(r.config.task), j["pe"] = r.config.pe; }

    void write_state(Json& out, Lang lang) const override {
        TrainingPanel::write_state(out, lang);
        if (runs_) out["verdict"] = render(verdict(), lang);
    }

    // Said only from the final figures: while any model trains, that the verdict waits for
    // them; then each task's gap, and the claim only where the gap shows it.
    Msg verdict() const {
        if (busy() || count() != 4) return Msg(UiStr::tx_pe_wait);
        double acc[4];
        for (size_t i = 0; i < 4; ++i) {
            const EvalReport* e = final_eval(run(i));
            acc[i] = e ? 100 * e->exact_accuracy : 0;
        }
        constexpr double kNeeds = 20, kSame = 10;  // points of sequence accuracy; 128 held-out samples
        const double reverse_gap = acc[0] - acc[1], sort_gap = acc[2] - acc[3];
        Msg m(UiStr::tx_pe_figures, acc[0], acc[1], acc[2], acc[3]);
        m.then(reverse_gap >= kNeeds ? Msg(UiStr::tx_pe_reverse_needs, reverse_gap) : Msg(UiStr::tx_pe_reverse_unclear, reverse_gap));
        m.then(sort_gap <= kSame ? Msg(UiStr::tx_pe_sort_same, std::fabs(sort_gap)) : Msg(UiStr::tx_pe_sort_behind, sort_gap));
        return m;
    }
    std::string say_verdict(LabApp& app) const { return say(app, verdict()); }
};

// Where a training loss falls: the step at which its smoothed value crosses halfway
// from the early plateau to the end, and the steps the middle half of the fall took
// (narrow: a sudden drop). step -1: it fell by less than a quarter.
struct LossDrop {
    int step = -1, width = -1;
};

LossDrop loss_drop(const std::vector<double>& losses) {
    const size_t n = losses.size(), window = 20;
    if (n < 4 * window) return {};
    std::vector<double> smooth(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
        sum += losses[i] - (i >= window ? losses[i - window] : 0);
        smooth[i] = sum / std::min(i + 1, window);
    }
    const size_t from = n / 10;
    const double hi = smooth[from], lo = smooth[n - 1];
    if (hi - lo < 0.25 * hi) return {};
    auto first_below = [&](double f) {
        for (size_t i = from; i < n; ++i)
            if (smooth[i] <= lo + f * (hi - lo)) return static_cast<int>(i + 1);
        return static_cast<int>(n);
    };
    return {first_below(0.5), first_below(0.25) - first_below(0.75)};
}

// 4. Induction heads -----------------------------------------------------------------------
class InductionTraining : public TrainingPanel {
    int steps_ = 300, seed_ = 1;

    std::vector<Planned> plan() const override {
        std::vector<Planned> p;
        for (int layers : {1, 2}) {
            TrainConfig c = experiment_config(TaskKind::Induction, steps_, seed_);
            c.layers = layers, c.length = 6, c.gap = 4;
            p.push_back({Msg(layers == 1 ? UiStr::tx_run_layer : UiStr::tx_run_layers, layers), c});
        }
        return p;
    }

    bool draw_options(LabApp& app) override { return steps_and_seed(app, &steps_, &seed_, 100, 2000); }
    void finish(Run& r) override { r.scores = induction_head_scores(*r.trainer, 64); }

    // Each head's two scores as bars.
    void score_table(LabApp& app, const Run& r, float w) const {
        ImGui::TextUnformatted(say(app, r.label).c_str());
        for (const HeadScore& s : r.scores) {
            const std::string text = say(app, Msg(UiStr::tx_head_scores, s.layer + 1, s.head, s.previous_token, s.induction));
            ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImGui::ColorConvertU32ToFloat4(head_color(s.head)));
            ImGui::ProgressBar(static_cast<float>(std::max(s.previous_token, s.induction)), ImVec2(w, 0), text.c_str());
            ImGui::PopStyleColor();
        }
    }

    void draw_results(LabApp& app) override {
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        loss_plot(app, "tx_induction_loss", avail.x * 0.5f, avail.y * 0.5f);
        ImGui::SameLine();
        ImGui::BeginChild("tx_induction_scores", ImVec2(0, avail.y * 0.5f));
        text_wrapped_disabled(tr(app, UiStr::tx_scores_explained));
        for (size_t i = 0; i < count(); ++i) score_table(app, run(i), ImGui::GetContentRegionAvail().x);
        ImGui::EndChild();
        for (size_t i = 0; i < count(); ++i) {
            const LossDrop d = loss_drop(run(i).losses);
            if (run(i).done) text_wrapped("%s", say(app, d.step < 0 ? Msg(UiStr::tx_no_drop, run(i).label)
                                                                 : Msg(UiStr::tx_drop, run(i).label, d.step, d.width)).c_str());
        }
        if (count() < 2 || run(1).maps.size() < 2) return;
        ImGui::TextDisabled("%s", tr(app, UiStr::tx_induction_maps));
        const float side = std::min(avail.y * 0.2f, avail.x / 9);
        for (int b = 0; b < 2; ++b) maps_row(app, run(1), 1, b, side);
    }

    void write_run(const Run& r, Json& j) const override {
        const LossDrop d = loss_drop(r.losses);
        Json heads = Json::array();
        for (const HeadScore& s : r.scores)
            heads.push_back({{"layer", s.layer}, {"head", s.head}, {"previous_token", json_number(s.previous_token)},
                             {"induction", json_number(s.induction)}});
        j["layers"] = r.config.layers, j["drop_step"] = d.step, j["drop_width"] = d.width, j["heads"] = heads;
    }
};


// 5. Table 3 in miniature ----------------------------------------------------------------
// Every row of train/table3.h × seeds 1..K, trained one after another a slice per frame; the
// table fills in as cells finish, a row's verdict once it and the base have every seed.
class Table3Training : public TrainingPanel {
    Table3Options options_ = resolve_table3_options({});

public:
    Table3Training() { option_rows = &table3_option_keys().rows, option_values = &options_; }

private:
    std::vector<Planned> plan() const override {
        const Table3Options o = resolve_table3_options(options_);
        std::vector<Planned> p;
        for (const Table3Row& row : table3_rows())
            for (int seed = 1; seed <= o.seeds; ++seed)
                p.push_back({Msg::literal(std::string(row.id) + " · seed " + std::to_string(seed)), table3_config(row, seed, o)});
        return p;
    }

    bool draw_options(LabApp& app) override {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
        bool changed = ImGui::SliderInt(ui_label(app, UiStr::tx_steps, "t3_steps").c_str(), &options_.steps, 50, 600);
        lab_note_rect(app, "t3:steps");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        changed |= ImGui::SliderInt(ui_label(app, UiStr::t3_seeds, "t3_seeds").c_str(), &options_.seeds, 1, 5);
        lab_note_rect(app, "t3:seeds");
        options_ = resolve_table3_options(options_);
        return changed;
    }

    // The rows' results from the finished runs (plan order: row by row, seed by seed).
    std::vector<Table3RowResult> results() const {
        std::vector<Table3RowResult> out;
        const int seeds = resolve_table3_options(options_).seeds;
        for (size_t i = 0; i < count(); ++i) {
            if (i % static_cast<size_t>(seeds) == 0) out.push_back({&table3_rows()[i / seeds], {}, {}, {}, {}, {}});
            const Run& r = run(i);
            if (r.done) out.back().cells.push_back(table3_cell(r.evals, r.stopped, r.seconds));
        }
        summarize_table3(out, seeds);
        return out;
    }

    static std::string figure(const Spread& s, int digits) {
        if (s.n == 0) return "…";
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f ± %.*f", digits, s.mean, digits, s.sd);
        return buf;
    }

    void draw_results(LabApp& app) override {
        const std::vector<Table3RowResult> rows = results();
        text_wrapped_disabled(tr(app, UiStr::t3_rule));
        const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                      ImGuiTableFlags_SizingFixedFit;
        if (!ImGui::BeginTable("table3", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
        ImGui::TableSetupScrollFreeze(0, 1);
        // The paper's row and the verdicts share what the figures leave, wrapped (1024 px wide too).
        ImGui::TableSetupColumn(tr(app, UiStr::t3_col_row), ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn(tr(app, UiStr::t3_col_paper), ImGuiTableColumnFlags_WidthStretch);
        for (UiStr h : {UiStr::t3_col_bleu, UiStr::t3_col_ppl}) ImGui::TableSetupColumn(tr(app, h), ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn(tr(app, UiStr::t3_col_bleu_verdict), ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn(tr(app, UiStr::t3_col_ppl_verdict), ImGuiTableColumnFlags_WidthStretch);
        table_headers();
        for (const Table3RowResult& r : rows) draw_row(app, r, rows[0]);
        ImGui::EndTable();
    }

    void draw_row(LabApp& app, const Table3RowResult& r, const Table3RowResult& base) const {
        const Table3Row& paper_base = table3_rows()[0];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        text((std::string(r.row->id) + (r.row->group == ' ' ? "" : "  " + std::string(r.row->change))).c_str());
        ImGui::TableNextColumn();
        char paper[96];
        std::snprintf(paper, sizeof paper, "%.1f / %.2f  %s", r.row->paper_bleu, r.row->paper_ppl, r.row->paper);
        text_wrapped_disabled(paper);
        ImGui::TableNextColumn();
        text(figure(r.bleu, 1).c_str());
        ImGui::TableNextColumn();
        text(figure(r.ppl, 3).c_str());
        if (r.row->group == ' ') return;
        ImGui::TableNextColumn();
        text_wrapped("%s", say(app, table3_verdict_text(r.bleu_verdict, r.row->paper_bleu - paper_base.paper_bleu,
                                                        r.bleu.mean - base.bleu.mean, true)).c_str());
        ImGui::TableNextColumn();
        text_wrapped("%s", say(app, table3_verdict_text(r.ppl_verdict, r.row->paper_ppl - paper_base.paper_ppl,
                                                        r.ppl.mean - base.ppl.mean, false)).c_str());
    }

    void write_state(Json& out, Lang lang) const override {
        TrainingPanel::write_state(out, lang);
        if (!runs_) return;
        Json rows = Json::array();
        const std::vector<Table3RowResult> table = results();
        const Table3Row& paper_base = table3_rows()[0];
        for (const Table3RowResult& r : table) {
            auto spread = [](const Spread& s) {
                return Json{{"mean", json_number(s.mean)}, {"sd", json_number(s.sd)}, {"n", s.n}};
            };
            rows.push_back({{"row", r.row->id}, {"change", r.row->change}, {"paper_row", r.row->paper},
                            {"paper_bleu", r.row->paper_bleu}, {"paper_ppl", r.row->paper_ppl},
                            {"bleu", spread(r.bleu)}, {"ppl", spread(r.ppl)},
                            {"bleu_verdict", table3_verdict_id(r.bleu_verdict)}, {"ppl_verdict", table3_verdict_id(r.ppl_verdict)},
                            {"bleu_verdict_text", render(table3_verdict_text(r.bleu_verdict, r.row->paper_bleu - paper_base.paper_bleu,
                                                                             r.bleu.mean - table[0].bleu.mean, true), lang)}});
        }
        out["rows"] = rows;
        out["csv"] = table3_csv(table);
    }
};

}  // namespace

std::unique_ptr<ExperimentPanel> make_heads_training() { return std::make_unique<HeadsTraining>(); }
std::unique_ptr<ExperimentPanel> make_scaling_training() { return std::make_unique<ScalingTraining>(); }
std::unique_ptr<ExperimentPanel> make_pe_training() { return std::make_unique<PeTraining>(); }
std::unique_ptr<ExperimentPanel> make_induction_training() { return std::make_unique<InductionTraining>(); }
std::unique_ptr<ExperimentPanel> make_table3_training() { return std::make_unique<Table3Training>(); }

}  // namespace lab
