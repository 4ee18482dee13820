// lessons.cpp — Attention Lab core: reading and grading a learner's answer. The lessons
// themselves (one row each, every step's question) are in lesson_steps.cpp.
#include "teach/lessons/lessons.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace lab {

const char* question_kind_name(QuestionKind k) {
    switch (k) {
        case QuestionKind::Shape: return "shape";
        case QuestionKind::Cells: return "cells";
        case QuestionKind::PickRow: return "pick_row";
        case QuestionKind::Estimate: return "estimate";
        case QuestionKind::PickHead: return "pick_head";
        case QuestionKind::PickOption: return "pick_option";
    }
    return "shape";
}

std::string shape_text(const std::vector<int>& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + ")";
}

// Whole numbers separated by anything that is not a digit or a letter ('x' as in 2x8 is a
// separator); "torch.Size" and brackets are noise. A sign or a decimal point makes it no shape.
bool parse_shape(const std::string& text, std::vector<int>* shape) {
    std::string t = text;
    const std::string torch = "torch.Size";
    if (const size_t at = t.find(torch); at != std::string::npos) t.erase(at, torch.size());
    shape->clear();
    long long v = -1;
    for (size_t i = 0; i <= t.size(); ++i) {
        const char c = i < t.size() ? t[i] : ' ';
        if (std::isdigit(static_cast<unsigned char>(c))) {
            v = (v < 0 ? 0 : v) * 10 + (c - '0');
            if (v > 1 << 24) return false;
            continue;
        }
        const bool times = c == 'x' || c == 'X';  // "2x8x10x10"
        if (c == '-' || c == '.' || c == '+' || (!times && std::isalpha(static_cast<unsigned char>(c)))) return false;
        if (v >= 0) shape->push_back(static_cast<int>(v));
        v = -1;
    }
    return !shape->empty();
}

bool parse_number(const std::string& text, double* value) {
    std::string t;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) t += c == ',' ? '.' : c;  // "0,9" as typed in some locales
    if (t.empty() || t.size() > 32) return false;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (!end || *end != '\0' || !std::isfinite(v)) return false;
    *value = v;
    return true;
}

namespace {

LessonGrade grade_shape(const LessonQuestion& q, const std::string& text) {
    LessonGrade g;
    std::vector<int> typed;
    if (!parse_shape(text, &typed)) {
        g.problem = Msg(Str::lesson_bad_shape, text.substr(0, 40));
        return g;
    }
    g.understood = true;
    g.correct = typed == q.shape;
    if (!g.correct && typed.size() != q.shape.size())
        g.verdict = Msg(Str::lesson_wrong_rank, shape_text(typed), static_cast<int>(typed.size()));
    else if (!g.correct)
        g.verdict = Msg(Str::lesson_wrong_shape, shape_text(typed));
    return g;
}

LessonGrade grade_number(const LessonQuestion& q, const std::string& text) {
    LessonGrade g;
    double typed = 0;
    if (!parse_number(text, &typed)) {
        g.problem = Msg(Str::lesson_bad_number, text.substr(0, 40));
        return g;
    }
    g.understood = true;
    g.correct = std::fabs(typed - q.value) <= q.tolerance + 1e-9;
    if (!g.correct) g.verdict = Msg(typed > q.value ? Str::lesson_too_high : Str::lesson_too_low, typed);
    return g;
}

LessonGrade grade_cells(const LessonQuestion& q, std::vector<int> cells) {
    LessonGrade g;
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    g.understood = true;
    g.correct = cells == q.cells;
    if (g.correct) return g;
    int extra = 0, missing = 0;
    for (int c : cells) extra += !std::binary_search(q.cells.begin(), q.cells.end(), c);
    for (int c : q.cells) missing += !std::binary_search(cells.begin(), cells.end(), c);
    g.verdict = Msg(Str::lesson_wrong_cells, static_cast<int>(cells.size()), extra, missing);
    return g;
}

}  // namespace

LessonGrade grade_answer(const LessonQuestion& q, const LessonResponse& r) {
    switch (q.kind) {
        case QuestionKind::Shape: return grade_shape(q, r.text);
        case QuestionKind::Estimate: return grade_number(q, r.text);
        case QuestionKind::Cells: return grade_cells(q, r.cells);
        case QuestionKind::PickRow:
        case QuestionKind::PickHead:
        case QuestionKind::PickOption: break;
    }
    LessonGrade g;
    g.understood = r.pick >= 0 && r.pick < static_cast<int>(q.options.size());
    if (!g.understood) {
        g.problem = Msg(Str::lesson_bad_pick, r.pick);
        return g;
    }
    g.correct = r.pick == q.pick;
    if (!g.correct) g.verdict = Msg(Str::lesson_wrong_pick, q.options[r.pick]);
    return g;
}

}  // namespace lab
