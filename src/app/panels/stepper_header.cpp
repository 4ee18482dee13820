// stepper_header.cpp — Attention Lab app: the stepper's header line — which weights are
// shown (random, a shipped checkpoint, trained here for N steps), the model's layer and
// attention sublayer, the sample, and the backward view's switch. Items wrap like words.
#include <imgui.h>

#include <cstdio>
#include <string>

#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/state/stepper_model.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_wrap.h"

namespace lab {

namespace {

// Stays on the line when an item of this width still fits, else starts a new one.
void next_item(float width) {
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    ImGui::SameLine();
    if (ImGui::GetItemRectMax().x + spacing + width > right) ImGui::NewLine();
}

float button_width(const char* text) { return ImGui::CalcTextSize(text, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2; }

// A small toggle button, lit when on; its rectangle is "stepper:<id>".
bool pick(LabApp& app, const std::string& text, const std::string& id, bool on, UiStr tip) {
    const std::string label = text + "###stepper:" + id;
    next_item(button_width(label.c_str()));
    ImGui::PushStyleColor(ImGuiCol_Button, palette::choice(on));
    const bool clicked = ImGui::SmallButton(label.c_str());
    ImGui::PopStyleColor();
    lab_note_rect(app, "stepper:" + id);
    item_tooltip(app, tr(app, tip));
    return clicked && !on;
}

// Layer and sublayer buttons for every attention the model has.
void draw_model_picker(LabApp& app) {
    StepperSelection& sel = app.stepper.sel;
    const ModelLayout& layout = app.training.trainer->layout();
    const int layers = layout.shape.layers;
    for (int l = 0; l < layers && layers > 1; ++l)
        if (pick(app, say(app, Msg(UiStr::stp_layer, l)), "layer:" + std::to_string(l), sel.layer == l, UiStr::stp_layer_tip))
            sel.layer = l;
    for (const AttentionKindRow& k : kAttentionKinds) {
        if (find_block(layout, sel.layer, k.kind) < 0) continue;
        if (pick(app, tr(app, k.name), std::string("sublayer:") + k.key, sel.sublayer == k.kind, UiStr::stp_sublayer_tip))
            sel.sublayer = k.kind;
    }
}

// coref: what the model answers for the tokens field's sentence, and each head's weight from
// the pronoun on each noun; or why it cannot read the field (unknown tokens named).
void draw_coref_reading(LabApp& app) {
    const StepperModel& st = app.stepper;
    const Trainer& t = *app.training.trainer;
    if (t.task().kind != TaskKind::Coref) return;
    const CorefVocab& v = coref_vocab(t.task().lang);
    if (st.typed.answer < 0) {
        const std::string example =  // lesson 7's sentence, in the model's language
            render(Msg(Str::lesson_coref_rolled_tokens), t.task().lang == CorefLang::Zh ? Lang::Zh : Lang::En);
        if (!st.typed_note.empty())
            text_wrapped_colored(palette::kNoteText, say(app, Msg(UiStr::stp_coref_cannot, say(app, st.typed_note), st.sample)).c_str());
        text_wrapped_colored(palette::kNoteText, say(app, Msg(UiStr::stp_coref_hint, example)).c_str());
        lab_note_rect(app, "stepper:coref");
        return;
    }
    const std::string query = st.typed.text.tokens[static_cast<size_t>(st.typed.text.query)];
    text_wrapped_colored(palette::kNoteText, say(app, Msg(UiStr::stp_coref_answer, query, v.nouns[static_cast<size_t>(st.typed.answer)],
                                                   st.typed.probability, query)).c_str());
    lab_note_rect(app, "stepper:coref");
    for (const CorefHeadRow& h : st.typed.heads) {
        std::string nouns;
        char buf[48];
        for (size_t n = 0; n < st.typed.text.nouns.size(); ++n) {
            std::snprintf(buf, sizeof buf, " %.2f", h.on_noun[n]);
            nouns += (n ? ", " : "") + v.nouns[static_cast<size_t>(st.typed.text.nouns[n].cls)] + buf;
        }
        text_wrapped_disabled(say(app, Msg(UiStr::stp_coref_head, h.layer, h.head, nouns)).c_str());  // as the layer buttons
    }
}

}  // namespace

void draw_stepper_header(LabApp& app) {
    StepperModel& st = app.stepper;
    text_wrapped_disabled(say(app, stepper_weights_label(app)).c_str());
    lab_note_rect(app, "stepper:weights");
    if (stepper_has_model(app)) {
        if (pick(app, tr(app, UiStr::stp_use_random), "weights:random", !st.sel.model, UiStr::stp_use_random_tip))
            st.sel.model = false;
        if (pick(app, tr(app, UiStr::stp_use_model), "weights:model", st.sel.model, UiStr::stp_use_model_tip))
            st.sel.model = true;
    }
    if (st.shown) draw_model_picker(app);
    const std::string backward = ui_label(app, UiStr::stp_backward, "stepper:backward");
    next_item(ImGui::GetFrameHeight() + ImGui::CalcTextSize(backward.c_str(), nullptr, true).x + ImGui::GetStyle().ItemInnerSpacing.x);
    const bool raw = app.trace.config.raw && !st.shown;
    ImGui::BeginDisabled(raw);
    ImGui::Checkbox(backward.c_str(), &st.sel.backward);
    ImGui::EndDisabled();
    lab_note_rect(app, "stepper:backward");
    item_tooltip(app, tr(app, raw ? UiStr::stp_backward_raw_tip : UiStr::stp_backward_tip));
    if (st.shown) {
        const ModelTrace& m = st.model;
        std::string q, k;
        for (const std::string& t : m.query_tokens) q += t + " ";
        for (const std::string& t : m.key_tokens) k += t + " ";
        text_wrapped_disabled(say(app, Msg(UiStr::stp_sample, app.stepper.sample, m.block.name, q, k)).c_str());
        draw_coref_reading(app);
    }
}

}  // namespace lab
