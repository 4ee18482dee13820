// flash_attention.cpp — Attention Lab core: the online softmax tile by tile (see the header).
#include "attention/flash_attention.h"

#include <algorithm>
#include <cmath>

namespace lab {

namespace {

// One key tile for one query tile: raise the max, rescale what was summed, add the tile.
void flash_tile_step(FlashTile& t, const float* s, const float* v, int Lkv, int dv) {
    for (int r = 0; r < t.rows; ++r) {
        const float* row = s + static_cast<long>(t.row0 + r) * Lkv;
        float tile_max = -INFINITY;
        for (int j = t.col0; j < t.col0 + t.cols; ++j) tile_max = std::fmax(tile_max, row[j]);
        const float m_new = std::fmax(t.m[r], tile_max);
        // Nothing seen yet but -inf: keep the factor 1 and add e^(-inf) = 0 (no -inf - -inf).
        const float rescale = m_new == -INFINITY ? 1.0f : std::exp(t.m[r] - m_new);
        float* o = t.o.data() + static_cast<long>(r) * dv;
        t.l[r] *= rescale;
        for (int d = 0; d < dv; ++d) o[d] *= rescale;
        for (int j = t.col0; j < t.col0 + t.cols; ++j) {
            const float p = m_new == -INFINITY ? 0.0f : std::exp(row[j] - m_new);
            t.l[r] += p;
            for (int d = 0; d < dv; ++d) o[d] += p * v[static_cast<long>(j) * dv + d];
        }
        t.m[r] = m_new, t.rescale[r] = rescale;
    }
}

}  // namespace

void flash_forward(FlashRecord* out, const float* masked, const float* v_heads, int slices, int Lq, int Lkv, int dv,
                   int Br, int Bc) {
    out->Br = Br, out->Bc = Bc;
    out->tiles.clear();
    out->out.assign(static_cast<size_t>(slices) * Lq * dv, 0.0f);
    for (int sl = 0; sl < slices; ++sl) {
        const float* s = masked + static_cast<long>(sl) * Lq * Lkv;
        const float* v = v_heads + static_cast<long>(sl) * Lkv * dv;
        for (int row0 = 0; row0 < Lq; row0 += Br) {
            FlashTile t;
            t.slice = sl, t.row0 = row0, t.rows = std::min(Br, Lq - row0);
            t.m.assign(t.rows, -INFINITY), t.l.assign(t.rows, 0.0f), t.rescale.assign(t.rows, 1.0f);
            t.o.assign(static_cast<size_t>(t.rows) * dv, 0.0f);
            for (int col0 = 0; col0 < Lkv; col0 += Bc) {
                t.col0 = col0, t.cols = std::min(Bc, Lkv - col0);
                flash_tile_step(t, s, v, Lkv, dv);
                out->tiles.push_back(t);
            }
            for (int r = 0; r < t.rows; ++r)  // O / l: 0 / 0 = NaN for a row that kept no key (-inf)
                for (int d = 0; d < dv; ++d)
                    out->out[(static_cast<long>(sl) * Lq + row0 + r) * dv + d] = t.o[static_cast<long>(r) * dv + d] / t.l[r];
        }
    }
}

double flash_identity_error(const FlashTile& t, const float* masked, const float* v_heads, int Lq, int Lkv, int dv) {
    const float* s = masked + static_cast<long>(t.slice) * Lq * Lkv;
    const float* v = v_heads + static_cast<long>(t.slice) * Lkv * dv;
    const int seen = t.col0 + t.cols;
    double worst = 0;
    for (int r = 0; r < t.rows; ++r) {
        const float* row = s + static_cast<long>(t.row0 + r) * Lkv;
        float m = -INFINITY;
        for (int j = 0; j < seen; ++j) m = std::fmax(m, row[j]);
        if (!(m == t.m[r] || (std::isnan(m) && std::isnan(t.m[r])))) return -1;
        if (m == -INFINITY) {  // nothing kept yet: l and O must still be 0
            worst = std::fmax(worst, std::fabs(t.l[r]));
            continue;
        }
        double l = 0, o_scale = 0, o_err = 0;
        std::vector<double> o(dv, 0.0);
        for (int j = 0; j < seen; ++j) {
            const double p = std::exp(double(row[j]) - m);
            l += p;
            for (int d = 0; d < dv; ++d) o[d] += p * v[static_cast<long>(j) * dv + d];
        }
        for (int d = 0; d < dv; ++d) {
            o_scale = std::fmax(o_scale, std::fabs(o[d]));
            o_err = std::fmax(o_err, std::fabs(o[d] - t.o[static_cast<long>(r) * dv + d]));
        }
        worst = std::fmax(worst, std::fabs(l - t.l[r]) / l);
        worst = std::fmax(worst, o_err / (o_scale + l));  // O relative to its size (or to l, where O is near 0)
    }
    return worst;
}

SoftmaxRowStats naive_row_stats(const float* s, int L) {
    SoftmaxRowStats r;
    r.m = -INFINITY;
    for (int j = 0; j < L; ++j) r.m = std::fmax(r.m, s[j]);
    for (int j = 0; j < L; ++j) r.l += r.m == -INFINITY ? 0.0 : std::exp(double(s[j]) - r.m);
    return r;
}

FlashBytes flash_bytes(const AttentionConfig& c) {
    const double slices = double(c.batch) * c.heads, Lq = c.L_q(), Lkv = c.L_kv(), dk = c.d_k(), dv = c.d_v();
    const double query_tiles = c.flash_tile.size() == 2 ? std::ceil(Lq / c.flash_tile[0]) : 1;
    FlashBytes b;
    b.naive = 4 * slices * (Lq * dk + Lkv * dk + 2 * Lq * Lkv /* S */ + 2 * Lq * Lkv /* P */ + Lkv * dv + Lq * dv);
    b.tiled = 4 * slices * (Lq * dk + query_tiles * Lkv * (dk + dv) + Lq * dv + 2 * Lq);
    return b;
}

double flash_record_bytes(const AttentionConfig& c) {
    if (c.flash_tile.size() != 2 || c.flash_tile[0] < 1 || c.flash_tile[1] < 1) return 0;
    const double slices = double(c.batch) * c.heads, Lq = c.L_q(), dv = c.d_v();
    const double key_tiles = std::ceil(double(c.L_kv()) / c.flash_tile[1]);
    return 4 * slices * (Lq * dv + key_tiles * Lq * (3 + dv));  // out, and per key tile every row's m, l, rescale, O
}

}  // namespace lab
