// train/head_scores.h — Attention Lab core: what a trained decoder-only model's heads do
// on the induction task (tasks.h: s, a gap of g BOS, s again), measured on held-out
// sequences with the model's own attention weights (Trainer::attention_map):
//   previous-token score  the mean weight a query puts on the position just before it
//                         (queries 1 ... dec_len - 1)
//   induction score       for a query in the repeat holding s[k] (k + 1 < L), the mean
//                         weight on position k + 1 of the first copy: the token that came
//                         after the earlier occurrence, i.e. what comes next
// Both are averages over queries, heads' own, and sequences; 1 is a head doing only that.
// The two-layer mechanism: a previous-token head in layer 1 writes "the token before me"
// into each position; an induction head in layer 2 matches it against the current token.
#pragma once
#include <vector>

#include "train/trainer.h"

namespace lab {

struct HeadScore {
    int block = 0, layer = 0, head = 0;
    double previous_token = 0;
    double induction = 0;
};

// One entry per block and head (layer-major); empty for an encoder–decoder model.
// `samples` held-out sequences (at most the held-out set).
std::vector<HeadScore> induction_head_scores(Trainer& t, int samples);

}  // namespace lab
