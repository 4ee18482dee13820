// model_json.cpp — Attention Lab interop: model traces as JSON and dump folders.
#include "interop/model_json.h"

#include <filesystem>

#include "interop/npy.h"

namespace lab {

Json block_stages_json(const ModelTrace& m, Lang lang) {
    Json out = Json::array();
    for (const BlockStageRecord& rec : m.stages) {
        const BlockStageInfo& info = block_stage_info(rec.id);
        out.push_back({{"id", info.key}, {"index", kStageCount + static_cast<int>(rec.id)}, {"title", tr(info.title, lang)},
                       {"steps", steps_json(rec.shape_steps, lang)}, {"checks", checks_json(rec.checks, lang)}});
    }
    return out;
}

Json backward_json(const GradTrace& g, Lang lang) {
    Json tensors = Json::array();
    for (const Tensor& t : g.grads.tensors) tensors.push_back(t.name);
    Json checks = Json::object();
    for (int s = 0; s < kStageCount && s < static_cast<int>(g.checks.size()); ++s)
        if (!g.checks[s].empty()) checks[stage_infos()[s].key] = checks_json(g.checks[s], lang);
    for (int s = 0; s < kBlockStageCount && s < static_cast<int>(g.block_checks.size()); ++s)
        if (!g.block_checks[s].empty()) checks[block_stage_infos()[s].key] = checks_json(g.block_checks[s], lang);
    return {{"loss_kind", g.kind == LossKind::CrossEntropy ? "cross_entropy" : "probe"}, {"loss", json_number(g.loss)},
            {"tensors", tensors}, {"checks", checks}};
}

bool write_model_dump(const std::string& dir, const ModelTrace& m, const Json& model_info, std::string* error) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        if (error) *error = "cannot create " + dir + ": " + ec.message();
        return false;
    }
    Json tensors = Json::array(), grads = Json::array();
    auto entry = [](const Tensor& t) { return Json{{"name", t.name}, {"file", t.name + ".npy"}, {"shape", t.shape}, {"dims", t.dims}}; };
    for (const Tensor& t : m.trace.tensors) {
        if (!write_file(dir + "/" + t.name + ".npy", encode_npy(t), error)) return false;
        tensors.push_back(entry(t));
    }
    for (const Tensor& t : m.grads.grads.tensors) {
        if (!write_file(dir + "/" + t.name + ".npy", encode_npy(t), error)) return false;
        grads.push_back(entry(t));
    }
    const Json manifest = {{"config", config_json_value(m.trace.config)}, {"model", model_info},
                           {"loss", json_number(m.engine_loss)}, {"tensors", tensors}, {"grads", grads}};
    return write_file(dir + "/manifest.json", json_text(manifest, 2) + "\n", error);
}

}  // namespace lab
