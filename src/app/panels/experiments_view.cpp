// experiments_view.cpp — Attention Lab app: the paper's claims as panels, and the
// experiment registry (at the end of the file). Numbers come from teach/experiments/experiments.h
// (tested there); each panel lays them out as plots, heatmaps and tables, and reports
// them through state().experiment.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/data/url_state.h"
#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/panels/train_experiments.h"
#include "app/state/experiments.h"
#include "app/state/lab_app.h"
#include "app/widgets/heatmap.h"
#include "app/widgets/line_plot.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "app/widgets/text_wrap.h"
#include "teach/experiments/experiments.h"
#include "trace/stages.h"

namespace lab {

namespace {

const ImU32 kRed = palette::kSeriesRed, kBlue = palette::kSeriesBlue;
const ImU32 kRedDim = palette::with_alpha(kRed, 170), kBlueDim = palette::with_alpha(kBlue, 170);

// One head's weights of one batch item as a small heatmap.
void weights_map(LabApp& app, const Trace& tr, int item, int head, const char* id, float w, float h) {
    const Tensor& t = tr[TensorId::Weights];
    const int Lq = t.shape[2], Lkv = t.shape[3];
    HeatmapOptions opt;
    opt.range = {ColorMap::Sequential, 0.0f, 1.0f};
    opt.gpu = &app.gpu;
    std::string key = std::string("exp/") + id;
    opt.gpu_key = key.c_str();
    opt.gpu_version = (app.generation * 131 + static_cast<unsigned>(app.experiments.open)) * 64 + static_cast<unsigned>(item % 64);
    MatrixHeatmap(id, t.ptr() + t.offset({item, head, 0, 0}), Lq, Lkv, Lkv, opt, w, h);
}

Json shape_json(const Trace& tr) { return tr[TensorId::Weights].shape; }

// A radio button whose label wraps in the space left (ImGui's stays on one line); the label
// selects too.
bool wrapped_radio(const char* label, const char* id, bool active) {
    ImGui::PushID(id);
    ImGui::BeginGroup();
    bool clicked = ImGui::RadioButton("##radio", active);
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    text_wrapped("%s", label);
    ImGui::EndGroup();
    clicked |= ImGui::IsItemClicked();
    ImGui::PopID();
    return clicked;
}

// A bar for a share in [0, 1], `width` pixels with its label beside it (never over it).
void labelled_bar(float share, const char* label, ImU32 colour, float width) {
    const float gap = ImGui::GetStyle().ItemInnerSpacing.x, line = ImGui::GetTextLineHeight();
    const float label_w = ImGui::CalcTextSize(label).x;
    width = std::min(width, ImGui::GetContentRegionAvail().x);
    // No room for the bar beside its label (a phone): the label above, the bar under it.
    const bool above = width - gap - label_w < ImGui::GetFontSize() * 1.5f;
    if (above) text_wrapped("%s", label);
    const float bar_w = above ? width : width - gap - label_w;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(ImVec2(p.x, p.y + line * 0.2f), ImVec2(p.x + bar_w, p.y + line * 0.8f), ImGui::GetColorU32(ImGuiCol_FrameBg));
    dl->AddRectFilled(ImVec2(p.x, p.y + line * 0.2f), ImVec2(p.x + bar_w * std::max(0.0f, std::min(1.0f, share)), p.y + line * 0.8f),
                      colour);
    ImGui::Dummy(ImVec2(bar_w, line));
    if (above) return;
    ImGui::SameLine(0, gap);
    text(label);
}

// Cards side by side (heads, masks, attention kinds), each a framed child of `height`, in
// rows of even length when one row would make a card narrower than 11 characters (seven
// masks: 4 + 3). On a phone, or where not even two fit, they stack without frames instead:
// a card's own scroll inside the panel's would trap a finger's drag, and a narrow card
// breaks its words.
template <class DrawCard>
void draw_cards(const LabApp& app, size_t n, int id_base, float height, const DrawCard& draw_card) {
    const float avail_w = ImGui::GetContentRegionAvail().x;
    const float gap = ImGui::GetStyle().ItemSpacing.x, min_w = ImGui::GetFontSize() * 11;
    const size_t fit = static_cast<size_t>(std::max(0.0f, (avail_w + gap) / (min_w + gap)));
    if (app.narrow.on || n == 0 || fit < std::min<size_t>(n, 2)) {
        for (size_t i = 0; i < n; ++i) {
            if (i) ImGui::Separator();
            draw_card(i);
        }
        return;
    }
    const size_t rows = (n + fit - 1) / fit, per_row = (n + rows - 1) / rows;
    const float col_w = (avail_w - gap * (per_row - 1)) / per_row;
    for (size_t i = 0; i < n; ++i) {
        if (i % per_row) ImGui::SameLine(0, gap);
        ImGui::BeginChild(id_base + static_cast<int>(i), ImVec2(col_w, height), true);
        draw_card(i);
        ImGui::EndChild();
    }
}

// 1. Why divide by √d_k -----------------------------------------------------------------
const ImU32 kGrey = palette::kSeriesGrey;

// An experiment's whole-number option, kept in [lo, hi], placed on the current line when it
// fits: a field with -/+ buttons, or a slider. Its rectangle is "xv:<id>". True when it changed.
bool option_widget(LabApp& app, UiStr label, const char* id, int* v, int lo, int hi, bool first, bool slider) {
    const std::string shown = ui_label(app, label, id);
    const float field = ImGui::GetFontSize() * (slider ? 8 : 7);
    if (!first && fits_on_line(field + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(shown.c_str(), nullptr, true).x))
        ImGui::SameLine(0, ImGui::GetFontSize());
    ImGui::SetNextItemWidth(field);
    const int before = *v;
    if (slider) ImGui::SliderInt(shown.c_str(), v, lo, hi);
    else ImGui::InputInt(shown.c_str(), v, 1, 8);
    *v = std::max(lo, std::min(hi, *v));
    check_item(shown.c_str());
    note_number_field(app);
    lab_note_rect(app, std::string("xv:") + id);
    return *v != before;
}
bool option_int(LabApp& app, UiStr label, const char* id, int* v, int lo, int hi, bool first) {
    return option_widget(app, label, id, v, lo, hi, first, false);
}
bool option_slider(LabApp& app, UiStr label, const char* id, int* v, int lo, int hi, bool first) {
    return option_widget(app, label, id, v, lo, hi, first, true);
}

Json box_json(const PlotBox& b) { return {{"x", json_number(b.x)}, {"y", json_number(b.y)}, {"w", json_number(b.w)}, {"h", json_number(b.h)}}; }

// Where a plot put its texts and curves (state().experiment.plots), for the layout tests.
Json plot_json(const PlotGeometry& g) {
    static const char* const kStyles[] = {"solid", "dashed", "dotted"};
    Json texts = Json::array(), lines = Json::array();
    for (const PlotText& t : g.texts) texts.push_back({{"kind", t.kind}, {"text", t.text}, {"box", box_json(t.box)}});
    for (const PlotLine& l : g.lines)
        lines.push_back({{"label", l.label}, {"style", kStyles[static_cast<int>(l.style)]}, {"markers", l.markers},
                         {"sample", box_json(l.sample)}, {"points", l.points}});
    return {{"id", g.id}, {"box", box_json(g.box)}, {"area", box_json(g.area)}, {"texts", texts}, {"lines", lines}};
}

class ScalingPanel : public ExperimentPanel {
    ScalingOptions options_ = [] {
        ScalingOptions o;
        o.keys = 64, o.samples = 4000, o.seed = 1;
        return o;
    }();
    std::vector<ScalingPoint> points_;
    std::vector<PlotGeometry> plots_;

public:
    ScalingPanel() { option_rows = &scaling_option_keys().rows, option_values = &options_; }

