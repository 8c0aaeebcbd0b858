#!/usr/bin/env bash
# The demo: install what the build needs (scripts/install-deps.sh --demo),
# build the library, run a C program (examples/c/demo.c) that writes and
# reads an NCZarr dataset in a local directory, and show the dataset with
# Debian's ncdump running on this library. Everything it makes stays in
# target/demo/ (the program, the dataset), with the commands to look again.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "demo: 1/4 the Debian packages the build and the demo need (scripts/install-deps.sh --demo)"
bash scripts/install-deps.sh --demo

echo "demo: 2/4 building the library (scripts/build.sh: cargo build --release --locked)"
bash scripts/build.sh
lib="$PWD/target/release"
# Programs load the library by its SONAME, or Debian's by the name they were linked with.
ln -sf libnetcdf.so "$lib/libnetcdf.so.22"
ln -sf libnetcdf.so "$lib/libnetcdf.so.19"

work="$PWD/target/demo"
rm -rf "$work"
mkdir -p "$work"
url="file://$work/demo.zarr#mode=nczarr,file"
echo "demo: 3/4 examples/c/demo.c, built against include/ and this library, writes and reads $work/demo.zarr"
gcc -std=c99 -Wall -Wextra -Werror -Iinclude -o "$work/demo" examples/c/demo.c -L"$lib" -lnetcdf
LD_LIBRARY_PATH="$lib" "$work/demo" "$url"

echo "demo: 4/4 Debian's ncdump -s, running on this library (LD_LIBRARY_PATH=$lib):"
LD_LIBRARY_PATH="$lib" ncdump -s "$url"

# The same dataset through Python's Zarr stack, when one is installed (the
# test venv of scripts/install-deps.sh has xarray and zarr-python): this
# library is not involved there, the files on disk are plain Zarr.
venv_py="${NCZ_VENV:-$HOME/.cache/nczarr-venv}/bin/python"
for py in "$venv_py" python3; do
    if [ -x "$(command -v "$py")" ] && "$py" -c 'import xarray, zarr' 2>/dev/null; then
        echo "demo: and xarray (zarr-python $("$py" -c 'import zarr; print(zarr.__version__)')) reads the same directory:"
        "$py" -c 'import sys, xarray as xr; print(xr.open_zarr(sys.argv[1], consolidated=False))' "$work/demo.zarr" ||
            echo "demo: (xarray could not read it; see README's quickstart)"
        break
    fi
done

cat <<EOF

demo: done. The dataset is the directory $work/demo.zarr; to look at it again:
  LD_LIBRARY_PATH=$lib ncdump -s '$url'
and to run every test: bash scripts/test-all.sh
EOF
