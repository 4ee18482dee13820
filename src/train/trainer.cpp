// train/trainer.cpp — Attention Lab core: the training loop, held-out evaluation
// with greedy decoding, and the views the page reads (one sample's activations,
// gradients and attention maps).
#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "base/rng.h"
#include "train/bleu.h"

namespace lab {

std::vector<int32_t> Sample::expected() const {
    return std::vector<int32_t>(dec_out.begin() + gen_begin, dec_out.begin() + gen_end);
}

bool Trainer::init(const TrainConfig& config, std::vector<ConfigError>* errors) {
    ready_ = false;
    const TrainConfig c = resolve_train_config(config);
    std::vector<ConfigError> problems = validate_train_config(c);
    if (!problems.empty()) {
        if (errors) *errors = std::move(problems);
        return false;
    }
    config_ = c;
    spec_ = task_spec(c);
    layout_ = make_layout(model_shape(c));
    held_out_ = make_held_out(spec_, c.seed, c.eval_size);
    stream_ = TaskStream(spec_, c.seed, &held_out_);
    params_.assign(layout_.total, 0.0f);
    init_params(params_.data(), layout_, c.seed);
    for (std::vector<float>* v : {&grads_, &adam_m_, &adam_v_, &sample_grads_}) v->assign(layout_.total, 0.0f);
    losses_.clear();
    lrs_.clear();
    evals_.clear();
    steps_done_ = 0;
    stop_ = TrainStop{};
    workspace_resize(train_ws_, layout_, c.batch);
    train_ws_.train = true;  // the training steps' passes drop (when config().dropout > 0); the others never do
    workspace_resize(eval_ws_, layout_, std::min(c.eval_size, 256));
    workspace_resize(sample_ws_, layout_, 1);
    sample_ws_.record = true;
    ready_ = true;
    return true;
}

bool Trainer::finished() const {
    if (!ready_ || stop_.cause != StopCause::None || steps_done_ >= config_.steps) return true;
    return config_.target_exact > 0 && !evals_.empty() && evals_.back().exact_accuracy >= config_.target_exact;
}

int Trainer::step(int n) {
    int made = 0;
    while (made < n && !finished()) {
        const int t = steps_done_ + 1;
        stream_.next_batch(train_ws_.src, train_ws_.dec_in, train_ws_.dec_out, train_ws_.loss_mask, config_.batch);
        // Dropout's masks of step t (model.h): its sites draw from stream_seed(this, site).
        if (config_.dropout > 0) train_ws_.dropout_seed = stream_seed(config_.seed, "dropout step " + std::to_string(t));
        const float loss = model_forward(train_ws_, layout_, params_.data());
        if (!std::isfinite(loss)) {
            record_stop(StopCause::NonFiniteLoss, "");
            break;
        }
        model_backward(train_ws_, layout_, params_.data(), grads_.data());
        if (!grads_finite()) break;
        // The rate as stored in lr.npy (float32), so a replay uses exactly it.
        const float lr = static_cast<float>(learning_rate(config_.lr, config_.d_model, t));
        adam_step(params_.data(), adam_m_.data(), adam_v_.data(), grads_.data(), layout_.total, lr, t);
        losses_.push_back(loss);
        lrs_.push_back(lr);
        steps_done_ = t;
        ++made;
        if (t % config_.eval_every == 0 || t == config_.steps) evals_.push_back(evaluate());
    }
    return made;
}

void Trainer::record_stop(StopCause cause, const std::string& param) {
    stop_.cause = cause;
    stop_.step = steps_done_ + 1;
    stop_.param = param;
    stop_.message = cause == StopCause::NonFiniteLoss ? Msg(Str::train_stop_loss, stop_.step)
                                                      : Msg(Str::train_stop_grad, stop_.step, param);
}

bool Trainer::grads_finite() {
    for (const ParamInfo& p : layout_.params) {
        const float* g = grads_.data() + p.offset;
        for (size_t e = 0; e < p.size; ++e)
            if (!std::isfinite(g[e])) {
                record_stop(StopCause::NonFiniteGradient, p.name);
                return false;
            }
    }
    return true;
}

void Trainer::fill_sample(Workspace<float>& ws, int b, const Sample& s) const {
    const size_t S = static_cast<size_t>(ws.src_len), D = static_cast<size_t>(ws.dec_len);
    std::copy(s.src.begin(), s.src.end(), ws.src.begin() + b * S);
    std::copy(s.dec_in.begin(), s.dec_in.end(), ws.dec_in.begin() + b * D);
    std::copy(s.dec_out.begin(), s.dec_out.end(), ws.dec_out.begin() + b * D);
    if (!s.loss_mask.empty()) {
        ws.loss_mask.resize(static_cast<size_t>(ws.batch) * D);
        std::copy(s.loss_mask.begin(), s.loss_mask.end(), ws.loss_mask.begin() + b * D);
    } else {
        ws.loss_mask.clear();
    }
}

namespace {
// -log softmax(row)[target], in double (the perplexity's term, whatever the training's smoothing).
double token_nll(const float* row, int n, int32_t target) {
    double top = row[0], sum = 0;
    for (int i = 1; i < n; ++i) top = std::max(top, static_cast<double>(row[i]));
    for (int i = 0; i < n; ++i) sum += std::exp(row[i] - top);
    return top + std::log(sum) - row[target];
}

int32_t argmax(const float* row, int n) {  // the first maximum, as torch.argmax
    return static_cast<int32_t>(std::max_element(row, row + n) - row);
}
}  // namespace

// Greedy decoding of item b of ws over positions [begin[b], end[b]): position p's
// argmax becomes the input at p + 1. Predictions into greedy_ (B, dec_len).
// encoded: ws already holds the encoder output of its src.
void Trainer::greedy_batch(Workspace<float>& ws, const std::vector<int>& begin, const std::vector<int>& end, bool encoded) {
    const int D = ws.dec_len, V = layout_.shape.vocab_out;
    int lo = D, hi = 0;
    for (int b = 0; b < ws.batch; ++b)
        if (begin[static_cast<size_t>(b)] < end[static_cast<size_t>(b)])
            lo = std::min(lo, begin[static_cast<size_t>(b)]), hi = std::max(hi, end[static_cast<size_t>(b)]);
    greedy_.assign(static_cast<size_t>(ws.batch) * D, -1);
    if (lo >= hi) return;
    if (!encoded && layout_.shape.kind == ModelKind::EncoderDecoder) model_encode(ws, layout_, params_.data());
    // An encoder-only classifier sees the whole sequence at once: one pass, nothing fed back.
    const bool one_pass = layout_.shape.kind == ModelKind::EncoderOnly;
    if (one_pass) model_decode(ws, layout_, params_.data(), D);
    for (int p = lo; p < hi; ++p) {
        const int len = one_pass ? D : p + 1;
        if (!one_pass) model_decode(ws, layout_, params_.data(), len);
        for (int b = 0; b < ws.batch; ++b) {
            const size_t u = static_cast<size_t>(b);
            if (p < begin[u] || p >= end[u]) continue;
            const int32_t pred = argmax(ws.logits.x + (static_cast<long>(b) * len + p) * V, V);
            greedy_[u * D + p] = pred;
            if (!one_pass && p + 1 < end[u]) ws.dec_in[u * D + p + 1] = pred;
        }
    }
}

EvalReport Trainer::evaluate(const std::vector<uint8_t>* head_keep) {
    EvalReport r;
    r.step = steps_done_;
    if (!ready_ || (head_keep && head_keep->size() != layout_.blocks.size() * static_cast<size_t>(layout_.shape.heads)))
        return r;  // sequences = 0: nothing evaluated
    const auto t0 = std::chrono::steady_clock::now();
    Workspace<float>& ws = eval_ws_;
    const int N = held_out_.count(), D = spec_.dec_len(), V = layout_.shape.vocab_out;
    double loss_sum = 0, nll_sum = 0;
    long rows = 0, tokens = 0, tokens_ok = 0;
    int exact = 0;
    BleuStats bleu;
    std::vector<Sample> items(static_cast<size_t>(ws.batch));
    std::vector<int> begin(items.size()), end(items.size());
    for (int start = 0; start < N; start += ws.batch) {
        const int B = std::min(ws.batch, N - start);
        for (int b = 0; b < ws.batch; ++b) {  // a short last chunk repeats its last example, not counted
            items[static_cast<size_t>(b)] = held_out_sample(start + std::min(b, B - 1));
            fill_sample(ws, b, items[static_cast<size_t>(b)]);
        }
        // The loss counts what the task counts, in the real items only.
        ws.loss_mask.assign(static_cast<size_t>(ws.batch) * D, 0);
        for (int b = 0; b < B; ++b)
            for (int p = 0; p < D; ++p) {
                const Sample& s = items[static_cast<size_t>(b)];
                ws.loss_mask[static_cast<size_t>(b) * D + p] = s.loss_mask.empty() ? 1 : s.loss_mask[static_cast<size_t>(p)];
            }
        ws.head_keep = head_keep ? *head_keep : std::vector<uint8_t>{};
        const float loss = model_forward(ws, layout_, params_.data());
        long chunk_rows = 0;
        for (uint8_t c : ws.loss_mask) chunk_rows += c;
        loss_sum += static_cast<double>(loss) * chunk_rows;
        rows += chunk_rows;
        for (int b = 0; b < B; ++b)
            for (int p = 0; p < D; ++p)
                if (ws.loss_mask[static_cast<size_t>(b) * D + p])
                    nll_sum += token_nll(ws.logits.x + (static_cast<long>(b) * D + p) * V, V, items[static_cast<size_t>(b)].dec_out[static_cast<size_t>(p)]);
        // Greedy decoding follows the teacher-forced predictions up to their first error
        // (its inputs are the true tokens until then): decode greedily only from there.
        for (int b = 0; b < ws.batch; ++b) {
            const Sample& s = items[static_cast<size_t>(b)];
            int p = s.gen_begin;
            while (p < s.gen_end && argmax(ws.logits.x + (static_cast<long>(b) * D + p) * V, V) == s.dec_out[static_cast<size_t>(p)]) ++p;
            begin[static_cast<size_t>(b)] = b < B ? p : s.gen_end;
            end[static_cast<size_t>(b)] = b < B && spec_.stop() >= 0 ? D : s.gen_end;  // to the stop token
        }
        greedy_batch(ws, begin, end, true);
        for (int b = 0; b < B; ++b) {
            const Sample& s = items[static_cast<size_t>(b)];
            const size_t u = static_cast<size_t>(b);
            int ok = begin[u] - s.gen_begin;
            for (int p = begin[u]; p < s.gen_end; ++p) ok += greedy_[u * D + p] == s.dec_out[static_cast<size_t>(p)];
            tokens += s.gen_end - s.gen_begin;
            tokens_ok += ok;
            exact += ok == s.gen_end - s.gen_begin;
            if (spec_.stop() < 0) continue;
            std::vector<int32_t> output(s.dec_out.begin() + s.gen_begin, s.dec_out.begin() + begin[u]);  // teacher-forced right
            output.insert(output.end(), greedy_.begin() + static_cast<long>(u * D) + begin[u], greedy_.begin() + static_cast<long>(u * D) + D);
            bleu_add(bleu, until_stop(std::move(output)), s.expected());
        }
    }
    ws.head_keep.clear();
    r.sequences = N;
    r.loss = rows ? loss_sum / rows : 0;
    r.nll = rows ? nll_sum / rows : 0;
    r.token_accuracy = tokens ? static_cast<double>(tokens_ok) / tokens : 0;
    r.exact_accuracy = static_cast<double>(exact) / N;
    if (spec_.stop() >= 0) r.bleu = bleu_score(bleu);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

std::vector<float> Trainer::logits(const std::vector<int32_t>& src, const std::vector<int32_t>& dec_in, int B) {
    const size_t S = static_cast<size_t>(spec_.src_len()), D = static_cast<size_t>(spec_.dec_len());
    const size_t V = static_cast<size_t>(layout_.shape.vocab_out);
    std::vector<float> out;
    if (!ready_ || B < 1 || src.size() != B * S || dec_in.size() != B * D) return out;
    for (const std::vector<int32_t>* tokens : {&src, &dec_in})
        for (int32_t id : *tokens)
            if (id < 0 || id >= layout_.shape.vocab_size) return out;
    Workspace<float>& ws = eval_ws_;
    ws.head_keep.clear();
    for (int start = 0; start < B; start += ws.batch) {
        const int n = std::min(ws.batch, B - start);
        for (int b = 0; b < ws.batch; ++b) {  // a short last chunk repeats its last example
            const size_t from = static_cast<size_t>(start + std::min(b, n - 1));
            std::copy(src.begin() + from * S, src.begin() + (from + 1) * S, ws.src.begin() + b * S);
            std::copy(dec_in.begin() + from * D, dec_in.begin() + (from + 1) * D, ws.dec_in.begin() + b * D);
        }
        if (layout_.shape.kind == ModelKind::EncoderDecoder) model_encode(ws, layout_, params_.data());
        model_decode(ws, layout_, params_.data(), ws.dec_len);
        out.insert(out.end(), ws.logits.x, ws.logits.x + n * D * V);
    }
    return out;
}

const Workspace<float>* Trainer::forward_tokens(const std::vector<int32_t>& src, const std::vector<int32_t>& dec_in) {
    if (!ready_ || src.size() != static_cast<size_t>(spec_.src_len()) || dec_in.size() != static_cast<size_t>(spec_.dec_len()))
        return nullptr;
    for (const std::vector<int32_t>* tokens : {&src, &dec_in})
        for (int32_t id : *tokens)
            if (id < 0 || id >= layout_.shape.vocab_size) return nullptr;
    Workspace<float>& ws = sample_ws_;
    ws.head_keep.clear();
    std::copy(src.begin(), src.end(), ws.src.begin());
    std::copy(dec_in.begin(), dec_in.end(), ws.dec_in.begin());
    if (layout_.shape.kind == ModelKind::EncoderDecoder) model_encode(ws, layout_, params_.data());
    model_decode(ws, layout_, params_.data(), ws.dec_len);
    return &ws;
}

std::string Trainer::draws_problem(const std::vector<int32_t>& draws) const {
    const int n = spec_.draws(), L = spec_.length, V = spec_.vocab;
    if (static_cast<int>(draws.size()) != n)
        return "a sample of " + std::string(task_name(spec_.kind)) + " has " + std::to_string(n) + " values, got " +
               std::to_string(draws.size());
    if (spec_.grammar()) {  // each draw below its bound
        const int* bounds = spec_.kind == TaskKind::Coref ? coref_draw_bounds() : translate_draw_bounds();
        for (int i = 0; i < n; ++i)
            if (draws[static_cast<size_t>(i)] < 0 || draws[static_cast<size_t>(i)] >= bounds[i])
                return std::string(task_name(spec_.kind)) + " draw " + std::to_string(i) + " is " +
                       std::to_string(draws[static_cast<size_t>(i)]) + ", not in [0, " + std::to_string(bounds[i] - 1) + "]";
        if (spec_.kind == TaskKind::Translate && !translate_draws_valid(draws.data()))
            return "translate draws whose subject is also the object make no sentence";
        return "";
    }
    std::vector<uint8_t> seen(static_cast<size_t>(V), 0);
    for (int i = 0; i < L; ++i) {
        const int32_t v = draws[static_cast<size_t>(i)];
        if (v < 0 || v >= V) return "symbol " + std::to_string(v) + " at position " + std::to_string(i) + " is not in [0, " + std::to_string(V - 1) + "]";
        if (spec_.model() == ModelKind::DecoderOnly && seen[static_cast<size_t>(v)]++)
            return "induction symbols must be distinct; " + std::to_string(v) + " repeats";
    }
    if (n > L && (draws[static_cast<size_t>(L)] < 0 || draws[static_cast<size_t>(L)] > spec_.gap))
        return "the gap " + std::to_string(draws[static_cast<size_t>(L)]) + " is not in [0, " + std::to_string(spec_.gap) + "]";
    return "";
}

bool Trainer::make_sample(const std::vector<int32_t>& draws, Sample* out, std::string* error) const {
    const std::string problem = ready_ ? draws_problem(draws) : "the trainer is not initialised";
    if (!problem.empty()) {
        if (error) *error = problem;
        return false;
    }
    *out = sample_from_draws(draws);
    return true;
}

std::string Trainer::typed_problem(const std::vector<int32_t>& ids, int query, int32_t target) const {
    if (!ready_ || layout_.shape.kind != ModelKind::EncoderOnly) return "typed samples are for encoder-only models";
    const int L = spec_.dec_len();
    if (ids.empty() || static_cast<int>(ids.size()) > L)
        return "a typed sample has 1 to " + std::to_string(L) + " tokens, got " + std::to_string(ids.size());
    for (int32_t id : ids)
        if (id < 0 || id >= spec_.vocab) return "token id " + std::to_string(id) + " is not in [0, " + std::to_string(spec_.vocab - 1) + "]";
    if (query < 0 || query >= static_cast<int>(ids.size())) return "the query position " + std::to_string(query) + " is outside the tokens";
    if (target < 0 || target >= layout_.shape.vocab_out) return "the target class " + std::to_string(target) + " does not exist";
    return "";
}

bool Trainer::make_typed_sample(const std::vector<int32_t>& ids, int query, int32_t target, Sample* out,
                                std::string* error) const {
    const std::string problem = typed_problem(ids, query, target);
    if (!problem.empty()) {
        if (error) *error = problem;
        return false;
    }
    Sample s;
    const size_t L = static_cast<size_t>(spec_.dec_len());
    s.dec_in = ids;
    s.dec_in.resize(L, spec_.bos());
    s.dec_out.assign(L, 0);
    s.loss_mask.assign(L, 0);
    s.dec_out[static_cast<size_t>(query)] = target;
    s.loss_mask[static_cast<size_t>(query)] = 1;
    s.gen_begin = query, s.gen_end = query + 1;
    *out = std::move(s);
    return true;
}

Sample Trainer::sample_from_draws(const std::vector<int32_t>& draws) const {
    Sample s;
    s.draws = draws;
    const int D = spec_.dec_len();
    s.src.assign(static_cast<size_t>(spec_.src_len()), 0);
    s.dec_in.assign(static_cast<size_t>(D), 0);
    s.dec_out.assign(static_cast<size_t>(D), 0);
    const bool masked = spec_.has_loss_mask();
    if (masked) s.loss_mask.assign(static_cast<size_t>(D), 0);
    task_example(s.src.data(), s.dec_in.data(), s.dec_out.data(), masked ? s.loss_mask.data() : nullptr, s.draws.data(), spec_);
    s.gen_begin = 0;
    s.gen_end = D;
    if (masked) {  // the counted positions are one run
        while (s.gen_begin < D && !s.loss_mask[static_cast<size_t>(s.gen_begin)]) ++s.gen_begin;
        s.gen_end = s.gen_begin;
        while (s.gen_end < D && s.loss_mask[static_cast<size_t>(s.gen_end)]) ++s.gen_end;
    }
    return s;
}

Sample Trainer::held_out_sample(int index) const {
    const int n = spec_.draws();
    index = std::max(0, std::min(index, held_out_.count() - 1));
    const auto first = held_out_.draws.begin() + static_cast<long>(index) * n;
    return sample_from_draws(std::vector<int32_t>(first, first + n));
}

bool Trainer::usable(const Sample& s, const std::vector<uint8_t>* head_keep) const {
    if (head_keep && head_keep->size() != layout_.blocks.size() * static_cast<size_t>(layout_.shape.heads)) return false;
    if (ready_ && s.draws.empty() && layout_.shape.kind == ModelKind::EncoderOnly) {  // typed: its arrays are its tokens'
        const auto end = std::find(s.dec_in.begin(), s.dec_in.end(), spec_.bos());
        const std::vector<int32_t> ids(s.dec_in.begin(), end);
        const int32_t target = s.gen_begin >= 0 && s.gen_begin < static_cast<int>(s.dec_out.size()) ? s.dec_out[static_cast<size_t>(s.gen_begin)] : -1;
        Sample canonical;
        if (!make_typed_sample(ids, s.gen_begin, target, &canonical, nullptr)) return false;
        return s.dec_in == canonical.dec_in && s.dec_out == canonical.dec_out && s.loss_mask == canonical.loss_mask &&
               s.gen_end == canonical.gen_end && s.src.empty();
    }
    if (!ready_ || draws_problem(s.draws) != "") return false;
    const Sample canonical = sample_from_draws(s.draws);  // the arrays must be the draws' own
    return s.src == canonical.src && s.dec_in == canonical.dec_in && s.dec_out == canonical.dec_out &&
           s.loss_mask == canonical.loss_mask && s.gen_begin == canonical.gen_begin && s.gen_end == canonical.gen_end;
}

std::vector<int32_t> Trainer::greedy_decode(const Sample& s, const std::vector<uint8_t>* head_keep) {
    if (!usable(s, head_keep)) return {};
    sample_ws_.head_keep = head_keep ? *head_keep : std::vector<uint8_t>{};
    fill_sample(sample_ws_, 0, s);
    const int end = spec_.stop() >= 0 ? spec_.dec_len() : s.gen_end;
    greedy_batch(sample_ws_, {s.gen_begin}, {end}, false);
    fill_sample(sample_ws_, 0, s);  // greedy decoding overwrote dec_in
    return until_stop(std::vector<int32_t>(greedy_.begin() + s.gen_begin, greedy_.begin() + end));
}

std::vector<int32_t> Trainer::until_stop(std::vector<int32_t> tokens) const {
    const auto stop = std::find(tokens.begin(), tokens.end(), spec_.stop());
    if (spec_.stop() >= 0 && stop != tokens.end()) tokens.erase(stop + 1, tokens.end());
    return tokens;
}
const Workspace<float>* Trainer::run_sample(const Sample& s, const std::vector<uint8_t>* head_keep) {
    if (!usable(s, head_keep)) return nullptr;
    sample_ws_.head_keep = head_keep ? *head_keep : std::vector<uint8_t>{};
    fill_sample(sample_ws_, 0, s);
    model_forward(sample_ws_, layout_, params_.data());
    model_backward(sample_ws_, layout_, params_.data(), sample_grads_.data());
    return &sample_ws_;
}

bool Trainer::run_block(const Sample& s, int block, BlockInputs<float>* in) {
    if (!usable(s, nullptr) || block < 0 || block >= static_cast<int>(layout_.blocks.size())) return false;
    run_sample(s);
    *in = block_inputs(sample_ws_, layout_, block);
    return true;
}

AttentionMap Trainer::attention_map(const Sample& s, int block) {
    AttentionMap m;
    BlockInputs<float> in;
    if (!run_block(s, block, &in)) return m;
    m.block = layout_.blocks[static_cast<size_t>(block)];
    m.heads = layout_.shape.heads;
    m.L_q = in.L_q;
    m.L_kv = in.L_kv;
    const float* w = block_acts(sample_ws_, layout_, block).weights.x;
    m.weights.assign(w, w + static_cast<long>(m.heads) * m.L_q * m.L_kv);
    const bool in_encoder = in_encoder_stack(layout_, block);
    m.queries = in_encoder ? s.src : s.dec_in;
    m.keys = in_encoder || m.block.kind == AttentionKind::Cross ? s.src : s.dec_in;
    if (layout_.shape.pad >= 0) cut_padding(m, s, in_encoder);
    return m;
}

// The sentence's rows and columns, not the padding: an encoder-only model's tokens before the
// first padding token; translate's source words before its padding and its target through 。.
void Trainer::cut_padding(AttentionMap& m, const Sample& s, bool in_encoder) const {
    const int pad = layout_.shape.pad;
    auto before_pad = [&](const std::vector<int32_t>& t) { return static_cast<int>(std::find(t.begin(), t.end(), pad) - t.begin()); };
    int n_q = 0, n_kv = 0;
    if (layout_.shape.kind == ModelKind::EncoderOnly) {
        n_q = n_kv = before_pad(s.dec_in);
    } else {
        const int n_src = before_pad(s.src), n_dec = s.gen_end;
        n_q = in_encoder ? n_src : n_dec;
        n_kv = in_encoder || m.block.kind == AttentionKind::Cross ? n_src : n_dec;
    }
    std::vector<float> cut;
    for (int h = 0; h < m.heads; ++h)
        for (int i = 0; i < n_q; ++i) {
            const float* row = m.weights.data() + (static_cast<long>(h) * m.L_q + i) * m.L_kv;
            cut.insert(cut.end(), row, row + n_kv);
        }
    m.weights = std::move(cut);
    m.L_q = n_q, m.L_kv = n_kv;
    m.queries.resize(static_cast<size_t>(n_q));
    m.keys.resize(static_cast<size_t>(n_kv));
}

StepperView Trainer::stepper_view(const Sample& s, int block) {
    StepperView v;
    BlockInputs<float> in;
    if (!run_block(s, block, &in)) return v;
    const ModelShape& m = layout_.shape;
    const int d = m.d_model;
    AttentionConfig& c = v.config;
    c.d_model = d;
    c.heads = m.heads;
    c.seq_len = in.L_q;
    c.kv_len = in.L_kv;
    c.batch = 1;
    c.mask = in.causal ? MaskKind::Causal : MaskKind::None;
    c.cross = layout_.blocks[static_cast<size_t>(block)].kind == AttentionKind::Cross;
    if (m.pad >= 0 && !in.causal) {  // the padding keys are masked out, as in the model
        // (an encoder-only model's tokens; translate's source, read by its encoder and cross-attention)
        const std::vector<int32_t>& keys = m.kind == ModelKind::EncoderOnly ? s.dec_in : s.src;
        c.mask = MaskKind::Padding;
        c.padding_lengths = {static_cast<int>(std::find(keys.begin(), keys.end(), m.pad) - keys.begin())};
    }
    c.scale = m.scale;
    c.pe = false;  // the block's input already holds the positional encoding
    c.bias = m.bias;
    v.inputs.x = Tensor::zeros("x", {1, in.L_q, d}, {"B", "L_q", "d_model"});
    std::copy(in.query_in, in.query_in + static_cast<long>(in.L_q) * d, v.inputs.x.data.begin());
    v.inputs.memory = Tensor::zeros("memory", {1, in.L_kv, d}, {"B", "L_kv", "d_model"});
    std::copy(in.kv_in, in.kv_in + static_cast<long>(in.L_kv) * d, v.inputs.memory.data.begin());
    const AttentionSlots& slots = attention_slots(layout_, block);
    const int kv = m.kv_dim();
    c.kv_heads = m.kv_heads;
    struct Part {
        Tensor* w;
        Tensor* b;
        const char *w_name, *b_name;
        size_t w_at, b_at;
        int d_out;
    };
    const Part parts[] = {{&v.weights.w_q, &v.weights.b_q, "w_q", "b_q", slots.w_q, slots.b_q, d},
                          {&v.weights.w_k, &v.weights.b_k, "w_k", "b_k", slots.w_k, slots.b_k, kv},
                          {&v.weights.w_v, &v.weights.b_v, "w_v", "b_v", slots.w_v, slots.b_v, kv},
                          {&v.weights.w_o, &v.weights.b_o, "w_o", "b_o", slots.w_out, slots.b_out, d}};
    for (const Part& p : parts) {
        *p.w = Tensor::zeros(p.w_name, {d, p.d_out}, {"d_in", "d_out"});
        std::copy(params_.data() + p.w_at, params_.data() + p.w_at + static_cast<long>(d) * p.d_out, p.w->data.begin());
        *p.b = Tensor::zeros(p.b_name, {p.d_out}, {p.d_out == d ? "d_model" : "h_kv*d_k"});
        if (p.b_at != kNoParam) std::copy(params_.data() + p.b_at, params_.data() + p.b_at + p.d_out, p.b->data.begin());
    }
    return v;
}

TrainStats Trainer::stats() const {
    TrainStats st;
    for (const ParamInfo& p : layout_.params) {
        double sq = 0;
        for (size_t e = 0; e < p.size; ++e) sq += static_cast<double>(grads_[p.offset + e]) * grads_[p.offset + e];
        st.params.push_back({p.name, std::sqrt(sq)});
        const std::string group = param_group(p.name);
        if (st.groups.empty() || st.groups.back().name != group) st.groups.push_back({group, 0});
        st.groups.back().norm += sq;  // squared until the end
    }
    for (ParamGradNorm& g : st.groups) g.norm = std::sqrt(g.norm);
    for (size_t blk = 0; blk < layout_.blocks.size(); ++blk) {
        const BlockInputs<float> in = block_inputs(train_ws_, layout_, static_cast<int>(blk));
        const float* w = block_acts(train_ws_, layout_, static_cast<int>(blk)).weights.x;
        const long rows = static_cast<long>(train_ws_.batch) * layout_.shape.heads * in.L_q;
        double sum = 0;
        for (long r = 0; r < rows; ++r) sum += *std::max_element(w + r * in.L_kv, w + (r + 1) * in.L_kv);
        st.saturation.push_back(steps_done_ ? sum / rows : 0);
    }
    return st;
}

bool Trainer::set_param(const std::string& name, const std::vector<float>& torch_values, std::string* error) {
    const ParamInfo* p = layout_.find(name);
    if (!p) {
        if (error) *error = "no parameter named " + name + " in this model";
        return false;
    }
    if (torch_values.size() != p->size) {
        if (error)
            *error = name + " has " + std::to_string(torch_values.size()) + " values, the model needs " +
                     std::to_string(p->size);
        return false;
    }
    from_torch_layout(params_.data(), torch_values.data(), *p);
    return true;
}

bool Trainer::swap_params(std::vector<float>& other) {
    if (other.size() != params_.size()) return false;
    params_.swap(other);
    return true;
}

TrainerState Trainer::save_state() const {
    return {steps_done_, params_, adam_m_, adam_v_, losses_, lrs_, evals_, stream_, stop_};
}

void Trainer::restore_state(const TrainerState& s) {
    if (s.params.size() != params_.size()) return;  // a state of another model
    steps_done_ = s.steps_done;
    params_ = s.params;
    adam_m_ = s.adam_m;
    adam_v_ = s.adam_v;
    losses_ = s.losses;
    lrs_ = s.lrs;
    evals_ = s.evals;
    stream_ = s.stream;
    stop_ = s.stop;
}

}  // namespace lab
