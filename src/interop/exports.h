// exports.h — Attention Lab interop: a stage's tensor or the whole trace as files
// (CSV, .npy via interop/npy.h, JSON), a standalone PyTorch script that reproduces the
// trace, and a plain-text "prompt" describing the current stage.
#pragma once
#include <functional>
#include <string>

#include "base/i18n.h"
#include "trace/trace.h"

namespace lab {

// CSV: a comment line with the name and named shape, a header row of index columns
// and values ("b,h,i,d0,d1,..."), then one row per vector along the last axis.
std::string tensor_csv(const Tensor& t);
// {"name", "shape", "dims", "data": nested arrays}; NaN and -inf as null.
std::string tensor_json(const Tensor& t);
// {"config", "stages", "fully_masked_rows", "tensors": [tensor_json...]}; stage titles,
// shape steps and checks in `lang`.
std::string trace_json(const Trace& trace, Lang lang);
// "attn_d512_h8_L10_B2_causal_s42_weights.csv": stage/tensor and configuration in the name.
std::string export_file_name(const AttentionConfig& c, const std::string& what, const std::string& ext);

// A standalone .py from the template interop/pytorch_script.py: embeds the exact inputs
// and weights, runs torch.nn.functional.multi_head_attention_forward (explicit steps when
// scaling is off), prints the shapes the way the tutorials do, and asserts
// torch.allclose against the lab's weights and output. Exit 0 when PyTorch agrees.
std::string pytorch_script(const Trace& trace);

// A filled-in text template (the scripts above): "#@if NAME" / "#@else" / "#@end" lines
// keep or drop what they enclose (nested), other "#@" lines are the template's own
// comments, {{name}} becomes value_of(name).
std::string fill_template(const char* text, const std::function<bool(const std::string&)>& flag_of,
                          const std::function<std::string(const std::string&)>& value_of);

// Plain text for pasting into a chat, in `lang`: formula, shapes, a few rows of values
// for (batch item, head), invariant results.
std::string stage_prompt_text(const Trace& trace, int stage, int batch_item, int head, Lang lang);

}  // namespace lab
