#!/usr/bin/env bash
# Run one C test program (ctests/) with its datasets in S3: CTest's `s3` label.
# Needs the server of scripts/s3-server.sh (its env file sourced, as
# scripts/test-all.sh does); exits 77 (skipped) without it, and when testing the
# reference netcdf-c (NCZ_REFERENCE=1), which is built without S3.
#
# Usage: scripts/run-ctest-s3.sh PROGRAM
set -euo pipefail
prog=$1
if [ -z "${NCZ_S3_ENDPOINT:-}" ] || [ "${NCZ_REFERENCE:-0}" = 1 ]; then
    echo "skipped: no S3 test server (scripts/s3-server.sh start; source its env file)"
    exit 77
fi
# A fresh prefix per run; the key reaches the library as the standard variables.
export NCZ_TEST_S3_URL="$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET/ctests-$(date +%s)-$$"
export AWS_ACCESS_KEY_ID="$NCZ_S3_ACCESS_KEY_ID" AWS_SECRET_ACCESS_KEY="$NCZ_S3_SECRET_ACCESS_KEY"
export AWS_REGION="$NCZ_S3_REGION" HOME="${TMPDIR:-/tmp}" NCRCENV_IGNORE=1
exec "$prog"
