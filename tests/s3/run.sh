#!/usr/bin/env bash
# Datasets in S3 through this library, with Debian's unchanged tools:
#  1. every fixture of testdata/fixtures that needs no codec (written by
#     netCDF4-python / netcdf-c 4.10.1, zarr-python, xarray) is uploaded as it
#     is, and `ncdump` and `ncdump -s` print the same through S3 as from the
#     directory;
#  2. the same for a dataset netCDF4-python (the venv's wheel) writes now;
#  3. anonymous reads of the public bucket (profile `none`, no keys at all);
#  4. Debian's `ncgen` writes a dataset into the bucket and `ncdump` reads it
#     back identical to the CDL round trip through a directory; `nccopy` copies
#     it out of the bucket into a directory and back into the bucket, unchanged
#     (skipped while ncgen cannot load this library).
# Objects are uploaded with curl's own SigV4 signing, not through the library.
#
# Usage: tests/s3/run.sh LIBDIR   (LIBDIR holds libnetcdf.so.19, e.g. build/lib)
# Env:   NCZ_S3_* from scripts/s3-server.sh's env file; NCZ_VENV (python venv).
# Output: one PASS/FAIL/SKIP line per check, then "s3: N passed, M failed, K skipped".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
libdir=$(cd "${1:?usage: $0 LIBDIR}" && pwd)
: "${NCZ_S3_ENDPOINT:?start scripts/s3-server.sh and source its env file}"
venv=${NCZ_VENV:-$HOME/.cache/nczarr-venv}
ep=$NCZ_S3_ENDPOINT
run="run-$(date +%s)-$$"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 skip=0
# radosgw's access log (scripts/s3-server.sh keeps it here): every request
# this run makes is in it, so the HEAD check at the end can count them.
rgwlog=${NCZ_S3_RGW_LOG:-$root/target/s3-server/log/client.rgw.a.log}
logstart=$( [ -f "$rgwlog" ] && wc -c <"$rgwlog" || echo 0)
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
skipped() { echo "SKIP $*"; skip=$((skip + 1)); }

# upload DIR BUCKET PREFIX: every file below DIR becomes BUCKET/PREFIX/<relative path>.
upload() {
    local dir=$1 bucket=$2 prefix=$3 f rel
    while IFS= read -r -d '' f; do
        rel=${f#"$dir"/}
        curl -sS -f -X PUT --aws-sigv4 "aws:amz:$NCZ_S3_REGION:s3" \
            --user "$NCZ_S3_ACCESS_KEY_ID:$NCZ_S3_SECRET_ACCESS_KEY" \
            -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -T "$f" "$ep/$bucket/$prefix/$rel" -o /dev/null || return 1
    done < <(find "$dir" -type f -print0)
}

# Every tool runs on this library with an empty HOME (no ~/.aws, no .ncrc).
home="$work/home"
mkdir -p "$home"
tool() {
    env LD_LIBRARY_PATH="$libdir" HOME="$home" NCRCENV_IGNORE=1 \
        AWS_ACCESS_KEY_ID="$NCZ_S3_ACCESS_KEY_ID" AWS_SECRET_ACCESS_KEY="$NCZ_S3_SECRET_ACCESS_KEY" \
        AWS_REGION="$NCZ_S3_REGION" timeout 120 "$@"
}
anon_tool() {
    env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY LD_LIBRARY_PATH="$libdir" HOME="$home" \
        NCRCENV_IGNORE=1 timeout 120 "$@"
}

# same NAME FILE_URL S3_URL [runner]: ncdump and ncdump -s agree.
same() {
    local name=$1 fu=$2 su=$3 runner=${4:-tool} flags
    for flags in "" "-s"; do
        # shellcheck disable=SC2086
        tool ncdump $flags "$fu" >"$work/file.cdl" 2>"$work/file.err"
        local frc=$?
        # shellcheck disable=SC2086
        $runner ncdump $flags "$su" >"$work/s3.cdl" 2>"$work/s3.err"
        local src=$?
        if [ $frc -eq $src ] && cmp -s "$work/file.cdl" "$work/s3.cdl"; then
            ok "$name ncdump $flags (exit $src)"
        else
            bad "$name ncdump $flags: exit $frc from the directory, $src from S3"
            diff "$work/file.cdl" "$work/s3.cdl" | head -20
            head -5 "$work/s3.err"
        fi
    done
}

s3mode() { # a fixture's mode with file storage replaced by s3
    local m=$1
    m=$(echo ",$m," | sed 's/,file,/,s3,/; s/^,//; s/,$//')
    case ",$m," in *,s3,*) ;; *) m="$m,s3" ;; esac
    echo "$m"
}

