// lesson_model.h — Attention Lab core: what a trained model's heads do, measured on its
// held-out set, for the lessons about trained models (lesson 7: what trained heads do).
//
//   LessonModel m = measure_lesson_model(trainer, 16);   // knockout losses, diagonals, per head
//   LessonQuestion q = knockout_question(m);              // the head whose knockout hurts most
//
// A head's knockout zeroes its context before W^O (Trainer::evaluate with head_keep), the
// held-out loss says how much the model needed it. For encoder–decoder attention with
// L_q = L_kv the mean weight a query puts on key i (diagonal) and on key L-1-i (the
// anti-diagonal: the reverse task's pattern) tells what the head reads.
#pragma once
#include <vector>

#include "teach/lessons/lessons.h"
#include "train/coref_probe.h"
#include "train/trainer.h"

namespace lab {

struct LessonHead {
    int block = 0, layer = 0, head = 0;
    AttentionKind kind = AttentionKind::EncoderSelf;
    double knockout_loss = 0;  // held-out loss with this head alone knocked out
    double diagonal = 0;       // mean weight of query i on key i (L_q = L_kv), else 0
    double anti_diagonal = 0;  // mean weight of query i on key L_kv-1-i (L_q = L_kv), else 0
    double previous_token = 0; // decoder-only models: train/head_scores.h, else 0
    double induction = 0;
};

struct LessonModel {
    bool ready = false;
    double loss = 0;                 // held-out loss with every head
    int heads_per_block = 0;
    std::vector<LessonHead> heads;   // blocks × heads, block-major
    CorefScores coref;               // coref: every head's held-out reading of the pronoun
    CorefReading typed;              // coref: the tokens field's sentence as the model reads it (the app sets it)
};

// Measures every head of the trainer's model; `samples` held-out samples for the diagonals.
LessonModel measure_lesson_model(Trainer& t, int samples);

// The questions of lesson 7 asked of a measured model.
LessonQuestion cross_pattern_question(const LessonModel& m);  // diagonal / anti-diagonal / spread
LessonQuestion knockout_question(const LessonModel& m);       // the head whose knockout hurts most
LessonQuestion induction_head_question(const LessonModel& m); // the head with the largest induction score
// coref: which noun the resolving head's row from the pronoun weighs more in the typed sentence.
LessonQuestion coref_referent_question(const LessonModel& m);

}  // namespace lab
