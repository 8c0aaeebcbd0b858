#!/usr/bin/env bash
# What the benchmark suite needs beyond scripts/install-deps.sh (which it runs
# first): the codec libraries the limits program measures (libdeflate, zstd,
# blosc: the ones our codecs use), and the context engines in the project's venv.
# Idempotent; bench/run.sh runs it (set NCZ_BENCH_NO_INSTALL=1 to skip).
#
# Env: NCZ_VENV  the venv (default $HOME/.cache/nczarr-venv)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >/dev/null

APT_PACKAGES=(libdeflate-dev libzstd-dev libblosc-dev libisal-dev)
# Versions that install on Python 3.11 with zarr 3.1.6 (checked 2026-11).
PIP_PACKAGES=(zarrs==0.2.3 tensorstore==0.1.86 s3fs==2026.9.0 obstore==0.12.1)

say() { echo "bench/install-deps: $*"; }
missing=()
for p in "${APT_PACKAGES[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo -n)
    say "apt: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
if ! "$venv/bin/python" - "${PIP_PACKAGES[@]}" <<'PY'
import sys
from importlib import metadata
for spec in sys.argv[1:]:
    name, _, version = spec.partition("==")
    try:
        if metadata.version(name) != version:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
PY
then
    say "venv: pip install ${PIP_PACKAGES[*]}"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${PIP_PACKAGES[@]}"
fi
