#!/usr/bin/env bash
# check-headers.sh -- check the public headers in include/.
#
#  1. every header compiles on its own as C99, C11, C++11 and C++17
#     (-Wall -Wextra -Wpedantic -Werror);
#  2. our headers and the reference netCDF-C headers in /usr/include
#     (Debian's libnetcdf-dev, netCDF-C 4.9.0) compile together in one
#     translation unit -- C in both orders, and C++ with the reference in
#     a namespace -- so that any macro with another value and any
#     conflicting prototype or type fails the build
#     (ctests/header_compat.c, ctests/header_compat_ns.cpp);
#  3. the preprocessor's and the compiler's lists of macros and function
#     declarations of both sets agree, except for the documented entries
#     of ctests/header_compat_exceptions.h -- and each of those entries is
#     still needed;
#  4. every function and variable declared in our headers has C linkage
#     when the headers are used from C++;
#  5. negative controls: deliberately broken copies of our headers make
#     step 2 or 3 fail;
#  6. every macro, prototype and declaration equals netCDF-C 4.10.1's
#     (scripts/compare-headers-4101.py, against testdata/headers/, extracted
#     from the v4.10.1 tag), and that comparison catches deliberate changes
#     (its --self-test).
#
# Needs gcc, g++, python3 and the reference headers (apt-get install
# libnetcdf-dev g++); installs nothing itself.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
inc="$repo/include"
ctests="$repo/ctests"
exceptions="$ctests/header_compat_exceptions.h"
headers=(netcdf.h netcdf_filter.h netcdf_aux.h netcdf_mem.h netcdf_meta.h)
refdir=/usr/include

for h in "${headers[@]}"; do
    if [[ ! -f "$refdir/$h" ]]; then
        echo "check-headers: reference header $refdir/$h is missing." >&2
        echo "check-headers: install the netCDF-C development headers (Debian/Ubuntu: apt-get install libnetcdf-dev) and run again." >&2
        exit 1
    fi
done
for tool in gcc g++ nm perl python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check-headers: '$tool' not found (Debian/Ubuntu: apt-get install gcc g++ binutils perl python3)." >&2
        exit 1
    fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

failures=0
pass() { printf '  ok    %s\n' "$*"; }
fail() { printf '  FAIL  %s\n' "$*"; failures=$((failures + 1)); }

cflags=(-Wall -Wextra -Werror)

# ---------------------------------------------------------------------
echo "1. each header alone (C99, C11, C++11, C++17; with and without NETCDF_ENABLE_LEGACY_MACROS)"
for h in "${headers[@]}"; do
    src="$work/alone.c"
    printf '#include "%s"\ntypedef int check_headers_tu_is_not_empty;\n' "$inc/$h" > "$src"
    for legacy in "" "-DNETCDF_ENABLE_LEGACY_MACROS"; do
        for std in c99 c11; do
            if gcc -std=$std -Wpedantic "${cflags[@]}" $legacy -fsyntax-only "$src" 2> "$work/err"; then
                pass "$h as $std $legacy"
            else
                fail "$h as $std $legacy"; cat "$work/err"
            fi
        done
        for std in c++11 c++17; do
            if g++ -x c++ -std=$std -Wpedantic "${cflags[@]}" $legacy -fsyntax-only "$src" 2> "$work/err"; then
                pass "$h as $std $legacy"
            else
                fail "$h as $std $legacy"; cat "$work/err"
            fi
        done
    done
done

# ---------------------------------------------------------------------
# The compatibility translation units, run against the headers in
# directory $1 (a copy of the repository layout with include/ and ctests/).
compat_builds() {
    local root="$1" quiet="${2:-}" ok=0
    local legacy order
    for legacy in "" "-DNETCDF_ENABLE_LEGACY_MACROS"; do
        for order in OURS_FIRST REFERENCE_FIRST; do
            if gcc -std=c11 "${cflags[@]}" -D$order $legacy -fsyntax-only \
                   "$root/ctests/header_compat.c" 2> "$work/err"; then
                [[ -n "$quiet" ]] || pass "C11, $order $legacy"
            else
                ok=1
                [[ -n "$quiet" ]] || { fail "C11, $order $legacy"; cat "$work/err"; }
            fi
        done
        if g++ -std=c++11 "${cflags[@]}" $legacy -fsyntax-only \
               "$root/ctests/header_compat_ns.cpp" 2> "$work/err"; then
            [[ -n "$quiet" ]] || pass "C++11, reference in namespace $legacy"
        else
            ok=1
            [[ -n "$quiet" ]] || { fail "C++11, reference in namespace $legacy"; cat "$work/err"; }
        fi
    done
    return $ok
}

echo "2. our headers and $refdir's in one translation unit"
compat_builds "$repo" || true

# ---------------------------------------------------------------------
echo "3. macro and prototype lists against $refdir (exceptions: ctests/header_compat_exceptions.h)"

mapfile -t differing < <(sed -n '/BEGIN DIFFERING MACROS/,/END DIFFERING MACROS/p' "$exceptions" \
                         | sed -n -E 's/^#undef ([A-Za-z_0-9]+).*/\1/p')