    void compute(const AttentionConfig&) override { points_ = scaling_experiment(options_); }

    void draw(LabApp& app) override {
        const ConfigLimits limits;
        int seed = static_cast<int>(options_.seed);
        stale |= option_int(app, UiStr::xv_keys, "keys", &options_.keys, 2, limits.max_scaling_keys, true);
        item_tooltip(app, tr(app, UiStr::xv_keys_tip));
        stale |= option_int(app, UiStr::xv_samples_per_dk, "samples", &options_.samples, 100, limits.max_scaling_samples, false);
        stale |= option_int(app, UiStr::xv_seed, "seed", &seed, 1, limits.max_seed, false);
        options_.seed = static_cast<uint32_t>(seed);
        draw_plots(app);
        if (points_.empty()) return;
        const ScalingPoint& big = points_.back();
        text_wrapped("%s", say(app, Msg(UiStr::xv_scaling_summary, big.d_k, big.var_dot, big.d_k, big.var_scaled,
                                        big.max_weight, big.jacobian_norm_median, big.max_weight_scaled,
                                        big.jacobian_norm_median_scaled, options_.keys, options_.samples, seed))
                               .c_str());
    }

    void write_state(Json& out, Lang) const override {
        Json series = Json::array();
        for (const ScalingPoint& p : points_)
            series.push_back({{"d_k", p.d_k}, {"var_dot", json_number(p.var_dot)}, {"var_scaled", json_number(p.var_scaled)},
                              {"max_weight", json_number(p.max_weight)}, {"max_weight_scaled", json_number(p.max_weight_scaled)},
                              {"entropy", json_number(p.entropy)}, {"entropy_scaled", json_number(p.entropy_scaled)},
                              {"jacobian_norm", json_number(p.jacobian_norm)},
                              {"jacobian_norm_scaled", json_number(p.jacobian_norm_scaled)},
                              {"jacobian_norm_median", json_number(p.jacobian_norm_median)},
                              {"jacobian_norm_median_scaled", json_number(p.jacobian_norm_median_scaled)}});
        out["keys"] = options_.keys, out["samples"] = options_.samples, out["seed"] = options_.seed, out["series"] = series;
        Json plots = Json::array();
        for (const PlotGeometry& g : plots_) plots.push_back(plot_json(g));
        out["plots"] = plots;
    }

private:
    struct Plot {
        const char* id;
        std::string title;
        std::vector<PlotSeries> series;
        PlotAxes axes;
    };

