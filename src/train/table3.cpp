// train/table3.cpp — Attention Lab core: Table 3 in miniature (see table3.h): the rows, the
// runs' configurations, the cells' figures, the spread over seeds and the verdicts.
#include "train/table3.h"

#include <chrono>
#include <cmath>
#include <sstream>

namespace lab {

namespace {

void no_change(TrainConfig&) {}

// The paper's figures are its Table 3's (dev set newstest2013, BLEU and per-wordpiece PPL).
const std::vector<Table3Row> kRows = {
    {"base", ' ', "", "base: h 8, d_k 64, N 6", 25.8, 4.92, no_change},
    {"A1", 'A', "heads=1", "h 1, d_k 512", 24.9, 5.29, [](TrainConfig& c) { c.heads = 1; }},
    {"A2", 'A', "heads=2", "h 4, d_k 128", 25.5, 5.00, [](TrainConfig& c) { c.heads = 2; }},
    {"A3", 'A', "heads=8", "h 16, d_k 32", 25.8, 4.91, [](TrainConfig& c) { c.heads = 8; }},
    {"A4", 'A', "heads=16", "h 32, d_k 16", 25.4, 5.01, [](TrainConfig& c) { c.heads = 16; }},
    {"C1", 'C', "layers=1", "N 2", 23.7, 6.11, [](TrainConfig& c) { c.layers = 1; }},
    {"C2", 'C', "layers=3", "N 8", 25.5, 4.88, [](TrainConfig& c) { c.layers = 3; }},
    {"C3", 'C', "d_model=16", "d_model 256, d_k 32", 24.5, 5.75, [](TrainConfig& c) { c.d_model = 16; }},
    {"C4", 'C', "d_model=64", "d_model 1024, d_k 128", 26.0, 4.66, [](TrainConfig& c) { c.d_model = 64; }},
    {"C5", 'C', "d_ff=32", "d_ff 1024", 25.4, 5.12, [](TrainConfig& c) { c.d_ff = 32; }},
    {"C6", 'C', "d_ff=128", "d_ff 4096", 26.2, 4.75, [](TrainConfig& c) { c.d_ff = 128; }},
    {"D1", 'D', "dropout=0", "P_drop 0.0", 24.6, 5.77, [](TrainConfig& c) { c.dropout = 0; }},
    {"D2", 'D', "dropout=0.2", "P_drop 0.2", 25.5, 4.95, [](TrainConfig& c) { c.dropout = 0.2; }},
    {"D3", 'D', "label_smoothing=0", "eps_ls 0.0", 25.3, 4.67, [](TrainConfig& c) { c.label_smoothing = 0; }},
    {"D4", 'D', "label_smoothing=0.2", "eps_ls 0.2", 25.7, 5.47, [](TrainConfig& c) { c.label_smoothing = 0.2; }},
    {"E1", 'E', "position=learned", "positional embedding instead of sinusoids", 25.7, 4.92,
     [](TrainConfig& c) { c.position = PositionKind::Learned; }},
};

constexpr double kPaperBleuSame = 0.1, kPaperPplSame = 0.05;  // the table's last digit

}  // namespace

const std::vector<Table3Row>& table3_rows() { return kRows; }

const Table3Row* find_table3_row(const std::string& id) {
    for (const Table3Row& r : kRows)
        if (id == r.id) return &r;
    return nullptr;
}

std::string table3_row_ids() {
    std::string ids;
    for (const Table3Row& r : kRows) ids += (ids.empty() ? "" : " ") + std::string(r.id);
    return ids;
}

Table3Options resolve_table3_options(const Table3Options& o) {
    Table3Options r = o;
    if (r.steps <= 0) r.steps = 150;
    if (r.seeds <= 0) r.seeds = 3;
    if (r.eval_size <= 0) r.eval_size = 256;
    return r;
}

const KeyTable<Table3Options>& table3_option_keys() {
    using O = Table3Options;
    static const KeyTable<O> table{{
        // Judged as they are read (the CLI's flags, the page's link): nothing validates them later.
        whole<&O::steps>("steps", 10, &ConfigLimits::max_table3_steps).flag("--steps").checked_when_read(),
        whole<&O::seeds>("seeds", 1, &ConfigLimits::max_table3_seeds).flag("--seeds").checked_when_read(),
        whole<&O::eval_size>("eval_size", 16, &ConfigLimits::max_eval_size).flag("--eval-size").checked_when_read(),
    }};
    return table;
}

TrainConfig table3_config(const Table3Row& row, int seed, const Table3Options& o) {
    TrainConfig c;
    c.task = TaskKind::Translate;
    c.layers = 2, c.heads = 4, c.d_model = 32, c.d_ff = 64, c.batch = 32;
    c.dropout = 0.1, c.label_smoothing = 0.1;
    c.steps = o.steps, c.eval_every = o.steps, c.eval_size = o.eval_size;  // one evaluation, at the end
    c.seed = static_cast<uint32_t>(seed);
    row.apply(c);
    return resolve_train_config(c);
}

Table3Cell table3_cell(const Trainer& t, double seconds) {
    return table3_cell(t.evals(), t.stop().cause != StopCause::None, seconds);
}

Table3Cell table3_cell(const std::vector<EvalReport>& evals, bool stopped, double seconds) {
    Table3Cell cell;
    cell.seconds = seconds;
    cell.finite = !stopped && !evals.empty();
    if (!cell.finite) return cell;
    const EvalReport& e = evals.back();
    cell.bleu = e.bleu, cell.ppl = std::exp(e.nll), cell.exact = e.exact_accuracy;
    cell.finite = std::isfinite(cell.bleu) && std::isfinite(cell.ppl);
    return cell;
}

Table3Cell run_table3_cell(const TrainConfig& c) {
    const auto t0 = std::chrono::steady_clock::now();
    Trainer t;
    std::vector<ConfigError> errors;
    if (!t.init(c, &errors)) return Table3Cell{0, 0, 0, 0, false};
    while (!t.finished())
        if (t.step(64) == 0) break;
    return table3_cell(t, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

Spread spread_of(const std::vector<double>& values) {
    Spread s;
    s.n = static_cast<int>(values.size());
    if (values.empty()) return s;
    s.lo = s.hi = values[0];
    for (double v : values) s.mean += v, s.lo = std::min(s.lo, v), s.hi = std::max(s.hi, v);
    s.mean /= s.n;
    double ss = 0;
    for (double v : values) ss += (v - s.mean) * (v - s.mean);
    s.sd = s.n > 1 ? std::sqrt(ss / (s.n - 1)) : 0;
    return s;
}

Table3Verdict table3_verdict(double paper_delta, double paper_tolerance, const Spread& row, const Spread& base) {
    if (row.n == 0 || base.n == 0) return Table3Verdict::Pending;
    const double toy_delta = row.mean - base.mean;
    const bool paper_moves = std::fabs(paper_delta) > paper_tolerance + 1e-9;
    const bool toy_moves = std::fabs(toy_delta) > row.sd + base.sd;
    if (!paper_moves) return toy_moves ? Table3Verdict::ToyDiffersPaperSame : Table3Verdict::AgreesNoDifference;
    if (!toy_moves) return Table3Verdict::ToyNoDifference;
    return (paper_delta > 0) == (toy_delta > 0) ? Table3Verdict::Agrees : Table3Verdict::Disagrees;
}

void summarize_table3(std::vector<Table3RowResult>& rows, int seeds) {
    auto figures = [](const Table3RowResult& r, double Table3Cell::*f) {
        std::vector<double> v;
        for (const Table3Cell& c : r.cells)
            if (c.finite) v.push_back(c.*f);
        return spread_of(v);
    };
    const Table3RowResult* base = nullptr;
    for (Table3RowResult& r : rows) {
        r.bleu = figures(r, &Table3Cell::bleu), r.ppl = figures(r, &Table3Cell::ppl);
        if (r.row && r.row->group == ' ') base = &r;
    }
    const Table3Row& paper_base = kRows[0];
    for (Table3RowResult& r : rows) {
        r.bleu_verdict = r.ppl_verdict = Table3Verdict::Pending;
        if (!base || !r.row || r.row->group == ' ') continue;
        if (static_cast<int>(r.cells.size()) < seeds || static_cast<int>(base->cells.size()) < seeds) continue;
        r.bleu_verdict = table3_verdict(r.row->paper_bleu - paper_base.paper_bleu, kPaperBleuSame, r.bleu, base->bleu);
        r.ppl_verdict = table3_verdict(r.row->paper_ppl - paper_base.paper_ppl, kPaperPplSame, r.ppl, base->ppl);
    }
}

const char* table3_verdict_id(Table3Verdict v) {
    switch (v) {
        case Table3Verdict::Agrees: return "agrees";
        case Table3Verdict::AgreesNoDifference: return "agrees_no_difference";
        case Table3Verdict::ToyNoDifference: return "toy_no_difference";
        case Table3Verdict::ToyDiffersPaperSame: return "toy_differs_paper_same";
        case Table3Verdict::Disagrees: return "disagrees";
        case Table3Verdict::Pending: break;
    }
    return "pending";
}

Msg table3_verdict_text(Table3Verdict v, double paper_delta, double toy_delta, bool higher_is_better) {
    const auto way = [&](double delta) { return Msg((delta > 0) == higher_is_better ? Str::t3_better : Str::t3_worse); };
    switch (v) {
        case Table3Verdict::Agrees: return Msg(Str::t3_agrees, way(toy_delta));
        case Table3Verdict::AgreesNoDifference: return Msg(Str::t3_agrees_same);
        case Table3Verdict::ToyNoDifference: return Msg(Str::t3_toy_same, way(paper_delta));
        case Table3Verdict::ToyDiffersPaperSame: return Msg(Str::t3_toy_differs, way(toy_delta));
        case Table3Verdict::Disagrees: return Msg(Str::t3_disagrees, way(toy_delta), way(paper_delta));
        case Table3Verdict::Pending: break;
    }
    return Msg(Str::t3_pending);
}

std::string table3_csv(const std::vector<Table3RowResult>& rows) {
    std::ostringstream out;
    out.precision(6);
    out << "row,change,paper,paper_bleu,paper_ppl,seed,bleu,ppl,exact,seconds,bleu_sd,ppl_sd,bleu_verdict,ppl_verdict\n";
    for (const Table3RowResult& r : rows) {
        const std::string head = std::string(r.row->id) + "," + r.row->change + ",\"" + r.row->paper + "\",";
        for (size_t s = 0; s < r.cells.size(); ++s) {
            const Table3Cell& c = r.cells[s];
            out << head << r.row->paper_bleu << "," << r.row->paper_ppl << "," << s + 1 << ",";
            if (c.finite) out << c.bleu << "," << c.ppl << "," << c.exact;
            else out << "nan,nan,nan";
            out << "," << c.seconds << ",,,,\n";
        }
        out << head << r.row->paper_bleu << "," << r.row->paper_ppl << ",mean," << r.bleu.mean << "," << r.ppl.mean << ",,,"
            << r.bleu.sd << "," << r.ppl.sd << "," << table3_verdict_id(r.bleu_verdict) << "," << table3_verdict_id(r.ppl_verdict) << "\n";
    }
    return out.str();
}

}  // namespace lab
