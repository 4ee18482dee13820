// model_trace_cmd.cpp — Attention Lab CLI: `attnlab trace --checkpoint DIR`.
#include "cli/model_trace_cmd.h"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "base/utf8.h"
#include "cli/cli.h"
#include "interop/checkpoint.h"
#include "interop/model_json.h"
#include "model_trace/block_trace.h"

namespace lab {

namespace {

std::string shown(const std::string& v) { return shown_value(v); }

// One flag and its value; false when the flag is not this command's.
bool read_flag(const std::string& flag, const std::string& v, ModelTraceParse& p) {
    ModelTraceOptions& o = p.options;
    auto number = [&](int* field, long long hi) {
        long long n = 0;
        if (parse_whole(v, 0, hi, &n)) *field = static_cast<int>(n);
        else p.errors.push_back({flag, Msg(Str::cli_not_whole, flag, shown(v), 0LL, hi)});
    };
    if (flag == "--checkpoint") o.checkpoint = v;
    else if (flag == "--out") o.out_dir = v;
    else if (flag == "--block") number(&o.block, 63);
    else if (flag == "--layer") number(&o.layer, 63);
    else if (flag == "--sample") number(&o.sample, 1 << 20);
    else if (flag == "--part" && (v == "final" || v == "init")) o.part = v;
    else if (flag == "--part") p.errors.push_back({flag, Msg(Str::cli_not_one_of, flag, shown(v), Str::cli_expect_part)});
    else if (flag == "--format" && (v == "table" || v == "json")) o.format = v;
    else if (flag == "--format") p.errors.push_back({flag, Msg(Str::cli_not_one_of, flag, shown(v), Str::cli_expect_format)});
    else if (flag == "--sublayer") {
        AttentionKind k;
        if (parse_attention_kind(v, &k)) o.sublayer = v;
        else p.errors.push_back({flag, Msg(Str::cli_not_one_of, flag, shown(v), Str::cli_expect_sublayer)});
    } else return false;
    return true;
}

// "0 encoder.layers.0.self_attn (enc_self, layer 0), 1 ..."
std::string attentions(const ModelLayout& layout) {
    std::string s;
    for (size_t i = 0; i < layout.blocks.size(); ++i)
        s += (i ? ", " : "") + std::to_string(i) + " " + layout.blocks[i].name;
    return s;
}

// Which attention the options name; -1 with an error.
int chosen_block(const ModelTraceOptions& o, const ModelLayout& layout, std::vector<ConfigError>* errors) {
    const int count = static_cast<int>(layout.blocks.size());
    if (o.block >= 0) {
        if (o.block < count) return o.block;
        errors->push_back({"--block", Msg(Str::cli_model_block, o.block, count, attentions(layout))});
        return -1;
    }
    AttentionKind kind = layout.encoder.empty() ? AttentionKind::DecoderSelf : AttentionKind::EncoderSelf;
    if (!o.sublayer.empty()) parse_attention_kind(o.sublayer, &kind);
    const int block = find_block(layout, o.layer, kind);
    if (block < 0)
        errors->push_back({"--sublayer", Msg(Str::cli_model_no_attention, o.layer, attention_kind_key(kind), attentions(layout))});
    return block;
}

std::string pad(std::string s, size_t width) {
    const size_t chars = utf8::length(s);
    if (chars < width) s.append(width - chars, ' ');
    return s;
}

void print_steps(std::ostream& out, int number, const char* key, const std::vector<ShapeStep>& steps) {
    bool first = true;
    for (const ShapeStep& st : steps) {
        out << pad(first ? std::to_string(number) : "", 4) << pad(first ? key : "", 14) << pad(english(st.op), 36)
            << shape_named(st.shape, st.dims) << "\n";
        first = false;
    }
}

void print_checks(std::ostream& out, const char* key, const std::vector<InvariantCheck>& checks, int* total, int* failed) {
    for (const InvariantCheck& ch : checks) {
        ++*total;
        *failed += ch.is_check() && !ch.passed();
        out << "  " << (ch.passed() ? "ok  " : ch.verdict == Verdict::NanMasked ? "NaN " : ch.is_check() ? "FAIL" : "fact") << "  " << pad(key, 12) << english(ch.label) << ": " << english(ch.detail) << "\n";
    }
}

// The stages in the stepper's order: embed, the ten, add & norm, FFN, generator.
void print_model_table(const ModelTrace& m, const Json& info, std::ostream& out) {
    out << "model " << info["task"].get<std::string>() << "  " << m.block.name << "  sample " << info["sample"].get<int>()
        << "  loss " << m.engine_loss << "\n";
    out << "  queries: ";
    for (const std::string& t : m.query_tokens) out << t << " ";
    out << "\n  keys:    ";
    for (const std::string& t : m.key_tokens) out << t << " ";
    out << "\n\n" << pad("#", 4) << pad("stage", 14) << pad("step", 36) << "shape\n";
    const auto& blocks = block_stage_infos();
    print_steps(out, 0, blocks[0].key, m.stages[0].shape_steps);
    for (int s = 0; s < kStageCount; ++s) print_steps(out, s + 1, stage_infos()[s].key, m.trace.stages[s].shape_steps);
    for (int s = 1; s < kBlockStageCount; ++s) print_steps(out, kStageCount + s, blocks[s].key, m.stages[s].shape_steps);
    out << "\ninvariants\n";
    int total = 0, failed = 0;
    print_checks(out, blocks[0].key, m.stages[0].checks, &total, &failed);
    for (int s = 0; s < kStageCount; ++s) print_checks(out, stage_infos()[s].key, m.trace.stages[s].checks, &total, &failed);
    for (int s = 1; s < kBlockStageCount; ++s) print_checks(out, blocks[s].key, m.stages[s].checks, &total, &failed);
    out << "\ngradient checks\n";
    for (int s = 0; s < kStageCount; ++s) print_checks(out, stage_infos()[s].key, m.grads.checks[s], &total, &failed);
    for (int s = 0; s < kBlockStageCount; ++s) print_checks(out, blocks[s].key, m.grads.block_checks[s], &total, &failed);
    out << total - failed << " of " << total << " checks hold\n";
}

Json model_info(const ModelTraceOptions& o, const Trainer& t, const ModelTrace& m, const Sample& s) {
    std::error_code ec;
    const std::string dir = std::filesystem::absolute(o.checkpoint, ec).lexically_normal().string();
    return {{"checkpoint", ec ? o.checkpoint : dir}, {"part", o.part}, {"task", task_name(t.task().kind)},
            {"model", model_kind_name(t.layout().shape.kind)},
            {"block", m.block_index}, {"block_name", m.block.name}, {"kind", attention_kind_key(m.block.kind)},
            {"layer", m.block.layer}, {"sample", o.sample}, {"draws", s.draws}, {"src", s.src}, {"dec_in", s.dec_in},
            {"dec_out", s.dec_out}, {"loss_mask", s.loss_mask}};
}

int fail(std::ostream& err, const std::vector<ConfigError>& errors) {
    for (const ConfigError& e : errors) err << "attnlab: " << e.param << ": " << english(e.message) << "\n";
    return 2;
}

}  // namespace

std::string model_trace_usage() {
    return "usage: attnlab trace --checkpoint DIR [--part final|init] [--block N | --layer L --sublayer enc_self|dec_self|cross]\n"
           "                     [--sample I] [--format table|json] [--out DIR]\n"
           "  steps through one attention of a trained model (attnlab train --out DIR) on held-out sample I: the ten\n"
           "  stages, embed, add & norm, FFN and generator with their checks and every gradient; --out dumps the\n"
           "  tensors and gradients (d_NAME.npy) for PyTorch (tests/torch/check_model_trace.py)\n";
}

bool is_model_trace(const std::vector<std::string>& args) {
    for (const std::string& a : args)
        if (a == "--checkpoint") return true;
    return false;
}

ModelTraceParse parse_model_trace_cli(const std::vector<std::string>& args) {
    static const char* const kFlags[] = {"--checkpoint", "--out", "--block", "--layer", "--sample", "--part", "--format", "--sublayer"};
    ModelTraceParse p;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        const bool ours = std::find(std::begin(kFlags), std::end(kFlags), flag) != std::end(kFlags);
        const bool has_value = i + 1 < args.size() && !args[i + 1].empty() && args[i + 1].compare(0, 2, "--") != 0;
        if (!ours) p.errors.push_back({flag, Msg(Str::cli_model_flag, shown(flag))});
        else if (!has_value) p.errors.push_back({flag, Msg(Str::cli_needs_value, flag)});
        else read_flag(flag, args[i + 1], p);
        i += has_value;
    }
    if (p.options.checkpoint.empty() && p.errors.empty()) p.errors.push_back({"--checkpoint", Msg(Str::cli_needs_value, "--checkpoint")});
    return p;
}