    // Variance, the largest weight, the entropy and the gradient, each on its own axes.
    std::vector<Plot> plots(LabApp& app, const std::vector<std::vector<double>>& c) const {
        const int n = static_cast<int>(c[0].size());
        const double* dk = c[0].data();
        auto line = [&](const char* label, int col, ImU32 colour, LineStyle style = LineStyle::Solid) {
            return PlotSeries{label, dk, c[col].data(), n, colour, style};
        };
        PlotAxes loglog{true, true, true}, logx{true, false, true};
        PlotAxes weight = logx, entropy = logx;
        weight.y_include_lo = 0, weight.y_include_hi = 1;
        entropy.y_include_lo = 0, entropy.y_include_hi = std::log(static_cast<double>(options_.keys));
        const char* unscaled = tr(app, UiStr::xv_unscaled);
        const char* scaled = tr(app, UiStr::xv_scaled);
        return {
            {"variance", tr(app, UiStr::xv_axis_variance),
             {line("var(q.k)", 1, kRed), line(tr(app, UiStr::xv_theory_dk), 0, kRedDim, LineStyle::Dashed),
              line("var(q.k / sqrt(d_k))", 2, kBlue), line(tr(app, UiStr::xv_theory_1), 11, kBlueDim, LineStyle::Dashed)},
             loglog},
            {"max_weight", say(app, Msg(UiStr::xv_axis_max_weight, options_.keys)),
             {line(unscaled, 3, kRed), line(scaled, 4, kBlue), line(tr(app, UiStr::xv_uniform_max_weight), 12, kGrey, LineStyle::Dotted)},
             weight},
            {"entropy", say(app, Msg(UiStr::xv_axis_entropy, options_.keys)),
             {line(unscaled, 5, kRed), line(scaled, 6, kBlue), line(tr(app, UiStr::xv_uniform_entropy), 13, kGrey, LineStyle::Dotted)},
             entropy},
            // The median row shows the typical gradient; the mean is held up by rare near-ties.
            {"gradient", tr(app, UiStr::xv_axis_jacobian),
             {line(tr(app, UiStr::xv_jac_median_unscaled), 9, kRed), line(tr(app, UiStr::xv_jac_median_scaled), 10, kBlue),
              line(tr(app, UiStr::xv_jac_mean_unscaled), 7, kRedDim, LineStyle::Dashed),
              line(tr(app, UiStr::xv_jac_mean_scaled), 8, kBlueDim, LineStyle::Dashed)},
             loglog},
        };
    }

    // The columns the plots read: d_k, then each measured quantity, then the reference lines.
    std::vector<std::vector<double>> columns() const {
        std::vector<std::vector<double>> c(14);
        const double n = options_.keys;
        for (const ScalingPoint& p : points_) {
            const double row[] = {double(p.d_k), p.var_dot, p.var_scaled, p.max_weight, p.max_weight_scaled, p.entropy,
                                  p.entropy_scaled, p.jacobian_norm, p.jacobian_norm_scaled, p.jacobian_norm_median,
                                  p.jacobian_norm_median_scaled, 1.0, 1.0 / n, std::log(n)};
            for (size_t k = 0; k < c.size(); ++k) c[k].push_back(row[k]);
        }
        return c;
    }

    // Four plots: in a row on a wide screen, else two by two, on a phone standing one under
    // another; tall enough to read, the panel scrolls below that.
    void draw_plots(LabApp& app) {
        plots_.clear();
        if (points_.empty()) return;
        const std::vector<std::vector<double>> c = columns();
        const std::vector<Plot> list = plots(app, c);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float gap = ImGui::GetFontSize();
        const float font = ImGui::GetFontSize();
        const int cols = avail.x >= 4 * 21 * font ? 4 : avail.x >= 2 * 21 * font || !app.narrow.on ? 2 : 1;
        const float w = (avail.x - gap * (cols - 1)) / cols;
        float h = (avail.y - ImGui::GetTextLineHeightWithSpacing() * 5) / (4 / cols) - ImGui::GetStyle().ItemSpacing.y;
        for (const Plot& p : list)
            h = std::max(h, line_plot_height(p.series.data(), static_cast<int>(p.series.size()), w, 7 * ImGui::GetFontSize()));
        for (size_t i = 0; i < list.size(); ++i) {
            if (i % cols) ImGui::SameLine(0, gap);
            const Plot& p = list[i];
            plots_.push_back(LinePlot(p.id, p.series.data(), static_cast<int>(p.series.size()), w, h, "d_k", p.title.c_str(), p.axes));
        }
    }
};

// 2. Heads ----------------------------------------------------------------------------------
class HeadsPanel : public ExperimentPanel {
    std::vector<HeadsPoint> points_;
    int knockout_ = 0;  // index into points_

public:
    void compute(const AttentionConfig& c) override {
        points_ = heads_experiment(c);
        if (knockout_ >= static_cast<int>(points_.size())) knockout_ = 0;
    }

