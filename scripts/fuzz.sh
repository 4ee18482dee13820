#!/usr/bin/env bash
# fuzz.sh — builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan in
# build/fuzz (configured once, reused) and runs each for a bounded time.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]     default 20
# The committed seeds (tests/fuzz/corpus/<target>, tests/fuzz/regressions/<target>)
# are copied to build/fuzz/corpus-work/<target>, which the fuzzer grows; they are
# never modified. Exits non-zero if any target finds a crash, leak, timeout or
# out-of-memory; the input that triggered it is kept under build/fuzz/artifacts/.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-20}"
jobs="${LAB_JOBS:-2}"
case "$seconds" in '' | *[!0-9]* | 0) echo "usage: $0 [seconds-per-target (a whole number >= 1)]" >&2; exit 2 ;; esac

dir="$here/build/fuzz"
fuzz_src="$here/tests/fuzz"
targets=(fuzz_json_config fuzz_toml_config fuzz_url_hash fuzz_cli_args)

# RelWithDebInfo as -O1 -g1 with assertions on: what libFuzzer recommends, line
# tables for the stack traces, and a third of the -O2 -g build time.
flags="-O1 -g1"
mkdir -p "$dir"
if ! grep -qxF "CMAKE_CXX_FLAGS_RELWITHDEBINFO:STRING=$flags" "$dir/CMakeCache.txt" 2>/dev/null; then
  CC=clang CXX=clang++ cmake -S "$here" -B "$dir" -DLAB_FUZZ=ON -DLAB_BUILD_GUI=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" > "$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; rm -f "$dir/CMakeCache.txt"; echo "fuzz: configuring $dir failed" >&2; exit 1; }
fi
cmake --build "$dir" -j "$jobs" --target "${targets[@]}" > "$dir/build.log" 2>&1 ||
  { tail -n 60 "$dir/build.log"; echo "fuzz: building the targets failed (log: $dir/build.log)" >&2; exit 1; }

dict_for() {
  case "$1" in
    fuzz_json_config | fuzz_toml_config) echo "$fuzz_src/config.dict" ;;
    fuzz_url_hash) echo "$fuzz_src/url_hash.dict" ;;
    fuzz_cli_args) echo "$fuzz_src/cli_args.dict" ;;
  esac
}

failed=0
total_execs=0
for t in "${targets[@]}"; do
  work="$dir/corpus-work/$t"
  artifacts="$dir/artifacts/$t"
  log="$dir/logs/$t.log"
  bin="$dir/tests/fuzz/$t"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  for seeds in "$fuzz_src/corpus/$t" "$fuzz_src/regressions/$t"; do
    [ -d "$seeds" ] && find "$seeds" -maxdepth 1 -type f -exec cp -f {} "$work/" \;
  done

  # Known crashers first: each regression input must now pass on its own.
  if [ -d "$fuzz_src/regressions/$t" ] && [ -n "$(ls -A "$fuzz_src/regressions/$t")" ]; then
    if ! "$bin" -runs=1 "$fuzz_src/regressions/$t"/* > "$dir/logs/$t.regressions.log" 2>&1; then
      failed=$((failed + 1))
      kind=$(grep -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer): [a-zA-Z-]+|runtime error: .*|PROPERTY VIOLATED: .*' "$dir/logs/$t.regressions.log" | head -n 1)
      input=$(sed -n 's/^Running: //p' "$dir/logs/$t.regressions.log" | tail -n 1)
      line="$t: FAILED before fuzzing: regression input ${input:-?} fails again (${kind:-see log}); log: $dir/logs/$t.regressions.log"
      echo "$line"
      continue
    fi
  fi

  t0=$SECONDS
  (cd "$artifacts" && "$bin" "$work" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
     -rss_limit_mb=2048 -dict="$(dict_for "$t")" -artifact_prefix="$artifacts/") > "$log" 2>&1
  rc=$?
  elapsed=$((SECONDS - t0))
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
  execs="${execs:-0}"
  total_execs=$((total_execs + execs))
  kind=$(grep -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer): [a-zA-Z-]+|runtime error: .*|PROPERTY VIOLATED: .*' "$log" | head -n 1)
  artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
  if [ "$rc" -ne 0 ] || [ -n "$artifact" ]; then
    failed=$((failed + 1))
    line="$t: $execs execs in $elapsed s, FAILED (${kind:-exit $rc})"
    [ -n "$artifact" ] && line+=": input kept at $artifact (reproduce: $bin $artifact)"
    line+="; log: $log"
  else
    line="$t: $execs execs in $elapsed s, 0 crashes"
  fi
  echo "$line"
done

echo "fuzz: ${#targets[@]} targets, $seconds s each, $total_execs execs, $failed failed"
[ "$failed" -eq 0 ]
