#!/usr/bin/env bash
# Build ctests/ against the reference netcdf-c 4.10.1 (the libnetcdf bundled in
# the netCDF4 pip wheel) with Debian's netcdf.h, and run them with
# NCZ_REFERENCE=1. All tests passing proves they encode netcdf-c's behaviour
# (checks marked KNOWN-WRONG are excused and reported).
#
# Env: NCZ_REF_LIB   path to the reference libnetcdf (default: the wheel's, in
#                    the venv $NCZ_VENV: scripts/ref-libnetcdf.sh finds it)
#      NCZ_REF_INCLUDE  dir with netcdf.h (default /usr/include)
#      BUILD_DIR     build dir (default target/ctests-reference)
# Only the `file` label runs: the wheel's netcdf-c is built without zip (and
# S3) storage, so the `zip` runs would only show NC_ENOTBUILT.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
lib="${NCZ_REF_LIB:-}"
if [ -z "$lib" ]; then
  lib="$(NCZ_VENV="$venv" bash "$root/scripts/ref-libnetcdf.sh")" || {
    echo "reference libnetcdf not found (scripts/install-deps.sh, or set NCZ_REF_LIB)" >&2
    exit 2
  }
fi
if [ ! -f "$lib" ]; then
  echo "reference libnetcdf $lib not found" >&2
  exit 2
fi
inc="${NCZ_REF_INCLUDE:-/usr/include}"
if [ ! -f "$inc/netcdf.h" ]; then
  echo "$inc/netcdf.h missing (apt-get install -y libnetcdf-dev, or set NCZ_REF_INCLUDE)" >&2
  exit 2
fi
# The codec plugins the wheel ships beside the library (t_filters needs them).
if [ -z "${HDF5_PLUGIN_PATH:-}" ]; then
  plugdir="$("$venv/bin/python" -c 'import importlib.util, os; print(os.path.join(importlib.util.find_spec("netCDF4").submodule_search_locations[0], "plugins"))')"
  if [ ! -d "$plugdir" ]; then
    echo "the netCDF4 wheel's plugins $plugdir are missing (t_filters needs them)" >&2
    exit 2
  fi
  export HDF5_PLUGIN_PATH="$plugdir"
fi
build="${BUILD_DIR:-$root/target/ctests-reference}"
cmake -S "$root/ctests" -B "$build" -DNCZ_TEST_LIB="$lib" -DNCZ_TEST_INCLUDE="$inc" >/dev/null
cmake --build "$build" -j "$(nproc)"
cd "$build"
NCZ_REFERENCE=1 ctest -L '^file$' --output-on-failure -j "$(nproc)" "$@"
