// test_table3.cpp — Table 3 in miniature (issue 25, train/table3.h): the spread and verdict
// arithmetic against hand-computed cases, the rows' configurations against the base (each row
// changes exactly its own key), the held-out perplexity against a naive log-softmax over the
// model's logits, and `attnlab table3`: its table, its CSV (threads give the figures a single
// run gives) and its bad flags.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.h"
#include "train/table3.h"

using namespace lab;

namespace {

std::set<std::string> words(const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;) out.insert(w);
    return out;
}

Spread spread(double mean, double sd) {
    Spread s;
    s.mean = mean, s.sd = sd, s.n = 3;
    return s;
}

}  // namespace

TEST_CASE("table3: mean and sample standard deviation over seeds") {
    const Spread s = spread_of({1, 2, 4});
    CHECK(s.mean == doctest::Approx(7.0 / 3));
    CHECK(s.sd == doctest::Approx(std::sqrt(7.0 / 3)));  // (16 + 1 + 25) / 9 / (3 - 1)
    CHECK(s.lo == 1);
    CHECK(s.hi == 4);
    CHECK(spread_of({5}).sd == 0);
    CHECK(spread_of({}).n == 0);
}

TEST_CASE("table3: a verdict per row compares directions, with the seeds' spread as 'no difference'") {
    const Spread base = spread(90, 1);
    CHECK(table3_verdict(-0.9, 0.1, spread(85, 1), base) == Table3Verdict::Agrees);     // both worse
    CHECK(table3_verdict(0.4, 0.1, spread(95, 1), base) == Table3Verdict::Agrees);      // both better
    CHECK(table3_verdict(-0.9, 0.1, spread(95, 1), base) == Table3Verdict::Disagrees);
    CHECK(table3_verdict(-0.9, 0.1, spread(91.9, 1), base) == Table3Verdict::ToyNoDifference);  // 1.9 < 1 + 1
    CHECK(table3_verdict(-0.9, 0.1, spread(87.9, 1), base) == Table3Verdict::Agrees);            // 2.1 > 1 + 1
    CHECK(table3_verdict(-0.1, 0.1, spread(85, 1), base) == Table3Verdict::ToyDiffersPaperSame);  // the table's last digit
    CHECK(table3_verdict(0.0, 0.1, spread(90.5, 1), base) == Table3Verdict::AgreesNoDifference);
    CHECK(table3_verdict(0.0, 0.1, Spread{}, base) == Table3Verdict::Pending);
    // Words, with the metric's direction: a lower perplexity is better.
    CHECK(render(table3_verdict_text(Table3Verdict::Agrees, -0.9, -5, true), Lang::En) == "agrees: worse, as in the paper");
    CHECK(render(table3_verdict_text(Table3Verdict::Agrees, 0.37, 0.2, false), Lang::En) == "agrees: worse, as in the paper");
    CHECK(render(table3_verdict_text(Table3Verdict::Disagrees, -0.9, 5, true), Lang::En) == "disagrees: better here, worse in the paper");
    CHECK(render(table3_verdict_text(Table3Verdict::ToyNoDifference, 0.4, 0, true), Lang::Zh).find("论文：更好") != std::string::npos);
}

TEST_CASE("table3: every row changes the base by exactly its own key") {
    const Table3Options o = resolve_table3_options({});
    CHECK(o.steps == 150);
    CHECK(o.seeds == 3);
    const Table3Row& base_row = table3_rows()[0];
    const TrainConfig base = table3_config(base_row, 1, o);
    CHECK(base.task == TaskKind::Translate);
    CHECK((base.layers == 2 && base.heads == 4 && base.d_model == 32 && base.d_ff == 64));
    CHECK((base.dropout == 0.1 && base.label_smoothing == 0.1 && base.position == PositionKind::Sinusoid));
    CHECK((base.steps == 150 && base.eval_every == 150 && base.eval_size == 256));
    // name -> value as describe_config writes them (a key left out, e.g. dropout=0, reads as "")
    auto values = [](const TrainConfig& c) {
        std::map<std::string, std::string> out;
        for (const std::string& w : words(describe_config(train_keys(), c))) out[w.substr(0, w.find('='))] = w.substr(w.find('=') + 1);
        return out;
    };
    const std::map<std::string, std::string> base_values = values(base);
    CHECK(table3_rows().size() == 16);
    for (const Table3Row& row : table3_rows()) {
        if (row.group == ' ') continue;
        const TrainConfig c = table3_config(row, 1, o);
        std::map<std::string, std::string> now = values(c);
        std::set<std::string> changed;
        for (const ConfigKey& k : train_keys().rows)
            if (now[k.name] != (base_values.count(k.name) ? base_values.at(k.name) : "")) changed.insert(k.name);
        const std::string change = row.change, key = change.substr(0, change.find('='));
        INFO(std::string(row.id));
        CHECK(changed == std::set<std::string>{key});
        CHECK((now[key].empty() ? "0" : now[key]) == change.substr(change.find('=') + 1));
        CHECK(validate_train_config(c).empty());
    }
    CHECK(table3_config(base_row, 2, o).seed == 2);
    CHECK(find_table3_row("E1")->paper_bleu == 25.7);
    CHECK(find_table3_row("B1") == nullptr);  // (B) is not run: d_k is d_model / h here
}

