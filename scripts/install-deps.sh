#!/usr/bin/env bash
# install-deps.sh — installs what Attention Lab needs and is missing; a second run
# touches no network. Everything comes from Debian packages, Debian's imgui source
# package (never committed) and npm (playwright-core, pinned by tests/browser's lockfile).
#
#   scripts/install-deps.sh [web|test|bench]  web: enough to build and serve the page
#                                             test: everything the test command needs, with both
#                                               BLAS that Debian's torch can load as libblas.so.3
#                                               (the reference BLAS and OpenBLAS): the training replay
#                                               runs under each, whatever a machine had before; the
#                                               system alternative then points at OpenBLAS
#                                             bench: the same (PyTorch is timed with OpenBLAS)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-test}"

web_pkgs=(cmake make g++ emscripten libeigen3-dev doctest-dev nlohmann-json3-dev
          libtomlplusplus-dev python3 python3-fonttools python3-brotli fonts-dejavu-core fonts-noto-cjk xz-utils dpkg-dev)
test_pkgs=("${web_pkgs[@]}" libglfw3-dev libgl-dev chromium xvfb xauth clang libclang-rt-14-dev
           python3-torch python3-numpy nodejs npm libblas3 libopenblas0-pthread)

case "$mode" in
  web)  pkgs=("${web_pkgs[@]}") ;;
  test) pkgs=("${test_pkgs[@]}") ;;
  bench) pkgs=("${test_pkgs[@]}") ;;
  *) echo "usage: $0 [web|test|bench]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  # node/npm may come from another source (nodesource); accept any working binary.
  case "$p" in nodejs) command -v node >/dev/null && continue ;; npm) command -v npm >/dev/null && continue ;; esac
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done

apt_updated=0
apt_update() { [ "$apt_updated" = 1 ] || { apt-get update -q; apt_updated=1; }; }

if [ "${#missing[@]}" -gt 0 ]; then
  echo "[deps] installing: ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "[deps] Debian packages: all present"
fi

# Dear ImGui 1.86 sources: only Debian's source package has the core .cpp files.
imgui_dir="$here/.deps/imgui-1.86"
if [ ! -f "$imgui_dir/imgui.cpp" ]; then
  echo "[deps] fetching Dear ImGui 1.86 sources (Debian source package)"
  src_list=/etc/apt/sources.list.d/debian-src.sources
  if [ ! -f "$src_list" ]; then
    # Derive deb-src entries from the machine's own apt configuration.
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src_list"
    apt_updated=0
  fi
  apt_update
  scratch="$(mktemp -d)"
  (cd "$scratch" && apt-get source --download-only -q imgui >/dev/null)
  mkdir -p "$here/.deps"
  rm -rf "$imgui_dir"
  tar -xf "$scratch"/imgui_1.86*.orig.tar.* -C "$here/.deps"
  rm -rf "$scratch"
  test -f "$imgui_dir/imgui.cpp" || { echo "[deps] imgui sources missing after unpack" >&2; exit 1; }
else
  echo "[deps] Dear ImGui sources: present"
fi

if [ "$mode" != web ]; then
  if [ ! -d "$here/tests/browser/node_modules/playwright-core" ]; then
    echo "[deps] npm ci (playwright-core, no browser download)"
    (cd "$here/tests/browser" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
  else
    echo "[deps] playwright-core: present"
  fi
fi
