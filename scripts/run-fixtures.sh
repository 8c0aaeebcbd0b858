#!/usr/bin/env bash
# Run Debian bookworm's unchanged ncdump (netcdf-bin 4.9.0, which loads
# libnetcdf.so.19) over the NCZarr/Zarr fixtures, on the libnetcdf found in
# LIBDIR, and compare with what it prints on top of netcdf-c 4.10.1
# (testdata/fixtures/<case>/expected-debian/).
#
# Usage: scripts/run-fixtures.sh LIBDIR [CASE...]
#   LIBDIR  directory holding libnetcdf.so.19 (e.g. build/lib); it is the
#           whole LD_LIBRARY_PATH of every ncdump run
#   CASE    run only these cases (default: every case)
#
# Env: NCDUMP               ncdump to run (default /usr/bin/ncdump)
#      NCZ_FIXTURES_DIR     fixtures (default testdata/fixtures)
#      NCZ_FIXTURES_SKIP    skip list (default testdata/fixtures-skip.txt)
#      NCZ_FIXTURE_TIMEOUT  seconds allowed per ncdump run (default 60)
#      NCZ_FIXTURES_KEEP=1  keep the temporary run directories
#
# For every case, every expected-debian/ file named
#   [mode-<fragment>.]ncdump{,-s,-h,-hs}.cdl
# is one run: flags none / -s / -h / -h -s, URL
#   file://<copy of the case>/<dataset>#mode=<mode>
# (mode from case.json; for mode-<fragment>. files the extra_modes entry whose
# commas became underscores). Each run gets a fresh copy of the case under a
# temporary directory, HOME set to an empty directory and NCRCENV_IGNORE=1.
#
# A run passes when stdout is byte-identical to the expected file, the exit
# code equals expected-debian/result.json's, and stderr, with the copy's path
# replaced by $CASEDIR, equals the expected .stderr file (empty when there is
# none). Cases whose case.json verdict is "error", "wrong" or "partly-wrong"
# (the reference refuses the data or prints wrong data) also pass when the
# dump equals the truth/ file of the same name (truth/ncdump.cdl for the plain
# dump), or when ncdump exits with an error message and a code in 1..123 (no
# crash, signal, time-out or load failure).
#
# Output: one line per run (PASS case file / FAIL case file + details) or per
# skipped case (SKIP case reason), then exactly one line
#   fixtures: N passed, M failed, K skipped
# Exit status: 0 when nothing failed, 1 otherwise, 2 for usage errors, 77 when
# ncdump is not installed outside CI (CTest reports that as skipped).
set -uo pipefail

usage() {
    sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
case "$1" in -h | --help) usage ;; esac
libdir=$1
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="${NCZ_FIXTURES_DIR:-$root/testdata/fixtures}"
skipfile="${NCZ_FIXTURES_SKIP:-$root/testdata/fixtures-skip.txt}"
ncdump="${NCDUMP:-/usr/bin/ncdump}"
tmo="${NCZ_FIXTURE_TIMEOUT:-60}"
python="${PYTHON:-python3}"

die() { echo "run-fixtures: $*" >&2; exit 2; }

