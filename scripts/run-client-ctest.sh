#!/usr/bin/env bash
# Build the library and run ctests/test_client_helpers.c against it (plain and
# under AddressSanitizer), then against Debian's netcdf-c 4.9.0
# libnetcdf.so.19 (package libnetcdf19; its absence is a failure), to show
# the test encodes netcdf-c's behaviour. Usage: scripts/run-client-ctest.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh
out=target/ctest
mkdir -p "$out"
src=ctests/test_client_helpers.c
cflags=(-std=c11 -g -Wall -Wextra -Werror)
lib="$PWD/target/release"
run() { env -u NCLOGGING -u NCTRACING "$@"; }

gcc "${cflags[@]}" -DHAVE_410_NAMES "$src" -o "$out/test_client_helpers" \
    -L"$lib" -lnetcdf -Wl,-rpath,"$lib"
run "$out/test_client_helpers"

gcc "${cflags[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer -DHAVE_410_NAMES "$src" \
    -o "$out/test_client_helpers_asan" -L"$lib" -lnetcdf -Wl,-rpath,"$lib"
ASAN_OPTIONS=detect_leaks=1 run "$out/test_client_helpers_asan"

ref=/usr/lib/x86_64-linux-gnu/libnetcdf.so.19
if [ ! -e "$ref" ]; then
    echo "run-client-ctest: the reference $ref is not installed (scripts/install-deps.sh)" >&2
    exit 2
fi
gcc "${cflags[@]}" -DREFERENCE_LIB "$src" -o "$out/test_client_helpers_ref" "$ref"
run "$out/test_client_helpers_ref"
