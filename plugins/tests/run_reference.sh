#!/usr/bin/env bash
# The plugin C tests against the reference netcdf-c 4.10.1 (the netCDF4
# wheel's libnetcdf) with our plugins: proves that the tests encode
# netcdf-c's behaviour and that our plugins are real netcdf-c plugins
# (including the codec's callbacks into libnetcdf). The junk directory is left
# out: it makes netcdf-c's loader fail every filter call (see README).
# usage: run_reference.sh SCRATCH
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch=$1
venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
lib="$(ls "$venv"/lib/python3*/site-packages/netcdf4.libs/libnetcdf-*.so* 2>/dev/null | head -n1 || true)"
if [ -z "$lib" ]; then
    echo "SKIP: reference libnetcdf not found (scripts/install-deps.sh)"
    exit 77
fi
cc="${CC:-cc}"
rm -rf "$scratch"
mkdir -p "$scratch/plugins"
flags=(-std=c99 -Wall -Wextra -Werror)
for src in H5Zaddk H5Zxor H5Zfail H5Zneg NCZaddk NCZdefaults; do
    out=$(echo "$src" | sed 's/^H5Z/__nch5/; s/^NCZ/__ncz/' | tr 'A-Z' 'a-z')
    # No -lnetcdf: the codec's nc_inq_* resolve to the reference library the
    # test program links (netcdf-c loads plugins RTLD_GLOBAL).
    "$cc" "${flags[@]}" -fPIC -shared -I"$root/plugins" -I"$root/include" \
        "$root/plugins/$src.c" -o "$scratch/plugins/lib$out.so"
done
for t in t_plugin_path t_plugins; do
    "$cc" "${flags[@]}" -D_XOPEN_SOURCE=700 -I"$root/include" -I"$root/ctests" "$here/$t.c" \
        -o "$scratch/$t" "$lib" -Wl,-rpath,"$(dirname "$lib")"
done
log="$scratch/addk.log"
NCZ_REFERENCE=1 HDF5_PLUGIN_PATH=/p/one:/p/two "$scratch/t_plugin_path" "$scratch/data"
NCZ_REFERENCE=1 NCZP_ADDK_LOG="$log" HDF5_PLUGIN_PATH="$scratch/plugins" "$scratch/t_plugins" "$scratch/data"
[ "$(cat "$log")" = "$(printf 'initialize\nfinalize')" ] || { echo "FAIL: addk log: $(cat "$log")"; exit 1; }
echo "ok: plugin tests pass on netcdf-c 4.10.1 with our plugins"
