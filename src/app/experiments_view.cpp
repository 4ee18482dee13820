// experiments_view.cpp — Attention Lab app: the paper's claims as panels, and the
// experiment registry (at the end of the file). Numbers come from core/experiments.h
// (tested there); each panel lays them out as plots, heatmaps and tables, and reports
// them through state().experiment.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/experiments.h"
#include "core/stages.h"
#include "experiments.h"
#include "heatmap.h"
#include "lab_app.h"
#include "line_plot.h"
#include "panels.h"
#include "text_wrap.h"

namespace lab {

namespace {

const ImU32 kRed = IM_COL32(240, 110, 100, 255), kBlue = IM_COL32(90, 170, 240, 255);
const ImU32 kRedDim = IM_COL32(240, 110, 100, 170), kBlueDim = IM_COL32(90, 170, 240, 170);

// One head's weights of one batch item as a small heatmap.
void weights_map(LabApp& app, const Trace& tr, int item, int head, const char* id, float w, float h) {
    const Tensor& t = tr[TensorId::Weights];
    const int Lq = t.shape[2], Lkv = t.shape[3];
    HeatmapOptions opt;
    opt.range = {ColorMap::Sequential, 0.0f, 1.0f};
    opt.gpu = &app.gpu;
    std::string key = std::string("exp/") + id;
    opt.gpu_key = key.c_str();
    opt.gpu_version = (app.generation * 131 + static_cast<unsigned>(app.experiment)) * 64 + static_cast<unsigned>(item % 64);
    MatrixHeatmap(id, t.ptr() + t.offset({item, head, 0, 0}), Lq, Lkv, Lkv, opt, w, h);
}

Json shape_json(const Trace& tr) { return tr[TensorId::Weights].shape; }

// 1. Why divide by √d_k -----------------------------------------------------------------
class ScalingPanel : public ExperimentPanel {
    int samples_ = 4000, seed_ = 1;
    std::vector<ScalingPoint> points_;

public:
    void compute(const AttentionConfig&) override {
        ScalingOptions o;
        o.samples = samples_;
        o.seed = static_cast<uint32_t>(seed_);
        points_ = scaling_experiment(o);
    }

