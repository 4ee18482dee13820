// train/tasks.h — Attention Lab core: the toy tasks and their seeded generators.
//
// Symbols are ids 0 … V−1, BOS is id V. An example is drawn as a few random integers
// (its "draws"), from which every array follows:
//   copy / reverse / sort (encoder–decoder), draws = L symbols s:
//     target t = s, reversed s or sorted s; src = s (L), dec_in = BOS, t[0 … L−2] (L),
//     dec_out = t (L); every position counts.
//   induction (decoder-only), draws = L distinct symbols s (V >= L) and, when the
//   largest gap G > 0, a gap g in [0, G]: the tokens are s, g BOS, s, G − g BOS
//   (2L + G of them; BOS fills the gap and is never a target); dec_in = all but the
//   last, dec_out = all but the first (the next token at each position); loss_mask is
//   1 where the target lies in the repeat. With G = 0 this is s s (2L tokens) and the
//   loss covers the whole repeat; with a gap the repeat's first token cannot be known
//   (g is random) and is not counted. A fixed offset (G = 0) lets one layer copy by
//   position (attend L − 1 back); a random gap leaves the induction mechanism (a
//   previous-token head feeding a copying head: two layers). Distinct symbols keep
//   "the token after the earlier occurrence" unambiguous.
//   coref (encoder-only), draws = the five of train/coref.h: tokens = the sentence padded to
//   L with BOS (the padding token, masked out as a key); dec_in = tokens, dec_out = the
//   referent's noun class at the pronoun (0 elsewhere), loss_mask = 1 at the pronoun only.
//   V and L are the language's vocabulary size and longest sentence (resolve_train_config).
//   translate (encoder–decoder), draws = the eight of train/translate.h: src = the English words
//   padded to the longest English sentence with BOS (the padding token, masked out as a key);
//   dec_out = the Chinese characters up to and including 。, then 。 again (not counted);
//   dec_in = BOS, dec_out[0 … L_dec−2]; loss_mask = 1 up to and including 。.
//   V is the shared vocabulary (English words and Chinese characters) and L its longest
//   English sentence (resolve_train_config).
// Greedy decoding generates the positions whose loss_mask is 1 (all positions for
// encoder–decoder), feeding each prediction back as the next input; everything before
// them is the prompt. translate decodes until it writes its stop token 。 (TaskSpec::stop).
//
// Random numbers are integers only (SplitMix64, value = next_u64() mod n; distinct
// symbols by drawing from the shrinking pool of unused ones), so the
// same seed gives the same batches natively and in wasm; tests/fixtures/
// gen_train_fixtures.py reimplements them independently in Python.
//
// Held-out examples are drawn first from their own stream, distinct; the training
// stream redraws any example whose draws' hash (FNV-1a) is held out, so evaluation
// only sees examples never trained on.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/rng.h"
#include "train/coref.h"
#include "train/model.h"
#include "train/translate.h"

namespace lab {

enum class TaskKind { Copy, Reverse, Sort, Induction, Coref, Translate };
constexpr int kMaxTaskVocab = 64;  // symbols; validate_train_config keeps vocab within it

const char* task_name(TaskKind task);  // "copy" | "reverse" | "sort" | "induction" | "coref" | "translate"
bool parse_task(const std::string& name, TaskKind* out);

struct TaskSpec {
    TaskKind kind = TaskKind::Reverse;
    int vocab = 10;   // V symbols
    int length = 8;   // L
    int gap = 0;      // G: induction's largest random gap between s and its repeat
    CorefLang lang = CorefLang::Zh;  // coref: the sentences' language

    ModelKind model() const {
        if (kind == TaskKind::Coref) return ModelKind::EncoderOnly;
        return kind == TaskKind::Induction ? ModelKind::DecoderOnly : ModelKind::EncoderDecoder;
    }
    int src_len() const { return model() == ModelKind::EncoderDecoder ? length : 0; }
    int dec_len() const {
        if (kind == TaskKind::Translate) return translate_vocab().dec_len;
        return model() == ModelKind::DecoderOnly ? 2 * length + gap - 1 : length;
    }
    int draws() const {
        if (kind == TaskKind::Coref) return kCorefDraws;
        if (kind == TaskKind::Translate) return kTranslateDraws;
        return model() == ModelKind::DecoderOnly && gap > 0 ? length + 1 : length;
    }
    int bos() const { return vocab; }
    // The classes the generator scores: the V symbols, coref's noun classes, translate's vocabulary.
    int classes() const { return kind == TaskKind::Coref ? kCorefNouns : vocab; }
    // Sentences from a grammar: vocab and length are the grammar's (resolve_train_config).
    bool grammar() const { return kind == TaskKind::Coref || kind == TaskKind::Translate; }
    // BOS pads the input (masked out as a key) and the loss mask says which targets count.
    bool padded() const { return grammar(); }
    bool has_loss_mask() const { return model() != ModelKind::EncoderDecoder || kind == TaskKind::Translate; }
    int stop() const { return kind == TaskKind::Translate ? translate_vocab().stop : -1; }  // greedy ends after it
};

// A token id as the page and the CLI show it: the symbol's number or BOS; coref's word, PAD
// for its padding. A generator class as shown: the symbol's number; coref's noun.
std::string task_token_text(const TaskSpec& spec, int32_t id);
std::string task_class_text(const TaskSpec& spec, int32_t cls);
// The folder of a shipped checkpoint under web/checkpoints: the task's name, coref/LANG.
std::string shipped_checkpoint_name(const TaskSpec& spec);

// How many distinct examples the task has (V^L, coref's combinations), or a number above
// cap when it is larger.
double task_space(const TaskSpec& spec, double cap);

// One example's arrays from its draws: src (src_len), dec_in, dec_out, loss_mask
// (dec_len each; loss_mask may be null for encoder–decoder tasks, where it is all 1).
void task_example(int32_t* src, int32_t* dec_in, int32_t* dec_out, uint8_t* loss_mask, const int32_t* draws,
                  const TaskSpec& spec);

uint64_t sequence_hash(const int32_t* draws, int count);

struct HeldOut {
    std::vector<int32_t> draws;  // (count, spec.draws())
    std::unordered_set<uint64_t> hashes;
    int count() const;
};

// count distinct sequences from stream_seed(seed, "task:held_out"). The caller has
// checked that V^L leaves room (validate_train_config).
HeldOut make_held_out(const TaskSpec& spec, uint64_t seed, int count);

// Training sequences from stream_seed(seed, "task:train"), skipping held-out ones.
class TaskStream {
public:
    TaskStream() : rng_(0) {}
    TaskStream(const TaskSpec& spec, uint64_t seed, const HeldOut* held_out);
    // One example's draws (spec.draws() values).
    void next_draws(int32_t* draws);
    // A batch of B examples into the arrays of a workspace (src, dec_in, dec_out: (B, len);
    // loss_mask (B, dec_len) resized here for decoder-only tasks, left empty otherwise).
    void next_batch(std::vector<int32_t>& src, std::vector<int32_t>& dec_in, std::vector<int32_t>& dec_out,
                    std::vector<uint8_t>& loss_mask, int B);

private:
    TaskSpec spec_;
    Rng rng_;
    const HeldOut* held_out_ = nullptr;
    std::vector<int32_t> draws_;
};

}  // namespace lab
