#!/usr/bin/env bash
# Debian's python3-netcdf4 (for libnetcdf.so.19) writing and reading NCZarr
# through this library: tests/python/debian_netcdf4_nczarr.py, run with
# /usr/bin/python3 and our library directory first on LD_LIBRARY_PATH (the
# script checks that the process really loaded this library).
#
# Usage: scripts/run-python-debian.sh [LIBDIR]   (default build/lib, else target/release)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
libdir="${1:-}"
if [ -z "$libdir" ]; then
    if [ -e build/lib/libnetcdf.so.19 ]; then libdir=build/lib; else libdir=target/release; fi
fi
libdir="$(cd "$libdir" && pwd)"
py=/usr/bin/python3
if ! "$py" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("netCDF4") is None)' 2>/dev/null; then
    echo "run-python-debian: python3-netcdf4 missing (scripts/install-deps.sh)" >&2
    exit 2
fi
out="$root/target/python-debian"
rm -rf "$out"
mkdir -p "$out"
if ! err="$(LD_LIBRARY_PATH="$libdir" "$py" -c 'import netCDF4' 2>&1)"; then
    echo "run-python-debian: FAIL: import netCDF4: $err"
    exit 1
fi
LD_LIBRARY_PATH="$libdir" "$py" tests/python/debian_netcdf4_nczarr.py "$out"
