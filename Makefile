# Thin wrapper around CMake: the README's two commands.
#   make demo   install missing packages, build in build/, run the demo
#   make test   same, then run every test, plainly and under ASan + UBSan
#   make bench  build with Release flags in build/release and run the benchmarks
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build build-sanitize demo test bench clean

all: build

deps:
	@tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-sanitize: deps
	@cmake -S . -B $(BUILD)/sanitize -DCMAKE_BUILD_TYPE=Debug -DFBE_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD)/sanitize -j $(JOBS)

demo: build
	@echo "== fbec check examples/proto.fbe && fbec ir examples/proto.fbe =="
	@$(BUILD)/fbec check examples/proto.fbe
	@$(BUILD)/fbec ir examples/proto.fbe
	@echo
	@echo "== the README account: build/demo examples/proto.fbe =="
	@$(BUILD)/demo examples/proto.fbe

test: build build-sanitize
	@echo "== tests =="
	@ctest --test-dir $(BUILD) --output-on-failure
	@echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer =="
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD)/sanitize --output-on-failure

bench: deps
	@cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD)/release -j $(JOBS) --target bench_interp fbe-op
	@$(BUILD)/release/perf/bench_interp

clean:
	@rm -rf $(BUILD)
