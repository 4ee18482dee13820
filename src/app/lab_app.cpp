// lab_app.cpp — Attention Lab app: state changes, keyboard, and the screen layout.
#include "lab_app.h"

#include <imgui.h>
#include <imgui_internal.h>  // ImTextCharFromUtf8

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/invariants.h"
#include "core/stages.h"
#include "core/url_state.h"
#include "interop/config_file.h"
#include "panels.h"

namespace lab {

namespace {

// The notes about a hash, in the current language.
std::vector<std::string> hash_notes(const UrlDecode& d) {
    std::vector<std::string> notes = d.notes;
    if (!d.state.view.experiment.empty() && experiment_index(d.state.view.experiment) < 0)
        notes.push_back(trf(Str::url_exp_unknown, d.state.view.experiment.substr(0, 32)));
    return notes;
}

// The notes about a config file, in the current language.
std::vector<std::string> config_notes(const ConfigFileResult& r, const std::string& name) {
    std::vector<std::string> notes;
    const std::string what = name.empty() ? tr(Str::app_pasted_config) : name;
    for (const ConfigError& e : r.errors) notes.push_back(trf(Str::app_file_param_message, what, e.param, e.message));
    if (!r.ignored.empty()) {
        std::string keys;
        for (const auto& k : r.ignored) keys += (keys.empty() ? "" : ", ") + k;
        notes.push_back(trf(Str::io_file_ignored, what, keys));
    }
    return notes;
}


// Calls f(code point, its UTF-8 bytes) for each character of a UTF-8 string.
// ImGui 1.86 stores 16-bit characters: anything beyond U+FFFF (4 UTF-8 bytes,
// e.g. emoji) is decoded here, since ImGui itself turns it into U+FFFD.
template <class F>
void for_each_codepoint(const std::string& s, F f) {
    const char* p = s.c_str();
    const char* end = p + s.size();
    while (p < end) {
        unsigned int c = 0;
        const int n = ImTextCharFromUtf8(&c, p, end);
        if (n <= 0) break;
        const auto* u = reinterpret_cast<const unsigned char*>(p);
        if (n == 4 && u[0] >= 0xF0 && u[0] <= 0xF4 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80 &&
            (u[3] & 0xC0) == 0x80)
            c = (u[0] & 7u) << 18 | (u[1] & 63u) << 12 | (u[2] & 63u) << 6 | (u[3] & 63u);
        f(c, std::string(p, static_cast<size_t>(n)));
        p += n;
    }
}

bool has_cjk(const std::string& s) {
    bool any = false;
    for_each_codepoint(s, [&](unsigned int c, const std::string&) { any |= c >= 0x2E80 && c <= 0xFFEF; });
    return any;
}

// Which typed characters no loaded font can draw (ImGui shows U+FFFD for them).
void find_missing_glyphs(LabApp& app) {
    app.glyph_notes.clear();
    if (app.fonts.cjk == FontLoad::Loading) return;  // not decided until the font is here
    const ImFont* font = ImGui::GetFont();
    for (const std::string& token : app.tokens)
        for_each_codepoint(token, [&](unsigned int c, const std::string& ch) {
            const bool drawable = c <= 0xFFFF && font->FindGlyphNoFallback(static_cast<ImWchar>(c));
            if (c >= 0x20 && !drawable) app.glyph_notes.push_back(trf(Str::lang_missing_glyph, token, ch, c));
        });
}


// An invalid configuration keeps the last good trace on screen; after a language
// switch its texts (checks, the scaling-off step) are said again from its numbers.
void retell_trace(LabApp& app) {
    if (app.trace_lang == app.lang || app.trace.stages.empty()) return;
    const std::string off_before = tr(Str::chk_trace_scaling_off, app.trace_lang);
    for (StageRecord& s : app.trace.stages) {
        s.checks.clear();
        for (ShapeStep& step : s.shape_steps)
            if (step.op == off_before) step.op = tr(Str::chk_trace_scaling_off);
    }
    check_invariants(app.trace);
    app.trace_lang = app.lang;
    ++app.generation;
}


// Texts are made in the chosen language once it can be drawn: Chinese waits for its
// font (a few hundred ms on the web; for good if it cannot be loaded) and meanwhile
// everything stays readable in English.
void show_language(LabApp& app) {
    const Lang shown = app.lang == Lang::Zh && app.fonts.cjk != FontLoad::Ready ? Lang::En : app.lang;
    if (shown == language()) return;
    set_language(shown);
    app.dirty = true;                // the trace's checks and the experiments' texts are rebuilt
    app.results.generation = ~0ull;  // even while the configuration is invalid (no new trace)
    app.last_action.clear();         // said in the old language
    // Notes are rebuilt from what produced them (the view itself stays as it is).
    const NotesSource& src = app.notes_source;
    if (app.notes.empty()) return;  // dismissed
    if (src.kind == NotesSource::Hash) app.notes = hash_notes(decode_url_state(src.text));
    else if (src.kind == NotesSource::Config) app.notes = config_notes(parse_config_file(src.text, src.name, src.base), src.name);
    else if (src.kind == NotesSource::TooLarge) app.notes.assign(1, trf(Str::plat_config_too_large, src.name, src.size));
}

}  // namespace

void lab_init(LabApp& app) {
    app.config = AttentionConfig{};
    app.dirty = true;
    lab_recompute(app);
}

void lab_recompute(LabApp& app) {
    app.dirty = false;
    app.errors = validate(app.config);
    if (!app.errors.empty()) return retell_trace(app);  // keep showing the last good trace
    const auto t0 = std::chrono::steady_clock::now();
    const AttentionConfig& c = app.config;
    const AttentionConfig& had = app.weights_for;
    if (app.weights.w_q.data.empty() || had.d_model != c.d_model || had.seed != c.seed || had.bias != c.bias) {
        app.weights = make_weights(c);
        app.weights_for = c;
    }
    // The new configuration is valid, so the new trace will exist: free the old one
    // first, so the page's peak memory is one trace (validate() caps it) plus weights.
    app.trace = Trace{};
    app.trace = run_trace(c, make_inputs(c, app.tokens), app.weights);
    app.trace_lang = app.lang;
    ++app.generation;
    app.recompute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (app.batch_item >= app.config.batch) app.batch_item = app.config.batch - 1;
    if (app.head >= app.config.heads) app.head = app.config.heads - 1;
    app.hover = HoverCell{};
}

double lab_frame_wanted_in(const LabApp& app) {
    const bool results_stale = app.experiment >= 0 && (app.results.generation != app.generation ||
                                                       app.results.computed_for != app.experiment);
    const bool font_to_request = app.fonts.cjk == FontLoad::None && lab_wants_cjk_font(app);
    if (app.dirty || results_stale || font_to_request || !app.pending_keys.empty() || app.open_experiment_menu)
        return 0.0;
    return -1.0;
}

void lab_set_language(LabApp& app, Lang lang) {
    app.lang = lang;
    show_language(app);  // at once when it can be drawn, so state() never mixes the two
}

bool lab_wants_cjk_font(const LabApp& app) {
    if (app.lang == Lang::Zh || has_cjk(app.token_text)) return true;
    for (const std::string& t : app.tokens)
        if (has_cjk(t)) return true;
    return false;
}

void lab_go_to_stage(LabApp& app, int index) {
    app.experiment = -1;  // stepping through stages is the stepper's job
    if (index < 0) index = 0;
    if (index >= kStageCount) index = kStageCount - 1;
    app.stage = index;
}

std::string lab_url_hash(const LabApp& app) {
    UrlState s;
    s.config = app.errors.empty() ? app.config : app.trace.config;
    s.tokens = app.tokens;
    s.view.stage = app.stage, s.view.batch_item = app.batch_item, s.view.head = app.head, s.view.all_heads = app.all_heads;
    if (app.experiment >= 0) s.view.experiment = experiment_infos()[app.experiment].key;
    s.lang = lang_code(app.lang);
    return encode_url_state(s);
}

void lab_apply_url_hash(LabApp& app, const std::string& hash) {
    const UrlDecode d = decode_url_state(hash);  // its notes are retold if the link's language differs
    Lang lang;
    if (!d.state.lang.empty() && parse_lang(d.state.lang, &lang)) lab_set_language(app, lang);
    app.config = d.state.config;
    app.tokens = d.state.tokens;
    std::string joined;
    for (const auto& t : app.tokens) joined += (joined.empty() ? "" : " ") + t;
    size_t n = std::min(joined.size(), sizeof app.token_text - 1);
    while (n > 0 && n < joined.size() && (static_cast<unsigned char>(joined[n]) & 0xC0) == 0x80) --n;  // whole characters
    joined.copy(app.token_text, n);
    app.token_text[n] = '\0';
    app.stage = d.state.view.stage;
    app.batch_item = d.state.view.batch_item;
    app.head = d.state.view.head;
    app.all_heads = d.state.view.all_heads;
    app.notes = hash_notes(d);
    app.notes_source = app.notes.empty() ? NotesSource{} : NotesSource{NotesSource::Hash, "", hash, AttentionConfig{}, 0};
    app.experiment = d.state.view.experiment.empty() ? -1 : experiment_index(d.state.view.experiment);
    app.dirty = true;
}

void lab_load_config_text(LabApp& app, const std::string& name, const std::string& text) {
    const ConfigFileResult r = parse_config_file(text, name, app.config);
    app.notes = config_notes(r, name);
    app.notes_source = app.notes.empty() ? NotesSource{} : NotesSource{NotesSource::Config, name, text, app.config, 0};
    const std::string what = name.empty() ? tr(Str::app_pasted_config) : name;
    if (r.ok) {
        app.config = r.config;
        if (!app.tokens.empty() && static_cast<int>(app.tokens.size()) != app.config.seq_len) {
            app.tokens.clear();
            app.token_text[0] = '\0';
        }
        app.dirty = true;
        app.last_action = trf(Str::app_loaded_config, what, r.format);
    } else {
        app.last_action = trf(Str::app_could_not_load_config, what);
    }
}

void lab_refuse_config_file(LabApp& app, const std::string& name, double size) {
    app.notes.assign(1, trf(Str::plat_config_too_large, name, size));
    app.notes_source = NotesSource{NotesSource::TooLarge, name, "", AttentionConfig{}, size};
    app.last_action = trf(Str::plat_could_not_load, name);
}

void lab_note_rect(LabApp& app, const std::string& id) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    app.rects.push_back({id, a.x, a.y, b.x - a.x, b.y - a.y});
}

