// lab_app.cpp — Attention Lab app: state changes, keyboard, and the screen layout.
#include "app/state/lab_app.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "app/data/url_state.h"
#include "app/page_mirror.h"
#include "app/panels/lesson_panel.h"
#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/panels/train_view.h"
#include "app/state/key_bindings.h"
#include "base/tokens.h"
#include "base/utf8.h"
#include "interop/config_file.h"
#include "trace/stages.h"

namespace lab {

namespace {

// The notes about a hash.
std::vector<Msg> hash_notes(const UrlDecode& d) {
    std::vector<Msg> notes = d.notes;
    if (!d.state.view.experiment.empty() && experiment_index(d.state.view.experiment) < 0)
        notes.push_back(Msg(UiStr::url_exp_unknown, d.state.view.experiment.substr(0, 32)));
    return notes;
}

// The notes about a config file ("" = pasted).
std::vector<Msg> config_notes(const ConfigFileResult& r, const Msg& what) {
    std::vector<Msg> notes;
    for (const ConfigError& e : r.errors) notes.push_back(Msg(UiStr::app_file_param_message, what, e.param, e.message));
    for (const Msg& m : config_file_summary(r)) notes.push_back(Msg(UiStr::app_param_message, what, m));
    if (!r.ignored.empty()) {
        std::string keys;
        for (const auto& k : r.ignored) keys += (keys.empty() ? "" : ", ") + k;
        notes.push_back(Msg(UiStr::io_file_ignored, what, keys));
    }
    return notes;
}

Msg file_name(const std::string& name) { return name.empty() ? Msg(UiStr::app_pasted_config) : Msg::literal(name); }

// Which typed characters no loaded font can draw (ImGui shows U+FFFD for them).
// ImGui 1.86 holds 16-bit characters: one beyond U+FFFF (e.g. an emoji) is never drawable.
void find_missing_glyphs(LabApp& app) {
    app.glyph_notes.clear();
    if (app.fonts.cjk == FontLoad::Loading) return;  // not decided until the font is here
    const ImFont* font = ImGui::GetFont();
    for (const std::string& token : app.tokens)
        utf8::for_each(token, [&](unsigned c, const std::string& ch) {
            const bool drawable = c <= 0xFFFF && font->FindGlyphNoFallback(static_cast<ImWchar>(c));
            if (c >= 0x20 && !drawable) app.glyph_notes.push_back(Msg(UiStr::lang_missing_glyph, token, ch, c));
        });
}

// Texts are drawn in the chosen language once it can be drawn: Chinese waits for its
// font (a few hundred ms on the web; for good if it cannot be loaded) and meanwhile
// everything stays readable in English. Everything is a message said when drawn, so a
// switch is only this.
void show_language(LabApp& app) {
    app.text_lang = app.lang == Lang::Zh && app.fonts.cjk != FontLoad::Ready ? Lang::En : app.lang;
}

}  // namespace

void lab_init(LabApp& app) {
    app.config = AttentionConfig{};
    app.experiments.panels.clear();
    for (const ExperimentEntry& e : experiments()) app.experiments.panels.push_back(e.make());
    training_init(app);
    app.random.dirty = true;
    lab_recompute(app);
}

void lab_recompute(LabApp& app) {
    RandomTrace& r = app.random;
    r.dirty = false;
    app.errors = validate(app.config);
    if (!app.errors.empty()) return;  // keep showing the last good trace
    // With a model shown the trace is the model's: this one would be thrown away. Going back
    // to the random weights (stepper_refresh) calls lab_recompute again.
    if (app.stepper.shown && app.stepper.sel.model && stepper_has_model(app)) return;
    const auto t0 = std::chrono::steady_clock::now();
    const AttentionConfig& c = app.config;
    const AttentionConfig& had = r.weights_for;
    if (r.weights.w_q.data.empty() || had.d_model != c.d_model || had.seed != c.seed || had.bias != c.bias ||
        had.kv_dim() != c.kv_dim()) {  // W^K, W^V have h_kv·d_k columns
        r.weights = make_weights(c);
        r.weights_for = c;
    }
    // The inputs depend on what inputs_fit() compares (raw SDPA among it: its Q, K, V exist
    // only in inputs made for it); a mask or scaling knob keeps them.
    if (r.inputs.x.data.empty() || !inputs_fit(r.inputs_for, c) || r.inputs_tokens != app.tokens) {
        r.inputs = make_inputs(c, app.tokens);
        r.inputs_for = c;
        r.inputs_tokens = app.tokens;
    }
    // Recomputed in place: tensors that keep their size keep their buffers, the others are
    // freed before their new buffer is made, so the page's peak memory stays about one
    // trace (validate() caps it) plus weights, and a knob change allocates next to nothing.
    run_trace(app.trace, c, r.inputs, r.weights);
    ++app.generation, ++r.traces;
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    app.view.batch_item = std::min(app.view.batch_item, c.batch - 1);
    app.view.head = std::min(app.view.head, c.heads - 1);
    app.hover = HoverCell{};
}

double lab_frame_wanted_in(const LabApp& app) {
    const ExperimentPanel* open = app.experiments.open >= 0 ? app.experiments.panels[app.experiments.open].get() : nullptr;
    const bool results_stale = open && (open->computed_for != app.generation || open->stale);
    const bool font_to_request = app.fonts.cjk == FontLoad::None && lab_wants_cjk_font(app);
    const bool training = training_busy(app) || (open && open->busy());
    const bool page_asked = !app.page_actions.empty() || app.nav.entered;  // the page's buttons, its Tab into the canvas
    if (app.random.dirty || results_stale || font_to_request || !app.pending_keys.empty() || app.experiments.open_menu ||
        training || page_asked)
        return 0.0;
    return -1.0;
}

void lab_set_language(LabApp& app, Lang lang) {
    app.lang = lang;
    if (app.training.config.task == TaskKind::Coref && !training_busy(app))  // coref speaks the page's language
        training_set_config(app, app.training.config);
    show_language(app);  // at once when it can be drawn, so state() never mixes the two
}

bool lab_wants_cjk_font(const LabApp& app) {
    if (app.lang == Lang::Zh || utf8::has_cjk(app.token_text)) return true;
    if (app.training.config.task == TaskKind::Translate) return true;  // its targets are Chinese in either language
    for (const std::string& t : app.tokens)
        if (utf8::has_cjk(t)) return true;
    return false;
}

void lab_go_to_stage(LabApp& app, int index) {
    app.experiments.open = -1;  // stepping through stages is the stepper's job
    app.stepper.sel.block_stage = -1;
    app.training.view_open = false;
    if (index < 0) index = 0;
    if (index >= kStageCount) index = kStageCount - 1;
    app.view.stage = index;
}

std::string lab_url_hash(const LabApp& app) {
    UrlState s;
    s.config = app.errors.empty() || app.stepper.shown ? app.config : app.trace.config;
    s.tokens = app.tokens;
    static_cast<StageSelection&>(s.view) = app.view;
    if (app.experiments.open >= 0) s.view.experiment = experiments()[app.experiments.open].key;
    s.view.experiment_options = experiment_option_pairs(app);
    stepper_to_view(app.stepper, &s.view);
    if (app.lesson.lesson >= 0) s.view.lesson = app.lesson.lesson + 1, s.view.lesson_step = app.lesson.step + 1;
    s.lang = lang_code(app.lang);
    if (app.training.view_open && app.experiments.open < 0) {  // a link to the run: its knobs (the last valid ones)
        s.train = true;
        s.train_config = app.training.errors.empty() || !app.training.trainer ? app.training.config : app.training.trainer->config();
    }
    return encode_url_state(s);
}

void lab_show_url_state(LabApp& app, const UrlState& s) {
    app.config = s.config;
    std::string joined;
    for (const auto& t : s.tokens) joined += (joined.empty() ? "" : " ") + t;
    lab_set_token_text(app, joined);
    app.tokens = s.tokens;  // as decoded, even where the field had to cut the text
    app.view = s.view;  // the stage selection part of it
    stepper_from_view(s.view, &app.stepper);
    app.experiments.open = s.view.experiment.empty() ? -1 : experiment_index(s.view.experiment);
    app.random.dirty = true;
}

void lab_apply_url_hash(LabApp& app, const std::string& hash) {
    const UrlDecode d = decode_url_state(hash);
    Lang lang;
    if (!d.state.lang.empty() && parse_lang(d.state.lang, &lang)) lab_set_language(app, lang);
    app.notes = hash_notes(d);
    app.training.view_open = false;
    if (d.state.train) {
        lesson_leave(app);
        training_set_config(app, d.state.train_config);
        training_open_view(app);
        return;
    }
    lab_show_url_state(app, d.state);
    apply_experiment_options(app, d.state.view.experiment_options, &app.notes);
    // A link to another lesson step sets the lab up for it; the same step keeps the link's knobs.
    const int lesson = d.state.view.lesson - 1, step = d.state.view.lesson_step - 1;
    if (lesson < 0) lesson_leave(app);
    else if (lesson != app.lesson.lesson || step != app.lesson.step) lesson_start(app, lesson, step);
}

void lab_load_config_text(LabApp& app, const std::string& name, const std::string& text) {
    const ConfigFileResult r = parse_config_file(text, name, app.config);
    const Msg what = file_name(name);
    app.notes = config_notes(r, what);
    if (r.ok) {
        app.config = r.config;
        if (!app.tokens.empty() && static_cast<int>(app.tokens.size()) != app.config.seq_len) {
            app.tokens.clear();
            app.token_text[0] = '\0';
        }
        app.random.dirty = true;
        app.last_action = Msg(UiStr::app_loaded_config, what, r.format);
    } else {
        app.last_action = Msg(UiStr::app_could_not_load_config, what);
    }
}

void lab_set_token_text(LabApp& app, const std::string& text) {
    size_t n = std::min(text.size(), sizeof app.token_text - 1);
    if (n < text.size()) n = utf8::boundary_at_or_before(text, n);  // whole characters
    text.copy(app.token_text, n);
    app.token_text[n] = '\0';
    app.tokens = split_tokens(app.token_text).tokens;
}

void lab_refuse_config_file(LabApp& app, const std::string& name, double size) {
    app.notes.assign(1, Msg(UiStr::plat_config_too_large, name, size));
    app.last_action = Msg(UiStr::plat_could_not_load, name);
}

void lab_note_rect(LabApp& app, const std::string& id) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    app.rects.push_back({id, a.x, a.y, b.x - a.x, b.y - a.y});
}

