#!/usr/bin/env bash
# bench.sh — prints Attention Lab's performance figures (nothing passes or fails on
# speed): the native and wasm benchmarks against PyTorch in the same run, training
# (steps to 99 % per task natively and in wasm, steps/s against PyTorch on the same
# batches), the page in headless Chromium (idle frames and main-thread share,
# main-thread ms per frame at Tiny and Paper base, first interactive frame, transfer
# size), Table 3 in miniature natively, and the idle desktop app. PyTorch runs with OpenBLAS (installed here), one thread.
#   scripts/bench.sh            (after scripts/test.sh or the two builds)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
"$here/scripts/install-deps.sh" bench > /dev/null
"$here/scripts/build.sh" native > /dev/null
"$here/scripts/build.sh" web > /dev/null

echo "== native benchmark"
"$here/build/native/attnlab" bench
echo
echo "== wasm benchmark (Node $(node --version))"
node --no-experimental-fetch "$here/build/web/lab_bench.js"
echo
echo "== against PyTorch, same run"
/usr/bin/python3 "$here/tests/bench/compare_torch.py" "$here/build/native/attnlab" "$here/build/web/lab_bench.js"
echo
echo "== training (PyTorch: OpenBLAS, 1 thread; the machine's OPENBLAS_* overrides unset for this command only)"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 "$here/tests/bench/compare_train.py" \
  "$here/build/native/attnlab" "$here/build/web/attnlab.js" "$here/build/bench-train"
echo
echo "== Table 3 in miniature, natively (16 rows x 3 seeds x 150 steps of translate, threads over the cells)"
"$here/build/native/attnlab" table3 --csv "$here/build/bench-table3.csv" | sed -n '/^row /,$p'
echo
echo "== page in headless Chromium"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$here/scripts/serve.py" --quiet --port "$port" "$here/build/web/page" > /dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
sleep 0.5
(cd "$here/tests/browser" && node bench.mjs --url "http://127.0.0.1:$port/" --page "$here/build/web/page")
echo
echo "== desktop app"
python3 "$here/tests/bench/desktop_idle.py" "$here/build/native/attention_lab"
