// checkpoint.cpp — Attention Lab interop: writing and reading training checkpoints
// (nlohmann-json without exceptions, .npy through the core).
#include "checkpoint.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../core/npy.h"

namespace lab {

namespace {

using ojson = nlohmann::ordered_json;

ojson config_json(const Trainer& t) {
    const TrainConfig& c = t.config();
    const ModelShape& m = t.layout().shape;
    ojson j;
    j["task"] = task_name(c.task);
    j["model"] = m.kind == ModelKind::EncoderDecoder ? "encoder_decoder" : "decoder_only";
    j["layers"] = c.layers;
    j["heads"] = c.heads;
    j["d_model"] = c.d_model;
    j["d_ff"] = c.d_ff;
    j["vocab"] = c.vocab;
    j["vocab_size"] = m.vocab_size;
    j["vocab_out"] = m.vocab_out;
    j["bos"] = t.task().bos();
    j["length"] = c.length;
    j["gap"] = c.gap;
    j["src_len"] = m.src_len;
    j["dec_len"] = m.dec_len;
    j["batch"] = c.batch;
    j["steps"] = c.steps;
    j["seed"] = c.seed;
    j["scale"] = c.scale;
    j["pe"] = c.pe;
    j["bias"] = c.bias;
    j["label_smoothing"] = c.label_smoothing;
    j["layer_norm_eps"] = m.layer_norm_eps;
    j["dropout"] = 0.0;
    j["tie_embeddings"] = false;
    j["norm_first"] = false;
    if (c.lr.schedule == LrSchedule::Paper) j["lr"] = {{"schedule", "paper"}, {"factor", c.lr.factor}, {"warmup", c.lr.warmup}};
    else j["lr"] = {{"schedule", "const"}, {"rate", c.lr.rate}};
    const AdamConfig adam;
    j["adam"] = {{"beta1", adam.beta1}, {"beta2", adam.beta2}, {"eps", adam.eps}};
    j["eval_every"] = c.eval_every;
    j["eval_size"] = c.eval_size;
    j["target_exact"] = c.target_exact;
    return j;
}

std::string npy_f32(const std::vector<int>& shape, const float* data) {
    return encode_npy_items("<f4", shape, data, sizeof(float));
}

// (S, B, len) int64 from int32 or uint8 values.
template <typename V>
std::string npy_i64(int steps, int batch, int len, const std::vector<V>& values) {
    std::vector<int64_t> wide(values.begin(), values.end());
    return encode_npy_items("<i8", {steps, batch, len}, wide.data(), sizeof(int64_t));
}

bool write_params(const std::string& folder, const Trainer& t, const std::vector<float>& flat, std::string* error) {
    std::vector<float> torch_order;
    for (const ParamInfo& p : t.layout().params) {
        torch_order.resize(p.size);
        to_torch_layout(torch_order.data(), flat.data(), p);
        if (!write_file(folder + "/" + p.name + ".npy", npy_f32(p.torch_shape, torch_order.data()), error)) return false;
    }
    return true;
}

bool make_dir(const std::string& dir, std::string* error) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        if (error) *error = "cannot create " + dir + ": " + ec.message();
        return false;
    }
    return true;
}

}  // namespace

void CheckpointRecord::add_step(const Trainer& t) {
    const Workspace<float>& ws = t.batch();
    src.insert(src.end(), ws.src.begin(), ws.src.end());
    dec_in.insert(dec_in.end(), ws.dec_in.begin(), ws.dec_in.end());
    dec_out.insert(dec_out.end(), ws.dec_out.begin(), ws.dec_out.end());
    loss_mask.insert(loss_mask.end(), ws.loss_mask.begin(), ws.loss_mask.end());
    if (t.steps_done() == 1) grad1 = t.grads();
}

std::string checkpoint_manifest(const Trainer& t) {
    ojson j;
    j["config"] = config_json(t);
    ojson params = ojson::array();
    for (const ParamInfo& p : t.layout().params)
        params.push_back({{"name", p.name}, {"file", p.name + ".npy"}, {"shape", p.torch_shape}});
    j["params"] = params;
    j["steps"] = t.steps_done();
    ojson evals = ojson::array();
    for (const EvalReport& e : t.evals())
        evals.push_back({{"step", e.step}, {"loss", e.loss}, {"token_accuracy", e.token_accuracy},
                         {"exact_accuracy", e.exact_accuracy}});
    j["evals"] = evals;
    if (t.stop().cause != StopCause::None) j["stopped"] = {{"step", t.stop().step}, {"message", t.stop().message}};
    return j.dump(1) + "\n";
}

