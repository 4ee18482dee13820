// dump.cpp — Attention Lab core: trace to JSON, and the dump (manifest.json + .npy files).
#include "dump.h"

#include <filesystem>

#include "npy.h"

namespace lab {

void write_config(JsonWriter& w, const AttentionConfig& c) {
    w.begin_object();
    w.key("d_model").value(c.d_model).key("heads").value(c.heads).key("d_k").value(c.d_k()).key("d_v").value(c.d_v());
    w.key("seq_len").value(c.L_q()).key("kv_len").value(c.L_kv()).key("batch").value(c.batch).key("seed").value(c.seed);
    w.key("mask").value(mask_kind_name(c.mask)).key("mask_fill").value(mask_fill_name(c.mask_fill));
    w.key("scale").value(c.scale).key("pe").value(c.pe).key("bias").value(c.bias).key("cross").value(c.cross);
    if (c.mask == MaskKind::Padding) w.key("padding_lengths").values(c.padding_lengths);
    if (c.mask == MaskKind::Custom) {
        w.key("custom_mask").begin_array();
        for (int i = 0; i < c.L_q(); ++i) {
            w.begin_array();
            for (int j = 0; j < c.L_kv(); ++j) w.value(static_cast<int>(c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j]));
            w.end_array();
        }
        w.end_array();
    }
    w.end_object();
}

std::string config_json(const AttentionConfig& c) {
    JsonWriter w;
    write_config(w, c);
    return w.str();
}

void write_stages(JsonWriter& w, const Trace& trace) {
    const auto& infos = stage_infos();
    w.begin_array();
    for (size_t s = 0; s < trace.stages.size(); ++s) {
        const StageRecord& rec = trace.stages[s];
        w.begin_object().key("id").value(infos[s].key).key("index").value(static_cast<int>(s));
        w.key("title").value(infos[s].title);
        w.key("steps").begin_array();
        for (const ShapeStep& st : rec.shape_steps)
            w.begin_object().key("op").value(st.op).key("shape").values(st.shape).key("dims").values(st.dims).end_object();
        w.end_array();
        w.key("checks").begin_array();
        for (const InvariantCheck& ch : rec.checks)
            w.begin_object()
                .key("id").value(ch.id).key("label").value(ch.label)
                .key("pass").value(ch.pass).key("detail").value(ch.detail)
                .end_object();
        w.end_array();
        w.end_object();
    }
    w.end_array();
}

std::string manifest_json(const Trace& trace) {
    std::string s = "{\n  \"config\": " + config_json(trace.config) + ",\n  \"tensors\": [\n";
    for (size_t i = 0; i < trace.tensors.size(); ++i) {
        const Tensor& t = trace.tensors[i];
        JsonWriter w;
        w.begin_object().key("name").value(t.name).key("file").value(t.name + ".npy");
        w.key("shape").values(t.shape).key("dims").values(t.dims).end_object();
        s += "    " + w.str() + (i + 1 < trace.tensors.size() ? ",\n" : "\n");
    }
    return s + "  ]\n}\n";
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