[ -d "$libdir" ] || die "LIBDIR '$libdir' is not a directory"
libdir="$(cd "$libdir" && pwd)"
# Without this name in LIBDIR ncdump would silently load the system's library.
[ -e "$libdir/libnetcdf.so.19" ] || die "$libdir has no libnetcdf.so.19"
[ -d "$fixtures" ] || die "no fixtures directory $fixtures"
command -v "$python" >/dev/null || die "$python not found"
if [ ! -x "$ncdump" ]; then
    echo "run-fixtures: $ncdump not found (apt-get install netcdf-bin)" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    exit 77
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/ncz-fixtures.XXXXXX")" || die "mktemp failed"
cleanup() {
    if [ "${NCZ_FIXTURES_KEEP:-}" = 1 ]; then
        echo "run-fixtures: kept $work" >&2
    else
        chmod -R u+w "$work" 2>/dev/null
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# ncdump names itself by argv[0] in its messages: run it as plain `ncdump`,
# as the expected outputs were made.
if ! { mkdir -p "$work/bin" && ln -s "$(cd "$(dirname "$ncdump")" && pwd)/$(basename "$ncdump")" "$work/bin/ncdump"; }; then
    die "cannot set up $work/bin/ncdump"
fi

# The runs of one case, one per line, tab-separated:
#   verdict dataset expected-file flags("none" or "-s", "-h", "-h -s") mode rc
# or one line "ERROR<tab>message" when the case cannot be read.
case_runs() {
    "$python" - "$1" <<'EOF'
import json, os, re, sys
case = sys.argv[1]
def fail(msg):
    print("ERROR\t" + msg)
    sys.exit(0)
try:
    with open(os.path.join(case, "case.json"), encoding="utf-8") as f:
        meta = json.load(f)
except (OSError, ValueError) as e:
    fail("case.json: %s" % e)
expdir = os.path.join(case, "expected-debian")
try:
    with open(os.path.join(expdir, "result.json"), encoding="utf-8") as f:
        runs = json.load(f).get("runs", {})
except (OSError, ValueError) as e:
    fail("expected-debian/result.json: %s" % e)
verdict = meta.get("verdict", "ok")
dataset = meta.get("dataset", "data.zarr")
mode = meta.get("mode")
if not mode:
    fail("case.json has no mode")
frags = {m.replace(",", "_"): m for m in meta.get("extra_modes") or []}
# "none", not "": read(1) merges adjacent tabs.
flags = {"": "none", "-s": "-s", "-h": "-h", "-hs": "-h -s"}
pat = re.compile(r"^(?:mode-(.+)\.)?ncdump(|-s|-h|-hs)\.cdl$")
found = 0
for name in sorted(os.listdir(expdir)):
    m = pat.match(name)
    if not m:
        continue
    frag, suffix = m.groups()
    run_mode = mode if frag is None else frags.get(frag, frag.replace("_", ","))
    if name not in runs or "rc" not in runs[name]:
        fail("expected-debian/result.json has no exit code for " + name)
    found += 1
    print("\t".join([verdict, dataset, name, flags[suffix], run_mode, str(runs[name]["rc"])]))
if not found:
    fail("no expected-debian/ncdump*.cdl")
EOF
}

# Replace every occurrence of $2 in file $1 by the literal text $CASEDIR.
normalize() {
    # shellcheck disable=SC2016 # $CASEDIR is literal text
    "$python" -c '
import sys
path, casedir = sys.argv[1], sys.argv[2].encode()
with open(path, "rb") as f:
    data = f.read()
with open(path, "wb") as f:
    f.write(data.replace(casedir, b"$CASEDIR"))
' "$1" "$2"
}

indent() { sed 's/^/    /'; }

# What is wrong with a run that did not match: rc, stderr, stdout diff.
explain() { # expected-stdout actual-stdout expected-stderr actual-stderr want-rc got-rc
    local estd=$1 astd=$2 eerr=$3 aerr=$4 want=$5 got=$6
    if [ "$want" != "$got" ]; then
        echo "exit code: expected $want, got $(describe_rc "$got" "$aerr")" | indent
    fi
    if ! cmp -s "$eerr" "$aerr"; then
        echo "stderr differs:" | indent
        diff -u --label expected --label actual "$eerr" "$aerr" | tail -n +3 | head -n 10 | indent
    fi
    if ! cmp -s "$estd" "$astd"; then
        echo "stdout differs ($(wc -l <"$astd") lines, expected $(wc -l <"$estd")):" | indent
        diff -u --label expected --label actual "$estd" "$astd" | head -n 30 | indent
    fi
}

describe_rc() { # rc stderr-file
    local rc=$1
    if is_load_error "$2"; then
        echo "$rc (the dynamic loader could not load ncdump's libraries)"
    elif [ "$rc" = timeout ]; then
        echo "no exit: killed after ${tmo}s"
    elif [ "$rc" -lt 0 ] 2>/dev/null; then
        echo "$rc (killed by signal $((-rc)))"
    else
        echo "$rc"
    fi
}

is_load_error() {
    grep -qE 'error while loading shared libraries|symbol lookup error|undefined symbol|cannot open shared object' "$1"
}

passed=0 failed=0 skipped=0 nrun=0

is_skipped() { # case -> prints reason, status 0 when listed
    [ -f "$skipfile" ] || return 1
    awk -v c="$1" '
        /^[[:space:]]*(#|$)/ { next }
        $1 == c { $1 = ""; sub(/^[[:space:]]+/, ""); print; found = 1; exit }
        END { exit !found }' "$skipfile"
}

if [ $# -gt 0 ]; then
    cases=("$@")
else
    cases=()
    for d in "$fixtures"/*/; do
        [ -f "$d/case.json" ] && cases+=("$(basename "$d")")
    done
fi
[ ${#cases[@]} -gt 0 ] || die "no cases under $fixtures"

for case in "${cases[@]}"; do
    src="$fixtures/$case"
    if reason="$(is_skipped "$case")"; then
        echo "SKIP $case ${reason:-listed in $(basename "$skipfile")}"
        skipped=$((skipped + 1))
        continue
    fi
    if [ ! -f "$src/case.json" ]; then
        echo "FAIL $case (no such case in $fixtures)"
        failed=$((failed + 1))
        continue
    fi
    runs="$(case_runs "$src")"
    if [ "${runs%%$'\t'*}" = ERROR ]; then
        echo "FAIL $case ${runs#ERROR$'\t'}"
        failed=$((failed + 1))
        continue
    fi
    while IFS=$'\t' read -r verdict dataset file flags mode want; do
        nrun=$((nrun + 1))
        rundir="$work/$nrun"
        casedir="$rundir/$case"
        mkdir -p "$rundir/home"
        if ! { cp -R "$src" "$casedir" && chmod -R u+w "$casedir"; }; then
            echo "FAIL $case $file (could not copy the case)"
            failed=$((failed + 1))
            continue
        fi
        [ "$flags" != none ] || flags=""
        out="$rundir/stdout" err="$rundir/stderr"
        url="file://$casedir/$dataset#mode=$mode"
        # The inner shell reports a signal death on its own stderr (discarded).
        # shellcheck disable=SC2086 # flags is a word list
        got="$(
            cd "$rundir" && {
                env HOME="$rundir/home" NCRCENV_IGNORE=1 LD_LIBRARY_PATH="$libdir" \
                    PATH="$work/bin:$PATH" \
                    timeout -k 5 "$tmo" ncdump $flags "$url" >"$out" 2>"$err" </dev/null \
                    && echo 0 || echo $?
            } 2>/dev/null
        )"
        case "$got" in
        124) got=timeout ;;
        '') got=timeout ;;
        *) if [ "$got" -ge 128 ]; then got=$((128 - got)); fi ;;
        esac
        normalize "$err" "$casedir"
        expected="$src/expected-debian/$file"
        expected_err="$rundir/expected.stderr"
        if [ -f "$expected.stderr" ]; then
            cp "$expected.stderr" "$expected_err"
        else
            : >"$expected_err"
        fi

        ok=0
        note=""
        if [ "$got" = "$want" ] && cmp -s "$expected" "$out" && cmp -s "$expected_err" "$err"; then
            ok=1
        elif [ "$verdict" != ok ]; then
            if [ -f "$src/truth/$file" ] && [ "$got" = 0 ] && cmp -s "$src/truth/$file" "$out"; then
                ok=1 note=" (equals truth/$file)"
            elif [ "$got" != timeout ] && [ "$got" -ge 1 ] && [ "$got" -le 123 ] &&
                [ -s "$err" ] && ! is_load_error "$err"; then
                ok=1 note=" (verdict $verdict: clean error, exit $got: $(head -n 1 "$err"))"
            fi
        fi
        label="$file"
        [ -n "$flags" ] || flags="(no flags)"
        if [ $ok = 1 ]; then
            echo "PASS $case $label$note"
            passed=$((passed + 1))
        else
            echo "FAIL $case $label [ncdump $flags, mode=$mode, verdict $verdict]"
            if [ "$got" != "$want" ] && { [ "$got" = timeout ] || [ "$got" -lt 0 ] || is_load_error "$err"; }; then
                # A crash, hang or load failure: the diff of a partial dump says little.
                echo "exit code: expected $want, got $(describe_rc "$got" "$err")" | indent
                head -n 5 "$err" | indent
            else
                explain "$expected" "$out" "$expected_err" "$err" "$want" "$got"
            fi
            failed=$((failed + 1))
        fi
        if [ "${NCZ_FIXTURES_KEEP:-}" != 1 ]; then
            chmod -R u+w "$rundir" 2>/dev/null
            rm -rf "$rundir"
        fi
    done <<<"$runs"
done

if [ -f "$skipfile" ]; then
    awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$skipfile" | while read -r name; do
        [ -d "$fixtures/$name" ] || echo "run-fixtures: note: the skip list lists unknown case '$name'" >&2
    done
fi

echo "fixtures: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
