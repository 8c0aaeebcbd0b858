#!/usr/bin/env bash
# Parallel I/O (MPI) on Zarr: the C programs of tests/mpi/, built with Open
# MPI's mpicc against include/ and run on this library:
#   t_nompi         a serial program built without MPI: nc_create_par_fortran
#                   and nc_open_par_fortran answer NC_ENOPAR, serial I/O works;
#   t_noinit        an MPI program that never calls MPI_Init: NC_ENOPAR;
#   t_par           mpirun -np 1, 2, 3 and 4 (--oversubscribe): create, define,
#                   write (aligned and unaligned, strided, unlimited, zstd,
#                   collective and independent; Zarr v2, and v3 with shards)
#                   and read back on every process; error agreement;
#                   refusals (par_layout.h);
#   t_par_one       mpirun -np 1: a dataset of one process takes the serial
#                   engine's route (its partial-chunk writes read back at
#                   once, in independent and collective mode; its
#                   NCZARR_MPI_STATS lines say exchanges=0);
#   t_serial_check  after each run, one process without MPI reads the dataset
#                   and checks every value;
#   f_par           netcdf-fortran's nf90_create_par / nf90_open_par through
#                   Debian's libnetcdff (built with mpifort), -np 1..4;
#   t_par_nc        t_par.c built again (-DPAR_SYSTEM_NETCDF) against Debian's
#                   parallel netcdf-c (libnetcdf-mpi-dev: netCDF-4/HDF5 over
#                   MPI-IO), -np 1..4: the same variables and decompositions
#                   written to par.nc and checked on every process; then
#                   Debian's serial ncdump of par.nc must equal, line for
#                   line after the first, ncdump through this library of the
#                   Zarr v2 and v3 datasets t_par wrote with as many processes.
#                   Without libnetcdf-mpi-dev the step fails, unless
#                   NCZ_MPI_NO_SYSTEM=1 skips this comparison (with a line);
#   t_par_delegate  nc_create_par / nc_open_par of a netCDF-4 file through this
#                   library go to Debian's parallel libnetcdf (-np 2 and 4;
#                   built with -fPIC): groups, collective writes, read-back,
#                   the _fortran variant; the file's ncdump through this
#                   library (serial delegation) equals Debian's; a new
#                   variable there has the chunk cache nc_set_chunk_cache set; with
#                   NCZARR_SYSTEM_NETCDF_MPI=none, and built without -fPIC
#                   (copies of Open MPI's objects in the executable), both
#                   calls answer NC_ENOPAR.
# t_par and t_serial_check run again with the datasets in S3 (-np 2 and 4),
# on the test server of scripts/s3-server.sh (its env file is read when
# NCZ_S3_ENDPOINT is not set); NCZ_S3=0 leaves S3 out, as everywhere.
# Every run is under `timeout`, so a deadlock fails the step instead of
# hanging it. Needs libopenmpi-dev and openmpi-bin, gfortran and libnetcdff-dev,
# and for the comparison libnetcdf-mpi-dev (scripts/install-deps.sh);
# without mpicc or mpirun it fails (test-all.sh skips it with NCZ_SKIP=mpi).
#
# Usage: scripts/test-mpi.sh [LIBDIR]   (default build/lib, else target/release)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
libdir="${1:-}"
if [ -z "$libdir" ]; then
    if [ -e build/lib/libnetcdf.so.22 ]; then libdir=build/lib; else libdir=target/release; fi
fi
libdir="$(cd "$libdir" && pwd)"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "test-mpi: mpicc or mpirun missing (apt-get install libopenmpi-dev openmpi-bin, or scripts/install-deps.sh)" >&2
    exit 2
