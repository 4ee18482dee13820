// experiments.h (app) — Attention Lab app: the experiment panels' list, their
// cached results, and the view that draws them in place of the stage stepper.
#pragma once
#include <string>
#include <vector>

#include "core/experiments.h"

namespace lab {

struct LabApp;

struct ExperimentInfo {
    const char* key;    // URL "exp=" value
    const char* title;
    const char* claim;  // what the paper says, one or two sentences
};
const std::vector<ExperimentInfo>& experiment_infos();
int experiment_index(const std::string& key);  // -1 when unknown

// Results, recomputed when the configuration (generation) or an option changes.
struct ExperimentResults {
    unsigned long long generation = ~0ull;
    int computed_for = -1;
    int scaling_samples = 4000;
    int scaling_seed = 1;
    std::vector<ScalingPoint> scaling;
    std::vector<HeadsPoint> heads;
    int knockout_h = 0;  // index into heads
    MaskComparison masks;
    int pe_length = 64, pe_train_length = 32;
    PeExperiment pe;
    int mistake = 0;     // index into all_mistakes()
    std::vector<MistakeResult> mistakes;
    std::vector<AttentionKind> encdec;
    double compute_ms = 0;
    std::string too_large;  // set instead of results when the configuration would not fit in memory
};

void draw_experiment_view(LabApp& app, float x, float y, float w, float h);
void draw_experiment_menu(LabApp& app);  // the "Experiments" button and its popup
void write_experiment_state(const LabApp& app, class JsonWriter& w);  // state().experiment

}  // namespace lab
