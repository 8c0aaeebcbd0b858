#!/usr/bin/env bash
# t_plugins under logging with the junk directory first on the path, then
# Debian's ncdump -s over what it wrote.
# usage: run_tools.sh T_PLUGINS LIBDIR PLUGIN_DIR JUNK_DIR SCRATCH
set -euo pipefail
prog=$1 libdir=$2 plug=$3 junk=$4 scratch=$5
rm -rf "$scratch"
mkdir -p "$scratch"
log="$scratch/addk.log"
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! NCLOGGING=1 NCZ_TEST_KEEP=1 NCZP_ADDK_LOG="$log" HDF5_PLUGIN_PATH="$junk:$plug" \
    "$prog" "$scratch" >"$scratch/out" 2>"$scratch/err"; then
    cat "$scratch/out" "$scratch/err"
    fail "t_plugins failed"
fi
# Every junk file was skipped with a log line.
for f in lib_junk.so lib_notplugin.so lib_badversion.so lib_badcodec.so lib_notfilter.so lib_mismatch.so; do
    grep -q "skipping $junk/$f" "$scratch/err" || { cat "$scratch/err"; fail "no log line for $f"; }
done
# The addk codec was initialised once and finalised once (at exit).
[ "$(cat "$log")" = "$(printf 'initialize\nfinalize')" ] || fail "addk log: $(cat "$log")"
echo "ok: junk skipped and logged; codec initialised and finalised once"

if ! command -v ncdump >/dev/null; then
    echo "SKIP: ncdump not installed"
    exit 77
fi
ds="$scratch/t_plugins_rt.zarr"
HDF5_PLUGIN_PATH="$plug" LD_LIBRARY_PATH="$libdir" ncdump -s "file://$ds#mode=nczarr,file" >"$scratch/dump" \
    || { cat "$scratch/dump"; fail "ncdump -s"; }
for want in 'a:_Filter = "40300,7"' 'b:_Filter = "40301,90|40300,3"' 'c:_Filter = "40307"' \
    'a:_Codecs = "[{\"id\": \"nczarr_addk\", \"k\": 7}]"' \
    'a = -7, 993, 1993, 2993,' 'b = -15000, -14700, -14400,' 'c = -3, -2.75, -2.5,'; do
    grep -qF -- "$want" "$scratch/dump" || { cat "$scratch/dump"; fail "ncdump -s lacks: $want"; }
done
# Without the plugins the variables still show, and reading data fails.
if HDF5_PLUGIN_PATH=/nonexistent LD_LIBRARY_PATH="$libdir" ncdump "file://$ds#mode=nczarr,file" \
    >"$scratch/dump2" 2>&1; then
    fail "ncdump without plugins succeeded"
fi
grep -q "int a(x)" "$scratch/dump2" || fail "header without plugins"
echo "ok: ncdump -s shows the plugin filters and data"
