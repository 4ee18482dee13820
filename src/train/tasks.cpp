// train/tasks.cpp — Attention Lab core: copy, reverse, sort and induction examples.
#include "train/tasks.h"

#include <algorithm>

namespace lab {

const char* task_name(TaskKind task) {
    switch (task) {
        case TaskKind::Copy: return "copy";
        case TaskKind::Reverse: return "reverse";
        case TaskKind::Sort: return "sort";
        case TaskKind::Induction: return "induction";
        case TaskKind::Coref: return "coref";
        case TaskKind::Translate: return "translate";
    }
    return "";
}

bool parse_task(const std::string& name, TaskKind* out) {
    for (TaskKind t : {TaskKind::Copy, TaskKind::Reverse, TaskKind::Sort, TaskKind::Induction, TaskKind::Coref,
                       TaskKind::Translate})
        if (name == task_name(t)) {
            *out = t;
            return true;
        }
    return false;
}

namespace {
// coref: the sentence padded with BOS, its referent classified at the pronoun.
void coref_example(int32_t* dec_in, int32_t* dec_out, uint8_t* loss_mask, const int32_t* draws, const TaskSpec& spec) {
    const CorefSentence s = coref_sentence(draws, spec.lang);
    const CorefVocab& v = coref_vocab(spec.lang);
    for (int p = 0; p < spec.length; ++p) {
        dec_in[p] = p < static_cast<int>(s.tokens.size()) ? v.id(s.tokens[static_cast<size_t>(p)]) : spec.bos();
        dec_out[p] = p == s.pronoun ? s.referent : 0;
        if (loss_mask) loss_mask[p] = p == s.pronoun ? 1 : 0;
    }
}

// translate: the English padded with BOS; the Chinese through 。, then 。 again (not counted: a
// target class of the generator, which scores the vocabulary, not BOS).
void translate_example(int32_t* src, int32_t* dec_in, int32_t* dec_out, uint8_t* loss_mask, const int32_t* draws,
                       const TaskSpec& spec) {
    const TranslatePair p = translate_pair(draws);
    const TranslateVocab& v = translate_vocab();
    const int S = spec.src_len(), D = spec.dec_len(), n = static_cast<int>(p.chinese.size());
    for (int i = 0; i < S; ++i) src[i] = i < static_cast<int>(p.english.size()) ? v.id(p.english[static_cast<size_t>(i)]) : spec.bos();
    for (int i = 0; i < D; ++i) {
        dec_out[i] = i < n ? v.id(p.chinese[static_cast<size_t>(i)]) : v.stop;
        if (loss_mask) loss_mask[i] = i < n ? 1 : 0;
    }
    dec_in[0] = spec.bos();
    std::copy(dec_out, dec_out + D - 1, dec_in + 1);
}
}  // namespace

void task_example(int32_t* src, int32_t* dec_in, int32_t* dec_out, uint8_t* loss_mask, const int32_t* draws,
                  const TaskSpec& spec) {
    const int L = spec.length;
    if (spec.kind == TaskKind::Coref) return coref_example(dec_in, dec_out, loss_mask, draws, spec);
    if (spec.kind == TaskKind::Translate) return translate_example(src, dec_in, dec_out, loss_mask, draws, spec);
    if (spec.model() == ModelKind::DecoderOnly) {
        // s, g BOS, s, G − g BOS, shifted by one between input and target.
        const int G = spec.gap, g = G > 0 ? draws[L] : 0, total = 2 * L + G;
        auto token = [&](int i) {
            if (i < L) return draws[i];
            if (i >= L + g && i < 2 * L + g) return draws[i - L - g];
            return static_cast<int32_t>(spec.bos());
        };
        const int first_counted = L + g + (G > 0 ? 1 : 0);  // token index of the first counted target
        for (int p = 0; p < total - 1; ++p) {
            dec_in[p] = token(p);
            dec_out[p] = token(p + 1);
            if (loss_mask) loss_mask[p] = p + 1 >= first_counted && p + 1 < 2 * L + g ? 1 : 0;
        }
        return;
    }
    std::copy(draws, draws + L, src);
    std::copy(draws, draws + L, dec_out);
    if (spec.kind == TaskKind::Reverse) std::reverse(dec_out, dec_out + L);
    if (spec.kind == TaskKind::Sort) std::sort(dec_out, dec_out + L);
    dec_in[0] = spec.bos();
    std::copy(dec_out, dec_out + L - 1, dec_in + 1);
    if (loss_mask) std::fill(loss_mask, loss_mask + L, uint8_t{1});
}

uint64_t sequence_hash(const int32_t* draws, int count) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < count; ++i) h = (h ^ static_cast<uint32_t>(draws[i])) * 0x100000001b3ull;
    return h;
}

