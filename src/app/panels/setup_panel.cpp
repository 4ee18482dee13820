// setup_panel.cpp — Attention Lab app: the knobs. Every change recomputes at once;
// an invalid combination shows the core's message and keeps the last good trace.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/data/presets.h"
#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "app/widgets/text_wrap.h"
#include "base/tokens.h"

namespace lab {

namespace {

// Keeps the mask parameters sized to the current shape after a size knob moved: a new
// batch item starts with its default padding length (L, L-2, ...), none is longer than L_kv.
void fit_mask_params(AttentionConfig& c) {
    if (c.batch >= 1 && c.batch <= 4096 && c.L_kv() >= 1) {
        const std::vector<int> defaults = default_padding_lengths(c.batch, c.L_kv());
        for (size_t b = c.padding_lengths.size(); b < defaults.size(); ++b) c.padding_lengths.push_back(defaults[b]);
        c.padding_lengths.resize(c.batch);
    }
    for (int& len : c.padding_lengths) len = std::min(len, c.L_kv());
    if (c.flash_tile.size() == 2 && c.L_q() >= 1 && c.L_kv() >= 1)  // a tile never longer than what it cuts
        c.flash_tile = {std::min(c.flash_tile[0], c.L_q()), std::min(c.flash_tile[1], c.L_kv())};
    const size_t cells = static_cast<size_t>(std::max(0, c.L_q())) * static_cast<size_t>(std::max(0, c.L_kv()));
    if (c.L_q() > 0 && c.L_kv() > 0 && cells <= 4096 * 4096 && c.custom_keep.size() != cells) {
        c.custom_keep.assign(cells, 0);
        for (int i = 0; i < c.L_q(); ++i)
            for (int j = 0; j < c.L_kv(); ++j) c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j] = j <= i;  // start causal
    }
}

// A field's label ("text###id"): beside the field when it fits there (the field half the
// panel, at least 40%), else wrapped on its own line above a field as wide as the panel.
// Returns the label to give the widget.
std::string field_label(const std::string& shown) {
    const float avail = ImGui::GetContentRegionAvail().x;
    const float label_w = ImGui::CalcTextSize(shown.c_str(), nullptr, true).x + ImGui::GetStyle().ItemInnerSpacing.x;
    if (label_w <= avail * 0.6f) {
        ImGui::SetNextItemWidth(std::max(avail * 0.4f, std::min(avail * 0.5f, avail - label_w)));
        return shown;
    }
    const size_t id = shown.find("###");
    text_wrapped("%s", shown.substr(0, id).c_str());
    ImGui::SetNextItemWidth(-1);
    return id == std::string::npos ? "##" + shown : shown.substr(id);
}

bool has_error(const LabApp& app, const char* param) {
    for (const ConfigError& e : app.errors)
        if (e.param == param) return true;
    return false;
}

// An integer field with -/+ buttons; its rectangle is recorded as "knob:<id>". A knob the
// configuration's error names is red (the message itself is in the messages panel).
bool int_knob(LabApp& app, const char* id, const char* label, int* v, const char* help) {
    const std::string shown = std::string(label) + "###" + id;  // the id stays when the language changes
    const std::string widget = field_label(shown);
    const bool wrong = has_error(app, id);
    if (wrong) ImGui::PushStyleColor(ImGuiCol_FrameBg, palette::kRejectedField);
    ImGui::BeginGroup();
    const bool changed = ImGui::InputInt(widget.c_str(), v, 1, 8);
    ImGui::EndGroup();
    if (wrong) ImGui::PopStyleColor();
    check_item(widget.c_str());
    note_number_field(app);
    lab_note_rect(app, std::string("knob:") + id);
    item_tooltip(app, help);
    return changed;
}

// A checkbox whose label is checked for fit.
// A checkbox whose label is wider than the panel (a narrow column) wraps the label beside the
// box; a click on the label toggles it too, as on a one-line checkbox.
bool checkbox(const std::string& label, bool* v) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float need = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(label.c_str(), nullptr, true).x;
    if (need <= ImGui::GetContentRegionAvail().x) {
        const bool changed = ImGui::Checkbox(label.c_str(), v);
        check_item(label.c_str());
        return changed;
    }
    const size_t id = label.find("###");
    const std::string shown = label.substr(0, id), box = id == std::string::npos ? "##" + label : label.substr(id);
    ImGui::BeginGroup();
    bool changed = ImGui::Checkbox(box.c_str(), v);
    ImGui::SameLine(0, style.ItemInnerSpacing.x);
    text_wrapped("%s", shown.c_str());
    if (ImGui::IsItemClicked()) *v = !*v, changed = true;
    ImGui::EndGroup();
    return changed;
}


