#!/usr/bin/env bash
# Print the path of the reference netcdf-c 4.10.1: the libnetcdf that the
# netCDF4 wheel in the venv bundles and its extension module loads. The wheel
# keeps it under a hash-named file name (libnetcdf-<hash>.so.22 in a *.libs
# directory); this asks the venv's Python where the netCDF4 package is and
# the loader which libnetcdf its extension module opens, so neither the hash
# nor the directory's name is written down anywhere.
#
# Usage: scripts/ref-libnetcdf.sh            (exit 1, with the reason on stderr, when not found)
# Env:   NCZ_VENV  the venv of scripts/install-deps.sh (default $HOME/.cache/nczarr-venv)
set -euo pipefail
venv=${NCZ_VENV:-$HOME/.cache/nczarr-venv}
py="$venv/bin/python"
fail() {
    echo "ref-libnetcdf: $* (scripts/install-deps.sh installs it)" >&2
    exit 1
}
[ -x "$py" ] || fail "no Python venv at $venv"
ext=$("$py" - <<'EOF'
import glob, importlib.util, os, sys
spec = importlib.util.find_spec("netCDF4")
if spec is None or not spec.submodule_search_locations:
    sys.exit("netCDF4 is not installed in this venv")
found = sorted(glob.glob(os.path.join(spec.submodule_search_locations[0], "_netCDF4*.so")))
if not found:
    sys.exit("netCDF4 has no _netCDF4 extension module")
print(found[0])
EOF
) || fail "netCDF4 not found in $venv"
# Without LD_LIBRARY_PATH, which may put another libnetcdf first.
deps=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$ext") || fail "ldd $ext failed"
lib=$(awk '$1 ~ /^libnetcdf[-.]/ && $2 == "=>" { print $3; exit }' <<<"$deps")
[ -n "$lib" ] && [ -f "$lib" ] || fail "$ext loads no libnetcdf: $(tr '\n' ' ' <<<"$deps")"
realpath "$lib"
