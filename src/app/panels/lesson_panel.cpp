// lesson_panel.cpp — Attention Lab app: the lesson list in the top bar, the lesson card in
// the right column, the step's marks over the heatmaps and the cells a learner clicks.
// The questions, answers and feedback are the core's (teach/lessons/lessons.h); the card asks
// before it shows anything, grades what was given, and keeps what was answered right.
#include "app/panels/lesson_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "app/data/url_state.h"
#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_wrap.h"

namespace lab {

namespace {

const char* const kProgressKey = "attnlab.lessons";
constexpr int kLessonModelSamples = 16;  // held-out samples for a model's mean attention patterns

const Lesson* current(const LabApp& app) { return app.lesson.lesson >= 0 ? &lessons()[app.lesson.lesson] : nullptr; }

int done_count(const std::string& d) { return static_cast<int>(std::count(d.begin(), d.end(), '1')); }

void ensure_progress(LabApp& app) {
    LessonState& ls = app.lesson;
    if (!ls.progress_loaded) {
        ls.progress_loaded = true;
        ls.done = parse_progress(app.host.load_text ? app.host.load_text(kProgressKey) : std::string());
    }
}

void save_progress(LabApp& app) {
    if (app.host.save_text) app.host.save_text(kProgressKey, progress_text(app.lesson.done));
}

// What a step on a shipped checkpoint cannot be asked yet: the checkpoint is on its way, or
// the stepper does not show that task's model. An empty message: ready.
Msg model_not_ready(const LabApp& app, const LessonStep& step) {
    const TrainingSession& ts = app.training;
    if (!step.task) return Msg();
    if (!ts.fetching.empty()) return Msg(UiStr::lv_model_loading, ts.fetching);
    const bool task_shown = app.stepper.shown && ts.trainer && std::string(task_name(ts.trainer->task().kind)) == step.task;
    // Questions about what training did need trained weights, not a fresh model of the task.
    if (!task_shown || (step.ask_model && ts.source == WeightsSource::Random)) return Msg(UiStr::lv_model_needed, step.task);
    return Msg();
}

const LessonModel& measured_model(LabApp& app) {
    LessonState& ls = app.lesson;
    Trainer* t = app.training.trainer.get();
    if (ls.model_of != t || ls.model_version != app.training.version) {
        ls.model = measure_lesson_model(*t, kLessonModelSamples);
        ls.model_of = t, ls.model_version = app.training.version;
    }
    ls.model.typed = app.stepper.typed;  // coref: the tokens field's sentence as the stepper read it
    return ls.model;
}

// The question of the current step, asked again whenever the trace or the model changed.
void ensure_question(LabApp& app) {
    LessonState& ls = app.lesson;
    if (!current(app) || (ls.asked_for == app.generation && ls.asked_version == app.training.version)) return;
    const LessonStep& step = current(app)->steps[ls.step];
    const Msg why = model_not_ready(app, step);
    if (!why.empty()) {
        ls.question = LessonQuestion();
        ls.question.kind = step.ask_model ? QuestionKind::PickOption : QuestionKind::Shape;
        ls.question.ready = false, ls.question.not_ready = why;
    } else {
        ls.question = step.ask_model ? step.ask_model(measured_model(app), app.trace) : step.ask(app.trace);
    }
    ls.asked_for = app.generation, ls.asked_version = app.training.version;
}

void reset_step(LessonState& ls) {
    ls.asked_for = ls.asked_version = ~0ull;
    ls.answered = ls.correct = ls.hint_shown = false;
    ls.attempts = 0;
    ls.feedback = Msg();
    ls.input[0] = '\0';
    ls.cells.clear();
}

// ---- marks and cells over the heatmaps -----------------------------------------------------

// Where the slice (tensor, item, head) is drawn this frame, or null.
const HeatmapPlacement* placement(const LabApp& app, TensorId id, int b, int head) {
    const Tensor* t = app.trace.find(id);
    if (!t) return nullptr;
    std::vector<int> prefix;
    if (t->shape.size() >= 3) prefix.push_back(b);
    if (t->shape.size() == 4) prefix.push_back(head);
    for (const HeatmapPlacement& p : app.heatmaps)
        if (p.tensor == t->name && p.prefix == prefix) return &p;
    return nullptr;
}

void outline(ImDrawList* dl, const HeatmapPlacement& p, int r0, int r1, int c0, int c1, ImU32 col, float thick) {
    r0 = std::max(0, r0), c0 = std::max(0, c0), r1 = std::min(r1, p.rows - 1), c1 = std::min(c1, p.cols - 1);
    if (r0 > r1 || c0 > c1) return;
    dl->AddRect(ImVec2(p.x + c0 * p.cell_w, p.y + r0 * p.cell_h), ImVec2(p.x + (c1 + 1) * p.cell_w, p.y + (r1 + 1) * p.cell_h),
                col, 0.0f, 0, thick);
}

void draw_marks(LabApp& app) {
    const LessonQuestion& q = app.lesson.question;
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const float thick = std::max(2.0f, app.ui_scale * 2.0f);
    for (const LessonMark& m : q.marks)
        if (const HeatmapPlacement* p = placement(app, m.tensor, m.batch_item, m.head))
            outline(dl, *p, m.row0, m.row1, m.col0, m.col1, palette::kLessonTarget, thick);
    if (q.kind != QuestionKind::Cells) return;
    const HeatmapPlacement* p = placement(app, q.target.tensor, q.target.batch_item, q.target.head);
    if (!p) return;
    for (int cell : app.lesson.cells) {
        const int r = cell / p->cols, c = cell % p->cols;
        const ImVec2 a(p->x + c * p->cell_w, p->y + r * p->cell_h), b(a.x + p->cell_w, a.y + p->cell_h);
        dl->AddRectFilled(a, b, palette::kWrongShade);
        dl->AddLine(ImVec2(a.x + 3, a.y + 3), ImVec2(b.x - 3, b.y - 3), palette::kWrongCross, thick);
        dl->AddLine(ImVec2(b.x - 3, a.y + 3), ImVec2(a.x + 3, b.y - 3), palette::kWrongCross, thick);
    }
}

// A click on the target slice marks or unmarks a cell (until the answer is right).
void take_cell_click(LabApp& app) {
    LessonState& ls = app.lesson;
    const LessonQuestion& q = ls.question;
    if (q.kind != QuestionKind::Cells || !q.ready || ls.correct || !ImGui::IsMouseClicked(0)) return;
    if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
    const HeatmapPlacement* p = placement(app, q.target.tensor, q.target.batch_item, q.target.head);
    if (!p || p->cell_w <= 0 || p->cell_h <= 0) return;
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int c = static_cast<int>(std::floor((m.x - p->x) / p->cell_w)), r = static_cast<int>(std::floor((m.y - p->y) / p->cell_h));
    if (r < 0 || c < 0 || r >= p->rows || c >= p->cols) return;
    const int cell = r * p->cols + c;
    const auto at = std::find(ls.cells.begin(), ls.cells.end(), cell);
    if (at == ls.cells.end()) ls.cells.push_back(cell);
    else ls.cells.erase(at);
}

// ---- the card ---------------------------------------------------------------------------------

void colored_text(const ImVec4& color, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    text_wrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

bool button(LabApp& app, UiStr label, const char* id, bool enabled = true) {
    if (!enabled) ImGui::BeginDisabled();
    const bool clicked = ImGui::Button(ui_label(app, label, id).c_str());
    if (!enabled) ImGui::EndDisabled();
    lab_note_rect(app, id);
    return clicked && enabled;
}

// The answer widgets of the question's kind.
void draw_answer_widgets(LabApp& app) {
    LessonState& ls = app.lesson;
    const LessonQuestion& q = ls.question;
    LessonResponse response;
    bool submit = false;
    if (q.kind == QuestionKind::Shape || q.kind == QuestionKind::Estimate) {
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
        // A plain field (the buffer follows every keystroke); Enter leaves it and submits.
        ImGui::InputTextWithHint("##lesson_input", tr(app, UiStr::lv_type_here), ls.input, sizeof ls.input);
        submit = ImGui::IsItemDeactivated() && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter)) ||
                                                ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter)));
        lab_note_rect(app, "lesson:input");
        ImGui::SameLine();
        submit |= button(app, UiStr::lv_check, "lesson:answer");
        response.text = ls.input;
    } else if (q.kind == QuestionKind::Cells) {
        const char* name = tensor_name(q.target.tensor);
        if (placement(app, q.target.tensor, q.target.batch_item, q.target.head))
            text_wrapped_disabled(say(app, Msg(UiStr::lv_cells_marked, static_cast<int>(ls.cells.size()), name,
                                               q.target.batch_item, q.target.head)).c_str());
        else
            colored_text(palette::kWarnText, say(app, Msg(UiStr::lv_cells_elsewhere, name, q.target.batch_item, q.target.head)));
        submit = button(app, UiStr::lv_check, "lesson:answer");
        ImGui::SameLine();
        if (button(app, UiStr::lv_clear, "lesson:clear")) ls.cells.clear();
        response.cells = ls.cells;
    } else {
        for (size_t i = 0; i < q.options.size(); ++i) {
            const std::string id = "lesson:pick:" + std::to_string(i);
            if (i && ImGui::GetItemRectMax().x + ImGui::CalcTextSize(say(app, q.options[i]).c_str()).x + 40 < ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
                ImGui::SameLine();
            if (ImGui::Button((say(app, q.options[i]) + "###" + id).c_str())) response.pick = static_cast<int>(i), submit = true;
            lab_note_rect(app, id);
        }
    }
    if (submit && !ls.correct) lesson_answer(app, response);
}

