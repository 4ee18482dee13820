#!/usr/bin/env bash
# test.sh — the README's second command: installs what is missing, builds native
# and web, then runs every suite; exits non-zero if any fails.
#   suites: the include rules between src/'s folders (scripts/layers.py) · doctest (native, ctest) · doctest compiled to wasm (Node) ·
#           PyTorch re-running the mistakes lab's buggy lines (tests/fixtures/mistakes) ·
#           PyTorch check of `attnlab trace --out` dumps and of exported scripts ·
#           PyTorch replay of `attnlab train --out` runs (gradients, losses, nn layers) ·
#           PyTorch check of `attnlab trace --checkpoint` dumps (block stages, every gradient) ·
#           doctest under AddressSanitizer + UBSan · bounded libFuzzer runs ·
#           browser (headless Chromium) · desktop app smoke run under Xvfb ·
#           the doctest suite and the PyTorch checks again on builds for x86-64-v3 and x86-64-v2
#   The training replay runs twice, with each BLAS Debian's torch can load as libblas.so.3
#   (the reference BLAS and OpenBLAS; both are installed). The first lines name what the
#   numbers depend on: the BLAS, the CPU's vector ISA, torch, numpy, Node, Emscripten, Chromium.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
out="$here/build/test-output"

mkdir -p "$here/build"
# The installer's output (long on a fresh machine) goes to a log, so the first lines say what
# the numbers depend on; on a failure the log is printed.
"$here/scripts/install-deps.sh" test > "$here/build/install-deps.log" 2>&1 ||
  { cat "$here/build/install-deps.log"; echo "install-deps.sh failed"; exit 1; }
multiarch="$(gcc -print-multiarch)"
# The reference BLAS (with the reference LAPACK, so no OpenBLAS is mapped at all) and OpenBLAS.
blas_dirs=("/usr/lib/$multiarch/blas:/usr/lib/$multiarch/lapack" "/usr/lib/$multiarch/openblas-pthread")

providers() {
  local flags
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  has() { case " $flags " in *" $1 "*) echo "$1";; esac; }
  echo "=== what the numbers depend on"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(nproc) cores;" \
       "vector ISA: $(echo $(has avx512f) $(has avx2) $(has fma) $(has sse4_2))"
  echo "native build: -march=native = $(gcc -march=native -Q --help=target 2>/dev/null | awk '$1 == "-march=" {print $2; exit}')," \
       "-ffp-contract=off; also built and tested: -march=x86-64-v3, -march=x86-64-v2"
  echo "libblas.so.3 (system alternative): $(readlink -f "/usr/lib/$multiarch/libblas.so.3")"
  for d in "${blas_dirs[@]}"; do
    d="${d%%:*}"
    echo "  provider $d: $([ -f "$d/libblas.so.3" ] && dpkg -S "$d/libblas.so.3" 2>/dev/null | cut -d: -f1 | head -1 || echo missing)"
  done
  echo "torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)' 2>&1 | tail -1)," \
       "numpy $(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)' 2>&1 | tail -1)," \
       "node $(node --version), emscripten $(dpkg-query -W -f='${Version}' emscripten)," \
       "$(chromium --version 2>/dev/null | head -1), g++ $(g++ -dumpfullversion)"
  echo "[deps] ok ($(grep -c . "$here/build/install-deps.log") lines of install log: build/install-deps.log)"
}
providers

"$here/scripts/build.sh" native || exit 1
"$here/scripts/build.sh" web || exit 1
rm -rf "$out" && mkdir -p "$out"

passed=0
failed=0
failures=()
suite() {  # suite NAME COMMAND...
  local name="$1"
  shift
  echo
  echo "=== $name"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "=== $name: FAILED ($((SECONDS - t0)) s)"
  fi
}

native_doctest() { ctest --test-dir "$here/build/native" --output-on-failure; }
wasm_doctest() { (cd "$here/build/web" && node --no-experimental-fetch lab_tests.js --no-colors=true); }

