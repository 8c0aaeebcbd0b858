#!/usr/bin/env bash
# Third-party plugins through our library: netcdf-c 4.10.1's own plugins (the
# netCDF4 wheel's plugins directory: lib__nch5*.so filters, codecs from
# lib__nczhdf5filters.so / lib__nczstdfilters.so, which call back into the
# library) are loaded beside the built-in codecs, and the wheel's szip decodes
# what the wheel's netcdf-c wrote; with Debian's hdf5-filter-plugin first on
# the path, its bzip2 filter is the one loaded for id 307 (the filters
# themselves are also run directly by tests/plugins.rs).
# usage: run_thirdparty.sh LIBDIR SCRATCH
set -euo pipefail
libdir=$1 scratch=$2
venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
py="$venv/bin/python"
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ ! -x "$py" ] || ! command -v ncdump >/dev/null; then
    echo "SKIP: needs the venv (scripts/install-deps.sh) and ncdump"
    exit 77
fi
wheel=$("$py" -c 'import netCDF4, os; print(os.path.join(os.path.dirname(netCDF4.__file__), "plugins"))')
[ -f "$wheel/lib__nch5zstd.so" ] || { echo "SKIP: no plugins in the wheel"; exit 77; }
rm -rf "$scratch"
mkdir -p "$scratch"
ds="$scratch/wheel.zarr"
url="file://$ds#mode=nczarr,file"

# The wheel's netcdf-c writes with its own plugins.
HDF5_PLUGIN_PATH="$wheel" "$py" - "$url" <<'PY'
import sys
import numpy as np
import netCDF4
ds = netCDF4.Dataset(sys.argv[1], "w")
ds.createDimension("x", 1000)
data = (np.arange(1000, dtype=np.int32) * 37) % 1001 - 500
for name, kw in [("zstd", dict(compression="zstd", complevel=4)),
                 ("bzip2", dict(compression="bzip2", complevel=9)),
                 ("blosc", dict(compression="blosc_lz4", complevel=5, blosc_shuffle=1)),
                 ("zlib", dict(compression="zlib", complevel=6, shuffle=True)),
                 ("f32", dict(compression="zlib", complevel=1, fletcher32=True)),
                 ("szip", dict(compression="szip", szip_coding="nn", szip_pixels_per_block=8))]:
    v = ds.createVariable(name, "i4", ("x",), chunksizes=(250,), **kw)
    v[:] = data
ds.close()
PY

check() { # check <label> <plugin path> <vars...>
    local label=$1 path=$2
    shift 2
    local vars
    vars=$(IFS=,; echo "$*")
    if ! NCLOGGING=1 HDF5_PLUGIN_PATH="$path" LD_LIBRARY_PATH="$libdir" \
        ncdump -v "$vars" "$url" >"$scratch/$label.cdl" 2>"$scratch/$label.err"; then
        cat "$scratch/$label.cdl" "$scratch/$label.err"
        fail "$label: ncdump"
    fi
    "$py" - "$scratch/$label.cdl" "$@" <<'PY' || fail "$label: values differ"
import re, sys
import numpy as np
text = open(sys.argv[1]).read()
want = (np.arange(1000, dtype=np.int64) * 37) % 1001 - 500
for name in sys.argv[2:]:
    m = re.search(r"^ %s = (.*?);" % name, text, re.S | re.M)
    assert m, "no data for " + name
    got = np.array([int(t) for t in m.group(1).replace("\n", " ").split(",")])
    assert np.array_equal(got, want), name
PY
    echo "ok: $label: $* read right"
}

# With the wheel's plugins on the path, its lib__nch5szip.so and the szip
# codec of lib__nczhdf5filters.so (whose NCZ_modify_parameters calls back
# into our nc_inq_var/nc_inq_type/nc_inq_var_chunking) decode it. The others
# are built in, so the built-in codecs decode them (a plugin filter replaces a
# built-in one only when its library also brings its own codec).
check wheel "$wheel" zstd bzip2 blosc zlib f32 szip
for f in lib__nch5szip.so lib__nch5zstd.so lib__nch5bzip2.so lib__nch5blosc.so lib__nch5deflate.so lib__nch5shuffle.so lib__nch5fletcher32.so; do
    grep -q "$wheel/$f: HDF5 filter" "$scratch/wheel.err" || { cat "$scratch/wheel.err"; fail "$f not loaded"; }
done
grep -q "default codec \"zstd\"" "$scratch/wheel.err" || fail "zstd codec not from lib__nczstdfilters"
grep -q "filter 4 uses default codec \"szip\"" "$scratch/wheel.err" || fail "szip codec not from lib__nczhdf5filters"
# Without the wheel's plugins, szip is the built-in codec's (libaec) when the
# library was built with it (scripts/install-deps.sh installs libaec-dev), and
# not available otherwise.
if ldd "$libdir/libnetcdf.so" | grep -q 'libsz\.so'; then
    check builtin /nonexistent szip
elif HDF5_PLUGIN_PATH=/nonexistent LD_LIBRARY_PATH="$libdir" ncdump -v szip "$url" >/dev/null 2>&1; then
    fail "szip read without a plugin nor a built-in szip"
fi

deb=/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins
if [ -f "$deb/libh5bz2.so" ]; then
    check debian "$deb:$wheel" bzip2
    grep -q "$deb/libh5bz2.so: HDF5 filter 307" "$scratch/debian.err" || fail "Debian's bzip2 not loaded"
    grep -q "$wheel/lib__nch5bzip2.so: filter 307 already loaded" "$scratch/debian.err" \
        || fail "the wheel's bzip2 was used instead of Debian's"
else
    echo "note: hdf5-filter-plugin not installed; Debian's plugins not tested"
fi
