! f_par.f90 -- netcdf-fortran's parallel API (nf90_create_par, nf90_open_par,
! nf90_var_par_access) through Debian's libnetcdff on this library: every
! process writes its block of a 1-D variable whose chunks do not follow the
! blocks, in collective mode, then every process reads the whole variable
! back through nf90_open_par and checks it.
! Usage: mpirun -np N f_par DIR
program f_par
  use mpi
  use netcdf
  implicit none
  integer, parameter :: n = 23
  integer :: ierr, rank, nprocs, ncid, dimid, varid, i, lo, hi, fails, total
  integer :: vals(n)
  character(len=4096) :: dir, url

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  url = 'file://' // trim(dir) // '/f_par.zarr#mode=nczarr,file'
  fails = 0

  call check(nf90_create_par(trim(url), ior(NF90_CLOBBER, NF90_NETCDF4), MPI_COMM_WORLD, &
       MPI_INFO_NULL, ncid), 'nf90_create_par')
  call check(nf90_def_dim(ncid, 'x', n, dimid), 'nf90_def_dim')
  call check(nf90_def_var(ncid, 'v', NF90_INT, (/ dimid /), varid, chunksizes=(/ 5 /)), 'nf90_def_var')
  call check(nf90_enddef(ncid), 'nf90_enddef')
  call check(nf90_var_par_access(ncid, varid, NF90_COLLECTIVE), 'nf90_var_par_access')
  lo = n * rank / nprocs + 1
  hi = n * (rank + 1) / nprocs
  do i = lo, hi
    vals(i) = 100 * i + 7
  end do
  call check(nf90_put_var(ncid, varid, vals(lo:hi), start=(/ lo /), count=(/ hi - lo + 1 /)), 'nf90_put_var')
  call check(nf90_close(ncid), 'nf90_close')

  vals = 0
  call check(nf90_open_par(trim(url), NF90_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, ncid), 'nf90_open_par')
  call check(nf90_get_var(ncid, varid, vals), 'nf90_get_var')
  call check(nf90_close(ncid), 'nf90_close')
  do i = 1, n
    if (vals(i) /= 100 * i + 7) then
      print '(a,i0,a,i0,a,i0)', 'FAIL rank ', rank, ': v(', i, ') = ', vals(i)
      fails = fails + 1
    end if
  end do

  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'f_par: ', nprocs, ' processes: ok'
    else
      print '(a,i0,a,i0,a)', 'f_par: ', nprocs, ' processes: FAILED (', total, ' failures)'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains
  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= NF90_NOERR) then
      print '(a,i0,a,a,a,a)', 'FAIL rank ', rank, ': ', what, ': ', trim(nf90_strerror(status))
      fails = fails + 1
    end if
  end subroutine check
end program f_par
