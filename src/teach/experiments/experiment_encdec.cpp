// experiment_encdec.cpp — Attention Lab core: the three uses of attention (§3.2.3).
//
//   encoder self-attention:        Q, K, V from the source; every position sees every position.
//   decoder masked self-attention: Q, K, V from the target; causal mask (auto-regressive).
//   encoder-decoder attention:     Q from the target, K and V from the encoder memory;
//                                  no mask, weights (B, h, L_dec, L_enc).
// In a real model the memory is the encoder stack's output and each layer has its own
// weights; here all three share the raw source/target inputs and one set of weights
// (from the base seed), which is enough to compare shapes and masks.
#include "teach/experiments/experiments.h"

namespace lab {

std::vector<AttentionKindTrace> encoder_decoder_experiment(const AttentionConfig& base, int encoder_len, int decoder_len) {
    AttentionConfig common = base;
    common.padding_lengths.clear();
    common.custom_keep.clear();

    AttentionConfig enc = common, dec = common, cross = common;
    enc.cross = false, enc.seq_len = encoder_len, enc.kv_len = 0, enc.mask = MaskKind::None;
    dec.cross = false, dec.seq_len = decoder_len, dec.kv_len = 0, dec.mask = MaskKind::Causal;
    cross.cross = true, cross.seq_len = decoder_len, cross.kv_len = encoder_len, cross.mask = MaskKind::None;
    for (const AttentionConfig* c : {&enc, &dec, &cross})
        if (!validate(*c).empty()) return {};

    // source (B, L_enc, d_model) and target (B, L_dec, d_model), drawn once.
    const AttentionInputs io = make_inputs(cross);
    const AttentionWeights w = make_weights(cross);
    AttentionInputs enc_in, dec_in;
    enc_in.x = io.memory;
    enc_in.x.name = "x";
    enc_in.x.dims = {"B", "L_q", "d_model"};
    enc_in.memory = enc_in.x;
    enc_in.memory.name = "memory";
    enc_in.memory.dims = {"B", "L_kv", "d_model"};
    dec_in.x = io.x;
    dec_in.memory = io.x;
    dec_in.memory.name = "memory";
    dec_in.memory.dims = {"B", "L_kv", "d_model"};

    std::vector<AttentionKindTrace> out;
    out.push_back({"encoder self-attention", Msg(Str::exp_encdec_encoder_label), run_trace(enc, enc_in, w)});
    out.push_back({"decoder masked self-attention", Msg(Str::exp_encdec_decoder_label), run_trace(dec, dec_in, w)});
    out.push_back({"encoder-decoder attention", Msg(Str::exp_encdec_cross_label), run_trace(cross, io, w)});
    return out;
}

}  // namespace lab
