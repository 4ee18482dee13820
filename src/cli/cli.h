// cli.h — Attention Lab CLI `attnlab`: argument parsing and the commands, as a
// library so the tests can call them with their own streams.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/config_keys.h"

namespace lab {

struct CliOptions {
    std::string command;       // "trace" | "export-script" | "train" | "help" (train's own options: train_cmd.h)
    AttentionConfig config;
    std::string out_dir;       // trace --out DIR: write .npy + manifest.json
    std::string out_file;      // export-script --out FILE.py ("" = standard output)
    std::string format = "table";
    std::vector<std::string> config_files;  // --config FILE, in order (flags after one override it)
    std::string print_tensor;  // trace --print TENSOR: print it as print(t[item, head]) does in PyTorch
    int print_item = -1, print_head = -1;  // --item B, --head H (-1: not given, 0 is used)
};

struct CliParse {
    CliOptions options;
    std::vector<ConfigError> errors;  // parse and validation errors, each naming its flag or parameter
    std::vector<Msg> notes;           // not errors: e.g. config-file keys the lab ignores
};

CliParse parse_cli(const std::vector<std::string>& args);  // args without the program name

// Shared by every command's flags: a whole number in [lo, hi] written as one (no sign
// games, no trailing text, no overflow), and a typed value as a message echoes it (cut at
// 40 characters so a huge argument does not flood the terminal).
bool parse_whole(const std::string& text, long long lo, long long hi, long long* out);
std::string shown_value(const std::string& v);

// The flags of a key table (attention/config_keys.h), for any configuration struct: "--name
// VALUE" for numbers and choices (a number a key's validate() judges is read up to 2^20,
// the rest up to its limit), "--no-x" / "--x" for switches, "--mask padding:4,3" for a
// choice that names a detail key (a list "4,3", or 0/1 rows "10/11").
class KeyFlags {
public:
    explicit KeyFlags(const std::vector<ConfigKey>& keys) : keys_(keys) {}
    // Reads args[*i] (and its value, advancing *i); false when no key has that flag.
    bool read(const std::vector<std::string>& args, size_t* i, void* config, std::vector<ConfigError>* errors);
    // What needs every flag first: the size of a matrix given as rows. Call after the last flag.
    void finish(void* config, std::vector<ConfigError>* errors);
    bool given(const std::string& flag) const;
    void forget_rows() { rows_.clear(); }  // e.g. a config file replaced the matrix

private:
    bool read_list(const ConfigKey& k, const std::string& text, void* c) const;
    void read_choice(const ConfigKey& k, const std::string& flag, const std::string& v, void* c, std::vector<ConfigError>* errors);
    void read_number(const ConfigKey& k, const std::string& flag, const std::string& v, void* c,
                     std::vector<ConfigError>* errors) const;
    long long hi(const ConfigKey& k) const;

    const std::vector<ConfigKey>& keys_;
    std::vector<std::string> given_;
    std::vector<std::vector<uint8_t>> rows_;  // a matrix key's rows, checked in finish()
    const ConfigKey* rows_key_ = nullptr;
    std::string rows_flag_;
};
std::string cli_usage();
std::string english(const Msg& m);  // what the CLI prints: a message in English

// Runs a command; returns the process exit code (0 ok, 1 I/O failure, 2 bad usage or config).
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lab
