#!/usr/bin/env bash
# Debian's unchanged ncgen and ncdump write and read datasets in zip archives
# through the libnetcdf found in LIBDIR:
#   1. ncgen writes a CDL file into file://<dir>/x.zip#mode=nczarr,zip and into
#      a directory store; ncdump prints both identically (and the plain path
#      form x.zarr.zip too);
#   2. the archive has netcdf-c's layout (the folder `x/` first);
#   3. ncgen over an existing archive replaces it; ncdump reads the new one;
#   4. the same with pure Zarr (mode=zarr,zip).
#
# Usage: scripts/run-zip-tools.sh LIBDIR
# ncgen (4.9.0) is used when it loads on LIBDIR; otherwise ncgen3 (classic
# CDL only) stands in for it with a note. Exit 77 when ncdump is not installed
# outside CI (CTest reports that as skipped).
set -euo pipefail
[ $# -eq 1 ] || { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
libdir="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v ncdump >/dev/null; then
    [ -n "${CI:-}" ] && { echo "zip-tools: FAIL: ncdump not installed" >&2; exit 1; }
    echo "zip-tools: SKIPPED: ncdump not installed"
    exit 77
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/nczarr-ziptools.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH="$libdir"
export HOME="$work" NCRCENV_IGNORE=1
fail=0
pass() { echo "PASS $*"; }
bad() { echo "FAIL $*"; fail=1; }

probe_err="$(ncgen -k nc4 -o "file://$work/probe.zarr#mode=nczarr,file" \
    "$root/testdata/fixtures/nczarr_zip/source.cdl" 2>&1 >/dev/null)" && probe=ok || probe=failed
if [ "$probe" = ok ]; then
    gen=(ncgen -k nc4)
    cdl="$root/testdata/fixtures/nczarr_zip/source.cdl"
elif ! grep -qE 'symbol lookup error|error while loading shared libraries' <<<"$probe_err"; then
    echo "FAIL ncgen does not write a directory dataset: $probe_err"
    exit 1
else
    echo "zip-tools: note: ncgen does not load on this library yet; using ncgen3 (classic CDL)"
    gen=(ncgen3 -k netCDF-4)
    cdl="$work/classic.cdl"
    cat >"$cdl" <<'EOF'
netcdf classic {
dimensions:
  x = 5 ;
  y = 3 ;
variables:
  int v(x, y) ;
    v:units = "m" ;
  double d(x) ;
  char c(y) ;
// global attributes:
  :title = "zip storage" ;
data:
  v = 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14 ;
  d = 0.5, 1.5, 2.5, 3.5, 4.5 ;
  c = "abc" ;
}
EOF
fi

for mode in nczarr zarr; do
    zip="$work/$mode/x.zip"
    dir="$work/$mode/x.zarr"
    mkdir -p "$work/$mode"
    if "${gen[@]}" -o "file://$zip#mode=$mode,zip" "$cdl" && "${gen[@]}" -o "file://$dir#mode=$mode,file" "$cdl"; then
        pass "$mode: ncgen writes a zip archive and a directory"
    else
        bad "$mode: ncgen failed"
        continue
    fi
    ncdump "file://$dir#mode=$mode,file" >"$work/$mode/dir.cdl" 2>&1 || true
    if ncdump "file://$zip#mode=$mode,zip" >"$work/$mode/zip.cdl" 2>&1 &&
        cmp -s "$work/$mode/dir.cdl" "$work/$mode/zip.cdl"; then
        pass "$mode: ncdump prints the zip archive as the directory"
    else
        bad "$mode: ncdump of the zip differs from the directory's:"
        diff "$work/$mode/dir.cdl" "$work/$mode/zip.cdl" | head -20
    fi
    first="$(python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).namelist()[0])' "$zip")"
    if [ "$first" = "x/" ]; then
        pass "$mode: netcdf-c's layout (folder x/ first)"
    else
        bad "$mode: first entry is '$first', not 'x/'"
    fi
    # The plain-path form (a regular file named *.zarr.zip).
    cp "$zip" "$work/$mode/p.zarr.zip"
    if ncdump -h "$work/$mode/p.zarr.zip" >/dev/null 2>&1; then
        pass "$mode: ncdump opens the plain path p.zarr.zip"
    else
        bad "$mode: ncdump cannot open the plain path p.zarr.zip"
    fi
    # ncgen over an existing archive replaces it.
    sed 's/zip storage/replaced/' "$cdl" >"$work/$mode/again.cdl"
    # (The header is captured first: grep -q ending a pipe early would kill ncdump.)
    if "${gen[@]}" -o "file://$zip#mode=$mode,zip" "$work/$mode/again.cdl" &&
        header="$(ncdump -h "file://$zip#mode=$mode,zip")" && grep -q '"replaced"' <<<"$header"; then
        pass "$mode: ncgen replaces an existing archive"
    else
        bad "$mode: ncgen did not replace the existing archive"
    fi
done

if [ "$fail" = 0 ]; then echo "zip-tools: all passed"; else echo "zip-tools: FAILED"; fi
exit "$fail"