// Presets: buttons that wrap like words.
bool draw_presets(LabApp& app) {
    bool changed = false;
    text_wrapped_disabled(tr(app, UiStr::ui_setup_presets));
    for (size_t i = 0; i < presets().size(); ++i) {
        const Preset& p = presets()[i];
        // Stay on this line only if the button still fits.
        const float w = ImGui::CalcTextSize(tr(app, p.label)).x + ImGui::GetStyle().FramePadding.x * 2;
        if (i && fits_on_line(w)) ImGui::SameLine();
        const std::string label = std::string(tr(app, p.label)) + "###preset:" + p.name;
        const bool clicked = ImGui::Button(label.c_str());
        check_item(label.c_str());
        lab_note_rect(app, std::string("preset:") + p.name);
        if (clicked) {
            const PresetChoice choice = choose_preset(p, app.lang);
            app.config = choice.config;
            lab_set_token_text(app, choice.token_text);
            changed = true;
        }
        item_tooltip(app, tr(app, p.what));
    }
    return changed;
}

// The raw SDPA switch: on, it sets what raw SDPA needs (validate() refuses the rest), so the
// switch alone gives a valid configuration; off, the knobs stay where they are.
bool draw_raw_switch(LabApp& app) {
    AttentionConfig& c = app.config;
    const bool changed = checkbox(ui_label(app, UiStr::ui_setup_raw, "raw"), &c.raw);
    lab_note_rect(app, "switch:raw");
    item_tooltip(app, tr(app, UiStr::ui_setup_raw_tip));
    if (changed && c.raw) c.heads = 1, c.pe = false, c.bias = false, c.cross = false, c.kv_len = 0;
    return changed;
}

// Knobs raw SDPA fixes are greyed while it is on, unless a link or file set them wrong.
void begin_fixed_by_raw(const LabApp& app, const char* param) { ImGui::BeginDisabled(app.config.raw && !has_error(app, param)); }

bool draw_sizes(LabApp& app) {
    AttentionConfig& c = app.config;
    bool changed = false;
    text_wrapped_disabled(tr(app, UiStr::ui_setup_sizes));
    changed |= draw_raw_switch(app);
    changed |= int_knob(app, "d_model", "d_model", &c.d_model, tr(app, UiStr::ui_knob_d_model_tip));
    begin_fixed_by_raw(app, "heads");
    changed |= int_knob(app, "heads", tr(app, UiStr::ui_knob_heads), &c.heads, tr(app, UiStr::ui_knob_heads_tip));
    ImGui::EndDisabled();
    // Grouped-query attention, from a link or a file (kv=2): its knob stays while kv_heads is set, so
    // a heads value it no longer divides can be mended here; 0 (plain MHA) puts it away again.
    if (c.kv_heads != 0)
        changed |= int_knob(app, "kv_heads", tr(app, UiStr::ui_knob_kv_heads), &c.kv_heads, tr(app, UiStr::ui_knob_kv_heads_tip));
    textf("d_k = d_v = %s", c.heads > 0 && c.d_model % c.heads == 0 ? std::to_string(c.d_k()).c_str() : "?");
    int seq = c.seq_len;
    if (int_knob(app, "seq_len", tr(app, UiStr::ui_knob_seq_len), &seq, tr(app, UiStr::ui_knob_seq_len_tip))) {
        c.seq_len = seq;
        changed = true;
    }
    begin_fixed_by_raw(app, "cross");
    if (checkbox(ui_label(app, UiStr::ui_setup_cross, "cross"), &c.cross)) {
        c.kv_len = c.cross ? c.seq_len + 2 : 0;
        changed = true;
    }
    ImGui::EndDisabled();
    item_tooltip(app, tr(app, UiStr::ui_setup_cross_tip));
    if (c.cross) changed |= int_knob(app, "kv_len", tr(app, UiStr::ui_knob_kv_len), &c.kv_len, tr(app, UiStr::ui_knob_kv_len_tip));
    changed |= int_knob(app, "batch", tr(app, UiStr::ui_knob_batch), &c.batch, tr(app, UiStr::ui_knob_batch_tip));
    int seed = static_cast<int>(c.seed);
    if (int_knob(app, "seed", tr(app, UiStr::ui_knob_seed), &seed, tr(app, UiStr::ui_knob_seed_tip))) {
        c.seed = static_cast<uint32_t>(std::max(0, seed));
        changed = true;
    }
    return changed;
}

