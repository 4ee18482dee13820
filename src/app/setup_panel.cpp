// setup_panel.cpp — Attention Lab app: the knobs. Every change recomputes at once;
// an invalid combination shows the core's message and keeps the last good trace.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "text_wrap.h"
#include "core/tokens.h"
#include "lab_app.h"
#include "panels.h"
#include "presets.h"

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
    const size_t cells = static_cast<size_t>(std::max(0, c.L_q())) * static_cast<size_t>(std::max(0, c.L_kv()));
    if (c.L_q() > 0 && c.L_kv() > 0 && cells <= 4096 * 4096 && c.custom_keep.size() != cells) {
        c.custom_keep.assign(cells, 0);
        for (int i = 0; i < c.L_q(); ++i)
            for (int j = 0; j < c.L_kv(); ++j) c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j] = j <= i;  // start causal
    }
}

// Half the panel for the field, less when the label (in either language) needs the room.
void set_field_width(const char* label) {
    const float avail = ImGui::GetContentRegionAvail().x;
    const float label_w = ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(std::max(avail * 0.4f, std::min(avail * 0.5f, avail - label_w)));
}

// An integer field with -/+ buttons; its rectangle is recorded as "knob:<id>".
bool int_knob(LabApp& app, const char* id, const char* label, int* v, const char* help) {
    const std::string shown = std::string(label) + "###" + id;  // the id stays when the language changes
    set_field_width(shown.c_str());
    ImGui::BeginGroup();
    const bool changed = ImGui::InputInt(shown.c_str(), v, 1, 8);
    ImGui::EndGroup();
    lab_note_rect(app, std::string("knob:") + id);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    return changed;
}


// Presets: buttons that wrap like words.
bool draw_presets(LabApp& app) {
    bool changed = false;
    ImGui::TextDisabled("%s", tr(app, UiStr::ui_setup_presets));
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (size_t i = 0; i < presets().size(); ++i) {
        const Preset& p = presets()[i];
        // Stay on this line only if the button still fits.
        const float w = ImGui::CalcTextSize(tr(app, p.label)).x + ImGui::GetStyle().FramePadding.x * 2;
        if (i && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right_edge) ImGui::SameLine();
        const bool clicked = ImGui::Button((std::string(tr(app, p.label)) + "###preset:" + p.name).c_str());
        lab_note_rect(app, std::string("preset:") + p.name);
        if (clicked) {
            app.config = p.config;
            app.tokens.clear();
            app.token_text[0] = '\0';
            changed = true;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(app, p.what));
    }
    return changed;
}

bool draw_sizes(LabApp& app) {
    AttentionConfig& c = app.config;
    bool changed = false;
    ImGui::TextDisabled("%s", tr(app, UiStr::ui_setup_sizes));
    changed |= int_knob(app, "d_model", "d_model", &c.d_model, tr(app, UiStr::ui_knob_d_model_tip));
    changed |= int_knob(app, "heads", tr(app, UiStr::ui_knob_heads), &c.heads, tr(app, UiStr::ui_knob_heads_tip));
    ImGui::Text("d_k = d_v = %s", c.heads > 0 && c.d_model % c.heads == 0 ? std::to_string(c.d_k()).c_str() : "?");
    int seq = c.seq_len;
    if (int_knob(app, "seq_len", tr(app, UiStr::ui_knob_seq_len), &seq, tr(app, UiStr::ui_knob_seq_len_tip))) {
        c.seq_len = seq;
        changed = true;
    }
    if (ImGui::Checkbox(ui_label(app, UiStr::ui_setup_cross, "cross").c_str(), &c.cross)) {
        c.kv_len = c.cross ? c.seq_len + 2 : 0;
        changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(app, UiStr::ui_setup_cross_tip));
    if (c.cross) changed |= int_knob(app, "kv_len", tr(app, UiStr::ui_knob_kv_len), &c.kv_len, tr(app, UiStr::ui_knob_kv_len_tip));
    changed |= int_knob(app, "batch", tr(app, UiStr::ui_knob_batch), &c.batch, tr(app, UiStr::ui_knob_batch_tip));
    int seed = static_cast<int>(c.seed);
    if (int_knob(app, "seed", tr(app, UiStr::ui_knob_seed), &seed, tr(app, UiStr::ui_knob_seed_tip))) {
        c.seed = static_cast<uint32_t>(std::max(0, seed));
        changed = true;
    }
    return changed;
}

// The custom mask as a grid of 0/1 buttons.
bool draw_custom_grid(LabApp& app) {
    AttentionConfig& c = app.config;
    bool changed = false;
    text_wrapped_disabled(tr(app, UiStr::ui_setup_custom_hint));
    const float cell = ImGui::GetFrameHeight();
    for (int i = 0; i < c.L_q(); ++i)
        for (int j = 0; j < c.L_kv(); ++j) {
            uint8_t& keep = c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j];
            ImGui::PushID(i * 4096 + j);
            if (j) ImGui::SameLine(0, 2);
            ImGui::PushStyleColor(ImGuiCol_Button, keep ? ImVec4(0.3f, 0.6f, 0.4f, 1) : ImVec4(0.2f, 0.2f, 0.22f, 1));
            if (ImGui::Button(keep ? "1" : "0", ImVec2(cell, cell))) keep = !keep, changed = true;
            ImGui::PopStyleColor();
            ImGui::PopID();
        }
    return changed;
}

