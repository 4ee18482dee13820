// train/coref.h — Attention Lab core: the pronoun task `coref`, in Chinese and English.
//
// A small grammar (issue 24; the tutorials' 小猫追着球跑，它玩得很开心。):
//   one animal and one object in either order, a verb between them, then the pronoun and a
//   predicate only one of them can take:
//     小猫追着球跑，它玩得很开心。        the cat chased the ball , it was very happy .
//     球撞到了小狗，它滚得很远。          the ball bumped into the dog , it rolled far away .
//   Chinese is split per character (小猫 is two tokens; ，它 。 are tokens), English per word
//   (lower case; , and . are tokens of their own).
// An example is five draws: animal [0, 4), object [0, 6), order [0, 2) (1: the object comes
// first), verb [0, 6), predicate [0, 12) (below 6 an animal's, else an object's). Its tokens
// are padded to the language's longest sentence with the padding token (id = vocabulary
// size, the task's BOS id); the answer is the referent, a class of the nouns: animals 0–3,
// objects 4–9. The model (an encoder, ModelKind::EncoderOnly) classifies its output at the
// pronoun: the loss mask is 1 there only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lab {

enum class CorefLang { Zh, En };
const char* coref_lang_name(CorefLang lang);  // "zh" | "en"

constexpr int kCorefDraws = 5;
constexpr int kCorefAnimals = 4, kCorefObjects = 6, kCorefNouns = kCorefAnimals + kCorefObjects;
// The number of values each draw takes (animal, object, order, verb, predicate).
const int* coref_draw_bounds();
int coref_combinations();  // their product: every distinct sentence of the grammar

// The model's vocabulary of one language: its tokens (id = index), the noun classes' words.
struct CorefVocab {
    std::vector<std::string> tokens;
    std::vector<std::string> nouns;  // (kCorefNouns) the answer classes, e.g. "小猫", "paper ball"
    int max_len = 0;                 // the longest sentence's tokens: the model's length
    int pad() const { return static_cast<int>(tokens.size()); }
    int id(const std::string& token) const;  // -1: not in the vocabulary
};
const CorefVocab& coref_vocab(CorefLang lang);

// Where a noun stands in a sentence: tokens [begin, end), its class.
struct CorefNoun {
    int begin = 0, end = 0;
    int cls = 0;
};

// One sentence of the grammar from its draws.
struct CorefSentence {
    std::vector<std::string> tokens;
    int pronoun = 0;    // the pronoun's position
    int referent = 0;   // the answer's noun class
    CorefNoun nouns[2];  // in sentence order
};
CorefSentence coref_sentence(const int32_t* draws, CorefLang lang);

// A typed sentence read against the vocabulary: split as the tokens field splits (base/tokens.h),
// English lower-cased with , . split off, Chinese , . taken as ，。. Nouns are found by their words;
// the query position is the first `from` token ("" = the language's pronoun).
struct CorefText {
    std::vector<std::string> tokens;
    std::vector<int32_t> ids;          // -1 for an unknown token
    std::vector<std::string> unknown;  // the unknown tokens, each once, in order
    std::vector<CorefNoun> nouns;      // every noun word found, in order
    int query = -1;                    // -1: no `from` token in the sentence
};
CorefText read_coref_text(const std::string& text, CorefLang lang, const std::string& from = "");

}  // namespace lab
