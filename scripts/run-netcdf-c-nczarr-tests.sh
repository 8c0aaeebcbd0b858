#!/bin/bash
# Run netcdf-c 4.10.1's own NCZarr test suite (nczarr_test/) with this library in
# place of netcdf-c's, on a developer machine. Not part of scripts/test-all.sh:
# it needs netcdf-c's sources, which CI (no network) cannot fetch.
#
# usage: scripts/run-netcdf-c-nczarr-tests.sh NETCDF_C_GIT [WORKDIR]
#   NETCDF_C_GIT  a clone or bare mirror of github.com/Unidata/netcdf-c holding tag v4.10.1
#   WORKDIR       where netcdf-c is unpacked and built (default target/netcdf-c-suite)
#
# Steps: build netcdf-c 4.10.1 (HDF5 off; NCZarr, zip, plugins and filter tests on);
# run nczarr_test with netcdf-c's own library (every test must pass); copy this
# library over the build's libnetcdf.so.22 (every test program, ncdump, ncgen and
# the plugins find it there by RUNPATH) and run nczarr_test again, then the four
# NCZarr tests netcdf-c registers only when HDF5 is on (they do not need it); put
# netcdf-c's library back. Two helpers use netcdf-c internals and always run on
# netcdf-c's library: ncdump/ncpathcvt (every test script calls it) and
# nczarr_test/zmapio (it then shows what this library stored).
#
# Exit status 0 when exactly the expected tests fail: the three that test only
# netcdf-c internals and those docs/differences.md lists as deliberate
# differences (docs/testing.md names each with its reason).
set -euo pipefail

