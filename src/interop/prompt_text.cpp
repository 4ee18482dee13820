// prompt_text.cpp — Attention Lab interop: one stage as plain text to paste into a
// chat or a note — formula, PyTorch line, configuration, shapes, a few values of the
// stage's main tensor for (batch item, head), invariant results. Text only.
#include <algorithm>

#include "core/derivation.h"
#include "core/i18n.h"
#include "exports.h"

namespace lab {

namespace {

constexpr int kRows = 4;
constexpr int kCols = 8;

std::string named(const ShapeStep& st) {
    std::string s = "(";
    for (size_t i = 0; i < st.shape.size(); ++i)
        s += (i ? ", " : "") + (i < st.dims.size() ? st.dims[i] : "?") + "=" + std::to_string(st.shape[i]);
    return s + ")";
}

std::string padded(std::string s, size_t width) {
    size_t chars = 0;
    for (unsigned char ch : s) chars += (ch & 0xC0) != 0x80;
    if (chars < width) s.insert(0, width - chars, ' ');
    return s;
}

// The 2-D slice of `t` for (item, head): leading B and h dims are fixed, what is left is
// rows x cols (1-D tensors are one row; higher ranks fold the leading rest into rows).
void values_block(std::string& s, const Tensor& t, int item, int head) {
    size_t axis = 0, offset = 0;
    std::vector<int> fixed;
    std::string label = t.name;
    if (axis < t.dims.size() && t.dims[axis] == "B") {
        fixed.push_back(std::min(item, t.shape[axis] - 1)), ++axis;
        label += trf(Str::io_prompt_batch_item, fixed.back());
    }
    if (axis < t.dims.size() && t.dims[axis] == "h") {
        fixed.push_back(std::min(head, t.shape[axis] - 1)), ++axis;
        label += trf(Str::io_prompt_head, fixed.back());
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
    if (show_r < rows || show_c < cols) s += trf(Str::io_prompt_values_cut, label, dims, show_r, show_c);
    else s += trf(Str::io_prompt_values, label, dims);
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

std::string stage_prompt_text(const Trace& trace, int stage, int batch_item, int head) {
    const auto& infos = stage_infos();
    if (stage < 0 || stage >= static_cast<int>(infos.size()) || stage >= static_cast<int>(trace.stages.size())) return "";
    const AttentionConfig& c = trace.config;
    batch_item = std::max(0, std::min(batch_item, c.batch - 1));
    head = std::max(0, std::min(head, c.heads - 1));
    const StageInfo& info = infos[static_cast<size_t>(stage)];
    const StageRecord& rec = trace.stages[static_cast<size_t>(stage)];

    std::string s;
    auto on_off = [](bool on) { return tr(on ? Str::io_prompt_on : Str::io_prompt_off); };
    s += trf(Str::io_prompt_header, stage + 1, infos.size(), info.title);
    s += trf(Str::io_prompt_formula, info.formula);
    s += trf(Str::io_prompt_pytorch, info.pytorch);
    s += trf(Str::io_prompt_config, c.d_model, c.heads, c.d_k(), c.batch, c.L_q(), c.L_kv(), mask_kind_name(c.mask));
    if (c.mask == MaskKind::Padding) {
        std::string lengths;
        for (size_t b = 0; b < c.padding_lengths.size(); ++b) lengths += (b ? ", " : "") + std::to_string(c.padding_lengths[b]);
        s += trf(Str::io_prompt_lengths, lengths);
    }
    s += trf(Str::io_prompt_flags, mask_fill_name(c.mask_fill), on_off(c.scale), on_off(c.pe), on_off(c.bias),
             tr(c.cross ? Str::io_prompt_cross : Str::io_prompt_self), static_cast<unsigned>(c.seed));

    s += tr(Str::io_prompt_shapes);
    for (const ShapeStep& st : rec.shape_steps) s += "  " + st.op + std::string(st.op.size() < 34 ? 34 - st.op.size() : 1, ' ') + named(st) + "\n";
    s += "\n";

    if (!info.tensors.empty())
        if (const Tensor* t = trace.find(info.tensors[0])) {
            values_block(s, *t, batch_item, head);
            s += "\n";
        }

    s += tr(Str::io_prompt_checks);
    if (rec.checks.empty()) s += tr(Str::io_prompt_no_checks);
    for (const InvariantCheck& ch : rec.checks)
        s += trf(ch.pass ? Str::io_prompt_check_ok : Str::io_prompt_check_fail, ch.label, ch.detail);
    return s;
}

}  // namespace lab