    void draw(LabApp& app) override {
        if (points_.empty()) return;
        draw_untrained_note(app);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        draw_cards(app, points_.size(), 100, avail.y * 0.62f, [&](size_t i) { draw_column(app, points_[i], avail.y); });
        text_wrapped_disabled(tr(app, UiStr::xv_knockout_intro));
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        std::string items;
        for (const HeadsPoint& p : points_) items += "h = " + std::to_string(p.heads) + '\0';
        const std::string combo = ui_label(app, UiStr::xv_knockout_config, "knockout_config");
        ImGui::Combo(combo.c_str(), &knockout_, items.c_str());
        check_item(combo.c_str());
        const HeadsPoint& k = points_[knockout_];
        for (size_t i = 0; i < k.knockout_delta.size() && i < 16; ++i) {
            const double share = k.output_norm > 0 ? k.knockout_delta[i] / k.output_norm : 0.0;
            const std::string label = say(app, Msg(UiStr::xv_knockout_head, i, k.knockout_delta[i], 100 * share));
            labelled_bar(static_cast<float>(share), label.c_str(), head_color(static_cast<int>(i)), avail.x * 0.8f);
        }
    }

    void write_state(Json& out, Lang) const override {
        Json series = Json::array();
        for (const HeadsPoint& p : points_) {
            Json entropy = Json::array(), knockout = Json::array();
            for (double e : p.head_entropy) entropy.push_back(json_number(e));
            for (double d : p.knockout_delta) knockout.push_back(json_number(d));
            series.push_back({{"heads", p.heads}, {"d_k", p.d_k}, {"weights_shape", shape_json(p.trace)},
                              {"head_entropy", entropy}, {"knockout_delta", knockout},
                              {"output_norm", json_number(p.output_norm)}});
        }
        out["series"] = series;
    }

private:
    // One h: its shapes, head 0's weights, and every head's entropy (two columns of bars when many).
    void draw_column(LabApp& app, const HeadsPoint& p, float avail_h) {
        textf("h = %d, d_k = %d", p.heads, p.d_k);
        text_wrapped_disabled(("q_heads " + shape_numbers(p.trace[TensorId::QHeads].shape)).c_str());
        text_wrapped_disabled(("weights " + shape_numbers(p.trace[TensorId::Weights].shape)).c_str());
        const float w = ImGui::GetContentRegionAvail().x;
        const float map = std::min(w, avail_h * 0.25f);
        weights_map(app, p.trace, 0, 0, ("heads_h" + std::to_string(p.heads)).c_str(), map, map);
        text_wrapped_disabled(tr(app, UiStr::xv_entropy_per_head));
        const size_t n = std::min<size_t>(p.head_entropy.size(), 16);
        const int cols = n > 8 ? 2 : 1;
        const float gap = ImGui::GetStyle().ItemSpacing.x;
        const double max_entropy = std::log(std::max(2, app.trace.config.L_kv()));
        for (size_t k = 0; k < n; ++k) {
            if (k % cols) ImGui::SameLine(0, gap);
            char label[32];
            std::snprintf(label, sizeof label, "%.2f", p.head_entropy[k]);
            labelled_bar(static_cast<float>(p.head_entropy[k] / max_entropy), label, head_color(static_cast<int>(k)),
                         (w - gap * (cols - 1)) / cols);
        }
    }
};

// 3. Masks ----------------------------------------------------------------------------------
class MasksPanel : public ExperimentPanel {
    MaskComparison masks_;
    int item_ = -1;  // the batch item the maps show; -1: the most padded one (the last)

public:
    void compute(const AttentionConfig& c) override {
        masks_ = mask_experiment(c);
        item_ = std::min(item_, c.batch - 1);
    }

    void draw(LabApp& app) override {
        const MaskComparison& m = masks_;
        if (m.cases.empty()) return;
        const int batch = m.cases[0].trace.config.batch;
        const int item = item_ < 0 ? batch - 1 : item_;
        draw_untrained_note(app);
        draw_item_picker(app, batch, item);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        draw_cards(app, m.cases.size(), 200, avail.y * 0.6f, [&](size_t i) {
            const MaskCase& mc = m.cases[i];
            text_wrapped("%s", say(app, mc.label).c_str());
            if (mc.name == "padding") {
                const int len = mc.trace.config.padding_lengths[item];
                text_wrapped("%s", say(app, Msg(UiStr::xv_padding_item, item, len, mc.trace.config.L_kv() - len)).c_str());
            }
            const float map = std::min(ImGui::GetContentRegionAvail().x, avail.y * 0.32f);
            weights_map(app, mc.trace, item, 0, ("mask_" + std::to_string(i)).c_str(), map, map);
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            text_wrapped("%s", say(app, Msg(UiStr::xv_future_nonzero, mc.future_nonzero)).c_str());
            const Msg nan = mc.has_nan ? Msg(UiStr::xv_nan_suffix) : Msg::literal("");
            text_wrapped("%s", say(app, Msg(UiStr::xv_fully_masked_rows, mc.fully_masked_rows, nan)).c_str());
            ImGui::PopStyleColor();
        });
        text_wrapped("%s", say(app, m.fully_masked_why).c_str());
        text_wrapped("%s", say(app, m.inverted_why).c_str());
    }

