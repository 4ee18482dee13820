// training_session.h — Attention Lab app: the model the page trains or opens, one
// per page. The Train view owns the run (start, pause, step, reset, open a shipped
// checkpoint, knock heads out); the stepper and the backward view read the same model
// to step through its trained layers. Everything else that shows trained weights
// reads it from here, so "which weights am I looking at" has one answer.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/train/trainer.h"

namespace lab {

// Where the weights on screen come from.
enum class WeightsSource {
    Random,   // Xavier-initialised, untrained (the stepper's default)
    Shipped,  // a checkpoint of web/checkpoints, opened with train:open_trained
    Trained,  // trained here, in this page, for trainer->steps_done() steps
};

struct TrainingSession {
    std::unique_ptr<Trainer> trainer;  // null until a run starts or a checkpoint opens
    WeightsSource source = WeightsSource::Random;
    bool running = false;              // the frame loop trains a slice every frame
    int sample_index = 0;              // the held-out sample shown (views and stepper)
    std::vector<uint8_t> head_keep;    // blocks × heads, 0 = knocked out; empty = all on
};

}  // namespace lab
