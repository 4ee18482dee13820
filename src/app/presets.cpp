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
            {"Tiny", UiStr::ui_preset_tiny, UiStr::ui_preset_tiny_what, sized(8, 2, 4, 2)},
            {"Paper base", UiStr::ui_preset_paper, UiStr::ui_preset_paper_what, sized(512, 8, 10, 2)},
            {"Single sentence", UiStr::ui_preset_sentence, UiStr::ui_preset_sentence_what, sized(512, 8, 6, 1)},
            {"Cross-attention", UiStr::ui_preset_cross, UiStr::ui_preset_cross_what, cross},
        };
    }();
    return list;
}

}  // namespace lab
