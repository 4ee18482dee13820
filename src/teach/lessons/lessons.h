// lessons.h — Attention Lab core: guided lessons. A lesson is a short path of steps; each
// step sets the lab up, says what to look at, and asks a question BEFORE the answer is
// shown. The answer is computed from the live trace (whatever the learner has done to
// the knobs since), never stored: a step is a function from a trace to a question.
//
//   const Lesson& l = lessons()[0];                 // one row per lesson (lesson_steps.cpp)
//   apply setup: decode_url_state(l.steps[0].setup)  // config (the key table), tokens, stage, head
//   LessonQuestion q = l.steps[0].ask(trace);        // prompt, hint, answer, feedback with the numbers
//   LessonGrade g = grade_answer(q, response);       // typed text, clicked cells or a pick
//
// The core returns messages (entries of the string table plus numbers) and data; the
// app draws them in the interface's language.
#pragma once
#include <string>
#include <vector>

#include "base/message.h"
#include "trace/trace.h"

namespace lab {

enum class QuestionKind {
    Shape,     // type a shape: "(2, 8, 10, 10)"
    Cells,     // click the cells of a heatmap slice (e.g. what the mask will remove)
    PickRow,   // pick one of two rows of a heatmap (the sharper softmax row)
    Estimate,  // type a number, right within a tolerance (a max weight, d_k)
    PickHead,  // pick a head (the sharpest, the one whose knockout hurts most)
    PickOption // pick one of a few named outcomes (NaN / uniform / zeros)
};
const char* question_kind_name(QuestionKind k);  // "shape", "cells", ... (state(), tests)

// Cells of one matrix slice (tensor[b, head] or tensor[b]) the step points at.
struct LessonMark {
    TensorId tensor = TensorId::Weights;
    int batch_item = 0, head = 0;
    int row0 = 0, row1 = 0, col0 = 0, col1 = 0;  // inclusive ranges
};

// A number the feedback quotes, and how it is printed there (the tests look for it).
struct LessonNumber {
    const char* name;
    double value;
    int decimals;  // printed with "%.<decimals>f"
};

struct LessonQuestion {
    QuestionKind kind = QuestionKind::Shape;
    bool ready = true;         // false: the trace cannot ask it (e.g. the mask was turned off)
    Msg not_ready;             // why, and what to do
    Msg prompt;                // the question, with the live configuration's numbers
    Msg hint;                  // after a wrong answer (or on request)
    Msg explain;               // after the right answer: why, with the live numbers
    std::vector<LessonMark> marks;  // where to look (outlined on screen)

    // The answer, by kind.
    std::vector<int> shape;        // Shape
    LessonMark target;             // Cells: the slice clicked on (rows = row1 + 1, cols = col1 + 1)
    std::vector<int> cells;        // Cells: row * cols + col, ascending
    double value = 0, tolerance = 0;  // Estimate: right when |typed - value| <= tolerance
    int pick = -1;                 // PickRow, PickHead, PickOption: index into options
    std::vector<Msg> options;      // PickRow, PickHead, PickOption: what each choice says
    std::vector<int> option_rows;  // PickRow: the row each option names
    std::vector<LessonNumber> numbers;  // what `explain` quotes
};

struct LessonModel;  // lesson_model.h: a trained model's heads, measured

struct LessonStep {
    const char* setup;  // a URL-hash fragment: the configuration (key table), tokens, stage, head, item
    Str intro;          // two or three sentences: what to look at
    LessonQuestion (*ask)(const Trace& trace);  // null when ask_model asks
    // The shipped checkpoint (web/checkpoints/<task>) the step shows in the stepper, or
    // null: the knobs' random weights. Its setup then names the stepper's place
    // (model=1&layer&sublayer&stage) and the trace is the model's.
    const char* task = nullptr;
    // Asked of the model's measurements (held-out losses, mean patterns) and the trace.
    LessonQuestion (*ask_model)(const LessonModel& model, const Trace& trace) = nullptr;
    // The sentence the step puts in the tokens field, in the interface's language (none: Count_).
    Str tokens = Str::Count_;
};

struct Lesson {
    const char* key;  // "one_head"
    Str title;
    std::vector<LessonStep> steps;
};

const std::vector<Lesson>& lessons();

// What the learner gave.
struct LessonResponse {
    std::string text;        // Shape, Estimate
    std::vector<int> cells;  // Cells: row * cols + col, any order
    int pick = -1;           // PickRow, PickHead, PickOption
};

struct LessonGrade {
    bool understood = false;  // the response could be read (a shape, a number, a pick in range)
    bool correct = false;
    Msg problem;              // not understood: what is wrong with it
    Msg verdict;              // understood but wrong: what was given against what (no answer revealed)
};

LessonGrade grade_answer(const LessonQuestion& q, const LessonResponse& r);

// "(2, 8, 10, 10)", "[2,8,10,10]", "torch.Size([2, 8, 10, 10])", "2 8 10 10", "2x8x10x10".
bool parse_shape(const std::string& text, std::vector<int>* shape);
bool parse_number(const std::string& text, double* value);
std::string shape_text(const std::vector<int>& shape);  // "(2, 8, 10, 10)"

}  // namespace lab
