#!/usr/bin/env bash
# train_checkpoints.sh — trains the shipped checkpoints (web/checkpoints/{copy,reverse,sort,induction}, coref/{zh,en},
# translate)
# that the page opens instantly. They come from the wasm build of `attnlab` run by Node: its float
# arithmetic is IEEE with no fused multiply-add and its libm is compiled in, so the bytes are the
# same on every machine and with any native compiler flags (-march=native included). A second run
# rewrites identical files; the doctest suite under Node retrains `copy` and compares its bytes.
#   scripts/train_checkpoints.sh          (after scripts/build.sh web)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
cli="$here/build/web/attnlab.js"
[ -f "$cli" ] || "$here/scripts/build.sh" web
out="$here/web/checkpoints"

# name -> flags (small models: the four fit in 300 KB; coref's two languages in 50 KB; translate in 200 KB)
declare -A runs=(
  [copy]="--task copy --d-model 24 --heads 4 --d-ff 48 --batch 64 --steps 300"
  [reverse]="--task reverse --d-model 24 --heads 4 --d-ff 48 --batch 64 --steps 300"
  [sort]="--task sort --d-model 24 --heads 4 --d-ff 48 --batch 64 --steps 600"
  [induction]="--task induction --layers 2 --d-model 24 --heads 2 --d-ff 48 --batch 64 --lr paper:0.5:200 --steps 1500"
  [coref/zh]="--task coref --lang zh --steps 400"
  [coref/en]="--task coref --lang en --steps 400"
  [translate]="--task translate --steps 400"
)
mkdir -p "$out/coref"
for name in copy reverse sort induction coref/zh coref/en translate; do
  rm -rf "$out/$name"
  # shellcheck disable=SC2086
  node --no-experimental-fetch "$cli" train ${runs[$name]} --seed 1 --out "$out/$name" --save final --quiet
done
find "$out" -type f -printf "%s\n" | awk '{s += $1} END {printf "checkpoints: %d bytes in %d files\n", s, NR}'
