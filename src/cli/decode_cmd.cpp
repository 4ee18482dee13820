// decode_cmd.cpp — Attention Lab CLI: `attnlab decode --checkpoint DIR [--kv-cache on|off]`.
#include "cli/decode_cmd.h"

#include <cstdio>
#include <ostream>

#include "cli/cli.h"
#include "interop/checkpoint.h"
#include "train/kv_cache.h"

namespace lab {

namespace {

std::string figure(const char* format, double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

struct DecodeCliOptions {
    std::string checkpoint, part = "final";
    bool cache = true;
    int sample = 0;
};

bool read_flag(const std::string& flag, const std::string& v, DecodeCliOptions& o, std::vector<ConfigError>& errors) {
    long long n = 0;
    if (flag == "--checkpoint") o.checkpoint = v;
    else if (flag == "--kv-cache" && (v == "on" || v == "off")) o.cache = v == "on";
    else if (flag == "--kv-cache") errors.push_back({flag, Msg(Str::cli_not_one_of, flag, shown_value(v), Str::cli_expect_on_off)});
    else if (flag == "--part" && (v == "final" || v == "init")) o.part = v;
    else if (flag == "--part") errors.push_back({flag, Msg(Str::cli_not_one_of, flag, shown_value(v), Str::cli_expect_part)});
    else if (flag == "--sample" && parse_whole(v, 0, 1 << 20, &n)) o.sample = static_cast<int>(n);
    else if (flag == "--sample") errors.push_back({flag, Msg(Str::cli_not_whole, flag, shown_value(v), 0LL, 1LL << 20)});
    else return false;
    return true;
}

std::vector<ConfigError> parse(const std::vector<std::string>& args, DecodeCliOptions* o) {
    std::vector<ConfigError> errors;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        const bool known = flag == "--checkpoint" || flag == "--kv-cache" || flag == "--part" || flag == "--sample";
        if (!known) {
            errors.push_back({flag.empty() ? "argument" : flag, flag.empty() ? Msg(Str::cli_empty_argument)
                                                                          : Msg(Str::cli_unknown_option, shown_value(flag))});
        } else if (i + 1 >= args.size()) {
            errors.push_back({flag, Msg(Str::cli_needs_value, flag)});
        } else {
            read_flag(flag, args[i + 1], *o, errors);
            ++i;
        }
    }
    if (o->checkpoint.empty() && errors.empty()) errors.push_back({"--checkpoint", Msg(Str::cli_needs_value, "--checkpoint")});
    return errors;
}

void print_header(const Trainer& t, const Sample& s, const DecodeCliOptions& o, std::ostream& out) {
    const ModelShape& m = t.layout().shape;
    out << "model: " << model_kind_label(m.kind) << " (" << task_name(t.task().kind) << "), N=" << m.layers
        << " h=" << m.heads << " h_kv=" << m.h_kv() << " d_model=" << m.d_model << " d_k=" << m.d_k()
        << "; held-out sample " << o.sample << ": rows 0.." << s.gen_begin << " read the prompt, rows "
        << s.gen_begin << ".." << s.gen_end - 1 << " are generated greedily (each argmax is the next row's input)\n";
    out << "KV cache " << (o.cache ? "on" : "off")
        << (o.cache ? ": each step computes one new query row against the cache, checked against the full causal recompute\n"
                    : ": each step recomputes every row 0..t (model_decode) and keeps row t\n");
    out << "row t reads token `in` and predicts `out` (* generated: fed back as row t+1's input); the cache then holds\n"
           "K and V of rows 0..t; max|dlogit| is row t's largest |logit difference| against the recompute\n";
    out << "   t  in  out  cache K,V (B, h_kv, t+1, d_k)  cache bytes  max|dlogit|    bound   ok   FLOPs cached / full"
           "        bytes cached / full\n";
}

void print_step(const DecodeStep& st, const ModelShape& m, bool cached, std::ostream& out) {
    char line[256];
    const std::string shape = "(1, " + std::to_string(m.h_kv()) + ", " + std::to_string(st.position + 1) + ", " +
                              std::to_string(m.d_k()) + ")";
    std::snprintf(line, sizeof line, "%4d %3d %4d%s  %-29s %11.0f  %11s %8s %4s  %9.0f / %-11.0f %9.0f / %.0f\n",
                  st.position, st.token_in, st.token_out, st.generated ? "*" : " ", shape.c_str(),
                  kv_cache_bytes(m, st.position + 1), cached ? figure("%.3g", st.max_abs_diff).c_str() : "-",
                  cached ? figure("%.3g", st.bound).c_str() : "-", cached ? (st.equal() ? "yes" : "NO") : "-",
                  st.cached.flops, st.full.flops, st.cached.bytes, st.full.bytes);
    out << line;
}

// The ids above as text: the source's words and the decoded tokens (rows' outputs).
void print_tokens(const Trainer& t, const Sample& s, const DecodeRun& r, std::ostream& out) {
    std::string source, decoded;
    for (int32_t id : s.src)
        if (id != t.task().bos()) source += (source.empty() ? "" : " ") + task_token_text(t.task(), id);
    for (const DecodeStep& st : r.steps) decoded += task_class_text(t.task(), st.token_out);
    out << "source: " << source << "\ndecoded: " << decoded << "\n";
}

double total(const DecodeRun& r, double DecodeCost::*field, bool cached) {
    double sum = 0;
    for (const DecodeStep& s : r.steps) sum += (cached ? s.cached : s.full).*field;
    return sum;
}

void print_summary(const DecodeRun& r, const std::vector<int32_t>& greedy, const Sample& s, std::ostream& out) {
    const int n = static_cast<int>(r.steps.size());
    bool same = n - s.gen_begin == static_cast<int>(greedy.size());  // the same length (a stop token ends both) ...
    for (int p = s.gen_begin; same && p < n; ++p)                  // ... and the same tokens
        same = r.steps[static_cast<size_t>(p)].token_out == greedy[static_cast<size_t>(p - s.gen_begin)];
    if (r.cached)
        out << "equal to the full causal recompute: " << n - r.failed << " of " << n << " steps (worst max|dlogit| "
            << figure("%.3g", r.worst) << ")\n";
    out << "generated tokens " << (same ? "match" : "DIFFER from") << " Trainer::greedy_decode (the training engine's own "
        << "greedy decoding)\n";
    out << "time: " << (r.cached ? "cached " + figure("%.3f", r.total_ms) + " ms, " : "") << "recompute "
        << figure("%.3f", r.recompute_ms) << " ms"
        << (r.cached && r.total_ms > 0 ? " (speed-up " + figure("%.1f", r.recompute_ms / r.total_ms) + "x)" : "") << "\n";
    const double fc = total(r, &DecodeCost::flops, true), ff = total(r, &DecodeCost::flops, false);
    out << "FLOPs over " << n << " steps: cached " << figure("%.0f", fc) << ", recompute " << figure("%.0f", ff)
        << " (" << figure("%.1f", ff / fc) << "x); bytes: cached " << figure("%.0f", total(r, &DecodeCost::bytes, true))
        << ", recompute " << figure("%.0f", total(r, &DecodeCost::bytes, false)) << "\n";
}

}  // namespace

std::string decode_usage() {
    return "usage: attnlab decode --checkpoint DIR [--kv-cache on|off] [--sample N] [--part final|init]\n"
           "  a decoder-only or encoder-decoder checkpoint generates held-out sample N token by token; with the\n"
           "  KV cache (default) each step checks its logits against the full causal recompute (max |dlogit| and a\n"
           "  float32 bound) and prints the cache's shape and bytes (2*N*h_kv*t*d_k*4) and the FLOPs and bytes of\n"
           "  the step with and without the cache; exit 1 if any step differs\n";
}

std::vector<ConfigError> parse_decode_cli(const std::vector<std::string>& args) {
    DecodeCliOptions o;
    return parse(args, &o);
}

int run_decode_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    DecodeCliOptions o;
    std::vector<ConfigError> errors = parse(args, &o);
    Trainer t;
    if (errors.empty() && !load_checkpoint(o.checkpoint, o.part, &t, &errors))
        for (ConfigError& e : errors) e.param = "--checkpoint " + o.checkpoint + ": " + e.param;
    if (errors.empty() && t.layout().shape.kind == ModelKind::EncoderOnly)
        errors.push_back({"--checkpoint", Msg(Str::cli_decode_encoder_only, o.checkpoint)});
    if (!errors.empty()) {
        for (const ConfigError& e : errors) err << "attnlab: decode: " << e.param << ": " << english(e.message) << "\n";
        err << decode_usage();
        return 2;
    }
    const Sample s = t.held_out_sample(o.sample);
    DecodeOptions options;
    options.cache = o.cache;
    options.stop = t.task().stop();  // translate decodes until 。, not for the reference's length
    const int end = options.stop >= 0 ? t.task().dec_len() : s.gen_end;
    const DecodeRun r = kv_decode(t.layout(), t.params().data(), s.src, s.dec_in, s.gen_begin, end, options);
    print_header(t, s, o, out);
    for (const DecodeStep& st : r.steps) print_step(st, t.layout().shape, r.cached, out);
    print_summary(r, t.greedy_decode(s), s, out);
    if (!s.src.empty() && t.task().padded()) print_tokens(t, s, r, out);  // translate: the sentence and its translation
    return r.failed ? 1 : 0;
}

}  // namespace lab
