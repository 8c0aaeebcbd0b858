#!/usr/bin/env bash
# The project's single test command (CI's .ci/run runs it). It installs what
# is missing first (scripts/install-deps.sh), then runs every step below. A
# failing install, build or CMake build stops the run; the other steps all
# run, and the script exits non-zero when any of them failed. A step that
# cannot run (a tool or package missing) fails; a step is skipped only when
# NCZ_SKIP names it, and S3 only with NCZ_S3=0.
#
# Steps (id: what it runs; the Debian packages it needs beyond gcc and the
# Rust toolchain, all installed by scripts/install-deps.sh):
#   (install)      scripts/install-deps.sh: apt, the Python venv, cbindgen, cargo-deny
#   s3-server      radosgw on loopback for every S3 test below (radosgw ceph-mon
#                  ceph-osd curl); stopped when the script exits
#   fmt            cargo fmt --check (the toolchain's rustfmt)
#   deny           cargo deny check licenses bans sources (cargo-deny; deny.toml)
#   (build)        scripts/build.sh: cargo build --release --locked (clang-16,
#                  libisal-dev, pkg-config)
#   codec-cc       the library carries clang's code when scripts/cc picks clang
#                  (binutils' readelf)
#   clippy         cargo clippy --release --all-targets, warnings are errors; the
#                  library's every unsafe block has a SAFETY comment (src/lib.rs
#                  turns on clippy::undocumented_unsafe_blocks)
#   cargo-test     cargo test --release --locked (libnetcdf19 and libnetcdf-dev for
#                  delegation, hdf5-filter-plugin and the venv's netCDF4 plugins)
#   (cmake)        CMake build of the C tests and plugins (cmake, make)
#   ctest          CTest: C tests per storage kind, Debian's ncdump over the fixtures,
#                  zip tools (netcdf-bin); a test CTest skips fails the step
#   install        scripts/test-install.sh (cmake, make, pkg-config, libnetcdf19)
#   tools          scripts/test-tools.sh (netcdf-bin, libnetcdf19)
#   valgrind       scripts/run-ctests-valgrind.sh (valgrind)
#   reference      scripts/run-ctests-reference.sh: the C tests on netcdf-c 4.10.1
#                  (the venv's netCDF4 wheel; libnetcdf-dev's netcdf.h)
#   client-ctest   scripts/run-client-ctest.sh (libnetcdf19)
#   cdtime         scripts/run-cdtime-ctest.sh (libnetcdf19, netcdf-bin)
#   exports        scripts/check-exports.sh (cbindgen)
#   client-abi     scripts/check-client-abi.sh (netcdf-bin, libnetcdff-dev,
#                  python3-netcdf4, binutils; the venv's netCDF4 wheel)
#   fortran        scripts/run-fortran-tests.sh (gfortran, libnetcdff-dev)
#   mpi            scripts/test-mpi.sh: parallel I/O, mpirun -np 1..4
#                  (libopenmpi-dev, openmpi-bin)
#   python-debian  scripts/run-python-debian.sh (python3-netcdf4)
#   headers        scripts/check-headers.sh (g++, perl, python3, libnetcdf-dev)
#   bench-build    bench/run.sh --build-only: the benchmark programs compile
#   interop        tests/interop/run.sh (the venv: netCDF4, zarr, numcodecs, xarray)
#   s3             tests/s3/run.sh: fixtures and Debian's tools through S3
#                  (the S3 server, netcdf-bin, curl, the venv)
#
# Usage: scripts/test-all.sh
# Env:   NCZ_SKIP   step ids to skip, separated by spaces (reported as skipped)
#        NCZ_S3=0   no S3 server and no S3 tests (the s3-server and s3 steps
#                   are reported as skipped, CTest leaves out its label s3)
#        NCZ_VENV   the Python venv of scripts/install-deps.sh
#                   (default $HOME/.cache/nczarr-venv)
# Each step's output is kept in target/test-all/<n>-<id>.log; a summary of
# every step, then the last lines of each failed step, close the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export NCZ_VENV="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"

STEP_IDS="s3-server fmt deny codec-cc clippy cargo-test ctest install tools valgrind reference
client-ctest cdtime exports client-abi fortran mpi python-debian headers bench-build interop s3"
skip_list=" $(echo "${NCZ_SKIP:-}" | tr ',' ' ') "
for id in $skip_list; do
    case $id in
    s3-server | s3) echo "test-all: NCZ_SKIP: S3 is skipped with NCZ_S3=0 only" >&2; exit 2 ;;
    esac
    case " $(echo "$STEP_IDS" | tr '\n' ' ') " in
    *" $id "*) ;;
    *) echo "test-all: NCZ_SKIP: unknown step '$id' (steps: $(echo "$STEP_IDS" | tr '\n' ' '))" >&2; exit 2 ;;
    esac
