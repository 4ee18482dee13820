// lab_app.cpp — Attention Lab app: state changes, keyboard, and the screen layout.
#include "lab_app.h"

#include <imgui.h>

#include <chrono>
#include <cstdio>

#include "core/stages.h"
#include "core/url_state.h"
#include "panels.h"

namespace lab {

void lab_init(LabApp& app) {
    app.config = AttentionConfig{};
    app.dirty = true;
    lab_recompute(app);
}

void lab_recompute(LabApp& app) {
    app.dirty = false;
    app.errors = validate(app.config);
    if (!app.errors.empty()) return;  // keep showing the last good trace
    const auto t0 = std::chrono::steady_clock::now();
    const AttentionConfig& c = app.config;
    const AttentionConfig& had = app.weights_for;
    if (app.weights.w_q.data.empty() || had.d_model != c.d_model || had.seed != c.seed || had.bias != c.bias) {
        app.weights = make_weights(c);
        app.weights_for = c;
    }
    app.trace = run_trace(c, make_inputs(c, app.tokens), app.weights);
    app.recompute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (app.batch_item >= app.config.batch) app.batch_item = app.config.batch - 1;
    if (app.head >= app.config.heads) app.head = app.config.heads - 1;
    app.hover = HoverCell{};
}

void lab_go_to_stage(LabApp& app, int index) {
    if (index < 0) index = 0;
    if (index >= kStageCount) index = kStageCount - 1;
    app.stage = index;
}

std::string lab_url_hash(const LabApp& app) {
    UrlState s;
    s.config = app.errors.empty() ? app.config : app.trace.config;
    s.tokens = app.tokens;
    s.view = {app.stage, app.batch_item, app.head, app.all_heads};
    return encode_url_state(s);
}

void lab_apply_url_hash(LabApp& app, const std::string& hash) {
    const UrlDecode d = decode_url_state(hash);
    app.config = d.state.config;
    app.tokens = d.state.tokens;
    std::string joined;
    for (const auto& t : app.tokens) joined += (joined.empty() ? "" : " ") + t;
    std::snprintf(app.token_text, sizeof app.token_text, "%s", joined.c_str());
    app.stage = d.state.view.stage;
    app.batch_item = d.state.view.batch_item;
    app.head = d.state.view.head;
    app.all_heads = d.state.view.all_heads;
    app.notes = d.notes;
    app.dirty = true;
}

void lab_note_rect(LabApp& app, const std::string& id) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    app.rects.push_back({id, a.x, a.y, b.x - a.x, b.y - a.y});
}

namespace {

void handle_keys(LabApp& app) {
    ImGuiIO& io = ImGui::GetIO();
    std::vector<LabKey> keys;
    keys.swap(app.pending_keys);
    if (io.WantTextInput) return;  // typing in a field: the keys belong to it
    for (LabKey key : keys) {
        switch (key) {
            case LabKey::Right: lab_go_to_stage(app, app.stage + 1); break;
            case LabKey::Left: lab_go_to_stage(app, app.stage - 1); break;
            case LabKey::Home: lab_go_to_stage(app, 0); break;
            case LabKey::End: lab_go_to_stage(app, kStageCount - 1); break;
            case LabKey::Escape: app.show_help = false; break;
        }
    }
    const int heads = app.trace.config.heads, batch = app.trace.config.batch;
    for (ImWchar ch : io.InputQueueCharacters) {
        switch (ch) {
            case 'j': lab_go_to_stage(app, app.stage + 1); break;
            case 'k': lab_go_to_stage(app, app.stage - 1); break;
            case '?': app.show_help = !app.show_help; break;
            case 'a': app.all_heads = !app.all_heads; break;
            case ']': app.head = (app.head + 1) % heads; break;
            case '[': app.head = (app.head + heads - 1) % heads; break;
            case 'b': app.batch_item = (app.batch_item + 1) % batch; break;
            default:
                if (ch >= '1' && ch <= '9') lab_go_to_stage(app, ch - '1');
                if (ch == '0') lab_go_to_stage(app, 9);
        }
    }
}

}  // namespace

bool begin_panel(const char* name, const PanelRect& r, int extra_flags) {
    ImGui::SetNextWindowPos(ImVec2(r.x, r.y));
    ImGui::SetNextWindowSize(ImVec2(r.w, r.h));
    return ImGui::Begin(name, nullptr,
                        ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                            ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings | extra_flags);
}

void lab_frame(LabApp& app) {
    ++app.frame;
    app.rects.clear();
    app.heatmaps.clear();
    if (app.dirty) lab_recompute(app);
    handle_keys(app);

    // Layout: pipeline bar on top; setup left, explain right, stage view and the
    // dimension table in the middle. Narrow windows (>= 800 px) shrink the sides.
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    const float s = app.ui_scale;
    const float bar_h = ImGui::GetFrameHeight() * 2.4f;
    const float side_l = std::max(220.0f * s, std::min(300.0f * s, ds.x * 0.22f));
    const float side_r = std::max(260.0f * s, std::min(380.0f * s, ds.x * 0.27f));
    const float mid_w = std::max(200.0f, ds.x - side_l - side_r);
    const float body_h = ds.y - bar_h;
    const float table_h = std::min(body_h * 0.34f, (kStageCount + 2.5f) * ImGui::GetTextLineHeightWithSpacing());

    draw_pipeline_bar(app, {0, 0, ds.x, bar_h});
    draw_setup_panel(app, {0, bar_h, side_l, body_h});
    app.hover = HoverCell{};
    draw_stage_view(app, {side_l, bar_h, mid_w, body_h - table_h});
    draw_dimension_table(app, {side_l, bar_h + body_h - table_h, mid_w, table_h});
    draw_explain_panel(app, {side_l + mid_w, bar_h, ds.x - side_l - mid_w, body_h});
    if (app.show_help) draw_help_overlay(app);
}

}  // namespace lab