torch_mistakes() {
  # The mistakes lab's error texts and shapes are compared (doctest) with the facts in
  # tests/fixtures/mistakes/pytorch.tsv; here PyTorch runs the buggy lines again and must
  # still say exactly those facts.
  /usr/bin/python3 "$here/tests/torch/mistake_errors.py" > "$out/mistakes-pytorch.tsv" || return 1
  diff "$here/tests/fixtures/mistakes/pytorch.tsv" "$out/mistakes-pytorch.tsv" || return 1
  echo "PyTorch says all $(grep -vc '^#' "$out/mistakes-pytorch.tsv") facts of tests/fixtures/mistakes/pytorch.tsv"
}

torch_dumps() {  # torch_dumps [ATTNLAB [TAG]]: TAG names the dump folders of another build
  # Any valid configuration's dump must be reproduced by PyTorch from its own inputs and weights.
  local attnlab="${1:-$here/build/native/attnlab}" tag="${2:-}"
  local configs=(
    ""
    "--mask padding:4,2"
    "--mask padding:4,0 --mask-fill 1e9"
    "--mask padding:3,0"
    "--cross --seq-len 3 --kv-len 6 --heads 1 --mask none"
    "--d-model 512 --heads 8 --seq-len 10"
    "--d-model 12 --heads 3 --seq-len 5 --mask custom:10000/11000/10100/11110/11111 --no-bias --no-pe --no-scale"
    "--d-model 7 --heads 7 --seq-len 9 --batch 3 --seed 123"
    "--raw --d-model 64 --heads 1 --mask none --no-pe --no-bias"    # tutorial 000: SDPA on raw (2, 4, 64) Q, K, V
    "--raw --heads 1 --no-pe --no-bias --mask padding:4,0 --no-scale"  # raw, a fully masked item, no scaling
    "--d-model 16 --heads 4 --kv-heads 2 --seq-len 5 --mask padding:5,2"  # grouped-query: k_groups, v_groups
    "--d-model 12 --heads 6 --kv-heads 1 --seq-len 4 --no-scale --no-bias --cross --kv-len 6"  # multi-query, cross
  )
  local i=0 ok=0
  for args in "${configs[@]}"; do
    i=$((i + 1))
    local dir="$out/dump$tag$i"
    # shellcheck disable=SC2086
    "$attnlab" trace $args --out "$dir" > /dev/null || return 1
    echo -n "attnlab trace $args -> "
    /usr/bin/python3 "$here/tests/torch/check_dump.py" "$dir" | tail -n 1 || return 1
    ok=$((ok + 1))
  done
  echo "$ok of $i dumps reproduced by PyTorch"
}

train_runs() {  # train_runs ATTNLAB OUT: the replay under each BLAS (the first libblas.so.3 on LD_LIBRARY_PATH)
  local rc=0 d
  for d in "${blas_dirs[@]}"; do
    local blas="${d%%:*}"
    echo "--- BLAS: $blas"
    [ -f "$blas/libblas.so.3" ] || { echo "FAIL: $blas/libblas.so.3 missing"; rc=1; continue; }
    LD_LIBRARY_PATH="$d" LAB_EXPECT_BLAS="$blas/" OPENBLAS_NUM_THREADS=1 \
      /usr/bin/python3 "$here/tests/torch/check_training.py" "$1" "$2-${blas##*/}" || rc=1
  done
  return $rc
}

isa_suite() {  # isa_suite v3|v2: build for -march=x86-64-vN, then its doctest, dumps and training replay
  local isa="isa-$1" rc=0
  "$here/scripts/build.sh" "$isa" > "$out/build-$isa.log" 2>&1 || { tail -n 30 "$out/build-$isa.log"; return 1; }
  echo "--- doctest ($isa)"
  # The summary here; on a failure the whole report (which check, which golden line).
  "$here/build/$isa/lab_tests" --no-colors=true > "$out/doctest-$isa.log" 2>&1 || { cat "$out/doctest-$isa.log"; rc=1; }
  tail -n 4 "$out/doctest-$isa.log"
  echo "--- PyTorch reproduces its dumps ($isa)"
  torch_dumps "$here/build/$isa/attnlab" "-$isa" || rc=1
  echo "--- PyTorch reproduces its train runs ($isa, the system's BLAS)"
  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 "$here/tests/torch/check_training.py" "$here/build/$isa/attnlab" "$out/train-$isa" || rc=1
  return $rc
}