# 1. fixtures
skiplist="$root/testdata/fixtures-skip.txt"
for case in "$root"/testdata/fixtures/*/; do
    case=${case%/}
    name=$(basename "$case")
    [ -f "$case/case.json" ] || continue
    if grep -q "^$name " "$skiplist" 2>/dev/null; then
        skipped "$name: $(grep "^$name " "$skiplist" | cut -d' ' -f2-)"
        continue
    fi
    ds=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dataset"])' "$case/case.json")
    mode=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["mode"])' "$case/case.json")
    if [ ! -d "$case/$ds" ]; then
        skipped "$name: not a directory dataset"
        continue
    fi
    cp -r "$case/$ds" "$work/$ds"
    if ! upload "$work/$ds" "$NCZ_S3_BUCKET" "$run/$name/$ds"; then
        bad "$name: upload failed"
        rm -rf "${work:?}/$ds"
        continue
    fi
    same "$name" "file://$work/$ds#mode=$mode" "$ep/$NCZ_S3_BUCKET/$run/$name/$ds#mode=$(s3mode "$mode")"
    rm -rf "${work:?}/$ds"
done

# 2. a dataset netCDF4-python writes now
py="$venv/bin/python"
if [ -x "$py" ] && "$py" -c 'import netCDF4' 2>/dev/null; then
    "$py" - "$work/py.zarr" <<'PY'
import sys, numpy as np, netCDF4
ds = netCDF4.Dataset(f"file://{sys.argv[1]}#mode=nczarr,file", "w", format="NETCDF4")
ds.title = "written by netCDF4-python for the S3 test"
ds.createDimension("time", None)
ds.createDimension("y", 5)
ds.createDimension("x", 7)
t = ds.createVariable("time", "f8", ("time",))
t.units = "days since 2000-01-01"
t[:] = np.arange(3) * 0.5
v = ds.createVariable("temp", "f4", ("time", "y", "x"), chunksizes=(1, 3, 4), fill_value=-999.0)
v[:] = np.arange(3 * 5 * 7, dtype="f4").reshape(3, 5, 7) / 7
v[1, 2, 3] = np.ma.masked
g = ds.createGroup("sub")
n = g.createVariable("n", "i8", ("y",))
n[:] = [-(2**62), -1, 0, 1, 2**62]
s = g.createVariable("s", str, ("y",))
s[:] = np.array(["a", "", "ünï", "long " * 10, "z"], dtype=object)
ds.close()
PY
    if [ $? -eq 0 ] && upload "$work/py.zarr" "$NCZ_S3_BUCKET" "$run/python/py.zarr"; then
        same netCDF4-python "file://$work/py.zarr#mode=nczarr,file" "$ep/$NCZ_S3_BUCKET/$run/python/py.zarr#mode=nczarr,s3"
        # s3:// URL form, the endpoint from the environment
        AWS_ENDPOINT_URL=$ep same "netCDF4-python (s3:// URL)" "file://$work/py.zarr#mode=nczarr,file" \
            "s3://$NCZ_S3_BUCKET/$run/python/py.zarr#mode=nczarr"
    else
        bad "netCDF4-python: writing or uploading failed"
    fi
else
    skipped "netCDF4-python: no venv at $venv"
fi

# 3. anonymous reads of the public bucket (the key is not even in the environment)
fix="$root/testdata/fixtures/nczarr_groups_nested"
if [ -d "$fix/data.zarr" ] && upload "$fix/data.zarr" "$NCZ_S3_PUBLIC_BUCKET" "$run/data.zarr"; then
    same "public bucket, profile none" "file://$fix/data.zarr#mode=nczarr,file" \
        "$ep/$NCZ_S3_PUBLIC_BUCKET/$run/data.zarr#mode=nczarr,s3&aws.profile=none" anon_tool
    # the private bucket refuses anonymous reads cleanly
    anon_tool ncdump -h "$ep/$NCZ_S3_BUCKET/$run/python/py.zarr#mode=nczarr,s3&aws.profile=none" >/dev/null 2>"$work/err"
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -lt 124 ]; then ok "private bucket, profile none: refused (exit $rc: $(head -c 100 "$work/err"))"; else bad "private bucket, profile none: exit $rc"; fi
else
    bad "public bucket: upload failed"
fi

# 4. ncgen writes into the bucket
cdl="$work/g.cdl"
cat >"$cdl" <<'CDL'
netcdf g {
dimensions:
	x = 6 ;
	t = UNLIMITED ;
variables:
	int v(t, x) ;
		v:units = "K" ;
	double d(x) ;
	string s(x) ;
// global attributes:
		:history = "ncgen through S3" ;
data:
 v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
 d = 0.5, 1.5, 2.5, -0, 1e300, 3.14159265358979 ;
 s = "a", "bb", "", "dddd", "é", "f" ;
}
CDL
if ! tool ncgen -h >/dev/null 2>"$work/ncgen.err" && grep -q "symbol lookup error\|error while loading" "$work/ncgen.err"; then
    skipped "ncgen: cannot load this library yet ($(head -c 120 "$work/ncgen.err"))"
else
    if tool ncgen -4 -o "file://$work/g.zarr#mode=nczarr,file" "$cdl" &&
        tool ncgen -4 -o "$ep/$NCZ_S3_BUCKET/$run/ncgen/g.zarr#mode=nczarr,s3" "$cdl"; then
        same ncgen "file://$work/g.zarr#mode=nczarr,file" "$ep/$NCZ_S3_BUCKET/$run/ncgen/g.zarr#mode=nczarr,s3"
        # nccopy out of the bucket into a directory, and from there into the bucket again
        # (nccopy writes in no-fill mode: both copies show _NoFill.)
        mkdir -p "$work/c"
        if tool nccopy "$ep/$NCZ_S3_BUCKET/$run/ncgen/g.zarr#mode=nczarr,s3" "file://$work/c/g.zarr#mode=nczarr,file" &&
            tool nccopy "file://$work/c/g.zarr#mode=nczarr,file" "$ep/$NCZ_S3_BUCKET/$run/nccopy/g.zarr#mode=nczarr,s3"; then
            same "nccopy S3 -> directory -> S3" "file://$work/c/g.zarr#mode=nczarr,file" \
                "$ep/$NCZ_S3_BUCKET/$run/nccopy/g.zarr#mode=nczarr,s3"
        else
            bad "nccopy through S3 failed"
        fi
    else
        bad "ncgen into S3 failed"
    fi
fi

# No HEAD requests: a missing object is simply a GET that finds nothing.
# (Only the Zarr v3 fixture, which cannot be opened, may look for zarr.json.)
if [ -f "$rgwlog" ]; then
    sleep 1 # radosgw logs a request after answering it
    heads=$(tail -c +"$((logstart + 1))" "$rgwlog" | grep 'beast: .*"HEAD ' | grep -v '/zarr.json ' || true)
    if [ -z "$heads" ]; then
        ok "no HEAD requests (radosgw's log)"
    else
        bad "HEAD requests: $(echo "$heads" | head -3)"
    fi
else
    skipped "HEAD count: no radosgw log at $rgwlog"
fi

echo "s3: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
