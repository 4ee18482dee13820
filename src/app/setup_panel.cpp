// setup_panel.cpp — Attention Lab app: the knobs. Every change recomputes at once;
// an invalid combination shows the core's message and keeps the last good trace.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "core/tokens.h"
#include "lab_app.h"
#include "panels.h"
#include "presets.h"

namespace lab {

namespace {

// Keeps the mask parameters sized to the current shape after a size knob moved.
void fit_mask_params(AttentionConfig& c) {
    if (c.batch >= 1 && c.batch <= 4096) c.padding_lengths.resize(c.batch, c.L_kv());
    for (int& len : c.padding_lengths) len = std::min(len, c.L_kv());
    const size_t cells = static_cast<size_t>(std::max(0, c.L_q())) * static_cast<size_t>(std::max(0, c.L_kv()));
    if (c.L_q() > 0 && c.L_kv() > 0 && cells <= 4096 * 4096 && c.custom_keep.size() != cells) {
        c.custom_keep.assign(cells, 0);
        for (int i = 0; i < c.L_q(); ++i)
            for (int j = 0; j < c.L_kv(); ++j) c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j] = j <= i;  // start causal
    }
}

// An integer field with -/+ buttons; its rectangle is recorded as "knob:<id>".
bool int_knob(LabApp& app, const char* id, const char* label, int* v, const char* help) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::BeginGroup();
    const bool changed = ImGui::InputInt(label, v, 1, 8);
    ImGui::EndGroup();
    lab_note_rect(app, std::string("knob:") + id);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    return changed;
}


}  // namespace

void draw_setup_panel(LabApp& app, const PanelRect& r) {
    begin_panel("Setup", r);
    AttentionConfig& c = app.config;
    bool changed = false;

    ImGui::TextDisabled("Presets");
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (size_t i = 0; i < presets().size(); ++i) {
        const Preset& p = presets()[i];
        // Wrap like words: stay on this line only if the button still fits.
        const float w = ImGui::CalcTextSize(p.name).x + ImGui::GetStyle().FramePadding.x * 2;
        if (i && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right_edge) ImGui::SameLine();
        const bool clicked = ImGui::Button(p.name);
        lab_note_rect(app, std::string("preset:") + p.name);
        if (clicked) {
            c = p.config;
            app.tokens.clear();
            app.token_text[0] = '\0';
            changed = true;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.what);
    }
    ImGui::Separator();

    ImGui::TextDisabled("Sizes");
    changed |= int_knob(app, "d_model", "d_model", &c.d_model, "model width; the paper uses 512");
    changed |= int_knob(app, "heads", "heads h", &c.heads, "number of heads; d_k = d_v = d_model / h (paper: 8 heads of 64)");
    ImGui::Text("d_k = d_v = %s", c.heads > 0 && c.d_model % c.heads == 0 ? std::to_string(c.d_k()).c_str() : "?");
    int seq = c.seq_len;
    if (int_knob(app, "seq_len", "seq_len L_q", &seq, "number of tokens (queries)")) {
        c.seq_len = seq;
        changed = true;
    }
    if (ImGui::Checkbox("cross-attention", &c.cross)) {
        c.kv_len = c.cross ? c.seq_len + 2 : 0;
        changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Q from the decoder input, K and V from an encoder memory (L_kv keys)");
    if (c.cross) changed |= int_knob(app, "kv_len", "kv_len L_kv", &c.kv_len, "encoder memory length (keys and values)");
    changed |= int_knob(app, "batch", "batch B", &c.batch, "independent sequences processed together");
    int seed = static_cast<int>(c.seed);
    if (int_knob(app, "seed", "seed", &seed, "inputs ~ N(0,1) and Xavier-uniform weights are drawn from this seed")) {
        c.seed = static_cast<uint32_t>(std::max(0, seed));
        changed = true;
    }
    ImGui::Separator();

    ImGui::TextDisabled("Mask");
    int mask = static_cast<int>(c.mask);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    const bool mask_changed = ImGui::Combo("mask", &mask, "none\0causal\0padding\0custom\0");
    lab_note_rect(app, "mask");
    if (mask_changed) {
        c.mask = static_cast<MaskKind>(mask);
        changed = true;
    }
    if (changed || c.padding_lengths.size() != static_cast<size_t>(std::max(0, c.batch))) fit_mask_params(c);
    if (c.mask == MaskKind::Padding && app.errors.empty()) {
        for (int b = 0; b < c.batch && b < 16; ++b) {
            char label[32];
            std::snprintf(label, sizeof label, "valid len, item %d", b);
            ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
            changed |= ImGui::SliderInt(label, &c.padding_lengths[b], 0, c.L_kv());
        }
    }
    if (c.mask == MaskKind::Custom && app.errors.empty() && c.L_q() <= 16 && c.L_kv() <= 16) {
        ImGui::TextDisabled("click cells: row = query, column = key");
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
    } else if (c.mask == MaskKind::Custom) {
        ImGui::TextWrapped("custom masks are editable up to 16 x 16");
    }
    int fill = static_cast<int>(c.mask_fill);
    changed |= ImGui::RadioButton("-inf", &fill, 0);
    ImGui::SameLine();
    changed |= ImGui::RadioButton("-1e9", &fill, 1);
    c.mask_fill = static_cast<MaskFill>(fill);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("value written into masked scores before the softmax");
    ImGui::Separator();

    ImGui::TextDisabled("Switches");
    changed |= ImGui::Checkbox("scale by 1/sqrt(d_k)", &c.scale);
    changed |= ImGui::Checkbox("positional encoding", &c.pe);
    changed |= ImGui::Checkbox("projection biases", &c.bias);
    ImGui::Separator();

    ImGui::TextDisabled("Tokens (words become the sequence)");
    ImGui::SetNextItemWidth(-1);
    const bool tokens_changed =
        ImGui::InputTextWithHint("##tokens", "e.g. the cat sat on the mat", app.token_text, sizeof app.token_text);
    lab_note_rect(app, "tokens");
    if (tokens_changed) {
        app.tokens = split_tokens(app.token_text).tokens;
        if (!app.tokens.empty()) c.seq_len = static_cast<int>(app.tokens.size());
        changed = true;
    }

    if (changed) {
        fit_mask_params(c);
        app.dirty = true;
    }
    if (!app.errors.empty()) {
        ImGui::Separator();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.5f, 1));
        for (const ConfigError& e : app.errors) ImGui::TextWrapped("%s: %s", e.param.c_str(), e.message.c_str());
        ImGui::PopStyleColor();
        ImGui::TextDisabled("showing the last valid configuration");
    }
    ImGui::Separator();
    draw_config_loader(app);
    if (!app.notes.empty()) {
        ImGui::Separator();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.4f, 1));
        for (const std::string& n : app.notes) ImGui::TextWrapped("%s", n.c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("dismiss")) app.notes.clear();
    }
    ImGui::Separator();
    ImGui::TextDisabled("recomputed in %.2f ms", app.recompute_ms);
    ImGui::End();
}

}  // namespace lab
