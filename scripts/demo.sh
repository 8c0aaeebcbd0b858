#!/usr/bin/env bash
# Build the library, run a C program that writes and reads an NCZarr dataset
# in a local directory, and show the dataset with ncdump through our library.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
lib="$PWD/target/release"
ln -sf libnetcdf.so "$lib/libnetcdf.so.22"
ln -sf libnetcdf.so "$lib/libnetcdf.so.19"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -std=c99 -Wall -Wextra -Werror -Iinclude -o "$work/demo" examples/c/demo.c -L"$lib" -lnetcdf
url="file://$work/demo.zarr#mode=nczarr,file"
LD_LIBRARY_PATH="$lib" "$work/demo" "$url"
if command -v ncdump >/dev/null; then
    echo "--- ncdump -s (Debian's ncdump, running on this library) ---"
    LD_LIBRARY_PATH="$lib" ncdump -s "$url"
else
    echo "(install netcdf-bin to see the dataset with ncdump)"
fi
