// train/coref.cpp — Attention Lab core: the coref grammar's words, sentences and vocabulary.
#include "train/coref.h"

#include <algorithm>

#include "base/tokens.h"

namespace lab {

namespace {

struct Words {
    const char* zh;
    const char* en;
};

// Nouns: the answer classes, animals first (issue 24's lists, in its order).
const Words kNouns[kCorefNouns] = {
    {"小猫", "cat"}, {"小狗", "dog"}, {"小兔", "rabbit"}, {"小鸟", "bird"},
    {"球", "ball"}, {"箱子", "box"}, {"车", "car"}, {"瓶子", "bottle"}, {"风筝", "kite"}, {"纸团", "paper ball"},
};
// Verbs: Chinese before the second noun and (追着…跑) after it.
struct Verb {
    Words before;
    const char* zh_after;
};
const Verb kVerbs[6] = {
    {{"追着", "chased"}, "跑"}, {{"撞到了", "bumped into"}, ""}, {{"推着", "pushed"}, ""},
    {{"看着", "watched"}, ""},  {{"跳过了", "jumped over"}, ""}, {{"碰到了", "touched"}, ""},
};
// Predicates: six an animal can take, then six an object can.
const Words kPredicates[12] = {
    {"玩得很开心", "was very happy"}, {"叫了一声", "cried out"},  {"饿了", "was hungry"},
    {"睡着了", "fell asleep"},        {"跑开了", "ran away"},      {"摇了摇尾巴", "wagged its tail"},
    {"滚得很远", "rolled far away"},  {"破了", "broke"},           {"倒了", "fell over"},
    {"停在墙边", "stopped by the wall"}, {"被弄脏了", "got dirty"}, {"掉在地上", "dropped to the ground"},
};
const Words kPronoun = {"它", "it"}, kComma = {"，", ","}, kStop = {"。", "."}, kArticle = {"", "the"};
const int kBounds[kCorefDraws] = {kCorefAnimals, kCorefObjects, 2, 6, 12};

const char* in(const Words& w, CorefLang lang) { return lang == CorefLang::Zh ? w.zh : w.en; }

// A phrase's tokens: per character in Chinese (split_tokens makes CJK characters tokens),
// per word in English.
std::vector<std::string> split(const char* phrase) { return split_tokens(phrase).tokens; }

void append(std::vector<std::string>& to, const char* phrase) {
    for (std::string& t : split(phrase)) to.push_back(std::move(t));
}

CorefVocab make_vocab(CorefLang lang) {
    CorefVocab v;
    std::vector<std::string> all;
    for (const Words& n : kNouns) append(all, in(n, lang)), v.nouns.push_back(in(n, lang));
    for (const Verb& verb : kVerbs) append(all, in(verb.before, lang)), append(all, lang == CorefLang::Zh ? verb.zh_after : "");
    for (const Words* w : {&kArticle, &kComma, &kPronoun, &kStop}) append(all, in(*w, lang));
    for (const Words& p : kPredicates) append(all, in(p, lang));
    for (std::string& t : all)
        if (std::find(v.tokens.begin(), v.tokens.end(), t) == v.tokens.end()) v.tokens.push_back(std::move(t));
    // The longest sentence: the longest of each part (draws are independent).
    int longest = 0;
    std::vector<int32_t> d(kCorefDraws, 0);
    for (int a = 0; a < kCorefAnimals; ++a)
        for (int o = 0; o < kCorefObjects; ++o)
            for (int verb = 0; verb < 6; ++verb)
                for (int p = 0; p < 12; ++p) {
                    d = {a, o, 0, verb, p};
                    longest = std::max(longest, static_cast<int>(coref_sentence(d.data(), lang).tokens.size()));
                }
    v.max_len = longest;
    return v;
}

// English as the vocabulary writes it: lower case, , and . apart from the words.
std::vector<std::string> normalise(const std::vector<std::string>& raw, CorefLang lang) {
    std::vector<std::string> out;
    for (const std::string& t : raw) {
        if (lang == CorefLang::Zh) {
            out.push_back(t == "," ? kComma.zh : t == "." ? kStop.zh : t);
            continue;
        }
        std::string word;
        auto flush = [&]() {
            if (!word.empty()) out.push_back(word);
            word.clear();
        };
        for (char c : t) {
            if (c == ',' || c == '.') {
                flush();
                out.push_back(std::string(1, c));
            } else {
                word += c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
            }
        }
        flush();
    }
    return out;
}

// Every noun word in tokens, the longest match first at each position ("paper ball" before "ball").
std::vector<CorefNoun> find_nouns(const std::vector<std::string>& tokens, CorefLang lang) {
    std::vector<CorefNoun> found;
    for (size_t i = 0; i < tokens.size();) {
        CorefNoun best{0, 0, -1};
        for (int cls = 0; cls < kCorefNouns; ++cls) {
            const std::vector<std::string> word = split(in(kNouns[cls], lang));
            if (word.size() > tokens.size() - i || static_cast<int>(word.size()) <= best.end - best.begin) continue;
            if (std::equal(word.begin(), word.end(), tokens.begin() + static_cast<long>(i)))
                best = {static_cast<int>(i), static_cast<int>(i + word.size()), cls};
        }
        if (best.cls < 0) {
            ++i;
            continue;
        }
        found.push_back(best);
        i = static_cast<size_t>(best.end);
    }
    return found;
}

}  // namespace

const char* coref_lang_name(CorefLang lang) { return lang == CorefLang::Zh ? "zh" : "en"; }

const int* coref_draw_bounds() { return kBounds; }

int coref_combinations() {
    int n = 1;
    for (int b : kBounds) n *= b;
    return n;
}

int CorefVocab::id(const std::string& token) const {
    const auto it = std::find(tokens.begin(), tokens.end(), token);
    return it == tokens.end() ? -1 : static_cast<int>(it - tokens.begin());
}

const CorefVocab& coref_vocab(CorefLang lang) {
    static const CorefVocab zh = make_vocab(CorefLang::Zh), en = make_vocab(CorefLang::En);
    return lang == CorefLang::Zh ? zh : en;
}

CorefSentence coref_sentence(const int32_t* draws, CorefLang lang) {
    CorefSentence s;
    const int animal = draws[0], object = kCorefAnimals + draws[1], verb = draws[3], predicate = draws[4];
    const int first = draws[2] ? object : animal, second = draws[2] ? animal : object;
    auto noun = [&](int cls, CorefNoun* at) {
        append(s.tokens, in(kArticle, lang));
        at->begin = static_cast<int>(s.tokens.size());
        append(s.tokens, in(kNouns[cls], lang));
        *at = {at->begin, static_cast<int>(s.tokens.size()), cls};
    };
    noun(first, &s.nouns[0]);
    append(s.tokens, in(kVerbs[verb].before, lang));
    noun(second, &s.nouns[1]);
    if (lang == CorefLang::Zh) append(s.tokens, kVerbs[verb].zh_after);
    append(s.tokens, in(kComma, lang));
    s.pronoun = static_cast<int>(s.tokens.size());
    append(s.tokens, in(kPronoun, lang));
    append(s.tokens, in(kPredicates[predicate], lang));
    append(s.tokens, in(kStop, lang));
    s.referent = predicate < 6 ? animal : object;
    return s;
}

CorefText read_coref_text(const std::string& text, CorefLang lang, const std::string& from) {
    CorefText r;
    r.tokens = normalise(split_tokens(text).tokens, lang);
    const CorefVocab& v = coref_vocab(lang);
    const std::string query = from.empty() ? in(kPronoun, lang) : from;
    for (size_t i = 0; i < r.tokens.size(); ++i) {
        const std::string& t = r.tokens[i];
        r.ids.push_back(v.id(t));
        if (r.ids.back() < 0 && std::find(r.unknown.begin(), r.unknown.end(), t) == r.unknown.end()) r.unknown.push_back(t);
        if (r.query < 0 && t == query) r.query = static_cast<int>(i);
    }
    r.nouns = find_nouns(r.tokens, lang);
    return r;
}

}  // namespace lab