// The custom mask as a grid of 0/1 buttons, as wide as the panel allows; cells too small
// for their digit show it by colour only.
bool draw_custom_grid(LabApp& app) {
    AttentionConfig& c = app.config;
    bool changed = false;
    text_wrapped_disabled(tr(app, UiStr::ui_setup_custom_hint));
    const float gap = 2.0f;
    const float cell = std::min(ImGui::GetFrameHeight(), (ImGui::GetContentRegionAvail().x - gap * (c.L_kv() - 1)) / c.L_kv());
    const bool digits = cell >= ImGui::CalcTextSize("0").x + 4;
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(0, 0));
    for (int i = 0; i < c.L_q(); ++i)
        for (int j = 0; j < c.L_kv(); ++j) {
            uint8_t& keep = c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j];
            ImGui::PushID(i * 4096 + j);
            if (j) ImGui::SameLine(0, gap);
            ImGui::PushStyleColor(ImGuiCol_Button, keep ? palette::kMaskKeep : palette::kMaskDrop);
            if (ImGui::Button(digits ? (keep ? "1" : "0") : "##cell", ImVec2(cell, cell))) keep = !keep, changed = true;
            ImGui::PopStyleColor();
            ImGui::PopID();
        }
    ImGui::PopStyleVar();
    return changed;
}

// The mask, its lengths or cells, and the fill. `changed`: a size knob moved this frame.
bool draw_mask(LabApp& app, bool changed) {
    AttentionConfig& c = app.config;
    text_wrapped_disabled(tr(app, UiStr::ui_setup_mask_section));
    int mask = static_cast<int>(c.mask);
    const char* mask_items[] = {tr(app, UiStr::ui_mask_none), tr(app, UiStr::ui_mask_causal), tr(app, UiStr::ui_mask_padding),
                                tr(app, UiStr::ui_mask_custom)};
    const std::string mask_label = ui_label(app, UiStr::ui_setup_mask_combo, "mask");
    const std::string mask_widget = field_label(mask_label);
    bool mask_changed = false;
    const bool open = ImGui::BeginCombo(mask_widget.c_str(), mask_items[mask]);
    if (!open) check_item(mask_widget.c_str());  // once open, the last item is the popup's
    lab_note_rect(app, "mask");
    if (open) {  // each option's rectangle as "mask_option:<name>", for tests that pick with the mouse
        for (int i = 0; i < IM_ARRAYSIZE(mask_items); ++i) {
            if (ImGui::Selectable(mask_items[i], i == mask)) mask_changed = i != mask, mask = i;
            lab_note_rect(app, std::string("mask_option:") + mask_kind_name(static_cast<MaskKind>(i)));
        }
        ImGui::EndCombo();
    }
    if (mask_changed) {
        c.mask = static_cast<MaskKind>(mask);
        // Choosing padding starts from lengths that hide something (L, L-2, ...), and the view
        // moves to the item with the most padding, so the effect is on screen at once.
        if (c.mask == MaskKind::Padding) {
            c.padding_lengths = default_padding_lengths(c.batch, c.L_kv());
            app.view.batch_item = std::max(0, c.batch - 1);
        }
        changed = true;
    }
    if (changed || c.padding_lengths.size() != static_cast<size_t>(std::max(0, c.batch))) fit_mask_params(c);
    if (c.mask == MaskKind::Padding && app.errors.empty()) {
        for (int b = 0; b < c.batch && b < 16; ++b) {
            const std::string label = say(app, Msg(UiStr::ui_setup_valid_len, b)) + "###valid_len" + std::to_string(b);
            const std::string widget = field_label(label);
            changed |= ImGui::SliderInt(widget.c_str(), &c.padding_lengths[b], 0, c.L_kv());
            check_item(widget.c_str());
        }
    }
    if (c.mask == MaskKind::Custom && app.errors.empty() && c.L_q() <= 16 && c.L_kv() <= 16) changed |= draw_custom_grid(app);
    else if (c.mask == MaskKind::Custom) text_wrapped("%s", tr(app, UiStr::ui_setup_custom_too_big));
    // The masks after the paper compose with the kinds (attention/attention.h: masked_by); a knob a
    // message names stays on screen so it can be set back.
    if (c.mask != MaskKind::Custom || c.window != 0)
        changed |= int_knob(app, "window", tr(app, UiStr::ui_knob_window), &c.window, tr(app, UiStr::ui_knob_window_tip));
    if (c.mask == MaskKind::Causal || c.prefix != 0)
        changed |= int_knob(app, "prefix", tr(app, UiStr::ui_knob_prefix), &c.prefix, tr(app, UiStr::ui_knob_prefix_tip));
    int fill = static_cast<int>(c.mask_fill);
    changed |= ImGui::RadioButton("-inf", &fill, 0);
    check_item("-inf");
    ImGui::SameLine();
    changed |= ImGui::RadioButton("-1e9", &fill, 1);
    check_item("-1e9");
    c.mask_fill = static_cast<MaskFill>(fill);
    item_tooltip(app, tr(app, UiStr::ui_setup_fill_tip));
    return changed;
}

