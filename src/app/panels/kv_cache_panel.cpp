// kv_cache_panel.cpp — Attention Lab app: the KV cache tab beside the dimension table. With
// a trained decoder open (decoder-only or encoder–decoder), the held-out sample is decoded
// token by token (train/kv_cache.h): for the step chosen, the row it reads and predicts,
// the cache's shape and bytes (2·N·h_kv·t·d_k·4), the step's FLOPs and bytes with and
// without the cache and the time each took here, the check against the full causal
// recompute, and — per head — the new query row, the key cache growing row by row and the
// weights, one new row per step, stacked into the causal triangle.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/widgets/text_fit.h"
#include "app/widgets/text_wrap.h"
#include "train/tasks.h"

namespace lab {

namespace {

std::string count(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 1e4 ? "%.0f" : v < 1e7 ? "%.1fk" : "%.2fM", v < 1e4 ? v : v < 1e7 ? v / 1e3 : v / 1e6);
    return buf;
}

// Decodes the session's held-out sample again when the weights or the sample changed
// (TrainingSession::version counts every change of the weights): one staleness rule.
void refresh(LabApp& app) {
    KvCacheView& kv = app.kv;
    const Trainer& t = *app.training.trainer;
    const int sample = std::clamp(app.training.sample_index, 0, std::max(0, t.held_out_count() - 1));
    const bool same = kv.model == app.training.model && kv.version == app.training.version && kv.sample == sample;
    if (same && (kv.timing.runs || app.training.running)) return;
    const Sample s = t.held_out_sample(sample);
    // Timed apart from the checked run (which interleaves the two paths), and not while
    // training shares the frame; 30 ms of the page's time, once per weights and sample.
    kv.timing = DecodeTiming{};
    if (!app.training.running) kv.timing = kv_decode_timing(t.layout(), t.params().data(), s.src, s.dec_in, s.gen_begin, s.gen_end, 30);
    if (same) return;
    kv.run = kv_decode(t.layout(), t.params().data(), s.src, s.dec_in, s.gen_begin, s.gen_end);
    if (kv.model != app.training.model || kv.sample != sample) kv.step = -1;  // a new sample opens at its last step; new weights keep the step
    kv.model = app.training.model, kv.version = app.training.version, kv.sample = sample, kv.shape = t.layout().shape;
    kv.weights = session_weights_key(app);
    kv.gen_begin = s.gen_begin;
}

std::string token_text(const LabApp& app, int32_t id) { return task_token_text(app.training.trainer->task(), id); }

// The step slider and the layer field (a model of one layer has no field).
void draw_step_pickers(LabApp& app, int steps, int layers) {
    KvCacheView& kv = app.kv;
    text(tr(app, UiStr::ui_kv_step));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    ImGui::SliderInt("##kv_step", &kv.step, 0, steps - 1);
    lab_note_rect(app, "slider:kv_step");
    item_tooltip(app, tr(app, UiStr::ui_kv_step_tip));
    kv.layer = std::clamp(kv.layer, 0, layers - 1);
    if (layers < 2) return;
    const std::string field = ui_label(app, UiStr::ui_kv_layer, "kv_layer");
    if (fits_on_line(ImGui::GetFontSize() * 6 + ImGui::CalcTextSize(field.c_str(), nullptr, true).x)) ImGui::SameLine(0, ImGui::GetFontSize());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt(field.c_str(), &kv.layer, 1, 1)) kv.layer = std::clamp(kv.layer, 0, layers - 1);
    check_item(field.c_str());
    note_number_field(app);
    lab_note_rect(app, "knob:kv_layer");
}

// What the step reads and predicts, the cache it leaves, its cost both ways, its check.
void draw_step_text(LabApp& app, const DecodeStep& st, const ModelShape& m) {
    const Msg row(st.generated ? UiStr::ui_kv_row_generated : UiStr::ui_kv_row_prompt, st.position, token_text(app, st.token_in),
                  token_text(app, st.token_out));
    text_wrapped("%s", say(app, row).c_str());
    const int h_kv = m.h_kv(), t = st.position + 1;
    text_wrapped("%s", say(app, Msg(UiStr::ui_kv_cache_shape, h_kv, t, m.d_k(), m.layers, m.layers, h_kv, t, m.d_k(),
                                    count(kv_cache_bytes(m, t))))
                           .c_str());
    if (m.grouped()) {  // what sharing saves: the same model with a K and V head per query head
        ModelShape mha = m;
        mha.kv_heads = 0;
        text_wrapped("%s", say(app, Msg(UiStr::ui_kv_grouped_saving, m.heads, h_kv, m.heads / h_kv, m.heads / h_kv,
                                        count(kv_cache_bytes(mha, t))))
                               .c_str());
    }
    if (m.kind == ModelKind::EncoderDecoder)
        text_wrapped_disabled(say(app, Msg(UiStr::ui_kv_cross, h_kv, m.src_len, m.d_k())).c_str());
    text_wrapped("%s", say(app, Msg(UiStr::ui_kv_cost, count(st.cached.flops), count(st.cached.bytes), count(st.full.flops),
                                    count(st.full.bytes), st.full.flops / std::max(1.0, st.cached.flops)))
                           .c_str());
    check_badge(app, kv_step_check(st));
}

