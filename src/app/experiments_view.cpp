// experiments_view.cpp — Attention Lab app: the paper's claims as panels. Numbers
// come from core/experiments.h (tested there); this file lays them out as plots,
// heatmaps and tables, and reports them through state().experiment.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "text_wrap.h"
#include "core/dump.h"
#include "core/i18n.h"
#include "core/json_writer.h"
#include "core/stages.h"
#include "experiments.h"
#include "heatmap.h"
#include "lab_app.h"
#include "line_plot.h"
#include "panels.h"

namespace lab {

// One table per language (built on first use in that language), so the texts follow
// the current language while callers keep plain const char*.
const std::vector<ExperimentInfo>& experiment_infos() {
    struct ExperimentText {
        const char* key;
        Str title, claim;
    };
    static const ExperimentText kList[] = {
        {"scaling", Str::xv_scaling_title, Str::xv_scaling_claim},
        {"heads", Str::xv_heads_title, Str::xv_heads_claim},
        {"masks", Str::xv_masks_title, Str::xv_masks_claim},
        {"pe", Str::xv_pe_title, Str::xv_pe_claim},
        {"mistakes", Str::xv_mistakes_title, Str::xv_mistakes_claim},
        {"encdec", Str::xv_encdec_title, Str::xv_encdec_claim},
    };
    static std::vector<ExperimentInfo> tables[kLangCount];
    std::vector<ExperimentInfo>& list = tables[static_cast<int>(language())];
    if (list.empty())
        for (const ExperimentText& t : kList) list.push_back({t.key, tr(t.title), tr(t.claim)});
    return list;
}

int experiment_index(const std::string& key) {
    const auto& list = experiment_infos();
    for (size_t i = 0; i < list.size(); ++i)
        if (key == list[i].key) return static_cast<int>(i);
    return -1;
}

namespace {

const ImU32 kRed = IM_COL32(240, 110, 100, 255), kBlue = IM_COL32(90, 170, 240, 255);
const ImU32 kRedDim = IM_COL32(240, 110, 100, 170), kBlueDim = IM_COL32(90, 170, 240, 170);

// A widget label in the current language with an ID that does not change with it.
std::string label_id(Str text, const char* id) { return std::string(tr(text)) + "###" + id; }

void compute(LabApp& app) {
    ExperimentResults& r = app.results;
    if (r.generation == app.generation && r.computed_for == app.experiment) return;
    const auto t0 = std::chrono::steady_clock::now();
    const AttentionConfig& c = app.trace.config;
    const std::string key = experiment_infos()[app.experiment].key;
    // Experiments keep several traces of the current size; refuse up front rather
    // than let the page run out of memory.
    constexpr double kBudget = 768.0 * 1024 * 1024;
    const double need = estimate_trace_bytes(c) * (key == "mistakes" ? 3 : 8);
    r.too_large.clear();
    if (key != "scaling" && key != "pe" && need > kBudget) {
        r.too_large = trf(Str::xv_too_large, need / 1048576.0, kBudget / 1048576.0);
        r.generation = app.generation;
        r.computed_for = app.experiment;
        return;
    }
    if (key == "scaling") {
        ScalingOptions o;
        o.samples = r.scaling_samples;
        o.seed = static_cast<uint32_t>(r.scaling_seed);
        r.scaling = scaling_experiment(o);
    } else if (key == "heads") {
        r.heads = heads_experiment(c);
        if (r.knockout_h >= static_cast<int>(r.heads.size())) r.knockout_h = 0;
    } else if (key == "masks") {
        r.masks = mask_experiment(c);
    } else if (key == "pe") {
        // A fast, a middle and a slow pair of dimensions (sin, cos), whatever d_model is.
        std::vector<int> dims;
        for (int d : {2, std::max(2, (c.d_model / 4) & ~1), std::max(2, (c.d_model / 2) & ~1)})
            for (int k : {d, d + 1})
                if (k < c.d_model && std::find(dims.begin(), dims.end(), k) == dims.end()) dims.push_back(k);
        if (dims.empty()) dims.push_back(0);
        r.pe = pe_experiment(r.pe_length, c.d_model, r.pe_train_length, dims);
    } else if (key == "mistakes") {
        r.mistakes.clear();
        for (Mistake m : all_mistakes()) r.mistakes.push_back(run_mistake(m, c));
    } else if (key == "encdec") {
        r.encdec = encoder_decoder_experiment(c, c.L_q() + 2, c.L_q());
    }
    r.generation = app.generation;
    r.computed_for = app.experiment;
    r.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// One head's weights (item 0) as a small heatmap with a caption.
void weights_map(LabApp& app, const Trace& tr, int head, const char* id, float w, float h) {
    const Tensor* t = tr.find("weights");
    if (!t) return;
    const int Lq = t->shape[2], Lkv = t->shape[3];
    HeatmapOptions opt;
    opt.range = {ColorMap::Sequential, 0.0f, 1.0f};
    opt.gpu = &app.gpu;
    std::string key = std::string("exp/") + id;
    opt.gpu_key = key.c_str();
    opt.gpu_version = app.generation * 131 + static_cast<unsigned>(app.experiment);
    MatrixHeatmap(id, t->ptr() + t->offset({0, head, 0, 0}), Lq, Lkv, Lkv, opt, w, h);
}

void draw_scaling(LabApp& app) {
    ExperimentResults& r = app.results;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    bool changed = ImGui::SliderInt(label_id(Str::xv_samples_per_dk, "samples").c_str(), &r.scaling_samples, 500, 40000);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    changed |= ImGui::InputInt(label_id(Str::xv_seed, "scaling").c_str(), &r.scaling_seed);
    if (changed) r.generation = ~0ull;  // recompute with the new options
    std::vector<double> dk, var, var_s, maxw, maxw_s, ent, ent_s, jac, jac_s, jmed, jmed_s, one;
    for (const ScalingPoint& p : r.scaling) {
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
                                   {tr(Str::xv_theory_dk), dk.data(), dk.data(), n, kRedDim, true},
                                   {"var(q.k / sqrt(d_k))", dk.data(), var_s.data(), n, kBlue},
                                   {tr(Str::xv_theory_1), dk.data(), one.data(), n, kBlueDim, true}};
    LinePlot("variance", variance, 4, w, h, "d_k", tr(Str::xv_axis_variance));
    ImGui::SameLine();
    const PlotSeries softmax[] = {{tr(Str::xv_max_weight_unscaled), dk.data(), maxw.data(), n, kRed},
                                  {tr(Str::xv_max_weight_scaled), dk.data(), maxw_s.data(), n, kBlue},
                                  {tr(Str::xv_entropy_unscaled), dk.data(), ent.data(), n, kRedDim, true},
                                  {tr(Str::xv_entropy_scaled), dk.data(), ent_s.data(), n, kBlueDim, true}};
    LinePlot("softmax", softmax, 4, w, h, "d_k", tr(Str::xv_axis_one_query), {true, false});
    ImGui::SameLine();
    // The median row shows the typical gradient; the mean is held up by rare near-ties.
    const PlotSeries grad[] = {{tr(Str::xv_jac_median_unscaled), dk.data(), jmed.data(), n, kRed},
                               {tr(Str::xv_jac_median_scaled), dk.data(), jmed_s.data(), n, kBlue},
                               {tr(Str::xv_jac_mean_unscaled), dk.data(), jac.data(), n, kRedDim, true},
                               {tr(Str::xv_jac_mean_scaled), dk.data(), jac_s.data(), n, kBlueDim, true}};
    LinePlot("gradient", grad, 4, w, h, "d_k", tr(Str::xv_axis_jacobian), {true, true});
    if (!r.scaling.empty()) {
        const ScalingPoint& big = r.scaling.back();
        text_wrapped("%s", trf(Str::xv_scaling_summary, big.d_k, big.var_dot, big.d_k, big.var_scaled,
                                     big.max_weight, big.jacobian_norm_median, big.max_weight_scaled,
                                     big.jacobian_norm_median_scaled, r.scaling_samples, r.scaling_seed)
                                     .c_str());
    }
}

void draw_heads(LabApp& app) {
    ExperimentResults& r = app.results;
    if (r.heads.empty()) return;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float col_w = avail.x / r.heads.size() - 8;
    for (size_t i = 0; i < r.heads.size(); ++i) {
        const HeadsPoint& p = r.heads[i];
        if (i) ImGui::SameLine();
        ImGui::BeginChild(static_cast<int>(i + 100), ImVec2(col_w, avail.y * 0.62f), true);
        ImGui::Text("h = %d, d_k = %d", p.heads, p.d_k);
        const Tensor* qh = p.trace.find("q_heads");
        if (qh) ImGui::TextDisabled("q_heads %s", shape_numbers(qh->shape).c_str());
        ImGui::TextDisabled("weights %s", shape_numbers(p.trace.find("weights")->shape).c_str());
        const float map = std::min(col_w - 8, avail.y * 0.25f);
        weights_map(app, p.trace, 0, ("heads_h" + std::to_string(p.heads)).c_str(), map, map);
        ImGui::TextDisabled("%s", tr(Str::xv_entropy_per_head));
        for (size_t k = 0; k < p.head_entropy.size() && k < 16; ++k) {
            ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImGui::ColorConvertU32ToFloat4(head_color(static_cast<int>(k))));
            char label[32];
            std::snprintf(label, sizeof label, "%.2f", p.head_entropy[k]);
            ImGui::ProgressBar(static_cast<float>(p.head_entropy[k] / std::log(std::max(2, app.trace.config.L_kv()))),
                               ImVec2(-1, ImGui::GetTextLineHeight() * 0.7f), label);
            ImGui::PopStyleColor();
        }
        ImGui::EndChild();
    }
    ImGui::TextDisabled("%s", tr(Str::xv_knockout_intro));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    std::string items;
    for (const HeadsPoint& p : r.heads) items += "h = " + std::to_string(p.heads) + '\0';
    ImGui::Combo(label_id(Str::xv_knockout_config, "knockout_config").c_str(), &r.knockout_h, items.c_str());
    const HeadsPoint& k = r.heads[r.knockout_h];
    for (size_t i = 0; i < k.knockout_delta.size() && i < 16; ++i) {
        const std::string label = trf(Str::xv_knockout_head, i, k.knockout_delta[i],
                                      k.output_norm > 0 ? 100 * k.knockout_delta[i] / k.output_norm : 0.0);
        ImGui::ProgressBar(static_cast<float>(k.output_norm > 0 ? k.knockout_delta[i] / k.output_norm : 0),
                           ImVec2(avail.x * 0.6f, 0), label.c_str());
    }
}

void draw_masks(LabApp& app) {
    const MaskComparison& m = app.results.masks;
    if (m.cases.empty()) return;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float col_w = avail.x / m.cases.size() - 8;
    for (size_t i = 0; i < m.cases.size(); ++i) {
        const MaskCase& mc = m.cases[i];
        if (i) ImGui::SameLine();
        ImGui::BeginChild(static_cast<int>(i + 200), ImVec2(col_w, avail.y * 0.55f), true);
        ImGui::TextUnformatted(mc.label.c_str());
        const float map = std::min(col_w - 8, avail.y * 0.32f);
        weights_map(app, mc.trace, 0, ("mask_" + std::to_string(i)).c_str(), map, map);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        text_wrapped("%s", trf(Str::xv_future_nonzero, mc.future_nonzero).c_str());
        text_wrapped(
            "%s", trf(Str::xv_fully_masked_rows, mc.fully_masked_rows, mc.has_nan ? tr(Str::xv_nan_suffix) : "").c_str());
        ImGui::PopStyleColor();
        ImGui::EndChild();
    }
    text_wrapped("%s", m.fully_masked_why.c_str());
    text_wrapped("%s", m.inverted_why.c_str());
}

void draw_pe(LabApp& app) {
    ExperimentResults& r = app.results;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    bool changed = ImGui::SliderInt(label_id(Str::xv_pe_positions, "pe_positions").c_str(), &r.pe_length, 8, 512);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    changed |= ImGui::SliderInt(label_id(Str::xv_pe_training_length, "pe_training_length").c_str(), &r.pe_train_length, 1, 512);
    if (changed) r.generation = ~0ull;
    const PeExperiment& pe = r.pe;
    if (pe.pe.empty()) return;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float w = avail.x / 3 - 8, h = avail.y * 0.7f;
    ImGui::BeginChild("pe_map", ImVec2(w, h));
    ImGui::TextDisabled("%s", trf(Str::xv_pe_map_caption, pe.length, pe.d_model, pe.train_length).c_str());
    HeatmapOptions opt;
    opt.range = {ColorMap::Diverging, -1.0f, 1.0f};
    opt.gpu = &app.gpu;
    opt.gpu_key = "exp/pe";
    opt.gpu_version = app.generation * 977 + pe.length * 7 + pe.train_length;
    opt.highlight_row = pe.train_length < pe.length ? pe.train_length : -1;
    MatrixHeatmap("pe", pe.pe.data(), pe.length, pe.d_model, pe.d_model, opt);
    ImGui::EndChild();
    ImGui::SameLine();
    std::vector<double> pos(pe.length);
    for (int i = 0; i < pe.length; ++i) pos[i] = i;
    std::vector<std::vector<double>> ys(pe.curves.size());
    std::vector<std::string> labels(pe.curves.size());
    std::vector<PlotSeries> series;
    for (size_t k = 0; k < pe.curves.size(); ++k) {
        ys[k].assign(pe.curves[k].begin(), pe.curves[k].end());
        labels[k] = trf(Str::xv_pe_dim, pe.dims[k]);
    }
    for (size_t k = 0; k < pe.curves.size(); ++k)
        series.push_back({labels[k].c_str(), pos.data(), ys[k].data(), pe.length, head_color(static_cast<int>(k))});
    LinePlot("pe_curves", series.data(), static_cast<int>(series.size()), w, h, tr(Str::xv_axis_position), tr(Str::xv_axis_pe_value), {false, false});
    ImGui::SameLine();
    ImGui::BeginChild("pe_sim", ImVec2(w, h));
    ImGui::TextDisabled("%s", trf(Str::xv_pe_sim_caption, tr(pe.similarity_depends_on_offset_only ? Str::xv_yes : Str::xv_no),
                                  pe.max_offset_deviation)
                                  .c_str());
    HeatmapOptions so;
    so.range = range_for(pe.similarity.data(), static_cast<long>(pe.similarity.size()), ColorMap::Diverging);
    so.gpu = &app.gpu;
    so.gpu_key = "exp/pe_sim";
    so.gpu_version = opt.gpu_version;
    MatrixHeatmap("pe_sim", pe.similarity.data(), pe.length, pe.length, pe.length, so);
    ImGui::EndChild();
}

void draw_mistakes(LabApp& app) {
    ExperimentResults& r = app.results;
    if (r.mistakes.empty()) return;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    ImGui::BeginChild("mistake_list", ImVec2(avail.x * 0.3f, avail.y), true);
    for (size_t i = 0; i < r.mistakes.size(); ++i) {
        const MistakeResult& m = r.mistakes[i];
        if (ImGui::RadioButton((m.title + "###mistake_" + m.key).c_str(), &r.mistake, static_cast<int>(i))) {}
        lab_note_rect(app, "mistake:" + m.key);
    }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("mistake_detail", ImVec2(0, avail.y), true);
    const MistakeResult& m = r.mistakes[r.mistake];
    ImGui::Text("%s", m.title.c_str());
    ImGui::TextDisabled("%s", tr(Str::xv_buggy));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.5f, 1));
    text_wrapped("%s", m.buggy_line.c_str());
    ImGui::PopStyleColor();
    ImGui::TextDisabled("%s", tr(Str::xv_correct));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.62f, 0.85f, 0.62f, 1));
    text_wrapped("%s", m.correct_line.c_str());
    ImGui::PopStyleColor();
    ImGui::Separator();
    if (!m.runs) {
        const int stop = stage_index(m.stops_at);
        ImGui::TextDisabled("%s", trf(Str::xv_stops_at, stop >= 0 ? stage_infos()[stop].title : m.stops_at.c_str()).c_str());
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.5f, 1));
        text_wrapped("%s", m.error.c_str());
        ImGui::PopStyleColor();
    } else {
        ImGui::TextUnformatted(trf(Str::xv_max_row_sum_error, m.max_row_sum_error).c_str());
        ImGui::TextUnformatted(trf(Str::xv_future_weight, m.future_weight).c_str());
        ImGui::TextUnformatted(trf(Str::xv_output_diff, m.output_diff).c_str());
    }
    ImGui::Spacing();
    text_wrapped("%s", m.symptom.c_str());
    ImGui::EndChild();
}

