#!/usr/bin/env bash
# Debian's unchanged ncgen, ncdump and nccopy (netcdf-bin 4.9.0) on NCZarr
# through this library:
#   1. ncgen -k nc4 builds testdata/tools/alltypes.cdl as an NCZarr dataset;
#      ncdump prints the CDL back line for line (name line aside; the
#      _ChunkSizes line is checked with ncdump -s);
#   2. nccopy copies it to a second NCZarr dataset, whose dump equals the
#      first.
#
# Usage: scripts/run-tools-nczarr.sh [LIBDIR]   (default build/lib, else target/release)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
libdir="${1:-}"
if [ -z "$libdir" ]; then
    if [ -e build/lib/libnetcdf.so.19 ]; then libdir=build/lib; else libdir=target/release; fi
fi
libdir="$(cd "$libdir" && pwd)"
export LD_LIBRARY_PATH="$libdir"
out="$root/target/tools-nczarr"
rm -rf "$out"
mkdir -p "$out"
src=testdata/tools/alltypes.cdl
a="file://$out/alltypes.zarr#mode=nczarr,file"
b="file://$out/copy.zarr#mode=nczarr,file"
fail=0
ncgen -k nc4 -o "$a" "$src"
ncdump "$a" >"$out/alltypes.dump"
if diff <(sed 1d "$src" | grep -v '_ChunkSizes') <(sed 1d "$out/alltypes.dump"); then
    echo "run-tools-nczarr: ncgen -> ncdump reproduces $src"
else
    echo "run-tools-nczarr: FAIL: ncgen -> ncdump differs from $src"
    fail=1
fi
ncdump -s -h "$a" >"$out/alltypes.special"
if grep -q 's:_ChunkSizes = 1, 2 ;' "$out/alltypes.special"; then
    echo "run-tools-nczarr: _ChunkSizes kept"
else
    echo "run-tools-nczarr: FAIL: _ChunkSizes of s not kept"
    fail=1
fi
nccopy "$a" "$b"
ncdump "$b" >"$out/copy.dump"
if diff <(sed 1d "$out/alltypes.dump") <(sed 1d "$out/copy.dump"); then
    echo "run-tools-nczarr: nccopy NCZarr -> NCZarr: equal dumps"
else
    echo "run-tools-nczarr: FAIL: nccopy result differs"
    fail=1
fi
exit $fail
