#!/usr/bin/env bash
# check_exported_scripts.sh — `attnlab export-script` for several configurations, each
# script run with Debian's PyTorch (/usr/bin/python3): every one must print
# "PyTorch agrees with Attention Lab ..." and exit 0. The script regenerates the inputs and
# weights from the seed: at Paper base it must stay under 1 MB. Deliberately tampered
# scripts (one output value, the seed) must exit 1 (the checks can fail). Exits non-zero
# on any failure.
#
# usage: tests/torch/check_exported_scripts.sh [ATTNLAB [OUT_DIR]]
#   ATTNLAB  default build/native/attnlab (or $ATTNLAB)
#   OUT_DIR  where the scripts are written, default build/test-output/exported-scripts
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
attnlab="${1:-${ATTNLAB:-$here/build/native/attnlab}}"
out="${2:-$here/build/test-output/exported-scripts}"
python=/usr/bin/python3

if [ ! -x "$attnlab" ]; then echo "check_exported_scripts: no attnlab at $attnlab (build it first)"; exit 2; fi
mkdir -p "$out" || exit 2

configs=(
  ""                                                                 # default: causal, -inf
  "--mask padding:4,0"                                               # a 0 length with -inf: NaN rows
  "--mask padding:4,0 --mask-fill 1e9"                               # -1e9: the empty item gets uniform weights
  "--cross --seq-len 3 --kv-len 6 --mask causal"                     # cross-attention, L_q != L_kv
  "--no-scale --no-bias --mask custom:1000/1100/1010/1111"           # explicit path (MHA always scales)
  "--d-model 64 --heads 8 --seq-len 6"                               # 8 heads of d_k = 8
  "--config $here/tests/interop/cross_padding.toml"                  # from a TOML file: cross, padding, -1e9, no PE
  "--d-model 512 --heads 8 --seq-len 10"                             # Paper base: under 1 MB
  "--d-model 512 --heads 8 --seq-len 10 --cross --kv-len 7 --no-bias --mask none"  # Paper base, cross, no biases
  "--raw --d-model 64 --heads 1 --mask none --no-pe --no-bias"       # raw SDPA: tutorial 000's (2, 4, 64) Q, K, V
  "--raw --heads 1 --no-pe --no-bias --mask causal --mask-fill 1e9"  # raw SDPA with a mask
  "--seq-len 7 --window 3 --prefix 2"                                # after the paper: sliding window + prefix-LM (MHA)
  "--seq-len 6 --mask padding:6,2 --window 2"                        # window with padding, -inf: a row left no key (NaN)
  "--seq-len 6 --mask none --window 2 --mask-fill 1e9"               # a window alone, both sides, as MHA's float mask
  "--seq-len 5 --no-scale --window 2 --prefix 1"                     # the explicit path (no scaling) with both
  "--raw --heads 1 --no-pe --no-bias --seq-len 6 --mask none --window 3"  # raw SDPA with a window alone
  "--seq-len 7 --flash-tile 3,2"                                     # FlashAttention's tiles (not dividing L) in plain torch
  "--seq-len 6 --mask padding:6,0 --flash-tile 2,4"                  # tiles over a NaN row (-inf, an empty item)
  "--no-scale --mask-fill 1e9 --mask none --window 2 --flash-tile 1,1"  # the explicit path, one key per tile
  "--d-model 16 --heads 4 --kv-heads 2 --seq-len 5"                  # grouped-query attention: 2 K/V heads for 4 query heads
  "--d-model 16 --heads 4 --kv-heads 1 --seq-len 5 --mask padding:5,3 --flash-tile 2,2"  # multi-query, padding, tiles
  "--d-model 512 --heads 8 --kv-heads 2 --seq-len 10 --cross --kv-len 7 --no-scale"   # Paper base, cross, GQA, no scaling
)

total=0
ok=0
for args in "${configs[@]}"; do
  total=$((total + 1))
  script="$out/script$total.py"
  # shellcheck disable=SC2086
  if ! "$attnlab" export-script $args --out "$script" > /dev/null; then
    echo "attnlab export-script $args: FAILED to export"
    continue
  fi
  bytes=$(stat -c %s "$script")
  last=$("$python" "$script" | tail -n 1)
  rc=${PIPESTATUS[0]}
  echo "attnlab export-script ${args:-(defaults)} -> $bytes bytes -> $last"
  if [ "$bytes" -ge 1000000 ]; then echo "  $script is $bytes bytes: 1 MB or more"; rc=1; fi
  if [ "$rc" -eq 0 ]; then ok=$((ok + 1)); else echo "  $script exited $rc"; fi
done

# The check itself must be able to fail: change one of the lab's output values.
tampered="$out/tampered.py"
"$attnlab" export-script --out "$out/base.py" > /dev/null &&
  "$python" - "$out/base.py" "$tampered" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
start = text.index("lab_output = tensor([\n") + len("lab_output = tensor([\n")
m = re.compile(r"-?[0-9][0-9.e+-]*").search(text, start)
text = text[:m.start()] + repr(float(m.group()) + 0.01) + text[m.end():]
open(sys.argv[2], "w").write(text)
PY
"$python" "$tampered" > "$out/tampered.log" 2>&1
rc=$?
rejected=0
if [ "$rc" -eq 1 ] && grep -q "DISAGREES" "$out/tampered.log"; then
  rejected=1
  echo "tampered script (one output value + 0.01) -> $(tail -n 1 "$out/tampered.log") [exit 1, as it should]"
else
  echo "tampered script: expected exit 1 with DISAGREES, got exit $rc"
fi

# ... and so must the check of the regenerated numbers: another seed is not the lab's.
sed 's/^seed = 42$/seed = 43/' "$out/base.py" > "$out/other_seed.py"
"$python" "$out/other_seed.py" > "$out/other_seed.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "regenerated query_in differs from the lab's numbers" "$out/other_seed.log"; then
  rejected=$((rejected + 1))
  echo "seed changed in the script -> $(tail -n 1 "$out/other_seed.log") [exit 1, as it should]"
else
  echo "seed changed in the script: expected exit 1 naming query_in, got exit $rc"
fi

echo "$ok of $total exported scripts agree$([ "$rejected" -eq 2 ] && echo ", and both tampered ones are rejected" || echo "; a tampered one was NOT rejected")"
[ "$ok" -eq "$total" ] && [ "$rejected" -eq 2 ]