std::string checkpoint_dir_problem(const std::string& dir) {
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) return "";
    if (!std::filesystem::is_directory(dir, ec)) return dir + " exists and is not a folder";
    if (!std::filesystem::is_empty(dir, ec)) return dir + " is not empty: give a new or an empty folder";
    return "";
}

bool write_checkpoint(const std::string& dir, Trainer& t, const CheckpointRecord& record, CheckpointParts parts,
                      std::string* error) {
    const int S = t.steps_done(), B = t.config().batch;
    const bool all = parts == CheckpointParts::All;
    for (const char* sub : {"final", "init", "grad1", "batches"})
        if ((all || std::string(sub) == "final") && !make_dir(dir + "/" + sub, error)) return false;
    if (!write_file(dir + "/manifest.json", checkpoint_manifest(t), error)) return false;
    if (!write_params(dir + "/final", t, t.params(), error)) return false;
    if (!write_file(dir + "/loss.npy", npy_f32({S}, t.losses().data()), error)) return false;
    if (!write_file(dir + "/lr.npy", npy_f32({S}, t.lrs().data()), error)) return false;
    if (!all) return true;
    if (!write_params(dir + "/init", t, record.init_params, error)) return false;
    if (!record.grad1.empty() && !write_params(dir + "/grad1", t, record.grad1, error)) return false;
    const TaskSpec& spec = t.task();
    if (S > 0) {
        const size_t first_src = static_cast<size_t>(B) * spec.src_len(), first_dec = static_cast<size_t>(B) * spec.dec_len();
        const std::vector<int32_t> src(record.src.begin(), record.src.begin() + first_src);
        const std::vector<int32_t> dec_in(record.dec_in.begin(), record.dec_in.begin() + first_dec);
        const std::vector<float> logits = t.logits(src, dec_in, B);
        if (!write_file(dir + "/logits.npy", npy_f32({B, spec.dec_len(), t.layout().shape.vocab_out}, logits.data()), error))
            return false;
    }
    const std::string b = dir + "/batches/";
    if (spec.model() == ModelKind::EncoderDecoder)
        return write_file(b + "src.npy", npy_i64(S, B, spec.src_len(), record.src), error) &&
               write_file(b + "tgt_in.npy", npy_i64(S, B, spec.dec_len(), record.dec_in), error) &&
               write_file(b + "tgt_out.npy", npy_i64(S, B, spec.dec_len(), record.dec_out), error);
    return write_file(b + "tokens.npy", npy_i64(S, B, spec.dec_len(), record.dec_in), error) &&
           write_file(b + "targets.npy", npy_i64(S, B, spec.dec_len(), record.dec_out), error) &&
           write_file(b + "loss_mask.npy", npy_i64(S, B, spec.dec_len(), record.loss_mask), error);
}

namespace {

// Reads config[key] into *out when it is a number of the right kind.
template <typename V>
void read_number(const ojson& c, const char* key, V* out, std::vector<ConfigError>* errors) {
    const auto it = c.find(key);
    const bool whole = std::is_integral<V>::value;
    if (it == c.end() || !it->is_number() || (whole && !it->is_number_integer())) {
        errors->push_back({std::string("config.") + key, Msg::literal(std::string("config.") + key + " is missing or not " +
                                                             (whole ? "a whole number" : "a number"))});
        return;
    }
    *out = it->get<V>();
}

void read_bool(const ojson& c, const char* key, bool* out, std::vector<ConfigError>* errors) {
    const auto it = c.find(key);
    if (it == c.end() || !it->is_boolean())
        errors->push_back({std::string("config.") + key, Msg::literal(std::string("config.") + key + " is missing or not true/false")});
    else *out = it->get<bool>();
}

void read_lr(const ojson& c, LrConfig* lr, std::vector<ConfigError>* errors) {
    const auto it = c.find("lr");
    const bool has = it != c.end() && it->is_object() && it->contains("schedule") && (*it)["schedule"].is_string();
    const std::string schedule = has ? (*it)["schedule"].get<std::string>() : "";
    if (schedule == "const") {
        lr->schedule = LrSchedule::Const;
        read_number(*it, "rate", &lr->rate, errors);
    } else if (schedule == "paper") {
        lr->schedule = LrSchedule::Paper;
        read_number(*it, "factor", &lr->factor, errors);
        read_number(*it, "warmup", &lr->warmup, errors);
    } else {
        errors->push_back({"config.lr", Msg::literal("config.lr must be {\"schedule\": \"const\", \"rate\": R} or "
                                        "{\"schedule\": \"paper\", \"factor\": F, \"warmup\": W}")});
    }
}

}  // namespace

