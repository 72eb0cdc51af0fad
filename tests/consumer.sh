#!/usr/bin/env bash
# fbe-c used from another project: examples/consumer (C only, project(x C))
# configured and built out of tree, each program round-tripping the README account
# against the reference's golden files (it exits 1 on any difference).
#
#   consumer.sh install BUILD WORK   install BUILD into WORK/prefix (the fixture)
#   consumer.sh prefix  BUILD WORK   against WORK/prefix: jit, aot and c built
#                                    separately; touching the imported schema
#                                    regenerates; pkg-config; fbec --version/-V
#   consumer.sh subdir  BUILD WORK   add_subdirectory of the source tree, whole
#                                    and runtime only
#   consumer.sh deb     BUILD WORK   against the files of the .deb (dpkg-deb -x)
#
# BUILD is the fbe-c build tree; the source tree and the golden files are found
# from this script's place. Each mode works in WORK/MODE, removed first.
set -euo pipefail
mode=$1 build=$2 work=$3
src=$(cd "$(dirname "$0")/.." && pwd)
golden=$(cd "$src/../shared/golden/cases/proto/Account" && pwd)
consumer=$src/examples/consumer
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
jobs=(-j 2)
fail() { echo "consumer.sh $mode: FAILED: $*" >&2; exit 1; }

# The imported schema is a copy, so that the touch below leaves the tree alone.
schemas() {
  mkdir -p "$1"
  cp "$src/examples/proto.fbe" "$1/proto.fbe"
}

# configure DIR BACKENDS ARGS...: the consumer in DIR, warnings as errors.
configure() {
  local dir=$1 backends=$2
  shift 2
  cmake -S "$consumer" -B "$dir" -DCONSUMER_BACKENDS="$backends" -DPROTO_DIR="$work/$mode/schemas" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; fail "configure $dir"; }
}

build() {
  local dir=$1
  shift
  cmake --build "$dir" "${jobs[@]}" "$@" >"$dir.build.log" 2>&1 || { cat "$dir.build.log"; fail "build $dir"; }
}

# wait_all PID...: every background step must succeed (each says why it failed).
wait_all() {
  local pid status=0
  for pid in "$@"; do
    wait "$pid" || status=1
  done
  [ $status = 0 ] || exit 1
}

# run DIR BACKEND...: each program must pass and print the reference's sizes.
run() {
  local dir=$1 backend out
  shift
  for backend in "$@"; do
    if [ "$backend" = jit ]; then
      out=$("$dir/consumer_jit" "$golden" "$consumer/app.fbe" "$work/$mode/schemas") ||
        { echo "$out"; fail "consumer_jit"; }
    else
      out=$("$dir/consumer_$backend" "$golden") || { echo "$out"; fail "consumer_$backend"; }
    fi
    local name=$backend
    [ "$backend" = c ] && name=static
    grep -qx "backend: $name" <<<"$out" || { echo "$out"; fail "consumer_$backend: backend"; }
    grep -q '^standard 252 bytes, decoded: Account(id=1,' <<<"$out" &&
      grep -q '^final    152 bytes, decoded: Account(id=1,' <<<"$out" ||
      { echo "$out"; fail "consumer_$backend: sizes"; }
    echo "consumer_$backend ($mode): ok"
  done
}

# The imported targets of an installed package: exactly these six (fbe::interp
# is a name for the runtime, which holds the interpreter).
# check_symbols DIR: every global symbol an installed library defines is public
# API, fbe_-prefixed (cmake/FbeLocalize.cmake, cmake/fbe.map), in each of the five.
check_symbols() {
  local lib bad count=0
  for lib in "$1"/libfbe_*.a "$1"/libfbe_*.so; do
    [ -e "$lib" ] || continue
    count=$((count + 1))
    case $lib in
    *.a) bad=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $3 !~ /^fbe_/ { print $3 }') ;;
    *) bad=$(nm -D --defined-only "$lib" | awk 'NF == 3 && $3 !~ /^fbe_/ { print $3 }') ;;
    esac
    [ -z "$bad" ] || fail "$(basename "$lib") exports symbols without the fbe_ prefix:" $bad
  done
  [ $count -ge 5 ] || fail "found $count installed libraries in $1, want 5"
}