mapfile -t absent < <(sed -n -E 's/^ \* ABSENT: ([A-Za-z_0-9]+).*/\1/p' "$exceptions")
listed() { local x="$1"; shift; local y; for y in "$@"; do [[ "$x" == "$y" ]] && return 0; done; return 1; }

# macros <dir> <flags...>: "NAME<TAB>replacement" for everything the five
# headers of <dir> define beyond <stddef.h> and <errno.h>.
macros() {
    local dir="$1"; shift
    printf '#include <stddef.h>\n#include <errno.h>\n' > "$work/base.c"
    cp "$work/base.c" "$work/all.c"
    for h in "${headers[@]}"; do printf '#include "%s"\n' "$dir/$h" >> "$work/all.c"; done
    gcc -std=c11 "$@" -E -dM "$work/base.c" | sort > "$work/base.dm"
    gcc -std=c11 "$@" -E -dM "$work/all.c" | sort > "$work/all.dm"
    comm -13 "$work/base.dm" "$work/all.dm" | sed -E 's/^#define ([^ ]+) ?(.*)$/\1\t\2/'
}

# prototypes <dir>: canonical declarations (gcc -aux-info) of the functions
# the five headers declare, without the file/line comment.
prototypes() {
    local dir="$1"
    printf '#include <stddef.h>\n#include <errno.h>\n' > "$work/proto.c"
    for h in "${headers[@]}"; do printf '#include "%s"\n' "$dir/$h" >> "$work/proto.c"; done
    gcc -std=c11 -fsyntax-only -aux-info "$work/proto.info" "$work/proto.c"
    grep -F "/* $dir/netcdf" "$work/proto.info" | sed -E 's@^/\* [^*]* \*/ @@; s/[[:space:]]+/ /g' | sort -u
}
# list_checks <include dir> [quiet]: compare the macro and prototype lists
# of the headers in <include dir> with the reference; nonzero on failure.
list_checks() {
    local dir="$1" quiet="${2:-}" status=0
    local cfg n v o r bad same extra common new
    local -a flags
    lpass() { [[ -n "$quiet" ]] || pass "$@"; }
    lfail() { status=1; [[ -n "$quiet" ]] || fail "$@"; }
    for cfg in default legacy; do
        flags=()
        [[ $cfg == legacy ]] && flags=(-DNETCDF_ENABLE_LEGACY_MACROS)
        macros "$dir" "${flags[@]}" > "$work/ours.$cfg"
        macros "$refdir" "${flags[@]}" > "$work/ref.$cfg"
        declare -A ours=() ref=()
        while IFS=$'\t' read -r n v; do ours[$n]="$v"; done < "$work/ours.$cfg"
        while IFS=$'\t' read -r n v; do ref[$n]="$v"; done < "$work/ref.$cfg"
        same=0; bad=0
        for n in "${!ref[@]}"; do
            if [[ -z "${ours[$n]+x}" ]]; then
                # _FillValue is absent only while NETCDF_ENABLE_LEGACY_MACROS
                # is not defined; in the legacy configuration it must exist.
                if listed "$n" "${absent[@]}" && [[ $cfg == default || "$n" != _FillValue ]]; then continue; fi
                lfail "[$cfg] $n is defined by the reference but not by our headers"; bad=1
            elif [[ "${ours[$n]}" == "${ref[$n]}" ]]; then
                same=$((same + 1))
                if listed "$n" "${differing[@]}"; then
                    lfail "[$cfg] stale exception: $n has the same value in both"; bad=1
                fi
            elif ! listed "$n" "${differing[@]}"; then
                lfail "[$cfg] $n: ours '${ours[$n]}', reference '${ref[$n]}'"; bad=1
            fi
        done
        for n in "${differing[@]}"; do
            if [[ -z "${ours[$n]+x}" || -z "${ref[$n]+x}" ]]; then
                lfail "[$cfg] stale exception: $n is not defined by both"; bad=1
            fi
        done
        if [[ $cfg == default ]]; then
            for n in "${absent[@]}"; do
                # Entries that are not macros are checked with the prototypes.
                [[ -z "${ref[$n]+x}" ]] && continue
                if [[ -n "${ours[$n]+x}" ]]; then lfail "stale exception: $n is defined by our headers"; bad=1; fi
            done
        fi
        extra=0
        for n in "${!ours[@]}"; do [[ -z "${ref[$n]+x}" ]] && extra=$((extra + 1)); done
        [[ $bad == 0 ]] && lpass "[$cfg] macros: $same identical, ${#differing[@]} documented value changes, $extra new in 4.10"
        unset ours ref
    done

    prototypes "$dir" > "$work/ours.proto"
    prototypes "$refdir" > "$work/ref.proto"
    fname() { sed -E 's/^.* \**([A-Za-z_0-9]+) \(.*$/\1/'; }
    fname < "$work/ours.proto" | sort -u > "$work/ours.names"
    fname < "$work/ref.proto" | sort -u > "$work/ref.names"
    bad=0
    while read -r n; do
        if ! listed "$n" "${absent[@]}"; then lfail "function $n is declared by the reference but not by our headers"; bad=1; fi
    done < <(comm -23 "$work/ref.names" "$work/ours.names")
    for n in "${absent[@]}"; do
        if grep -qx "$n" "$work/ours.names"; then lfail "stale exception: function $n is declared by our headers"; bad=1; fi
    done
    common=0
    while read -r n; do
        o="$(grep -E " \**$n \(" "$work/ours.proto")"
        r="$(grep -E " \**$n \(" "$work/ref.proto")"
        if [[ "$o" != "$r" ]]; then lfail "prototype of $n: ours '$o', reference '$r'"; bad=1; fi
        common=$((common + 1))
    done < <(comm -12 "$work/ref.names" "$work/ours.names")
    new=$(comm -13 "$work/ref.names" "$work/ours.names" | wc -l)
    [[ $bad == 0 ]] && lpass "functions: $common identical prototypes, $new new in 4.10"
    return $status
}

list_checks "$inc" || true

# ---------------------------------------------------------------------
echo "4. C linkage of every declaration when used from C++"
{
    for h in "${headers[@]}"; do printf '#include "%s"\n' "$inc/$h"; done
    printf 'template <class... T> static void take(T...) {}\n'
    printf 'void check_headers_reference_all();\nvoid check_headers_reference_all() {\n    take(&ncerr, &ncopts'
    while read -r n; do printf ',\n         &%s' "$n"; done < "$work/ours.names"
    printf ');\n}\n'
} > "$work/linkage.cpp"
if g++ -std=c++11 "${cflags[@]}" -c "$work/linkage.cpp" -o "$work/linkage.o" 2> "$work/err"; then
    nm -u "$work/linkage.o" | awk '$2 != "_GLOBAL_OFFSET_TABLE_" {print $2}' | sort > "$work/linkage.undef"
    { cat "$work/ours.names"; printf 'ncerr\nncopts\n'; } | sort > "$work/linkage.want"
    if diff -u "$work/linkage.want" "$work/linkage.undef" > "$work/linkage.diff"; then
        pass "$(wc -l < "$work/linkage.want") symbols referenced from C++ with unmangled names"
    else
        fail "symbols referenced from C++ are not the plain C names:"; cat "$work/linkage.diff"
    fi
else
    fail "linkage test does not compile"; cat "$work/err"
fi

# ---------------------------------------------------------------------
echo "5. negative controls: broken copies of our headers must fail step 2 or 3"
mutate() {
    local what="$1" file="$2" old="$3" new="$4" root="$work/mutant"
    rm -rf "$root"; mkdir -p "$root"
    cp -r "$repo/include" "$repo/ctests" "$root/"
    MUT_OLD="$old" MUT_NEW="$new" perl -0pi -e 's/\Q$ENV{MUT_OLD}\E/$ENV{MUT_NEW}/ or die "not found\n"' \
        "$root/include/$file" || { fail "control '$what': text to change not found"; return; }
    if compat_builds "$root" quiet && list_checks "$root/include" quiet; then
        fail "control '$what' was not detected"
    else
        pass "control '$what' detected"
    fi
}
mutate "error code value" netcdf.h '#define NC_EINVAL       (-36)' '#define NC_EINVAL       (-37)'
mutate "prototype parameter type" netcdf.h \
    'EXTERNL int nc_inq_dimlen(int ncid, int dimid, size_t *lenp);' \
    'EXTERNL int nc_inq_dimlen(int ncid, int dimid, int *lenp);'
mutate "struct member type" netcdf_mem.h '    int flags;' '    long flags;'
mutate "signature using a struct" netcdf_mem.h \
    'EXTERNL int nc_close_memio(int ncid, NC_memio *info);' \
    'EXTERNL int nc_close_memio(int ncid, const NC_memio *info);'
mutate "enum value" netcdf_filter.h '    BLOSC_BITSHUFFLE = 2' '    BLOSC_BITSHUFFLE = 3'
mutate "guarded macro value" netcdf_filter.h '#define H5Z_FILTER_BZIP2 307' '#define H5Z_FILTER_BZIP2 308'
mutate "feature flag" netcdf_meta.h '#define NC_HAS_NCZARR        1' '#define NC_HAS_NCZARR        0'

# ---------------------------------------------------------------------
echo "6. the headers of netCDF-C 4.10.1 (scripts/compare-headers-4101.py, testdata/headers/)"
if python3 "$repo/scripts/compare-headers-4101.py" >"$work/compare-4101.log" 2>&1; then
    pass "$(tail -n 1 "$work/compare-4101.log")"
else
    cat "$work/compare-4101.log"
    fail "our headers differ from netCDF-C 4.10.1's"
fi
if python3 "$repo/scripts/compare-headers-4101.py" --self-test >"$work/compare-4101-self.log" 2>&1; then
    pass "$(tail -n 1 "$work/compare-4101-self.log")"
else
    cat "$work/compare-4101-self.log"
    fail "the 4.10.1 comparison missed a deliberate change"
fi

# ---------------------------------------------------------------------
echo
if [[ $failures -eq 0 ]]; then
    echo "check-headers: all checks passed"
else
    echo "check-headers: $failures check(s) failed"
    exit 1
fi