bool parse_checkpoint_config(const std::string& manifest_text, TrainConfig* out, std::vector<ConfigError>* errors) {
    const ojson j = ojson::parse(manifest_text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("config") || !j["config"].is_object()) {
        errors->push_back({"manifest.json", Msg::literal("manifest.json is not a JSON object with a \"config\" object")});
        return false;
    }
    const ojson& c = j["config"];
    TrainConfig cfg;
    const auto task = c.find("task");
    if (task == c.end() || !task->is_string() || !parse_task(task->get<std::string>(), &cfg.task))
        errors->push_back({"config.task", Msg::literal("config.task must be one of copy, reverse, sort, induction")});
    read_number(c, "layers", &cfg.layers, errors);
    read_number(c, "heads", &cfg.heads, errors);
    read_number(c, "d_model", &cfg.d_model, errors);
    read_number(c, "d_ff", &cfg.d_ff, errors);
    read_number(c, "vocab", &cfg.vocab, errors);
    read_number(c, "length", &cfg.length, errors);
    read_number(c, "gap", &cfg.gap, errors);
    read_number(c, "batch", &cfg.batch, errors);
    read_number(c, "steps", &cfg.steps, errors);
    read_number(c, "seed", &cfg.seed, errors);
    read_number(c, "eval_every", &cfg.eval_every, errors);
    read_number(c, "eval_size", &cfg.eval_size, errors);
    read_number(c, "label_smoothing", &cfg.label_smoothing, errors);
    read_bool(c, "scale", &cfg.scale, errors);
    read_bool(c, "pe", &cfg.pe, errors);
    read_bool(c, "bias", &cfg.bias, errors);
    read_lr(c, &cfg.lr, errors);
    if (c.contains("target_exact")) read_number(c, "target_exact", &cfg.target_exact, errors);
    if (!errors->empty()) return false;
    for (const ConfigError& e : validate_train_config(resolve_train_config(cfg)))
        errors->push_back({"config." + e.param, e.message});
    *out = cfg;
    return errors->empty();
}

bool load_checkpoint(const std::string& dir, const std::string& part, Trainer* t, std::vector<ConfigError>* errors) {
    std::string text, error;
    if (!read_file(dir + "/manifest.json", &text, &error, 1 << 20)) {
        errors->push_back({"manifest.json", Msg::literal(error)});
        return false;
    }
    TrainConfig config;
    if (!parse_checkpoint_config(text, &config, errors) || !t->init(config, errors)) return false;
    for (const ParamInfo& p : t->layout().params) {
        const std::string path = dir + "/" + part + "/" + p.name + ".npy";
        std::string bytes;
        Tensor value;
        // The header is at most a few hundred bytes; read_file allocates the whole limit.
        if (!read_file(path, &bytes, &error, p.size * sizeof(float) + 4096) || !decode_npy(bytes, &value, &error)) {
            errors->push_back({p.name, Msg::literal(path + ": " + error)});
            continue;
        }
        if (value.shape != p.torch_shape) {
            errors->push_back({p.name, Msg::literal(path + " has shape (" + shape_numbers(value.shape) + "), the model needs (" +
                                           shape_numbers(p.torch_shape) + ")")});
            continue;
        }
        if (!t->set_param(p.name, value.data, &error)) errors->push_back({p.name, Msg::literal(error)});
    }
    return errors->empty();
}

}  // namespace lab