browser() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 "$here/scripts/serve.py" --port "$port" "$here/build/web/page" > "$out/http.log" 2>&1 &
  local server=$!
  for _ in $(seq 50); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break; sleep 0.1; done
  (cd "$here/tests/browser" && node run.mjs --url "http://127.0.0.1:$port/" --out "$out/browser")
  local rc=$?
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  return $rc
}

desktop_smoke() {
  # English (LANG=C) and Chinese (--lang zh: the CJK font is read from the build folder).
  LANG=C timeout 120 xvfb-run -a -s "-screen 0 1280x800x24" \
    "$here/build/native/attention_lab" --frames 10 --screenshot "$out/desktop.ppm" || return 1
  timeout 120 xvfb-run -a -s "-screen 0 1280x800x24" \
    "$here/build/native/attention_lab" --lang zh --frames 10 --screenshot "$out/desktop-zh.ppm" || return 1
  python3 - "$out/desktop.ppm" "$out/desktop-zh.ppm" <<'PY'
import sys
def read(path):
    data = open(path, 'rb').read()
    parts = data.split(b'\n', 3)
    w, h = map(int, parts[1].split())
    px = parts[3]
    assert len(px) == w * h * 3, f'truncated screenshot {path}'
    return w, h, px
ok = True
images = []
for path in sys.argv[1:]:
    w, h, px = read(path)
    colours = len({px[i:i + 3] for i in range(0, len(px), 3 * 7)})
    print(f'desktop app rendered {path.rsplit("/", 1)[-1]}: {w}x{h}, {colours} distinct colours')
    ok &= colours > 50
    images.append(px)
# The Chinese frame draws other glyphs in the same layout: many text pixels differ.
differ = sum(images[0][i:i + 3] != images[1][i:i + 3] for i in range(0, len(images[0]), 3 * 5))
print(f'English vs Chinese frame: {differ} of {len(images[0]) // 15} sampled pixels differ')
sys.exit(0 if ok and differ > 2000 else 1)
PY
}

suite "folders and their includes (scripts/layers.py)" /usr/bin/python3 "$here/scripts/layers.py"
suite "doctest (native)" native_doctest
suite "doctest (wasm under Node)" wasm_doctest
suite "PyTorch raises the mistakes lab's errors" torch_mistakes
suite "PyTorch reproduces attnlab dumps" torch_dumps
suite "PyTorch runs exported scripts" bash "$here/tests/torch/check_exported_scripts.sh" "$here/build/native/attnlab" "$out/exported-scripts"
suite "PyTorch reproduces attnlab train runs (reference BLAS and OpenBLAS)" train_runs "$here/build/native/attnlab" "$out/train"
suite "PyTorch reproduces the stepper on trained models" bash "$here/tests/torch/check_model_traces.sh" "$here/build/native/attnlab" "$out/model-traces"
suite "doctest under ASan + UBSan" "$here/scripts/sanitize.sh"
suite "bounded fuzzing" "$here/scripts/fuzz.sh" "${LAB_FUZZ_SECONDS:-20}"
suite "the native suites built for x86-64-v3 (AVX2, FMA)" isa_suite v3
suite "the native suites built for x86-64-v2 (SSE4.2, no FMA)" isa_suite v2
suite "browser (headless Chromium)" browser
suite "desktop app under Xvfb" desktop_smoke

echo
if [ "$failed" -gt 0 ]; then echo "failed suites: ${failures[*]}"; fi
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
