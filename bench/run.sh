#!/usr/bin/env bash
# The benchmark suite's one command (issue 6): builds the library and the C
# programs, runs every workload on this library and on netcdf-c 4.10.1 (the
# netCDF4 wheel's), with zarr-python + zarrs and tensorstore for context, and
# writes bench/results/<date>[-quick].md. Options: see bench/run.py --help.
#   bench/run.sh --quick            # the small preset (a few minutes: two places, S3)
#   bench/run.sh                    # the full suite (1 GiB per W1 store)
#   bench/run.sh --build-only       # compile only (scripts/test-all.sh runs this)
# Env: NCZ_VENV  the venv from scripts/install-deps.sh (default ~/.cache/nczarr-venv)
#      NCZ_BENCH_NO_INSTALL=1  skip bench/install-deps.sh (apt + pip, idempotent)
set -euo pipefail
cd "$(dirname "$0")/.."
case " $* " in
*" --build-only "*) ;;
*) [ "${NCZ_BENCH_NO_INSTALL:-0}" = 1 ] || bash bench/install-deps.sh ;;
esac
venv="${NCZ_VENV:-$HOME/.cache/nczarr-venv}"
py="$venv/bin/python"
[ -x "$py" ] || py=python3
exec "$py" bench/run.py --python "$py" "$@"
