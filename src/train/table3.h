// train/table3.h — Attention Lab core: the paper's Table 3 ("Variations on the Transformer
// architecture") re-run in miniature on the translate task. One row per variation, as in the
// paper (A heads, C size, D regularisation, E positions), each trained with a few seeds for a
// fixed number of steps; the toy's held-out BLEU and per-token perplexity as mean and spread,
// beside the paper's dev-set figures, with a verdict per row on whether the toy moves the way
// the paper's row does.
//
// The plan and the arithmetic live here; the page (app/panels/train_table3.cpp) trains the
// cells a slice per frame and the CLI (`attnlab table3`, cli/table3_cmd.cpp) on threads, and
// both turn the verdicts into words. Row (B) (smaller d_k at fixed h and d_model) is not in the
// plan: this engine's d_k is d_model / h (train/model.h), so it cannot be varied alone.
#pragma once
#include <string>
#include <vector>

#include "train/train_config.h"
#include "train/trainer.h"

namespace lab {

// The toy's base (the paper's base is N 6, d_model 512, d_ff 2048, h 8, d_k 64, P_drop 0.1,
// ε_ls 0.1: BLEU 25.8, PPL 4.92 on newstest2013). Ours: translate with N 2, d_model 32,
// d_ff 64, h 4 (d_k 8), P_drop 0.1, ε_ls 0.1, sinusoids, batch 32.
struct Table3Row {
    const char* id;       // "base", "A1", ... (CSV, state(), links)
    char group;           // ' ' for the base, 'A', 'C', 'D', 'E'
    const char* change;   // the toy's change from its base, as its config keys say it: "heads=1"
    const char* paper;    // the paper's row it stands for: "h 1, d_k 512"
    double paper_bleu, paper_ppl;
    void (*apply)(TrainConfig& c);  // the change, on top of the base
};
const std::vector<Table3Row>& table3_rows();
const Table3Row* find_table3_row(const std::string& id);  // null when unknown
std::string table3_row_ids();                             // base A1 A2 ... E1

struct Table3Options {
    int steps = 0;   // 0: 150 (the base is far from 100 % there: BLEU ≈ 93, so differences show)
    int seeds = 0;   // 0: 3 (seeds 1 ... seeds)
    int eval_size = 0;  // 0: 256 held-out sentences
};
Table3Options resolve_table3_options(const Table3Options& o);
// The options as key-table rows: the CLI's flags (--steps, --seeds, --eval-size), the page's
// knobs and links ("table3.steps=100").
const KeyTable<Table3Options>& table3_option_keys();

// The run of one row and one seed (options resolved).
TrainConfig table3_config(const Table3Row& row, int seed, const Table3Options& o);

// What one trained model scored on the held-out set.
struct Table3Cell {
    double bleu = 0, ppl = 0, exact = 0, seconds = 0;
    bool finite = true;  // false: the run stopped on a non-finite loss (its figures are not used)
};
// From a finished trainer's last evaluation (ppl = exp(nll), without label smoothing).
Table3Cell table3_cell(const Trainer& t, double seconds);
// The same from a finished run's evaluations (the page frees its trainers): stopped = it ended
// on a non-finite loss or gradient.
Table3Cell table3_cell(const std::vector<EvalReport>& evals, bool stopped, double seconds);
// Trains one cell to the end (the CLI; the page steps its own trainers).
Table3Cell run_table3_cell(const TrainConfig& c);

// Mean and spread over seeds. sd is the sample standard deviation (n − 1; 0 for one seed).
struct Spread {
    double mean = 0, sd = 0, lo = 0, hi = 0;
    int n = 0;
};
Spread spread_of(const std::vector<double>& values);

// Does the toy move the way the paper does? The paper's difference from its base counts when
// it is more than 0.1 BLEU (its table's last digit) or 0.05 PPL; the toy's when it is larger
// than its seeds' spread (sd of the row + sd of the base), else it is "no difference".
enum class Table3Verdict { Agrees, AgreesNoDifference, ToyNoDifference, ToyDiffersPaperSame, Disagrees, Pending };
Table3Verdict table3_verdict(double paper_delta, double paper_tolerance, const Spread& row, const Spread& base);

struct Table3RowResult {
    const Table3Row* row = nullptr;
    std::vector<Table3Cell> cells;  // per seed, in seed order (as many as are done)
    Spread bleu, ppl;
    Table3Verdict bleu_verdict = Table3Verdict::Pending, ppl_verdict = Table3Verdict::Pending;
};
// Summaries and verdicts of every row from its finished cells (a row's verdicts wait until it
// and the base have all `seeds` cells).
void summarize_table3(std::vector<Table3RowResult>& rows, int seeds);
const char* table3_verdict_id(Table3Verdict v);
// The verdict in words ("agrees: worse, as in the paper"), for BLEU (higher is better) or
// perplexity (lower is better); deltas are the row's minus the base's.
Msg table3_verdict_text(Table3Verdict v, double paper_delta, double toy_delta, bool higher_is_better);  // "agrees", "no_difference", ... (CSV, state())
// The table as CSV: one line per row and seed, then one per row with mean and sd.
std::string table3_csv(const std::vector<Table3RowResult>& rows);

}  // namespace lab
