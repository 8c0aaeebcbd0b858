#!/usr/bin/env bash
# Fortran programs on NCZarr through this library: tests/fortran/f90_nczarr.f90
# (`use netcdf`, groups, several types) and tests/fortran/f77_nczarr.f
# (`include 'netcdf.inc'`, plus the netCDF-2 Fortran API), compiled with
# gfortran against Debian's libnetcdff (which NEEDs libnetcdf.so.19) and run
# with our library directory first on LD_LIBRARY_PATH. Each program checks
# that nf_inq_libvers() names this library, so a fallback to the system
# libnetcdf fails the test.
#
# Usage: scripts/run-fortran-tests.sh [LIBDIR]   (default build/lib, else target/release)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
libdir="${1:-}"
if [ -z "$libdir" ]; then
    if [ -e build/lib/libnetcdf.so.19 ]; then libdir=build/lib; else libdir=target/release; fi
fi
libdir="$(cd "$libdir" && pwd)"
command -v gfortran >/dev/null || { echo "run-fortran-tests: gfortran missing (scripts/install-deps.sh)" >&2; exit 2; }
[ -f /usr/include/netcdf.mod ] || { echo "run-fortran-tests: libnetcdff-dev missing (scripts/install-deps.sh)" >&2; exit 2; }
out="$root/target/fortran-tests"
rm -rf "$out"
mkdir -p "$out/data"
fail=0
for src in tests/fortran/f90_nczarr.f90 tests/fortran/f77_nczarr.f; do
    exe="$out/$(basename "${src%.*}")"
    # -J: keep gfortran's module output out of the source tree.
    gfortran -Wall -Werror -J "$out" -I/usr/include "$src" -o "$exe" -lnetcdff
    if ldd_out="$(LD_LIBRARY_PATH="$libdir" ldd "$exe")" && ! grep -q "libnetcdf.so.19 => $libdir/" <<<"$ldd_out"; then
        echo "run-fortran-tests: FAIL: $(basename "$exe") does not load libnetcdf.so.19 from $libdir"
        fail=1
        continue
    fi
    if LD_LIBRARY_PATH="$libdir" "$exe" "$out/data"; then
        echo "run-fortran-tests: $(basename "$exe"): ok"
    else
        echo "run-fortran-tests: $(basename "$exe"): FAILED"
        fail=1
    fi
done
exit $fail
