// train_script.h — Attention Lab interop: the PyTorch script of a trained model
// (the template interop/train_script.py). It reads the checkpoint download
// (checkpoint_files(..., CheckpointParts::Weights) in a tar, archive.h), loads the
// final weights into nn.TransformerEncoderLayer / nn.TransformerDecoderLayer stacks
// with load_state_dict, runs the sample and exits 0 when the logits match the lab's
// within 1e-5 · max(1, max |logit|).
#pragma once
#include <string>

#include "train/trainer.h"

namespace lab {

struct TrainScriptNames {
    std::string archive;  // the checkpoint download's file name, read from the script's folder
    std::string script;   // the script's own file name (its usage line)
    std::string weights;  // where the weights come from, for its header ("trained for 400 steps")
    int steps = -1;       // the checkpoint's steps (manifest.json "steps"); -1: the trainer's
};

std::string train_pytorch_script(Trainer& t, const Sample& s, const TrainScriptNames& names);

}  // namespace lab
