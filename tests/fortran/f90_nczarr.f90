! Fortran 90 (use netcdf) on an NCZarr dataset through this library:
! create with a group and several types, write two records, reopen and
! append a third along the unlimited dimension, reopen and verify all.
! Usage: f90_nczarr <directory>     (the dataset is <directory>/f90.zarr)
program f90_nczarr
  use netcdf
  implicit none
  integer, parameter :: nx = 4, nlen = 8
  character(len=4096) :: dir
  character(len=:), allocatable :: url
  integer :: ncid, grp, xdim, tdim, sdim, vtemp, vcount, vname, vshort, vbig, vf
  integer :: i, t, n, status
  real(kind=8) :: temp(nx, 3), tback(nx, 3)
  integer :: counts(nx), cback(nx)
  integer(kind=2) :: shorts(nx), sback(nx)
  integer(kind=8) :: big(nx), bback(nx)
  real(kind=4) :: fl(nx), fback(nx)
  character(len=nlen) :: names(nx), nback(nx)
  character(len=64) :: text
  real(kind=8) :: scale
  integer :: ival(2)

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) dir = "."
  url = "file://" // trim(dir) // "/f90.zarr#mode=nczarr,file"
  print *, "library: ", trim(nf90_inq_libvers())
  if (index(nf90_inq_libvers(), "nczarr") == 0) call fail("not running on the nczarr library")

  do t = 1, 3
    do i = 1, nx
      temp(i, t) = 100.0d0 * t + i + 0.5d0
    end do
  end do
  do i = 1, nx
    counts(i) = -i * 1000
    shorts(i) = int(i * 7 - 20, kind=2)
    big(i) = 3000000000_8 * i
    fl(i) = 0.25 * i
  end do
  names = (/ "alpha   ", "beta    ", "gamma   ", "delta   " /)

  ! --- create ---
  call check(nf90_create(url, NF90_CLOBBER, ncid), "create")
  call check(nf90_def_dim(ncid, "x", nx, xdim), "def_dim x")
  call check(nf90_def_dim(ncid, "time", NF90_UNLIMITED, tdim), "def_dim time")
  call check(nf90_def_var(ncid, "temp", NF90_DOUBLE, (/ xdim, tdim /), vtemp), "def_var temp")
  call check(nf90_put_att(ncid, vtemp, "units", "K"), "put_att units")
  call check(nf90_put_att(ncid, vtemp, "scale", 0.5d0), "put_att scale")
  call check(nf90_put_att(ncid, NF90_GLOBAL, "title", "Fortran 90 on NCZarr"), "put_att title")
  call check(nf90_put_att(ncid, NF90_GLOBAL, "ints", (/ 7, -9 /)), "put_att ints")
  call check(nf90_def_grp(ncid, "sub", grp), "def_grp")
  call check(nf90_def_dim(grp, "len", nlen, sdim), "def_dim len")
  call check(nf90_def_var(grp, "count", NF90_INT, (/ xdim /), vcount), "def_var count")
  call check(nf90_def_var(grp, "name", NF90_CHAR, (/ sdim, xdim /), vname), "def_var name")
  call check(nf90_def_var(grp, "short", NF90_SHORT, (/ xdim /), vshort), "def_var short")
  call check(nf90_def_var(grp, "big", NF90_INT64, (/ xdim /), vbig), "def_var big")
  call check(nf90_def_var(grp, "f", NF90_FLOAT, (/ xdim /), vf), "def_var f")
  call check(nf90_enddef(ncid), "enddef")
  call check(nf90_put_var(ncid, vtemp, temp(:, 1:2), start=(/ 1, 1 /), count=(/ nx, 2 /)), "put temp")
  call check(nf90_put_var(grp, vcount, counts), "put count")
  call check(nf90_put_var(grp, vname, names), "put name")
  call check(nf90_put_var(grp, vshort, shorts), "put short")
  call check(nf90_put_var(grp, vbig, big), "put big")
  call check(nf90_put_var(grp, vf, fl), "put f")
  call check(nf90_close(ncid), "close 1")

  ! --- reopen, append record 3 ---
  call check(nf90_open(url, NF90_WRITE, ncid), "open write")
  call check(nf90_inq_varid(ncid, "temp", vtemp), "inq_varid temp")
  call check(nf90_inquire_dimension(ncid, tdim, len=n), "inq time")
  if (n /= 2) call fail("time length before append")
  call check(nf90_put_var(ncid, vtemp, temp(:, 3), start=(/ 1, 3 /), count=(/ nx, 1 /)), "append temp")
  call check(nf90_close(ncid), "close 2")

  ! --- reopen, verify ---
  call check(nf90_open(url, NF90_NOWRITE, ncid), "open read")
  call check(nf90_inq_dimid(ncid, "time", tdim), "inq_dimid time")
  call check(nf90_inquire_dimension(ncid, tdim, len=n), "inq time 2")
  if (n /= 3) call fail("time length after append")
  call check(nf90_inq_varid(ncid, "temp", vtemp), "inq_varid temp 2")
  call check(nf90_get_var(ncid, vtemp, tback), "get temp")
  if (any(tback /= temp)) call fail("temp values")
  call check(nf90_get_att(ncid, vtemp, "units", text), "get units")
  if (text(1:1) /= "K") call fail("units")
  call check(nf90_get_att(ncid, vtemp, "scale", scale), "get scale")
  if (scale /= 0.5d0) call fail("scale")
  call check(nf90_get_att(ncid, NF90_GLOBAL, "title", text), "get title")
  if (trim(text) /= "Fortran 90 on NCZarr") call fail("title")
  call check(nf90_get_att(ncid, NF90_GLOBAL, "ints", ival), "get ints")
  if (ival(1) /= 7 .or. ival(2) /= -9) call fail("ints")
  call check(nf90_inq_ncid(ncid, "sub", grp), "inq_ncid sub")
  call check(nf90_inq_varid(grp, "count", vcount), "inq count")
  call check(nf90_get_var(grp, vcount, cback), "get count")
  if (any(cback /= counts)) call fail("count values")
  call check(nf90_inq_varid(grp, "name", vname), "inq name")
  call check(nf90_get_var(grp, vname, nback), "get name")
  if (any(nback /= names)) call fail("name values")
  call check(nf90_inq_varid(grp, "short", vshort), "inq short")
  call check(nf90_get_var(grp, vshort, sback), "get short")
  if (any(sback /= shorts)) call fail("short values")
  call check(nf90_inq_varid(grp, "big", vbig), "inq big")
  call check(nf90_get_var(grp, vbig, bback), "get big")
  if (any(bback /= big)) call fail("int64 values")
  call check(nf90_inq_varid(grp, "f", vf), "inq f")
  call check(nf90_get_var(grp, vf, fback), "get f")
  if (any(fback /= fl)) call fail("float values")
  status = nf90_inq_varid(ncid, "nope", vf)
  if (status /= NF90_ENOTVAR) call fail("missing variable is not NF90_ENOTVAR")
  call check(nf90_close(ncid), "close 3")
  print *, "f90_nczarr: OK"

contains
  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= NF90_NOERR) then
      print *, "f90_nczarr: ", what, ": ", trim(nf90_strerror(status))
      stop 1
    end if
  end subroutine check
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print *, "f90_nczarr: FAIL: ", what
    stop 1
  end subroutine fail
end program f90_nczarr
