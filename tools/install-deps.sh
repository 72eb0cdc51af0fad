#!/usr/bin/env bash
# Installs the Debian packages fbe-c is built with. Silent when everything is
# already installed; otherwise installs what is missing with apt-get (as root, or
# through sudo), or says exactly what to install when it cannot. `--bench` adds
# the packages of `make bench` (the peers of perf/bench_all, the report's chart),
# `--fuzz` those of `make fuzz` (libFuzzer).
set -euo pipefail

packages=(
  cmake make gcc g++ clang-19   # compilers: C11 library, C++ only for Google Benchmark
  llvm-19-dev                   # the JIT and AOT backends (LLVM C API)
  flex bison                    # the .fbe scanner and parser
  libsimdjson-dev               # JSON parsing (fbe_json; docs/json.md)
  libcmocka-dev                 # unit tests
  libbenchmark-dev              # perf/
  pkgconf dpkg-dev              # the installed .pc files (tests), make package (dpkg-shlibdeps)
)

# `--bench` (make bench): also the peers bench_all compares against and what
# perf/report.py draws with. Never needed by the build or the tests: perf/
# skips each peer whose packages are missing.
if [ "${1:-}" = "--bench" ]; then
  packages+=(
    libprotobuf-dev protobuf-compiler       # protobuf C++
    libprotobuf-c-dev protobuf-c-compiler   # protobuf-c
    libflatbuffers-dev flatbuffers-compiler # FlatBuffers
    capnproto libcapnp-dev                  # Cap'n Proto
    libmsgpack-dev                          # msgpack-c (C API)
    rapidjson-dev                           # RapidJSON
    python3 python3-matplotlib              # perf/report.py and its chart
  )
elif [ "${1:-}" = "--fuzz" ]; then
  packages+=(libclang-rt-19-dev)            # libFuzzer and the sanitizers for clang-19
elif [ $# -gt 0 ]; then
  echo "usage: tools/install-deps.sh [--bench | --fuzz]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: this is not a Debian system; install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run 'make deps' as root, or: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
