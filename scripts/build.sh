#!/usr/bin/env bash
# build.sh — configures (once) and builds Attention Lab; build folders are reused.
#   scripts/build.sh native    build/native: attnlab CLI, desktop app, doctest suite
#   scripts/build.sh web       build/web: the page (build/web/page) and the wasm doctest suite
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
  web)
    dir="$here/build/web"
    [ -f "$dir/CMakeCache.txt" ] || emcmake cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$dir" -j "$jobs"
    ;;
  *)
    echo "usage: $0 native|web" >&2
    exit 2
    ;;
esac