done
s3=1
[ "${NCZ_S3:-1}" = 0 ] && s3=0

logdir=target/test-all
rm -rf "$logdir"
mkdir -p "$logdir"

# --- the step runner ------------------------------------------------------------
# One entry per step, appended together: its title, its result (ok, FAILED
# (exit N), skipped (why)) and its log ("" when it did not run).
r_title=()
r_result=()
r_log=()
nstep=0
heading() { printf '\n=== %s ===\n' "$*"; }
record() { # title result log
    r_title+=("$1")
    r_result+=("$2")
    r_log+=("$3")
    echo "test-all: $1: $2"
}
# skip_reason ID: prints why the step is skipped, fails when it runs.
skip_reason() {
    case $1 in
    s3-server | s3) [ $s3 = 0 ] && { echo "NCZ_S3=0"; return 0; } ;;
    esac
    case $skip_list in
    *" $1 "*) echo "NCZ_SKIP"; return 0 ;;
    esac
    return 1
}
# run_test ID TITLE COMMAND...: runs the command (a function runs with set -e
# in a subshell), its output shown and kept in the step's log.
run_test() {
    local id=$1 title=$2 why rc
    shift 2
    nstep=$((nstep + 1))
    heading "$title"
    if why=$(skip_reason "$id"); then
        record "$title" "skipped ($why)" ""
        return 0
    fi
    local log="$logdir/$nstep-$id.log"
    set +e
    (
        set -euo pipefail
        "$@"
    ) 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    if [ "$rc" = 0 ]; then
        record "$title" ok "$log"
    else
        record "$title" "FAILED (exit $rc)" "$log"
    fi
}
last_failed() { case ${r_result[${#r_result[@]} - 1]} in FAILED*) return 0 ;; esac; return 1; }

summary() {
    local i npass=0 nfail=0 nskip=0
    heading "summary"
    for i in "${!r_title[@]}"; do
        printf '  %-22s %s\n' "${r_result[$i]}" "${r_title[$i]}"
        case ${r_result[$i]} in
        ok) npass=$((npass + 1)) ;;
        FAILED*) nfail=$((nfail + 1)) ;;
        *) nskip=$((nskip + 1)) ;;
        esac
    done
    for i in "${!r_title[@]}"; do
        case ${r_result[$i]} in FAILED*) ;; *) continue ;; esac
        echo
        echo "=== last lines of the failed step: ${r_title[$i]} (${r_log[$i]}) ==="
        tail -n 60 "${r_log[$i]}"
    done
    echo
    echo "test-all: $npass passed, $nfail failed, $nskip skipped"
    [ "$nfail" = 0 ]
}
# stop_if_failed: after a step the others depend on.
stop_if_failed() {
    if last_failed; then
        echo "test-all: stopping: the steps after this one need it"
        summary || true
        exit 1
    fi
}

# --- install ------------------------------------------------------------------------
heading "scripts/install-deps.sh"
bash scripts/install-deps.sh

# With ISA-L installed (scripts/install-deps.sh does it) the build must use
# it for deflate level 1: a unit test fails if the library came out without.
if [ "$(dpkg-query -W -f='${Status}' libisal-dev 2>/dev/null)" = "install ok installed" ]; then
    export NCZ_EXPECT_ISAL=1
fi

# --- S3 server ---------------------------------------------------------------------
# A real S3 server (radosgw on loopback) for the S3 tests of every step; it is
# stopped when this script exits.
s3_server() {
    if ! command -v radosgw >/dev/null; then
        echo "radosgw is not installed (scripts/install-deps.sh installs it; NCZ_S3=0 runs without S3)"
        return 1
    fi
    bash scripts/s3-server.sh start >/dev/null
}
if [ $s3 = 1 ]; then
    trap 'bash scripts/s3-server.sh stop' EXIT
fi
run_test s3-server "S3 test server (radosgw on loopback)" s3_server
if [ $s3 = 1 ] && ! last_failed; then
    # shellcheck disable=SC1091
    source target/s3-server/env
fi

