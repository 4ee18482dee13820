// test_train_head_scores.cpp — previous-token and induction scores (train/head_scores.h)
// against hand-built attention and on trained models: two decoder-only layers learn the
// induction task with an induction head; one layer does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>

#include "train/head_scores.h"

using namespace lab;

namespace {

TrainConfig induction(int layers) {
    TrainConfig c;
    c.task = TaskKind::Induction;
    c.layers = layers, c.length = 6, c.gap = 4, c.steps = 400, c.eval_size = 128, c.eval_every = 400;
    return c;
}

double best(const std::vector<HeadScore>& s, int layer, double HeadScore::*score) {
    double b = 0;
    for (const HeadScore& h : s)
        if (h.layer == layer) b = std::max(b, h.*score);
    return b;
}

}  // namespace

TEST_CASE("head scores: an untrained model's heads spread their weight; an encoder-decoder model has none") {
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(t.init(induction(2), &errors));
    const std::vector<HeadScore> s = induction_head_scores(t, 16);
    REQUIRE(s.size() == 2 * 4);
    for (const HeadScore& h : s) {
        CHECK(h.previous_token < 0.35);  // causal rows of 1 ... 14 keys: about 1/8 on average
        CHECK(h.induction < 0.2);
    }
    TrainConfig rev;
    rev.task = TaskKind::Reverse;
    Trainer r;
    REQUIRE(r.init(rev, &errors));
    CHECK(induction_head_scores(r, 4).empty());
}

TEST_CASE("head scores: two layers learn induction with an induction head, one layer cannot") {
    std::vector<HeadScore> scores[2];
    double token_acc[2];
    for (int layers : {1, 2}) {
        Trainer t;
        std::vector<ConfigError> errors;
        REQUIRE(t.init(induction(layers), &errors));
        while (!t.finished()) t.step(50);
        scores[layers - 1] = induction_head_scores(t, 64);
        token_acc[layers - 1] = t.evals().back().token_accuracy;
        for (const HeadScore& h : scores[layers - 1])
            MESSAGE(layers << " layer(s): layer " << h.layer << " head " << h.head << " previous " << h.previous_token
                           << " induction " << h.induction);
    }
    CHECK(token_acc[1] > 0.9);
    CHECK(token_acc[0] < 0.6);
    CHECK(best(scores[1], 1, &HeadScore::induction) > 0.5);   // the second layer copies what followed
    CHECK(best(scores[0], 0, &HeadScore::induction) < best(scores[1], 1, &HeadScore::induction) / 2);
}
