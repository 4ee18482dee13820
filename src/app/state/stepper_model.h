// stepper_model.h — Attention Lab app: what the stepper shows besides the knobs' random
// attention. With a model open (LabApp::training), the ten stages run on its weights for
// one attention of it (a layer and a sublayer: encoder self, decoder masked self,
// encoder–decoder cross) on the session's held-out sample, the block gains its four
// stages (model_trace/block_stages.h), and the backward view shows every stage's tensors beside
// their gradients (model_trace/backward_trace.h) — for random weights too, with a probe loss.
//
// The order the stepper walks: the ten stages alone for random weights; with a model,
// embed, the ten stages, add & norm, FFN, generator.
#pragma once
#include <string>
#include <vector>

#include "app/data/ui_text.h"
#include "app/state/training_session.h"
#include "base/message.h"
#include "model_trace/block_trace.h"

namespace lab {

struct LabApp;

// What the URL hash and state() keep of the stepper's choice.
struct StepperSelection {
    bool model = false;                         // show the session's model (when one is open)
    int layer = 0;
    AttentionKind sublayer = AttentionKind::Cross;  // falls back to the layer's first attention
    int block_stage = -1;                       // -1: the attention stage LabApp::stage; else a BlockStageId
    bool backward = false;                      // the backward view
};

struct StepperModel {
    StepperSelection sel;
    bool shown = false;                  // app.trace is the model's (sel.model and a model is open)
    ModelTrace model;                    // valid while shown
    GradTrace probe;                     // the random weights' backward view (probe loss), for probe_for
    unsigned long long probe_for = ~0ull;   // app.generation the probe belongs to
    // What the shown model was traced from: a change retraces it.
    unsigned long long model_id = 0;     // TrainingSession::model (an address is no identity: reused)
    int steps = -1, block = -1, sample = -1;
    unsigned long long generation = ~0ull;
    WeightsSource source = WeightsSource::Random;
    // coref: the sentence of the tokens field as the model read it (its answer and every head's
    // row from the pronoun), or why it could not (unknown tokens named); the trace follows it.
    std::string typed_text;
    CorefReading typed;
    Msg typed_note;
};

// One place of the stepper's walk: an attention stage or a block stage.
struct StepperPlace {
    int attention = -1;  // index into stage_infos(), or -1
    int block = -1;      // BlockStageId, or -1
};

// Before each frame's panels: traces the model when the selection or the weights changed,
// goes back to the knobs' random trace when the model is no longer wanted or open, and
// computes the backward view's numbers when it is open.
void stepper_refresh(LabApp& app);
bool stepper_has_model(const LabApp& app);  // a model is open in the session

std::vector<StepperPlace> stepper_places(const LabApp& app);
int stepper_place_index(const LabApp& app);       // the current place in stepper_places()
void stepper_go(LabApp& app, const StepperPlace& place);
void stepper_move(LabApp& app, int delta);        // clamped at both ends
void stepper_go_end(LabApp& app, bool last);

// What the stage view and the explain panel say about the current place.
struct StepperStageText {
    const char* key;
    Str title, formula, why, chip;
    const char* pytorch;
    const std::vector<StageShow>* shows;
    const std::vector<ShapeStep>* steps;
    const std::vector<InvariantCheck>* checks;
    const std::vector<InvariantCheck>* grad_checks;  // null outside the backward view
    const BackwardInfo* backward;                    // the place's backward formula and pairs
};
StepperStageText stepper_stage_text(const LabApp& app, const StepperPlace& place);
const GradTrace* stepper_grads(const LabApp& app);  // the backward view's numbers, or null

// "weights: shipped checkpoint 'reverse' (300 steps)" and its key: random | shipped | trained.
Msg stepper_weights_label(const LabApp& app);
const char* stepper_weights_key(const LabApp& app);
// The same of the session's model, shown or not (a model must be open).
Msg session_weights_label(const LabApp& app);
const char* session_weights_key(const LabApp& app);

// "L = 0.00103 ..." (short: the stage view's line) with NaN printed as the lab prints it.
Msg stepper_loss_text(const GradTrace& g, bool short_form);

// Axis labels of a model trace's dims: the task's symbols at L_q, L_kv, L, L_dec, V, vocab.
bool model_axis_labels(const LabApp& app, const std::string& dim, int n, std::vector<std::string>* out);

// The hover derivation of a shown cell (grad: of its gradient).
Msg stepper_derive(const LabApp& app, TensorId id, const std::vector<int>& index, bool grad);

// The selection to and from the URL hash's view keys (app/data/url_state.h).
struct ViewSelection;
void stepper_to_view(const StepperModel& st, ViewSelection* view);
void stepper_from_view(const ViewSelection& view, StepperModel* st);

// The line above the heatmaps: which weights, the model's layer and sublayer, the backward view.
void draw_stepper_header(LabApp& app);

}  // namespace lab
