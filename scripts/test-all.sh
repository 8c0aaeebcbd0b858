#!/usr/bin/env bash
# The project's single test command (CI runs it after scripts/install-deps.sh):
#   1. cargo build --release --locked (C codecs with clang if installed: scripts/cc)
#   2. cargo test --release --locked        (the whole crate)
#   3. CMake build + CTest                  (C tests; Debian's ncdump over testdata/fixtures),
#      cmake --install + downstream projects, Debian's ncgen/ncdump/nccopy (scripts/test-tools.sh)
#   4. the C tests under valgrind, then against the reference netcdf-c 4.10.1 (netCDF4 wheel),
#      and the differential tests of the client helpers and time functions
#      against Debian's netcdf-c 4.9.0
#   5. scripts/check-exports.sh (export signatures), scripts/check-headers.sh
#   6. the client ABI: scripts/check-client-abi.sh (Debian's ncdump, ncgen,
#      ncgen3, nccopy, libnetcdff and python3-netcdf4 load with no undefined
#      symbol), scripts/run-fortran-tests.sh (F90 and F77 programs through
#      Debian's libnetcdff), scripts/run-python-debian.sh (Debian's python3-netcdf4);
#      bench/run.sh --build-only (the benchmark programs compile; nothing timed)
#   7. tests/interop/run.sh                 (if present)
#   8. tests/s3/run.sh                      (fixtures and Debian's tools through S3)
# A radosgw S3 server (scripts/s3-server.sh) runs on loopback for the whole
# run, so cargo test, CTest (label s3) and step 8 include S3; NCZ_S3=0 skips it.
# A failing build stops the run; the test steps all run, and the script exits
# non-zero when any of them failed.
#
# Usage: scripts/test-all.sh
# Env:   NCZ_VENV  the Python venv from scripts/install-deps.sh (exported for step 5)
#        NCZ_EXPECT_ISAL  set to 1 here when libisal-dev is installed
set -euo pipefail
cd "$(dirname "$0")/.."
export NCZ_VENV="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
# With ISA-L installed (scripts/install-deps.sh does it) the build must use
# it for deflate level 1: a unit test fails if the library came out without.
if [ "$(dpkg-query -W -f='${Status}' libisal-dev 2>/dev/null)" = "install ok installed" ]; then
    export NCZ_EXPECT_ISAL=1
fi

failed=()
# Each test step's output is also kept in target/test-all/<n>.log, and the
# last lines of every failed step are printed again at the very end: CI
# shows only the tail of a long run.
logdir=target/test-all
rm -rf "$logdir"
mkdir -p "$logdir"
nstep=0
step() { printf '\n=== %s ===\n' "$*"; }
run_test() { # name command...
    local name=$1 rc=0
    shift
    step "$name"
    nstep=$((nstep + 1))
    local log="$logdir/$nstep.log"
    set +e
    "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    if [ $rc = 0 ]; then
        echo "test-all: $name: ok"
    else
        echo "test-all: $name: FAILED (exit $rc)"
        failed+=("$name")
        failed_logs+=("$log")
    fi
}
failed_logs=()

# A real S3 server (radosgw on loopback) for the S3 tests of every step; it
# is stopped when this script exits. Without Ceph installed the S3 tests skip.
if [ "${NCZ_S3:-1}" != 0 ] && command -v radosgw >/dev/null; then
    step "S3 test server"
    trap 'bash scripts/s3-server.sh stop' EXIT
    if bash scripts/s3-server.sh start >/dev/null; then
        # shellcheck disable=SC1091
        source target/s3-server/env
    else
        echo "test-all: S3 test server: FAILED to start"
        failed+=("S3 test server")
    fi
fi

step "cargo build --release --locked"
cargo build --release --locked

# The bundled C codecs are built with clang when one is installed
# (scripts/cc, set by .cargo/config.toml): check the build really did.
codec_compiler() {
    local want
    want=$(scripts/cc --version | head -1)
    echo "scripts/cc: $want"
    case $want in
    *clang*)
        readelf -p .comment target/release/libnetcdf.so | grep -F "${want%% (*}" ||
            { echo "libnetcdf.so has no code from $want"; return 1; } ;;
    esac
}
run_test "codec C compiler" codec_compiler

run_test "cargo test" cargo test --release --locked

step "cmake build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2

run_test ctest ctest --test-dir build --output-on-failure
# CTest shows a passing test's output only in its log: repeat the fixture
# runner's summary line here.
log=build/Testing/Temporary/LastTest.log
if [ -f "$log" ]; then
    grep -E '^fixtures: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" || true
fi

run_test "install + find_package/pkg-config projects" bash scripts/test-install.sh
run_test "Debian ncgen/ncdump/nccopy on our library" bash scripts/test-tools.sh
run_test "ctests under valgrind" bash scripts/run-ctests-valgrind.sh
run_test "ctests against netcdf-c 4.10.1" bash scripts/run-ctests-reference.sh
run_test "client helpers vs netcdf-c 4.9.0" bash scripts/run-client-ctest.sh
run_test "time helpers vs netcdf-c 4.9.0" bash scripts/run-cdtime-ctest.sh

run_test "export signatures vs include/" bash scripts/check-exports.sh

run_test "client ABI (ldd -r, export lists)" bash scripts/check-client-abi.sh build/lib
run_test "Fortran (F90, F77) via Debian's libnetcdff" bash scripts/run-fortran-tests.sh build/lib
run_test "Debian python3-netcdf4" bash scripts/run-python-debian.sh build/lib

if [ -f scripts/check-headers.sh ]; then
    run_test check-headers bash scripts/check-headers.sh
fi
# The benchmark suite is never timed here: only check that its programs compile.
run_test "bench builds" bash bench/run.sh --build-only

if [ -f tests/interop/run.sh ]; then
    run_test interop bash tests/interop/run.sh
fi
if [ -n "${NCZ_S3_ENDPOINT:-}" ]; then
    run_test "S3: Debian tools and netCDF4-python datasets through S3" bash tests/s3/run.sh build/lib
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
    for i in "${!failed[@]}"; do
        echo "=== last lines of the failed step: ${failed[$i]} ==="
        tail -n 60 "${failed_logs[$i]}"
        echo
    done
    echo "test-all: FAILED: ${failed[*]}"
    exit 1
fi
echo "test-all: all steps passed"
