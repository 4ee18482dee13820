// url_state.h — Attention Lab app data: the page's state in the URL hash, so a copied
// link reopens the same view and a reload restores it.
//
//   #d_model=512&heads=8&seq_len=10&batch=2&seed=42&mask=padding&pad=10,7&fill=inf
//    &scale=1&pe=1&bias=1&cross=0&kv_len=0&tokens=the%20cat%20sat&stage=softmax&b=1&head=3&all=0&lang=zh
//
// Decoding never fails: unknown keys, malformed values, duplicates and invalid
// combinations are reported as notes and fall back to defaults. The configuration's
// keys are the rows of attention/config_keys.h; the view's (tokens, stage, b, head, all,
// exp, lesson, step, lang) are this file's; "<experiment>.<option>" keys are the experiment's own
// (read by the app with that experiment's key table, e.g. scaling.keys=10).
//
// A link to the Train view holds the training run's knobs instead (train_keys() of
// train/train_config.h, the task first) and the language:
//   #train=reverse&layers=1&heads=4&d_model=32&...&lr=const:0.003&eval_every=50&eval_size=256&lang=zh
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "attention/config.h"
#include "attention/config_keys.h"
#include "base/message.h"
#include "train/train_config.h"

namespace lab {

// The stage stepper's choice: the page keeps one (LabApp::view) and the hash one.
struct StageSelection {
    int stage = 0;           // index into stage_infos()
    int batch_item = 0;
    int head = 0;
    bool all_heads = false;  // small multiples of every head
};

struct ViewSelection : StageSelection {
    std::string experiment;  // "" = the stage stepper; else an experiment key ("scaling", "heads", ...)
    int lesson = 0;          // 1-based index into lessons() (teach/lessons/lessons.h); 0 = no lesson
    int lesson_step = 0;     // 1-based step of that lesson
    // An experiment's own options, "<experiment>.<key>=<value>" in the hash (scaling.keys=10),
    // in the order given: the app reads them with that experiment's key table.
    std::vector<std::pair<std::string, std::string>> experiment_options;
    // The stepper on a trained model (app/state/stepper_model.h): stage=<block stage key> shows one
    // of the block's stages; model=1&layer=L&sublayer=K picks the attention; grad=1 the backward view.
    int block_stage = -1;    // a BlockStageId, or -1 for `stage`
    bool model = false;
    int layer = 0;
    std::string sublayer = "cross";
    bool backward = false;
};

struct UrlState {
    AttentionConfig config;
    std::vector<std::string> tokens;
    ViewSelection view;
    std::string lang;  // interface language "en" / "zh"; "" = not in the hash (the browser's language decides)
    bool train = false;        // the Train view (train=TASK): train_config instead of config and view
    TrainConfig train_config;  // resolved
};

struct UrlDecode {
    UrlState state;
    std::vector<Msg> notes;  // e.g. "hash: heads='x' is not a whole number in [1, 4096]; using 2"
};

std::string encode_url_state(const UrlState& s);   // without the leading '#'
UrlDecode decode_url_state(const std::string& hash);  // with or without the leading '#'

// The hash syntax of any key table's keys (attention/config_keys.h), for other configurations'
// links: "d_model=8&heads=2&...", and one key=value read into the configuration (a note
// for what is wrong, the value kept). False when no key has that name. A matrix key's
// text goes to *matrix_text, to be checked by the caller once every size is known.
std::string encode_keys(const std::vector<ConfigKey>& rows, const void* config);
// The same as (hash name, value) pairs, for keys the caller names itself (an experiment's options).
std::vector<std::pair<std::string, std::string>> hash_pairs(const std::vector<ConfigKey>& rows, const void* config);
// `prefix` is what notes put before the key's name ("scaling." for an experiment's option).
bool decode_key(const std::vector<ConfigKey>& rows, const std::string& key, const std::string& value, void* config,
                std::vector<Msg>* notes, std::string* matrix_text, const std::string& prefix = "");

std::string percent_encode(const std::string& s);
std::string percent_decode(const std::string& s);  // invalid escapes are kept literally

}  // namespace lab
