#!/usr/bin/env bash
# Install the library to a scratch prefix as a user would (`cmake --install`)
# and check what netCDF users rely on: headers, libnetcdf.so under its three
# names, netcdf.pc, nc-config's answers, the CMake package netCDF; then build
# and run a find_package(netCDF) project and a pkg-config Makefile project.
# Usage: scripts/test-install.sh [BUILD_DIR]   (default build/, already built)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
fail=0
check() { # description command...
    local what=$1
    shift
    if "$@" >/dev/null 2>&1; then
        echo "ok   $what"
    else
        echo "FAIL $what"
        fail=1
    fi
}

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir="$prefix/lib"
[ -d "$libdir" ] || libdir="$(dirname "$(find "$prefix" -name 'libnetcdf.so.22' | head -n1)")"

for h in netcdf.h netcdf_filter.h netcdf_aux.h netcdf_mem.h netcdf_meta.h; do
    check "include/$h installed" test -f "$prefix/include/$h"
done
for n in libnetcdf.so libnetcdf.so.19 libnetcdf.so.22; do
    check "$n installed" test -e "$libdir/$n"
done
check "SONAME is libnetcdf.so.22" sh -c "objdump -p '$libdir/libnetcdf.so.22' | grep -q 'SONAME *libnetcdf.so.22'"
check "netcdf.pc installed" test -f "$libdir/pkgconfig/netcdf.pc"
check "netCDFConfig.cmake installed" sh -c "find '$prefix' -name netCDFConfig.cmake | grep -q ."

ncc="$prefix/bin/nc-config"
check "nc-config installed" test -x "$ncc"
expect() { # flag expected
    local got
    got="$("$ncc" "$1" 2>&1 || true)"
    if [ "$got" = "$2" ]; then
        echo "ok   nc-config $1 = $2"
    else
        echo "FAIL nc-config $1: got '$got', expected '$2'"
        fail=1
    fi
}
expect --version "netCDF 4.10.1"
expect --prefix "$prefix"
expect --cflags "-I$prefix/include"
expect --has-nc4 yes
expect --has-nczarr yes
expect --has-nc2 yes
expect --has-hdf5 no
expect --has-s3 yes
expect --has-zstd yes
expect --has-stdfilters "deflate bz2 zstd blosc"
check "nc-config --libs names -lnetcdf" sh -c "'$ncc' --libs | grep -q -- '-lnetcdf'"
check "nc-config --has-s3 answers yes or no" sh -c "'$ncc' --has-s3 | grep -Eqx 'yes|no'"
check "nc-config --plugindir answers a path" sh -c "'$ncc' --plugindir | grep -q /"
check "nc-config --all" sh -c "'$ncc' --all | grep -q 'has-nczarr'"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
expect_pc() {
    local got
    got="$(pkg-config "$@" netcdf 2>&1 || true)"
    echo "$got"
}
check "pkg-config --modversion netcdf = 4.10.1" test "$(expect_pc --modversion)" = "4.10.1"
check "pkg-config --libs netcdf" sh -c "pkg-config --libs netcdf | grep -q -- '-L$libdir'"

# A find_package(netCDF) project.
if cmake -S "$root/tests/install/cmake" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cm.log" 2>&1 &&
    cmake --build "$work/cm" >>"$work/cm.log" 2>&1; then
    mkdir -p "$work/run1"
    if out="$(LD_LIBRARY_PATH="$libdir" "$work/cm/prog" "$work/run1" 2>&1)" && grep -q nczarr <<<"$out" &&
        grep -qx ok <<<"$out"; then
        echo "ok   find_package(netCDF) project builds and runs on the installed library"
    else
        echo "FAIL find_package(netCDF) project run: $out"
        fail=1
    fi
else
    echo "FAIL find_package(netCDF) project build"
    cat "$work/cm.log"
    fail=1
fi

# A pkg-config Makefile project.
cp -r "$root/tests/install/make" "$work/mk"
cp "$root/tests/install/prog.c" "$work/prog.c"
if make -s -C "$work/mk" >"$work/mk.log" 2>&1; then
    mkdir -p "$work/run2"
    if out="$(LD_LIBRARY_PATH="$libdir" "$work/mk/prog" "$work/run2" 2>&1)" && grep -q nczarr <<<"$out" &&
        grep -qx ok <<<"$out"; then
        echo "ok   pkg-config Makefile project builds and runs on the installed library"
    else
        echo "FAIL pkg-config Makefile project run: $out"
        fail=1
    fi
else
    echo "FAIL pkg-config Makefile project build"
    cat "$work/mk.log"
    fail=1
fi

if [ "$fail" -ne 0 ]; then
    echo "install: FAILED"
    exit 1
fi
echo "install: all checks passed"