    void write_state(Json& out, Lang) const override {
        Json cases = Json::array();
        for (const MaskCase& c : masks_.cases)
            cases.push_back({{"name", c.name}, {"future_nonzero", c.future_nonzero},
                             {"fully_masked_rows", c.fully_masked_rows}, {"has_nan", c.has_nan},
                             {"padding_lengths", c.trace.config.padding_lengths}});
        out["cases"] = cases;
        out["item"] = masks_.cases.empty() ? 0 : (item_ < 0 ? masks_.cases[0].trace.config.batch - 1 : item_);
        out["fully_masked_inf_nan"] = masks_.fully_masked_inf.has_nan;
        out["fully_masked_1e9_nan"] = masks_.fully_masked_1e9.has_nan;
    }

private:
    // "batch item: (0) (1) ...": which item every map shows (padding differs per item).
    void draw_item_picker(LabApp& app, int batch, int item) {
        ImGui::TextUnformatted(tr(app, UiStr::xv_batch_item));
        for (int b = 0; b < batch && b < 16; ++b) {
            ImGui::SameLine();
            int chosen = item;
            if (ImGui::RadioButton(("###mask_item" + std::to_string(b)).insert(0, std::to_string(b)).c_str(), &chosen, b))
                item_ = b;
            lab_note_rect(app, "mask_item:" + std::to_string(b));
        }
    }
};

// 4. Positional encoding ---------------------------------------------------------------------
class PePanel : public ExperimentPanel {
    int length_ = 64, train_length_ = 32;
    PeExperiment pe_;

public:
    void compute(const AttentionConfig& c) override {
        // A fast, a middle and a slow pair of dimensions (sin, cos), whatever d_model is.
        std::vector<int> dims;
        for (int d : {2, std::max(2, (c.d_model / 4) & ~1), std::max(2, (c.d_model / 2) & ~1)})
            for (int k : {d, d + 1})
                if (k < c.d_model && std::find(dims.begin(), dims.end(), k) == dims.end()) dims.push_back(k);
        if (dims.empty()) dims.push_back(0);
        pe_ = pe_experiment(length_, c.d_model, train_length_, dims);
    }

    void draw(LabApp& app) override {
        stale |= option_slider(app, UiStr::xv_pe_positions, "pe_positions", &length_, 8, 512, true);
        stale |= option_slider(app, UiStr::xv_pe_training_length, "pe_training_length", &train_length_, 1, 512, false);
        if (pe_.pe.empty()) return;
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float w = avail.x / 3 - 8, h = avail.y * 0.7f;
        const unsigned long long version = app.generation * 977 + pe_.length * 7 + pe_.train_length;
        ImGui::BeginChild("pe_map", ImVec2(w, h));
        text_wrapped_disabled(say(app, Msg(UiStr::xv_pe_map_caption, pe_.length, pe_.d_model, pe_.train_length)).c_str());
        // Positions x dimensions: the cells fill the box rather than stay square (a thin strip otherwise).
        HeatmapOptions opt;
        opt.square = false;
        opt.range = {ColorMap::Diverging, -1.0f, 1.0f};
        opt.gpu = &app.gpu, opt.gpu_key = "exp/pe", opt.gpu_version = version;
        opt.highlight_row = pe_.train_length < pe_.length ? pe_.train_length : -1;
        MatrixHeatmap("pe", pe_.pe.data(), pe_.length, pe_.d_model, pe_.d_model, opt);
        ImGui::EndChild();
        ImGui::SameLine();
        draw_curves(app, w, h);
        ImGui::SameLine();
        ImGui::BeginChild("pe_sim", ImVec2(w, h));
        const UiStr yes_no = pe_.similarity_depends_on_offset_only ? UiStr::xv_yes : UiStr::xv_no;
        text_wrapped_disabled(say(app, Msg(UiStr::xv_pe_sim_caption, yes_no, pe_.max_offset_deviation)).c_str());
        HeatmapOptions so;
        so.range = range_for(pe_.similarity.data(), static_cast<long>(pe_.similarity.size()), ColorMap::Diverging);
        so.gpu = &app.gpu, so.gpu_key = "exp/pe_sim", so.gpu_version = version;
        MatrixHeatmap("pe_sim", pe_.similarity.data(), pe_.length, pe_.length, pe_.length, so);
        ImGui::EndChild();
    }

    void write_state(Json& out, Lang) const override {
        out["length"] = pe_.length, out["d_model"] = pe_.d_model, out["train_length"] = pe_.train_length;
        out["offset_only"] = pe_.similarity_depends_on_offset_only;
        out["max_offset_deviation"] = json_number(pe_.max_offset_deviation);
        out["dims"] = pe_.dims;
    }

private:
    void draw_curves(LabApp& app, float w, float h) {
        std::vector<double> pos(pe_.length);
        for (int i = 0; i < pe_.length; ++i) pos[i] = i;
        std::vector<std::vector<double>> ys(pe_.curves.size());
        std::vector<std::string> labels(pe_.curves.size());
        std::vector<PlotSeries> series;
        for (size_t k = 0; k < pe_.curves.size(); ++k) {
            ys[k].assign(pe_.curves[k].begin(), pe_.curves[k].end());
            labels[k] = say(app, Msg(UiStr::xv_pe_dim, pe_.dims[k]));
        }
        for (size_t k = 0; k < pe_.curves.size(); ++k)
            series.push_back({labels[k].c_str(), pos.data(), ys[k].data(), pe_.length, head_color(static_cast<int>(k))});
        LinePlot("pe_curves", series.data(), static_cast<int>(series.size()), w, h, tr(app, UiStr::xv_axis_position),
                 tr(app, UiStr::xv_axis_pe_value), {false, false});
    }
};

// 5. Common mistakes --------------------------------------------------------------------------
class MistakesPanel : public ExperimentPanel {
    std::vector<MistakeResult> results_;  // one per mistakes() entry
    int selected_ = 0;
    MistakeOptions options_;

public:
    MistakesPanel() { option_rows = &mistake_option_keys().rows, option_values = &options_; }