std::string task_token_text(const TaskSpec& spec, int32_t id) {
    if (spec.kind == TaskKind::Translate) {
        const std::vector<std::string>& tokens = translate_vocab().tokens;
        if (id >= 0 && id < static_cast<int32_t>(tokens.size())) return tokens[static_cast<size_t>(id)];
        return id == spec.bos() ? "BOS" : std::to_string(id);
    }
    if (id == spec.bos()) return spec.kind == TaskKind::Coref ? "PAD" : "BOS";
    const CorefVocab& v = coref_vocab(spec.lang);
    if (spec.kind == TaskKind::Coref && id >= 0 && id < static_cast<int32_t>(v.tokens.size())) return v.tokens[static_cast<size_t>(id)];
    return std::to_string(id);
}

std::string task_class_text(const TaskSpec& spec, int32_t cls) {
    if (spec.kind == TaskKind::Translate) return task_token_text(spec, cls);
    if (spec.kind == TaskKind::Coref && cls >= 0 && cls < kCorefNouns) return coref_vocab(spec.lang).nouns[static_cast<size_t>(cls)];
    return std::to_string(cls);
}

std::string shipped_checkpoint_name(const TaskSpec& spec) {
    if (spec.kind == TaskKind::Coref) return std::string("coref/") + coref_lang_name(spec.lang);
    return task_name(spec.kind);
}

double task_space(const TaskSpec& spec, double cap) {
    if (spec.kind == TaskKind::Coref) return coref_combinations();
    if (spec.kind == TaskKind::Translate) return static_cast<double>(translate_combinations());
    double n = 1;
    for (int i = 0; i < spec.length && n <= cap; ++i) n *= spec.vocab;
    return n;
}

int HeldOut::count() const { return static_cast<int>(hashes.size()); }

namespace {
// L symbols (distinct for induction), then (induction with a gap) g in [0, G].
void draw_example(Rng& rng, int32_t* out, const TaskSpec& spec) {
    auto below = [&](int n) { return static_cast<int32_t>(rng.next_u64() % static_cast<uint64_t>(n)); };
    if (spec.kind == TaskKind::Coref) {
        for (int i = 0; i < kCorefDraws; ++i) out[i] = below(coref_draw_bounds()[i]);
        return;
    }
    if (spec.kind == TaskKind::Translate) {
        do {
            for (int i = 0; i < kTranslateDraws; ++i) out[i] = below(translate_draw_bounds()[i]);
            canonical_translate_draws(out);  // one draw per sentence, so held-out sentences are never trained on
        } while (!translate_draws_valid(out));
        return;
    }
    if (spec.model() == ModelKind::EncoderDecoder) {
        for (int i = 0; i < spec.length; ++i) out[i] = below(spec.vocab);
        return;
    }
    // Draw from the pool of unused symbols; the last unused one fills the hole.
    int32_t pool[kMaxTaskVocab];
    for (int v = 0; v < spec.vocab; ++v) pool[v] = v;
    for (int i = 0; i < spec.length; ++i) {
        const int remaining = spec.vocab - i, j = below(remaining);
        out[i] = pool[j];
        pool[j] = pool[remaining - 1];
    }
    if (spec.gap > 0) out[spec.length] = below(spec.gap + 1);
}
}  // namespace

HeldOut make_held_out(const TaskSpec& spec, uint64_t seed, int count) {
    HeldOut h;
    Rng rng(stream_seed(seed, "task:held_out"));
    const int n = spec.draws();
    std::vector<int32_t> s(static_cast<size_t>(n));
    h.draws.reserve(static_cast<size_t>(count) * n);
    while (h.count() < count) {
        draw_example(rng, s.data(), spec);
        if (h.hashes.insert(sequence_hash(s.data(), n)).second) h.draws.insert(h.draws.end(), s.begin(), s.end());
    }
    return h;
}

TaskStream::TaskStream(const TaskSpec& spec, uint64_t seed, const HeldOut* held_out)
    : spec_(spec), rng_(stream_seed(seed, "task:train")), held_out_(held_out), draws_(static_cast<size_t>(spec.draws())) {}

void TaskStream::next_draws(int32_t* draws) {
    do draw_example(rng_, draws, spec_);
    while (held_out_ && held_out_->hashes.count(sequence_hash(draws, spec_.draws())));
}

void TaskStream::next_batch(std::vector<int32_t>& src, std::vector<int32_t>& dec_in, std::vector<int32_t>& dec_out,
                            std::vector<uint8_t>& loss_mask, int B) {
    const size_t S = static_cast<size_t>(spec_.src_len()), D = static_cast<size_t>(spec_.dec_len());
    const bool masked = spec_.has_loss_mask();
    loss_mask.resize(masked ? B * D : 0);
    for (int b = 0; b < B; ++b) {
        next_draws(draws_.data());
        task_example(src.data() + b * S, dec_in.data() + b * D, dec_out.data() + b * D,
                     masked ? loss_mask.data() + b * D : nullptr, draws_.data(), spec_);
    }
}

}  // namespace lab
