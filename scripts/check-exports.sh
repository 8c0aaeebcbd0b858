#!/usr/bin/env bash
# Check that the Rust exports have exactly the C signatures of include/.
#
# cbindgen (with the crate macro-expanded, so the generated typed put/get
# families are seen too) writes a prototype for every exported function; the
# prototypes of functions that the public headers declare are compiled after
# those headers under -Werror, so any difference in a parameter or return
# type is a conflicting declaration and fails. Macro expansion needs
# `rustc -Zunpretty=expanded`, allowed on the stable toolchain only with
# RUSTC_BOOTSTRAP=1: used here for this check alone, never for the build.
# Also reports how many functions the headers declare that are not
# exported yet (the README's coverage table lists them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if ! command -v cbindgen >/dev/null; then
    echo "cbindgen missing (cargo install cbindgen --locked --version 0.29.4)" >&2
    exit 2
fi
out="$root/target/check-exports"
mkdir -p "$out"
sed -e 's/^# \[parse.expand\]/[parse.expand]/' \
    -e 's/^# crates = \["nczarr"\]/crates = ["nczarr"]/' \
    -e 's/^# all_features = false/all_features = false/' \
    -e 's/^# default_features = true/default_features = true/' \
    cbindgen.toml >"$out/cbindgen.toml"
grep -q '^\[parse.expand\]' "$out/cbindgen.toml"
# cbindgen also reports on constants and private items it skips: keep that in
# a log, shown only if it fails.
if ! RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$out/target" \
    cbindgen --config "$out/cbindgen.toml" --crate nczarr --output "$out/exports.h" "$root" \
    >"$out/cbindgen.log" 2>&1; then
    cat "$out/cbindgen.log" >&2
    exit 1
fi

python3 - "$out" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
text = (out / "exports.h").read_text()
text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
protos = [p.strip() + ";" for p in text.split(";") if "(" in p]
def name(p):
    m = re.search(r"(\w+)\s*\(", p)
    return m.group(1)
exported = {name(p): p for p in protos}
declared = set()
for h in ["netcdf.h", "netcdf_filter.h", "netcdf_aux.h", "netcdf_mem.h", "netcdf_zarr.h"]:
    src = (pathlib.Path("include") / h).read_text()
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    for m in re.finditer(r"\b(n[cC]\w*|NC\w*)\s*\(", src):
        declared.add(m.group(1))
checked = sorted(n for n in exported if n in declared)
missing = sorted(n for n in declared if n not in exported and n.islower() or False)
with open(out / "check.c", "w") as f:
    f.write("#include <stddef.h>\n#include <stdint.h>\n")
    for h in ["netcdf.h", "netcdf_filter.h", "netcdf_aux.h", "netcdf_mem.h", "netcdf_zarr.h"]:
        f.write(f'#include "{h}"\n')
    for n in checked:
        f.write(exported[n] + "\n")
print(f"check-exports: {len(exported)} exported functions, {len(checked)} declared in include/ and compared")
PY
gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -Iinclude "$out/check.c"
echo "check-exports: every compared signature equals its declaration in include/"
