// attend_cmd.cpp — Attention Lab CLI: `attnlab attend --checkpoint DIR --text "..."`.
#include "cli/attend_cmd.h"

#include <cstdio>
#include <ostream>

#include "cli/cli.h"
#include "interop/checkpoint.h"
#include "interop/torch_print.h"
#include "train/coref_probe.h"

namespace lab {

namespace {

std::string shown(const std::string& v) { return v.size() > 40 ? v.substr(0, 40) + "..." : v; }

std::string fixed4(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

struct AttendOptions {
    std::string checkpoint, text, from, part = "final";
    bool text_given = false, scores = false;
};

// Every flag; errors name theirs.
std::vector<ConfigError> parse(const std::vector<std::string>& args, AttendOptions* o) {
    std::vector<ConfigError> errors;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        if (flag == "--scores") {
            o->scores = true;
            continue;
        }
        const bool known = flag == "--checkpoint" || flag == "--text" || flag == "--from" || flag == "--part";
        if (!known) {
            errors.push_back({flag.empty() ? "argument" : flag, flag.empty() ? Msg(Str::cli_empty_argument)
                                                                          : Msg(Str::cli_unknown_option, shown(flag))});
            continue;
        }
        if (i + 1 >= args.size()) {
            errors.push_back({flag, Msg(Str::cli_needs_value, flag)});
            continue;
        }
        const std::string& v = args[++i];
        if (flag == "--checkpoint") o->checkpoint = v;
        if (flag == "--text") o->text = v, o->text_given = true;
        if (flag == "--from") o->from = v;
        if (flag == "--part" && v != "final" && v != "init")
            errors.push_back({flag, Msg(Str::cli_not_one_of, flag, shown(v), Str::cli_expect_part)});
        else if (flag == "--part") o->part = v;
    }
    for (const char* needed : {"--checkpoint", "--text"})
        if ((needed[2] == 'c' ? o->checkpoint.empty() : !o->text_given) && errors.empty())
            errors.push_back({needed, Msg(Str::cli_needs_value, needed)});
    return errors;
}

void print_reading(const Trainer& t, const CorefReading& r, std::ostream& out) {
    const CorefVocab& v = coref_vocab(t.task().lang);
    out << "tokens (" << r.text.tokens.size() << "):";
    for (const std::string& tok : r.text.tokens) out << " " << tok;
    out << "\nquery: " << r.text.tokens[static_cast<size_t>(r.text.query)] << " at position " << r.text.query << "\n";
    out << "answer: " << v.nouns[static_cast<size_t>(r.answer)] << " (probability " << fixed4(r.probability) << ")\n";
    for (const CorefHeadRow& h : r.heads) {
        out << t.layout().blocks[static_cast<size_t>(h.block)].name << " (layer " << h.layer << ") head " << h.head
            << ":\n" << torch_repr(h.row, {static_cast<int>(h.row.size())}) << "\n  summed on nouns:";
        for (size_t n = 0; n < r.text.nouns.size(); ++n)
            out << " " << v.nouns[static_cast<size_t>(r.text.nouns[n].cls)] << " " << fixed4(h.on_noun[n]);
        out << "\n";
    }
}

void print_scores(Trainer& t, std::ostream& out) {
    const CorefScores s = coref_head_scores(t, t.held_out_count());
    out << "held-out (" << s.samples << " sentences): exact accuracy " << fixed4(s.exact)
        << "; per head, the pronoun's mean weight on the referent vs the other noun, and the accuracy without it:\n";
    for (size_t k = 0; k < s.heads.size(); ++k) {
        const CorefHeadScore& h = s.heads[k];
        out << "  " << t.layout().blocks[static_cast<size_t>(h.block)].name << " head " << h.head << ": referent "
            << fixed4(h.referent) << "  other " << fixed4(h.other) << "  margin (animal/object meant) " << fixed4(h.margin[0])
            << "/" << fixed4(h.margin[1]) << "  knocked out: exact " << fixed4(h.knockout_exact)
            << (static_cast<int>(k) == s.resolving ? "   <- resolves" : "") << "\n";
    }
}

}  // namespace

std::string attend_usage() {
    return "usage: attnlab attend --checkpoint DIR --text SENTENCE [--from TOKEN] [--part final|init] [--scores]\n"
           "  a coref checkpoint (attnlab train --task coref --out DIR) reads SENTENCE: its answer at the pronoun\n"
           "  (or at --from TOKEN, its first occurrence) and, per layer and head, that row of the attention weights\n"
           "  and its summed weight on each noun; --scores adds every head's held-out measurement\n";
}

std::vector<ConfigError> parse_attend_cli(const std::vector<std::string>& args) {
    AttendOptions o;
    return parse(args, &o);
}

int run_attend_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    AttendOptions o;
    std::vector<ConfigError> errors = parse(args, &o);
    Trainer t;
    if (errors.empty() && !load_checkpoint(o.checkpoint, o.part, &t, &errors))
        for (ConfigError& e : errors) e.param = "--checkpoint " + o.checkpoint + ": " + e.param;
    if (!errors.empty()) {
        for (const ConfigError& e : errors) err << "attnlab: attend: " << e.param << ": " << english(e.message) << "\n";
        err << attend_usage();
        return 2;
    }
    CorefReading r;
    Msg problem;
    if (!coref_read(t, o.text, o.from, &r, &problem)) {
        err << "attnlab: attend: " << (t.task().kind == TaskKind::Coref ? "--text" : "--checkpoint") << ": "
            << english(problem) << "\n";
        return 2;
    }
    print_reading(t, r, out);
    if (o.scores) print_scores(t, out);
    return 0;
}

}  // namespace lab
