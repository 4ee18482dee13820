// checkpoint.cpp — Attention Lab interop: writing and reading training checkpoints
// (nlohmann-json without exceptions, .npy through the core).
#include "interop/checkpoint.h"

#include <climits>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "interop/json_export.h"
#include "interop/npy.h"

namespace lab {

namespace {

using ojson = nlohmann::ordered_json;

// What a PyTorch user needs besides the knobs, written right after the knob it follows.
void add_model_numbers(ojson& j, const std::string& after, const Trainer& t) {
    const ModelShape& m = t.layout().shape;
    if (after == "task") {
        j["model"] = model_kind_name(m.kind);
    } else if (after == "vocab") {
        j["vocab_size"] = m.vocab_size;
        j["vocab_out"] = m.vocab_out;
        j["bos"] = t.task().bos();
        if (m.pad >= 0) j["pad"] = m.pad;
    } else if (after == "gap") {
        j["src_len"] = m.src_len;
        j["dec_len"] = m.dec_len;
    } else if (after == "label_smoothing") {
        j["layer_norm_eps"] = m.layer_norm_eps;
        j["dropout"] = t.config().dropout;  // the knob (train_keys()), read back as its row
        j["tie_embeddings"] = false;
        j["norm_first"] = false;
    } else if (after == "lr") {
        const AdamConfig adam;
        j["adam"] = {{"beta1", adam.beta1}, {"beta2", adam.beta2}, {"eps", adam.eps}};
    }
}

ojson lr_json(const LrConfig& lr) {
    if (lr.schedule == LrSchedule::Paper) return {{"schedule", "paper"}, {"factor", lr.factor}, {"warmup", lr.warmup}};
    return {{"schedule", "const"}, {"rate", lr.rate}};
}

// The knobs (train_keys(), the learning rate as an object) and the model's numbers.
ojson config_json(const Trainer& t) {
    const ojson knobs = keys_json(train_keys().rows, &t.config());
    ojson j;
    for (const auto& knob : knobs.items()) {
        j[knob.key()] = knob.key() == "lr" ? lr_json(t.config().lr) : knob.value();
        add_model_numbers(j, knob.key(), t);
    }
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

// One file of the checkpoint: false stops the writing (with the reason in *error).
using FileSink = std::function<bool(const std::string& path, const std::string& bytes, std::string* error)>;

bool emit_params(const std::string& folder, const Trainer& t, const std::vector<float>& flat, const FileSink& sink,
                 std::string* error) {
    std::vector<float> torch_order;
    for (const ParamInfo& p : t.layout().params) {
        torch_order.resize(p.size);
        to_torch_layout(torch_order.data(), flat.data(), p);
        if (!sink(folder + "/" + p.name + ".npy", npy_f32(p.torch_shape, torch_order.data()), error)) return false;
    }
    return true;
}

// The batches of every step, and the final parameters' logits on step 1's batch.
bool emit_batches(Trainer& t, const CheckpointRecord& record, const FileSink& sink, std::string* error) {
    const int S = t.steps_done(), B = t.config().batch;
    const TaskSpec& spec = t.task();
    if (S > 0) {
        const size_t first_src = static_cast<size_t>(B) * spec.src_len(), first_dec = static_cast<size_t>(B) * spec.dec_len();
        const std::vector<int32_t> src(record.src.begin(), record.src.begin() + first_src);
        const std::vector<int32_t> dec_in(record.dec_in.begin(), record.dec_in.begin() + first_dec);
        const std::vector<float> logits = t.logits(src, dec_in, B);
        if (!sink("logits.npy", npy_f32({B, spec.dec_len(), t.layout().shape.vocab_out}, logits.data()), error)) return false;
    }
    if (spec.model() == ModelKind::EncoderDecoder)
        return sink("batches/src.npy", npy_i64(S, B, spec.src_len(), record.src), error) &&
               sink("batches/tgt_in.npy", npy_i64(S, B, spec.dec_len(), record.dec_in), error) &&
               sink("batches/tgt_out.npy", npy_i64(S, B, spec.dec_len(), record.dec_out), error) &&
               (!spec.has_loss_mask() ||  // translate: the targets after 。 are not counted
                sink("batches/tgt_mask.npy", npy_i64(S, B, spec.dec_len(), record.loss_mask), error));
    return sink("batches/tokens.npy", npy_i64(S, B, spec.dec_len(), record.dec_in), error) &&
           sink("batches/targets.npy", npy_i64(S, B, spec.dec_len(), record.dec_out), error) &&
           sink("batches/loss_mask.npy", npy_i64(S, B, spec.dec_len(), record.loss_mask), error);
}

// Every file of `parts`, in the order a folder is written.
bool emit_checkpoint(Trainer& t, const CheckpointRecord& record, CheckpointParts parts, const FileSink& sink,
                     std::string* error) {
    const int S = t.steps_done();
    if (!sink("manifest.json", checkpoint_manifest(t), error) || !emit_params("final", t, t.params(), sink, error) ||
        !sink("loss.npy", npy_f32({S}, t.losses().data()), error) || !sink("lr.npy", npy_f32({S}, t.lrs().data()), error))
        return false;
    if (parts == CheckpointParts::Final) return true;
    if (!emit_params("init", t, record.init_params, sink, error)) return false;
    if (parts == CheckpointParts::Weights) return true;
    if (!record.grad1.empty() && !emit_params("grad1", t, record.grad1, sink, error)) return false;
    return emit_batches(t, record, sink, error);
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
    for (const EvalReport& e : t.evals()) {
        evals.push_back({{"step", e.step}, {"loss", e.loss}, {"token_accuracy", e.token_accuracy},
                         {"exact_accuracy", e.exact_accuracy}});
        if (e.bleu >= 0) evals.back()["bleu"] = e.bleu;  // translate only
    }
    j["evals"] = evals;
    if (t.stop().cause != StopCause::None) j["stopped"] = {{"step", t.stop().step}, {"message", render(t.stop().message, Lang::En)}};
    return j.dump(1) + "\n";
}

Msg checkpoint_dir_problem(const std::string& dir) {
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) return {};
    if (!std::filesystem::is_directory(dir, ec)) return Msg(Str::ck_not_folder, dir);
    if (!std::filesystem::is_empty(dir, ec)) return Msg(Str::ck_not_empty, dir);
    return {};
}

bool write_checkpoint(const std::string& dir, Trainer& t, const CheckpointRecord& record, CheckpointParts parts,
                      std::string* error) {
    const FileSink to_disk = [&](const std::string& path, const std::string& bytes, std::string* e) {
        const size_t slash = path.rfind('/');
        return (slash == std::string::npos || make_dir(dir + "/" + path.substr(0, slash), e)) &&
               write_file(dir + "/" + path, bytes, e);
    };
    return make_dir(dir, error) && emit_checkpoint(t, record, parts, to_disk, error);
}

std::vector<ArchiveFile> checkpoint_files(Trainer& t, const CheckpointRecord& record, CheckpointParts parts) {
    std::vector<ArchiveFile> files;
    const FileSink to_memory = [&](const std::string& path, const std::string& bytes, std::string*) {
        files.push_back({path, bytes});
        return true;
    };
    emit_checkpoint(t, record, parts, to_memory, nullptr);
    return files;
}

namespace {

std::string config_key(const char* key) { return std::string("config.") + key; }

// One knob of manifest.json's config, read as its row says (the learning rate as the
// object the writer writes).
void read_knob(const ojson& c, const ConfigKey& k, TrainConfig* cfg, std::vector<ConfigError>* errors) {
    const auto it = c.find(k.name);
    const bool missing = it == c.end();
    if (missing && !k.is_written(cfg)) return;  // a key this task does not write (lang: coref's only)
    if (missing && std::string(k.name) == "target_exact") return;  // manifests older than the key
    auto fail = [&](Msg m) { errors->push_back({config_key(k.name), std::move(m)}); };
    switch (k.type) {
        case KeyType::Whole:
            if (missing || !it->is_number_integer() || it->get<long long>() < INT_MIN || it->get<long long>() > UINT32_MAX)
                return fail(Msg(Str::ck_key_not_whole, k.name));
            return k.set(cfg, it->get<long long>());
        case KeyType::Decimal:
            if (missing || !it->is_number()) return fail(Msg(Str::ck_key_not_number, k.name));
            return k.set_real(cfg, it->get<double>());
        case KeyType::Switch:
            if (missing || !it->is_boolean()) return fail(Msg(Str::ck_key_not_bool, k.name));
            return k.set(cfg, it->get<bool>());
        case KeyType::Choice: {
            const KeyChoice* ch = !missing && it->is_string() ? k.choice_named(it->get<std::string>()) : nullptr;
            if (!ch) return fail(Msg(k.file_bad, missing ? std::string("null") : it->dump()));
            return k.set(cfg, ch->value);
        }
        default: break;
    }
    // The learning rate: {"schedule": "const", "rate": R} | {"schedule": "paper", "factor": F, "warmup": W}.
    const bool paper = !missing && it->is_object() && it->value("schedule", "") == "paper";
    const bool constant = !missing && it->is_object() && it->value("schedule", "") == "const";
    const char* needs[] = {paper ? "factor" : "rate", paper ? "warmup" : nullptr};
    bool ok = paper || constant;
    for (const char* n : needs) ok = ok && (!n || (it->contains(n) && (*it)[n].is_number()));
    if (!ok) return fail(Str::ck_lr_object);
    cfg->lr.schedule = paper ? LrSchedule::Paper : LrSchedule::Const;
    if (paper) cfg->lr.factor = (*it)["factor"].get<double>(), cfg->lr.warmup = (*it)["warmup"].get<double>();
    else cfg->lr.rate = (*it)["rate"].get<double>();
}

// Reads a checkpoint's file (a path relative to its folder) of at most `limit` bytes.
using FileSource = std::function<bool(const std::string& path, size_t limit, std::string* bytes, std::string* error)>;

bool load_from(const FileSource& read, const std::string& part, Trainer* t, std::vector<ConfigError>* errors) {
    std::string text, error;
    if (!read("manifest.json", 1 << 20, &text, &error)) {
        errors->push_back({"manifest.json", Msg::literal(error)});
        return false;
    }
    TrainConfig config;
    if (!parse_checkpoint_config(text, &config, errors) || !t->init(config, errors)) return false;
    for (const ParamInfo& p : t->layout().params) {
        const std::string path = part + "/" + p.name + ".npy";
        std::string bytes;
        Tensor value;
        // The header is at most a few hundred bytes; read_file allocates the whole limit.
        if (!read(path, p.size * sizeof(float) + 4096, &bytes, &error) || !decode_npy(bytes, &value, &error)) {
            errors->push_back({p.name, Msg(Str::ck_file_problem, path, error)});
            continue;
        }
        if (value.shape != p.torch_shape) {
            errors->push_back({p.name, Msg(Str::ck_shape, path, shape_numbers(value.shape), shape_numbers(p.torch_shape))});
            continue;
        }
        if (!t->set_param(p.name, std::vector<float>(value.data.begin(), value.data.end()), &error))
            errors->push_back({p.name, Msg(Str::ck_file_problem, path, error)});
    }
    return errors->empty();
}

}  // namespace

bool parse_checkpoint_config(const std::string& manifest_text, TrainConfig* out, std::vector<ConfigError>* errors) {
    const ojson j = ojson::parse(manifest_text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("config") || !j["config"].is_object()) {
        errors->push_back({"manifest.json", Str::ck_manifest_not_object});
        return false;
    }
    TrainConfig cfg;
    for (const ConfigKey& k : train_keys().rows) read_knob(j["config"], k, &cfg, errors);
    if (!errors->empty()) return false;
    for (const ConfigError& e : validate_train_config(resolve_train_config(cfg)))
        errors->push_back({"config." + e.param, e.message});
    *out = cfg;
    return errors->empty();
}

bool load_checkpoint(const std::string& dir, const std::string& part, Trainer* t, std::vector<ConfigError>* errors) {
    const FileSource from_disk = [&](const std::string& path, size_t limit, std::string* bytes, std::string* error) {
        return read_file(dir + "/" + path, bytes, error, limit);
    };
    return load_from(from_disk, part, t, errors);
}

CheckpointHistory checkpoint_history(const std::vector<ArchiveFile>& files) {
    CheckpointHistory h;
    for (const ArchiveFile& f : files) {
        std::string error;
        Tensor loss;
        if (f.path == "loss.npy" && decode_npy(f.bytes, &loss, &error) && loss.shape.size() == 1)
            h.losses.assign(loss.data.begin(), loss.data.end());
        if (f.path != "manifest.json") continue;
        const ojson j = ojson::parse(f.bytes, nullptr, false);
        if (j.is_discarded() || !j.is_object()) continue;
        h.steps = j.value("steps", 0);
        if (!j.contains("evals") || !j["evals"].is_array()) continue;
        for (const ojson& e : j["evals"]) {
            if (!e.is_object()) continue;
            EvalReport r;
            r.step = e.value("step", 0), r.loss = e.value("loss", 0.0);
            r.token_accuracy = e.value("token_accuracy", 0.0), r.exact_accuracy = e.value("exact_accuracy", 0.0);
            r.bleu = e.value("bleu", -1.0);
            h.evals.push_back(r);
        }
    }
    return h;
}

bool load_checkpoint_files(const std::vector<ArchiveFile>& files, const std::string& part, Trainer* t,
                           std::vector<ConfigError>* errors) {
    const FileSource from_memory = [&](const std::string& path, size_t limit, std::string* bytes, std::string* error) {
        for (const ArchiveFile& f : files)
            if (f.path == path && f.bytes.size() <= limit) return *bytes = f.bytes, true;
        *error = render(Msg(Str::ck_missing_file, path), Lang::En);
        return false;
    };
    return load_from(from_memory, part, t, errors);
}

}  // namespace lab
