#!/usr/bin/env bash
# Install what the tests need; safe to run again (it only installs what is
# missing). Debian packages via apt-get (as root, or through sudo -n), and a
# Python venv with the reference writers/readers used by the interop tests.
#
# Usage: scripts/install-deps.sh
# Env:   NCZ_VENV    the venv (default $HOME/.cache/nczarr-venv)
#        NCZ_PYTHON  the Python that creates it (default python3)
set -euo pipefail

# Debian packages: build tools, Debian's ncdump/ncgen/nccopy (netcdf-bin) and
# the reference netcdf-c 4.9.0 (libnetcdf19, libnetcdf-dev's netcdf.h);
# libisal-dev: Intel's ISA-L, which deflate level 1 encodes with; clang-16:
# the compiler of the bundled C codecs (scripts/cc; zstd encodes faster).
APT_PACKAGES=(
    cmake pkg-config gcc g++ libisal-dev libaec-dev clang-16
    netcdf-bin libnetcdf-dev libnetcdf19
    python3 python3-venv perl
    valgrind
    gfortran libnetcdff-dev python3-netcdf4 hdf5-filter-plugin
)
# The versions that wrote testdata/fixtures (see its README.md).
PIP_PACKAGES=(
    netCDF4==1.7.5.1.post1
    zarr==3.1.6
    numcodecs==0.16.6
    xarray==2026.9.0
    numpy==2.4.6
)

venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
python="${NCZ_PYTHON:-python3}"
say() { echo "install-deps: $*"; }

# --- Debian packages ---------------------------------------------------------
missing=()
for p in "${APT_PACKAGES[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    say "apt: all ${#APT_PACKAGES[@]} packages already installed (${APT_PACKAGES[*]})"
else
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        say "apt: need root (or password-less sudo) to install: ${missing[*]}" >&2
        exit 1
    fi
    say "apt: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
    say "apt: installed ${missing[*]}"
fi

# Ceph's radosgw, the S3 server of the tests (scripts/s3-server.sh).
bash "$(dirname "$0")/s3-server.sh" install

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
        command -v "$python" >/dev/null || { say "venv: $python not found" >&2; exit 1; }
        say "venv: creating $venv with $("$python" --version 2>&1)"
        mkdir -p "$(dirname "$venv")"
        "$python" -m venv "$venv"
    fi
    say "venv: pip install ${PIP_PACKAGES[*]}"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${PIP_PACKAGES[@]}"
    venv_complete || { say "venv: packages still missing after pip install" >&2; exit 1; }
    say "venv: $venv ready"
fi

# cbindgen, for scripts/check-exports.sh (the exports' C signatures against include/).
CBINDGEN_VERSION=0.29.4
if command -v cbindgen >/dev/null && [ "$(cbindgen --version)" = "cbindgen $CBINDGEN_VERSION" ]; then
    say "cbindgen $CBINDGEN_VERSION already installed"
else
    say "cargo install cbindgen $CBINDGEN_VERSION"
    cargo install --quiet --locked cbindgen --version "$CBINDGEN_VERSION"
fi
