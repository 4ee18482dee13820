// page_mirror.cpp — Attention Lab app: the screen as text for the page, and the page's
// buttons (page_mirror.h).
#include "app/page_mirror.h"

#include <algorithm>

#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "app/state/stepper_model.h"
#include "explain/derivation.h"
#include "interop/json_export.h"
#include "teach/lessons/lessons.h"

namespace lab {

namespace {

// A check as the explain panel's badge says it, with the verdict in words (the badge's
// colour is all a pass gets on screen).
Json check_json(const LabApp& app, const InvariantCheck& ch) {
    static const UiStr prefix[] = {UiStr::pm_check_passes, UiStr::ui_explain_fails, UiStr::ui_explain_nan};  // in Verdict's order
    const std::string said = ch.is_check() ? std::string(tr(app, prefix[static_cast<int>(ch.verdict)])) : "";  // a fact: listed apart
    return {{"text", said + say(app, ch.label)},
            {"detail", say(app, ch.detail)}, {"verdict", verdict_name(ch.verdict)}, {"pass", ch.passed()}};
}

// The checks and the facts apart, as the explain panel lists them.
void write_checks(const LabApp& app, const std::vector<InvariantCheck>& all, Json& checks, Json& facts) {
    checks = Json::array(), facts = Json::array();
    for (const InvariantCheck& ch : all) (ch.is_check() ? checks : facts).push_back(check_json(app, ch));
}

Json labels_json(const LabApp& app, int at, int places) {
    const bool zh = app.text_lang == Lang::Zh;
    return {{"region", tr(app, UiStr::pm_region)}, {"nav", tr(app, UiStr::pm_nav)}, {"keys", tr(app, UiStr::pm_keys)},
            {"prev", tr(app, UiStr::pm_prev)}, {"next", tr(app, UiStr::pm_next)}, {"stages", tr(app, UiStr::pm_stages)},
            {"language", lang_endonym(zh ? Lang::En : Lang::Zh)}, {"language_lang", zh ? "en" : "zh-CN"},
            {"place", say(app, Msg(UiStr::pm_place, at + 1, places))}, {"paper", tr(app, UiStr::ui_explain_paper)},
            {"pytorch", tr(app, UiStr::ui_explain_pytorch)}, {"shapes", tr(app, UiStr::ui_explain_shapes)},
            {"why", tr(app, UiStr::ui_explain_why)}, {"checks", tr(app, UiStr::ui_explain_checks)},
            {"no_checks", tr(app, UiStr::ui_explain_no_checks)}, {"facts", tr(app, UiStr::ui_explain_facts)},
            {"hovered", tr(app, UiStr::ui_explain_hovered)}, {"backward", tr(app, UiStr::stp_explain_backward)},
            {"grad_checks", tr(app, UiStr::stp_explain_grad_checks)}, {"question", tr(app, UiStr::lv_question)},
            {"lesson", tr(app, UiStr::lv_menu_button)}};
}

// The backward view's part of the explain panel: its formula, why, the loss, the gradient checks.
Json backward_json(const LabApp& app, const StepperStageText& text) {
    const GradTrace* g = stepper_grads(app);
    if (!g) return nullptr;
    Json checks, facts;
    write_checks(app, *text.grad_checks, checks, facts);
    return {{"formula", tr(app, text.backward->formula)}, {"why", tr(app, text.backward->why)},
            {"loss", say(app, stepper_loss_text(*g, false))}, {"checks", checks}};
}

// "scores[0, 1, 2, 3] = 0.412" and its derivation, as the tooltip and the explain panel say them.
Json hover_json(const LabApp& app) {
    const HoverCell& h = app.hover;
    if (h.tensor.empty()) return nullptr;
    std::string cell = h.tensor + "[";
    for (size_t i = 0; i < h.index.size(); ++i) cell += (i ? ", " : "") + std::to_string(h.index[i]);
    return {{"cell", cell + "] = " + format_value(h.value)}, {"text", say(app, h.text)}};
}

// The lesson card: where in the lesson, its title, what to look at, the question and the
// verdict of the last answer (the card's words; never the answer itself).
Json lesson_json(const LabApp& app) {
    const LessonState& ls = app.lesson;
    if (ls.lesson < 0) return nullptr;
    const Lesson& l = lessons()[static_cast<size_t>(ls.lesson)];
    const LessonQuestion& q = ls.question;
    std::string feedback;
    if (ls.correct) feedback = std::string(tr(app, UiStr::lv_right)) + " " + say(app, ls.feedback);
    else if (ls.answered) feedback = std::string(tr(app, UiStr::lv_not_yet)) + " " + say(app, ls.feedback) + " " + tr(app, UiStr::lv_try_again);
    if (ls.hint_shown) feedback += (feedback.empty() ? "" : " ") + std::string(tr(app, UiStr::lv_hint_label)) + say(app, q.hint);
    Json options = Json::array();
    for (const Msg& m : q.options) options.push_back(say(app, m));
    return {{"step", say(app, Msg(UiStr::lv_step_of, ls.lesson + 1, ls.step + 1, static_cast<int>(l.steps.size())))},
            {"title", tr(app, l.title)}, {"intro", tr(app, l.steps[static_cast<size_t>(ls.step)].intro)},
            {"question", q.ready ? say(app, q.prompt) : say(app, q.not_ready)}, {"options", options}, {"feedback", feedback}};
}

// What a screen reader says when it changes: the place and the checks' tally; the lesson's verdict.
std::string status_text(const LabApp& app, const Json& m, int at, int places, const std::string& title) {
    if (m["view"] != "stepper") return m["view_title"];
    const Json& checks = m["checks"];
    const long passed = std::count_if(checks.begin(), checks.end(), [](const Json& c) { return c["pass"] == true; });
    std::string out = checks.empty() ? say(app, Msg(UiStr::pm_status, at + 1, places, title))
                                     : say(app, Msg(UiStr::pm_status_checks, at + 1, places, title, passed, static_cast<int>(checks.size())));
    if (!m["lesson"].is_null() && !m["lesson"]["feedback"].get<std::string>().empty())
        out += " " + m["lesson"]["feedback"].get<std::string>();
    return out;
}

}  // namespace

std::string page_mirror_json(const LabApp& app) {
    const std::vector<StepperPlace> places = stepper_places(app);
    const int at = stepper_place_index(app), n = static_cast<int>(places.size());
    const StepperStageText text = stepper_stage_text(app, places[static_cast<size_t>(at)]);
    Json m = Json::object();
    m["lang"] = app.text_lang == Lang::Zh ? "zh-CN" : "en";
    m["labels"] = labels_json(app, at, n);
    m["place"] = at;
    Json stages = Json::array();
    for (const StepperPlace& p : places) stages.push_back(tr(app, stepper_stage_text(app, p).title));
    m["stages"] = stages;
    const bool train = app.training.view_open && app.experiments.open < 0;
    m["view"] = app.experiments.open >= 0 ? "experiment" : train ? "train" : "stepper";
    m["view_title"] = app.experiments.open >= 0 ? experiment_state(app)["title"].get<std::string>() : train ? tr(app, UiStr::tv_title) : "";
    m["title"] = tr(app, text.title);
    m["formula"] = tr(app, text.formula);
    // The explain panel's part; a lesson's card takes its place (and its shapes would answer a shape question).
    const bool explain = app.lesson.lesson < 0;
    m["explain"] = explain;
    m["pytorch"] = explain ? text.pytorch : "";
    Json shapes = Json::array();
    if (explain)
        for (const ShapeStep& st : *text.steps) shapes.push_back(say(app, st.op) + "  " + shape_named(st.shape, st.dims));
    m["shapes"] = shapes;
    m["why"] = explain ? tr(app, text.why) : "";
    Json checks = Json::array(), facts = Json::array();
    if (explain) write_checks(app, *text.checks, checks, facts);
    m["checks"] = checks;
    m["facts"] = facts;
    m["backward"] = explain ? backward_json(app, text) : Json(nullptr);
    m["hover"] = hover_json(app);
    m["lesson"] = lesson_json(app);
    m["status"] = status_text(app, m, at, n, m["title"]);
    return json_text(m);
}

void page_mirror_apply_actions(LabApp& app) {
    std::vector<PageAction> actions;
    actions.swap(app.page_actions);
    for (const PageAction& a : actions) {
        if (a.kind == PageAction::Step) {
            stepper_move(app, a.value < 0 ? -1 : 1);
        } else if (a.kind == PageAction::GoToPlace) {
            const std::vector<StepperPlace> places = stepper_places(app);
            if (a.value >= 0 && a.value < static_cast<int>(places.size())) stepper_go(app, places[static_cast<size_t>(a.value)]);
        } else if (a.value == static_cast<int>(Lang::En) || a.value == static_cast<int>(Lang::Zh)) {
            lab_set_language(app, static_cast<Lang>(a.value));
        }
    }
}

}  // namespace lab