void lab_note_window(LabApp& app, const std::string& id) {
    const ImVec2 a = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    app.rects.push_back({id, a.x, a.y, size.x, size.y});
}

namespace {

// Runs after the panels: if a widget became active this very frame (a click into a
// text field), its characters are text, not shortcuts. What a key does: key_bindings.h.
void handle_keys(LabApp& app) {
    ImGuiIO& io = ImGui::GetIO();
    keyboard_nav_take_keys(app, app.show_help ? "###Keyboard shortcuts" : nullptr);  // Tab and Enter, typing or not
    std::vector<LabKey> keys;
    keys.swap(app.pending_keys);
    if (io.WantTextInput || ImGui::IsAnyItemActive()) return;  // typing in a field: the keys belong to it
    for (LabKey key : keys) {
        if (app.nav.keyboard && key != LabKey::Escape) continue;  // the ring shows: arrows, Home and End are ImGui's navigation
        for (const KeyBinding& b : key_bindings())
            if (std::find(b.keys.begin(), b.keys.end(), key) != b.keys.end()) b.act(app, 0);
    }
    for (ImWchar ch : io.InputQueueCharacters) {
        if (ch <= 32 || ch >= 128) continue;
        const ImVec2 m = io.MousePos;
        const UiRect& p = app.number_field_panel;
        if (app.number_field_clicked && app.number_field_seen >= app.frame - 1 && m.x >= p.x && m.x < p.x + p.w && m.y >= p.y && m.y < p.y + p.h) {
            if (app.held_keys.size() < 24) app.held_keys += static_cast<char>(ch);
            continue;
        }
        app.held_keys.clear();
        for (const KeyBinding& b : key_bindings())
            if (std::strchr(b.chars, static_cast<char>(ch))) b.act(app, ch);
    }
}

}  // namespace

