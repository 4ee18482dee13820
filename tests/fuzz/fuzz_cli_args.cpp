// fuzz_cli_args.cpp — libFuzzer: `attnlab` argument lists (the input split at '\0'
// and '\n') never crash the parser; a successful parse is a valid configuration,
// and a failed one makes run_cli exit 2 with every message on stderr.
//
// `--config FILE` reads files: the fuzzer must not open whatever path it invents
// (/dev/stdin would block, /dev/zero never ends), so every value after --config is
// replaced by one of a few files written once into a private temporary folder:
// a valid JSON, a valid TOML, a JSON the reader rejects, and the folder itself.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "fuzz_common.h"

namespace {

std::string g_dir;

void write(const std::string& name, const std::string& text) {
    std::ofstream f(g_dir + "/" + name, std::ios::binary);
    f << text;
}

std::string sandboxed_config_path(const std::string& wanted) {
    if (wanted.find("toml") != std::string::npos) return g_dir + "/b.toml";
    if (wanted.find("bad") != std::string::npos) return g_dir + "/bad.json";
    if (wanted.find("dir") != std::string::npos) return g_dir;
    if (wanted.find("big") != std::string::npos) return g_dir + "/big.json";
    return g_dir + "/a.json";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    char tmpl[] = "/tmp/attnlab-fuzz-cli-XXXXXX";
    if (!mkdtemp(tmpl)) lab_fuzz::fail("cannot create a temporary folder");
    g_dir = tmpl;
    std::atexit([] {
        std::error_code ec;
        std::filesystem::remove_all(g_dir, ec);
    });
    write("a.json", "{\"d_model\": 512, \"h\": 8, \"d_k\": 64, \"seq_len\": 10, \"batch_size\": 2, \"seed\": 42, \"d_ff\": 2048}\n");
    write("b.toml", "[attention]\nd_model = 16\nnum_heads = 4\nseq_len = 5\nmask = \"padding\"\n"
                    "padding_lengths = [5, 3]\n[training]\nwarmup_steps = 4000\n");
    write("bad.json", "{\"d_model\": 10, \"h\": 3, \"seq_len\": 4, \"batch_si");
    write("big.json", "{\"d_model\": 4096, \"h\": 64, \"seq_len\": 4096, \"batch_size\": 256}");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace lab_fuzz;
    std::vector<std::string> args(1);
    for (size_t i = 0; i < size; ++i) {
        const char ch = static_cast<char>(data[i]);
        if (ch == '\0' || ch == '\n') args.emplace_back();
        else args.back() += ch;
    }
    if (size == 0) args.clear();
    if (args.size() > 64) return 0;  // keep executions short; 64 arguments cover every flag twice
    for (size_t i = 1; i + 1 < args.size(); ++i)
        if (args[i] == "--config") args[i + 1] = sandboxed_config_path(args[i + 1]), ++i;

    const lab::CliParse p = lab::parse_cli(args);
    for (const lab::ConfigError& e : p.errors) require(!en_text(e.message).empty(), "a CLI error without a message");
    if (p.errors.empty()) {
        // training, a checkpoint reading a sentence or decoding, are not run here
        if (p.options.command == "help" || p.options.command == "train" || p.options.command == "attend" ||
            p.options.command == "decode")
            return 0;
        require(p.options.command == "trace" || p.options.command == "export-script",
                "parse_cli succeeded with command '" + p.options.command + "'");
        require_valid(p.options.config, "parse_cli");
        return 0;  // running the trace is the engine's business (and --out would write files)
    }
    std::ostringstream out, err;
    const int code = lab::run_cli(args, out, err);
    require(code == 2, "run_cli exited " + std::to_string(code) + " for arguments parse_cli rejects");
    require(out.str().empty(), "run_cli wrote to stdout for rejected arguments");
    for (const lab::ConfigError& e : p.errors)
        require(err.str().find(en_text(e.message)) != std::string::npos, "stderr lacks the message: " + en_text(e.message));
    return 0;
}