void draw_feedback(LabApp& app) {
    LessonState& ls = app.lesson;
    if (ls.correct) {
        colored_text(palette::kGoodText, tr(app, UiStr::lv_right));
        text_wrapped("%s", say(app, ls.feedback).c_str());
        return;
    }
    if (ls.answered) {
        colored_text(palette::kErrorText, std::string(tr(app, UiStr::lv_not_yet)) + " " + say(app, ls.feedback) + " " +
                                                   tr(app, UiStr::lv_try_again));
        ImGui::TextDisabled("%s", say(app, Msg(UiStr::lv_attempts, ls.attempts)).c_str());
    }
    if (ls.hint_shown) colored_text(palette::kHintText, std::string(tr(app, UiStr::lv_hint_label)) + say(app, ls.question.hint));
    else if (button(app, UiStr::lv_hint, "lesson:hint")) ls.hint_shown = true;
}

void draw_navigation(LabApp& app) {
    LessonState& ls = app.lesson;
    const int steps = static_cast<int>(current(app)->steps.size());
    ImGui::Separator();
    if (button(app, UiStr::lv_prev, "lesson:prev", ls.step > 0)) lesson_start(app, ls.lesson, ls.step - 1);
    ImGui::SameLine();
    const bool last = ls.step + 1 >= steps;
    if (button(app, last ? UiStr::lv_finish : UiStr::lv_next, "lesson:next")) {
        if (last) lesson_leave(app);
        else lesson_start(app, ls.lesson, ls.step + 1);
        return;
    }
    ImGui::SameLine();
    if (button(app, UiStr::lv_setup_again, "lesson:setup")) lesson_setup_again(app);
}

