// stepper_model.cpp — Attention Lab app: the stepper on the session's model (which
// weights, which attention, the block's stages, the walk through them) and the header
// line that chooses them.
#include "app/state/stepper_model.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/data/url_state.h"
#include "app/state/lab_app.h"
#include "explain/derivation.h"

namespace lab {

namespace {

// The attention of the selection, or the nearest the model has: the layer's first
// attention, or the model's first.
int chosen_block(const LabApp& app) {
    const ModelLayout& layout = app.training.trainer->layout();
    const StepperSelection& s = app.stepper.sel;
    int block = find_block(layout, s.layer, s.sublayer);
    for (size_t i = 0; block < 0 && i < layout.blocks.size(); ++i)
        if (layout.blocks[i].layer == s.layer) block = static_cast<int>(i);
    return block < 0 ? 0 : block;
}

// coref: the tokens field's sentence read by the model, as the sample to trace; false (the
// held-out sample is traced) when the field is empty or the model cannot read it (the note
// says why, naming unknown tokens).
bool typed_coref_sample(LabApp& app, Trainer& t, Sample* out) {
    StepperModel& st = app.stepper;
    st.typed = CorefReading{};
    st.typed_note = Msg();
    st.typed_text = app.token_text;
    if (t.task().kind != TaskKind::Coref || st.typed_text.empty()) return false;
    if (!coref_read(t, st.typed_text, "", &st.typed, &st.typed_note)) return false;
    *out = coref_sample(t, st.typed);
    return true;
}

// Traces the model when anything it depends on changed (weights, steps, attention, sample,
// a coref model's typed sentence).
void retrace_model(LabApp& app) {
    StepperModel& st = app.stepper;
    Trainer* t = app.training.trainer.get();
    const int block = chosen_block(app);
    const int sample = std::clamp(app.training.sample_index, 0, std::max(0, t->held_out_count() - 1));
    const bool same = st.shown && st.model_id == app.training.model && st.steps == t->steps_done() && st.block == block &&
                      st.sample == sample && st.generation == app.generation && st.source == app.training.source &&
                      st.typed_text == app.token_text;
    if (same) return;
    Sample traced = t->held_out_sample(sample);
    typed_coref_sample(app, *t, &traced);
    ModelTrace m;
    if (!trace_model(*t, traced, block, &m, nullptr)) return;
    st.model = std::move(m);
    app.trace = st.model.trace;
    ++app.generation;
    st.shown = true;
    st.model_id = app.training.model, st.steps = t->steps_done(), st.block = block, st.sample = sample;
    st.generation = app.generation, st.source = app.training.source;
    st.sel.layer = st.model.block.layer;
    st.sel.sublayer = st.model.block.kind;
    app.view.batch_item = 0;
    app.view.head = std::min(app.view.head, app.trace.config.heads - 1);
    app.hover = HoverCell{};
}

}  // namespace

bool stepper_has_model(const LabApp& app) {
    return app.training.trainer && app.training.trainer->ready() && !app.training.trainer->layout().blocks.empty();
}

void stepper_refresh(LabApp& app) {
    StepperModel& st = app.stepper;
    if (st.sel.model && stepper_has_model(app)) {
        retrace_model(app);
        return;
    }
    if (st.shown) {  // back to the knobs' random weights
        st.shown = false;
        st.model = ModelTrace{};
        lab_recompute(app);
    }
    // Raw SDPA has no projections for the backward view's dL/dX to flow through: it is off.
    if (app.trace.config.raw && !st.shown) st.sel.backward = false;
    if (st.sel.backward && st.probe_for != app.generation) {
        st.probe = attention_backward_trace(app.trace);
        st.probe_for = app.generation;
    }
}

std::vector<StepperPlace> stepper_places(const LabApp& app) {
    std::vector<StepperPlace> out;
    const bool block = app.stepper.shown;
    if (block) out.push_back({-1, static_cast<int>(BlockStageId::Embed)});
    for (int s = 0; s < kStageCount; ++s) out.push_back({s, -1});
    for (int b = static_cast<int>(BlockStageId::AddNorm); block && b < kBlockStageCount; ++b) out.push_back({-1, b});
    return out;
}

int stepper_place_index(const LabApp& app) {
    const std::vector<StepperPlace> places = stepper_places(app);
    const int block = app.stepper.shown ? app.stepper.sel.block_stage : -1;
    for (size_t i = 0; i < places.size(); ++i)
        if (block >= 0 ? places[i].block == block : places[i].attention == app.view.stage) return static_cast<int>(i);
    return 0;
}

void stepper_go(LabApp& app, const StepperPlace& place) {
    if (place.attention >= 0) return lab_go_to_stage(app, place.attention);
    app.experiments.open = -1;
    app.training.view_open = false;  // a chip leaves the Train view, as lab_go_to_stage does
    app.stepper.sel.block_stage = place.block;
}

void stepper_move(LabApp& app, int delta) {
    const std::vector<StepperPlace> places = stepper_places(app);
    const int at = std::clamp(stepper_place_index(app) + delta, 0, static_cast<int>(places.size()) - 1);
    stepper_go(app, places[static_cast<size_t>(at)]);
}

void stepper_go_end(LabApp& app, bool last) {
    const std::vector<StepperPlace> places = stepper_places(app);
    stepper_go(app, last ? places.back() : places.front());
}

StepperStageText stepper_stage_text(const LabApp& app, const StepperPlace& place) {
    const GradTrace* g = stepper_grads(app);
    if (place.block >= 0 && app.stepper.shown) {
        const BlockStageInfo& info = block_stage_infos()[static_cast<size_t>(place.block)];
        const BlockStageRecord& rec = app.stepper.model.stages[static_cast<size_t>(place.block)];
        return {info.key, info.title, info.formula, info.why, info.chip, info.pytorch, &info.shows, &rec.shape_steps,
                &rec.checks, g ? &g->block_checks[static_cast<size_t>(place.block)] : nullptr, &backward_info(info.id)};
    }
    const int s = std::clamp(place.attention, 0, kStageCount - 1);
    const StageInfo& info = stage_infos(app.trace.config)[static_cast<size_t>(s)];
    const StageRecord& rec = app.trace.stages[static_cast<size_t>(s)];
    return {info.key, info.title, info.formula, info.why, info.chip, info.pytorch, &info.shows, &rec.shape_steps,
            &rec.checks, g ? &g->checks[static_cast<size_t>(s)] : nullptr, &backward_info(info.id)};
}

const GradTrace* stepper_grads(const LabApp& app) {
    const StepperModel& st = app.stepper;
    if (!st.sel.backward) return nullptr;
    if (st.shown) return &st.model.grads;
    return st.probe_for == app.generation && !st.probe.empty() ? &st.probe : nullptr;
}

const char* session_weights_key(const LabApp& app) {
    return app.training.source == WeightsSource::Shipped ? "shipped"
           : app.training.source == WeightsSource::Trained ? "trained" : "random";
}

const char* stepper_weights_key(const LabApp& app) { return app.stepper.shown ? session_weights_key(app) : "random"; }

Msg stepper_weights_label(const LabApp& app) {
    if (!app.stepper.shown)  // raw SDPA has no weights: what is random there is Q, K, V
        return Msg(app.trace.config.raw ? UiStr::stp_weights_raw : UiStr::stp_weights_random, static_cast<long long>(app.trace.config.seed));
    return session_weights_label(app);
}

Msg session_weights_label(const LabApp& app) {
    const Trainer& t = *app.training.trainer;
    const char* task = task_name(t.task().kind);
    switch (app.training.source) {
        case WeightsSource::Shipped: return Msg(UiStr::stp_weights_shipped, task, t.config().steps);
        case WeightsSource::Trained: return Msg(UiStr::stp_weights_trained, task, t.steps_done());
        default: return Msg(UiStr::stp_weights_untrained, task);
    }
}

Msg stepper_loss_text(const GradTrace& g, bool short_form) {
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", g.loss);
    const std::string shown = std::isnan(g.loss) ? "NaN" : value;
    if (g.kind == LossKind::CrossEntropy) return Msg(short_form ? UiStr::stp_loss_ce_short : UiStr::stp_loss_ce, shown);
    return Msg(short_form ? UiStr::stp_loss_probe_short : UiStr::stp_loss_probe, shown);
}

bool model_axis_labels(const LabApp& app, const std::string& dim, int n, std::vector<std::string>* out) {
    if (!app.stepper.shown) return false;
    const ModelTrace& m = app.stepper.model;
    const std::vector<std::string>* labels = dim == "L_q" || dim == "L" ? &m.query_tokens
                                             : dim == "L_kv"           ? &m.key_tokens
                                             : dim == "L_dec"          ? &m.dec_tokens
                                             : dim == "V" || dim == "vocab" ? &m.symbols
                                                                          : nullptr;
    if (!labels) return false;
    out->assign(static_cast<size_t>(n), "");
    for (int i = 0; i < n; ++i)
        (*out)[static_cast<size_t>(i)] = i < static_cast<int>(labels->size()) ? (*labels)[static_cast<size_t>(i)] : "BOS";
    return true;
}

void stepper_to_view(const StepperModel& st, ViewSelection* view) {
    view->block_stage = st.sel.model ? st.sel.block_stage : -1;
    view->model = st.sel.model;
    view->layer = st.sel.layer;
    view->sublayer = attention_kind_key(st.sel.sublayer);
    view->backward = st.sel.backward;
}

void stepper_from_view(const ViewSelection& view, StepperModel* st) {
    st->sel.block_stage = view.block_stage;
    st->sel.model = view.model;
    st->sel.layer = view.layer;
    parse_attention_kind(view.sublayer, &st->sel.sublayer);
    st->sel.backward = view.backward;
}

Msg stepper_derive(const LabApp& app, TensorId id, const std::vector<int>& index, bool grad) {
    if (grad) {
        const GradTrace* g = stepper_grads(app);
        return g ? derive_grad_cell(app.trace, *g, id, index) : Msg();
    }
    return app.stepper.shown ? derive_block_cell(app.stepper.model, id, index) : derive_cell(app.trace, id, index);
}

}  // namespace lab