GIT=${1:?usage: $0 NETCDF_C_GIT [WORKDIR]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${2:-$ROOT/target/netcdf-c-suite}
TAG=v4.10.1
SRC=$WORK/src
B=$WORK/build
ORIG=$WORK/netcdf-c-lib

# The tests that cannot pass on any replacement (netcdf-c internals) and the
# deliberate differences.
INTERNAL="run_ut_map run_ut_mapapi run_ut_misc"
DELIBERATE="run_jsonconvention run_strings run_nulls run_filter_errors run_filter_vlen"

mkdir -p "$WORK"
if [ ! -f "$SRC/CMakeLists.txt" ]; then
    rm -rf "$SRC"
    mkdir -p "$SRC"
    # A few blobs that no NCZarr test uses may be missing from a mirror.
    git -C "$GIT" archive "$TAG" -- . \
        ':(exclude)docs/doxygen-awesome-css/docs/img/fancy_scrollbars_webkit.gif' \
        ':(exclude)ncdap_test/expecttds3' ':(exclude)ncdump/cdl/gfs1.cdl' | tar -x -C "$SRC"
fi
if [ ! -f "$ORIG/libnetcdf.so.22" ]; then
    mkdir -p "$B"
    (cd "$B" && cmake "$SRC" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DNETCDF_ENABLE_HDF5=OFF -DNETCDF_ENABLE_NCZARR=ON -DNETCDF_ENABLE_NCZARR_ZIP=ON \
        -DNETCDF_ENABLE_PLUGINS=ON -DNETCDF_ENABLE_FILTER_TESTING=ON -DNETCDF_ENABLE_NCZARR_FILTERS=ON \
        -DNETCDF_ENABLE_DAP=OFF -DNETCDF_ENABLE_BYTERANGE=OFF -DNETCDF_ENABLE_S3=OFF \
        -DNETCDF_ENABLE_TESTS=ON -DNETCDF_ENABLE_EXAMPLES=OFF -DNETCDF_ENABLE_DOXYGEN=OFF >"$WORK/cmake.log")
    for d in liblib ncgen ncdump plugins nczarr_test; do
        make -C "$B/$d" -j"$(nproc)" all >>"$WORK/make.log"
    done
    mkdir -p "$ORIG"
    cp -a "$B/libnetcdf.so.22" "$ORIG/"
fi

# The four tests registered only with HDF5, built by hand against the build's library.
HANDTESTS="test_unlim_vars test_put_vars_two_unlim_dim test_endians"
mkdir -p "$WORK/byhand"
for t in $HANDTESTS; do
    [ -x "$WORK/byhand/$t" ] || cc -o "$WORK/byhand/$t" "$B/nczarr_test/$t.c" \
        -I"$B/include" -I"$SRC/include" -I"$B" -I"$SRC/nczarr_test" \
        -L"$B" -lnetcdf -Wl,-rpath,"$B" -lm
done

# The helpers that need netcdf-c's internals run on netcdf-c's library.
for h in ncdump/ncpathcvt nczarr_test/zmapio; do
    [ -f "$B/$h.real" ] || mv "$B/$h" "$B/$h.real"
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$ORIG" "$B/$h.real" >"$B/$h"
    chmod +x "$B/$h"
done

clean_env=(env -u LD_LIBRARY_PATH -u LD_PRELOAD -u HDF5_PLUGIN_PATH -u NCLOGGING -u NCLOGLEVEL
    -u NCZARR_DEFAULT_FORMAT -u NCZARR_CONSOLIDATED -u NCZARR_SYSTEM_NETCDF)

# 1. netcdf-c's own library.
echo "== nczarr_test on netcdf-c $TAG's own library"
(cd "$B/nczarr_test" && "${clean_env[@]}" ctest >"$WORK/ctest-netcdf-c.log" 2>&1) || true
grep -E "tests passed" "$WORK/ctest-netcdf-c.log"

# 2. This library in its place.
"$ROOT/scripts/build.sh" >/dev/null
OURS=$(readlink -f "$ROOT/target/release/libnetcdf.so")
trap 'cp -f "$ORIG/libnetcdf.so.22" "$B/libnetcdf.so.22"' EXIT
cp -f "$OURS" "$B/libnetcdf.so.22"
echo "== nczarr_test with this library ($OURS)"
(cd "$B/nczarr_test" && "${clean_env[@]}" ctest >"$WORK/ctest-ours.log" 2>&1) || true
grep -E "tests passed" "$WORK/ctest-ours.log"
failed=$(grep -oE 'nczarr_test_(run|test)_[a-z0-9_]+ \(Failed\)' "$WORK/ctest-ours.log" |
    sed -E 's/nczarr_test_//; s/ \(Failed\)//' | sort -u)

echo "== the tests netcdf-c registers only with HDF5"
hand_failed=""
for t in $HANDTESTS; do
    if (cd "$B/nczarr_test" && "${clean_env[@]}" "$WORK/byhand/$t" >"$WORK/$t.log" 2>&1); then
        echo "$t: pass"
    else
        echo "$t: FAIL (see $WORK/$t.log)"
        hand_failed="$hand_failed $t"
    fi
done
if (cd "$B/nczarr_test" && "${clean_env[@]}" bash ./run_mud.sh >"$WORK/run_mud.log" 2>&1); then
    echo "run_mud: pass"
else
    echo "run_mud: FAIL (see $WORK/run_mud.log)"
    hand_failed="$hand_failed run_mud"
fi

status=0
for t in $failed; do
    case " $INTERNAL " in *" $t "*) echo "$t: not applicable (netcdf-c internals)"; continue ;; esac
    case " $DELIBERATE " in *" $t "*) echo "$t: deliberate difference (docs/testing.md)"; continue ;; esac
    echo "$t: UNEXPECTED FAILURE (see $WORK/ctest-ours.log)"
    status=1
done
for t in $INTERNAL $DELIBERATE; do
    if ! grep -qx "$t" <<<"$failed"; then
        echo "$t: passes now; take it off the lists in this script and docs/testing.md"
    fi
done
[ -z "$hand_failed" ] || status=1
exit $status