check_targets() {
  local got
  got=$(sed -n 's/^add_library(\(fbe::[a-z]*\) .*/\1/p' "$1"/fbe-c-targets.cmake | sort | tr '\n' ' ')
  [ "$got" = "fbe::compiler fbe::interp fbe::jit fbe::json fbe::protocol fbe::runtime " ] ||
    fail "imported targets: $got"
}

rm -rf "${work:?}/$mode"
mkdir -p "$work/$mode"
case $mode in
install)
  cmake --install "$build" --prefix "$work/install/prefix" >"$work/install/install.log" ||
    { cat "$work/install/install.log"; fail "cmake --install"; }
  check_symbols "$(dirname "$(find "$work/install/prefix" -name 'libfbe_runtime.*' | head -1)")"
  ;;
prefix)
  prefix=$work/install/prefix
  [ -x "$prefix/bin/fbec" ] || fail "no installed prefix (run the install step first)"
  schemas "$work/$mode/schemas"
  # Three small projects that mostly wait on cmake: configured and built side by side.
  pids=()
  for backend in jit aot c; do
    (configure "$work/$mode/$backend" "$backend" -DCMAKE_PREFIX_PATH="$prefix" &&
      build "$work/$mode/$backend") &
    pids+=($!)
  done
  wait_all "${pids[@]}"
  for backend in jit aot c; do
    run "$work/$mode/$backend" "$backend"
  done
  check_targets "$prefix/lib/cmake/fbe-c"
  [ -f "$prefix/share/man/man1/fbec.1" ] || fail "no man page"
  for flag in --version -V; do
    [ "$("$prefix/bin/fbec" $flag)" = "fbec (fbe-c) $version" ] || fail "fbec $flag"
  done

  # Editing the imported schema regenerates the code of the schema importing it,
  # and a second build does nothing.
  aot=$work/$mode/aot
  before=$(stat -c %Y.%y "$aot/aot/app.o")
  sleep 1
  touch "$work/$mode/schemas/proto.fbe"
  build "$aot"
  grep -q 'fbec aot: app' "$aot.build.log" || { cat "$aot.build.log"; fail "no regeneration"; }
  [ "$(stat -c %Y.%y "$aot/aot/app.o")" != "$before" ] || fail "app.o not rewritten"
  build "$aot"
  ! grep -q 'fbec' "$aot.build.log" || { cat "$aot.build.log"; fail "regenerated twice"; }
  run "$aot" aot

  # The depfile names the output and every schema read, imports first; an
  # unchanged import header is not rewritten; -MD needs an output file.
  dep=$work/$mode/dep
  mkdir -p "$dep"
  "$prefix/bin/fbec" header -I "$work/$mode/schemas" "$consumer/app.fbe" -o "$dep/app.h" -MD \
    --import-headers "$dep/imports"
  printf '%s: \\\n  %s \\\n  %s\n' "$dep/app.h" "$work/$mode/schemas/proto.fbe" \
    "$consumer/app.fbe" >"$dep/expected.d"
  cmp "$dep/app.h.d" "$dep/expected.d" || fail "depfile: $(cat "$dep/app.h.d")"
  grep -q '^#include "proto.h"$' "$dep/app.h" && [ -s "$dep/imports/proto.h" ] || fail "import headers"
  stamp=$(stat -c %y "$dep/imports/proto.h")
  "$prefix/bin/fbec" c -I "$work/$mode/schemas" "$consumer/app.fbe" -o "$dep/app.c" \
    -MF "$dep/c.d" --import-headers "$dep/imports"
  head -1 "$dep/c.d" | grep -qx "$dep/app.c: \\\\" || fail "depfile of fbec c: $(cat "$dep/c.d")"
  [ "$(stat -c %y "$dep/imports/proto.h")" = "$stamp" ] || fail "unchanged import header rewritten"
  status=0
  "$prefix/bin/fbec" header "$consumer/app.fbe" -MD 2>/dev/null || status=$?
  [ $status = 2 ] || fail "fbec header -MD without -o: status $status"

  # pkg-config: the static C codec and the JIT program by hand.
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  pc=$work/$mode/pkgconfig
  mkdir -p "$pc"
  "$prefix/bin/fbec" c -I "$work/$mode/schemas" "$consumer/app.fbe" -o "$pc/app.c" \
    --header "$pc/app.h" --import-headers "$pc"
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror -I"$pc" -I"$consumer" "$consumer/main.c" "$pc/app.c" \
    $(pkg-config --cflags --libs fbe-runtime) -o "$pc/consumer_c" || fail "pkg-config fbe-runtime"
  mkdir -p "$pc/jit"
  "$prefix/bin/fbec" header -I "$work/$mode/schemas" "$consumer/app.fbe" -o "$pc/jit/app.h" \
    --import-headers "$pc/jit"
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror -DCONSUMER_JIT -I"$pc/jit" -I"$consumer" "$consumer/main.c" \
    $(pkg-config --cflags --libs fbe-jit fbe-json fbe-protocol) -o "$pc/consumer_jit" ||
    fail "pkg-config fbe-jit fbe-json fbe-protocol"
  run "$pc" c jit
  ;;
