// key_bindings.cpp — Attention Lab app: the shortcuts.
#include "app/state/key_bindings.h"

#include "trace/stages.h"

namespace lab {

namespace {

void next_stage(LabApp& app, unsigned) { stepper_move(app, 1); }
void previous_stage(LabApp& app, unsigned) { stepper_move(app, -1); }
void first_stage(LabApp& app, unsigned) { stepper_go_end(app, false); }
void last_stage(LabApp& app, unsigned) { stepper_go_end(app, true); }
void toggle_backward(LabApp& app, unsigned) { app.stepper.sel.backward = !app.stepper.sel.backward; }
void jump_to_stage(LabApp& app, unsigned ch) { lab_go_to_stage(app, ch == '0' ? 9 : static_cast<int>(ch - '1')); }
void toggle_help(LabApp& app, unsigned) { app.show_help = !app.show_help; }
void toggle_all_heads(LabApp& app, unsigned) { app.view.all_heads = !app.view.all_heads; }
void open_experiments(LabApp& app, unsigned) { app.experiments.open_menu = true; }
void toggle_language(LabApp& app, unsigned) { lab_set_language(app, app.lang == Lang::Zh ? Lang::En : Lang::Zh); }

void step_head(LabApp& app, unsigned ch) {
    const int heads = app.trace.config.heads;
    app.view.head = (app.view.head + (ch == ']' ? 1 : heads - 1)) % heads;
}

void next_item(LabApp& app, unsigned) { app.view.batch_item = (app.view.batch_item + 1) % app.trace.config.batch; }

// Esc goes back one thing at a time: an open menu or list (or a widget in use by keys), the
// help, an experiment, the Train view; with nothing left, out of the canvas to the page's
// buttons (keyboard_nav.h).
void escape(LabApp& app, unsigned) {
    if (keyboard_nav_escape_taken(app)) return;
    if (app.show_help) app.show_help = false;
    else if (app.experiments.open >= 0) app.experiments.open = -1;
    else if (app.training.view_open) app.training.view_open = false;
    else keyboard_nav_leave(app);
}

// Tab, Shift+Tab and Enter are keyboard_nav's (they work while typing too): listed only.
void walked_by_keyboard_nav(LabApp&, unsigned) {}

constexpr UiStr kWords = UiStr::Count_, kHidden = UiStr::Count_;

const std::vector<KeyBinding> kBindings = {
    {"", UiStr::ui_help_key_right, UiStr::ui_help_next_stage, {LabKey::Right}, "j", next_stage},
    {"", UiStr::ui_help_key_left, UiStr::ui_help_prev_stage, {LabKey::Left}, "k", previous_stage},
    {"Home / End", kWords, UiStr::ui_help_first_last, {LabKey::Home}, "", first_stage},
    {"", kWords, kHidden, {LabKey::End}, "", last_stage},  // listed with Home
    {"1 ... 9, 0", kWords, UiStr::ui_help_jump, {}, "1234567890", jump_to_stage},
    {"[ / ]", kWords, UiStr::ui_help_head, {}, "[]", step_head},
    {"a", kWords, UiStr::ui_help_all_heads, {}, "a", toggle_all_heads},
    {"b", kWords, UiStr::ui_help_batch, {}, "b", next_item},
    {"e", kWords, UiStr::ui_help_experiments, {}, "e", open_experiments},
    {"g", kWords, UiStr::stp_help_backward, {}, "g", toggle_backward},
    {"L", kWords, UiStr::ui_help_language, {}, "lL", toggle_language},
    {"?", kWords, UiStr::ui_help_help, {}, "?", toggle_help},
    {"Tab / Shift+Tab", kWords, UiStr::ui_help_tab, {}, "", walked_by_keyboard_nav},
    {"Esc", kWords, UiStr::ui_help_escape, {LabKey::Escape}, "", escape},
};

}  // namespace

const std::vector<KeyBinding>& key_bindings() { return kBindings; }

}  // namespace lab