    void compute(const AttentionConfig& c) override {
        results_.clear();
        for (const MistakeSpec& m : mistakes()) results_.push_back(run_mistake(m, c, options_));
    }

    void draw(LabApp& app) override {
        if (results_.empty()) return;
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        // As wide as the longest title (radio, padding, scrollbar), up to half the panel.
        float widest = 0;
        for (const MistakeResult& m : results_) widest = std::max(widest, ImGui::CalcTextSize(say(app, m.title).c_str()).x);
        const ImGuiStyle& st = ImGui::GetStyle();
        const float list_w = widest + ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + 2 * st.WindowPadding.x + st.ScrollbarSize;
        ImGui::BeginChild("mistake_list", ImVec2(std::min(std::max(list_w, avail.x * 0.3f), avail.x * 0.5f), avail.y), true);
        for (size_t i = 0; i < results_.size(); ++i) {
            const MistakeResult& m = results_[i];
            if (wrapped_radio(say(app, m.title).c_str(), m.key.c_str(), selected_ == static_cast<int>(i))) selected_ = static_cast<int>(i);
            lab_note_rect(app, "mistake:" + m.key);
        }
        ImGui::EndChild();
        lab_note_rect(app, "mistake_list");  // tests: every title fits inside it
        ImGui::SameLine();
        ImGui::BeginChild("mistake_detail", ImVec2(0, avail.y), true);
        lab_note_window(app, "mistake_detail");  // tests: scroll a story step into it
        draw_detail(app, results_[selected_]);
        ImGui::EndChild();
    }

    void write_state(Json& out, Lang lang) const override {
        Json series = Json::array();
        for (const MistakeResult& m : results_)
            series.push_back({{"key", m.key}, {"runs", m.runs}, {"error", m.error}, {"stops_at", m.stops_at},
                              {"max_row_sum_error", json_number(m.max_row_sum_error)},
                              {"future_weight", json_number(m.future_weight)}, {"output_diff", json_number(m.output_diff)},
                              {"symptom", render(m.symptom, lang)}, {"claim", render(m.claim, lang)},
                              {"buggy_line", render(m.buggy_line, lang)}, {"nan_rows", m.nan_rows}, {"story", story_json(m, lang)},
                              {"mask_length", m.mask_length}});
        out["selected"] = selected_, out["series"] = series;
    }

private:
    static void code_line(const std::string& text, ImVec4 colour) { text_wrapped_colored(colour, text.c_str()); }

    static Json story_json(const MistakeResult& m, Lang lang) {
        Json steps = Json::array();
        for (const MistakeStep& s : m.story)
            steps.push_back({{"code", s.code}, {"shape", s.shape}, {"error", s.error}, {"branch", s.branch},
                             {"note", render(s.note, lang)}});
        return steps;
    }

    // The knob of a mistake that builds a mask for another length: it shows the length in use
    // (half the keys until the learner picks one).
    void draw_mask_length(LabApp& app, const MistakeResult& m) {
        const AttentionConfig& c = m.correct.config;
        int n = m.mask_length;
        if (option_int(app, UiStr::xv_mask_len, "mask_len", &n, 1, ConfigLimits{}.max_len, true) && n != m.mask_length)
            options_.mask_length = n, stale = true;
        item_tooltip(app, say(app, Msg(UiStr::xv_mask_len_tip, c.L_q(), c.L_kv())).c_str());
    }

    // The lines after the buggy one as PyTorch runs them: each one's shape, or the error it stops at.
    void draw_story(LabApp& app, const MistakeResult& m, ImVec4 red) {
        if (m.story.empty()) return;
        ImGui::Spacing();
        text_disabled(tr(app, UiStr::xv_story_title));
        const ImVec4 code(0.85f, 0.85f, 0.88f, 1);
        for (size_t i = 0; i < m.story.size(); ++i) {
            const MistakeStep& s = m.story[i];
            if (!s.note.empty()) text_wrapped_disabled(say(app, s.note).c_str());
            ImGui::Indent();
            code_line(s.code, code);
            if (s.error.empty()) text_wrapped_disabled(say(app, Msg(UiStr::xv_step_runs, "(" + join_shape(s.shape) + ")")).c_str());
            else code_line("-> " + s.error, red);
            lab_note_rect(app, "mistake_step:" + std::to_string(i));  // its outcome line
            ImGui::Unindent();
        }
    }

    static std::string join_shape(const std::vector<int>& shape) {
        std::string out;
        for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
        return out;
    }