subdir)
  # fbe_generate with the fbec of the same tree is what the demo and
  # test_cxx_headers already use; the build's fbec spares compiling another.
  # Next to it, a runtime-only subproject: it looks for no flex, bison, LLVM,
  # simdjson or C++ compiler, and fbe_generate runs the fbec it is given.
  schemas "$work/$mode/schemas"
  (configure "$work/$mode/build" "jit;aot;c" -DFBE_SOURCE_DIR="$src" \
     -DFBE_FBEC_EXECUTABLE="$build/fbec" &&
    build "$work/$mode/build" --target consumer_jit consumer_aot consumer_c) &
  full=$!
  (configure "$work/$mode/runtime" c -DFBE_SOURCE_DIR="$src" -DFBE_BUILD_COMPILER=OFF \
     -DFBE_FBEC_EXECUTABLE="$build/fbec" && build "$work/$mode/runtime") &
  wait_all $full $!
  ! grep -E '^(FLEX_EXECUTABLE|BISON_EXECUTABLE|LLVM_DIR|simdjson_DIR|CMAKE_CXX_COMPILER):' \
    "$work/$mode/runtime/CMakeCache.txt" || fail "runtime-only build looked for more"
  run "$work/$mode/build" jit aot c
  run "$work/$mode/runtime" c
  ;;
deb)
  # The package of `make package`; shlibdeps and xz only make it slower here.
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/$mode/package" \
    -D CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip \
    >"$work/$mode/cpack.log" 2>&1 || { cat "$work/$mode/cpack.log"; fail "cpack"; }
  deb=$(ls "$work/$mode/package"/fbe-c_"$version"_*.deb)
  [ "$(dpkg-deb -f "$deb" Package)" = fbe-c ] || fail "package name"
  root=$work/$mode/root
  dpkg-deb -x "$deb" "$root"
  check_targets "$(dirname "$(find "$root" -name fbe-c-targets.cmake | head -1)")"
  check_symbols "$(dirname "$(find "$root" -name 'libfbe_runtime.*' | head -1)")"
  schemas "$work/$mode/schemas"
  configure "$work/$mode/build" "jit;aot;c" -DCMAKE_PREFIX_PATH="$root/usr"
  build "$work/$mode/build"
  grep -q "$root/usr/bin/fbec" "$work/$mode/build/CMakeFiles/consumer_aot.dir/build.make" ||
    fail "fbe_generate did not use the package's fbec"
  run "$work/$mode/build" jit aot c
  ;;
*)
  fail "unknown mode"
  ;;
esac
