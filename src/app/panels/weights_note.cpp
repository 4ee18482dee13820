// weights_note.cpp — Attention Lab app: where the weights on screen come from.
//
// The stepper and the experiments run attention with random (Xavier-initialised) weights
// and random token embeddings: the maps show how attention computes, not what a trained
// model attends to. One short line says so wherever weights or attention maps appear, its
// detail on hover; state().weights_note reports it. The trained model (the Train view)
// adds its pointer here, after the line, so every place that shows untrained weights
// points to it.
#include <imgui.h>

#include "app/data/presets.h"
#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "base/tokens.h"

namespace lab {

namespace {

// Raw SDPA has no weights at all: its line says what is random there instead.
UiStr short_text(const LabApp& app) { return app.trace.config.raw ? UiStr::ui_raw_short : UiStr::ui_untrained_short; }
UiStr detail_text(const LabApp& app) { return app.trace.config.raw ? UiStr::ui_raw_detail : UiStr::ui_untrained_detail; }

}  // namespace

void draw_untrained_note(LabApp& app) {
    const unsigned seed = app.trace.config.seed;
    text_wrapped_colored(palette::kNoteText, say(app, Msg(short_text(app), seed)).c_str());
    lab_note_rect(app, "note:untrained");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        text_wrapped_width(say(app, Msg(detail_text(app), seed)).c_str(), nullptr, tooltip_wrap_width(32));
        ImGui::EndTooltip();
    }
    // The way to weights that mean something: the Train view (a shipped model opens at once).
    const std::string label = say(app, Msg(UiStr::ui_untrained_to_train)) + "###note:train";
    if (wrapped_small_button(label.c_str())) training_open_view(app);
    lab_note_rect(app, "note:train");
    // The Single sentence preset's sentence: its pronoun resolved by a trained model (coref).
    const Preset* sentence = find_preset("Single sentence");
    if (!sentence || app.tokens != split_tokens(choose_preset(*sentence, app.lang).token_text).tokens) return;
    const std::string coref = say(app, Msg(UiStr::ui_untrained_to_coref)) + "###note:coref";
    if (wrapped_small_button(coref.c_str())) training_open_coref(app);
    lab_note_rect(app, "note:coref");
}

Json untrained_note_json(const LabApp& app) {
    if (app.stepper.shown) return nullptr;  // the stepper's header names the model's weights instead
    const unsigned seed = app.trace.config.seed;
    return {{"source", "random"}, {"text", say(app, Msg(short_text(app), seed))},
            {"detail", say(app, Msg(detail_text(app), seed))}};
}

}  // namespace lab
