#!/usr/bin/env bash
# The installed package as a user gets it: `cmake --install` of this build into a fresh
# prefix, then examples/installed_host configured with find_package(mdl) against that prefix
# only, built and run, and the C host compiled with `pkg-config --cflags --libs mdl`.
# Settings come from the environment (tests/install/CMakeLists.txt sets them):
#   MDL_SOURCE_DIR MDL_BINARY_DIR WORK LIBDIR CMAKE GENERATOR MAKE_PROGRAM CC CXX
#   BUILD_TYPE EXTRA_FLAGS (compile and link flags of both builds, e.g. the sanitizers')
set -euo pipefail

step() { echo "== $*"; }
fail() { echo "installed_package_test: FAIL: $*" >&2; exit 1; }

prefix="$WORK/prefix"
rm -rf "$WORK"
mkdir -p "$WORK"

step "cmake --install $MDL_BINARY_DIR --prefix $prefix"
"$CMAKE" --install "$MDL_BINARY_DIR" --prefix "$prefix" >"$WORK/install.log" ||
  { cat "$WORK/install.log"; fail "cmake --install failed"; }
for f in bin/mdl "$LIBDIR/libmdl.so" include/mdl/mdl.h include/mdl/mdl/compiled_model.hpp \
  include/mdl/abi/kernel_abi.h "$LIBDIR/cmake/mdl/mdlConfig.cmake" \
  "$LIBDIR/cmake/mdl/mdlConfigVersion.cmake" "$LIBDIR/cmake/mdl/mdlTargets.cmake" \
  "$LIBDIR/pkgconfig/mdl.pc"; do
  test -e "$prefix/$f" || fail "not installed: $f"
done
# Only mdl's API is exported: nothing of LLVM or fmt, no function of the compiler's stages
# (weak instantiations the API's own objects make of internal types are tolerated), and a
# few hundred symbols at most where the stages alone define thousands.
symbols=$(nm -DC --defined-only "$prefix/$LIBDIR/libmdl.so")
leaked=$(echo "$symbols" | grep -E " (llvm::|fmt::)|^[0-9a-f]+ [TDBR] mdl::(source|parse|ast|check|symbolic|codegen)::" |
  head -5 || true)
test -z "$leaked" || fail "libmdl.so exports internal symbols:
$leaked"
count=$(echo "$symbols" | wc -l)
test "$count" -lt 400 || fail "libmdl.so exports $count symbols (--exclude-libs lost?)"

# Release artefacts carry no debug info unless the build asks for it (MDL_INSTALL_DEBUG_INFO).
if [ "${INSTALL_DEBUG_INFO:-OFF}" != "ON" ]; then
  for f in bin/mdl "$LIBDIR/libmdl.so"; do
    if readelf -S "$prefix/$f" | grep -q '\.debug_info'; then
      fail "$f is installed with debug info ($(du -h "$prefix/$f" | cut -f1))"
    fi
  done
fi

# Start-up (docs/performance.md): LLVM is linked in from its static libraries, MPI only into
# mdl-sweep-mpi.
for f in bin/mdl "$LIBDIR/libmdl.so"; do
  needed=$(readelf -d "$prefix/$f" | grep NEEDED || true)
  if echo "$needed" | grep -E "libLLVM|libmpi"; then
    fail "$f loads libLLVM or libmpi at start-up"
  fi
done

model="$MDL_SOURCE_DIR/models/harmonic_oscillator.mdl"
step "installed mdl check"
"$prefix/bin/mdl" check -q "$model"

step "installed mdl export --fmu, linking the installed $LIBDIR/libmdl_fmi.a"
test -e "$prefix/$LIBDIR/libmdl_fmi.a" || fail "not installed: $LIBDIR/libmdl_fmi.a"
"$prefix/bin/mdl" export "$model" --fmu "$WORK/oscillator.fmu" --method verlet ||
  fail "the installed mdl cannot export an FMU"

step "examples/installed_host with find_package(mdl), CMAKE_PREFIX_PATH=$prefix"
# Nothing but the prefix: no package registry, no system-wide mdl.
"$CMAKE" -S "$MDL_SOURCE_DIR/examples/installed_host" -B "$WORK/host" -G "$GENERATOR" \
  -DCMAKE_MAKE_PROGRAM="$MAKE_PROGRAM" -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_C_FLAGS="$EXTRA_FLAGS" -DCMAKE_CXX_FLAGS="$EXTRA_FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="$EXTRA_FLAGS" >"$WORK/configure.log" ||
  { cat "$WORK/configure.log"; fail "configuring examples/installed_host failed"; }
