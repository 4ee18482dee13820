// fuzz_url_hash.cpp — libFuzzer: any URL hash decodes to a valid state, and the
// link the page would then write (encode of that state) reopens exactly that state
// with no notes: a copied link never degrades.
#include "app/data/url_state.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace lab_fuzz;
    const std::string hash(reinterpret_cast<const char*>(data), size);
    const lab::UrlDecode d = lab::decode_url_state(hash);
    require_valid(d.state.config, "decode_url_state");

    const std::string again = lab::encode_url_state(d.state);
    const lab::UrlDecode d2 = lab::decode_url_state(again);
    if (!d2.notes.empty()) fail("re-decoding an encoded state gives a note: " + en_text(d2.notes[0]) + "\n  hash: " + again.substr(0, 300));
    if (!same_config(d.state.config, d2.state.config))
        fail("encode/decode changed the configuration\n  first:  " + describe(d.state.config) +
             "\n  second: " + describe(d2.state.config));
    require(d.state.tokens == d2.state.tokens, "encode/decode changed the tokens");
    require(d.state.view.stage == d2.state.view.stage && d.state.view.batch_item == d2.state.view.batch_item &&
                d.state.view.head == d2.state.view.head && d.state.view.all_heads == d2.state.view.all_heads &&
                d.state.view.experiment == d2.state.view.experiment,
            "encode/decode changed the view selection");
    require(lab::encode_url_state(d2.state) == again, "encode is not stable after one round trip");
    return 0;
}