namespace {

// Runs after the panels: if a widget became active this very frame (a click into a
// text field), its characters are text, not shortcuts.
void handle_keys(LabApp& app) {
    ImGuiIO& io = ImGui::GetIO();
    std::vector<LabKey> keys;
    keys.swap(app.pending_keys);
    if (io.WantTextInput || ImGui::IsAnyItemActive()) return;  // typing in a field: the keys belong to it
    for (LabKey key : keys) {
        switch (key) {
            case LabKey::Right: lab_go_to_stage(app, app.stage + 1); break;
            case LabKey::Left: lab_go_to_stage(app, app.stage - 1); break;
            case LabKey::Home: lab_go_to_stage(app, 0); break;
            case LabKey::End: lab_go_to_stage(app, kStageCount - 1); break;
            case LabKey::Escape:
                if (!app.show_help) app.experiment = -1;  // Esc leaves an experiment, or closes the help
                app.show_help = false;
                break;
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
            case 'e': app.open_experiment_menu = true; break;
            case 'l':
            case 'L': lab_set_language(app, app.lang == Lang::Zh ? Lang::En : Lang::Zh); break;
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
    show_language(app);
    if (app.dirty) lab_recompute(app);
    find_missing_glyphs(app);

    // Layout: pipeline bar on top; setup left, explain right, stage view and the
    // dimension table in the middle. Narrow windows (>= 800 px) shrink the sides.
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    const float s = app.ui_scale;
    const float bar_h = ImGui::GetFrameHeight() * 2.4f;
    const float side_l = std::max(190.0f * s, std::min(300.0f * s, ds.x * 0.22f));
    const float side_r = std::max(230.0f * s, std::min(380.0f * s, ds.x * 0.27f));
    const float mid_w = std::max(200.0f, ds.x - side_l - side_r);
    const float body_h = ds.y - bar_h;
    const float table_h = app.cost_tab_open ? body_h * 0.45f
                                            : std::min(body_h * 0.34f, (kStageCount + 3.5f) * ImGui::GetTextLineHeightWithSpacing());

    draw_pipeline_bar(app, {0, 0, ds.x, bar_h});
    draw_setup_panel(app, {0, bar_h, side_l, body_h});
    app.hover = HoverCell{};
    if (app.experiment >= 0) {
        draw_experiment_view(app, side_l, bar_h, ds.x - side_l, body_h);
    } else {
        draw_stage_view(app, {side_l, bar_h, mid_w, body_h - table_h});
        draw_dimension_table(app, {side_l, bar_h + body_h - table_h, mid_w, table_h});
        draw_explain_panel(app, {side_l + mid_w, bar_h, ds.x - side_l - mid_w, body_h});
    }
    if (app.show_help) draw_help_overlay(app);
    handle_keys(app);
}

}  // namespace lab
