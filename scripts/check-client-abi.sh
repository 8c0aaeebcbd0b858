#!/usr/bin/env bash
# Every Debian client of libnetcdf.so.19 loads on this library with no
# undefined symbol, and the export list covers the public API.
#
#   1. For ncdump, ncgen, ncgen3, nccopy (netcdf-bin), libnetcdff.so.7
#      (libnetcdff7) and python3-netcdf4's _netCDF4*.so: `ldd -r` with our
#      library directory first on LD_LIBRARY_PATH must resolve libnetcdf.so.19
#      to ours and report no undefined symbol (they are linked BIND_NOW: one
#      missing name stops the program before main).
#   2. Our dynamic symbol table (nm -D --defined-only) must contain every name
#      of testdata/abi/client-*.txt (what each client imports),
#      libnetcdf19-public.txt (public functions of Debian's libnetcdf.so.19)
#      and netcdf-c-4.10.1-public.txt (those of netcdf-c 4.10.1); ncerr and
#      ncopts must be data objects.
#   3. Nothing else leaks: every exported name is in one of those lists, a
#      name netcdf-c exports, or one of the few allowed below.
#   4. Every tool starts with LD_BIND_NOW=1 (all imports bound at start-up,
#      as BIND_NOW binaries are) and does its job on a small dataset:
#      Debian's ncgen, ncgen3, ncdump (-L too), nccopy and python3-netcdf4,
#      and any other ncdump named in NCZ_EXTRA_NCDUMP (e.g. 4.10.x builds).
#      The client-<version>-<tool>.txt lists cover the tools of netcdf-c
#      4.9.3 to 4.10.1, whose binaries Debian does not ship.
#
# Usage: scripts/check-client-abi.sh [LIBDIR]   (default build/lib, else target/release)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
libdir="${1:-}"
if [ -z "$libdir" ]; then
    if [ -e build/lib/libnetcdf.so.19 ]; then libdir=build/lib; else libdir=target/release; fi
fi
libdir="$(cd "$libdir" && pwd)"
lib="$libdir/libnetcdf.so.19"
[ -e "$lib" ] || { echo "check-client-abi: $lib missing (build first)" >&2; exit 2; }
data=testdata/abi
fail=0
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" >"$tmp/nm"
awk '{print $3}' "$tmp/nm" | sort -u >"$tmp/ours"

# --- 1. ldd -r on every client ------------------------------------------------
clients=(
    /usr/bin/ncdump /usr/bin/ncgen /usr/bin/ncgen3 /usr/bin/nccopy
    /usr/lib/x86_64-linux-gnu/libnetcdff.so.7
)
for py in /usr/lib/python3/dist-packages/netCDF4/_netCDF4*.so; do
    [ -e "$py" ] && clients+=("$py")
done
for c in "${clients[@]}"; do
    if [ ! -e "$c" ]; then
        echo "check-client-abi: FAIL: client $c not installed (scripts/install-deps.sh)"
        fail=1
        continue
    fi
    out="$(LD_LIBRARY_PATH="$libdir" ldd -r "$c" 2>&1 || true)"
    if ! grep -q "libnetcdf.so.19 => $libdir/libnetcdf.so.19" <<<"$out"; then
        echo "check-client-abi: FAIL: $c does not resolve libnetcdf.so.19 to $libdir"
        fail=1
    fi
    # A Python extension's Py* names come from the interpreter at import.
    undef="$(grep -o 'undefined symbol: [^ ,]*' <<<"$out" | awk '{print $3}' | grep -Ev '^_?_?Py' | sort -u || true)"
    bad="$(printf '%s\n' "$undef" | sed '/^$/d')"
    if [ -n "$bad" ]; then
        echo "check-client-abi: FAIL: $(basename "$c"): undefined: $(echo $bad)"
        fail=1
    else
        echo "check-client-abi: $(basename "$c"): ldd -r clean"
    fi
done

# --- 2. the reference lists ----------------------------------------------------
for list in "$data"/client-*.txt "$data"/libnetcdf19-public.txt "$data"/netcdf-c-4.10.1-public.txt; do
    missing="$(comm -23 <(sort -u "$list") "$tmp/ours")"
    if [ -n "$missing" ]; then
        echo "check-client-abi: FAIL: $(basename "$list"): not exported: $(echo $missing)"
        fail=1
    else
        echo "check-client-abi: $(basename "$list"): all $(sort -u "$list" | wc -l) names exported"
    fi
