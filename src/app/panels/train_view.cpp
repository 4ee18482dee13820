// train_view.cpp — Attention Lab app: the Train view's drawing (train_view.h). The
// knobs are the rows of train_keys() drawn by type, so a new knob is one row there
// (plus its label here); the operations are in train_session.cpp.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/panels/tooltip.h"
#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "app/widgets/heatmap.h"
#include "app/widgets/line_plot.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "app/widgets/text_wrap.h"

namespace lab {

namespace {


// A knob's label and tooltip; null label: the knob is not drawn (task: the buttons).
struct KnobText {
    const char* key;
    UiStr label, tip;
};
const KnobText kKnobs[] = {
    {"layers", UiStr::tv_knob_layers, UiStr::tv_tip_layers},       {"heads", UiStr::tv_knob_heads, UiStr::tv_tip_heads},
    {"kv_heads", UiStr::ui_knob_kv_heads, UiStr::ui_knob_kv_heads_tip},
    {"d_model", UiStr::tv_knob_d_model, UiStr::tv_tip_d_model},    {"d_ff", UiStr::tv_knob_d_ff, UiStr::tv_tip_d_ff},
    {"vocab", UiStr::tv_knob_vocab, UiStr::tv_tip_vocab},          {"length", UiStr::tv_knob_length, UiStr::tv_tip_length},
    {"gap", UiStr::tv_knob_gap, UiStr::tv_tip_gap},                {"batch", UiStr::tv_knob_batch, UiStr::tv_tip_batch},
    {"steps", UiStr::tv_knob_steps, UiStr::tv_tip_steps},          {"seed", UiStr::tv_knob_seed, UiStr::tv_tip_seed},
    {"scale", UiStr::tv_knob_scale, UiStr::tv_tip_scale},          {"pe", UiStr::tv_knob_pe, UiStr::tv_tip_pe},
    {"bias", UiStr::tv_knob_bias, UiStr::tv_tip_bias},             {"label_smoothing", UiStr::tv_knob_ls, UiStr::tv_tip_ls},
    {"dropout", UiStr::tv_knob_dropout, UiStr::tv_tip_dropout},    {"position", UiStr::tv_knob_position, UiStr::tv_tip_position},
    {"lr", UiStr::tv_knob_lr, UiStr::tv_tip_lr},                   {"eval_every", UiStr::tv_knob_eval_every, UiStr::tv_tip_eval_every},
    {"eval_size", UiStr::tv_knob_eval_size, UiStr::tv_tip_eval_size},
};

const KnobText* knob_text(const char* key) {
    for (const KnobText& k : kKnobs)
        if (std::string(k.key) == key) return &k;
    return nullptr;
}

// Half the panel for the field, less when the label needs the room.
void field_width(const std::string& label) {
    const float avail = ImGui::GetContentRegionAvail().x;
    const float label_w = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(std::max(avail * 0.4f, std::min(avail * 0.55f, avail - label_w)));
}

// Buttons that wrap like words.
void same_line_if_fits(const char* label, bool first) {
    const float w = ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (!first && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right) ImGui::SameLine();
}

// A button on the current line if it fits (first: on a new line), its rectangle recorded
// as `id`, dimmed and inert when !enabled.
bool button(LabApp& app, UiStr text, const char* id, bool enabled = true, bool first = false) {
    const std::string label = ui_label(app, text, id);
    same_line_if_fits(label.c_str(), first);
    if (!enabled) ImGui::BeginDisabled();
    const bool clicked = ImGui::Button(label.c_str());
    if (!enabled) ImGui::EndDisabled();
    lab_note_rect(app, id);
    return clicked && enabled;
}

void draw_task_buttons(LabApp& app) {
    const ConfigKey& task = *train_keys().find("task");
    ImGui::TextDisabled("%s", tr(app, UiStr::tv_task));
    for (size_t i = 0; i < task.choices.size(); ++i) {
        const KeyChoice& ch = task.choices[i];
        const std::string id = std::string("train:task:") + ch.name, label = std::string(ch.name) + "###" + id;
        const bool current = static_cast<int>(app.training.config.task) == ch.value;
        same_line_if_fits(label.c_str(), i == 0);
        ImGui::PushStyleColor(ImGuiCol_Button, palette::choice(current));
        const bool clicked = ImGui::Button(label.c_str());
        ImGui::PopStyleColor();
        lab_note_rect(app, id);
        if (clicked && !current) {
            TrainConfig c;
            c.task = static_cast<TaskKind>(ch.value);
            training_set_config(app, c);  // the task's defaults
        }
    }
}

void draw_run_buttons(LabApp& app) {
    TrainingSession& ts = app.training;
    const bool valid = ts.errors.empty(), idle = ts.fetching.empty();
    if (button(app, UiStr::tv_start, "train:start", valid && idle && !ts.running, true)) training_start(app);
    if (button(app, UiStr::tv_pause, "train:pause", ts.running)) training_pause(app);
    if (button(app, UiStr::tv_step, "train:step", valid && idle)) training_step(app);
    if (button(app, UiStr::tv_reset, "train:reset", valid && idle)) training_reset(app);
    const std::string open = say(app, Msg(UiStr::tv_open_trained, task_name(ts.config.task))) + "###train:open_trained";
    same_line_if_fits(open.c_str(), true);
    if (!idle) ImGui::BeginDisabled();
    if (ImGui::Button(open.c_str()) && idle) training_open_shipped(app);
    if (!idle) ImGui::EndDisabled();
    lab_note_rect(app, "train:open_trained");
    item_tooltip(app, tr(app, UiStr::tv_open_trained_tip));
}

void draw_exports(LabApp& app) {
    ImGui::TextDisabled("%s", tr(app, UiStr::tv_exports));
    const bool can = app.training.trainer && app.host.save_file;
    if (button(app, UiStr::tv_export_checkpoint, "export:train_checkpoint", can, true)) {
        const std::string name = training_archive_name(app) + ".tar", bytes = training_archive(app);
        app.host.save_file(name, bytes, "application/x-tar");
        app.last_action = Msg(UiStr::ui_export_saved, name, bytes.size());
    }
    item_tooltip(app, tr(app, UiStr::tv_export_checkpoint_tip));
    if (button(app, UiStr::tv_export_script, "export:train_script", can)) {
        const std::string name = training_script_name(app), bytes = training_script(app);
        app.host.save_file(name, bytes, "text/x-python");
        app.last_action = Msg(UiStr::ui_export_saved, name, bytes.size());
    }
    item_tooltip(app, tr(app, UiStr::tv_export_script_tip));
}

// The learning-rate schedule: a choice, then its numbers.
bool draw_lr_knob(LabApp& app, TrainConfig& c) {
    int schedule = c.lr.schedule == LrSchedule::Paper ? 1 : 0;
    const char* items[] = {tr(app, UiStr::tv_lr_const), tr(app, UiStr::tv_lr_paper)};
    const std::string label = ui_label(app, UiStr::tv_knob_lr, "train:knob:lr");
    field_width(label);
    bool changed = ImGui::Combo(label.c_str(), &schedule, items, 2);
    lab_note_rect(app, "train:knob:lr");
    item_tooltip(app, tr(app, UiStr::tv_tip_lr));
    c.lr.schedule = schedule ? LrSchedule::Paper : LrSchedule::Const;
    auto number = [&](UiStr text, const char* id, double* v, double step, const char* format) {
        const std::string l = ui_label(app, text, id);
        field_width(l);
        changed |= ImGui::InputDouble(l.c_str(), v, step, step * 10, format);
        lab_note_rect(app, id);
    };
    if (schedule) {
        number(UiStr::tv_lr_factor, "train:knob:lr_factor", &c.lr.factor, 0.1, "%.3g");
        number(UiStr::tv_lr_warmup, "train:knob:lr_warmup", &c.lr.warmup, 50, "%.0f");
    } else {
        number(UiStr::tv_lr_rate, "train:knob:lr_rate", &c.lr.rate, 0.0005, "%.4g");
    }
    return changed;
}

// One knob of train_keys(), drawn by its type.
bool draw_knob(LabApp& app, const ConfigKey& k, const KnobText& text, TrainConfig& c) {
    const std::string id = std::string("train:knob:") + k.name, label = ui_label(app, text.label, id.c_str());
    bool changed = false;
    if (k.type == KeyType::Switch) {
        bool on = k.get(&c) != 0;
        if ((changed = ImGui::Checkbox(label.c_str(), &on))) k.set(&c, on);
    } else if (k.type == KeyType::Decimal) {
        double v = k.get_real(&c);
        field_width(label);
        if ((changed = ImGui::InputDouble(label.c_str(), &v, 0.05, 0.1, "%.3g"))) k.set_real(&c, v);
    } else if (k.type == KeyType::Text) {
        return draw_lr_knob(app, c);
    } else if (k.type == KeyType::Choice) {  // a few names, as radio buttons after the label
        lab::text(tr(app, text.label));
        for (const KeyChoice& ch : k.choices) {  // beside the label while they fit, then on the next line
            const ImGuiStyle& style = ImGui::GetStyle();
            if (fits_on_line(ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(ch.name).x)) ImGui::SameLine();
            const std::string option = std::string(ch.name) + "###" + id + ":" + ch.name;
            if (ImGui::RadioButton(option.c_str(), k.get(&c) == ch.value)) k.set(&c, ch.value), changed = true;
            check_item(option.c_str());
            lab_note_rect(app, id + ":" + ch.name);
        }
    } else {
        int v = static_cast<int>(k.get(&c));
        field_width(label);
        if ((changed = ImGui::InputInt(label.c_str(), &v, 1, 8))) k.set(&c, v);
    }
    note_number_field(app);
    lab_note_rect(app, id);
    item_tooltip(app, tr(app, text.tip));
    return changed;
}

void draw_knob_list(LabApp& app) {
    TrainConfig c = app.training.config;
    bool changed = false;
    for (const ConfigKey& k : train_keys().rows) {
        const KnobText* text = knob_text(k.name);
        if (!text || (std::string(k.name) == "gap" && c.task != TaskKind::Induction)) continue;
        changed |= draw_knob(app, k, *text, c);
    }
    if (changed) training_set_config(app, c);
}

void draw_messages(LabApp& app) {
    const TrainingSession& ts = app.training;
    ImGui::PushStyleColor(ImGuiCol_Text, palette::kErrorText);
    for (const ConfigError& e : ts.errors) text_wrapped("%s", say(app, Msg(UiStr::app_param_message, e.param, e.message)).c_str());
    ImGui::PopStyleColor();
    if (!ts.errors.empty()) text_wrapped_disabled(tr(app, UiStr::tv_errors_keep_model));
    ImGui::PushStyleColor(ImGuiCol_Text, palette::kNoteText);
    for (const Msg& n : app.notes) text_wrapped("%s", say(app, n).c_str());
    ImGui::PopStyleColor();
}

}  // namespace

void draw_train_button(LabApp& app) {
    const bool open = app.training.view_open && app.experiments.open < 0;
    ImGui::PushStyleColor(ImGuiCol_Button, open ? palette::kChoiceOn : ImGui::GetStyleColorVec4(ImGuiCol_Button));
    const bool clicked = ImGui::SmallButton(ui_label(app, UiStr::tv_menu_button, "train_button").c_str());
    ImGui::PopStyleColor();
    lab_note_rect(app, "menu:train");
    item_tooltip(app, tr(app, UiStr::tv_menu_tip));
    if (clicked) training_open_view(app);
}

void draw_train_knobs(LabApp& app, const PanelRect& r) {
    begin_panel(ui_label(app, UiStr::tv_knobs_window, "TrainKnobs").c_str(), r);
    draw_task_buttons(app);
    ImGui::Separator();
    draw_run_buttons(app);
    ImGui::Separator();
    draw_exports(app);
    ImGui::Separator();
    ImGui::TextDisabled("%s", tr(app, UiStr::tv_model_and_run));
    draw_knob_list(app);
    draw_messages(app);
    ImGui::End();
}

// ---- the centre: progress, plots, the sample, the timeline, the maps -----------------

namespace {

Msg weights_line(const TrainingSession& ts) {
    const int steps = ts.trainer ? ts.trainer->steps_done() : 0;
    if (ts.source == WeightsSource::Shipped) return Msg(UiStr::tv_weights_shipped, task_name(ts.config.task));
    if (ts.source == WeightsSource::Trained) return Msg(UiStr::tv_weights_trained, steps);
    return Msg(UiStr::tv_weights_random);
}

// Dimmed text after the last item on its line when it fits there, else on the next line.
void disabled_text_if_fits(const std::string& text) {
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const float x = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
    if (x + ImGui::CalcTextSize(text.c_str()).x <= right) ImGui::SameLine();
    ImGui::TextDisabled("%s", text.c_str());
}

void draw_progress(LabApp& app) {
    const TrainingSession& ts = app.training;
    const Trainer& t = *ts.trainer;
    const EvalReport* last = ts.history.empty() ? nullptr : &ts.history.back();
    const std::vector<float>& losses = training_losses(ts);
    const double loss = losses.empty() ? 0 : losses.back();
    const int steps = training_steps(ts);
    const Msg line = ts.source == WeightsSource::Shipped ? Msg(UiStr::tv_progress_shipped, steps, static_cast<int>(t.config().seed))
                                                         : Msg(UiStr::tv_progress, steps, t.config().steps, ts.steps_per_sec, ts.elapsed_seconds);
    ImGui::TextUnformatted(say(app, line).c_str());
    lab_note_rect(app, "train:progress");
    if (!losses.empty()) disabled_text_if_fits(say(app, Msg(UiStr::tv_loss_now, loss)));
    if (last && last->bleu >= 0)  // translate: the paper's metric too
        disabled_text_if_fits(say(app, Msg(UiStr::tv_accuracy_now_bleu, 100 * last->token_accuracy, 100 * last->exact_accuracy, last->bleu)));
    else if (last)
        disabled_text_if_fits(say(app, Msg(UiStr::tv_accuracy_now, 100 * last->token_accuracy, 100 * last->exact_accuracy)));
    ImGui::ProgressBar(static_cast<float>(steps) / std::max(1, t.config().steps), ImVec2(-1, ImGui::GetTextLineHeight() * 0.5f), "");
    text_wrapped_disabled(say(app, weights_line(ts)).c_str());
    if (!ts.status.empty()) text_wrapped("%s", say(app, ts.status).c_str());
}

void draw_plots(LabApp& app, float height) {
    const TrainingSession& ts = app.training;
    const std::vector<float>& losses = training_losses(ts);
    std::vector<double> steps, loss, eval_steps, held_loss, token, exact, bleu;
    for (size_t i = 0; i < losses.size(); ++i) steps.push_back(static_cast<double>(i + 1)), loss.push_back(losses[i]);
    for (const EvalReport& e : ts.history) {
        eval_steps.push_back(e.step), held_loss.push_back(e.loss);
        token.push_back(e.token_accuracy), exact.push_back(e.exact_accuracy);
        if (e.bleu >= 0) bleu.push_back(e.bleu / 100);
    }
    // Side by side; on a phone one under the other (half a phone's width cuts the legend).
    const bool stacked = app.narrow.on && ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 44;
    const float w = stacked ? ImGui::GetContentRegionAvail().x : ImGui::GetContentRegionAvail().x * 0.5f - ImGui::GetStyle().ItemSpacing.x;
    const PlotSeries curves[] = {{tr(app, UiStr::tv_plot_train_loss), steps.data(), loss.data(), static_cast<int>(steps.size()), palette::kSeriesRed},
                                 {tr(app, UiStr::tv_plot_held_out_loss), eval_steps.data(), held_loss.data(),
                                  static_cast<int>(eval_steps.size()), palette::with_alpha(palette::kSeriesRed, 150), LineStyle::Dashed}};
    if (steps.empty() && eval_steps.empty()) {  // nothing to plot yet: say how to start, where the plots will be
        ImGui::BeginChild("train_plots_empty", ImVec2(0, height), true);
        text_wrapped_disabled(tr(app, UiStr::tv_plots_empty));
        ImGui::EndChild();
        return;
    }
    // Both plots span the whole run (0 … its steps): the curves grow into them.
    PlotAxes loss_axes{false, true};
    loss_axes.x_include_lo = 0, loss_axes.x_include_hi = std::max(ts.trainer->config().steps, training_steps(ts));
    LinePlot("train_loss", curves, 2, w, height, tr(app, UiStr::tv_axis_step), tr(app, UiStr::tv_axis_loss), loss_axes);
    lab_note_rect(app, "train:plot:loss");
    if (!stacked) ImGui::SameLine();
    const PlotSeries accuracy[] = {{tr(app, UiStr::tv_plot_token_acc), eval_steps.data(), token.data(), static_cast<int>(eval_steps.size()), palette::kSeriesBlue},
                                   {tr(app, UiStr::tv_plot_exact_acc), eval_steps.data(), exact.data(), static_cast<int>(eval_steps.size()), palette::kSeriesGreen},
                                   {tr(app, UiStr::tv_plot_bleu), eval_steps.data(), bleu.data(), static_cast<int>(bleu.size()), palette::kSeriesGrey, LineStyle::Dashed}};
    PlotAxes axes{false, false};
    axes.y_include_lo = 0, axes.y_include_hi = 1, axes.x_include_lo = 0, axes.x_include_hi = loss_axes.x_include_hi;
    const int series = bleu.size() == eval_steps.size() && !bleu.empty() ? 3 : 2;  // translate also draws BLEU
    LinePlot("train_accuracy", accuracy, series, w, height, tr(app, UiStr::tv_axis_step), tr(app, UiStr::tv_axis_accuracy), axes);
    lab_note_rect(app, "train:plot:accuracy");
}

// How a row shows its ids: as input tokens or as the generator's classes (tasks.h).
enum class RowOf { Tokens, Classes };

std::string token_text(const TaskSpec& spec, RowOf of, int32_t token) {
    return of == RowOf::Tokens ? task_token_text(spec, token) : task_class_text(spec, token);
}

// A row's width on one line: its caption and its tokens.
float token_row_width(const char* caption, const std::vector<int32_t>& tokens, const TaskSpec& spec, RowOf of) {
    float w = ImGui::CalcTextSize(caption).x;
    for (int32_t t : tokens) w += ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(token_text(spec, of, t).c_str()).x;
    return w;
}

// A row of tokens; with `against`, each one green when it equals that one, else red. Tokens
// that do not fit the line (a phone) go on the next one.
void token_row(const char* caption, const std::vector<int32_t>& tokens, const TaskSpec& spec, RowOf of,
               const std::vector<int32_t>* against) {
    ImGui::TextDisabled("%s", caption);
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string text = token_text(spec, of, tokens[i]);
        if (fits_on_line(ImGui::CalcTextSize(text.c_str()).x)) ImGui::SameLine();
        if (against) ImGui::PushStyleColor(ImGuiCol_Text, i < against->size() && (*against)[i] == tokens[i] ? palette::kGoodText : palette::kErrorText);
        ImGui::TextUnformatted(text.c_str());
        if (against) ImGui::PopStyleColor();
    }
}

// The next row beside the last one, a letter's width apart, when it fits there.
void beside_if_fits(float w) {
    if (fits_on_line(ImGui::GetFontSize() - ImGui::GetStyle().ItemSpacing.x + w)) ImGui::SameLine(0, ImGui::GetFontSize());
}

// What the model reads of a sample: the source, the prompt up to the first generated
// position, or (encoder-only) the whole sentence.
std::vector<int32_t> sample_input(const Sample& s, const TaskSpec& spec) {
    if (!s.src.empty() && spec.padded())  // translate: the source's words, not its padding
        return std::vector<int32_t>(s.src.begin(), std::find(s.src.begin(), s.src.end(), spec.bos()));
    if (!s.src.empty()) return s.src;
    if (spec.model() == ModelKind::EncoderOnly)
        return std::vector<int32_t>(s.dec_in.begin(), std::find(s.dec_in.begin(), s.dec_in.end(), spec.bos()));
    return std::vector<int32_t>(s.dec_in.begin(), s.dec_in.begin() + s.gen_begin + 1);
}

void draw_sample(LabApp& app, const TrainSampleView& v) {
    TrainingSession& ts = app.training;
    const TaskSpec& spec = ts.trainer->task();
    const int count = ts.trainer->held_out_count();
    ImGui::TextUnformatted(say(app, Msg(UiStr::tv_sample, ts.sample_index + 1, count)).c_str());
    ImGui::SameLine();
    if (ImGui::ArrowButton("train_sample_prev", ImGuiDir_Left)) ts.sample_index = (ts.sample_index + count - 1) % count;
    lab_note_rect(app, "train:sample:prev");
    ImGui::SameLine();
    if (ImGui::ArrowButton("train_sample_next", ImGuiDir_Right)) ts.sample_index = (ts.sample_index + 1) % count;
    lab_note_rect(app, "train:sample:next");
    const std::vector<int32_t> expected = v.data.expected();
    const char* input = tr(app, v.data.src.empty() && spec.model() == ModelKind::DecoderOnly ? UiStr::tv_sample_prompt : UiStr::tv_sample_input);
    beside_if_fits(token_row_width(input, sample_input(v.data, spec), spec, RowOf::Tokens));
    token_row(input, sample_input(v.data, spec), spec, RowOf::Tokens, nullptr);
    token_row(tr(app, UiStr::tv_sample_target), expected, spec, RowOf::Classes, nullptr);
    beside_if_fits(token_row_width(tr(app, UiStr::tv_sample_output), v.output, spec, RowOf::Classes));
    token_row(tr(app, UiStr::tv_sample_output), v.output, spec, RowOf::Classes, &expected);
    int right = 0;
    for (size_t i = 0; i < expected.size(); ++i) right += i < v.output.size() && v.output[i] == expected[i];
    const std::string score = say(app, Msg(UiStr::tv_sample_right, right, static_cast<int>(expected.size())));
    beside_if_fits(ImGui::CalcTextSize(score.c_str()).x);
    ImGui::TextDisabled("%s", score.c_str());
}

void draw_timeline(LabApp& app) {
    TrainingSession& ts = app.training;
    const int n = static_cast<int>(ts.snapshots.size());
    if (n == 0) return;
    int at = ts.timeline < 0 ? n : ts.timeline;
    const std::string shown = at == n ? say(app, Msg(UiStr::tv_timeline_live, ts.trainer->steps_done()))
                                      : say(app, Msg(UiStr::tv_timeline_step, ts.snapshots[static_cast<size_t>(at)].step));
    const std::string label = ui_label(app, UiStr::tv_timeline, "train:timeline");
    field_width(label);
    if (ImGui::SliderInt(label.c_str(), &at, 0, n, shown.c_str())) ts.timeline = at >= n ? -1 : at;
    lab_note_rect(app, "train:timeline");
    item_tooltip(app, tr(app, UiStr::tv_timeline_tip));
}

void draw_knockout_line(LabApp& app) {
    const TrainingSession& ts = app.training;
    int off = 0;
    for (uint8_t k : ts.head_keep) off += k == 0;
    if (off == 0) return text_wrapped_disabled((std::string(tr(app, UiStr::tv_knockout_hint)) + "  " + tr(app, UiStr::tv_maps_axes)).c_str());
    const double full = ts.history.empty() ? 0 : ts.history.back().exact_accuracy;
    ImGui::PushStyleColor(ImGuiCol_Text, palette::kNoteText);
    text_wrapped("%s", say(app, Msg(UiStr::tv_knockout_result, off, 100 * ts.knockout.exact_accuracy,
                                    100 * ts.knockout.token_accuracy, 100 * full)).c_str());
    ImGui::PopStyleColor();
}

// coref: every head's held-out weight from the pronoun on the referent against the other
// noun, and the head that resolves it (train/coref_probe.h).
void draw_coref_heads(LabApp& app) {
    const CorefScores& s = training_coref_scores(app);
    if (s.heads.empty()) return;
    const char* pronoun = app.training.trainer->task().lang == CorefLang::Zh ? "它" : "it";
    const CorefHeadScore* best = s.resolving >= 0 ? &s.heads[static_cast<size_t>(s.resolving)] : nullptr;
    const bool resolved = best && best->resolution() > 0.1;
    ImGui::PushStyleColor(ImGuiCol_Text, palette::kNoteText);
    if (resolved)
        text_wrapped("%s", say(app, Msg(UiStr::tv_coref_resolves, pronoun, best->layer + 1, best->head, pronoun, s.samples, pronoun)).c_str());
    else
        text_wrapped("%s", say(app, Msg(UiStr::tv_coref_unresolved, pronoun)).c_str());
    ImGui::PopStyleColor();
    lab_note_rect(app, "train:coref:where");
    for (const CorefHeadScore& h : s.heads)
        text_wrapped_disabled(say(app, Msg(UiStr::tv_coref_head, h.layer + 1, h.head, pronoun, h.referent, h.other, h.margin[0],
                                          h.margin[1], 100 * h.knockout_exact)).c_str());
}

std::vector<std::string> labels_of(const std::vector<int32_t>& tokens, const TaskSpec& spec) {
    std::vector<std::string> out;
    for (int32_t id : tokens) out.push_back(task_token_text(spec, id));
    return out;
}

// One head's map with its on/off button above it.
void draw_head_map(LabApp& app, const AttentionMap& m, int block, int head, float side) {
    TrainingSession& ts = app.training;
    const bool on = ts.head_keep.empty() || ts.head_keep[static_cast<size_t>(block) * m.heads + head];
    const std::string id = "train:head:" + std::to_string(block) + ":" + std::to_string(head);
    ImGui::BeginGroup();
    ImGui::PushStyleColor(ImGuiCol_Button, on ? ImGui::ColorConvertU32ToFloat4(head_color(head)) : palette::kHeadOff);
    ImGui::PushStyleColor(ImGuiCol_Text, on ? palette::kTextOnHead : palette::kTextOnHeadOff);
    const std::string text = say(app, Msg(on ? UiStr::tv_head_on : UiStr::tv_head_off, head)) + "###" + id;
    if (ImGui::SmallButton(text.c_str())) training_toggle_head(app, block, head);
    ImGui::PopStyleColor(2);
    lab_note_rect(app, id);
    item_tooltip(app, tr(app, UiStr::tv_head_tip));
    const TaskSpec& spec = ts.trainer->task();
    const std::vector<std::string> rows = labels_of(m.queries, spec), cols = labels_of(m.keys, spec);
    HeatmapOptions opt;
    opt.range = {ColorMap::Sequential, 0.0f, 1.0f};
    if (spec.kind == TaskKind::Coref) opt.highlight_row = ts.shown.data.gen_begin;  // the pronoun's row
    opt.row_labels = &rows, opt.col_labels = &cols;
    opt.gpu = &app.gpu;
    opt.gpu_key = id.c_str();
    opt.gpu_version = ts.shown.weights * 7919 + static_cast<unsigned>(ts.timeline + 1) * 31 + ts.sample_index;
    const float* w = m.weights.data() + static_cast<size_t>(head) * m.L_q * m.L_kv;
    const HeatmapHit hit = MatrixHeatmap(id.c_str(), w, m.L_q, m.L_kv, m.L_kv, opt, side, side);
    app.heatmaps.push_back(placement_of("train_map", {block, head}, m.L_q, m.L_kv, hit));
    ImGui::EndGroup();
}

// How the attention blocks are laid out: in `cols` columns of blocks (each block one
// row of heads), whichever number of columns makes the maps biggest. Maps never shrink
// below min_side: when the height does not allow it the maps scroll vertically, so only
// the width limits them then (ties go to more columns: less to scroll).
struct MapGrid {
    int cols = 1;
    float side = 0;
};

MapGrid map_grid(int blocks, int heads, ImVec2 avail, float caption, float spacing, float min_side) {
    MapGrid best;
    for (int cols = 1; cols <= std::max(1, blocks); ++cols) {
        const int rows = (blocks + cols - 1) / cols;
        // Per column: heads maps, spacing between them; 3 spacings between columns; a scrollbar.
        const float column = (avail.x - ImGui::GetStyle().ScrollbarSize - spacing * 3 * (cols - 1)) / cols;
        const float by_width = (column - spacing * (heads - 1)) / heads;
        const float by_height = avail.y / std::max(1, rows) - caption;
        const float side = std::min(by_width, std::max(by_height, min_side));
        if (side >= best.side) best = {cols, side};
    }
    best.side = std::max(best.side, min_side);  // narrower than that: scroll sideways
    return best;
}

void draw_maps(LabApp& app, const TrainSampleView& v) {
    const int blocks = static_cast<int>(v.maps.size()), heads = blocks ? v.maps[0].heads : 1;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float caption = ImGui::GetTextLineHeightWithSpacing() * 2 + style.ItemSpacing.y * 3 + style.FramePadding.y * 2;
    // Smaller maps would be unreadable: scroll instead.
    const float least = app.narrow.on ? 64.0f : 80.0f;  // a phone's four heads side by side
    const MapGrid grid = map_grid(blocks, heads, ImGui::GetContentRegionAvail(), caption, style.ItemSpacing.x, least * app.ui_scale);
    const float side = grid.side;
    ImGui::BeginChild("train_maps", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    for (int b = 0; b < blocks; ++b) {
        const AttentionMap& m = v.maps[static_cast<size_t>(b)];
        if (b % grid.cols) ImGui::SameLine(0, style.ItemSpacing.x * 3);
        ImGui::BeginGroup();
        ImGui::TextDisabled("%s", say(app, Msg(attention_kind_row(m.block.kind).title, m.block.layer + 1)).c_str());
        for (int h = 0; h < m.heads; ++h) {
            if (h) ImGui::SameLine();
            draw_head_map(app, m, b, h, side);
        }
        ImGui::EndGroup();
    }
    ImGui::EndChild();
}

}  // namespace

void draw_train_view(LabApp& app, const PanelRect& r) {
    begin_panel("##train_view", r, ImGuiWindowFlags_NoTitleBar);
    ImGui::TextUnformatted(tr(app, UiStr::tv_title));
    ImGui::SameLine();
    text_wrapped_disabled(tr(app, UiStr::tv_claim));
    if (app.training.trainer) {
        draw_progress(app);
        draw_plots(app, std::max(110.0f * app.ui_scale, r.h * 0.22f));
        draw_sample(app, training_sample_view(app));
        draw_timeline(app);
        draw_knockout_line(app);
        draw_coref_heads(app);
        draw_maps(app, training_sample_view(app));  // again: the timeline or a sample button may have moved
    }
    ImGui::End();
}

}  // namespace lab
