#!/usr/bin/env bash
# Interop tests: datasets move both ways between this library and
# netCDF4-python (netcdf-c 4.10.1), zarr-python 3 (zarr_format=2) and xarray;
# codecs.py does the same for every built-in codec; v3.py for Zarr v3
# (zarr-python 3, xarray, tensorstore, zarrs).
#
#   bash tests/interop/run.sh
#
# Environment:
#   NCZ_VENV            Python venv with netCDF4 zarr numcodecs xarray
#                       (default $HOME/.cache/nczarr-venv; scripts/install-deps.sh
#                       creates it). Missing: skip (exit 0) unless CI is set.
#   CI                  when set (non-empty), a missing venv is a failure
#   NCZ_INTEROP_KEEP=1  keep the scratch directory (datasets, binaries)
#   NCZ_INTEROP_TRACE=1 print Python tracebacks of failing checks
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
py="$venv/bin/python"

if [ ! -x "$py" ]; then
    if [ -n "${CI:-}" ]; then
        echo "interop: FAIL: no Python venv at $venv (CI=$CI); run scripts/install-deps.sh" >&2
        exit 1
    fi
    echo "interop: SKIPPED: no Python venv at $venv (set NCZ_VENV, or run scripts/install-deps.sh)"
    exit 0
fi
if ! "$py" -c 'import netCDF4, zarr, numcodecs, xarray' 2>/dev/null; then
    echo "interop: FAIL: $py cannot import netCDF4, zarr, numcodecs and xarray" >&2
    exit 1
fi

(cd "$root" && cargo build --release --locked)
lib="$root/target/release/libnetcdf.so"
[ -f "$lib" ] || { echo "interop: FAIL: $lib was not built" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/nczarr-interop.XXXXXX")"
if [ "${NCZ_INTEROP_KEEP:-0}" = 1 ]; then
    echo "interop: keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/bin" "$work/lib" "$work/data"

# Our library under every name a loader may look for (the SONAME is
# libnetcdf.so.22); the helpers find it through LD_LIBRARY_PATH set by check.py.
for name in libnetcdf.so libnetcdf.so.22 libnetcdf.so.19; do
    ln -s "$lib" "$work/lib/$name"
done

inc="$root/include"
[ -f "$inc/netcdf.h" ] || inc=/usr/include
cflags=(-std=c99 -Wall -Wextra -Werror -I"$inc")
for prog in ncwrite ncvals nccodecs; do
    gcc "${cflags[@]}" -o "$work/bin/$prog" "$here/$prog.c" \
        -L"$work/lib" -Wl,-rpath,"$work/lib" -lnetcdf -lm
done

# The same programs linked with the netcdf-c 4.10.1 that the netCDF4 wheel
# bundles (netcdf4.libs/libnetcdf-<hash>.so.*): the reference for ref-diff/*.
ref=()
refdir="$("$py" -c 'import netCDF4, os; print(os.path.join(os.path.dirname(os.path.dirname(netCDF4.__file__)), "netcdf4.libs"))')"
reflib="$(ls "$refdir"/libnetcdf-*.so* 2>/dev/null | head -n 1 || true)"
if [ -n "$reflib" ]; then
    for prog in ncwrite ncvals; do
        gcc "${cflags[@]}" -o "$work/bin/${prog}_ref" "$here/$prog.c" \
            "$reflib" -Wl,-rpath,"$refdir" -lm
    done
    ref=(--ref)
else
    echo "interop: netcdf-c reference library not found under $refdir" >&2
fi

"$py" "$here/check.py" --bin "$work/bin" --lib "$work/lib" --work "$work/data" "${ref[@]}"

# Codecs both ways (netCDF4-python reads through the wheel's own plugins).
"$py" "$here/codecs.py" --bin "$work/bin" --lib "$work/lib" --work "$work/data"

# Zarr v3 both ways: zarr-python 3, xarray, tensorstore and zarrs (the last
# two when installed: bench/install-deps.sh), Debian's ncdump and nccopy.
"$py" "$here/v3.py" --bin "$work/bin" --lib "$work/lib" --work "$work/data/v3"
