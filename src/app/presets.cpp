// presets.cpp — Attention Lab app: the presets.
#include "presets.h"

namespace lab {

namespace {
AttentionConfig sized(int d_model, int heads, int seq_len, int batch) {
    AttentionConfig c;
    c.d_model = d_model, c.heads = heads, c.seq_len = seq_len, c.batch = batch;
    return c;
}
}  // namespace

const std::vector<Preset>& presets() {
    static const std::vector<Preset> list = [] {
        AttentionConfig cross = sized(8, 2, 4, 2);
        cross.cross = true, cross.kv_len = 6, cross.mask = MaskKind::None;
        return std::vector<Preset>{
            {"Tiny", "d_model 8, h 2, L 4, B 2: every number fits on screen", sized(8, 2, 4, 2)},
            {"Paper base", "d_model 512, h 8 (d_k 64), L 10, B 2", sized(512, 8, 10, 2)},
            {"Single sentence", "d_model 512, h 8, L 6, B 1", sized(512, 8, 6, 1)},
            {"Cross-attention", "Q from a 4-token decoder input, K and V from a 6-token encoder memory", cross},
        };
    }();
    return list;
}

}  // namespace lab