# --- checks that need no build ----------------------------------------------------------
run_test fmt "cargo fmt --check" cargo fmt --check
# Licences, bans and sources; not advisories, whose database CI cannot
# fetch (deny.toml says why).
run_test deny "cargo deny check licenses bans sources (deny.toml)" cargo deny --locked check licenses bans sources

# --- build ----------------------------------------------------------------------------
run_test build "build: scripts/build.sh (cargo build --release --locked)" bash scripts/build.sh
stop_if_failed

# The bundled C codecs are built with clang when one is installed
# (scripts/cc, set by .cargo/config.toml): check the build really did.
codec_compiler() {
    local want
    want=$(scripts/cc --version | head -n 1)
    echo "scripts/cc: $want"
    case $want in
    *clang*)
        readelf -p .comment target/release/libnetcdf.so | grep -F "${want%% (*}" ||
            { echo "libnetcdf.so has no code from $want"; return 1; } ;;
    esac
}
run_test codec-cc "codec C compiler" codec_compiler
run_test clippy "cargo clippy (warnings are errors; SAFETY comments on unsafe blocks)" \
    cargo clippy --release --all-targets --locked -- -D warnings
run_test cargo-test "cargo test" cargo test --release --locked

cmake_build() {
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
    cmake --build build -j2
}
run_test cmake "CMake build (C tests, plugins)" cmake_build
stop_if_failed

# CTest skips a test whose program exits 77 (a tool or the S3 server
# missing) and still exits 0: here a skipped test fails the step. With
# NCZ_S3=0 the S3 runs (label s3) are left out instead.
ctest_step() {
    local args=(--test-dir build --output-on-failure) out=target/test-all/ctest.out
    [ $s3 = 1 ] || args+=(-LE '^s3$')
    ctest "${args[@]}" | tee "$out"
    # CTest shows a passing test's output only in its log: repeat the fixture
    # runner's summary line here.
    grep -E '^fixtures: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' build/Testing/Temporary/LastTest.log || true
    if grep -q 'The following tests did not run' "$out"; then
        echo "ctest: FAIL: tests were skipped (see above); every test must run"
        return 1
    fi
}
run_test ctest "CTest" ctest_step

run_test install "install + find_package/pkg-config projects" bash scripts/test-install.sh
run_test tools "Debian ncgen/ncdump/nccopy on our library" bash scripts/test-tools.sh
run_test valgrind "ctests under valgrind" bash scripts/run-ctests-valgrind.sh
run_test reference "ctests against netcdf-c 4.10.1" bash scripts/run-ctests-reference.sh
run_test client-ctest "client helpers vs netcdf-c 4.9.0" bash scripts/run-client-ctest.sh
run_test cdtime "time helpers vs netcdf-c 4.9.0" bash scripts/run-cdtime-ctest.sh
run_test exports "export signatures vs include/" bash scripts/check-exports.sh
run_test client-abi "client ABI (ldd -r, export lists)" bash scripts/check-client-abi.sh build/lib
run_test fortran "Fortran (F90, F77) via Debian's libnetcdff" bash scripts/run-fortran-tests.sh build/lib
run_test mpi "parallel I/O (MPI, mpirun -np 1..4)" bash scripts/test-mpi.sh build/lib
run_test python-debian "Debian python3-netcdf4" bash scripts/run-python-debian.sh build/lib
run_test headers "public headers (check-headers.sh)" bash scripts/check-headers.sh
# The benchmark suite is never timed here: only check that its programs compile.
run_test bench-build "bench builds" bash bench/run.sh --build-only

# tests/interop/run.sh passes when the venv is missing (unless CI is set) and
# leaves out the netcdf-c 4.10.1 comparison when it cannot find the wheel's
# library: both are failures here.
interop() {
    local out=target/test-all/interop.out
    bash scripts/ref-libnetcdf.sh >/dev/null
    CI="${CI:-true}" bash tests/interop/run.sh | tee "$out"
    if grep -q 'reference library not found' "$out"; then
        echo "interop: FAIL: the comparison with netcdf-c 4.10.1 did not run"
        return 1
    fi
}
run_test interop "interop (netCDF4-python, zarr-python, xarray)" interop

s3_tools() {
    if [ -z "${NCZ_S3_ENDPOINT:-}" ]; then
        echo "no S3 server (its step failed)"
        return 1
    fi
    bash tests/s3/run.sh build/lib
}
run_test s3 "S3: Debian tools and netCDF4-python datasets through S3" s3_tools

summary
