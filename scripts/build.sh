#!/usr/bin/env bash
# build.sh — configures (once) and builds Attention Lab; build folders are reused.
#   scripts/build.sh native    build/native: attnlab CLI, desktop app, doctest suite
#   scripts/build.sh web       build/web: the page (build/web/page) and the wasm doctest suite
#   scripts/build.sh isa-v3    build/isa-v3: attnlab + the doctest suite for -march=x86-64-v3 (AVX2, FMA)
#   scripts/build.sh isa-v2    build/isa-v2: the same for -march=x86-64-v2 (SSE4.2, no FMA: the Eigen path)
#     The ISA builds run here whatever this CPU has above them, so one machine tests the kernel
#     paths of the machines it is not (a later machine may have AVX2 and no AVX-512, or neither).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${LAB_JOBS:-2}"
# Debian's Emscripten needs its JS optimizer's modules (acorn) from here.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"

case "${1:-}" in
  native)
    dir="$here/build/native"
    # The local native build targets this machine's vector ISA (AVX2/FMA, AVX-512 where the
    # CPU has them): it is built and run here only. A folder configured before is switched once.
    grep -qxF "LAB_NATIVE_ARCH:BOOL=ON" "$dir/CMakeCache.txt" 2>/dev/null ||
      cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DLAB_NATIVE_ARCH=ON
    cmake --build "$dir" -j "$jobs"
    ;;
  isa-v3|isa-v2)
    dir="$here/build/$1"
    march="x86-64-${1#isa-}"
    grep -qxF "LAB_MARCH:STRING=$march" "$dir/CMakeCache.txt" 2>/dev/null ||
      cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DLAB_BUILD_GUI=OFF -DLAB_MARCH="$march"
    cmake --build "$dir" -j "$jobs" --target attnlab lab_tests
    ;;
  web)
    dir="$here/build/web"
    [ -f "$dir/CMakeCache.txt" ] || emcmake cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$dir" -j "$jobs"
    ;;
  *)
    echo "usage: $0 native|web|isa-v3|isa-v2" >&2
    exit 2
    ;;
esac