fi
out="$root/target/mpi-tests"
rm -rf "$out"
mkdir -p "$out/data"
cflags=(-std=c11 -Wall -Wextra -Werror -I"$root/include" -I"$root/tests/mpi")
libs=(-L"$libdir" -Wl,-rpath,"$libdir" -lnetcdf)
gcc "${cflags[@]}" tests/mpi/t_nompi.c -o "$out/t_nompi" "${libs[@]}"
gcc "${cflags[@]}" tests/mpi/t_serial_check.c -o "$out/t_serial_check" "${libs[@]}"
mpicc "${cflags[@]}" tests/mpi/t_noinit.c -o "$out/t_noinit" "${libs[@]}"
mpicc "${cflags[@]}" tests/mpi/t_par.c -o "$out/t_par" "${libs[@]}"
mpicc "${cflags[@]}" tests/mpi/t_par_one.c -o "$out/t_par_one" "${libs[@]}"
mpicc "${cflags[@]}" -fPIC tests/mpi/t_par_delegate.c -o "$out/t_par_delegate" "${libs[@]}"
mpicc "${cflags[@]}" tests/mpi/t_par_delegate.c -o "$out/t_par_delegate_pie" "${libs[@]}"
# (Outputs are captured before grep: under pipefail, `cmd | grep -q` fails
# when grep stops reading early and cmd dies of SIGPIPE.)
has() { grep -q -- "$2" <<<"$1"; }
if ! has "$(readelf -rW "$out/t_par_delegate_pie")" "R_X86_64_COPY.*ompi_mpi_info_null"; then
    echo "test-mpi: FAIL: t_par_delegate_pie has no copy relocation of ompi_mpi_info_null" >&2
    exit 1
fi
[ -f /usr/include/netcdf.mod ] || { echo "test-mpi: libnetcdff-dev missing (scripts/install-deps.sh)" >&2; exit 2; }
# Debian's libnetcdff NEEDs libnetcdf.so.19: found in $libdir first.
mpifort -Wall -Werror -J "$out" -I/usr/include tests/mpi/f_par.f90 -o "$out/f_par" -lnetcdff
# Debian's parallel netcdf-c (its own headers, its libnetcdf_mpi.so.19).
parnc=/usr/lib/x86_64-linux-gnu/netcdf/mpi
have_parnc=0
if [ -f "$parnc/include/netcdf_par.h" ] && [ -e "$parnc/libnetcdf.so" ]; then
    have_parnc=1
    mpicc -std=c11 -Wall -Wextra -Werror -DPAR_SYSTEM_NETCDF -I"$parnc/include" -I"$root/tests/mpi" \
        tests/mpi/t_par.c -o "$out/t_par_nc" -L"$parnc" -Wl,-rpath,"$parnc" -lnetcdf
    if ! has "$(ldd "$out/t_par_nc")" libnetcdf_mpi.so; then
        echo "test-mpi: FAIL: t_par_nc does not load Debian's libnetcdf_mpi.so" >&2
        exit 1
    fi
elif [ "${NCZ_MPI_NO_SYSTEM:-0}" = 1 ]; then
    echo "test-mpi: no Debian parallel netcdf-c ($parnc): its comparison is skipped (NCZ_MPI_NO_SYSTEM=1)"
else
    echo "test-mpi: Debian's parallel netcdf-c missing ($parnc; apt-get install libnetcdf-mpi-dev, or scripts/install-deps.sh; NCZ_MPI_NO_SYSTEM=1 skips its comparison)" >&2
    exit 2
fi
if ! has "$(LD_LIBRARY_PATH="$libdir" ldd "$out/f_par")" "libnetcdf.so.19 => $libdir/"; then
    echo "test-mpi: FAIL: f_par does not load libnetcdf.so.19 from $libdir" >&2
    exit 1
fi
# The serial programs must not load libmpi at all.
if has "$(ldd "$out/t_nompi")" libmpi; then
    echo "test-mpi: FAIL: t_nompi loads libmpi" >&2
    exit 1
fi
fail=0
run() { # NAME COMMAND...
    local name=$1
    shift
    if timeout 300 "$@"; then
        echo "test-mpi: $name: ok"
    else
        echo "test-mpi: $name: FAILED (exit $?)"
        fail=1
    fi
}
# Debian's serial ncdump on its own library (no LD_LIBRARY_PATH) dumps par.nc;
# the same ncdump on this library dumps the Zarr datasets; all but the first
# line (the dataset's name) must be equal.
same_values() { # NAME DIR
    local name=$1 dir=$2 ok=1 v
    env -u LD_LIBRARY_PATH ncdump "$dir/par.nc" | tail -n +2 >"$dir/par.nc.cdl" || ok=0
    for v in "par.zarr#mode=nczarr,file" "par3.zarr#mode=nczarr,v3,file"; do
        ncdump "file://$dir/$v" | tail -n +2 >"$dir/zarr.cdl" || ok=0
        if ! diff -u "$dir/par.nc.cdl" "$dir/zarr.cdl" >"$dir/cdl.diff"; then
            head -20 "$dir/cdl.diff"
            ok=0
        fi
    done
    if [ $ok = 1 ] && [ -s "$dir/par.nc.cdl" ]; then
        echo "test-mpi: $name: ok"
    else
        echo "test-mpi: $name: FAILED"
        fail=1
    fi
}
export LD_LIBRARY_PATH="$libdir"
run "serial program, no MPI" "$out/t_nompi" "$out/data"
run "MPI program without MPI_Init" "$out/t_noinit" "$out/data"
mpirun_flags=(--oversubscribe -x LD_LIBRARY_PATH)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
# Shared memory between the processes only (no network probing).
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
mkdir -p "$out/data/one"
run "t_par_one -np 1" env NCZARR_MPI_STATS="$out/data/one/stats" \
    mpirun "${mpirun_flags[@]}" -x NCZARR_MPI_STATS -np 1 "$out/t_par_one" "$out/data/one"
