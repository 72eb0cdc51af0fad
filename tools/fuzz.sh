#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets of fuzz/ with clang-19 (ASan + UBSan,
# coverage on every fbe-c library) in BUILD_DIR, seeds them with the golden
# vectors of ../shared/golden (copied into BUILD_DIR, never into the repo) and
# runs each for SECONDS. The corpus grows across runs in BUILD_DIR/corpus;
# a failing input is saved as BUILD_DIR/crashes/<target>-crash-* and the
# script exits non-zero.
#   usage: tools/fuzz.sh BUILD_DIR SECONDS [JOBS]
set -euo pipefail
build=$1
seconds=$2
jobs=${3:-2}
golden=$(cd "$(dirname "$0")/../../shared/golden" && pwd)

CC=clang-19 CXX=clang++-19 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFBE_FUZZ=ON -DFBE_BUILD_TESTS=OFF -DFBE_BUILD_PERF=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_decode fuzz_json fuzz_schema fuzz_protocol

seed() { # seed DIR PATTERN...: golden files, flattened to unique names
  local dir=$build/seed/$1
  shift
  mkdir -p "$dir"
  for pattern in "$@"; do
    for f in $golden/$pattern; do
      cp "$f" "$dir/$(echo "${f#$golden/}" | tr / _)"
    done
  done
}
seed decode 'cases/*/*/*.bin' 'versioning/*.bin'
seed json 'cases/*/*/*.json'
seed schema 'schemas/*.fbe'
seed protocol 'protocol/*.bin'
mkdir -p "$build/crashes"

status=0
for t in decode json schema protocol; do
  mkdir -p "$build/corpus/$t"
  echo "== fuzz_$t for ${seconds}s =="
  # The JIT's compiled objects are cached: later runs start in a moment.
  if ! FBE_FUZZ_JIT_CACHE="$build/jit-cache" "$build/fuzz/fuzz_$t" \
      -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$build/crashes/$t-" "$build/corpus/$t" "$build/seed/$t" \
      2>"$build/fuzz_$t.log"; then
    grep -A30 -m1 "invariant broken\|ERROR: AddressSanitizer\|runtime error\|ERROR: libFuzzer" \
      "$build/fuzz_$t.log" || tail -30 "$build/fuzz_$t.log"
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/fuzz_$t.log" || true
done
exit $status