bool draw_switches(LabApp& app) {
    AttentionConfig& c = app.config;
    bool changed = false;
    text_wrapped_disabled(tr(app, UiStr::ui_setup_switches));
    changed |= checkbox(ui_label(app, UiStr::ui_switch_scale, "scale"), &c.scale);
    begin_fixed_by_raw(app, "pe");
    changed |= checkbox(ui_label(app, UiStr::ui_switch_pe, "pe"), &c.pe);
    ImGui::EndDisabled();
    begin_fixed_by_raw(app, "bias");
    changed |= checkbox(ui_label(app, UiStr::ui_switch_bias, "bias"), &c.bias);
    ImGui::EndDisabled();
    return changed;
}

bool draw_tokens(LabApp& app) {
    AttentionConfig& c = app.config;
    bool changed = false;
    text_wrapped_disabled(tr(app, UiStr::ui_setup_tokens));
    ImGui::SetNextItemWidth(-1);
    const char* hint = tr(app, UiStr::ui_setup_tokens_hint);
    const bool tokens_changed = ImGui::InputTextWithHint("##tokens", hint, app.token_text, sizeof app.token_text);
    if (!app.token_text[0])
        check_width("tokens hint", hint, ImGui::CalcTextSize(hint).x + ImGui::GetStyle().FramePadding.x * 2, ImGui::GetItemRectSize().x);
    lab_note_rect(app, "tokens");
    if (tokens_changed) {
        app.tokens = split_tokens(app.token_text).tokens;
        if (!app.tokens.empty()) c.seq_len = static_cast<int>(app.tokens.size());
        changed = true;
    }
    // What a typed character no font holds means is said in the messages panel.
    return changed;
}

// While the stepper shows a model, the knobs are not its sizes: the panel shows the
// model's (read-only) instead, and keeps only the tokens field a coref model reads.
void draw_model_sizes(LabApp& app) {
    const AttentionConfig& m = app.trace.config;
    ImGui::PushStyleColor(ImGuiCol_Text, palette::kWarnText);
    text_wrapped("%s", tr(app, UiStr::stp_setup_model_shown));
    ImGui::PopStyleColor();
    lab_note_rect(app, "stepper:setup_note");
    const int layers = app.training.trainer ? app.training.trainer->layout().shape.layers : 1;
    const std::pair<std::string, int> rows[] = {
        {"d_model", m.d_model}, {tr(app, UiStr::ui_knob_heads), m.heads}, {"d_k = d_v", m.heads > 0 ? m.d_model / m.heads : 0},
        {tr(app, UiStr::ui_knob_seq_len), m.seq_len}, {"L_kv", m.L_kv()}, {tr(app, UiStr::ui_knob_batch), m.batch},
        {tr(app, UiStr::stp_setup_layers), layers}};
    if (ImGui::BeginTable("model_sizes", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
        for (const auto& row : rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            text_wrapped_disabled(row.first.c_str());
            ImGui::TableNextColumn();
            textf("%d", row.second);
        }
        ImGui::EndTable();
    }
    lab_note_rect(app, "stepper:model_sizes");
    text_wrapped_disabled(tr(app, UiStr::stp_setup_knobs_back));
}

// The knobs, or the shown model's sizes; true when a knob changed.
bool draw_setup_body(LabApp& app) {
    if (app.stepper.shown) {
        draw_model_sizes(app);
        if (!app.training.trainer || app.training.trainer->task().kind != TaskKind::Coref) return false;
        ImGui::Separator();
        return draw_tokens(app);
    }
    bool changed = draw_presets(app);
    ImGui::Separator();
    changed |= draw_sizes(app);
    ImGui::Separator();
    changed = draw_mask(app, changed);  // fits the mask's lengths and cells to the sizes before drawing them
    ImGui::Separator();
    bool moved_lengths = draw_switches(app);  // cross-attention and the tokens change L_q / L_kv again
    ImGui::Separator();
    moved_lengths |= draw_tokens(app);
    if (moved_lengths) fit_mask_params(app.config);  // once a frame: only what changed after draw_mask
    changed |= moved_lengths;
    ImGui::Separator();
    draw_config_loader(app);
    return changed;
}

}  // namespace

// The body scrolls; the line saying how long the recompute took stays under it, whole.
void draw_setup_panel(LabApp& app, const PanelRect& r) {
    begin_panel(ui_label(app, UiStr::ui_setup_window, "Setup").c_str(), r, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    const std::string footer = say(app, Msg(UiStr::ui_setup_recomputed, app.random.ms));
    const float footer_h = wrapped_height(footer.c_str(), ImGui::GetContentRegionAvail().x) + ImGui::GetStyle().ItemSpacing.y * 2;
    ImGui::BeginChild("body", ImVec2(0, -footer_h));
    if (draw_setup_body(app)) app.random.dirty = true;
    ImGui::EndChild();
    ImGui::Separator();
    text_wrapped_disabled(footer.c_str());
    lab_note_rect(app, "setup:recomputed");
    ImGui::End();
}

}  // namespace lab