TEST_CASE("table3: held-out perplexity is exp of the unsmoothed cross-entropy of the model's logits") {
    TrainConfig c = table3_config(table3_rows()[0], 1, resolve_table3_options({}));
    c.steps = 30, c.eval_every = 30, c.eval_size = 24;
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(t.init(c, &errors));
    t.step(30);
    const EvalReport e = t.evaluate();
    // The naive figure: -log softmax at the target, every counted position of every held-out sentence.
    double sum = 0;
    long rows = 0;
    const int V = t.layout().shape.vocab_out, D = t.task().dec_len();
    for (int i = 0; i < e.sequences; ++i) {
        const Sample s = t.held_out_sample(i);
        const std::vector<float> logits = t.logits(s.src, s.dec_in, 1);
        REQUIRE(logits.size() == static_cast<size_t>(D) * V);
        for (int p = 0; p < D; ++p) {
            if (!s.loss_mask.empty() && !s.loss_mask[static_cast<size_t>(p)]) continue;
            double z = 0;
            for (int v = 0; v < V; ++v) z += std::exp(static_cast<double>(logits[static_cast<size_t>(p) * V + v]));
            sum += std::log(z) - logits[static_cast<size_t>(p) * V + s.dec_out[static_cast<size_t>(p)]];
            ++rows;
        }
    }
    REQUIRE(rows > e.sequences);
    CHECK(e.nll == doctest::Approx(sum / rows).epsilon(1e-4));
    CHECK(e.loss > e.nll);  // the smoothed loss also pays for the mass it spreads (ε = 0.1)
    const Table3Cell cell = table3_cell(t, 1.5);
    CHECK(cell.ppl == doctest::Approx(std::exp(t.evals().empty() ? 0 : t.evals().back().nll)));
    CHECK(cell.seconds == 1.5);
}

TEST_CASE("attnlab table3: the table, the CSV, the same figures on threads, and bad flags named") {
    const std::string csv = "table3_test.csv";
    const CliRun ok = run({"table3", "--rows", "A1", "--seeds", "2", "--steps", "20", "--eval-size", "32", "--threads", "2", "--csv", csv});
    INFO(ok.out << ok.err);
    REQUIRE(ok.code == 0);
    // 2 threads natively; the wasm build has no threads and says 1
    CHECK(ok.out.find("table3: translate, 2 rows x 2 seeds, 20 steps per model, 32 held-out sentences, ") != std::string::npos);
    CHECK(ok.out.find("A1    heads=1") != std::string::npos);
    CHECK(ok.out.find("h 1, d_k 512") != std::string::npos);
    std::ifstream in(csv);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::remove(csv.c_str());
    REQUIRE(lines.size() == 7);  // header, base seeds 1 and 2 and mean, A1 the same
    CHECK(lines[0].rfind("row,change,paper,paper_bleu,paper_ppl,seed,bleu,ppl", 0) == 0);
    CHECK(lines[6].find("A1,heads=1,\"h 1, d_k 512\",24.9,5.29,mean,") == 0);
    // Seed 2 of A1 trained on another thread gives what one run on this thread gives.
    Table3Options o;
    o.steps = 20, o.seeds = 2, o.eval_size = 32;
    const Table3Cell direct = run_table3_cell(table3_config(*find_table3_row("A1"), 2, resolve_table3_options(o)));
    std::ostringstream expect;
    expect.precision(6);
    expect << "A1,heads=1,\"h 1, d_k 512\",24.9,5.29,2," << direct.bleu << "," << direct.ppl << "," << direct.exact << ",";
    CHECK(lines[5].rfind(expect.str(), 0) == 0);

    const CliRun bad_row = run({"table3", "--rows", "A1,B1"});
    CHECK(bad_row.code == 2);
    CHECK(bad_row.err.find("--rows: 'B1' is not a row of table3 (base A1 A2 A3 A4 C1 C2 C3 C4 C5 C6 D1 D2 D3 D4 E1)") != std::string::npos);
    const CliRun bad_seeds = run({"table3", "--seeds", "9"});
    CHECK(bad_seeds.code == 2);
    CHECK(bad_seeds.err.find("--seeds") != std::string::npos);
    CHECK(run({"table3", "--threads", "0"}).err.find("--threads '0' is not a whole number in [1, 64]") != std::string::npos);
    CHECK(run({"table3", "--bogus"}).err.find("unknown option '--bogus'") != std::string::npos);
    CHECK(run({"table3", "--help"}).out.find("Row (B), smaller d_k at fixed h, is not run") != std::string::npos);
}