    void draw(LabApp& app) override {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        stale |= ImGui::SliderInt(ui_label(app, UiStr::xv_samples_per_dk, "samples").c_str(), &samples_, 500, 40000);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        stale |= ImGui::InputInt(ui_label(app, UiStr::xv_seed, "scaling").c_str(), &seed_);
        draw_plots(app);
        if (points_.empty()) return;
        const ScalingPoint& big = points_.back();
        text_wrapped("%s", say(app, Msg(UiStr::xv_scaling_summary, big.d_k, big.var_dot, big.d_k, big.var_scaled,
                                        big.max_weight, big.jacobian_norm_median, big.max_weight_scaled,
                                        big.jacobian_norm_median_scaled, samples_, seed_))
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
        out["samples"] = samples_, out["seed"] = seed_, out["series"] = series;
    }

private:
    void draw_plots(LabApp& app) {
        std::vector<double> dk, var, var_s, maxw, maxw_s, ent, ent_s, jac, jac_s, jmed, jmed_s, one;
        for (const ScalingPoint& p : points_) {
            dk.push_back(p.d_k), var.push_back(p.var_dot), var_s.push_back(p.var_scaled), one.push_back(1.0);
            maxw.push_back(p.max_weight), maxw_s.push_back(p.max_weight_scaled);
            ent.push_back(p.entropy), ent_s.push_back(p.entropy_scaled);
            jac.push_back(p.jacobian_norm), jac_s.push_back(p.jacobian_norm_scaled);
            jmed.push_back(p.jacobian_norm_median), jmed_s.push_back(p.jacobian_norm_median_scaled);
        }
        const int n = static_cast<int>(dk.size());
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float w = avail.x / 3 - 8, h = avail.y * 0.62f;
        const PlotSeries variance[] = {{"var(q.k)", dk.data(), var.data(), n, kRed},
                                       {tr(app, UiStr::xv_theory_dk), dk.data(), dk.data(), n, kRedDim, true},
                                       {"var(q.k / sqrt(d_k))", dk.data(), var_s.data(), n, kBlue},
                                       {tr(app, UiStr::xv_theory_1), dk.data(), one.data(), n, kBlueDim, true}};
        LinePlot("variance", variance, 4, w, h, "d_k", tr(app, UiStr::xv_axis_variance));
        ImGui::SameLine();
        const PlotSeries softmax[] = {{tr(app, UiStr::xv_max_weight_unscaled), dk.data(), maxw.data(), n, kRed},
                                      {tr(app, UiStr::xv_max_weight_scaled), dk.data(), maxw_s.data(), n, kBlue},
                                      {tr(app, UiStr::xv_entropy_unscaled), dk.data(), ent.data(), n, kRedDim, true},
                                      {tr(app, UiStr::xv_entropy_scaled), dk.data(), ent_s.data(), n, kBlueDim, true}};
        LinePlot("softmax", softmax, 4, w, h, "d_k", tr(app, UiStr::xv_axis_one_query), {true, false});
        ImGui::SameLine();
        // The median row shows the typical gradient; the mean is held up by rare near-ties.
        const PlotSeries grad[] = {{tr(app, UiStr::xv_jac_median_unscaled), dk.data(), jmed.data(), n, kRed},
                                   {tr(app, UiStr::xv_jac_median_scaled), dk.data(), jmed_s.data(), n, kBlue},
                                   {tr(app, UiStr::xv_jac_mean_unscaled), dk.data(), jac.data(), n, kRedDim, true},
                                   {tr(app, UiStr::xv_jac_mean_scaled), dk.data(), jac_s.data(), n, kBlueDim, true}};
        LinePlot("gradient", grad, 4, w, h, "d_k", tr(app, UiStr::xv_axis_jacobian), {true, true});
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
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float col_w = avail.x / points_.size() - 8;
        for (size_t i = 0; i < points_.size(); ++i) {
            if (i) ImGui::SameLine();
            ImGui::BeginChild(static_cast<int>(i + 100), ImVec2(col_w, avail.y * 0.62f), true);
            draw_column(app, points_[i], col_w, avail.y);
            ImGui::EndChild();
        }
        ImGui::TextDisabled("%s", tr(app, UiStr::xv_knockout_intro));
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        std::string items;
        for (const HeadsPoint& p : points_) items += "h = " + std::to_string(p.heads) + '\0';
        ImGui::Combo(ui_label(app, UiStr::xv_knockout_config, "knockout_config").c_str(), &knockout_, items.c_str());
        const HeadsPoint& k = points_[knockout_];
        for (size_t i = 0; i < k.knockout_delta.size() && i < 16; ++i) {
            const double share = k.output_norm > 0 ? k.knockout_delta[i] / k.output_norm : 0.0;
            const std::string label = say(app, Msg(UiStr::xv_knockout_head, i, k.knockout_delta[i], 100 * share));
            ImGui::ProgressBar(static_cast<float>(share), ImVec2(avail.x * 0.6f, 0), label.c_str());
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
    void draw_column(LabApp& app, const HeadsPoint& p, float col_w, float avail_h) {
        ImGui::Text("h = %d, d_k = %d", p.heads, p.d_k);
        ImGui::TextDisabled("q_heads %s", shape_numbers(p.trace[TensorId::QHeads].shape).c_str());
        ImGui::TextDisabled("weights %s", shape_numbers(p.trace[TensorId::Weights].shape).c_str());
        const float map = std::min(col_w - 8, avail_h * 0.25f);
        weights_map(app, p.trace, 0, 0, ("heads_h" + std::to_string(p.heads)).c_str(), map, map);
        ImGui::TextDisabled("%s", tr(app, UiStr::xv_entropy_per_head));
        for (size_t k = 0; k < p.head_entropy.size() && k < 16; ++k) {
            ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImGui::ColorConvertU32ToFloat4(head_color(static_cast<int>(k))));
            char label[32];
            std::snprintf(label, sizeof label, "%.2f", p.head_entropy[k]);
            ImGui::ProgressBar(static_cast<float>(p.head_entropy[k] / std::log(std::max(2, app.trace.config.L_kv()))),
                               ImVec2(-1, ImGui::GetTextLineHeight() * 0.7f), label);
            ImGui::PopStyleColor();
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
        draw_item_picker(app, batch, item);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float col_w = avail.x / m.cases.size() - 8;
        for (size_t i = 0; i < m.cases.size(); ++i) {
            const MaskCase& mc = m.cases[i];
            if (i) ImGui::SameLine();
            ImGui::BeginChild(static_cast<int>(i + 200), ImVec2(col_w, avail.y * 0.6f), true);
            ImGui::TextUnformatted(say(app, mc.label).c_str());
            if (mc.name == "padding") {
                const int len = mc.trace.config.padding_lengths[item];
                text_wrapped("%s", say(app, Msg(UiStr::xv_padding_item, item, len, mc.trace.config.L_kv() - len)).c_str());
            }
            const float map = std::min(col_w - 8, avail.y * 0.32f);
            weights_map(app, mc.trace, item, 0, ("mask_" + std::to_string(i)).c_str(), map, map);
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            text_wrapped("%s", say(app, Msg(UiStr::xv_future_nonzero, mc.future_nonzero)).c_str());
            const Msg nan = mc.has_nan ? Msg(UiStr::xv_nan_suffix) : Msg::literal("");
            text_wrapped("%s", say(app, Msg(UiStr::xv_fully_masked_rows, mc.fully_masked_rows, nan)).c_str());
            ImGui::PopStyleColor();
            ImGui::EndChild();
        }
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
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        stale |= ImGui::SliderInt(ui_label(app, UiStr::xv_pe_positions, "pe_positions").c_str(), &length_, 8, 512);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        stale |= ImGui::SliderInt(ui_label(app, UiStr::xv_pe_training_length, "pe_training_length").c_str(), &train_length_, 1, 512);
        if (pe_.pe.empty()) return;
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float w = avail.x / 3 - 8, h = avail.y * 0.7f;
        const unsigned long long version = app.generation * 977 + pe_.length * 7 + pe_.train_length;
        ImGui::BeginChild("pe_map", ImVec2(w, h));
        ImGui::TextDisabled("%s", say(app, Msg(UiStr::xv_pe_map_caption, pe_.length, pe_.d_model, pe_.train_length)).c_str());
        HeatmapOptions opt;
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
        ImGui::TextDisabled("%s", say(app, Msg(UiStr::xv_pe_sim_caption, yes_no, pe_.max_offset_deviation)).c_str());
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

public:
    void compute(const AttentionConfig& c) override {
        results_.clear();
        for (const MistakeSpec& m : mistakes()) results_.push_back(run_mistake(m, c));
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
            ImGui::RadioButton((say(app, m.title) + "###mistake_" + m.key).c_str(), &selected_, static_cast<int>(i));
            lab_note_rect(app, "mistake:" + m.key);
        }
        ImGui::EndChild();
        lab_note_rect(app, "mistake_list");  // tests: every title fits inside it
        ImGui::SameLine();
        ImGui::BeginChild("mistake_detail", ImVec2(0, avail.y), true);
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
                              {"buggy_line", m.buggy_line}, {"nan_rows", m.nan_rows}});
        out["selected"] = selected_, out["series"] = series;
    }

private:
    static void code_line(const std::string& text, ImVec4 colour) {
        ImGui::PushStyleColor(ImGuiCol_Text, colour);
        text_wrapped("%s", text.c_str());
        ImGui::PopStyleColor();
    }

    void draw_detail(LabApp& app, const MistakeResult& m) {
        const ImVec4 red(1.0f, 0.55f, 0.5f, 1), green(0.62f, 0.85f, 0.62f, 1);
        ImGui::Text("%s", say(app, m.title).c_str());
        ImGui::TextDisabled("%s", tr(app, UiStr::xv_buggy));
        code_line(m.buggy_line, red);
        ImGui::TextDisabled("%s", tr(app, UiStr::xv_correct));
        code_line(m.correct_line, green);
        ImGui::Separator();
        if (!m.runs) {
            const int stop = stage_index(m.stops_at);
            const std::string where = stop >= 0 ? tr(app, stage_infos()[stop].title) : m.stops_at;
            ImGui::TextDisabled("%s", say(app, Msg(UiStr::xv_stops_at, where)).c_str());
            code_line(m.error, red);
        } else {
            ImGui::TextUnformatted(say(app, Msg(UiStr::xv_max_row_sum_error, m.max_row_sum_error)).c_str());
            ImGui::TextUnformatted(say(app, Msg(UiStr::xv_future_weight, m.future_weight)).c_str());
            ImGui::TextUnformatted(say(app, Msg(UiStr::xv_output_diff, m.output_diff)).c_str());
        }
        ImGui::Spacing();
        text_wrapped("%s", say(app, m.symptom).c_str());
        if (m.claim.empty()) return;
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.75f, 0.4f, 1));
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
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float col_w = avail.x / kinds_.size() - 8;
        for (size_t i = 0; i < kinds_.size(); ++i) {
            if (i) ImGui::SameLine();
            ImGui::BeginChild(static_cast<int>(i + 300), ImVec2(col_w, avail.y), true);
            const Trace& tr = kinds_[i].trace;
            ImGui::TextUnformatted(say(app, kinds_[i].label).c_str());
            for (TensorId id : {TensorId::Q, TensorId::K, TensorId::V, TensorId::Weights, TensorId::Output})
                ImGui::TextDisabled("%-8s %s", tensor_name(id), shape_named(tr[id]).c_str());
            const float map = std::min(col_w - 8, avail.y * 0.55f);
            weights_map(app, tr, 0, 0, ("encdec_" + std::to_string(i)).c_str(), map, map);
            ImGui::EndChild();
        }
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
};

// Experiments keep several traces of the current size; refuse up front rather than let
// the page run out of memory.
constexpr double kBudget = 768.0 * 1024 * 1024;

void compute(LabApp& app) {
    ExperimentPanel& panel = *app.panels[app.experiment];
    if (panel.computed_for == app.generation && !panel.stale) return;
    const auto t0 = std::chrono::steady_clock::now();
    const AttentionConfig& c = app.trace.config;
    const double need = estimate_trace_bytes(c) * kExperiments[app.experiment].traces_kept;
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
    const bool clicked = ImGui::SmallButton(ui_label(app, UiStr::xv_menu_button, "experiments_button").c_str());
    lab_note_rect(app, "menu:experiments");
    if (clicked || app.open_experiment_menu) ImGui::OpenPopup("experiments");
    app.open_experiment_menu = false;
    if (!ImGui::BeginPopup("experiments")) return;
    for (size_t i = 0; i < kExperiments.size(); ++i) {
        const ExperimentEntry& e = kExperiments[i];
        if (ImGui::Selectable((std::string(tr(app, e.title)) + "###exp_" + e.key).c_str(), app.experiment == static_cast<int>(i)))
            app.experiment = static_cast<int>(i);
        lab_note_rect(app, std::string("exp:") + e.key);
    }
    ImGui::Separator();
    if (ImGui::Selectable(ui_label(app, UiStr::xv_menu_back, "exp_none").c_str(), app.experiment < 0)) app.experiment = -1;
    lab_note_rect(app, "exp:none");
    ImGui::EndPopup();
}

void draw_experiment_view(LabApp& app, float x, float y, float w, float h) {
    compute(app);
    begin_panel("Experiment", {x, y, w, h}, ImGuiWindowFlags_NoTitleBar);
    const ExperimentEntry& entry = kExperiments[app.experiment];
    ExperimentPanel& panel = *app.panels[app.experiment];
    ImGui::Text("%s", tr(app, entry.title));
    ImGui::SameLine();
    const bool back = ImGui::SmallButton(ui_label(app, UiStr::xv_back_button, "exp_back").c_str());
    lab_note_rect(app, "exp:back");
    text_wrapped("%s", tr(app, entry.claim));
    ImGui::Separator();
    if (!panel.too_large.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.5f, 1));
        text_wrapped("%s", say(app, panel.too_large).c_str());
        ImGui::PopStyleColor();
    } else if (!back) {
        panel.draw(app);
    }
    ImGui::End();
    if (back) app.experiment = -1;
}

Json experiment_state(const LabApp& app) {
    if (app.experiment < 0) return nullptr;
    const ExperimentEntry& entry = kExperiments[app.experiment];
    const ExperimentPanel& panel = *app.panels[app.experiment];
    Json out = {{"key", entry.key}, {"title", tr(app, entry.title)}, {"compute_ms", json_number(panel.compute_ms)}};
    if (!panel.too_large.empty()) out["too_large"] = say(app, panel.too_large);
    panel.write_state(out, app.text_lang);
    return out;
}

}  // namespace lab
