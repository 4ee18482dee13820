// lab_app.h — Attention Lab app: the one state struct and the per-frame entry
// points the platform layer calls. ImGui only: no GL, no GLFW, no browser.
//
//   LabApp app;  lab_init(app);
//   every frame: ImGui::NewFrame(); lab_frame(app); ImGui::Render();
//   the page's window.lab.state() returns lab_state_json(app).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/data/ui_text.h"
#include "app/data/url_state.h"
#include "app/state/experiments.h"
#include "app/state/keyboard_nav.h"
#include "app/state/lesson_state.h"
#include "app/state/stepper_model.h"
#include "app/state/training_session.h"
#include "app/widgets/heatmap.h"
#include "app/widgets/text_fit.h"
#include "attention/config.h"
#include "base/i18n.h"
#include "base/message.h"
#include "interop/archive.h"
#include "trace/length_sweep.h"
#include "trace/trace.h"
#include "train/kv_cache.h"

namespace lab {

// What the mouse is over: a cell of a shown tensor, with its derivation.
struct HoverCell {
    std::string tensor;      // "" when nothing is hovered
    std::vector<int> index;  // full index into the tensor
    float value = 0.0f;
    Msg text;                // derive_cell()
    uint32_t color = 0;      // the colour the CPU gives the cell (colormap.h), to compare with the GPU's
};

// Where a widget was drawn this frame (pixels of the framebuffer), so tests and
// automation can aim real mouse input at it: "chip:scores", "knob:d_model+", ...
struct UiRect {
    std::string id;
    float x, y, w, h;
};

// A heatmap on screen: which tensor slice it shows and where its cells are.
struct HeatmapPlacement {
    std::string tensor;
    std::vector<int> prefix;  // leading indices (item, head) of the slice
    int rows, cols;
    float x, y;                // top-left of cell (0, 0)
    float cell_w, cell_h;
    LabelMode row_mode, col_mode;                      // how the axes are labelled (heatmap.h)
    std::vector<std::string> row_labels, col_labels;  // the labels drawn
};

inline HeatmapPlacement placement_of(std::string tensor, std::vector<int> prefix, int rows, int cols, const HeatmapHit& hit) {
    return {std::move(tensor), std::move(prefix), rows, cols, hit.x, hit.y, hit.cell_w, hit.cell_h,
            hit.row_mode, hit.col_mode, hit.row_labels, hit.col_labels};
}

// Navigation keys, queued by the platform layer as they happen: Dear ImGui 1.86
// keeps only "is down" state, so a press and release between two slow frames
// would otherwise be lost. What each key does: key_bindings.h; Tab (BackTab: Shift+Tab) and
// Enter: keyboard_nav.h.
enum class LabKey { Left, Right, Home, End, Escape, Tab, BackTab, Enter };

// What the app asks of its host (sokol-style function table; null = unsupported).
// Web: a browser download and the clipboard; native: a file in the working
// directory and GLFW's clipboard.
struct LabHost {
    void (*save_file)(const std::string& name, const std::string& bytes, const char* mime) = nullptr;
    void (*copy_text)(const std::string& text) = nullptr;
    std::string (*share_url)(const std::string& hash) = nullptr;  // full URL for a hash
    // A small text kept between visits (the lessons' progress): localStorage on the web.
    std::string (*load_text)(const char* key) = nullptr;
    void (*save_text)(const char* key, const std::string& text) = nullptr;
    // Starts reading the shipped checkpoint web/checkpoints/<task> (manifest.json, final/);
    // lab_checkpoint_arrived answers (the page: a fetch of its own files; native: the folder).
    void (*fetch_checkpoint)(const std::string& task) = nullptr;
};

// The Chinese font (lab_cjk.otf, ~0.8 MB) is not part of the page: the host loads
// it when lab_wants_cjk_font() first says so, then rebuilds the font atlas.
enum class FontLoad { None, Loading, Ready, Failed };
struct LabFonts {
    FontLoad cjk = FontLoad::None;
    int cjk_glyphs = 0;        // CJK glyphs in the atlas once Ready
    size_t cjk_bytes = 0;      // size of the loaded file
    std::string cjk_error;     // why it Failed
    double cjk_load_ms = 0.0;  // request to atlas rebuilt
};

// The screen's arrangement: the desktop's columns, or on a narrow or short screen (a phone
// either way up) one column whose panels are tabs (narrow_layout.cpp).
enum class NarrowTab { Stage, Setup, Explain, Lesson };
struct NarrowLayout {
    bool on = false;                   // this frame is laid out as one column
    NarrowTab tab = NarrowTab::Stage;  // the tab chosen (one that is not offered shows the stage)
    float chips_scroll = 0, chips_scroll_max = 0;  // the chip strip's sideways scroll, for state()
    int chips_shown_place = -1;        // the place last scrolled into the strip's view
    int lesson_shown = -1, lesson_step_shown = -1;  // the lesson step last brought to the front
    bool training_seen_running = false;  // so that Start (on the Setup tab) shows the run's tab
};

// The KV cache tab (kv_cache_panel.cpp): the open decoder's held-out sample decoded token by
// token, redecoded when the session's weights (TrainingSession::version) or sample change.
struct KvCacheView {
    DecodeRun run;
    DecodeTiming timing;            // runs 0: not timed (training was running)
    unsigned long long model = 0;   // TrainingSession::model decoded; 0: nothing decoded yet
    unsigned long long version = ~0ull;
    int sample = -1, gen_begin = 0;
    const char* weights = "";       // session_weights_key of the weights decoded
    ModelShape shape;               // of the model decoded (state() reads it after the model is gone)
    int step = -1;                  // the position shown; -1: the last
    int layer = 0;                  // the decoder layer whose query, keys and weights are drawn
    bool open = false;              // the tab was drawn this frame (the bottom bar is then taller, as for Cost)
};

// A press of one of the page's own buttons (previous / next stage, a stage, the language),
// queued by the host and applied at the start of the next frame (app/page_mirror.cpp).
struct PageAction {
    enum Kind { GoToPlace, Step, Language } kind = Step;
    int value = 0;  // GoToPlace: index into stepper_places(); Step: -1 / +1; Language: the Lang
};

// The knobs' attention on random weights: lab_recompute (lab_app.cpp) owns it. One staleness
// rule: `dirty` (a knob, the tokens or a loaded configuration changed) asks lab_recompute, which
// traces only while the stepper shows the random weights — with a model shown app.trace is the
// model's and this trace would be thrown away; going back to the random weights traces it then.
// The weights and inputs are kept between traces while the knobs they are made from stay.
struct RandomTrace {
    bool dirty = true;
    AttentionWeights weights;          // reused while d_model, seed and bias stay the same
    AttentionConfig weights_for;
    AttentionInputs inputs;            // reused while the shapes, seed, cross and tokens stay the same
    AttentionConfig inputs_for;
    std::vector<std::string> inputs_tokens;
    double ms = 0.0;                   // the last trace's time
    unsigned long long traces = 0;     // traces computed so far (state(): what a knob change costs)
};

// The experiments menu (experiments_view.cpp owns it): which one is open and each one's panel.
struct ExperimentShelf {
    int open = -1;                     // -1: the stage stepper; else index into experiments()
    std::vector<std::unique_ptr<ExperimentPanel>> panels;  // one per experiments() entry, made by lab_init
    bool open_menu = false;            // 'e' asks the pipeline bar to open the menu
};

struct LabApp {
    AttentionConfig config;            // what the knobs show (may be invalid)
    std::vector<ConfigError> errors;   // validate(config); non-empty keeps the last good trace
    std::vector<std::string> tokens;   // axis labels / token embeddings (empty: t0, t1, ...)
    char token_text[16384] = {};       // the tokens field as typed (a Chinese token + space is 4 bytes)
    RandomTrace random;                // the knobs' trace, made from them
    Trace trace;                       // the trace shown: the last good random one, or the model's (stepper)
    unsigned long long generation = 0; // counts changes of `trace`: what was computed from it is kept until it moves

