// train/coref_probe.h — Attention Lab core: where a trained `coref` model resolves the
// pronoun, measured with its own attention weights (train/coref.h):
//   per head      the weight the pronoun's row puts on the referent's tokens (summed) and on
//                 the other noun's, averaged over held-out sentences, and the held-out exact
//                 accuracy with that head knocked out (its context zeroed, Trainer::evaluate);
//   resolving     the head whose row from the pronoun picks the referent both when it is the
//                 animal and when it is the object: the largest of min(margin | animal referent,
//                 margin | object referent), margin = weight on the referent − on the other noun.
//                 (A head that only looks at the animal unless the predicate draws it away has a
//                 positive mean margin but none when the object is meant.) Its knockout says how
//                 much the answer needs it; other heads may carry the answer too.
// In the first layer the query at the pronoun is the pronoun's embedding and position only, so
// the ratio of its weights on two keys cannot depend on the predicate that follows: a head that
// moves from 小猫 to 球 when 玩得很开心 becomes 滚得很远 is in a later layer.
#pragma once
#include <string>
#include <vector>

#include "base/message.h"
#include "train/coref.h"
#include "train/trainer.h"

namespace lab {

// One head's row of the query (the pronoun or `from`) over the sentence's tokens.
struct CorefHeadRow {
    int block = 0, layer = 0, head = 0;
    std::vector<float> row;    // (tokens) as print(attn[0, h][query]) would show
    std::vector<double> on_noun;  // summed weight on each noun of CorefText::nouns
};

// A sentence typed in, read by the trained model.
struct CorefReading {
    CorefText text;
    int answer = -1;          // the noun class the model gives at the query
    double probability = 0;   // its softmax probability
    std::vector<CorefHeadRow> heads;  // every attention's heads, layer by layer
};

// False (the reason in *problem, naming the unknown tokens or what is missing) when the
// trainer's task is not coref, the sentence has a token outside the vocabulary, is longer than
// the model reads, or has no query token. Nothing aborts.
bool coref_read(Trainer& t, const std::string& text, const std::string& from, CorefReading* out, Msg* problem);

// The sample the stepper traces for a sentence coref_read read: its tokens, classified at the
// query as the model's own answer (so the backward view's loss is that answer's).
Sample coref_sample(const Trainer& t, const CorefReading& r);

struct CorefHeadScore {
    int block = 0, layer = 0, head = 0;
    double referent = 0, other = 0;  // mean summed weight from the pronoun
    double margin[2] = {0, 0};       // mean referent − other when the referent is the animal, the object
    double knockout_exact = 0;       // held-out exact accuracy without this head
    double resolution() const { return margin[0] < margin[1] ? margin[0] : margin[1]; }
};

struct CorefScores {
    int samples = 0;
    double exact = 0;        // held-out exact accuracy, every head on
    std::vector<CorefHeadScore> heads;
    int resolving = -1;      // index into heads
};

// On the first `samples` held-out sentences (at most the held-out set); empty unless coref.
CorefScores coref_head_scores(Trainer& t, int samples);

}  // namespace lab
