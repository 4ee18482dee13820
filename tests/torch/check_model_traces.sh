#!/usr/bin/env bash
# check_model_traces.sh — the stepper on trained models against PyTorch: for shipped
# checkpoints (web/checkpoints) and short runs trained here with other switches,
# `attnlab trace --checkpoint DIR --block N --out DUMP` for every attention of the model,
# each dump recomputed by tests/torch/check_model_trace.py (forward tensors of the ten
# stages and the block's four, every gradient against autograd in float64, logits against
# nn.TransformerEncoderLayer/DecoderLayer). A tampered dump must fail (the check can fail).
#
# usage: tests/torch/check_model_traces.sh [ATTNLAB [OUT_DIR]]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
attnlab="${1:-${ATTNLAB:-$here/build/native/attnlab}}"
out="${2:-$here/build/test-output/model-traces}"
python=/usr/bin/python3
if [ ! -x "$attnlab" ]; then echo "check_model_traces: no attnlab at $attnlab (build it first)"; exit 2; fi
rm -rf "$out" && mkdir -p "$out" || exit 2

# Short runs: large gradients (an untrained or half-trained model is unsure), other switches.
runs=(
  "rev20:--task reverse --steps 20 --d-model 24 --heads 3 --d-ff 40"
  "sort20:--task sort --steps 20 --no-bias --label-smoothing 0.1 --layers 2"
  "ind20:--task induction --steps 20 --no-scale --layers 2"
  "copy0:--task copy --steps 1 --no-pe"
  "coref20:--task coref --lang en --steps 20"
  "lpe20:--task reverse --steps 20 --position learned --dropout 0.1"
  "gqa20:--task reverse --steps 20 --heads 4 --kv-heads 2"
  "mqa20:--task induction --steps 20 --layers 2 --kv-heads 1"
)
for run in "${runs[@]}"; do
  name="${run%%:*}"
  # shellcheck disable=SC2086
  "$attnlab" train ${run#*:} --eval-every 1000 --quiet --out "$out/$name" > /dev/null || { echo "train $name failed"; exit 1; }
done

# The grouped runs are grouped (the checks below read the sizes from the manifest): the flags' kv_heads.
for pair in gqa20:2 mqa20:1; do
  grep -q "\"kv_heads\": ${pair#*:}" "$out/${pair%%:*}/manifest.json" ||
    { echo "FAIL: $out/${pair%%:*}/manifest.json does not say kv_heads ${pair#*:}"; exit 1; }
done

total=0
ok=0
check() {  # check CHECKPOINT PART SAMPLE
  for block in 0 1 2 3 4 5; do
    local dump="$out/$(basename "$1")_$2_$block"
    "$attnlab" trace --checkpoint "$1" --part "$2" --block "$block" --sample "$3" --out "$dump" > /dev/null 2>&1 || break
    total=$((total + 1))
    "$python" "$here/tests/torch/check_model_trace.py" "$dump" && ok=$((ok + 1))
  done
}
for task in copy reverse sort induction coref/zh coref/en; do check "$here/web/checkpoints/$task" final 3; done
check "$out/coref20" final 5
check "$out/rev20" init 0
check "$out/rev20" final 1
check "$out/sort20" final 2
check "$out/ind20" final 0
check "$out/copy0" init 0
check "$out/lpe20" final 1  # learned positions (the stage adds pos_embedding[:L]), trained with dropout
check "$out/gqa20" final 2  # shared key/value heads: k_groups, v_groups and the repeat, W^K (d, h_kv·d_k)
check "$out/mqa20" final 1

# The same trace into a short and a long --out path: the same bytes (the heap's addresses once
# decided how Eigen summed a row: logits 6e-6 apart).
short="$out/s" long="$out/a_much_longer_folder_name_that_moves_the_heap/induction_trace"
for dir in "$short" "$long"; do
  "$attnlab" trace --checkpoint "$here/web/checkpoints/induction" --part final --block 0 --sample 3 --out "$dir" > /dev/null 2>&1 ||
    { echo "FAIL: trace into $dir"; exit 1; }
done
for f in logits top layer_out d_weights; do
  cmp -s "$short/$f.npy" "$long/$f.npy" || { echo "FAIL: $f.npy differs between two --out paths of the same trace"; exit 1; }
done

# A tampered gradient must be caught.
tampered="$out/tampered"
cp -r "$out/rev20_final_2" "$tampered"
"$python" - "$tampered/d_weights.npy" <<'PY'
import sys, numpy as np
a = np.load(sys.argv[1]); a.flat[a.size // 2] += 0.1 * np.abs(a).max() + 1e-3; np.save(sys.argv[1], a)
PY
if "$python" "$here/tests/torch/check_model_trace.py" "$tampered" > /dev/null; then
  echo "FAIL: a tampered d_weights.npy passed"; exit 1
fi
# Logits moved by 1e-5 of the largest (inside the ten stages' 2e-5 (1 + scale), outside the
# float32 bound of the nn.Transformer*Layer comparison) must fail that comparison on its own.
cp -r "$out/reverse_final_0" "$out/tampered_logits"
"$python" - "$out/tampered_logits/logits.npy" <<'PY'
import sys, numpy as np
a = np.load(sys.argv[1]); a.flat[a.size // 3] += 1e-5 * (1 + np.abs(a).max()); np.save(sys.argv[1], a)
PY
verdict="$("$python" "$here/tests/torch/check_model_trace.py" "$out/tampered_logits")"
if ! grep -q "FAIL logits vs nn.Transformer" <<< "$verdict" || grep -q "FAIL logits:" <<< "$verdict"; then
  echo "FAIL: logits off by 1e-5 of their scale: not caught by the nn.Transformer*Layer comparison alone ($verdict)"; exit 1
fi
echo "$ok of $total model traces reproduced by PyTorch (a tampered gradient and tampered logits are caught; the same trace gives the same bytes)"
[ "$ok" -eq "$total" ] && [ "$total" -ge 20 ]
