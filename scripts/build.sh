#!/usr/bin/env bash
# Build the library (cargo build --release --locked), first making cargo
# rebuild the C code it compiled with another C compiler than today's.
#
# The C libraries that cargo builds from source (the zstd, libdeflate, blosc,
# lz4 and zlib codecs, and this crate's own C shims) are compiled with CC,
# which .cargo/config.toml sets to scripts/cc: the newest clang installed at
# the time of the build, else cc. Cargo sees only that CC is still
# "scripts/cc", so when clang is installed (or upgraded) after a build, it
# would keep the gcc-built objects. This script records the compiler of the
# last build in the target directory and, when `$CC --version` now says
# something else, cleans those packages (`cargo clean -p`) before building.
#
# Usage: scripts/build.sh [cargo build options...]
# Env:   CC, NCZ_CC (see scripts/cc), CARGO_TARGET_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# The packages that compile C with $CC: the codec -sys crates and this crate.
C_PACKAGES=(zstd-sys libdeflate-sys blosc-src lz4-sys libz-sys nczarr)

target=${CARGO_TARGET_DIR:-$root/target}
stamp="$target/nczarr-c-compiler.txt"
# An explicit CC in the environment wins over .cargo/config.toml's.
cc=${CC:-$root/scripts/cc}
compiler=$("$cc" --version 2>/dev/null | head -n 1) || true
[ -n "$compiler" ] || {
    echo "build: the C compiler $cc does not run" >&2
    exit 1
}
say() { echo "build: $*"; }

clean_c_packages() {
    local args=() p
    for p in "${C_PACKAGES[@]}"; do
        args+=(-p "$p")
    done
    say "cargo clean ${args[*]} (release and debug profiles)"
    cargo clean --release "${args[@]}"
    cargo clean "${args[@]}"
}

if [ -f "$stamp" ]; then
    before=$(cat "$stamp")
    if [ "$before" != "$compiler" ]; then
        say "the C compiler changed since the last build: '$before' -> '$compiler'"
        clean_c_packages
    fi
elif compgen -G "$target/release/build/zstd-sys-*" >/dev/null || compgen -G "$target/debug/build/zstd-sys-*" >/dev/null; then
    # Built before this script kept a record: the compiler is unknown.
    say "no record of the C compiler of the existing build in $target; now '$compiler'"
    clean_c_packages
fi

if [ ! -d "$target/release/deps" ]; then
    say "cargo build --release --locked: the first build compiles over 200 crates," \
        "several C libraries among them; on 2 cores that takes 10 to 15 minutes"
fi
cargo build --release --locked "$@"
mkdir -p "$target"
printf '%s\n' "$compiler" >"$stamp"