    StageSelection view;               // the stage, batch item and head shown (the URL hash's too)
    ExperimentShelf experiments;
    int flash_query_tile = 0;          // the Tiles tab's query tile (kept in range where it is drawn)
    bool show_help = false;

    std::vector<LabKey> pending_keys;  // filled by the platform, drained by lab_frame
    std::vector<UiRect> headers, headers_last;  // panels' headers, which tooltips avoid (tooltip.h)
    float tooltip_hushed[2] = {-1, -1};  // where the clicked item is whose tooltip stays hidden until the pointer leaves
    std::string tooltip_shown;         // this frame's widget tooltip, for state()
    bool number_field_clicked = false; // the last click was on a number field or its -/+ buttons
    UiRect number_field_panel{};       // the panel that field is in
    long number_field_seen = -1;       // the last frame that panel was drawn (gone: the keys are shortcuts)
    std::string held_keys;             // characters typed there, not taken as shortcuts (said in the messages)
    HoverCell hover;
    std::vector<SweepPoint> sweep;     // the cost tab's measurement over L (empty until asked)
    bool cost_tab_open = false;
    std::vector<Msg> notes;            // e.g. what was wrong with the URL hash (said in text_lang when drawn)
    std::vector<UiRect> rects;         // rebuilt every frame
    std::vector<ClippedText> clipped;  // texts that did not fit this frame (text_fit.h); none is the rule
    std::vector<HeatmapPlacement> heatmaps;
    long frame = 0;
    LabHost host;
    HeatmapRenderer gpu;               // set by the platform; empty: CPU heatmaps
    long gpu_uploads = 0;              // reported by the platform: textures uploaded so far
    int gpu_textures = 0;              // and alive now
    char config_text[4096] = {};       // the "paste a config" field
    Msg last_action;                   // e.g. "saved attn_..._weights.csv" — shown and reported
    float ui_scale = 1.0f;             // set by the platform from devicePixelRatio / content scale
    Lang lang = Lang::En;              // the chosen interface language (lab_set_language)
    Lang text_lang = Lang::En;         // the language texts are drawn in: lang once its font is there
    LabFonts fonts;
    std::vector<Msg> glyph_notes;      // token characters no font holds (drawn as U+FFFD)
    TrainingSession training;          // the model trained or opened in the Train view
    LessonState lesson;                // the guided lesson shown, if any, and the progress
    StepperModel stepper;              // the stepper's weights (random or the model), block stages, backward view
    // Issue 28.3 / 28.4: the keyboard's walk over the widgets, and what the page's own buttons asked for.
    KeyboardNav nav;
    std::vector<PageAction> page_actions;  // applied at the start of the next frame (page_mirror.h)
    KvCacheView kv;                    // the KV cache tab's decoding
    NarrowLayout narrow;               // one column of tabs on a phone (lab_frame decides each frame)
};

// Texts in the language the interface shows (app.text_lang).
inline const char* tr(const LabApp& app, UiStr id) { return tr(id, app.text_lang); }
inline const char* tr(const LabApp& app, Str id) { return tr(id, app.text_lang); }
inline std::string say(const LabApp& app, const Msg& m) { return render(m, app.text_lang); }
// A translated ImGui label with a stable id: "<text in the shown language>###<id>", so
// widget state (tabs, open windows, active fields) survives a language switch.
inline std::string ui_label(const LabApp& app, UiStr text, const char* id) { return std::string(tr(app, text)) + "###" + id; }

void lab_init(LabApp& app);
// Validates app.config; if valid, runs the trace, otherwise keeps the last good one.
void lab_recompute(LabApp& app);
// Keyboard shortcuts and every panel for one frame.
void lab_frame(LabApp& app);
// JSON of what is on screen, for window.lab.state() and the tests.
std::string lab_state_json(const LabApp& app);
// Stage navigation (wraps nothing: clamps to [0, kStageCount)).
void lab_go_to_stage(LabApp& app, int index);
// The URL hash (without '#') for the current view, and applying one (notes on garbage).
std::string lab_url_hash(const LabApp& app);
void lab_apply_url_hash(LabApp& app, const std::string& hash);
// Shows a decoded URL state's configuration, tokens and view (not its language or lesson):
// what a link and a lesson step's set-up both do.
void lab_show_url_state(LabApp& app, const UrlState& s);
// Applies a JSON or TOML config file's text (name decides the format, "" sniffs);
// problems become notes naming the key, the view keeps the last good trace.
void lab_load_config_text(LabApp& app, const std::string& name, const std::string& text);
// When the app needs another frame although no input arrived: 0 = at once (a
// recompute or experiment results to show, queued keys, the experiments menu to
// open, the Chinese font to ask the host for; work in progress such as training
// reports here too), > 0 = in that many seconds, < 0 = not until something
// happens. The host draws no frames otherwise: the page rests while nothing changes.
double lab_frame_wanted_in(const LabApp& app);
// Chooses the interface language. Texts are drawn in it as soon as it can be drawn
// (Chinese waits for the CJK font): the next frame says everything in it.
void lab_set_language(LabApp& app, Lang lang);
// Chinese is shown, or the tokens contain CJK characters: the host should load the CJK font.
bool lab_wants_cjk_font(const LabApp& app);
// Sets the tokens field to `text` and the tokens to its words (base/tokens.h).
void lab_set_token_text(LabApp& app, const std::string& text);
// A config file over the 1 MiB limit, refused unread: a note naming it and its size.
void lab_refuse_config_file(LabApp& app, const std::string& name, double size);
// Records the last ImGui item's rectangle under `id` (see UiRect).
void lab_note_rect(LabApp& app, const std::string& id);
// Records the current window's rectangle under `id`.
void lab_note_window(LabApp& app, const std::string& id);
// A shipped checkpoint's files (paths relative to its folder: manifest.json,
// final/NAME.npy) or why they could not be read: the Train view opens it (train_view.h).
void lab_checkpoint_arrived(LabApp& app, const std::string& task, const std::vector<ArchiveFile>& files,
                            const std::string& error);

}  // namespace lab
