// length_sweep.cpp — Attention Lab core: the L sweep.
#include "trace/length_sweep.h"

#include <algorithm>
#include <cmath>

#include "trace/cost_model.h"
#include "trace/trace.h"

namespace lab {

std::vector<SweepPoint> sweep_lengths(const AttentionConfig& base, const std::vector<int>& lengths, int repeats) {
    std::vector<SweepPoint> out;
    AttentionConfig c = base;
    c.cross = false, c.kv_len = 0, c.batch = 1;
    if (c.mask == MaskKind::Padding || c.mask == MaskKind::Custom) c.mask = MaskKind::Causal;  // sized per length
    const AttentionWeights w = make_weights(c);  // independent of L
    for (int L : lengths) {
        c.seq_len = L;
        if (!validate(c).empty()) continue;
        const AttentionInputs in = make_inputs(c);
        SweepPoint p;
        p.seq_len = L;
        // Mean over the repeats (more for short lengths): browsers clamp their clock
        // to 0.1 ms, so one run of a tiny trace would read as 0.
        const int runs = std::max(1, repeats) * std::max(1, 256 / L);
        for (int r = 0; r < runs; ++r) {
            const Trace tr = run_trace(c, in, w);
            auto ms = [&](StageId id) { return tr.stage_ms[static_cast<int>(id)]; };
            p.attention_ms += ms(StageId::Scores) + ms(StageId::Scale) + ms(StageId::Mask) + ms(StageId::Softmax) +
                              ms(StageId::Context);
            p.projection_ms += ms(StageId::Project) + ms(StageId::Output);
        }
        p.attention_ms /= runs;
        p.projection_ms /= runs;
        for (StageId id : {StageId::Scores, StageId::Scale, StageId::Mask, StageId::Softmax, StageId::Context})
            p.attention_flops += stage_cost(c, id).flops;
        p.projection_flops = stage_cost(c, StageId::Project).flops + stage_cost(c, StageId::Output).flops;
        out.push_back(p);
    }
    return out;
}

double fit_power(const std::vector<double>& x, const std::vector<double>& y, double power) {
    // minimise sum (a x^p - y)^2  =>  a = sum(x^p y) / sum(x^2p)
    double num = 0, den = 0;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        const double xp = std::pow(x[i], power);
        num += xp * y[i];
        den += xp * xp;
    }
    return den > 0 ? num / den : 0;
}

}  // namespace lab
