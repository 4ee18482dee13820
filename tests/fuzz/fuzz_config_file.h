// fuzz_config_file.h — the body shared by fuzz_json_config and fuzz_toml_config.
//
// Properties, for any text:
//   - the reader returns (no crash, no sanitizer report, no abort from a parser);
//   - ok == false comes with at least one error, every error has a message;
//   - ok == true means no errors, the requested format, and validate() agrees;
//   - a configuration read from a file can be shared as a link: the URL hash the
//     page writes for it (encode_url_state) decodes to the same configuration
//     without notes.
#pragma once
#include "app/data/url_state.h"
#include "fuzz_common.h"
#include "interop/config_file.h"

namespace lab_fuzz {

inline void check_config_file(const uint8_t* data, size_t size, const char* file_name, const char* format) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const lab::ConfigFileResult r = lab::parse_config_file(text, file_name);
    for (const lab::ConfigError& e : r.errors) require(!en_text(e.message).empty(), "an error without a message");
    if (!r.ok) {
        require(!r.errors.empty(), std::string(format) + ": ok=false but no error says why");
        return;
    }
    if (!r.errors.empty())
        fail(std::string(format) + ": ok=true with errors: " + r.errors[0].param + ": " + en_text(r.errors[0].message));
    require(r.format == format, std::string("format '") + r.format + "' for a " + file_name + " file");
    require_valid(r.config, format);

    lab::UrlState shared;
    shared.config = r.config;
    const std::string hash = lab::encode_url_state(shared);
    const lab::UrlDecode back = lab::decode_url_state(hash);
    if (!back.notes.empty())
        fail(std::string(format) + ": the link for an accepted file gives a note: " + en_text(back.notes[0]) + "\n  hash: " +
             hash.substr(0, 300));
    if (!same_config(r.config, back.state.config))
        fail(std::string(format) + ": the link for an accepted file changes the configuration\n  file: " +
             describe(r.config) + "\n  link: " + describe(back.state.config));
}

}  // namespace lab_fuzz
