// json_export.cpp — Attention Lab interop: configuration, stages and dumps as JSON.
#include "interop/json_export.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "interop/npy.h"

namespace lab {

std::string json_text(const Json& j, int indent) {
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Json json_number(double v) {
    if (!std::isfinite(v)) return nullptr;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return std::strtod(buf, nullptr);
}

namespace {

Json key_json(const ConfigKey& k, const void* c) {
    switch (k.type) {
        case KeyType::Switch: return k.get(c) != 0;
        case KeyType::Decimal: return json_number(k.get_real(c));
        case KeyType::Choice: return k.choice_of(c)->name;
        case KeyType::Text: return k.text_of(c);
        case KeyType::WholeList: return *k.ints_of(c);
        case KeyType::KeepRows: {
            int rows = 0, cols = 0;
            k.shape(c, &rows, &cols);
            const std::vector<uint8_t>& cells = *k.cells_of(c);
            Json out = Json::array();
            for (int i = 0; i < rows; ++i) {
                Json row = Json::array();
                for (int j = 0; j < cols; ++j) row.push_back(static_cast<int>(cells[static_cast<size_t>(i) * cols + j]));
                out.push_back(row);
            }
            return out;
        }
        default: return k.value(c);
    }
}

}  // namespace

Json keys_json(const std::vector<ConfigKey>& rows, const void* config) {
    Json out = Json::object();
    for (const ConfigKey& k : rows)
        if (k.is_written(config)) out[k.name] = key_json(k, config);
    return out;
}

std::string config_json(const AttentionConfig& c) { return json_text(config_json_value(c)); }

Json steps_json(const std::vector<ShapeStep>& steps, Lang lang) {
    Json out = Json::array();
    for (const ShapeStep& st : steps) out.push_back({{"op", render(st.op, lang)}, {"shape", st.shape}, {"dims", st.dims}});
    return out;
}

Json checks_json(const std::vector<InvariantCheck>& checks, Lang lang) {
    Json out = Json::array();
    for (const InvariantCheck& ch : checks)
        out.push_back({{"id", ch.id}, {"label", render(ch.label, lang)}, {"pass", ch.passed()},
                      {"verdict", verdict_name(ch.verdict)}, {"detail", render(ch.detail, lang)}});
    return out;
}

Json stages_json(const Trace& trace, Lang lang) {
    Json out = Json::array();
    for (size_t s = 0; s < trace.stages.size(); ++s) {
        const StageRecord& rec = trace.stages[s];
        const StageInfo& info = stage_infos(trace.config)[s];
        out.push_back({{"id", info.key}, {"index", static_cast<int>(s)}, {"title", tr(info.title, lang)},
                       {"steps", steps_json(rec.shape_steps, lang)}, {"checks", checks_json(rec.checks, lang)}});
        if (rec.status != StageStatus::Run)  // only then, so every other trace's JSON stays as it was
            out.back()["status"] = stage_status_name(rec.status), out.back()["skipped_because"] = render(rec.skipped_because, lang);
    }
    return out;
}

std::string manifest_json(const Trace& trace) {
    Json tensors = Json::array();
    for (const Tensor& t : trace.tensors)
        tensors.push_back({{"name", t.name}, {"file", t.name + ".npy"}, {"shape", t.shape}, {"dims", t.dims}});
    const Json manifest = {{"config", config_json_value(trace.config)}, {"tensors", tensors}};
    return json_text(manifest, 2) + "\n";
}

bool write_dump(const std::string& dir, const Trace& trace, std::string* error) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        if (error) *error = "cannot create " + dir + ": " + ec.message();
        return false;
    }
    for (const Tensor& t : trace.tensors)
        if (!write_file(dir + "/" + t.name + ".npy", encode_npy(t), error)) return false;
    return write_file(dir + "/manifest.json", manifest_json(trace), error);
}

}  // namespace lab
