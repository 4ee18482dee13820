// training_session.h — Attention Lab app: the model the page trains or opens, one
// per page. The Train view owns the run (start, pause, step, reset, open a shipped
// checkpoint, knock heads out); the stepper and the backward view read the same model
// to step through its trained layers. Everything else that shows trained weights
// reads it from here, so "which weights am I looking at" has one answer.
//
// The Train view's operations and drawing are in train_view.h; this file is the data.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/message.h"
#include "interop/archive.h"
#include "train/coref_probe.h"
#include "train/trainer.h"

namespace lab {

// Where the weights on screen come from.
enum class WeightsSource {
    Random,   // Xavier-initialised, untrained (the stepper's default)
    Shipped,  // a checkpoint of web/checkpoints, opened with train:open_trained
    Trained,  // trained here, in this page, for trainer->steps_done() steps
};

// A copy of the parameters taken during training: the timeline scrubs through them.
struct TrainSnapshot {
    int step = 0;
    std::vector<float> params;
};

// What the Train view shows of the held-out sample, recomputed when the weights, the
// sample, the snapshot or the knocked-out heads change.
struct TrainSampleView {
    unsigned long long weights = ~0ull;  // TrainingSession::version it was computed for
    int sample = -1, timeline = -2;
    std::vector<uint8_t> keep;
    Sample data;
    std::vector<int32_t> output;         // greedy decoding, knocked-out heads off
    std::vector<AttentionMap> maps;      // one per attention block (layout().blocks), teacher-forced
};

struct TrainingSession {
    std::unique_ptr<Trainer> trainer;  // null until a run starts or a checkpoint opens
    WeightsSource source = WeightsSource::Random;
    bool running = false;              // the frame loop trains a slice every frame
    int sample_index = 0;              // the held-out sample shown (views and stepper)
    std::vector<uint8_t> head_keep;    // blocks × heads, 0 = knocked out; empty = all on

    // The Train view (train_view.h).
    bool view_open = false;                // shown instead of the stepper (top bar, #train=TASK)
    TrainConfig config;                    // the knobs, resolved; a valid change resets the model to it
    std::vector<ConfigError> errors;       // validate_train_config(config): in red, the model kept
    std::vector<float> init_params;        // before step 1 (the download's init/)
    std::vector<EvalReport> history;       // held-out evaluations of this model, oldest first
    std::vector<TrainSnapshot> snapshots;  // one per evaluation, thinned to a memory budget
    int timeline = -1;                     // the snapshot shown; -1: the model as it is now
    double train_seconds = 0;              // inside Trainer::step, evaluations excluded
    double elapsed_seconds = 0;            // wall time while running
    double steps_per_sec = 0;              // over the last second or so of training
    double rate_steps = 0, rate_seconds = 0;  // that window
    double last_tick = 0;                  // seconds (steady clock) of the last slice's end
    double between_ms = 0;                 // time between slices (drawing, the browser), smoothed
    EvalReport knockout;                   // held-out accuracy with head_keep; sequences 0: no head off
    int shipped_steps = 0;                 // Shipped: the steps of the run that made it,
    std::vector<float> shipped_losses;     // its loss at every step (the page shows its curve)
    std::vector<ArchiveFile> shipped_files;  // and its files as they came (the download keeps them)
    std::string fetching;                  // the task whose shipped checkpoint is on its way ("" = none)
    Msg status;                            // the last thing that happened (opened, could not open, stopped)
    unsigned long long version = 0;        // counts changes of the weights or the knocked-out heads
    unsigned long long model = 0;          // counts new models (a fresh run, an opened checkpoint): a view keyed
                                           // on it starts afresh; a Trainer's address is no identity (reused)
    TrainSampleView shown;
    CorefScores coref;                     // coref: every head's held-out reading of the pronoun (coref_probe.h),
    unsigned long long coref_for = ~0ull;  // for this version of the weights (not measured while training runs)
};

}  // namespace lab
