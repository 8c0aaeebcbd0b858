#!/usr/bin/env bash
# Run the C tests (already built by CMake in BUILD_DIR, default build/) under
# valgrind memcheck against our library: any invalid read or write, use of
# uninitialised memory, or definite leak fails the run. Valgrind sees the
# library's own accesses to the caller's buffers, which a sanitizer in the C
# test program cannot.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
if ! command -v valgrind >/dev/null; then
    echo "valgrind not installed (apt-get install valgrind)" >&2
    exit 2
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
pass=0
fail=0
# Each program once per local storage kind (directory and zip archive).
for storage in file zip; do
for t in "$build"/ctests/t_*; do
    [ -x "$t" ] || continue
    name="$(basename "$t").$storage"
    if NCZARR_ALLOCATOR=system NCZ_TEST_STORAGE="$storage" NCZ_TEST_DIR="$scratch/$name" valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite "$t" >"$scratch/$name.log" 2>&1; then
        echo "PASS $name"
        pass=$((pass + 1))
    else
        echo "FAIL $name"
        tail -n 40 "$scratch/$name.log"
        fail=$((fail + 1))
    fi
done
done
echo "valgrind: $pass passed, $fail failed"
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
