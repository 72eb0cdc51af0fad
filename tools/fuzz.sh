#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets of fuzz/ with clang-19 (ASan + UBSan,
# coverage on every fbe-c library) in BUILD_DIR, seeds them with the committed
# regression corpus of fuzz/corpus/<target> and the golden vectors of
# ../shared/golden (copied into BUILD_DIR, never into the repo) and runs each for
# SECONDS, one after another. The corpus grows across runs in BUILD_DIR/corpus;
# a failing input is saved as BUILD_DIR/crashes/<target>-crash-* and the script
# exits non-zero.
#   usage: tools/fuzz.sh BUILD_DIR SECONDS [JOBS [TARGET...]]
#          tools/fuzz.sh --regress BUILD_DIR [JOBS]   each target over fuzz/corpus once
#          tools/fuzz.sh --minimize BUILD_DIR [JOBS]  rewrite fuzz/corpus from
#                                                     BUILD_DIR/corpus (merge)
# TARGET is decode, json, schema, protocol or schema_size (default: all).
set -euo pipefail
mode=run
case "${1:-}" in --regress | --minimize) mode=${1#--}; shift ;; esac
build=$1
shift
if [ $mode = run ]; then
  seconds=$1
  shift
fi
jobs=${1:-2}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode json schema protocol schema_size)
repo=$(cd "$(dirname "$0")/.." && pwd)
golden=$(cd "$repo/../shared/golden" && pwd)

CC=clang-19 CXX=clang++-19 cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFBE_FUZZ=ON -DFBE_BUILD_TESTS=OFF -DFBE_BUILD_PERF=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}")
mkdir -p "$build/crashes"

# Each committed input once: what an earlier campaign covered still runs clean.
if [ $mode = regress ]; then
  status=0
  for t in "${targets[@]}"; do
    dir=$repo/fuzz/corpus/$t
    echo "== fuzz_$t over $(ls "$dir" | wc -l) inputs of fuzz/corpus/$t =="
    if ! FBE_FUZZ_JIT_CACHE="$build/jit-cache" "$build/fuzz/fuzz_$t" -runs=0 -rss_limit_mb=4096 \
        -artifact_prefix="$build/crashes/$t-" "$dir" 2>"$build/regress_$t.log"; then
      grep -A30 -m1 "invariant broken\|ERROR: AddressSanitizer\|runtime error\|ERROR: libFuzzer" \
        "$build/regress_$t.log" || tail -30 "$build/regress_$t.log"
      status=1
    fi
  done
  exit $status
fi

# The smallest set of inputs with the coverage of the committed corpus and the
# one grown in BUILD_DIR, minus any copy of a golden vector (those stay in
# ../shared, outside the repo) and any input past 2 KB.
if [ $mode = minimize ]; then
  sha256sum $(find "$golden" -type f) | cut -d' ' -f1 | sort -u >"$build/golden.sha"
  for t in "${targets[@]}"; do
    fresh=$build/minimized/$t
    rm -rf "$fresh"
    mkdir -p "$fresh" "$build/corpus/$t" "$repo/fuzz/corpus/$t"
    FBE_FUZZ_JIT_CACHE="$build/jit-cache" "$build/fuzz/fuzz_$t" -merge=1 -rss_limit_mb=4096 \
      "$fresh" "$repo/fuzz/corpus/$t" "$build/corpus/$t" 2>"$build/minimize_$t.log"
    for f in "$fresh"/*; do
      [ -e "$f" ] || continue
      # Inputs past 2 KB are near-copies of golden frames and schemas, and
      # would make the committed corpus megabytes.
      if [ "$(stat -c %s "$f")" -gt 2048 ] ||
        grep -qx "$(sha256sum "$f" | cut -d' ' -f1)" "$build/golden.sha"; then rm "$f"; fi
    done
    rm -f "$repo/fuzz/corpus/$t"/*
    cp "$fresh"/* "$repo/fuzz/corpus/$t"/ 2>/dev/null || true
    echo "fuzz/corpus/$t: $(ls "$repo/fuzz/corpus/$t" | wc -l) files, $(du -sk "$repo/fuzz/corpus/$t" | cut -f1) KB"
  done
  exit 0
fi

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
mkdir -p "$build/seed/schema_size" # generated schemas: the committed corpus is the seed

status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$repo/fuzz/corpus/$t"
  echo "== fuzz_$t for ${seconds}s =="
  # schema_size's inputs range from 0.1 ms to a second: slow ones are mutated
  # less (about 1.6x the inputs per CPU second, docs/fuzzing.md).
  extra=()
  [ "$t" != schema_size ] || extra=(-entropic_scale_per_exec_time=1)
  # New inputs go to the first directory only: fuzz/corpus stays as committed.
  # The JIT's compiled objects are cached: later runs start in a moment.
  if ! FBE_FUZZ_JIT_CACHE="$build/jit-cache" "$build/fuzz/fuzz_$t" "${extra[@]}" \
      -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$build/crashes/$t-" "$build/corpus/$t" "$build/seed/$t" \
      "$repo/fuzz/corpus/$t" 2>"$build/fuzz_$t.log"; then
    grep -A30 -m1 "invariant broken\|ERROR: AddressSanitizer\|runtime error\|ERROR: libFuzzer" \
      "$build/fuzz_$t.log" || tail -30 "$build/fuzz_$t.log"
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added" \
    "$build/fuzz_$t.log" || true
  grep -E "^#[0-9]+.*(DONE|cov:)" "$build/fuzz_$t.log" | tail -1 || true
done
exit $status