int run_model_trace_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const ModelTraceParse p = parse_model_trace_cli(args);
    if (!p.errors.empty()) return fail(err, p.errors), err << model_trace_usage(), 2;
    const ModelTraceOptions& o = p.options;
    Trainer t;
    std::vector<ConfigError> errors;
    if (!load_checkpoint(o.checkpoint, o.part, &t, &errors)) {
        for (ConfigError& e : errors) e.param = "--checkpoint " + o.checkpoint + ": " + e.param;
        return fail(err, errors);
    }
    const int block = chosen_block(o, t.layout(), &errors);
    if (o.sample >= t.held_out_count())
        errors.push_back({"--sample", Msg(Str::cli_model_sample, o.sample, t.held_out_count())});
    if (block < 0 || !errors.empty()) return fail(err, errors);
    const Sample s = t.held_out_sample(o.sample);
    ModelTrace m;
    std::string error;
    if (!trace_model(t, s, block, &m, &error)) return err << "attnlab: " << error << "\n", 1;
    const Json info = model_info(o, t, m, s);
    if (o.format == "json")
        out << json_text({{"model", info}, {"config", config_json_value(m.trace.config)},
                          {"stages", stages_json(m.trace, Lang::En)}, {"block_stages", block_stages_json(m, Lang::En)},
                          {"backward", backward_json(m.grads, Lang::En)}}) << "\n";
    else print_model_table(m, info, out);
    if (o.out_dir.empty()) return 0;
    if (!write_model_dump(o.out_dir, m, info, &error)) return err << "attnlab: --out: " << error << "\n", 1;
    if (o.format == "table")
        out << "wrote " << m.trace.tensors.size() << " tensors, " << m.grads.grads.tensors.size()
            << " gradients and manifest.json to " << o.out_dir << "\n";
    return 0;
}

}  // namespace lab
