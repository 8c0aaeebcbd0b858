#!/usr/bin/env bash
# Differential test of the cdtime helpers (cdParseRelunits, cdRel2Iso,
# cdChar2Comp, Cdh2e, Cde2h, cdSetErrOpts) and nc_utf8_to_utf16 against
# netcdf-c 4.9.0 (Debian's libnetcdf.so.19).
#
# 1. ctests/test_cdtime.c is built twice, linked to our
#    target/release/libnetcdf.so and to the reference library; the two
#    outputs (stdout and stderr merged) must be identical.
# 2. End to end with the unchanged Debian tools: ncgen and `ncdump -t` run
#    with the reference library, and again with ctests/cdtime_shim.c
#    preloaded, which routes exactly the functions above to our library
#    (the rest of libnetcdf stays the reference one). Outputs must match.
#
# Needs gcc, and the Debian packages libnetcdf19 and netcdf-bin
# (apt-get install -y libnetcdf19 netcdf-bin).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ref=${NCZ_REFERENCE_LIB:-/usr/lib/x86_64-linux-gnu/libnetcdf.so.19}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -e "$ref" ]; then
    echo "reference library $ref missing: apt-get install -y libnetcdf19" >&2
    exit 2
fi

cd "$root"
if ! log=$(bash scripts/build.sh 2>&1); then
    echo "$log" >&2
    exit 1
fi
ours="$root/target/release/libnetcdf.so"

cflags=(-std=c99 -O2 -Wall -Wextra -Werror)
gcc "${cflags[@]}" ctests/test_cdtime.c -o "$work/t_ours" \
    -L"$root/target/release" -l:libnetcdf.so -Wl,-rpath,"$root/target/release"
gcc "${cflags[@]}" ctests/test_cdtime.c -o "$work/t_ref" "$ref"

# Make sure each binary really runs on the library it is meant to test.
# (ldd's output is captured first: `ldd | grep -q` under pipefail fails
# whenever grep exits before ldd has written its last line.)
deps_ours=$(ldd "$work/t_ours")
deps_ref=$(ldd "$work/t_ref")
grep -q "$root/target/release/libnetcdf.so" <<<"$deps_ours" \
    || { echo "t_ours does not load $ours" >&2; echo "$deps_ours" >&2; exit 1; }
{ grep -q "libnetcdf.so.19 => /" <<<"$deps_ref" && ! grep -q "$root" <<<"$deps_ref"; } \
    || { echo "t_ref does not load the reference library" >&2; echo "$deps_ref" >&2; exit 1; }

"$work/t_ours" >"$work/ours.txt" 2>&1
"$work/t_ref" >"$work/ref.txt" 2>&1
if ! diff -u "$work/ref.txt" "$work/ours.txt" >"$work/diff.txt"; then
    echo "FAIL: test_cdtime output differs from netcdf-c 4.9.0 (- reference, + ours):"
    head -n 80 "$work/diff.txt"
    echo "($(grep -c '^[-+][^-+]' "$work/diff.txt") differing lines)"
    exit 1
fi
echo "ok: test_cdtime: $(wc -l <"$work/ref.txt") lines identical" \
    "($(grep -c '^iso ' "$work/ref.txt") cdRel2Iso, $(grep -c '^parse ' "$work/ref.txt") cdParseRelunits," \
    "$(grep -c '^char2comp ' "$work/ref.txt") cdChar2Comp, $(grep -c '^[he]2[eh] ' "$work/ref.txt") Cdh2e/Cde2h," \
    "$(grep -c '^utf16 ' "$work/ref.txt") nc_utf8_to_utf16 cases; $(grep -c 'CDMS error' "$work/ref.txt") error messages)"

# ---- end to end with Debian's ncgen and ncdump ------------------------------
if ! command -v ncdump >/dev/null || ! command -v ncgen >/dev/null; then
    echo "FAIL: the end-to-end part needs ncgen and ncdump (netcdf-bin: scripts/install-deps.sh)" >&2
    exit 2
fi
gcc -std=c99 -O2 -Wall -Wextra -Werror -shared -fPIC ctests/cdtime_shim.c -o "$work/shim.so" -ldl
export NCZ_SHIM_TARGET="$ours" NCZ_SHIM_TRACE="$work/shim-calls"
shim() { LD_PRELOAD="$work/shim.so" "$@"; }

cp ctests/cdtime_e2e.cdl "$work/cal.cdl"
cd "$work"
unset LD_LIBRARY_PATH
status=0
same() { # label, reference output file, our output file
    if cmp -s "$2" "$3"; then
        echo "ok: $1 ($(wc -l <"$2") lines)"
    else
        echo "FAIL: $1 differs (- reference, + ours):"
        diff -u "$2" "$3" | head -n 60
        status=1
    fi
}

# ncgen: time("...") in CDL data goes through cdChar2Comp and Cdh2e.
ncgen -b -k nc3 -o ref.nc cal.cdl
rm -f shim-calls
shim ncgen -b -k nc3 -o ours.nc cal.cdl
grep -q cdChar2Comp shim-calls || { echo "FAIL: shim not used by ncgen" >&2; exit 1; }
# (the first line names the file)
ncdump ref.nc | tail -n +2 >gen_ref.cdl
ncdump ours.nc | tail -n +2 >gen_ours.cdl
same "ncgen time() values" gen_ref.cdl gen_ours.cdl

# ncgen -lj: Java output escapes strings through nc_utf8_to_utf16.
ncgen -lj cal.cdl >java_ref.txt 2>&1 || true
rm -f shim-calls
shim ncgen -lj cal.cdl >java_ours.txt 2>&1 || true
grep -q nc_utf8_to_utf16 shim-calls || { echo "FAIL: shim not used by ncgen -lj" >&2; exit 1; }
same "ncgen -lj (UTF-16 escapes)" java_ref.txt java_ours.txt

# ncdump -t / -t -i: cdParseRelunits, cdRel2Iso, cdSetErrOpts.
for opts in "-t" "-t -i"; do
    # shellcheck disable=SC2086
    ncdump $opts ref.nc >dump_ref.txt 2>&1
    rm -f shim-calls
    # shellcheck disable=SC2086
    shim ncdump $opts ref.nc >dump_ours.txt 2>&1
    grep -q cdRel2Iso shim-calls || { echo "FAIL: shim not used by ncdump" >&2; exit 1; }
    same "ncdump $opts" dump_ref.txt dump_ours.txt
done
exit $status
