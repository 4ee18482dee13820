// experiments.h (app) — Attention Lab app: the experiment registry. One entry per
// experiment: its key, title and claim, how much memory its results take, and its panel
// (what it computes from the configuration, how it draws, what state() reports). The
// numbers come from teach/experiments/experiments.h; experiments_view.cpp holds the panels and the
// registry.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/data/ui_text.h"
#include "attention/config.h"
#include "attention/config_keys.h"
#include "interop/json_export.h"

namespace lab {

struct LabApp;

// One experiment's results and options, drawn in place of the stage stepper.
class ExperimentPanel {
public:
    virtual ~ExperimentPanel() = default;
    // The results for this configuration (and the panel's own options).
    virtual void compute(const AttentionConfig& c) = 0;
    virtual void draw(LabApp& app) = 0;
    // The plotted series for state().experiment (texts in `lang`).
    virtual void write_state(Json& out, Lang lang) const = 0;
    // Still working across frames (an experiment that trains models in slices of the
    // frame loop): the page keeps drawing while it is shown.
    virtual bool busy() const { return false; }

    bool stale = true;                                // an option changed: compute again
    unsigned long long computed_for = ~0ull;          // app.generation of the results
    double compute_ms = 0;
    Msg too_large;                                    // set instead of results when they would not fit in memory
    // The panel's own options, as rows of a key table (attention/config_keys.h) over the struct
    // `option_values` points to: links carry them ("scaling.keys=10"), state() reports them
    // as experiment.options. Null: the panel has none.
    const std::vector<ConfigKey>* option_rows = nullptr;
    void* option_values = nullptr;
};

struct ExperimentEntry {
    const char* key;      // URL "exp=" value, layout ids "exp:<key>"
    UiStr title;
    UiStr claim;          // what the paper says, one or two sentences
    double traces_kept;   // traces of the current size the results hold (memory budget); 0: independent of it
    std::unique_ptr<ExperimentPanel> (*make)();
};
const std::vector<ExperimentEntry>& experiments();
int experiment_index(const std::string& key);  // -1 when unknown

void draw_experiment_view(LabApp& app, float x, float y, float w, float h);
void draw_experiment_menu(LabApp& app);  // the "Experiments" button and its popup
Json experiment_state(const LabApp& app);  // state().experiment: null, or key, title and series
// The current experiment's options for the URL hash ("scaling.keys" -> "10"), and reading
// options from a hash into their experiments' panels (a note for what is wrong).
std::vector<std::pair<std::string, std::string>> experiment_option_pairs(const LabApp& app);
void apply_experiment_options(LabApp& app, const std::vector<std::pair<std::string, std::string>>& options,
                              std::vector<Msg>* notes);

}  // namespace lab
