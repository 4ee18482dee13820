// stepper_state.cpp — Attention Lab app: the stepper's part of window.lab.state():
// which weights, which attention of the model, the walk (with the block's stages among
// `stages`, like the ten), and the backward view's numbers and checks.
#include "app/state/lab_app.h"
#include "app/state/stepper_model.h"
#include "interop/model_json.h"

namespace lab {

namespace {

StepperStageText current_text(const LabApp& app) {
    return stepper_stage_text(app, stepper_places(app)[static_cast<size_t>(stepper_place_index(app))]);
}

// coref: the tokens field's sentence as the model read it (stepper_model.h).
Json typed_json(const LabApp& app) {
    const StepperModel& st = app.stepper;
    const CorefReading& r = st.typed;
    const CorefVocab& v = coref_vocab(app.training.trainer->task().lang);
    Json nouns = Json::array(), heads = Json::array();
    for (const CorefNoun& n : r.text.nouns) nouns.push_back(v.nouns[static_cast<size_t>(n.cls)]);
    for (const CorefHeadRow& h : r.heads) {
        Json row = Json::array(), on = Json::array();
        for (float w : h.row) row.push_back(json_number(w));
        for (double w : h.on_noun) on.push_back(json_number(w));
        heads.push_back({{"layer", h.layer}, {"head", h.head}, {"row", row}, {"on_noun", on}});
    }
    return {{"text", st.typed_text}, {"tokens", r.text.tokens}, {"unknown", r.text.unknown},
            {"answer", r.answer < 0 ? Json(nullptr) : Json(v.nouns[static_cast<size_t>(r.answer)])},
            {"probability", json_number(r.probability)}, {"query", r.text.query}, {"nouns", nouns}, {"heads", heads},
            {"note", say(app, st.typed_note)}};
}

Json stepper_json(const LabApp& app) {
    const StepperModel& st = app.stepper;
    Json places = Json::array();
    for (const StepperPlace& p : stepper_places(app)) places.push_back(stepper_stage_text(app, p).key);
    Json s = {{"weights", stepper_weights_key(app)}, {"weights_label", say(app, stepper_weights_label(app))},
              {"model_open", stepper_has_model(app)}, {"model", st.sel.model}, {"shown_model", st.shown},
              {"layer", st.sel.layer}, {"sublayer", attention_kind_key(st.sel.sublayer)}, {"backward", st.sel.backward},
              {"places", places}, {"place", stepper_place_index(app)}};
    // What the explain panel says of the place shown: its formula and PyTorch line.
    const StepperStageText text = current_text(app);
    s["formula"] = tr(app, text.formula);
    s["pytorch"] = text.pytorch;
    if (!st.shown) return s;
    const Trainer& t = *app.training.trainer;
    Json blocks = Json::array();
    for (const AttentionBlockInfo& b : t.layout().blocks)
        blocks.push_back({{"name", b.name}, {"layer", b.layer}, {"sublayer", attention_kind_key(b.kind)}});
    s["task"] = task_name(t.task().kind);
    s["steps"] = app.training.source == WeightsSource::Shipped ? t.config().steps : t.steps_done();
    s["block"] = st.model.block.name;
    s["blocks"] = blocks;
    s["sample"] = st.sample;
    s["query_tokens"] = st.model.query_tokens;
    s["key_tokens"] = st.model.key_tokens;
    s["loss"] = json_number(st.model.engine_loss);
    if (t.task().kind == TaskKind::Coref) s["coref"] = typed_json(app);
    return s;
}

Json backward_state(const LabApp& app) {
    const GradTrace* g = stepper_grads(app);
    if (!g) return nullptr;
    Json out = backward_json(*g, app.text_lang);
    const StepperStageText text = current_text(app);
    Json pairs = Json::array();
    for (const StageShow& p : text.backward->pairs)
        if (app.trace.find(p.tensor) && (!p.cross_only || app.trace.config.cross))
            pairs.push_back({{"tensor", tensor_name(p.tensor)}, {"grad", g->grads.find(p.tensor) ? g->grads[p.tensor].name : ""}});
    out["stage"] = {{"formula", tr(app, text.backward->formula)}, {"pairs", pairs},
                    {"grad_checks", checks_json(*text.grad_checks, app.text_lang)}};
    return out;
}

}  // namespace

// The block's stages join `stages` (index 10 … 13) and `stage` names the place shown.
void write_stepper_state(const LabApp& app, Json& s) {
    s["stepper"] = stepper_json(app);
    s["backward"] = backward_state(app);
    if (!app.stepper.shown) return;
    for (const Json& b : block_stages_json(app.stepper.model, app.text_lang)) s["stages"].push_back(b);
    const int block = app.stepper.sel.block_stage;
    if (block >= 0 && app.experiments.open < 0)
        s["stage"] = {{"id", block_stage_infos()[static_cast<size_t>(block)].key}, {"index", kStageCount + block},
                      {"title", tr(app, block_stage_infos()[static_cast<size_t>(block)].title)}};
}

}  // namespace lab
