// checkpoint.h — Attention Lab interop: training checkpoint folders that PyTorch
// users load directly, and reading them back.
//
//   manifest.json   {"config": {...every knob, "model", "vocab_size", "bos", "layer_norm_eps",
//                    "label_smoothing", "lr": {"schedule": "paper", "factor", "warmup"} |
//                    {"schedule": "const", "rate"}}, "params": [{"name", "file", "shape"}],
//                    "steps": S, "evals": [{"step", "loss", "token_accuracy", "exact_accuracy"}]}
//   init/NAME.npy   every parameter before training   } float32, C order, named and shaped
//   final/NAME.npy  every parameter after S steps      } as PyTorch's state_dict keys
//   batches/        the int64 batches of every step, (S, B, len): src, tgt_in, tgt_out
//                   (encoder–decoder; translate also tgt_mask) or tokens, targets, loss_mask (decoder-only)
//   loss.npy (S,)   the loss before each update;  lr.npy (S,) the rate of each step (float32)
//   grad1/NAME.npy  every parameter's gradient at step 1 (float32)
//   logits.npy      (B, dec_len, vocab_out) the final parameters' logits on step 1's batch
// "final" checkpoints (the shipped ones) hold manifest.json, final/, loss.npy and lr.npy;
// "weights" (the page's download) those and init/.
// Every file is a function of the config alone: the bytes repeat when the arithmetic
// does (see README: the wasm build). The config's keys are the rows of train_keys()
// (train/train_config.h), written in their order with the model's derived numbers
// beside them; the reader reads the same rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/config.h"
#include "interop/archive.h"
#include "train/trainer.h"

namespace lab {

enum class CheckpointParts { All, Final, Weights };

// What a run collects for a full checkpoint besides the trainer's own state.
struct CheckpointRecord {
    std::vector<float> init_params;  // the flat buffer before step 1
    std::vector<float> grad1;        // the flat gradient of step 1
    std::vector<int32_t> src, dec_in, dec_out;  // (S, B, len), appended per step
    std::vector<uint8_t> loss_mask;             // (S, B, dec_len), decoder-only and translate

    void add_step(const Trainer& t);  // after each step: its batch (and at step 1 its gradient)
};

std::string checkpoint_manifest(const Trainer& t);
// Writes the folder (created, or an existing empty one). False with a message on I/O failure.
bool write_checkpoint(const std::string& dir, Trainer& t, const CheckpointRecord& record, CheckpointParts parts,
                      std::string* error);
// The same files in memory, paths relative to the folder ("manifest.json", "final/x.npy").
std::vector<ArchiveFile> checkpoint_files(Trainer& t, const CheckpointRecord& record, CheckpointParts parts);
// Why dir cannot receive a checkpoint (empty when it can): a file, or a folder that is not empty.
Msg checkpoint_dir_problem(const std::string& dir);

// A manifest's config as a TrainConfig (every knob the trainer needs); errors name
// the key. The config is validated like the CLI's.
bool parse_checkpoint_config(const std::string& manifest_text, TrainConfig* out, std::vector<ConfigError>* errors);
// Initialises the trainer from dir/manifest.json and loads final/ (or init/) parameters.
bool load_checkpoint(const std::string& dir, const std::string& part, Trainer* t, std::vector<ConfigError>* errors);
// The same from files in memory (paths as checkpoint_files writes them), e.g. the
// shipped checkpoint the page fetched.
bool load_checkpoint_files(const std::vector<ArchiveFile>& files, const std::string& part, Trainer* t,
                           std::vector<ConfigError>* errors);

// What a checkpoint says about the run that made it: its steps, the loss of every step
// (loss.npy; empty when the files lack it) and manifest.json's held-out evaluations.
struct CheckpointHistory {
    int steps = 0;
    std::vector<float> losses;
    std::vector<EvalReport> evals;
};
CheckpointHistory checkpoint_history(const std::vector<ArchiveFile>& files);

}  // namespace lab
