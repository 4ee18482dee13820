// flash_attention.h — Attention Lab core: the online softmax, tile by tile, as FlashAttention
// computes attention (Dao et al. 2022, in FlashAttention-2's loop order: query tiles outside,
// key tiles inside). For each (item, head) the query rows go in tiles of B_r; each walks the
// keys in tiles of B_c, keeping per query row
//   m   the running max of the scores seen so far,
//   l   the running sum of e^(s - m),
//   O   the running sum of e^(s - m) · v (not yet divided by l),
// and when a tile raises the max, l and O are first rescaled by e^(m_old - m_new). After the
// last key tile O / l = softmax(S) V, and the (L_q, L_kv) weights were never stored.
//
//   masked   (B, h, L_q, L_kv)   the scores after the mask (the trace's)
//   v_heads  (B, h, L_kv, d_v)
//   out      (B, h, L_q, d_v)    compared with the naive context (trace/invariants.cpp)
//
// A row whose keys are all masked with -inf keeps m = -inf and l = 0: O / l = 0 / 0 = NaN, as
// the naive softmax gives; with -1e9 it is uniform, as there.
#pragma once
#include <vector>

#include "attention/config.h"

namespace lab {

// One step of the walk: the state of query rows [row0, row0 + rows) after key tile
// [col0, col0 + cols) of slice (item · h + head).
struct FlashTile {
    int slice = 0, row0 = 0, rows = 0, col0 = 0, cols = 0;
    std::vector<float> m, l;      // rows: the running max and sum after this tile
    std::vector<float> rescale;   // rows: e^(m_old - m_new), what the tile did to l and O (1: max unchanged)
    std::vector<float> o;         // rows × d_v: the running output, unnormalised
};

struct FlashRecord {
    int Br = 0, Bc = 0;            // 0: off
    std::vector<FlashTile> tiles;  // slice by slice, each query tile's key tiles in order
    std::vector<float> out;        // (B, h, L_q, d_v) = O / l
    bool on() const { return Br > 0; }
};

// The tiled forward over `slices` (B·h) slices.
void flash_forward(FlashRecord* out, const float* masked, const float* v_heads, int slices, int Lq, int Lkv, int dv,
                   int Br, int Bc);

// The rescaling identity at one tile, recomputed in double from the scores: the largest
// relative error of l against sum over seen keys of e^(s - m), and of O against
// sum e^(s - m) · v; -1 when the recorded m is not the exact max of the scores seen.
double flash_identity_error(const FlashTile& t, const float* masked, const float* v_heads, int Lq, int Lkv, int dv);

// The naive softmax's max and sum of e^(s - max) over a whole row of L scores, what the last
// tile's m and l must equal (0 for a row of -inf only).
struct SoftmaxRowStats {
    float m = 0;
    double l = 0;
};
SoftmaxRowStats naive_row_stats(const float* s, int L);

// Bytes a GPU's HBM would move in float32, naive against tiled: naive writes S and P
// (L_q × L_kv each) and reads them back; tiled reads Q once, K and V once per query tile,
// writes O and (m, l) once.
struct FlashBytes {
    double naive = 0, tiled = 0;
};
FlashBytes flash_bytes(const AttentionConfig& c);
// Bytes the record itself holds (validate() counts them in the trace's size).
double flash_record_bytes(const AttentionConfig& c);

}  // namespace lab
