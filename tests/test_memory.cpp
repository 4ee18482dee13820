// test_memory.cpp — memory stays put across knob changes: the trace recomputed in place
// (what the page does on every knob change) and training runs started over with other
// knobs hold no more bytes after 1,000 changes than after the first round of them, and
// the allocator's heap (the wasm memory, in the wasm build of this suite) does not grow.
//
// Slack: glibc counts the chunks parked in its per-thread cache as in use, so the same
// state reads a few hundred bytes apart from one round to the next. 16 KB is what a leak
// of 16 bytes per change would add over 1,000 changes; the heap may differ by one wasm page.
#include <doctest/doctest.h>

#include <malloc.h>

#include <cstring>
#include <vector>

#include "trace/trace.h"
#include "train/trainer.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#endif

using namespace lab;

namespace {

struct HeapUse {
    size_t in_use = 0;  // bytes handed out by malloc and not freed
    size_t held = 0;    // bytes the allocator holds from the system (wasm: the memory's size)
};

HeapUse heap_use() {
#ifdef __EMSCRIPTEN__
    const struct mallinfo m = mallinfo();
    return {static_cast<size_t>(m.uordblks), emscripten_get_heap_size()};
#else
    const struct mallinfo2 m = mallinfo2();
    return {m.uordblks + m.hblkhd, m.arena + m.hblkhd};
#endif
}

// The knobs a learner turns, one configuration per change (sizes grow and shrink).
std::vector<AttentionConfig> knob_changes() {
    std::vector<AttentionConfig> out;
    AttentionConfig c;
    out.push_back(c);
    c.seq_len = 16, out.push_back(c);
    c.heads = 4, out.push_back(c);
    c.d_model = 64, c.seq_len = 96, out.push_back(c);
    c.mask = MaskKind::None, out.push_back(c);
    c.pe = false, out.push_back(c);
    c.cross = true, c.kv_len = 40, out.push_back(c);
    c = AttentionConfig{}, c.batch = 3, c.mask_fill = MaskFill::NegBillion, out.push_back(c);
    c.seed = 7, c.scale = false, out.push_back(c);
    return out;
}

constexpr size_t kInUseSlack = 16 * 1024, kHeldSlack = 64 * 1024;

void check_no_growth(const HeapUse& first, const HeapUse& after) {
    INFO("in use " << first.in_use << " -> " << after.in_use << " bytes, held " << first.held << " -> " << after.held);
    CHECK(after.in_use <= first.in_use + kInUseSlack);
    CHECK(after.held <= first.held + kHeldSlack);
}

}  // namespace

TEST_CASE("memory: 1,000 knob changes of the trace hold no more than the first round") {
    const std::vector<AttentionConfig> configs = knob_changes();
    Trace trace;
    auto change = [&](int i) {
        const AttentionConfig& c = configs[i % configs.size()];
        REQUIRE(validate(c).empty());
        run_trace(trace, c, make_inputs(c), make_weights(c));
    };
    for (size_t i = 0; i < configs.size(); ++i) change(static_cast<int>(i));  // every size seen once
    const HeapUse first = heap_use();
    const size_t first_tensors = trace.tensors.size();
    const int n = static_cast<int>(configs.size());
    const int changes = (1000 + n - 1) / n * n;  // at least 1,000, whole rounds: ends where the first round ended
    for (int i = 0; i < changes; ++i) change(n + i);
    CHECK(trace.tensors.size() == first_tensors);
    check_no_growth(first, heap_use());
}

// Tensors are allocated without zero-filling (base/tensor.h): every stage must write every
// value it records. A trace recomputed in place over buffers poisoned with a NaN of a payload
// no computation makes must equal a fresh trace bit for bit, tensor by tensor.
TEST_CASE("memory: a trace recomputed over poisoned buffers equals a fresh one (every value is written)") {
    float poison;
    const uint32_t bits = 0x7fc0dead;
    std::memcpy(&poison, &bits, sizeof poison);
    for (const AttentionConfig& c : knob_changes()) {
        REQUIRE(validate(c).empty());
        const AttentionInputs in = make_inputs(c);
        const AttentionWeights w = make_weights(c);
        Trace kept = run_trace(c, in, w);
        for (Tensor& t : kept.tensors)  // but the positional encoding: a pass keeps a table of the same shape
            if (t.name != tensor_name(TensorId::Pe)) std::fill(t.data.begin(), t.data.end(), poison);
        run_trace(kept, c, in, w);
        const Trace fresh = run_trace(c, in, w);
        REQUIRE(kept.tensors.size() == fresh.tensors.size());
        for (size_t i = 0; i < fresh.tensors.size(); ++i) {
            const Tensor &a = kept.tensors[i], &b = fresh.tensors[i];
            INFO(b.name, " at seq_len ", c.seq_len, " d_model ", c.d_model);
            REQUIRE(a.size() == b.size());
            CHECK(std::memcmp(a.ptr(), b.ptr(), sizeof(float) * a.size()) == 0);
        }
    }
}

TEST_CASE("memory: 1,000 training restarts with other knobs hold no more than the first round") {
    std::vector<TrainConfig> configs;
    TrainConfig t;
    t.d_model = 16, t.heads = 2, t.batch = 4, t.eval_size = 8, configs.push_back(t);
    t.task = TaskKind::Copy, t.length = 6, configs.push_back(t);
    t.task = TaskKind::Induction, t.layers = 2, configs.push_back(t);
    t.d_model = 24, t.heads = 4, t.layers = 1, t.task = TaskKind::Sort, configs.push_back(t);
    Trainer trainer;
    auto change = [&](int i) {
        std::vector<ConfigError> errors;
        REQUIRE(trainer.init(configs[i % configs.size()], &errors));
        CHECK(trainer.step(1) == 1);
    };
    for (size_t i = 0; i < configs.size(); ++i) change(static_cast<int>(i));
    const HeapUse first = heap_use();
    for (int i = 0; i < 1000; ++i) change(i);  // 1000 % 4 == 0: ends on the first round's last config
    check_no_growth(first, heap_use());
}