void draw_encdec(LabApp& app) {
    const auto& kinds = app.results.encdec;
    if (kinds.empty()) return;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float col_w = avail.x / kinds.size() - 8;
    for (size_t i = 0; i < kinds.size(); ++i) {
        if (i) ImGui::SameLine();
        ImGui::BeginChild(static_cast<int>(i + 300), ImVec2(col_w, avail.y), true);
        const Trace& tr = kinds[i].trace;
        ImGui::TextUnformatted(kinds[i].label.c_str());
        for (const char* name : {"q", "k", "v", "weights", "output"}) {
            const Tensor* t = tr.find(name);
            if (t) ImGui::TextDisabled("%-8s %s", name, shape_named(*t).c_str());
        }
        const float map = std::min(col_w - 8, avail.y * 0.55f);
        weights_map(app, tr, 0, ("encdec_" + std::to_string(i)).c_str(), map, map);
        ImGui::EndChild();
    }
}

}  // namespace

void draw_experiment_menu(LabApp& app) {
    const bool clicked = ImGui::SmallButton(label_id(Str::xv_menu_button, "experiments_button").c_str());
    lab_note_rect(app, "menu:experiments");
    if (clicked || app.open_experiment_menu) ImGui::OpenPopup("experiments");
    app.open_experiment_menu = false;
    if (ImGui::BeginPopup("experiments")) {
        const auto& list = experiment_infos();
        for (size_t i = 0; i < list.size(); ++i) {
            if (ImGui::Selectable((std::string(list[i].title) + "###exp_" + list[i].key).c_str(),
                                  app.experiment == static_cast<int>(i)))
                app.experiment = static_cast<int>(i);
            lab_note_rect(app, std::string("exp:") + list[i].key);
        }
        ImGui::Separator();
        if (ImGui::Selectable(label_id(Str::xv_menu_back, "exp_none").c_str(), app.experiment < 0)) app.experiment = -1;
        lab_note_rect(app, "exp:none");
        ImGui::EndPopup();
    }
}