for np in 1 2 3 4; do
    dir="$out/data/np$np"
    mkdir -p "$dir"
    run "t_par -np $np" mpirun "${mpirun_flags[@]}" -np "$np" "$out/t_par" "$dir"
    run "serial read-back of -np $np" "$out/t_serial_check" "$dir" "$np"
    run "Fortran f_par -np $np" mpirun "${mpirun_flags[@]}" -np "$np" "$out/f_par" "$dir"
    if [ $have_parnc = 1 ]; then
        run "t_par_nc -np $np (Debian's parallel netcdf-c)" mpirun "${mpirun_flags[@]}" -np "$np" "$out/t_par_nc" "$dir"
        same_values "ncdump of par.nc = of par.zarr and par3.zarr, -np $np" "$dir"
    fi
done
for np in 2 4; do
    dir="$out/data/del-np$np"
    mkdir -p "$dir"
    run "t_par_delegate -np $np, no parallel library" env NCZARR_SYSTEM_NETCDF_MPI=none \
        mpirun "${mpirun_flags[@]}" -x NCZARR_SYSTEM_NETCDF_MPI -np "$np" "$out/t_par_delegate" "$dir" none
    if [ $have_parnc = 1 ]; then
        run "t_par_delegate -np $np, Debian's parallel libnetcdf" mpirun "${mpirun_flags[@]}" -np "$np" \
            "$out/t_par_delegate" "$dir" par
        run "t_par_delegate -np $np, built without -fPIC: NC_ENOPAR" mpirun "${mpirun_flags[@]}" -np "$np" \
            "$out/t_par_delegate_pie" "$dir" none
        if ncdump "$dir/del.nc" >"$dir/ours.cdl" && env -u LD_LIBRARY_PATH ncdump "$dir/del.nc" >"$dir/debian.cdl" &&
            diff -u "$dir/debian.cdl" "$dir/ours.cdl"; then
            echo "test-mpi: ncdump of del.nc -np $np through this library = Debian's: ok"
        else
            echo "test-mpi: ncdump of del.nc -np $np through this library = Debian's: FAILED"
            fail=1
        fi
    fi
done
if [ "${NCZ_S3:-1}" != 0 ]; then
    if [ -z "${NCZ_S3_ENDPOINT:-}" ] && [ -f target/s3-server/env ]; then
        # shellcheck disable=SC1091
        source target/s3-server/env
    fi
    if [ -z "${NCZ_S3_ENDPOINT:-}" ]; then
        echo "test-mpi: no S3 server (scripts/s3-server.sh start; NCZ_S3=0 leaves S3 out)" >&2
        exit 1
    fi
    # The key reaches the library as the standard variables.
    export AWS_ACCESS_KEY_ID="$NCZ_S3_ACCESS_KEY_ID" AWS_SECRET_ACCESS_KEY="$NCZ_S3_SECRET_ACCESS_KEY"
    export AWS_REGION="$NCZ_S3_REGION" NCRCENV_IGNORE=1
    for np in 2 4; do
        export NCZ_TEST_S3_URL="$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET/mpi-$(date +%s)-$$-np$np"
        dir="$out/data/s3-np$np"
        mkdir -p "$dir"
        run "t_par -np $np, S3" mpirun "${mpirun_flags[@]}" -x NCZ_TEST_S3_URL -x AWS_ACCESS_KEY_ID -x AWS_SECRET_ACCESS_KEY -x AWS_REGION -x NCRCENV_IGNORE -np "$np" "$out/t_par" "$dir"
        run "serial read-back of -np $np, S3" "$out/t_serial_check" "$dir" "$np"
    done
    unset NCZ_TEST_S3_URL
fi
exit $fail
