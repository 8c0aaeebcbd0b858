#!/bin/sh
# Regenerate testdata/convert/netcdf-c-4.10.1.txt: build ctests/test_convert_ref.c
# against a real netcdf-c 4.10.1 and run it on a fresh NCZarr dataset.
#
#   LIBNETCDF  the reference libnetcdf shared object (default: the one shipped
#              in the netCDF4 Python wheel of the venv, scripts/ref-libnetcdf.sh)
#   NC_INCLUDE directory holding netcdf.h (default /usr/include; any 4.9+
#              header works, the prototypes used here have not changed)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
lib=${LIBNETCDF:-$(bash "$here/scripts/ref-libnetcdf.sh")}
inc=${NC_INCLUDE:-/usr/include}
out=${1:-$here/testdata/convert/netcdf-c-4.10.1.txt}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc -std=c99 -O2 -Wall -Wextra -Werror -I"$inc" \
    -o "$work/test_convert_ref" "$here/ctests/test_convert_ref.c" \
    "$lib" -Wl,-rpath,"$(dirname "$lib")" -lm
"$work/test_convert_ref" "file://$work/ref.zarr#mode=nczarr,file" > "$work/out.txt"
grep -q '^# netCDF type conversion reference, library 4.10.1' "$work/out.txt" || {
    echo "gen-convert-ref: $lib is not netcdf-c 4.10.1:" >&2
    head -1 "$work/out.txt" >&2
    exit 1
}
mv "$work/out.txt" "$out"
echo "wrote $out ($(wc -l < "$out") lines)"