// Rows 0 … t of one head, stacked: each step's row padded with masked cells (−inf) where
// the step had no key yet; `row_of(step)` gives that step's row and its length.
template <class RowOf>
std::vector<float> stacked(int rows, int cols, RowOf row_of) {
    std::vector<float> out(static_cast<size_t>(rows) * cols, -std::numeric_limits<float>::infinity());
    for (int r = 0; r < rows; ++r) {
        int n = 0;
        const float* row = row_of(r, &n);
        std::copy(row, row + n, out.begin() + static_cast<long>(r) * cols);
    }
    return out;
}

// One head: its weights rows 0 … t stacked into the causal triangle, its key cache rows
// 0 … t (the outlined row is the step's in both) and the step's query row, each a small
// heatmap with the tokens as labels.
void draw_head(LabApp& app, const DecodeRun& run, int head, int last, const std::vector<std::string>& tokens, float side) {
    const ModelShape& m = app.training.trainer->layout().shape;
    const int d_k = m.d_k(), l = app.kv.layer, rows = last + 1;
    const int group = head / (m.heads / m.h_kv());  // the cached key/value head this query head reads
    const std::vector<float> keys = stacked(rows, d_k, [&](int r, int* n) {
        *n = d_k;
        return run.steps[static_cast<size_t>(r)].key[static_cast<size_t>(l)].data() + static_cast<size_t>(group) * d_k;
    });
    const std::vector<float> weights = stacked(rows, rows, [&](int r, int* n) {
        *n = r + 1;
        return run.steps[static_cast<size_t>(r)].weights[static_cast<size_t>(l)].data() + static_cast<size_t>(head) * (r + 1);
    });
    const std::vector<float>& q = run.steps[static_cast<size_t>(last)].query[static_cast<size_t>(l)];
    const std::vector<std::string> row_tokens(tokens.begin(), tokens.begin() + rows);
    ImGui::BeginGroup();
    text(say(app, Msg(UiStr::ui_kv_head, head)).c_str());
    HeatmapOptions opt;
    opt.range = {ColorMap::Sequential, 0.0f, 1.0f};
    opt.row_labels = opt.col_labels = &row_tokens;
    opt.highlight_row = last;
    const int steps = static_cast<int>(run.steps.size());
    opt.max_cell = side / steps;  // cells sized for the last step: the triangle and the cache grow as t moves
    MatrixHeatmap(("kv_w" + std::to_string(head)).c_str(), weights.data(), rows, rows, rows, opt, side, side);
    opt.col_labels = nullptr;
    opt.range = range_for(keys.data(), static_cast<long>(keys.size()), ColorMap::Diverging);
    opt.square = false;
    opt.max_cell = side / d_k;
    const float key_h = std::max(ImGui::GetFontSize() * 2, side * 0.6f * rows / steps);
    MatrixHeatmap(("kv_k" + std::to_string(head)).c_str(), keys.data(), rows, d_k, d_k, opt, side, key_h);
    opt.row_labels = nullptr;
    opt.highlight_row = -1;
    opt.range = range_for(q.data() + static_cast<size_t>(head) * d_k, d_k, ColorMap::Diverging);
    MatrixHeatmap(("kv_q" + std::to_string(head)).c_str(), q.data() + static_cast<size_t>(head) * d_k, 1, d_k, d_k, opt, side, 0);
    ImGui::EndGroup();
    lab_note_rect(app, "kv_head:" + std::to_string(head));
}

