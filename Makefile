# Thin wrapper around CMake: the README's two commands.
#   make demo   install missing packages, build in build/, run the demo
#   make test   same, then run every test, plainly and under ASan + UBSan
#   make test-nollvm  the suite again in a build without LLVM (interpreter fallback)
#   make test-tsan    the JIT tiers and threads under ThreadSanitizer
#   make bench  build with Release flags (-O2) in build/release, run bench_all (fbe-c
#               and its peers) and write docs/performance.md
#   make fuzz   the libFuzzer targets (clang-19), FUZZ_SECONDS each (docs/fuzzing.md)
#   make package  the Debian package of what `cmake --install` installs, in build/
#               (docs/getting-started.md)
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build build-sanitize demo test test-nollvm test-tsan bench fuzz fuzz-regress package clean

all: build

deps:
	@tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The benchmarks and examples have no tests: the sanitizer build skips them.
build-sanitize: deps
	@cmake -S . -B $(BUILD)/sanitize -DCMAKE_BUILD_TYPE=Debug -DFBE_SANITIZE=ON \
	  -DFBE_BUILD_PERF=OFF -DFBE_BUILD_EXAMPLES=OFF \
	  -DFBE_TEST_JIT_CACHE=$(abspath $(BUILD))/jit-cache >/dev/null
	@cmake --build $(BUILD)/sanitize -j $(JOBS)

demo: build
	@echo "== fbec check examples/proto.fbe && fbec ir examples/proto.fbe =="
	@$(BUILD)/fbec check examples/proto.fbe
	@$(BUILD)/fbec ir examples/proto.fbe
	@echo
	@echo "== the README account: build/demo examples/proto.fbe =="
	@$(BUILD)/demo examples/proto.fbe

# quarantine_size_mb=32 (ASan's default is 256): freed memory is reused sooner,
# which cut the sanitizer suite from 381 s to 335 s (page faults under LLVM's
# allocations); a use after free is still caught within the last 32 MB freed.
test: build build-sanitize
	@echo "== tests =="
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	@echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer =="
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=32 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD)/sanitize --output-on-failure -j $(JOBS)

# The same suite in a build without LLVM (FBE_WITH_LLVM=OFF): every codec falls
# back to the interpreter. CI runs it after `make test`.
test-nollvm: deps
	@cmake -S . -B $(BUILD)/nollvm -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFBE_WITH_LLVM=OFF >/dev/null
	@cmake --build $(BUILD)/nollvm -j $(JOBS)
	@echo "== tests without LLVM =="
	@ctest --test-dir $(BUILD)/nollvm --output-on-failure -j $(JOBS)

# The JIT's tiers under ThreadSanitizer: codecs used from several threads while
# background compilation installs native code (tests/test_jit_tiers.c) and
# concurrent compilation (test_jit_lifecycle). CI runs it after `make test`.
TSAN_TESTS ?= test_jit_tiers|test_jit_lifecycle
test-tsan: deps
	@cmake -S . -B $(BUILD)/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFBE_TSAN=ON \
	  -DFBE_BUILD_PERF=OFF -DFBE_BUILD_EXAMPLES=OFF >/dev/null
	@cmake --build $(BUILD)/tsan -j $(JOBS) --target test_jit_tiers test_jit_lifecycle
	@echo "== tests under ThreadSanitizer =="
	@TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp \
	  ctest --test-dir $(BUILD)/tsan --output-on-failure -j $(JOBS) -R '$(TSAN_TESTS)'

# bench_all: fbe-c and the peers of the reference README in one run, -O2 like the
# reference figures; repeated, medians kept, then perf/report.py writes
# docs/performance.md and docs/performance.png. BENCH_FLAGS adds Google Benchmark
# flags (e.g. BENCH_FLAGS=--benchmark_filter=readme/ for a quick look).
BENCH_REPS ?= 5
BENCH_FLAGS ?=
bench:
	@tools/install-deps.sh --bench
	@cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
	@cmake --build $(BUILD)/release -j $(JOBS) --target bench_all bench_interp fbe-op
	@$(BUILD)/release/perf/bench_all --benchmark_repetitions=$(BENCH_REPS) \
	  --benchmark_report_aggregates_only=true \
	  --benchmark_out=$(BUILD)/release/bench_all.json --benchmark_out_format=json $(BENCH_FLAGS)
	@/usr/bin/python3 perf/report.py $(BUILD)/release/bench_all.json \
	  --md docs/performance.md --png docs/performance.png

# fuzz: the libFuzzer targets of fuzz/ (clang-19, ASan + UBSan), seeded with the
# golden vectors, FUZZ_SECONDS each (docs/fuzzing.md). Not part of make test.
FUZZ_SECONDS ?= 60
fuzz:
	@tools/install-deps.sh --fuzz
	@tools/fuzz.sh $(BUILD)/fuzz $(FUZZ_SECONDS) $(JOBS)
fuzz-regress: # each target over its committed corpus fuzz/corpus/<target> once
	@tools/install-deps.sh --fuzz
	@tools/fuzz.sh --regress $(BUILD)/fuzz $(JOBS)

# package: build/fbe-c_VERSION_ARCH.deb (CPack): fbec, the headers, the libraries,
# the CMake package with fbe_generate(), the pkg-config files and the man page.
package: build
	@cd $(BUILD) && cpack -G DEB >/dev/null
	@ls $(BUILD)/fbe-c_*.deb

clean:
	@rm -rf $(BUILD)
