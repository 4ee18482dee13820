// weights_note.cpp — Attention Lab app: where the weights on screen come from.
//
// The stepper and the experiments run attention with random (Xavier-initialised) weights
// and random token embeddings: the maps show how attention computes, not what a trained
// model attends to. One short line says so wherever weights or attention maps appear, its
// detail on hover; state().weights_note reports it. The trained model (the Train view)
// adds its pointer here, after the line, so every place that shows untrained weights
// points to it.
#include <imgui.h>

#include "lab_app.h"
#include "panels.h"
#include "text_fit.h"
#include "train_view.h"

namespace lab {

void draw_untrained_note(LabApp& app) {
    const unsigned seed = app.trace.config.seed;
    text_wrapped_colored(ImVec4(1.0f, 0.8f, 0.4f, 1), say(app, Msg(UiStr::ui_untrained_short, seed)).c_str());
    lab_note_rect(app, "note:untrained");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        text_wrapped_width(say(app, Msg(UiStr::ui_untrained_detail, seed)).c_str(), nullptr, ImGui::GetFontSize() * 32);
        ImGui::EndTooltip();
    }
    // The way to weights that mean something: the Train view (a shipped model opens at once).
    const std::string label = say(app, Msg(UiStr::ui_untrained_to_train)) + "###note:train";
    if (ImGui::SmallButton(label.c_str())) training_open_view(app);
    check_item(label.c_str());
    lab_note_rect(app, "note:train");
}

Json untrained_note_json(const LabApp& app) {
    if (app.stepper.shown) return nullptr;  // the stepper's header names the model's weights instead
    const unsigned seed = app.trace.config.seed;
    return {{"source", "random"}, {"text", say(app, Msg(UiStr::ui_untrained_short, seed))},
            {"detail", say(app, Msg(UiStr::ui_untrained_detail, seed))}};
}

}  // namespace lab