grep -F -- "-- mdl 0.1.0: $prefix/$LIBDIR/cmake/mdl" "$WORK/configure.log" ||
  { cat "$WORK/configure.log"; fail "find_package(mdl) did not use $prefix"; }
"$CMAKE" --build "$WORK/host" >"$WORK/build.log" ||
  { cat "$WORK/build.log"; fail "building examples/installed_host failed"; }
# The programs must not have been compiled against the source tree's headers.
if grep -F -- "$MDL_SOURCE_DIR/compiler" "$WORK/host/build.ninja"; then
  fail "examples/installed_host uses the source tree's include directories"
fi
"$WORK/host/cpp_host" "$model"
"$WORK/host/c_host" "$model"

step "installed simulate_host: HMM on the Kapitza pendulum equals the installed mdl run"
kapitza="$MDL_SOURCE_DIR/models/kapitza.mdl"
"$WORK/host/simulate_host" "$kapitza" method hmm stop 1 step 0.0125 >"$WORK/host.csv"
"$prefix/bin/mdl" run -q "$kapitza" --method hmm --stop 1 --step 0.0125 >"$WORK/cli.csv"
cmp "$WORK/host.csv" "$WORK/cli.csv" || fail "simulate_host's CSV differs from mdl run's"
test "$(wc -l <"$WORK/host.csv")" -eq 82 || fail "expected 81 rows of HMM (H = 1/80 to t = 1)"

# The Python module, when built: installed under the prefix, importable from there (its RPATH
# finds the installed libmdl.so), and its HMM run equal to the installed mdl run's CSV.
for site in "$prefix"/lib/python3*/dist-packages; do
  test -d "$site/mdl" || continue
  step "installed Python module in $site"
  PYTHONPATH="$site" /usr/bin/python3 - "$kapitza" "$WORK/cli.csv" <<'PY' ||
import sys, mdl
r = mdl.compile_file(sys.argv[1]).simulate(method="hmm", stop=1.0, step=0.0125)
lines = open(sys.argv[2]).read().splitlines()
assert lines[0].split(",") == r.columns, (lines[0], r.columns)
cli = [[float(x) for x in line.split(",")] for line in lines[1:]]
assert cli == [[float(r[c][i]) for c in r.columns] for i in range(len(r))], "rows differ"
print("installed mdl module:", mdl.__file__, len(r), "rows equal to mdl run's")
PY
    fail "the installed Python module failed"
done

step "C host with pkg-config --cflags --libs mdl"
export PKG_CONFIG_PATH="$prefix/$LIBDIR/pkgconfig"
test "$(pkg-config --variable=pcfiledir mdl)" = "$prefix/$LIBDIR/pkgconfig" ||
  fail "pkg-config found another mdl.pc: $(pkg-config --variable=pcfiledir mdl)"
flags=$(pkg-config --cflags --libs mdl)
echo "pkg-config: $flags"
# shellcheck disable=SC2086
"$CC" -std=c11 -Wall -Wextra -Werror $EXTRA_FLAGS "$MDL_SOURCE_DIR/examples/c_host/main.c" \
  $flags -lm -Wl,-rpath,"$prefix/$LIBDIR" -o "$WORK/c_host_pkgconfig"
"$WORK/c_host_pkgconfig" "$model"

step "installed C API: HMM on the Kapitza pendulum by mdl_simulate equals the installed mdl run"
# shellcheck disable=SC2086
"$CC" -std=c11 -Wall -Wextra -Werror $EXTRA_FLAGS "$MDL_SOURCE_DIR/examples/c_simulate/main.c" \
  $flags -Wl,-rpath,"$prefix/$LIBDIR" -o "$WORK/c_simulate"
"$WORK/c_simulate" "$kapitza" method hmm stop 1 step 0.0125 >"$WORK/c.csv"
/usr/bin/python3 - "$WORK/c.csv" "$WORK/cli.csv" <<'PY' || fail "c_simulate's rows differ from mdl run's"
import sys
c, cli = (open(f).read().splitlines() for f in sys.argv[1:3])
assert c[0] == cli[0], (c[0], cli[0])
assert len(c) == len(cli) == 82, (len(c), len(cli))
for a, b in zip(c[1:], cli[1:]):  # %.17g and the shortest text read back to the same doubles
    assert [float(x) for x in a.split(",")] == [float(x) for x in b.split(",")], (a, b)
print("c_simulate:", len(c) - 1, "rows equal to mdl run's, to the last bit")
PY
echo "installed_package_test: OK"