    void draw_detail(LabApp& app, const MistakeResult& m) {
        const ImVec4 red(1.0f, 0.55f, 0.5f, 1), green(0.62f, 0.85f, 0.62f, 1);
        text_wrapped("%s", say(app, m.title).c_str());
        if (m.mask_length > 0) draw_mask_length(app, m);
        text_disabled(tr(app, UiStr::xv_buggy));
        code_line(say(app, m.buggy_line), red);
        text_disabled(tr(app, UiStr::xv_correct));
        code_line(say(app, m.correct_line), green);
        ImGui::Separator();
        if (!m.runs) {
            const int stop = stage_index(m.stops_at);
            const std::string where = stop >= 0 ? tr(app, stage_infos()[stop].title) : m.stops_at;
            text_wrapped_disabled(say(app, Msg(UiStr::xv_stops_at, where)).c_str());
            code_line(m.error, red);
        } else {
            text_wrapped("%s", say(app, Msg(UiStr::xv_max_row_sum_error, m.max_row_sum_error)).c_str());
            text_wrapped("%s", say(app, Msg(UiStr::xv_future_weight, m.future_weight)).c_str());
            text_wrapped("%s", say(app, Msg(UiStr::xv_output_diff, m.output_diff)).c_str());
        }
        draw_story(app, m, red);
        ImGui::Spacing();
        text_wrapped("%s", say(app, m.symptom).c_str());
        if (m.claim.empty()) return;
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, palette::kWarnText);
        text_wrapped("%s", tr(app, UiStr::xv_tutorial_claim));
        ImGui::PopStyleColor();
        text_wrapped("%s", say(app, m.claim).c_str());
    }
};

// 6. Encoder vs decoder -----------------------------------------------------------------------
class EncDecPanel : public ExperimentPanel {
    std::vector<AttentionKindTrace> kinds_;

public:
    void compute(const AttentionConfig& c) override { kinds_ = encoder_decoder_experiment(c, c.L_q() + 2, c.L_q()); }

    void draw(LabApp& app) override {
        if (kinds_.empty()) return;
        draw_untrained_note(app);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        draw_cards(app, kinds_.size(), 300, avail.y, [&](size_t i) {
            const Trace& tr = kinds_[i].trace;
            text_wrapped("%s", say(app, kinds_[i].label).c_str());
            for (TensorId id : {TensorId::Q, TensorId::K, TensorId::V, TensorId::Weights, TensorId::Output})
                text_wrapped_disabled((std::string(tensor_name(id)) + "  " + shape_named(tr[id])).c_str());
            const float map = std::min(ImGui::GetContentRegionAvail().x, avail.y * 0.55f);
            weights_map(app, tr, 0, 0, ("encdec_" + std::to_string(i)).c_str(), map, map);
        });
    }

