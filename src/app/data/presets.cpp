// presets.cpp — Attention Lab app: the presets.
#include "app/data/presets.h"

#include "base/tokens.h"

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
        // Tutorial 000's first example: scaled_dot_product_attention(Q, K, V) on (2, 4, 64) tensors.
        AttentionConfig raw = sized(64, 1, 4, 2);
        raw.raw = true, raw.pe = false, raw.bias = false, raw.mask = MaskKind::None;
        AttentionConfig cross = sized(8, 2, 4, 2);
        cross.cross = true, cross.kv_len = 6, cross.mask = MaskKind::None;
        return std::vector<Preset>{
            {"Tiny", UiStr::ui_preset_tiny, UiStr::ui_preset_tiny_what, sized(8, 2, 4, 2)},
            {"Paper base", UiStr::ui_preset_paper, UiStr::ui_preset_paper_what, sized(512, 8, 10, 2)},
            // seq_len follows the sentence (choose_preset).
            {"Single sentence", UiStr::ui_preset_sentence, UiStr::ui_preset_sentence_what, sized(512, 8, 1, 1),
             UiStr::ui_preset_sentence_text},
            {"Cross-attention", UiStr::ui_preset_cross, UiStr::ui_preset_cross_what, cross},
            {"Raw SDPA", UiStr::ui_preset_raw, UiStr::ui_preset_raw_what, raw},
        };
    }();
    return list;
}

const Preset* find_preset(const std::string& name) {
    for (const Preset& p : presets())
        if (name == p.name) return &p;
    return nullptr;
}

PresetChoice choose_preset(const Preset& p, Lang lang) {
    PresetChoice out{p.config, ""};
    if (p.sentence == UiStr::Count_) return out;
    out.token_text = tr(p.sentence, lang);
    out.config.seq_len = static_cast<int>(split_tokens(out.token_text).tokens.size());
    return out;
}

}  // namespace lab
