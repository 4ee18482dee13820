// train_view.h — Attention Lab app: the Train view. A toy Transformer (core/train)
// learns a task in slices of the frame loop while the view shows its loss and held-out
// accuracy, a held-out sample with the model's greedy output, every head's attention
// map (scrubbable back through snapshots), head knockout, a shipped checkpoint opened
// at once, and the trained model as a checkpoint download and a PyTorch script.
//
// train_session.cpp holds the operations below (no drawing), train_view.cpp the
// drawing, train_experiments.cpp the experiments that train models. The state is
// LabApp::training (training_session.h).
//
// Layout ids (state().layout): menu:train, train:start, train:pause, train:step,
// train:reset, train:open_trained, train:task:<task>, train:knob:<key>,
// train:head:<block>:<head> (a map: click to knock the head out), train:timeline,
// train:sample:prev|next, export:train_checkpoint, export:train_script.
#pragma once
#include <string>
#include <vector>

#include "app/panels/panels.h"
#include "app/state/training_session.h"
#include "interop/archive.h"
#include "interop/json_export.h"

namespace lab {

struct LabApp;

// Operations (train_session.cpp) ------------------------------------------------------
// The knobs' defaults (the task's, as `attnlab train` has them) and a fresh model.
void training_init(LabApp& app);
void training_open_view(LabApp& app);
// A new configuration from the knobs or a link: validated; a valid one replaces the
// model by a fresh one (the run stops).
void training_set_config(LabApp& app, const TrainConfig& config);
void training_start(LabApp& app);   // a finished, shipped or stale model starts over first
void training_pause(LabApp& app);
void training_step(LabApp& app);    // one optimisation step, then a held-out evaluation
void training_reset(LabApp& app);   // a fresh model of the knobs' configuration, untrained
// Asks the host for web/checkpoints/<task of the knobs>; lab_checkpoint_arrived opens it.
void training_open_shipped(LabApp& app);
// The Train view on coref in the page's language with its shipped model opening (the pointer
// from the Single sentence preset's untrained-weights note).
void training_open_coref(LabApp& app);
void training_toggle_head(LabApp& app, int block, int head);
// Each frame: a slice of training while running, as long as the frame rate allows
// (training_slice_ms).
void training_advance(LabApp& app);
bool training_busy(const LabApp& app);  // training, or a checkpoint on its way: frames wanted
// The steps of the weights shown (a shipped checkpoint's run, or this page's), and
// their training loss at every step.
int training_steps(const TrainingSession& ts);
const std::vector<float>& training_losses(const TrainingSession& ts);
// The sample view of the weights shown (the snapshot on the timeline, or the model).
const TrainSampleView& training_sample_view(LabApp& app);
// coref: the heads' held-out reading of the pronoun for the model as it is now (measured
// again when the weights changed and training is not running; empty for other tasks).
const CorefScores& training_coref_scores(LabApp& app);
// Exports of the model shown: a tar of manifest.json, init/, final/, loss.npy, lr.npy;
// a PyTorch script that loads it into nn.Transformer{Encoder,Decoder}Layer stacks and
// checks the sample's logits.
std::string training_archive_name(const LabApp& app);
std::string training_archive(LabApp& app);
std::string training_script_name(const LabApp& app);
std::string training_script(LabApp& app);
// state().training.
Json training_state(const LabApp& app);

// Drawing (train_view.cpp) -------------------------------------------------------------
void draw_train_button(LabApp& app);  // the top bar's entry
void draw_train_knobs(LabApp& app, const PanelRect& r);
void draw_train_view(LabApp& app, const PanelRect& r);

// The page trains in slices of at most kTrainSliceMs per frame, fewer when the rest of
// a frame (drawing, the browser's compositing) takes long: a frame every
// 1 / kTrainMinFps seconds at least, so input is answered within about that.
constexpr double kTrainSliceMs = 30.0;
constexpr double kTrainMinFps = 12.0;
constexpr double kTrainMinSliceMs = 4.0;
// The slice for this frame, given how long the time between slices has been (ms).
double training_slice_ms(double between_slices_ms);

}  // namespace lab
