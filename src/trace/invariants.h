// invariants.h — Attention Lab core: checks computed from a trace's live numbers
// (rows sum to 1, masked weights are exactly 0, h·d_v = d_model, ...).
#pragma once

namespace lab {

struct Trace;

// Fills trace.stages[*].checks and trace.fully_masked_rows from the recorded tensors.
void check_invariants(Trace& trace);

}  // namespace lab
