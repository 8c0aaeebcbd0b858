#!/usr/bin/env bash
# Debian's unchanged netCDF tools on our library (first on LD_LIBRARY_PATH):
#   ncgen builds NCZarr datasets from CDL (groups, every atomic type, attributes,
#   strings, unlimited dimensions, _ChunkSizes, _FillValue) and ncdump prints
#   them back equal to what Debian's own libnetcdf prints for the same CDL;
#   nccopy copies NCZarr -> NCZarr, NCZarr -> netCDF-4 and classic .nc and
#   back (the .nc side through delegation to the system libnetcdf); a
#   netCDF-4 CF aggregation master prints its aggregated data, prints as
#   the system ncdump does with NCZARR_AGGREGATION=raw, and nccopy to NCZarr
#   materialises it.
# Usage: scripts/test-tools.sh [LIB_DIR]   (default build/lib)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lib="${1:-$root/build/lib}"
cdl="$root/tests/tools"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
ours() { LD_LIBRARY_PATH="$lib" "$@"; }
url() { echo "file://$work/$1#mode=nczarr,file"; }
body() { sed 1d "$1"; } # a dump without its first line (the dataset name)
pass=0
fail=0
same() { # description expected actual
    if diff -u <(body "$2") <(body "$3") >"$work/diff.txt"; then
        echo "ok   $1"
        pass=$((pass + 1))
    else
        echo "FAIL $1"
        head -n 40 "$work/diff.txt"
        fail=$((fail + 1))
    fi
}
has() { # description file pattern
    if grep -q -- "$3" "$2"; then
        echo "ok   $1"
        pass=$((pass + 1))
    else
        echo "FAIL $1 ('$3' not in $2)"
        fail=$((fail + 1))
    fi
}

# The reference: Debian's own library on netCDF-4 and classic files.
ncgen -k nc4 -o ref4.nc "$cdl/all_types.cdl"
ncdump ref4.nc >ref4.cdl
ncgen -k classic -o ref3.nc "$cdl/classic.cdl"
ncdump ref3.nc >ref3.cdl

# ncgen -> NCZarr, ncdump back.
ours ncgen -k nc4 -o "$(url z.zarr)" "$cdl/all_types.cdl"
ours ncdump "$(url z.zarr)" >z.cdl
same "ncgen CDL -> NCZarr, ncdump equals the netCDF-4 dump" ref4.cdl z.cdl
ours ncdump -s "$(url z.zarr)" >zs.cdl
has "ncdump -s shows _ChunkSizes of b" zs.cdl 'b:_ChunkSizes = 1, 4 ;'
has "ncdump -s shows _ChunkSizes of i" zs.cdl 'i:_ChunkSizes = 2, 2 ;'
has "ncdump -s shows the NCZarr format" zs.cdl '_Format = "netCDF-4"'

# nccopy NCZarr -> NCZarr.
ours nccopy "$(url z.zarr)" "$(url z2.zarr)"
ours ncdump "$(url z2.zarr)" >z2.cdl
same "nccopy NCZarr -> NCZarr" ref4.cdl z2.cdl

# nccopy NCZarr -> netCDF-4 .nc (delegated create) and back.
ours nccopy -k nc4 "$(url z.zarr)" back4.nc
ncdump back4.nc >back4.cdl
same "nccopy NCZarr -> netCDF-4 .nc (read by Debian's own ncdump)" ref4.cdl back4.cdl
ours nccopy back4.nc "$(url z3.zarr)"
ours ncdump "$(url z3.zarr)" >z3.cdl
same "nccopy netCDF-4 .nc -> NCZarr" ref4.cdl z3.cdl
ours ncdump ref4.nc >ref4-ours.cdl
same "ncdump of a netCDF-4 file through our library" ref4.cdl ref4-ours.cdl

# Classic model: .nc -> NCZarr -> classic .nc.
ours nccopy ref3.nc "$(url c.zarr)"
ours ncdump "$(url c.zarr)" >c.cdl
same "nccopy classic .nc -> NCZarr" ref3.cdl c.cdl
ours nccopy -k classic "$(url c.zarr)" back3.nc
ncdump back3.nc >back3.cdl
same "nccopy NCZarr -> classic .nc" ref3.cdl back3.cdl
if [ "$(ncdump -k back3.nc)" = classic ]; then
    echo "ok   the copy is a classic file"
    pass=$((pass + 1))
else
    echo "FAIL the copy is $(ncdump -k back3.nc), not classic"
    fail=$((fail + 1))
fi

# CF aggregation in a netCDF-4 master (read by the system library, the
# aggregation layer above it): fragments in a netCDF-4 file and an NCZarr
# store, written by the tools; agg_expanded.cdl is what the master stands for.
ncgen -k nc4 -o agg_frag0.nc "$cdl/agg_frag0.cdl"
ours ncgen -k nc4 -o "$(url agg_frag1.zarr)" "$cdl/agg_frag1.cdl"
ncgen -k nc4 -o agg_master.nc "$cdl/agg_master.cdl"
ours ncdump agg_master.nc >agg.cdl
same "ncdump of a netCDF-4 aggregation master prints the aggregated data" "$cdl/agg_expanded.cdl" agg.cdl
ncdump agg_master.nc >agg-sys.cdl
NCZARR_AGGREGATION=raw ours ncdump agg_master.nc >agg-raw.cdl
if cmp -s agg-sys.cdl agg-raw.cdl; then
    echo "ok   NCZARR_AGGREGATION=raw: ncdump of the master identical to the system ncdump's"
    pass=$((pass + 1))
else
    echo "FAIL NCZARR_AGGREGATION=raw: ncdump of the master differs from the system ncdump's"
    diff agg-sys.cdl agg-raw.cdl | head -n 20
    fail=$((fail + 1))
fi
ours nccopy agg_master.nc "$(url agg_copy.zarr)"
ours ncdump "$(url agg_copy.zarr)" >agg-copy.cdl
same "nccopy of the master to NCZarr materialises the aggregated variable" "$cdl/agg_expanded.cdl" agg-copy.cdl
NCZARR_AGGREGATION=raw ours ncdump "$(url agg_copy.zarr)" >agg-copy-raw.cdl
same "the NCZarr copy holds the data itself (raw view equal)" "$cdl/agg_expanded.cdl" agg-copy-raw.cdl

echo "tools: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
