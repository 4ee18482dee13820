// table3_cmd.cpp — Attention Lab CLI: `attnlab table3` (see table3_cmd.h). The option keys
// are table3_option_keys()' rows; the rows, runs and verdicts come from train/table3.h; this
// file reads flags, spreads the cells over threads and prints.
#include "cli/table3_cmd.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>

#include "cli/cli.h"
#include "train/table3.h"

namespace lab {

namespace {

struct Table3Cli {
    Table3Options options;
    std::vector<const Table3Row*> rows;  // empty: every row
    int threads = 0;                     // 0: the machine's cores (1 in wasm: no threads there)
    std::string csv;
    bool help = false;
};

void read_rows(const std::string& text, Table3Cli& o, std::vector<ConfigError>& errors) {
    std::stringstream in(text);
    std::string id;
    while (std::getline(in, id, ','))
        if (const Table3Row* r = find_table3_row(id)) o.rows.push_back(r);
        else errors.push_back({"--rows", Msg(Str::cli_table3_row, shown_value(id), table3_row_ids())});
    if (o.rows.empty() && errors.empty()) errors.push_back({"--rows", Msg(Str::cli_table3_row, shown_value(text), table3_row_ids())});
}

void read_other(const std::vector<std::string>& args, size_t* i, Table3Cli& o, std::vector<ConfigError>& errors) {
    const std::string& flag = args[*i];
    if (flag == "--help" || flag == "-h") {
        o.help = true;
        return;
    }
    if (flag != "--rows" && flag != "--threads" && flag != "--csv") {
        errors.push_back({flag.empty() ? "argument" : flag, flag.empty() ? Msg(Str::cli_empty_argument)
                                                                      : Msg(Str::cli_unknown_option, shown_value(flag))});
        return;
    }
    if (*i + 1 >= args.size()) {
        errors.push_back({flag, Msg(Str::cli_needs_value, flag)});
        return;
    }
    const std::string& v = args[++*i];
    long long n = 0;
    if (flag == "--rows") read_rows(v, o, errors);
    else if (flag == "--csv") o.csv = v;
    else if (parse_whole(v, 1, 64, &n)) o.threads = static_cast<int>(n);
    else errors.push_back({flag, Msg(Str::cli_not_whole, flag, shown_value(v), 1LL, 64LL)});
}

std::vector<ConfigError> parse(const std::vector<std::string>& args, Table3Cli* o) {
    std::vector<ConfigError> errors;
    KeyFlags keys(table3_option_keys().rows);
    for (size_t i = 0; i < args.size(); ++i)
        if (!keys.read(args, &i, &o->options, &errors)) read_other(args, &i, *o, errors);
    o->options = resolve_table3_options(o->options);
    if (o->rows.empty())
        for (const Table3Row& r : table3_rows()) o->rows.push_back(&r);
    if (std::find(o->rows.begin(), o->rows.end(), &table3_rows()[0]) == o->rows.end())
        o->rows.insert(o->rows.begin(), &table3_rows()[0]);  // every verdict is against the base
    return errors;
}

int thread_count(int asked) {
#ifdef __EMSCRIPTEN__
    (void)asked;
    return 1;
#else
    return asked > 0 ? asked : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
#endif
}

// Trains every row × seed, `threads` at a time; a line per finished cell.
void train_cells(std::vector<Table3RowResult>& results, const Table3Cli& o, int threads, std::ostream& out) {
    const int seeds = o.options.seeds, total = static_cast<int>(results.size()) * seeds;
    for (Table3RowResult& r : results) r.cells.assign(static_cast<size_t>(seeds), Table3Cell{});
    std::atomic<int> next{0};
    std::mutex print;
    int done = 0;
    auto work = [&] {
        for (int k = next++; k < total; k = next++) {
            Table3RowResult& r = results[static_cast<size_t>(k / seeds)];
            const int seed = k % seeds + 1;
            const Table3Cell cell = run_table3_cell(table3_config(*r.row, seed, o.options));
            std::lock_guard<std::mutex> lock(print);
            r.cells[static_cast<size_t>(seed - 1)] = cell;
            char line[160];
            std::snprintf(line, sizeof line, "  [%2d/%d] %-4s seed %d: BLEU %6.2f  PPL %6.3f  exact %.3f  (%.1f s)\n", ++done, total,
                          r.row->id, seed, cell.bleu, cell.ppl, cell.exact, cell.seconds);
            out << (cell.finite ? std::string(line) : std::string("  ") + r.row->id + " seed " + std::to_string(seed) + ": stopped (non-finite)\n")
                << std::flush;
        }
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
}

std::string figure(const Spread& s, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f ± %.*f", digits, s.mean, digits, s.sd);
    return buf;
}

void print_table(const std::vector<Table3RowResult>& results, std::ostream& out) {
    const Table3RowResult& base = results[0];
    const Table3Row& paper_base = table3_rows()[0];
    char line[512];
    std::snprintf(line, sizeof line, "%-5s %-20s %-16s %-16s %-11s %-42s %s\n", "row", "change", "BLEU (toy)", "PPL (toy)",
                  "paper", "paper's row", "verdict: BLEU | PPL");
    out << "\n" << line;
    for (const Table3RowResult& r : results) {
        const std::string paper = std::to_string(r.row->paper_bleu).substr(0, 4) + " / " + std::to_string(r.row->paper_ppl).substr(0, 4);
        std::string verdict;
        if (r.row->group != ' ')
            verdict = english(table3_verdict_text(r.bleu_verdict, r.row->paper_bleu - paper_base.paper_bleu, r.bleu.mean - base.bleu.mean, true)) +
                      " | " +
                      english(table3_verdict_text(r.ppl_verdict, r.row->paper_ppl - paper_base.paper_ppl, r.ppl.mean - base.ppl.mean, false));
        std::snprintf(line, sizeof line, "%-5s %-20s %-16s %-16s %-11s %-42s ", r.row->id, r.row->change, figure(r.bleu, 2).c_str(),
                      figure(r.ppl, 3).c_str(), paper.c_str(), r.row->paper);
        out << line << verdict << "\n";
    }
}

}  // namespace

std::string table3_usage() {
    return "usage: attnlab table3 [--steps N] [--seeds K] [--eval-size N] [--rows base,A1,...] [--threads T] [--csv FILE]\n"
           "  the paper's Table 3 in miniature: each row (A heads, C size, D dropout and label smoothing, E learned\n"
           "  positions) trains translate (N 2, d_model 32, d_ff 64, h 4, P_drop 0.1, eps_ls 0.1) for --steps (150)\n"
           "  with seeds 1..K (3); prints held-out BLEU and perplexity (mean ± sd) beside the paper's dev-set BLEU / PPL\n"
           "  and whether the toy moves the paper's way (a difference inside sd(row) + sd(base) is no difference).\n"
           "  Row (B), smaller d_k at fixed h, is not run: this engine's d_k is d_model / h.\n"
           "  rows: " + table3_row_ids() + " (the base is always run); --threads: default the cores\n";
}

std::vector<ConfigError> parse_table3_cli(const std::vector<std::string>& args) {
    Table3Cli o;
    return parse(args, &o);
}

int run_table3_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    Table3Cli o;
    const std::vector<ConfigError> errors = parse(args, &o);
    if (o.help && errors.empty()) {
        out << table3_usage();
        return 0;
    }
    if (!errors.empty()) {
        for (const ConfigError& e : errors) err << "attnlab: table3: " << e.param << ": " << english(e.message) << "\n";
        err << table3_usage();
        return 2;
    }
    std::vector<Table3RowResult> results;
    for (const Table3Row* r : o.rows) results.push_back({r, {}, {}, {}, Table3Verdict::Pending, Table3Verdict::Pending});
    const int threads = std::min(thread_count(o.threads), static_cast<int>(results.size()) * o.options.seeds);
    out << "table3: translate, " << results.size() << " rows x " << o.options.seeds << " seeds, " << o.options.steps
        << " steps per model, " << o.options.eval_size << " held-out sentences, " << threads << " thread" << (threads > 1 ? "s" : "") << "\n";
    const auto t0 = std::chrono::steady_clock::now();
    train_cells(results, o, threads, out);
    summarize_table3(results, o.options.seeds);
    print_table(results, out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out << "\nall rows in " << static_cast<int>(seconds * 10) / 10.0 << " s (paper: dev set newstest2013; toy: held-out translate sentences)\n";
    bool finite = true;
    for (const Table3RowResult& r : results)
        for (const Table3Cell& c : r.cells) finite &= c.finite;
    if (!o.csv.empty()) {
        std::ofstream file(o.csv, std::ios::binary);
        file << table3_csv(results);
        if (!file) {
            err << "attnlab: table3: --csv " << o.csv << ": could not be written\n";
            return 1;
        }
        out << "wrote " << o.csv << "\n";
    }
    return finite ? 0 : 1;
}

}  // namespace lab