void draw_card(LabApp& app) {
    LessonState& ls = app.lesson;
    const Lesson& lesson = *current(app);
    const int steps = static_cast<int>(lesson.steps.size());
    ImGui::TextDisabled("%s", say(app, Msg(UiStr::lv_step_of, ls.lesson + 1, ls.step + 1, steps)).c_str());
    text_wrapped("%s", tr(app, lesson.title));
    const std::string& done = ls.done[ls.lesson];
    ImGui::TextDisabled("%s", say(app, Msg(UiStr::lv_progress, done_count(done), steps)).c_str());
    note_header(app, ImGui::GetWindowPos().y);
    ImGui::Separator();
    text_wrapped("%s", tr(app, lesson.steps[ls.step].intro));
    ImGui::Spacing();
    ImGui::TextDisabled("%s", tr(app, UiStr::lv_question));
    const LessonQuestion& q = ls.question;
    if (!q.ready) {
        colored_text(palette::kWarnText, say(app, q.not_ready));
    } else {
        text_wrapped("%s", say(app, q.prompt).c_str());
        draw_answer_widgets(app);
        draw_feedback(app);
    }
    if (!current(app)) return;  // the answer widgets may have left the lesson
    draw_navigation(app);
    if (!current(app)) return;
    // Below everything an answer moves, so a right answer does not shift the buttons.
    if (done_count(ls.done[ls.lesson]) == steps) colored_text(palette::kGoodText, tr(app, UiStr::lv_done_all));
    text_wrapped_disabled(tr(app, UiStr::lv_knobs_free));
}

}  // namespace

// ---- progress -------------------------------------------------------------------------------

std::string progress_text(const std::vector<std::string>& done) {
    std::string out;
    for (size_t i = 0; i < lessons().size() && i < done.size(); ++i)
        if (done_count(done[i])) out += std::string(out.empty() ? "" : ";") + lessons()[i].key + "=" + done[i];
    return out;
}

std::vector<std::string> parse_progress(const std::string& text) {
    std::vector<std::string> done;
    for (const Lesson& l : lessons()) done.push_back(std::string(l.steps.size(), '0'));
    size_t at = 0;
    while (at <= text.size()) {
        const size_t end = std::min(text.find(';', at), text.size());
        const std::string item = text.substr(at, end - at);
        const size_t eq = item.find('=');
        for (size_t i = 0; eq != std::string::npos && i < lessons().size(); ++i) {
            const std::string bits = item.substr(eq + 1);
            if (item.compare(0, eq, lessons()[i].key) == 0 && bits.size() == done[i].size() &&
                bits.find_first_not_of("01") == std::string::npos)
                done[i] = bits;
        }
        at = end + 1;
    }
    return done;
}