// A panel that appears (the messages panel after a bad keystroke) must not take the focus:
// ImGui would end the field being typed in, and the next digit would become a shortcut.
bool begin_panel(const char* name, const PanelRect& r, int extra_flags) {
    ImGui::SetNextWindowPos(ImVec2(r.x, r.y));
    ImGui::SetNextWindowSize(ImVec2(r.w, r.h));
    return ImGui::Begin(name, nullptr,
                        ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                            ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings |
                            ImGuiWindowFlags_NoFocusOnAppearing | extra_flags);
}

void note_number_field(LabApp& app) {
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    UiRect& p = app.number_field_panel;
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && ImGui::IsMouseHoveringRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax())) {
        app.number_field_clicked = true;
        p = {"number_field_panel", pos.x, pos.y, size.x, size.y};
    }
    if (p.x == pos.x && p.y == pos.y && p.w == size.x && p.h == size.y) app.number_field_seen = app.frame;
}

namespace {

// Layout: pipeline bar on top; setup left (the messages under it, when there are
// any), explain right, stage view and the dimension table in the middle. Narrow
// windows (>= 800 px) shrink the sides; a phone gets the narrow layout (narrow_layout.cpp).
void draw_desktop_layout(LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    const float s = app.ui_scale;
    const float bar_h = ImGui::GetFrameHeight() * 2.4f;
    const float side_l = std::max(190.0f * s, std::min(300.0f * s, ds.x * 0.22f));
    const float side_r = std::max(230.0f * s, std::min(380.0f * s, ds.x * 0.27f));
    const float mid_w = std::max(200.0f, ds.x - side_l - side_r);
    const float body_h = ds.y - bar_h;
    const float table_h = app.cost_tab_open || app.kv.open ? body_h * 0.45f
                                            : std::min(body_h * 0.34f, (kStageCount + 3.5f) * ImGui::GetTextLineHeightWithSpacing());

    const float messages_h = messages_panel_height(app, side_l, body_h * 0.5f);

    draw_pipeline_bar(app, {0, 0, ds.x, bar_h});
    const bool train = app.training.view_open && app.experiments.open < 0;
    if (train) draw_train_knobs(app, {0, bar_h, side_l, body_h - messages_h});
    else draw_setup_panel(app, {0, bar_h, side_l, body_h - messages_h});
    draw_messages_panel(app, {0, bar_h + body_h - messages_h, side_l, messages_h});
    app.hover = HoverCell{};
    if (train) {
        draw_train_view(app, {side_l, bar_h, ds.x - side_l, body_h});
    } else if (app.experiments.open >= 0) {
        draw_experiment_view(app, side_l, bar_h, ds.x - side_l, body_h);
    } else {
        draw_stage_view(app, {side_l, bar_h, mid_w, body_h - table_h});
        draw_dimension_table(app, {side_l, bar_h + body_h - table_h, mid_w, table_h});
        const PanelRect right = {side_l + mid_w, bar_h, ds.x - side_l - mid_w, body_h};
        if (app.lesson.lesson >= 0) draw_lesson_panel(app, right);  // the card takes the explain panel's place
        else draw_explain_panel(app, right);
    }
}

}  // namespace

void lab_frame(LabApp& app) {
    ++app.frame;
    keyboard_nav_begin_frame(app);
    page_mirror_apply_actions(app);
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) app.number_field_clicked = false;  // a field clicked says so below
    tooltip_begin_frame(app);
    app.rects.clear();
    app.heatmaps.clear();
    show_language(app);
    if (app.random.dirty) lab_recompute(app);
    stepper_refresh(app);
    training_advance(app);
    find_missing_glyphs(app);

    text_fit_begin_frame(&app.clipped);

    app.narrow.on = narrow_screen(app);
    if (app.narrow.on) draw_narrow_layout(app);
    else draw_desktop_layout(app);
    if (app.show_help) draw_help_overlay(app);
    handle_keys(app);
    keyboard_nav_end_frame(app);
    text_fit_begin_frame(nullptr);
}

}  // namespace lab
