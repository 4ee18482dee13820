// train_experiments.h — Attention Lab app: the experiments that train models, made for
// the experiment registry (experiments_view.cpp): train_heads (h = 1 ... 16 at one
// d_model), train_scaling (÷√d_k on and off at d_k >= 64), train_pe (reverse and sort
// with and without positional encoding), train_induction (1 vs 2 decoder-only layers,
// previous-token and induction heads), table3 (the paper's Table 3 in
// miniature on translate: rows × seeds). Each trains in slices of the frame loop while it
// is shown and keeps its results per configuration of its options.
#pragma once
#include <memory>

#include "app/state/experiments.h"

namespace lab {

std::unique_ptr<ExperimentPanel> make_heads_training();
std::unique_ptr<ExperimentPanel> make_scaling_training();
std::unique_ptr<ExperimentPanel> make_pe_training();
std::unique_ptr<ExperimentPanel> make_induction_training();
std::unique_ptr<ExperimentPanel> make_table3_training();  // Table 3 in miniature (train/table3.h)

}  // namespace lab