// ---- state changes ----------------------------------------------------------------------------

namespace {

// Opens web/checkpoints/<task> in the session (the stepper shows it) unless it is open.
void open_shipped_model(LabApp& app, const char* task) {
    TrainingSession& ts = app.training;
    if (ts.fetching == task) return;
    if (ts.fetching.empty() && ts.trainer && ts.source == WeightsSource::Shipped && task_name(ts.trainer->task().kind) == std::string(task))
        return;
    training_set_config(app, decode_url_state(std::string("train=") + task).state.train_config);
    training_open_shipped(app);
}

}  // namespace

void lesson_start(LabApp& app, int lesson, int step) {
    ensure_progress(app);
    LessonState& ls = app.lesson;
    ls.lesson = std::max(0, std::min(lesson, static_cast<int>(lessons().size()) - 1));
    ls.step = std::max(0, std::min(step, static_cast<int>(lessons()[ls.lesson].steps.size()) - 1));
    reset_step(ls);
    lesson_setup_again(app);
}

void lesson_setup_again(LabApp& app) {
    const Lesson* l = current(app);
    if (!l) return;
    const LessonStep& step = l->steps[app.lesson.step];
    const UrlDecode d = decode_url_state(step.setup);
    lab_show_url_state(app, d.state);
    if (step.tokens != Str::Count_) lab_set_token_text(app, say(app, Msg(step.tokens)));
    if (step.task) open_shipped_model(app, step.task);
    app.lesson.asked_for = ~0ull;
}

void lesson_leave(LabApp& app) {
    app.lesson.lesson = -1;
    reset_step(app.lesson);
}

void lesson_answer(LabApp& app, const LessonResponse& response) {
    LessonState& ls = app.lesson;
    ensure_question(app);
    const LessonGrade g = grade_answer(ls.question, response);
    if (!g.understood) {
        ls.feedback = g.problem;
        ls.answered = true, ls.correct = false;
        return;
    }
    ++ls.attempts;
    ls.answered = true;
    ls.correct = g.correct;
    if (!g.correct) {
        ls.feedback = g.verdict;
        ls.hint_shown = true;  // a wrong answer gets the hint and another try
        return;
    }
    ls.feedback = ls.question.explain;
    ensure_progress(app);
    ls.done[ls.lesson][ls.step] = '1';
    save_progress(app);
}

// ---- drawing ----------------------------------------------------------------------------------

std::string shape_on_screen(const LabApp& app, const Tensor& t) {
    const LessonState& ls = app.lesson;
    if (current(app) && !ls.correct && ls.question.kind == QuestionKind::Shape && ls.question.ready) return "(?)";
    if (!app.trace.config.raw) return shape_named(t);
    std::vector<int> shape = t.shape;  // raw SDPA: the tutorial's (B, L_q, L_kv), without the head axis of 1
    std::vector<std::string> dims = t.dims;
    drop_head_axis(&shape, &dims);
    return shape_named(shape, dims);
}

void draw_lesson_menu(LabApp& app) {
    ensure_progress(app);
    const bool clicked = ImGui::SmallButton(ui_label(app, UiStr::lv_menu_button, "lessons_button").c_str());
    lab_note_rect(app, "menu:lessons");
    if (clicked || app.lesson.open_menu) ImGui::OpenPopup("lessons");
    app.lesson.open_menu = false;
    if (!ImGui::BeginPopup("lessons")) return;
    // Titles in one column, each lesson's progress in a second one right of the longest.
    std::vector<std::string> titles;
    float title_w = 0;
    for (size_t i = 0; i < lessons().size(); ++i) {
        titles.push_back(say(app, Msg(UiStr::lv_menu_entry, static_cast<int>(i + 1), lessons()[i].title)));
        title_w = std::max(title_w, ImGui::CalcTextSize(titles.back().c_str()).x);
    }
    const float gap = ImGui::GetFontSize() * 1.5f, progress_w = ImGui::CalcTextSize("00/00").x;
    for (size_t i = 0; i < lessons().size(); ++i) {
        const std::string id = "lesson:" + std::to_string(i + 1);
        const bool shown = app.lesson.lesson == static_cast<int>(i);
        if (ImGui::Selectable((titles[i] + "###" + id).c_str(), shown, 0, ImVec2(title_w + gap + progress_w, 0)))
            lesson_start(app, static_cast<int>(i), 0);
        lab_note_rect(app, id);
        ImGui::SameLine(ImGui::GetStyle().WindowPadding.x + title_w + gap);
        const int steps = static_cast<int>(lessons()[i].steps.size());
        ImGui::TextDisabled("%s", say(app, Msg(UiStr::lv_menu_progress, done_count(app.lesson.done[i]), steps)).c_str());
    }
    ImGui::Separator();
    if (ImGui::Selectable(ui_label(app, UiStr::lv_menu_leave, "lesson_none").c_str(), false)) lesson_leave(app);
    lab_note_rect(app, "lesson:none");
    ImGui::EndPopup();
}

