#!/usr/bin/env bash
# Build ctests/ against the reference netcdf-c 4.10.1 (the libnetcdf bundled in
# the netCDF4 pip wheel) with Debian's netcdf.h, and run them with
# NCZ_REFERENCE=1. All tests passing proves they encode netcdf-c's behaviour
# (checks marked KNOWN-WRONG are excused and reported).
#
# Env: NCZ_REF_LIB   path to the reference libnetcdf (default: the wheel's, found
#                    under $VENV or /tmp/venv)
#      NCZ_REF_INCLUDE  dir with netcdf.h (default /usr/include)
#      BUILD_DIR     build dir (default target/ctests-reference)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${VENV:-${NCZ_VENV:-/tmp/venv}}"
lib="${NCZ_REF_LIB:-}"
if [ -z "$lib" ]; then
  lib="$(ls "$venv"/lib/python3*/site-packages/netcdf4.libs/libnetcdf-*.so* 2>/dev/null | head -n1 || true)"
fi
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
  echo "reference libnetcdf not found (pip install netCDF4 into $venv, or set NCZ_REF_LIB)" >&2
  exit 2
fi
inc="${NCZ_REF_INCLUDE:-/usr/include}"
if [ ! -f "$inc/netcdf.h" ]; then
  echo "$inc/netcdf.h missing (apt-get install -y libnetcdf-dev, or set NCZ_REF_INCLUDE)" >&2
  exit 2
fi
# The codec plugins the wheel ships beside the library (t_filters needs them).
if [ -z "${HDF5_PLUGIN_PATH:-}" ]; then
  plugdir="$(ls -d "$venv"/lib/python3*/site-packages/netCDF4/plugins 2>/dev/null | head -n1 || true)"
  [ -n "$plugdir" ] && export HDF5_PLUGIN_PATH="$plugdir"
fi
build="${BUILD_DIR:-$root/target/ctests-reference}"
cmake -S "$root/ctests" -B "$build" -DNCZ_TEST_LIB="$lib" -DNCZ_TEST_INCLUDE="$inc" >/dev/null
cmake --build "$build" -j "$(nproc)"
cd "$build"
NCZ_REFERENCE=1 ctest --output-on-failure -j "$(nproc)" "$@"