// The texts: which weights; the pickers and what the chosen step did; the summary; what was decoded.
void draw_kv_texts(LabApp& app, const DecodeRun& run, const ModelShape& m) {
    const int steps = static_cast<int>(run.steps.size());
    text_wrapped_disabled(say(app, session_weights_label(app)).c_str());
    if (app.training.source == WeightsSource::Random) text_wrapped_disabled(tr(app, UiStr::ui_kv_untrained));
    draw_step_pickers(app, steps, m.layers);
    draw_step_text(app, run.steps[static_cast<size_t>(app.kv.step)], m);
    text_wrapped("%s", say(app, Msg(UiStr::ui_kv_summary, steps - run.failed, steps, run.worst)).c_str());
    const DecodeTiming& tm = app.kv.timing;
    if (tm.runs) text_wrapped("%s", say(app, Msg(UiStr::ui_kv_timing, tm.runs, tm.cached_ms, tm.recompute_ms, tm.speedup())).c_str());
    else text_wrapped_disabled(tr(app, UiStr::ui_kv_timing_paused));
    text_wrapped_disabled(say(app, Msg(UiStr::ui_kv_intro, app.kv.sample, app.kv.gen_begin, app.kv.gen_begin, steps - 1)).c_str());
}

// Every head's maps, side by side while they fit.
void draw_kv_maps(LabApp& app, const DecodeRun& run, const ModelShape& m, float side) {
    std::vector<std::string> tokens;
    for (int32_t id : run.tokens) tokens.push_back(token_text(app, id));
    for (int h = 0; h < m.heads; ++h) {
        if (h && fits_on_line(side)) ImGui::SameLine();
        draw_head(app, run, h, app.kv.step, tokens, side);
    }
    text_wrapped_disabled(say(app, Msg(UiStr::ui_kv_maps, app.kv.layer)).c_str());
}

}  // namespace

// The texts beside the maps when the tab is wide enough for both (the bottom bar is short:
// the maps stay in view without scrolling), else one under the other.
void draw_kv_cache_tab(LabApp& app) {
    const bool decoder = stepper_has_model(app) && app.training.trainer->layout().shape.kind != ModelKind::EncoderOnly;
    if (!decoder) {
        text_wrapped_disabled(tr(app, stepper_has_model(app) ? UiStr::ui_kv_encoder_only : UiStr::ui_kv_no_model));
        return;
    }
    app.kv.open = true;  // the layout gives the bottom bar its taller share from the next frame
    refresh(app);
    const DecodeRun& run = app.kv.run;
    const ModelShape& m = app.training.trainer->layout().shape;
    if (run.steps.empty()) return;
    if (app.kv.step < 0 || app.kv.step >= static_cast<int>(run.steps.size())) app.kv.step = static_cast<int>(run.steps.size()) - 1;
    const float font = ImGui::GetFontSize(), width = ImGui::GetContentRegionAvail().x;
    const float side = std::clamp((width * 0.5f - font) / m.heads, font * 7, font * 12);
    const bool beside = width >= font * 16 + (side + font) * m.heads;
    if (!beside || !ImGui::BeginTable("kv_cache", 2, ImGuiTableFlags_SizingFixedFit)) {
        draw_kv_texts(app, run, m);
        draw_kv_maps(app, run, m, side);
        return;
    }
    ImGui::TableSetupColumn("texts", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("maps", ImGuiTableColumnFlags_WidthFixed, (side + font) * m.heads);
    ImGui::TableNextColumn();
    draw_kv_texts(app, run, m);
    ImGui::TableNextColumn();
    draw_kv_maps(app, run, m, side);
    ImGui::EndTable();
}

Json kv_cache_json(const LabApp& app) {
    const KvCacheView& kv = app.kv;
    if (!kv.model || kv.run.steps.empty()) return nullptr;
    const int step = std::clamp(kv.step, 0, static_cast<int>(kv.run.steps.size()) - 1);
    const DecodeStep& st = kv.run.steps[static_cast<size_t>(step)];
    const ModelShape& m = kv.shape;
    return {{"weights", kv.weights},     {"sample", kv.sample},       {"steps", kv.run.steps.size()}, {"failed", kv.run.failed},
            {"worst", kv.run.worst},     {"step", step},                 {"layer", kv.layer},
            {"max_abs_diff", st.max_abs_diff}, {"bound", st.bound},      {"cache_bytes", kv_cache_bytes(m, step + 1)},
            {"timed_runs", kv.timing.runs},  {"cached_ms", kv.timing.cached_ms}, {"recompute_ms", kv.timing.recompute_ms},
            {"flops_cached", st.cached.flops}, {"flops_full", st.full.flops}, {"tokens", kv.run.tokens},
            {"layers", m.layers},        {"heads", m.heads},             {"kv_heads", m.h_kv()},         {"d_k", m.d_k()}};
}

}  // namespace lab
