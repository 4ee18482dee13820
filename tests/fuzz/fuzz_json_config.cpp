// fuzz_json_config.cpp — libFuzzer: JSON configuration files never crash the reader,
// and whatever it accepts (ok) is a valid configuration.
#include "fuzz_config_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    lab_fuzz::check_config_file(data, size, "x.json", "json");
    return 0;
}
