// train/translate.cpp — Attention Lab core: the English → 中文 grammar (see translate.h).
#include "train/translate.h"

#include <algorithm>

#include "base/tokens.h"

namespace lab {

namespace {

// The grammar's words: each row an English phrase (words split by spaces) and its Chinese.
struct Subject {
    const char *en, *zh;
    bool third;  // third person singular ("buys", "does not"); also what a relative clause or an object can be
};
const Subject kSubjects[] = {{"i", "我", false},           {"you", "你", false},
                             {"the cat", "小猫", true},     {"the dog", "小狗", true},
                             {"the teacher", "老师", true}, {"the student", "学生", true}};
constexpr int kPersons = 2;  // subjects [0, 2) are pronouns: no relative clause, never an object
struct Verb {
    const char *base, *third, *past, *zh;
};
const Verb kVerbs[] = {{"buy", "buys", "bought", "买"},
                       {"wash", "washes", "washed", "洗"},
                       {"take", "takes", "took", "拿"},
                       {"draw", "draws", "drew", "画"}};
struct Noun {
    const char *en, *zh, *measure;  // measure: the noun's measure word (一个苹果, 一条鱼)
};
// (bird, not cat: 没有洗小猫 would be both "a small cat" and "the cat"; 汽车, not 车: 大车 is a cart)
const Noun kThings[] = {{"apple", "苹果", "个"}, {"fish", "鱼", "条"},  {"ball", "球", "个"},
                        {"book", "书", "本"},    {"bird", "鸟", "只"}, {"car", "汽车", "辆"}};
constexpr int kThingCount = 6;
struct Phrase {
    const char *en, *zh;
};
const Phrase kAdjectives[] = {{"", ""}, {"big", "大"}, {"small", "小"}, {"red", "红"}};
const Phrase kPlaces[] = {{"", ""}, {"at home", "在家"}, {"at school", "在学校"}, {"in the park", "在公园"}};
// Time phrases by tense (past, present): none, then two that fit it.
const Phrase kPastTimes[] = {{"", ""}, {"yesterday", "昨天"}, {"last night", "昨晚"}};
const Phrase kPresentTimes[] = {{"", ""}, {"every day", "每天"}, {"at night", "晚上"}};
enum Tense { Past, PastNegated, Present, PresentNegated };

// subject, tense, time, place, verb, object (6 things, then the 4 third-person subjects),
// adjective, relative clause (none, or verb × thing: "that took a book", 拿书的).
constexpr int kBounds[kTranslateDraws] = {6, 4, 3, 4, 4, kThingCount + 4, 4, 1 + 4 * kThingCount};
enum Draw { SubjectDraw, TenseDraw, TimeDraw, PlaceDraw, VerbDraw, ObjectDraw, AdjectiveDraw, RelativeDraw };

// English words split on spaces, Chinese per character (split_tokens makes each CJK character a token).
void append_words(std::vector<std::string>& out, const char* phrase) {
    for (const std::string& w : split_tokens(phrase).tokens) out.push_back(w);
}

bool person_object(const int32_t* d) { return d[ObjectDraw] >= kThingCount; }
const Subject& object_person(const int32_t* d) { return kSubjects[kPersons + d[ObjectDraw] - kThingCount]; }
bool past(const int32_t* d) { return d[TenseDraw] == Past || d[TenseDraw] == PastNegated; }
bool negated(const int32_t* d) { return d[TenseDraw] == PastNegated || d[TenseDraw] == PresentNegated; }
const Phrase& time_of(const int32_t* d) { return (past(d) ? kPastTimes : kPresentTimes)[d[TimeDraw]]; }

// "a" or "an" before [ADJ] NOUN.
const char* article(const char* adjective, const char* noun) {
    const char first = *adjective ? adjective[0] : noun[0];
    return first == 'a' || first == 'e' || first == 'i' || first == 'o' || first == 'u' ? "an" : "a";
}

// English: SUBJECT [that VERBED a THING] VERB-PHRASE OBJECT [PLACE] [TIME] .
std::vector<std::string> english_of(const int32_t* d) {
    const Subject& s = kSubjects[d[SubjectDraw]];
    const Verb& v = kVerbs[d[VerbDraw]];
    std::vector<std::string> w;
    append_words(w, s.en);
    if (d[RelativeDraw] > 0) {
        const int r = d[RelativeDraw] - 1;
        const Noun& thing = kThings[r % kThingCount];
        append_words(w, "that"), append_words(w, kVerbs[r / kThingCount].past);
        append_words(w, article("", thing.en)), append_words(w, thing.en);
    }
    switch (static_cast<Tense>(d[TenseDraw])) {
        case Past: append_words(w, v.past); break;
        case PastNegated: append_words(w, "did not"), append_words(w, v.base); break;
        case Present: append_words(w, s.third ? v.third : v.base); break;
        case PresentNegated: append_words(w, s.third ? "does not" : "do not"), append_words(w, v.base); break;
    }
    if (person_object(d)) {
        append_words(w, object_person(d).en);
    } else {
        const Noun& o = kThings[d[ObjectDraw]];
        const Phrase& adj = kAdjectives[d[AdjectiveDraw]];
        append_words(w, article(adj.en, o.en)), append_words(w, adj.en), append_words(w, o.en);
    }
    append_words(w, kPlaces[d[PlaceDraw]].en);
    append_words(w, time_of(d).en);
    w.push_back(".");
    return w;
}

// Chinese: [VERB THING 的] SUBJECT [TIME] [没有|不] [PLACE] VERB [了] OBJECT 。 where a thing
// object is [一 MEASURE] [ADJ] NOUN (a negated one drops 一 MEASURE: 没有买苹果).
std::vector<std::string> chinese_of(const int32_t* d) {
    std::vector<std::string> c;
    if (d[RelativeDraw] > 0) {  // the relative clause moves before its noun: 拿书的小狗
        const int r = d[RelativeDraw] - 1;
        append_words(c, kVerbs[r / kThingCount].zh), append_words(c, kThings[r % kThingCount].zh), append_words(c, "的");
    }
    append_words(c, kSubjects[d[SubjectDraw]].zh);
    append_words(c, time_of(d).zh);
    if (negated(d)) append_words(c, past(d) ? "没有" : "不");
    append_words(c, kPlaces[d[PlaceDraw]].zh);
    append_words(c, kVerbs[d[VerbDraw]].zh);
    if (d[TenseDraw] == Past) append_words(c, "了");
    if (person_object(d)) {
        append_words(c, object_person(d).zh);
    } else {
        const Noun& o = kThings[d[ObjectDraw]];
        if (!negated(d)) append_words(c, "一"), append_words(c, o.measure);
        append_words(c, kAdjectives[d[AdjectiveDraw]].zh);
        append_words(c, o.zh);
    }
    append_words(c, "。");
    return c;
}

// Every token once, in order of first appearance, and the longest sentences. Length depends on
// every draw but the verb and the place (one word and one length each), so those stay at their
// longest; each verb form and place is visited first for its words.
TranslateVocab make_vocab() {
    std::vector<std::string> en, zh;
    TranslateVocab v;
    auto visit = [&](const int32_t* d) {
        const TranslatePair p = translate_pair(d);
        for (const std::string& t : p.english)
            if (std::find(en.begin(), en.end(), t) == en.end()) en.push_back(t);
        for (const std::string& t : p.chinese)
            if (std::find(zh.begin(), zh.end(), t) == zh.end()) zh.push_back(t);
        v.src_len = std::max(v.src_len, static_cast<int>(p.english.size()));
        v.dec_len = std::max(v.dec_len, static_cast<int>(p.chinese.size()));
    };
    int32_t d[kTranslateDraws] = {};
    for (d[VerbDraw] = 0; d[VerbDraw] < kBounds[VerbDraw]; ++d[VerbDraw])  // every verb form, every place
        for (d[TenseDraw] = 0; d[TenseDraw] < kBounds[TenseDraw]; ++d[TenseDraw])
            for (d[SubjectDraw] = 0; d[SubjectDraw] <= kPersons; ++d[SubjectDraw])
                for (d[PlaceDraw] = 0; d[PlaceDraw] < kBounds[PlaceDraw]; ++d[PlaceDraw]) visit(d);
    d[VerbDraw] = 0, d[PlaceDraw] = 3;  // "in the park", 在公园: the longest place
    for (int i = 0, n = kBounds[0] * kBounds[1] * kBounds[2] * kBounds[5] * kBounds[6] * kBounds[7]; i < n; ++i) {
        int rest = i;
        for (int k : {SubjectDraw, TenseDraw, TimeDraw, ObjectDraw, AdjectiveDraw, RelativeDraw}) d[k] = rest % kBounds[k], rest /= kBounds[k];
        canonical_translate_draws(d);
        if (translate_draws_valid(d)) visit(d);
    }
    v.tokens = en;
    v.english = static_cast<int>(en.size());
    v.tokens.insert(v.tokens.end(), zh.begin(), zh.end());
    v.stop = v.id("。");
    return v;
}

}  // namespace

const int* translate_draw_bounds() { return kBounds; }

void canonical_translate_draws(int32_t* d) {
    if (d[SubjectDraw] < kPersons) d[RelativeDraw] = 0;  // "i that took a book": no such sentence
    if (person_object(d)) d[AdjectiveDraw] = 0;          // "a big the dog": no such sentence
}

bool translate_draws_valid(const int32_t* d) {
    // "the teacher washed the teacher": English says "himself", Chinese would read as two teachers
    return !(person_object(d) && kPersons + d[ObjectDraw] - kThingCount == d[SubjectDraw]);
}

long translate_combinations() {
    const long subjects = kPersons + (6 - kPersons) * static_cast<long>(kBounds[RelativeDraw]);
    const long objects = kThingCount * static_cast<long>(kBounds[AdjectiveDraw]) + 4;
    const long same_person = (6 - kPersons) * static_cast<long>(kBounds[RelativeDraw]);  // subject = object
    return (subjects * objects - same_person) * kBounds[TenseDraw] * kBounds[TimeDraw] * kBounds[PlaceDraw] * kBounds[VerbDraw];
}

int TranslateVocab::id(const std::string& token) const {
    const auto it = std::find(tokens.begin(), tokens.end(), token);
    return it == tokens.end() ? -1 : static_cast<int>(it - tokens.begin());
}

const TranslateVocab& translate_vocab() {
    static const TranslateVocab v = make_vocab();
    return v;
}

TranslatePair translate_pair(const int32_t* draws) { return {english_of(draws), chinese_of(draws)}; }

TranslateText read_translate_text(const std::string& text) {
    TranslateText r;
    const TranslateVocab& v = translate_vocab();
    auto add = [&](const std::string& word) {
        r.words.push_back(word);
        const int id = v.id(word);
        r.ids.push_back(id < v.english ? id : -1);  // a Chinese character is no English word
        if (r.ids.back() < 0 && std::find(r.unknown.begin(), r.unknown.end(), word) == r.unknown.end())
            r.unknown.push_back(word);
    };
    for (const std::string& token : split_tokens(text).tokens) {
        std::string word;
        for (char ch : token) {
            if (ch != '.') {
                word += ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch;
                continue;
            }
            if (!word.empty()) add(word);
            add(".");
            word.clear();
        }
        if (!word.empty()) add(word);
    }
    return r;
}

}  // namespace lab
