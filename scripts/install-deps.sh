#!/usr/bin/env bash
# Install what the build, the demo and the tests need; safe to run again: it
# only installs what is missing, and takes a few seconds when nothing is.
# scripts/demo.sh and scripts/test-all.sh run it first.
#
#   Debian packages through apt-get (as root, or through password-less sudo;
#   otherwise it stops and names the missing packages), Ceph's radosgw for the
#   S3 tests (scripts/s3-server.sh), a Python venv with the reference writers
#   and readers of the interop tests, and cbindgen and cargo-deny from
#   crates.io. The Rust toolchain itself (cargo, rustfmt, clippy) must be
#   there already: nothing here can fetch one.
#
# Usage: scripts/install-deps.sh [--demo]
#   --demo  only what building the library and running scripts/demo.sh need
#           (everything that changes what the build produces is among them, so
#           a later full install does not make cargo rebuild the library)
# Env:   NCZ_VENV    the venv (default $HOME/.cache/nczarr-venv)
#        NCZ_PYTHON  the Python that creates it (default python3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
demo_only=0
case "${1:-}" in
"") ;;
--demo) demo_only=1 ;;
*)
    echo "usage: $0 [--demo]" >&2
    exit 2
    ;;
esac

# What the library build and the demo need. libisal-dev: Intel's ISA-L,
# which deflate level 1 encodes with (build.rs uses it when installed);
# clang-16: the compiler of the bundled C codecs (scripts/cc; zstd encodes
# faster); libaec-dev: libaec, the szip codec (build.rs uses it when
# installed); netcdf-bin: Debian's ncdump, which the demo runs on this library.
BUILD_PACKAGES=(gcc make pkg-config libisal-dev libaec-dev clang-16 netcdf-bin)
# What the tests need beyond that: Debian's ncgen/nccopy and the reference
# netcdf-c 4.9.0 (netcdf-bin, libnetcdf19, libnetcdf-dev's headers), CMake
# and g++ (CTest, header checks), valgrind, gfortran and netcdf-fortran,
# Debian's python3-netcdf4, HDF5 filter plugins, strace (tests/durability.rs
# counts the library's fsync calls with it), UDUNITS-2 (cfdm's units, for
# tests/aggregation_netcdf.rs), Open MPI (mpicc and mpirun for the parallel
# I/O tests, scripts/test-mpi.sh), Debian's parallel netcdf-c (libnetcdf-mpi-dev:
# netCDF-4/HDF5 over MPI-IO, in /usr/lib/<multiarch>/netcdf/mpi/ beside the
# serial one, which it leaves alone; test-mpi.sh compares its values with
# ours, bench W5 its speed), and Ceph's radosgw (its package list comes from
# scripts/s3-server.sh).
TEST_PACKAGES=(
    cmake g++ binutils
    libnetcdf-dev libnetcdf19
    python3 python3-venv perl
    valgrind strace
    gfortran libnetcdff-dev python3-netcdf4 hdf5-filter-plugin
    libudunits2-0
    libopenmpi-dev openmpi-bin libnetcdf-mpi-dev
)
# The versions that wrote testdata/fixtures (see its README.md).
PIP_PACKAGES=(
    netCDF4==1.7.5.1.post1
    zarr==3.1.6
    numcodecs==0.16.6
    xarray==2026.9.0
    numpy==2.4.6
    cfdm==1.13.3.0
)
# cbindgen: scripts/check-exports.sh. cargo-deny: the licence, ban and source
# checks of scripts/test-all.sh (0.20.2 needs Rust 1.88, builds with 1.95).
CARGO_TOOLS=(cbindgen:0.29.4 cargo-deny:0.20.2)

venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
python="${NCZ_PYTHON:-python3}"
say() { echo "install-deps: $*"; }
die() {
    echo "install-deps: $*" >&2
    exit 1
}

# --- the Rust toolchain (never installed here) ----------------------------------
tools=(cargo rustc)
[ $demo_only = 1 ] || tools+=(rustfmt cargo-clippy)
for t in "${tools[@]}"; do
    command -v "$t" >/dev/null || die "$t not found: install the Rust toolchain (rustup, with the rustfmt and clippy components)"
done

# --- Debian packages ---------------------------------------------------------
packages=("${BUILD_PACKAGES[@]}")
if [ $demo_only = 0 ]; then
    ceph_list=$(bash "$here/s3-server.sh" packages)
    read -r -a ceph_packages <<<"$ceph_list"
    packages+=("${TEST_PACKAGES[@]}" "${ceph_packages[@]}")
fi
missing=()
for p in "${packages[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    say "apt: all ${#packages[@]} packages already installed"
else
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        die "apt: these packages are missing, and installing them needs root (or password-less sudo): ${missing[*]}"
    fi
    say "apt: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
    say "apt: installed ${missing[*]}"
    # libhdf5-openmpi-dev (pulled in by libnetcdf-mpi-dev) registers its
    # hdf5.pc with a higher priority than the serial one, so `pkg-config hdf5`
    # would switch to the MPI build: keep the serial one, as before.
    serial_pc=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/pkgconfig/hdf5-serial.pc
    if [[ " ${missing[*]} " == *" libnetcdf-mpi-dev "* ]] && [ -e "$serial_pc" ] &&
        [ "$(update-alternatives --query hdf5.pc 2>/dev/null | sed -n 's/^Value: //p')" != "$serial_pc" ]; then
        "${as_root[@]}" update-alternatives --set hdf5.pc "$serial_pc" >/dev/null
        say "apt: hdf5.pc kept on the serial HDF5 ($serial_pc)"
    fi
fi
[ $demo_only = 1 ] && exit 0

# --- Python venv ---------------------------------------------------------------
# Prints nothing and succeeds when every pinned package is installed at its version.
venv_complete() {
    [ -x "$venv/bin/python" ] || return 1
    "$venv/bin/python" - "${PIP_PACKAGES[@]}" <<'EOF'
import sys
from importlib import metadata
for spec in sys.argv[1:]:
    name, _, version = spec.partition("==")
    try:
        if metadata.version(name) != version:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
EOF
}

if venv_complete; then
    say "venv: $venv already has ${PIP_PACKAGES[*]}"
else
    if [ ! -x "$venv/bin/python" ]; then
        command -v "$python" >/dev/null || die "venv: $python not found"
        say "venv: creating $venv with $("$python" --version 2>&1)"
        mkdir -p "$(dirname "$venv")"
        "$python" -m venv "$venv"
    fi
    say "venv: pip install ${PIP_PACKAGES[*]}"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${PIP_PACKAGES[@]}"
    venv_complete || die "venv: packages still missing after pip install"
    say "venv: $venv ready"
fi

# --- tools from crates.io --------------------------------------------------------
for spec in "${CARGO_TOOLS[@]}"; do
    crate=${spec%%:*} version=${spec#*:}
    # cargo-deny is run as `cargo deny`; both print "<name> <version>".
    if command -v "$crate" >/dev/null && [ "$("$crate" --version 2>/dev/null)" = "$crate $version" ]; then
        say "$crate $version already installed"
    else
        say "cargo install $crate $version (a few minutes the first time)"
        t0=$SECONDS
        cargo install --quiet --locked "$crate" --version "$version"
        say "$crate $version installed in $((SECONDS - t0)) s"
    fi
done
