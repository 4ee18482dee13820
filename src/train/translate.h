// train/translate.h — Attention Lab core: the paper's task in miniature, English → 中文
// translation (`translate`, issue 25), from a small grammar.
//
// One sentence from eight draws (subject, tense, time, place, verb, object, adjective,
// relative clause), e.g.
//   i washed a big car at home yesterday .                 我昨天在家洗了一辆大汽车。
//   the cat did not take a fish in the park .              小猫没有在公园拿鱼。
//   the dog that took a book draws the student every day . 拿书的小狗每天画学生。
// English is split per word, Chinese per character. The alignment is not the diagonal:
// time and place move before the verb, negation (没有 past, 不 present) before the place, the
// measure word (一个, 一条, 一本, 一只, 一辆) is chosen by the noun that follows it, and a
// negated object drops its numeral and measure word, a relative clause moves before its noun
// (the dog that took a book → 拿书的小狗), and the same nouns are subjects and objects (the
// cat washed the dog / the dog washed the cat: the words alone do not say who did what). The
// Chinese sentence ends with 。: the
// decoder's stop token (greedy decoding ends there).
//
// One vocabulary for both languages (the paper shares its BPE vocabulary and embeddings
// between source and target, §3.4): the English words, then the Chinese characters; id =
// index. The padding token is the task's BOS id (vocabulary size): the source is padded
// to its longest sentence with it and masked out as a key (src_key_padding_mask and
// memory_key_padding_mask); the decoder starts with it, and the target's positions after
// 。 are not counted (loss mask 0).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lab {

constexpr int kTranslateDraws = 8;
// The number of values each draw takes: subject, tense (past, past negated, present,
// present negated), time (none or one of two that fit the tense), place, verb, object
// (six things, four people), adjective (none, big, small, red; things only), relative clause
// (none, or verb × thing; the four people only).
const int* translate_draw_bounds();
// Draws that name one sentence: a pronoun subject's relative clause and a person object's
// adjective are 0 (the generator draws these only).
void canonical_translate_draws(int32_t* draws);
// Whether the draws make a sentence: not a person doing something to themselves (the generator
// draws again).
bool translate_draws_valid(const int32_t* draws);
long translate_combinations();  // every distinct sentence pair

struct TranslateVocab {
    std::vector<std::string> tokens;  // English words, then Chinese characters
    int english = 0;                  // tokens [0, english) are English
    int src_len = 0, dec_len = 0;     // the longest English sentence's words, Chinese sentence's characters
    int stop = 0;                     // the id of 。
    int pad() const { return static_cast<int>(tokens.size()); }
    int id(const std::string& token) const;  // -1: not in the vocabulary
};
const TranslateVocab& translate_vocab();

struct TranslatePair {
    std::vector<std::string> english;  // words, ending with "."
    std::vector<std::string> chinese;  // characters, ending with 。
};
TranslatePair translate_pair(const int32_t* draws);

// A typed English sentence read against the vocabulary (lower-cased, "." split off).
struct TranslateText {
    std::vector<std::string> words;
    std::vector<int32_t> ids;          // -1 for an unknown word
    std::vector<std::string> unknown;  // the unknown words, each once, in order
};
TranslateText read_translate_text(const std::string& text);

}  // namespace lab
