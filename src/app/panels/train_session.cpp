// train_session.cpp — Attention Lab app: the Train view's operations (train_view.h):
// the run in slices of the frame loop, snapshots, knockout, the shipped checkpoint, the
// exports and state().training. Nothing here draws.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "interop/checkpoint.h"
#include "interop/train_script.h"

namespace lab {

namespace {

constexpr double kSnapshotBytes = 64.0 * 1024 * 1024;  // the timeline's memory budget

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

TrainConfig defaults_for(TaskKind task) {
    TrainConfig c;
    c.task = task;
    return resolve_train_config(c);
}

// A fresh model of the session's configuration (which is valid), untrained.
void fresh_model(TrainingSession& ts) {
    std::vector<ConfigError> errors;
    auto t = std::make_unique<Trainer>();
    if (!t->init(ts.config, &errors)) return;  // validated before: cannot happen
    ts.trainer = std::move(t);
    ++ts.model;
    ts.source = WeightsSource::Random;
    ts.running = false;
    ts.init_params = ts.trainer->params();
    ts.history.clear();
    ts.snapshots.clear();
    ts.timeline = -1;
    ts.train_seconds = ts.elapsed_seconds = ts.steps_per_sec = ts.rate_steps = ts.rate_seconds = 0;
    ts.head_keep.assign(ts.trainer->layout().blocks.size() * static_cast<size_t>(ts.config.heads), 1);
    ts.knockout = EvalReport{};
    ts.shipped_steps = 0;
    ts.shipped_losses.clear();
    ts.shipped_files.clear();
    ts.sample_index = std::min(ts.sample_index, ts.trainer->held_out_count() - 1);
    ++ts.version;
}

bool any_head_off(const TrainingSession& ts) {
    return std::find(ts.head_keep.begin(), ts.head_keep.end(), 0) != ts.head_keep.end();
}

void measure_knockout(TrainingSession& ts) {
    ts.knockout = any_head_off(ts) ? ts.trainer->evaluate(&ts.head_keep) : EvalReport{};
}

// A snapshot for the timeline; past the budget every other one goes (the first and the
// newest stay), so a long run keeps an even spread.
void take_snapshot(TrainingSession& ts) {
    const Trainer& t = *ts.trainer;
    if (!ts.snapshots.empty() && ts.snapshots.back().step == t.steps_done()) return;
    ts.snapshots.push_back({t.steps_done(), t.params()});
    const double bytes = static_cast<double>(t.params().size()) * sizeof(float);
    const size_t most = std::max<size_t>(16, static_cast<size_t>(kSnapshotBytes / std::max(1.0, bytes)));
    if (ts.snapshots.size() <= most) return;
    std::vector<TrainSnapshot> kept;
    for (size_t i = 0; i < ts.snapshots.size(); ++i)
        if (i % 2 == 0 || i + 1 == ts.snapshots.size()) kept.push_back(std::move(ts.snapshots[i]));
    ts.snapshots = std::move(kept);
    if (ts.timeline >= static_cast<int>(ts.snapshots.size())) ts.timeline = -1;
}

// The trainer's evaluations since the session last looked: into the history, each with
// a snapshot. Returns their time (ms), which is not training time.
double collect_evaluations(TrainingSession& ts, size_t seen) {
    double ms = 0;
    const std::vector<EvalReport>& evals = ts.trainer->evals();
    for (size_t i = seen; i < evals.size(); ++i) {
        ms += evals[i].ms;
        ts.history.push_back(evals[i]);
    }
    if (evals.size() > seen) {
        take_snapshot(ts);
        if (any_head_off(ts)) measure_knockout(ts);
    }
    return ms;
}

// Steps until the slice's time is used; a step that evaluates comes first in the next
// slice when its evaluation would not fit in this one.
int train_slice(Trainer& t, double budget_ms) {
    const auto t0 = std::chrono::steady_clock::now();
    auto spent = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
    const double eval_ms = t.evals().empty() ? 0 : t.evals().back().ms;
    int made = 0;
    while (!t.finished()) {
        const int next = t.steps_done() + 1;
        const bool evaluates = next % t.config().eval_every == 0 || next == t.config().steps;
        if (made > 0 && (spent() >= budget_ms || (evaluates && spent() + eval_ms > budget_ms))) break;
        if (t.step(1) == 0) break;
        ++made;
    }
    return made;
}

void note_rate(TrainingSession& ts, int steps, double seconds) {
    ts.train_seconds += seconds;
    ts.rate_steps += steps, ts.rate_seconds += seconds;
    if (ts.rate_seconds >= 1.0 || ts.steps_per_sec == 0) ts.steps_per_sec = ts.rate_seconds > 0 ? ts.rate_steps / ts.rate_seconds : 0;
    if (ts.rate_seconds >= 1.0) ts.rate_steps = ts.rate_seconds = 0;
}

void finish_if_done(TrainingSession& ts) {
    const Trainer& t = *ts.trainer;
    if (!t.finished()) return;
    ts.running = false;
    if (t.stop().cause != StopCause::None) ts.status = t.stop().message;
    else ts.status = Msg(UiStr::tv_status_done, t.steps_done());
}

const char* source_name(WeightsSource s) {
    return s == WeightsSource::Shipped ? "shipped" : s == WeightsSource::Trained ? "trained" : "random";
}

}  // namespace

void training_init(LabApp& app) {
    TrainingSession& ts = app.training;
    ts.config = defaults_for(TaskKind::Reverse);
    ts.errors.clear();
    fresh_model(ts);
}

void training_open_view(LabApp& app) {
    app.training.view_open = true;
    app.experiments.open = -1;
}

void training_set_config(LabApp& app, const TrainConfig& config) {
    TrainingSession& ts = app.training;
    ts.config = resolve_train_config(config);
    if (ts.config.task == TaskKind::Coref) {  // its sentences are in the page's language
        ts.config.lang = app.lang == Lang::Zh ? CorefLang::Zh : CorefLang::En;
        ts.config = resolve_train_config(ts.config);
    }
    ts.errors = validate_train_config(ts.config);
    if (!ts.errors.empty()) return;  // the model stays; the knobs show what is wrong
    if (ts.trainer && ts.source != WeightsSource::Shipped && same_config(train_keys(), ts.trainer->config(), ts.config)) return;
    fresh_model(ts);
    ts.status = Msg();
}

void training_reset(LabApp& app) {
    TrainingSession& ts = app.training;
    if (!ts.errors.empty()) return;
    fresh_model(ts);
    ts.status = Msg();
}

void training_start(LabApp& app) {
    TrainingSession& ts = app.training;
    if (!ts.errors.empty()) return;
    const bool stale = !ts.trainer || ts.source == WeightsSource::Shipped || ts.trainer->finished() ||
                       !same_config(train_keys(), ts.trainer->config(), ts.config);
    if (stale) fresh_model(ts);
    ts.running = true;
    ts.timeline = -1;
    ts.last_tick = now_seconds();
    ts.between_ms = 0;
    ts.status = Msg();
}

void training_pause(LabApp& app) { app.training.running = false; }

void training_step(LabApp& app) {
    TrainingSession& ts = app.training;
    if (!ts.errors.empty()) return;
    if (!ts.trainer || ts.source == WeightsSource::Shipped || ts.trainer->finished()) fresh_model(ts);
    Trainer& t = *ts.trainer;
    ts.running = false;
    const size_t seen = t.evals().size();
    const auto t0 = std::chrono::steady_clock::now();
    if (t.step(1) == 0) return finish_if_done(ts);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double eval_ms = collect_evaluations(ts, seen);
    note_rate(ts, 1, (ms - eval_ms) / 1000.0);
    if (t.evals().size() == seen) {  // the trainer did not evaluate at this step: the view does
        ts.history.push_back(t.evaluate());
        take_snapshot(ts);
        if (any_head_off(ts)) measure_knockout(ts);
    }
    ts.source = WeightsSource::Trained;
    ts.timeline = -1;
    ++ts.version;
    finish_if_done(ts);
}

double training_slice_ms(double between_slices_ms) {
    return std::max(kTrainMinSliceMs, std::min(kTrainSliceMs, 1000.0 / kTrainMinFps - between_slices_ms));
}

void training_advance(LabApp& app) {
    TrainingSession& ts = app.training;
    if (!ts.running || !ts.trainer) return;
    const double now = now_seconds(), between = std::max(0.0, now - ts.last_tick);
    ts.elapsed_seconds += between;
    ts.between_ms = ts.between_ms > 0 ? 0.8 * ts.between_ms + 0.2 * 1000 * between : 1000 * between;
    Trainer& t = *ts.trainer;
    const size_t seen = t.evals().size();
    const auto t0 = std::chrono::steady_clock::now();
    const int made = train_slice(t, training_slice_ms(ts.between_ms));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double eval_ms = collect_evaluations(ts, seen);
    if (made > 0) {
        note_rate(ts, made, (ms - eval_ms) / 1000.0);
        ts.source = WeightsSource::Trained;
        ++ts.version;
    }
    finish_if_done(ts);
    ts.last_tick = now_seconds();
    ts.elapsed_seconds += ts.last_tick - now;
}

bool training_busy(const LabApp& app) { return app.training.running || !app.training.fetching.empty(); }

void training_open_shipped(LabApp& app) {
    TrainingSession& ts = app.training;
    const std::string task = shipped_checkpoint_name(task_spec(ts.config));
    if (!app.host.fetch_checkpoint) {
        ts.status = Msg(UiStr::tv_status_no_checkpoints);
        return;
    }
    ts.running = false;
    ts.fetching = task;
    ts.status = Msg(UiStr::tv_status_fetching, task);
    app.host.fetch_checkpoint(task);
}

void training_open_coref(LabApp& app) {
    training_open_view(app);
    TrainConfig c;
    c.task = TaskKind::Coref;
    training_set_config(app, c);
    training_open_shipped(app);
}

void lab_checkpoint_arrived(LabApp& app, const std::string& task, const std::vector<ArchiveFile>& files,
                            const std::string& error) {
    TrainingSession& ts = app.training;
    ts.fetching.clear();
    auto t = std::make_unique<Trainer>();
    std::vector<ConfigError> errors;
    if (!error.empty() || !load_checkpoint_files(files, "final", t.get(), &errors)) {
        ts.status = Msg(UiStr::tv_status_open_failed, task, error.empty() ? say(app, errors.front().message) : error);
        return;
    }
    ts.config = t->config();
    ts.errors.clear();
    fresh_model(ts);  // its initial weights, for the download's init/
    ts.trainer = std::move(t);
    ++ts.model;
    ts.source = WeightsSource::Shipped;
    const CheckpointHistory h = checkpoint_history(files);
    ts.shipped_steps = h.steps;
    ts.shipped_losses = h.losses;
    ts.shipped_files = files;
    ts.history = h.evals;  // how it learned; then what it does here and now
    if (!ts.history.empty() && ts.history.back().step == h.steps) ts.history.pop_back();
    ts.history.push_back(ts.trainer->evaluate());
    ts.history.back().step = h.steps;
    ts.status = Msg(UiStr::tv_status_opened, task, 100 * ts.history.back().exact_accuracy);
    ++ts.version;
}

void training_toggle_head(LabApp& app, int block, int head) {
    TrainingSession& ts = app.training;
    const size_t i = static_cast<size_t>(block) * ts.config.heads + static_cast<size_t>(head);
    if (!ts.trainer || i >= ts.head_keep.size()) return;
    ts.head_keep[i] = !ts.head_keep[i];
    measure_knockout(ts);
    ++ts.version;
}

const TrainSampleView& training_sample_view(LabApp& app) {
    TrainingSession& ts = app.training;
    TrainSampleView& v = ts.shown;
    if (!ts.trainer) return v;
    if (v.weights == ts.version && v.sample == ts.sample_index && v.timeline == ts.timeline && v.keep == ts.head_keep) return v;
    Trainer& t = *ts.trainer;
    const bool past = ts.timeline >= 0 && ts.timeline < static_cast<int>(ts.snapshots.size());
    if (past) t.swap_params(ts.snapshots[static_cast<size_t>(ts.timeline)].params);
    v.data = t.held_out_sample(ts.sample_index);
    v.output = t.greedy_decode(v.data, ts.head_keep.empty() ? nullptr : &ts.head_keep);
    v.maps.clear();
    for (size_t b = 0; b < t.layout().blocks.size(); ++b) v.maps.push_back(t.attention_map(v.data, static_cast<int>(b)));
    if (past) t.swap_params(ts.snapshots[static_cast<size_t>(ts.timeline)].params);
    v.weights = ts.version, v.sample = ts.sample_index, v.timeline = ts.timeline, v.keep = ts.head_keep;
    return v;
}

const CorefScores& training_coref_scores(LabApp& app) {
    TrainingSession& ts = app.training;
    if (!ts.trainer || ts.trainer->task().kind != TaskKind::Coref) return ts.coref = CorefScores{};
    if (ts.coref_for != ts.version && !ts.running) {
        ts.coref = coref_head_scores(*ts.trainer, ts.trainer->held_out_count());
        ts.coref_for = ts.version;
    }
    return ts.coref;
}

int training_steps(const TrainingSession& ts) {
    if (ts.source == WeightsSource::Shipped) return ts.shipped_steps;
    return ts.trainer ? ts.trainer->steps_done() : 0;
}

const std::vector<float>& training_losses(const TrainingSession& ts) {
    static const std::vector<float> none;
    if (ts.source == WeightsSource::Shipped) return ts.shipped_losses;
    return ts.trainer ? ts.trainer->losses() : none;
}

std::string training_archive_name(const LabApp& app) {
    const TrainingSession& ts = app.training;
    return std::string("attnlab_") + task_name(ts.config.task) + "_" + source_name(ts.source) + "_step" +
           std::to_string(training_steps(ts));
}

std::string training_archive(LabApp& app) {
    TrainingSession& ts = app.training;
    if (!ts.trainer) return "";
    CheckpointRecord record;
    record.init_params = ts.init_params;
    std::vector<ArchiveFile> files = checkpoint_files(*ts.trainer, record, CheckpointParts::Weights);
    const std::string folder = training_archive_name(app);
    for (ArchiveFile& f : files) {
        if (ts.source == WeightsSource::Shipped)  // the shipped run's own manifest, loss and rates
            for (const ArchiveFile& shipped : ts.shipped_files)
                if (shipped.path == f.path && f.path.find('/') == std::string::npos) f.bytes = shipped.bytes;
        f.path = folder + "/" + f.path;
    }
    return tar_archive(files);
}

std::string training_script_name(const LabApp& app) { return training_archive_name(app) + ".py"; }

std::string training_script(LabApp& app) {
    TrainingSession& ts = app.training;
    if (!ts.trainer) return "";
    Trainer& t = *ts.trainer;
    const std::string weights = ts.source == WeightsSource::Shipped ? "the checkpoint shipped with the lab"
                                : ts.source == WeightsSource::Trained
                                    ? "trained in the lab for " + std::to_string(t.steps_done()) + " steps"
                                    : "untrained (random initialisation)";
    return train_pytorch_script(t, t.held_out_sample(ts.sample_index),
                                {training_archive_name(app) + ".tar", training_script_name(app), weights, training_steps(ts)});
}

namespace {

Json history_json(const TrainingSession& ts) {
    Json out = Json::array();
    const std::vector<float>& losses = training_losses(ts);
    for (const EvalReport& e : ts.history) {
        const bool trained = e.step >= 1 && e.step <= static_cast<int>(losses.size());
        out.push_back({{"step", e.step}, {"loss", trained ? json_number(losses[static_cast<size_t>(e.step - 1)]) : Json(nullptr)},
                       {"held_out_loss", json_number(e.loss)}, {"token_acc", json_number(e.token_accuracy)},
                       {"exact_acc", json_number(e.exact_accuracy)}});
        if (e.bleu >= 0) out.back()["bleu"] = json_number(e.bleu);  // translate
    }
    return out;
}

Json knockout_json(const TrainingSession& ts) {
    Json off = Json::array();
    const ModelLayout& layout = ts.trainer->layout();
    for (size_t i = 0; i < ts.head_keep.size(); ++i) {
        if (ts.head_keep[i]) continue;
        const AttentionBlockInfo& b = layout.blocks[i / static_cast<size_t>(ts.config.heads)];
        off.push_back({{"block", i / ts.config.heads}, {"head", i % ts.config.heads}, {"kind", attention_kind_key(b.kind)},
                       {"layer", b.layer}});
    }
    return off;
}

// Per attention map: where the weight goes (the reverse task's anti-diagonal: each query
// i on key L_kv - 1 - i; the previous token: i - 1), averaged over heads and queries.
// The heads' held-out reading of the pronoun (train/coref_probe.h).
Json coref_json(const CorefScores& c) {
    Json heads = Json::array();
    for (const CorefHeadScore& h : c.heads)
        heads.push_back({{"block", h.block}, {"layer", h.layer}, {"head", h.head}, {"referent", json_number(h.referent)},
                         {"other", json_number(h.other)}, {"margin_animal", json_number(h.margin[0])},
                         {"margin_object", json_number(h.margin[1])}, {"knockout_exact", json_number(h.knockout_exact)}});
    return {{"samples", c.samples}, {"exact", json_number(c.exact)}, {"heads", heads}, {"resolving", c.resolving}};
}

Json maps_json(const TrainSampleView& v) {
    Json out = Json::array();
    for (size_t b = 0; b < v.maps.size(); ++b) {
        const AttentionMap& m = v.maps[b];
        double mirror = 0, previous = 0;
        for (int h = 0; h < m.heads; ++h)
            for (int i = 0; i < m.L_q; ++i) {
                const float* row = m.weights.data() + (static_cast<size_t>(h) * m.L_q + i) * m.L_kv;
                if (m.L_kv - 1 - i >= 0) mirror += row[m.L_kv - 1 - i];
                if (i > 0) previous += row[i - 1];
            }
        const double rows = std::max(1, m.heads * m.L_q);
        out.push_back({{"block", b}, {"kind", attention_kind_key(m.block.kind)}, {"layer", m.block.layer}, {"heads", m.heads},
                       {"L_q", m.L_q}, {"L_kv", m.L_kv}, {"mirror_weight", json_number(mirror / rows)},
                       {"previous_weight", json_number(previous / rows)}});
    }
    return out;
}

Json sample_json(const TrainSampleView& v) {
    const std::vector<int32_t> expected = v.data.expected();
    Json correct = Json::array();
    for (size_t i = 0; i < expected.size(); ++i) correct.push_back(i < v.output.size() && v.output[i] == expected[i]);
    return {{"src", v.data.src}, {"dec_in", v.data.dec_in}, {"expected", expected}, {"output", v.output}, {"correct", correct}};
}

}  // namespace

Json training_state(const LabApp& app) {
    const TrainingSession& ts = app.training;
    Json errors = Json::array();
    for (const ConfigError& e : ts.errors) errors.push_back({{"param", e.param}, {"message", say(app, e.message)}});
    Json s = {{"view_open", ts.view_open}, {"task", task_name(ts.config.task)},
              {"config", keys_json(train_keys().rows, &ts.config)}, {"errors", errors},
              {"running", ts.running}, {"weights", source_name(ts.source)}, {"fetching", ts.fetching},
              {"status", say(app, ts.status)}};
    if (!ts.trainer) return s;
    const Trainer& t = *ts.trainer;
    const EvalReport last = ts.history.empty() ? EvalReport{} : ts.history.back();
    s["step"] = training_steps(ts);
    s["steps"] = t.config().steps;
    s["loss"] = training_losses(ts).empty() ? Json(nullptr) : json_number(training_losses(ts).back());
    s["token_acc"] = ts.history.empty() ? Json(nullptr) : json_number(last.token_accuracy);
    s["exact_acc"] = ts.history.empty() ? Json(nullptr) : json_number(last.exact_accuracy);
    if (!ts.history.empty() && last.bleu >= 0) s["bleu"] = json_number(last.bleu);
    s["steps_per_sec"] = json_number(ts.steps_per_sec);
    s["train_seconds"] = json_number(ts.train_seconds);
    s["elapsed_seconds"] = json_number(ts.elapsed_seconds);
    s["history"] = history_json(ts);
    s["knocked_out"] = knockout_json(ts);
    s["knockout"] = ts.knockout.sequences ? Json{{"token_acc", json_number(ts.knockout.token_accuracy)},
                                                 {"exact_acc", json_number(ts.knockout.exact_accuracy)}}
                                          : Json(nullptr);
    s["sample_index"] = ts.sample_index;
    s["timeline"] = {{"shown", ts.timeline}, {"snapshots", Json::array()}};
    for (const TrainSnapshot& snap : ts.snapshots) s["timeline"]["snapshots"].push_back(snap.step);
    if (ts.shown.weights != ~0ull) s["sample"] = sample_json(ts.shown), s["maps"] = maps_json(ts.shown);
    if (ts.coref_for != ~0ull && ts.coref.samples) s["coref"] = coref_json(ts.coref);
    return s;
}

}  // namespace lab
