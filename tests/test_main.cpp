// test_main.cpp — doctest's main for the Attention Lab suite (native and wasm).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
