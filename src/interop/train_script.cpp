// train_script.cpp — Attention Lab interop: a standalone PyTorch script that rebuilds a
// model trained in the lab from PyTorch's own layers and checks one sample's logits.
//
// The script is the Python template interop/train_script.py (compiled in, like the
// attention script's); its numbers (the sample's tokens, the lab's logits) are printed
// with %.9g, which float32 reads back exactly. The weights stay in the checkpoint
// download the script reads (checkpoint.h, archive.h).
#include <cstdio>

#include "interop/exports.h"
#include "interop/train_script.h"
#include "lab_text_templates.h"

namespace lab {

namespace {

std::string tokens_text(const std::vector<int32_t>& tokens) {
    std::string s;
    for (size_t i = 0; i < tokens.size(); ++i) s += (i ? ", " : "") + std::to_string(tokens[i]);
    return s;
}

// One row of logits per position: "    [a, b, ...],\n".
std::string logits_text(const std::vector<float>& logits, int vocab_out) {
    std::string s;
    char buf[32];
    for (size_t i = 0; i < logits.size(); ++i) {
        if (i % vocab_out == 0) s += "    [";
        std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(logits[i]));
        s += buf;
        s += (i + 1) % vocab_out == 0 ? "],\n" : ", ";
    }
    return s;
}

}  // namespace

std::string train_pytorch_script(Trainer& t, const Sample& s, const TrainScriptNames& names) {
    const TrainConfig& c = t.config();
    const ModelShape& m = t.layout().shape;
    const std::vector<float> logits = t.logits(s.src, s.dec_in, 1);
    const std::pair<const char*, std::string> values[] = {
        {"archive", names.archive},
        {"script", names.script},
        {"weights", names.weights},
        {"task", task_name(c.task)},
        {"model", model_kind_label(m.kind)},
        {"layers", std::to_string(c.layers)},
        {"d_model", std::to_string(c.d_model)},
        {"heads", std::to_string(c.heads)},
        {"kv_heads", std::to_string(m.h_kv())},
        {"d_ff", std::to_string(c.d_ff)},
        {"vocab", std::to_string(c.vocab)},
        {"length", std::to_string(c.length)},
        {"scale", c.scale ? "on" : "off"},
        {"pe", c.pe ? "on" : "off"},
        {"bias", c.bias ? "on" : "off"},
        {"steps", std::to_string(names.steps >= 0 ? names.steps : t.steps_done())},
        {"bos", std::to_string(t.task().bos())},
        {"src", tokens_text(s.src)},
        {"dec_in", tokens_text(s.dec_in)},
        {"logits", logits_text(logits, m.vocab_out)},
    };
    return fill_template(
        kText_train_script, [](const std::string&) { return false; },
        [&](const std::string& name) {
            for (const auto& [key, text] : values)
                if (name == key) return text;
            return "{{" + name + "}}";
        });
}

}  // namespace lab