done
for d in ncerr ncopts; do
    if ! grep -qE " [BDbd] $d\$" "$tmp/nm"; then
        echo "check-client-abi: FAIL: $d is not exported as a data object"
        fail=1
    fi
done

# --- 3. nothing internal leaks -------------------------------------------------
# Beyond the lists: the 4.10 names of renamed helpers, netcdf-c helpers that
# are exported without a public declaration (records, dispatch-free _ints
# variants, nclist/ncuri/cdtime/utf8 helpers the tools use), and the
# declared-but-never-defined ncaux_copy_data pair of 4.10.1's netcdf_aux.h.
cat "$data"/*.txt | sort -u >"$tmp/known"
nm -D --defined-only /usr/lib/x86_64-linux-gnu/libnetcdf.so.19 2>/dev/null | awk '{print $3}' >>"$tmp/known" || true
# netcdf-c 4.10.1's own exports (the netCDF4 wheel's libnetcdf): without
# them, names 4.10.1 exports would be reported as unknown.
if wheel="$(bash scripts/ref-libnetcdf.sh)"; then
    nm -D --defined-only "$wheel" | awk '{print $3}' >>"$tmp/known"
else
    echo "check-client-abi: FAIL: the reference netcdf-c 4.10.1 was not found"
    fail=1
fi
# H5get_libversion: python3-netcdf4 reaches it through libnetcdf (see README).
# nc_*_var_zarr_shards, nc_def_var_aggregation: this library's own extensions (include/netcdf_zarr.h).
printf '%s\n' ncaux_copy_data ncaux_copy_data_all H5get_libversion \
    nc_def_var_zarr_shards nc_inq_var_zarr_shards nc_def_var_aggregation >>"$tmp/known"
sort -u -o "$tmp/known" "$tmp/known"
extra="$(comm -23 "$tmp/ours" "$tmp/known")"
if [ -n "$extra" ]; then
    echo "check-client-abi: FAIL: exported but unknown to netcdf-c: $(echo $extra)"
    fail=1
else
    echo "check-client-abi: every one of our $(wc -l <"$tmp/ours") exports is a netcdf-c name"
fi

# --- 4. start every tool with every symbol bound at once ----------------------
bound() { LD_BIND_NOW=1 LD_LIBRARY_PATH="$libdir" "$@"; }
ds="$tmp/ds"
mkdir -p "$ds"
printf 'netcdf t {\ndimensions:\n\td = 2 ;\nvariables:\n\tint v(d) ;\n\t\tv:units = "m" ;\ndata:\n v = 1, 2 ;\n}\n' >"$ds/t.cdl"
z="file://$ds/a.zarr#mode=nczarr,file"
bind_check() { # what command...
    local what=$1 out
    shift
    if out="$(bound "$@" 2>&1)"; then
        echo "check-client-abi: LD_BIND_NOW=1 $what: ok"
    else
        echo "check-client-abi: FAIL: LD_BIND_NOW=1 $what: $(head -c 300 <<<"$out")"
        fail=1
    fi
}
bind_check "ncgen -b" /usr/bin/ncgen -b -o "$z" "$ds/t.cdl"
bind_check "ncgen3 -b" /usr/bin/ncgen3 -b -o "file://$ds/b.zarr#mode=nczarr,file" "$ds/t.cdl"
bind_check "nccopy" /usr/bin/nccopy "$z" "file://$ds/c.zarr#mode=nczarr,file"
for nd in /usr/bin/ncdump ${NCZ_EXTRA_NCDUMP:-}; do
    bind_check "$nd -L 1 -h" "$nd" -L 1 -h "$z"
    # Its usage text names the library it runs on: ours.
    if ! grep -q 'library version .*nczarr-rs' <<<"$(bound "$nd" 2>&1)"; then
        echo "check-client-abi: FAIL: $nd does not run on $libdir"
        fail=1
    fi
done
if [ -d /usr/lib/python3/dist-packages/netCDF4 ]; then
    bind_check "python3 -c 'import netCDF4'" /usr/bin/python3 -c 'import netCDF4'
fi

exit $fail
