// prompt_text.cpp — Attention Lab interop: one stage as plain text to paste into a
// chat or a note — formula, PyTorch line, configuration, shapes, a few values of the
// stage's main tensor for (batch item, head), invariant results. Text only.
#include <algorithm>

#include "base/utf8.h"
#include "explain/derivation.h"
#include "interop/exports.h"

namespace lab {

namespace {

constexpr int kRows = 4;
constexpr int kCols = 8;
// One line per verdict, in Verdict's order.
const Str kPromptLine[] = {Str::io_prompt_check_ok, Str::io_prompt_check_fail, Str::io_prompt_check_nan, Str::io_prompt_fact};

std::string padded(std::string s, size_t width) {
    const size_t chars = utf8::length(s);
    if (chars < width) s.insert(0, width - chars, ' ');
    return s;
}

// The 2-D slice of `t` for (item, head): leading B and h dims are fixed, what is left is
// rows x cols (1-D tensors are one row; higher ranks fold the leading rest into rows).
void values_block(std::string& s, const Tensor& t, int item, int head, Lang lang) {
    size_t axis = 0, offset = 0;
    std::vector<int> fixed;
    std::string label = t.name;
    if (axis < t.dims.size() && t.dims[axis] == "B") {
        fixed.push_back(std::min(item, t.shape[axis] - 1)), ++axis;
        label += render(Msg(Str::io_prompt_batch_item, fixed.back()), lang);
    }
    if (axis < t.dims.size() && t.dims[axis] == "h") {
        fixed.push_back(std::min(head, t.shape[axis] - 1)), ++axis;
        label += render(Msg(Str::io_prompt_head, fixed.back()), lang);
    }
    size_t inner = 1;
    for (size_t a = axis; a < t.shape.size(); ++a) inner *= static_cast<size_t>(t.shape[a]);
    for (size_t a = 0; a < fixed.size(); ++a) {
        size_t stride = 1;
        for (size_t b = a + 1; b < t.shape.size(); ++b) stride *= static_cast<size_t>(t.shape[b]);
        offset += static_cast<size_t>(fixed[a]) * stride;
    }
    const size_t rest = t.shape.size() - axis;
    const int cols = rest == 0 ? 1 : t.shape.back();
    const int rows = static_cast<int>(inner / static_cast<size_t>(cols));
    const std::string row_dim = rest >= 2 ? t.dims[t.shape.size() - 2] : "";
    const std::string col_dim = rest >= 1 ? t.dims.back() : "";

    const std::string dims =
        (row_dim.empty() ? "" : row_dim + "=" + std::to_string(rows) + " x ") + col_dim + "=" + std::to_string(cols);
    const int show_r = std::min(rows, kRows), show_c = std::min(cols, kCols);
    if (show_r < rows || show_c < cols) s += render(Msg(Str::io_prompt_values_cut, label, dims, show_r, show_c), lang);
    else s += render(Msg(Str::io_prompt_values, label, dims), lang);
    const size_t width = 11;
    s += padded("", 8);
    for (int j = 0; j < show_c; ++j) s += padded(col_dim + "=" + std::to_string(j), width);
    if (show_c < cols) s += "  ...";
    s += "\n";
    for (int i = 0; i < show_r; ++i) {
        s += row_dim.empty() ? padded("", 8) : padded(row_dim + "=" + std::to_string(i), 8);
        for (int j = 0; j < show_c; ++j) s += padded(format_value(t.data[offset + static_cast<size_t>(i) * cols + j]), width);
        if (show_c < cols) s += "  ...";
        s += "\n";
    }
    if (show_r < rows) s += padded("...", 8) + "\n";
}

}  // namespace

std::string stage_prompt_text(const Trace& trace, int stage, int batch_item, int head, Lang lang) {
    const auto& infos = stage_infos(trace.config);
    if (stage < 0 || stage >= static_cast<int>(infos.size()) || stage >= static_cast<int>(trace.stages.size())) return "";
    const AttentionConfig& c = trace.config;
    batch_item = std::max(0, std::min(batch_item, c.batch - 1));
    head = std::max(0, std::min(head, c.heads - 1));
    const StageInfo& info = infos[static_cast<size_t>(stage)];
    const StageRecord& rec = trace.stages[static_cast<size_t>(stage)];
    auto say = [&](const Msg& m) { return render(m, lang); };
    auto on_off = [](bool on) { return on ? Str::io_prompt_on : Str::io_prompt_off; };

    std::string s = say(Msg(Str::io_prompt_header, stage + 1, infos.size(), info.title));
    s += say(Msg(Str::io_prompt_formula, info.formula));
    s += say(Msg(Str::io_prompt_pytorch, info.pytorch));
    s += say(Msg(Str::io_prompt_config, c.d_model, c.heads, c.d_k(), c.batch, c.L_q(), c.L_kv(), mask_kind_name(c.mask)));
    if (c.mask == MaskKind::Padding) {
        std::string lengths;
        for (size_t b = 0; b < c.padding_lengths.size(); ++b) lengths += (b ? ", " : "") + std::to_string(c.padding_lengths[b]);
        s += say(Msg(Str::io_prompt_lengths, lengths));
    }
    s += say(Msg(Str::io_prompt_flags, mask_fill_name(c.mask_fill), on_off(c.scale), on_off(c.pe), on_off(c.bias),
                 c.cross ? Str::io_prompt_cross : Str::io_prompt_self, static_cast<unsigned>(c.seed)));

    s += tr(Str::io_prompt_shapes, lang);
    for (const ShapeStep& st : rec.shape_steps) {
        const std::string op = say(st.op);
        s += "  " + op + std::string(op.size() < 34 ? 34 - op.size() : 1, ' ') + shape_named(st.shape, st.dims) + "\n";
    }
    s += "\n";
    values_block(s, trace[info.result], batch_item, head, lang);
    s += "\n";

    s += tr(Str::io_prompt_checks, lang);
    if (rec.checks.empty()) s += tr(Str::io_prompt_no_checks, lang);
    for (const InvariantCheck& ch : rec.checks)
        s += say(Msg(kPromptLine[static_cast<int>(ch.verdict)], ch.label, ch.detail));
    return s;
}

}  // namespace lab