void draw_lesson_panel(LabApp& app, const PanelRect& r) {
    ensure_progress(app);
    ensure_question(app);
    take_cell_click(app);
    begin_panel("Lesson", r, ImGuiWindowFlags_NoTitleBar);
    ImGui::PushTextWrapPos(0.0f);
    draw_card(app);
    ImGui::PopTextWrapPos();
    ImGui::End();
    if (current(app)) draw_marks(app);
}

// ---- state() ------------------------------------------------------------------------------------

namespace {

Json mark_json(const LessonMark& m) {
    return {{"tensor", tensor_name(m.tensor)}, {"batch_item", m.batch_item}, {"head", m.head},
            {"rows", {m.row0, m.row1}}, {"cols", {m.col0, m.col1}}};
}

Json answer_json(const LessonQuestion& q) {
    switch (q.kind) {
        case QuestionKind::Shape: return q.shape;
        case QuestionKind::Estimate: return {{"value", json_number(q.value)}, {"tolerance", json_number(q.tolerance)}};
        case QuestionKind::Cells: {
            Json cells = Json::array();
            const int cols = q.target.col1 + 1;
            for (int c : q.cells) cells.push_back({c / cols, c % cols});
            return cells;
        }
        default: return q.pick;
    }
}

Json step_task(const Lesson& l, int step) {
    const char* task = l.steps[static_cast<size_t>(step)].task;
    return task ? Json(task) : Json(nullptr);
}

Json question_json(const LabApp& app, const LessonQuestion& q) {
    Json out = {{"kind", question_kind_name(q.kind)}, {"ready", q.ready}, {"prompt", say(app, q.prompt)},
                {"not_ready", say(app, q.not_ready)}, {"hint", say(app, q.hint)}, {"answer", answer_json(q)}};
    Json options = Json::array(), marks = Json::array(), numbers = Json::array();
    for (const Msg& m : q.options) options.push_back(say(app, m));
    for (const LessonMark& m : q.marks) marks.push_back(mark_json(m));
    for (const LessonNumber& n : q.numbers) numbers.push_back({{"name", n.name}, {"value", json_number(n.value)}, {"decimals", n.decimals}});
    out["options"] = options, out["option_rows"] = q.option_rows, out["marks"] = marks, out["numbers"] = numbers;
    out["target"] = q.kind == QuestionKind::Cells ? mark_json(q.target) : Json(nullptr);
    return out;
}

}  // namespace

Json lesson_state(const LabApp& app) {
    const LessonState& ls = app.lesson;
    const Lesson* l = current(app);
    if (!l) return nullptr;
    Json cells = Json::array();
    const int cols = ls.question.target.col1 + 1;
    for (int c : ls.cells) cells.push_back({c / cols, c % cols});
    return {{"id", ls.lesson + 1}, {"key", l->key}, {"step", ls.step + 1}, {"steps", l->steps.size()},
            {"title", tr(app, l->title)}, {"intro", tr(app, l->steps[ls.step].intro)},
            {"question", question_json(app, ls.question)}, {"answered", ls.answered}, {"correct", ls.correct},
            {"attempts", ls.attempts}, {"hint_shown", ls.hint_shown}, {"feedback", say(app, ls.feedback)},
            {"input", ls.input}, {"cells", cells}, {"asked_for_generation", ls.asked_for == app.generation},
            {"task", step_task(*l, ls.step)}};
}

Json lessons_progress_state(const LabApp& app) {
    Json out = Json::array();
    for (size_t i = 0; i < lessons().size(); ++i)
        out.push_back({{"id", i + 1}, {"key", lessons()[i].key}, {"title", tr(app, lessons()[i].title)},
                       {"steps", lessons()[i].steps.size()},
                       {"done", i < app.lesson.done.size() ? app.lesson.done[i] : std::string()}});
    return out;
}

}  // namespace lab