    void write_state(Json& out, Lang) const override {
        Json kinds = Json::array();
        for (const AttentionKindTrace& k : kinds_) kinds.push_back({{"name", k.name}, {"weights_shape", shape_json(k.trace)}});
        out["kinds"] = kinds;
    }
};

template <class Panel>
std::unique_ptr<ExperimentPanel> make() { return std::make_unique<Panel>(); }

// The registry: one row per experiment.
const std::vector<ExperimentEntry> kExperiments = {
    {"scaling", UiStr::xv_scaling_title, UiStr::xv_scaling_claim, 0, make<ScalingPanel>},
    {"heads", UiStr::xv_heads_title, UiStr::xv_heads_claim, 8, make<HeadsPanel>},
    {"masks", UiStr::xv_masks_title, UiStr::xv_masks_claim, 8, make<MasksPanel>},
    {"pe", UiStr::xv_pe_title, UiStr::xv_pe_claim, 0, make<PePanel>},
    {"mistakes", UiStr::xv_mistakes_title, UiStr::xv_mistakes_claim, 3, make<MistakesPanel>},
    {"encdec", UiStr::xv_encdec_title, UiStr::xv_encdec_claim, 8, make<EncDecPanel>},
    // Experiments that train models (train_experiments.cpp): independent of the stepper's configuration.
    {"train_heads", UiStr::tx_heads_title, UiStr::tx_heads_claim, 0, make_heads_training},
    {"train_scaling", UiStr::tx_scaling_title, UiStr::tx_scaling_claim, 0, make_scaling_training},
    {"train_pe", UiStr::tx_pe_title, UiStr::tx_pe_claim, 0, make_pe_training},
    {"train_induction", UiStr::tx_induction_title, UiStr::tx_induction_claim, 0, make_induction_training},
    {"table3", UiStr::t3_title, UiStr::t3_claim, 0, make_table3_training},
};

// Experiments keep several traces of the current size; refuse up front rather than let
// the page run out of memory.
constexpr double kBudget = 768.0 * 1024 * 1024;

void compute(LabApp& app) {
    ExperimentPanel& panel = *app.experiments.panels[app.experiments.open];
    if (panel.computed_for == app.generation && !panel.stale) return;
    const auto t0 = std::chrono::steady_clock::now();
    // The experiments vary heads, masks, PE and cross-attention of multi-head attention: from
    // raw SDPA they start at its sizes with raw off (its Q, K, V would not fit their configurations).
    AttentionConfig c = app.trace.config;
    c.raw = false;
    const double need = estimate_trace_bytes(c) * kExperiments[app.experiments.open].traces_kept;
    panel.computed_for = app.generation, panel.stale = false;
    panel.too_large = need > kBudget ? Msg(UiStr::xv_too_large, need / 1048576.0, kBudget / 1048576.0) : Msg();
    if (!panel.too_large.empty()) return;
    panel.compute(c);
    panel.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

const std::vector<ExperimentEntry>& experiments() { return kExperiments; }

int experiment_index(const std::string& key) {
    for (size_t i = 0; i < kExperiments.size(); ++i)
        if (key == kExperiments[i].key) return static_cast<int>(i);
    return -1;
}

void draw_experiment_menu(LabApp& app) {
    const std::string menu_label = ui_label(app, UiStr::xv_menu_button, "experiments_button");
    const bool clicked = ImGui::SmallButton(menu_label.c_str());
    check_item(menu_label.c_str());
    lab_note_rect(app, "menu:experiments");
    if (clicked || app.experiments.open_menu) ImGui::OpenPopup("experiments");
    app.experiments.open_menu = false;
    if (!ImGui::BeginPopup("experiments")) return;
    for (size_t i = 0; i < kExperiments.size(); ++i) {
        const ExperimentEntry& e = kExperiments[i];
        const std::string label = std::string(tr(app, e.title)) + "###exp_" + e.key;
        if (ImGui::Selectable(label.c_str(), app.experiments.open == static_cast<int>(i))) app.experiments.open = static_cast<int>(i);
        check_item(label.c_str());
        lab_note_rect(app, std::string("exp:") + e.key);
    }
    ImGui::Separator();
    const std::string none_label = ui_label(app, UiStr::xv_menu_back, "exp_none");
    if (ImGui::Selectable(none_label.c_str(), app.experiments.open < 0)) app.experiments.open = -1;
    check_item(none_label.c_str());
    lab_note_rect(app, "exp:none");
    ImGui::EndPopup();
}

void draw_experiment_view(LabApp& app, float x, float y, float w, float h) {
    compute(app);
    begin_panel("Experiment", {x, y, w, h}, ImGuiWindowFlags_NoTitleBar);
    const ExperimentEntry& entry = kExperiments[app.experiments.open];
    ExperimentPanel& panel = *app.experiments.panels[app.experiments.open];
    text_wrapped("%s", tr(app, entry.title));
    const std::string back_label = ui_label(app, UiStr::xv_back_button, "exp_back");
    if (fits_on_line(ImGui::CalcTextSize(back_label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2)) ImGui::SameLine();
    const bool back = ImGui::SmallButton(back_label.c_str());
    check_item(back_label.c_str());
    lab_note_rect(app, "exp:back");
    text_wrapped("%s", tr(app, entry.claim));
    ImGui::Separator();
    if (!panel.too_large.empty()) {
        text_wrapped_colored(palette::kErrorText, say(app, panel.too_large).c_str());
    } else if (!back) {
        panel.draw(app);
    }
    ImGui::End();
    if (back) app.experiments.open = -1;
}

Json experiment_state(const LabApp& app) {
    if (app.experiments.open < 0) return nullptr;
    const ExperimentEntry& entry = kExperiments[app.experiments.open];
    const ExperimentPanel& panel = *app.experiments.panels[app.experiments.open];
    Json out = {{"key", entry.key}, {"title", tr(app, entry.title)}, {"compute_ms", json_number(panel.compute_ms)}};
    if (!panel.too_large.empty()) out["too_large"] = say(app, panel.too_large);
    if (panel.option_rows) out["options"] = keys_json(*panel.option_rows, panel.option_values);
    panel.write_state(out, app.text_lang);
    return out;
}

std::vector<std::pair<std::string, std::string>> experiment_option_pairs(const LabApp& app) {
    std::vector<std::pair<std::string, std::string>> out;
    if (app.experiments.open < 0 || !app.experiments.panels[app.experiments.open]->option_rows) return out;
    const ExperimentPanel& panel = *app.experiments.panels[app.experiments.open];
    for (const auto& [key, value] : hash_pairs(*panel.option_rows, panel.option_values))
        out.emplace_back(std::string(kExperiments[app.experiments.open].key) + "." + key, value);
    return out;
}

void apply_experiment_options(LabApp& app, const std::vector<std::pair<std::string, std::string>>& options,
                              std::vector<Msg>* notes) {
    for (const auto& [key, value] : options) {
        const size_t dot = key.find('.');
        const int e = experiment_index(key.substr(0, dot));
        ExperimentPanel* panel = e >= 0 ? app.experiments.panels[e].get() : nullptr;
        if (panel && panel->option_rows &&
            decode_key(*panel->option_rows, key.substr(dot + 1), value, panel->option_values, notes, nullptr,
                       key.substr(0, dot + 1))) {
            panel->stale = true;
            continue;
        }
        notes->push_back(Msg(Str::url_note, Msg(Str::url_unknown_key, key.substr(0, 40))));
    }
}

}  // namespace lab