// The mask, its lengths or cells, and the fill. `changed`: a size knob moved this frame.
bool draw_mask(LabApp& app, bool changed) {
    AttentionConfig& c = app.config;
    ImGui::TextDisabled("%s", tr(app, UiStr::ui_setup_mask_section));
    int mask = static_cast<int>(c.mask);
    const char* mask_items[] = {tr(app, UiStr::ui_mask_none), tr(app, UiStr::ui_mask_causal), tr(app, UiStr::ui_mask_padding),
                                tr(app, UiStr::ui_mask_custom)};
    const std::string mask_label = ui_label(app, UiStr::ui_setup_mask_combo, "mask");
    set_field_width(mask_label.c_str());
    bool mask_changed = false;
    const bool open = ImGui::BeginCombo(mask_label.c_str(), mask_items[mask]);
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
            app.batch_item = std::max(0, c.batch - 1);
        }
        changed = true;
    }
    if (changed || c.padding_lengths.size() != static_cast<size_t>(std::max(0, c.batch))) fit_mask_params(c);
    if (c.mask == MaskKind::Padding && app.errors.empty()) {
        for (int b = 0; b < c.batch && b < 16; ++b) {
            const std::string label = say(app, Msg(UiStr::ui_setup_valid_len, b)) + "###valid_len" + std::to_string(b);
            set_field_width(label.c_str());
            changed |= ImGui::SliderInt(label.c_str(), &c.padding_lengths[b], 0, c.L_kv());
        }
    }
    if (c.mask == MaskKind::Custom && app.errors.empty() && c.L_q() <= 16 && c.L_kv() <= 16) changed |= draw_custom_grid(app);
    else if (c.mask == MaskKind::Custom) text_wrapped("%s", tr(app, UiStr::ui_setup_custom_too_big));
    int fill = static_cast<int>(c.mask_fill);
    changed |= ImGui::RadioButton("-inf", &fill, 0);
    ImGui::SameLine();
    changed |= ImGui::RadioButton("-1e9", &fill, 1);
    c.mask_fill = static_cast<MaskFill>(fill);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(app, UiStr::ui_setup_fill_tip));
    return changed;
}

bool draw_switches_and_tokens(LabApp& app) {
    AttentionConfig& c = app.config;
    bool changed = false;
    ImGui::TextDisabled("%s", tr(app, UiStr::ui_setup_switches));
    changed |= ImGui::Checkbox(ui_label(app, UiStr::ui_switch_scale, "scale").c_str(), &c.scale);
    changed |= ImGui::Checkbox(ui_label(app, UiStr::ui_switch_pe, "pe").c_str(), &c.pe);
    changed |= ImGui::Checkbox(ui_label(app, UiStr::ui_switch_bias, "bias").c_str(), &c.bias);
    ImGui::Separator();
    ImGui::TextDisabled("%s", tr(app, UiStr::ui_setup_tokens));
    ImGui::SetNextItemWidth(-1);
    const bool tokens_changed =
        ImGui::InputTextWithHint("##tokens", tr(app, UiStr::ui_setup_tokens_hint), app.token_text, sizeof app.token_text);
    lab_note_rect(app, "tokens");
    if (tokens_changed) {
        app.tokens = split_tokens(app.token_text).tokens;
        if (!app.tokens.empty()) c.seq_len = static_cast<int>(app.tokens.size());
        changed = true;
    }
    // Typed characters no font holds (drawn as U+FFFD), and a Chinese font that could
    // not be loaded (said in English: without the font, Chinese would not show).
    if (!app.glyph_notes.empty() || app.fonts.cjk == FontLoad::Failed) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.4f, 1));
        for (const Msg& n : app.glyph_notes) text_wrapped("%s", say(app, n).c_str());
        if (app.fonts.cjk == FontLoad::Failed)
            text_wrapped("%s", render(Msg(UiStr::lang_font_failed, app.fonts.cjk_error), Lang::En).c_str());
        ImGui::PopStyleColor();
    }
    return changed;
}

// The configuration's errors (the view keeps the last good trace), then the notes.
void draw_messages(LabApp& app) {
    if (!app.errors.empty()) {
        ImGui::Separator();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.5f, 1));
        for (const ConfigError& e : app.errors) text_wrapped("%s", say(app, Msg(UiStr::app_param_message, e.param, e.message)).c_str());
        ImGui::PopStyleColor();
        ImGui::TextDisabled("%s", tr(app, UiStr::ui_setup_last_valid));
    }
    ImGui::Separator();
    draw_config_loader(app);
    if (!app.notes.empty()) {
        ImGui::Separator();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.4f, 1));
        for (const Msg& n : app.notes) text_wrapped("%s", say(app, n).c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton(ui_label(app, UiStr::ui_setup_dismiss, "dismiss").c_str())) app.notes.clear();
    }
}

}  // namespace

void draw_setup_panel(LabApp& app, const PanelRect& r) {
    begin_panel(ui_label(app, UiStr::ui_setup_window, "Setup").c_str(), r);
    bool changed = draw_presets(app);
    ImGui::Separator();
    changed |= draw_sizes(app);
    ImGui::Separator();
    changed = draw_mask(app, changed);
    ImGui::Separator();
    changed |= draw_switches_and_tokens(app);
    if (changed) {
        fit_mask_params(app.config);
        app.dirty = true;
    }
    draw_messages(app);
    ImGui::Separator();
    ImGui::TextDisabled("%s", say(app, Msg(UiStr::ui_setup_recomputed, app.recompute_ms)).c_str());
    ImGui::End();
}

}  // namespace lab
