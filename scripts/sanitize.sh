#!/usr/bin/env bash
# sanitize.sh — builds the doctest suite and `attnlab` with AddressSanitizer (+ leak
# checks) and UndefinedBehaviorSanitizer (g++, RelWithDebInfo) in build/asan
# (configured once, reused), runs the suite and a set of attnlab commands, valid
# and invalid. Any sanitizer report, failed test or unexpected exit code fails.
# RelWithDebInfo here means -O1 -g1 with assertions on (Eigen's bounds checks too):
# line tables are all the sanitizers' stack traces need, and the Eigen-heavy
# sources build about 3.5x faster than with the default -O2 -g.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${LAB_JOBS:-2}"
dir="$here/build/asan"
t_start=$SECONDS
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

flags="-O1 -g1"
mkdir -p "$dir"
# Built for this machine's ISA like build/native (-march=native -ffp-contract=off): the text
# goldens pin that build's last digits, and the sanitized run compares against them too.
if ! grep -qxF "CMAKE_CXX_FLAGS_RELWITHDEBINFO:STRING=$flags" "$dir/CMakeCache.txt" 2>/dev/null ||
   ! grep -qxF "LAB_NATIVE_ARCH:BOOL=ON" "$dir/CMakeCache.txt" 2>/dev/null; then
  CC=gcc CXX=g++ cmake -S "$here" -B "$dir" -DLAB_BUILD_GUI=OFF -DLAB_SANITIZE=address,undefined -DLAB_NATIVE_ARCH=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" > "$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; rm -f "$dir/CMakeCache.txt"; echo "sanitize: configuring $dir failed" >&2; exit 1; }
fi
cmake --build "$dir" -j "$jobs" --target lab_tests attnlab > "$dir/build.log" 2>&1 ||
  { tail -n 60 "$dir/build.log"; echo "sanitize: build failed (log: $dir/build.log)" >&2; exit 1; }
t_built=$SECONDS

work="$dir/run"
rm -rf "$work" && mkdir -p "$work"
reports='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer'
passed=0
failed=0
failures=()

check() {  # check NAME EXPECTED_EXIT COMMAND...
  local name="$1" want="$2"
  shift 2
  local log="$work/$(echo "$name" | tr -c 'a-zA-Z0-9_.-' '_').log"
  (cd "$work" && "$@") > "$log" 2>&1
  local rc=$?
  local report
  report=$(grep -E -m 1 "$reports" "$log")
  if [ "$rc" -eq "$want" ] && [ -z "$report" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "FAILED: $name: exit $rc (expected $want)${report:+, sanitizer: $report}; log: $log"
    tail -n 30 "$log" | sed 's/^/    /'
  fi
}

check "lab_tests" 0 "$dir/lab_tests" --no-colors=true

cli="$dir/attnlab"
check "attnlab help" 0 "$cli" help
check "attnlab trace" 0 "$cli" trace
check "attnlab trace json" 0 "$cli" trace --format json
check "attnlab trace paper base --out" 0 "$cli" trace --d-model 512 --heads 8 --seq-len 10 --out "$work/dump"
check "attnlab trace padding 1e9" 0 "$cli" trace --mask padding:4,0 --mask-fill 1e9
check "attnlab trace cross custom" 0 "$cli" trace --cross --seq-len 2 --kv-len 3 --heads 1 --mask custom:101/011 --no-pe --no-bias --no-scale
# Invalid input: exit 2 with a message, never a sanitizer report.
check "attnlab not divisible" 2 "$cli" trace --d-model 10 --heads 3
check "attnlab non-numeric" 2 "$cli" trace --heads x --batch -1 --seed 1e3
check "attnlab over the memory cap" 2 "$cli" trace --d-model 4096 --heads 64 --seq-len 4096 --batch 256
check "attnlab huge number" 2 "$cli" trace --seq-len 99999999999999999999999
check "attnlab bad custom mask" 2 "$cli" trace --mask custom:10/1x --mask custom:
check "attnlab ragged custom mask" 2 "$cli" trace --mask custom:1000/11/111/1111
check "attnlab bad padding" 2 "$cli" trace --mask padding:4,,2
check "attnlab missing value" 2 "$cli" trace --seq-len
check "attnlab unknown option" 2 "$cli" trace --bogus
check "attnlab unknown command" 2 "$cli" frobnicate
if "$cli" help 2>/dev/null | grep -q -- '--config'; then
  # Configuration files (src/interop): valid ones trace, broken ones exit 2.
  printf '{"d_model": 512, "h": 8, "d_k": 64, "seq_len": 6, "batch_size": 1, "d_ff": 2048, "P_drop": 0.1}\n' > "$work/base.json"
  printf '[attention]\nd_model = 16\nnum_heads = 4\n[training]\nwarmup_steps = 4000\n' > "$work/small.toml"
  printf '{"d_model": 512, "h": 8, "seq_len": 10, "batch_si' > "$work/truncated.json"
  printf '[attention]\nd_model = 10\nnum_heads = 3\n' > "$work/bad.toml"
  head -c 4096 /dev/urandom > "$work/binary.json"
  check "attnlab --config json" 0 "$cli" trace --config "$work/base.json"
  check "attnlab --config toml" 0 "$cli" trace --config "$work/small.toml"
  check "attnlab --config truncated json" 2 "$cli" trace --config "$work/truncated.json"
  check "attnlab --config invalid toml" 2 "$cli" trace --config "$work/bad.toml"
  check "attnlab --config binary" 2 "$cli" trace --config "$work/binary.json"
fi

echo
if [ "$failed" -gt 0 ]; then echo "failed: ${failures[*]}"; fi
echo "sanitize (ASan+LSan+UBSan, g++ $flags): $passed passed, $failed failed; build $((t_built - t_start)) s, runs $((SECONDS - t_built)) s, total $((SECONDS - t_start)) s"
[ "$failed" -eq 0 ]