void draw_experiment_view(LabApp& app, float x, float y, float w, float h) {
    compute(app);
    begin_panel("Experiment", {x, y, w, h}, ImGuiWindowFlags_NoTitleBar);
    const ExperimentInfo& info = experiment_infos()[app.experiment];
    ImGui::Text("%s", info.title);
    ImGui::SameLine();
    const bool back = ImGui::SmallButton(label_id(Str::xv_back_button, "exp_back").c_str());
    lab_note_rect(app, "exp:back");
    if (back) app.experiment = -1;
    text_wrapped("%s", info.claim);
    ImGui::Separator();
    if (!app.results.too_large.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.5f, 1));
        text_wrapped("%s", app.results.too_large.c_str());
        ImGui::PopStyleColor();
    } else if (app.experiment >= 0) {
        const std::string key = info.key;
        if (key == "scaling") draw_scaling(app);
        else if (key == "heads") draw_heads(app);
        else if (key == "masks") draw_masks(app);
        else if (key == "pe") draw_pe(app);
        else if (key == "mistakes") draw_mistakes(app);
        else if (key == "encdec") draw_encdec(app);
    }
    ImGui::End();
}

void write_experiment_state(const LabApp& app, JsonWriter& w) {
    if (app.experiment < 0) {
        w.null();
        return;
    }
    const ExperimentResults& r = app.results;
    const std::string key = experiment_infos()[app.experiment].key;
    w.begin_object().key("key").value(key).key("title").value(experiment_infos()[app.experiment].title);
    w.key("compute_ms").value(r.compute_ms);
    if (!r.too_large.empty()) w.key("too_large").value(r.too_large);
    if (key == "scaling") {
        w.key("samples").value(r.scaling_samples).key("seed").value(r.scaling_seed).key("series").begin_array();
        for (const ScalingPoint& p : r.scaling)
            w.begin_object().key("d_k").value(p.d_k).key("var_dot").value(p.var_dot).key("var_scaled").value(p.var_scaled)
                .key("max_weight").value(p.max_weight).key("max_weight_scaled").value(p.max_weight_scaled)
                .key("entropy").value(p.entropy).key("entropy_scaled").value(p.entropy_scaled)
                .key("jacobian_norm").value(p.jacobian_norm).key("jacobian_norm_scaled").value(p.jacobian_norm_scaled)
                .key("jacobian_norm_median").value(p.jacobian_norm_median)
                .key("jacobian_norm_median_scaled").value(p.jacobian_norm_median_scaled)
                .end_object();
        w.end_array();
    } else if (key == "heads") {
        w.key("series").begin_array();
        for (const HeadsPoint& p : r.heads) {
            w.begin_object().key("heads").value(p.heads).key("d_k").value(p.d_k);
            w.key("weights_shape").values(p.trace.find("weights")->shape);
            w.key("head_entropy").begin_array();
            for (double e : p.head_entropy) w.value(e);
            w.end_array().key("knockout_delta").begin_array();
            for (double d : p.knockout_delta) w.value(d);
            w.end_array().key("output_norm").value(p.output_norm).end_object();
        }
        w.end_array();
    } else if (key == "masks") {
        w.key("cases").begin_array();
        for (const MaskCase& c : r.masks.cases)
            w.begin_object().key("name").value(c.name).key("future_nonzero").value(c.future_nonzero)
                .key("fully_masked_rows").value(c.fully_masked_rows).key("has_nan").value(c.has_nan).end_object();
        w.end_array();
        w.key("fully_masked_inf_nan").value(r.masks.fully_masked_inf.has_nan);
        w.key("fully_masked_1e9_nan").value(r.masks.fully_masked_1e9.has_nan);
    } else if (key == "pe") {
        w.key("length").value(r.pe.length).key("d_model").value(r.pe.d_model).key("train_length").value(r.pe.train_length);
        w.key("offset_only").value(r.pe.similarity_depends_on_offset_only).key("max_offset_deviation").value(r.pe.max_offset_deviation);
        w.key("dims").values(r.pe.dims);
    } else if (key == "mistakes") {
        w.key("selected").value(r.mistake).key("series").begin_array();
        for (const MistakeResult& m : r.mistakes)
            w.begin_object().key("key").value(m.key).key("runs").value(m.runs).key("error").value(m.error)
                .key("stops_at").value(m.stops_at).key("max_row_sum_error").value(m.max_row_sum_error)
                .key("future_weight").value(m.future_weight).key("output_diff").value(m.output_diff)
                .key("symptom").value(m.symptom).end_object();
        w.end_array();
    } else if (key == "encdec") {
        w.key("kinds").begin_array();
        for (const AttentionKind& k : r.encdec)
            w.begin_object().key("name").value(k.name).key("weights_shape").values(k.trace.find("weights")->shape).end_object();
        w.end_array();
    }
    w.end_object();
}

}  // namespace lab
