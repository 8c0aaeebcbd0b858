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

for h in netcdf.h netcdf_filter.h netcdf_aux.h netcdf_mem.h netcdf_meta.h netcdf_zarr.h; do
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
expect --has-s3 yes
expect --has-zstd yes
# Parallel I/O on Zarr with the program's MPI; none through HDF5.
expect --has-parallel yes
expect --has-parallel4 no
expect --has-stdfilters "deflate bz2 zstd blosc"
# The formats handed to the system libnetcdf: nc-config answers what that
# library has. Debian's libnetcdf.so.19 (4.9.0) with its own nc-config and
# libnetcdf.settings (libnetcdf-dev) is the default one here.
sysdir=/usr/lib/x86_64-linux-gnu
syslib=$sysdir/libnetcdf.so.19
if [ -f "$syslib" ] && [ -x /usr/bin/nc-config ] && [ -f "$sysdir/libnetcdf.settings" ]; then
    # expect_sys LABEL ENV... -- FLAG EXPECTED
    expect_sys() {
        local label=$1 got
        shift
        local envs=()
        while [ "$1" != -- ]; do envs+=("$1"); shift; done
        got="$(env "${envs[@]}" "$ncc" "$2" 2>&1 || true)"
        if [ "$got" = "$3" ]; then
            echo "ok   nc-config $2 = $3 ($label)"
        else
            echo "FAIL nc-config $2: got '$got', expected '$3' ($label)"
            fail=1
        fi
    }
    flags=(--has-hdf5 --has-hdf4 --has-cdf5 --has-dap --has-dap2 --has-dap4)
    for f in "${flags[@]}"; do
        want="$(/usr/bin/nc-config "$f")"
        expect_sys "the default system library, as Debian's nc-config says" -u NCZARR_SYSTEM_NETCDF -- "$f" "$want"
        expect_sys "NCZARR_SYSTEM_NETCDF names it" NCZARR_SYSTEM_NETCDF="$syslib" -- "$f" "$want"
        expect_sys "NCZARR_SYSTEM_NETCDF=none: no delegation" NCZARR_SYSTEM_NETCDF=none -- "$f" no
        expect_sys "NCZARR_SYSTEM_NETCDF names this library: no delegation" \
            NCZARR_SYSTEM_NETCDF="$libdir/libnetcdf.so.19" -- "$f" no
    done
    # A copy with no settings file and no nc-config beside it: its symbols.
    mkdir -p "$work/sys/lib"
    cp "$syslib" "$work/sys/lib/libnetcdf.so.19"
    for f in "${flags[@]}"; do
        expect_sys "a copy of Debian's library alone, from its symbols" \
            NCZARR_SYSTEM_NETCDF="$work/sys/lib/libnetcdf.so.19" -- "$f" "$(/usr/bin/nc-config "$f")"
    done
    # Its settings file is read: one that says no, of the library's version.
    sed 's/^\(HDF5 Support\|CDF5 Support\|DAP2 Support\):.*/\1: no/' "$sysdir/libnetcdf.settings" \
        >"$work/sys/lib/libnetcdf.settings"
    for f in --has-hdf5 --has-cdf5 --has-dap2; do
        expect_sys "a libnetcdf.settings beside it that says no" \
            NCZARR_SYSTEM_NETCDF="$work/sys/lib/libnetcdf.so.19" -- "$f" no
    done
    expect_sys "DAP4 from the same settings file" \
        NCZARR_SYSTEM_NETCDF="$work/sys/lib/libnetcdf.so.19" -- --has-dap4 "$(/usr/bin/nc-config --has-dap4)"
    # A settings file of another version is not this library's: ignored.
    sed -i 's/^NetCDF Version:.*/NetCDF Version:\t4.1.3/' "$work/sys/lib/libnetcdf.settings"
    expect_sys "a libnetcdf.settings of another version is ignored" \
        NCZARR_SYSTEM_NETCDF="$work/sys/lib/libnetcdf.so.19" -- --has-hdf5 "$(/usr/bin/nc-config --has-hdf5)"
    check "nc-config --all names the system library it asked" \
        sh -c "'$ncc' --all | grep -F '(delegated formats: from $syslib'"
else
    echo "FAIL Debian's $syslib, /usr/bin/nc-config and libnetcdf.settings (libnetcdf19, libnetcdf-dev) are needed"
    fail=1
fi
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
