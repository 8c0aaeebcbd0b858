C     The F77 API (include 'netcdf.inc') on an NCZarr dataset through
C     this library: create, write two records, reopen and append a third
C     along the unlimited dimension, reopen and verify; then read it again
C     through the netCDF-2 Fortran API (NCOPN, NCVGT, ...), which
C     libnetcdff implements on this library's nc* v2 functions.
C     Usage: f77_nczarr <directory>   (the dataset is <directory>/f77.zarr)
      PROGRAM F77NCZ
      IMPLICIT NONE
      INCLUDE 'netcdf.inc'
      INTEGER NX
      PARAMETER (NX = 5)
      CHARACTER*4096 DIR
      CHARACTER*4200 URL
      INTEGER NCID, XD, TD, DIMS(2), XDS(1), VT, VI, VC, I, T, N, ST
      INTEGER START(2), CNT(2)
      DOUBLE PRECISION TEMP(NX, 3), TBACK(NX, 3)
      INTEGER IVALS(NX), IBACK(NX)
      CHARACTER*(NX) CVALS, CBACK
      CHARACTER*80 TEXT
      INTEGER RCODE, V2ID, V2VAR, V2DIM, V2LEN
      CHARACTER*(MAXNCNAM) V2NAME
      INTEGER V2START(2), V2CNT(2)
      DOUBLE PRECISION V2VALS(NX, 3)

      CALL GETARG(1, DIR)
      IF (DIR .EQ. ' ') DIR = '.'
      URL = 'file://' // DIR(1:LEN_TRIM(DIR)) //
     +      '/f77.zarr#mode=nczarr,file'
      TEXT = NF_INQ_LIBVERS()
      IF (INDEX(TEXT, 'nczarr') .EQ. 0) CALL FAIL('not nczarr', 0)

      DO 20 T = 1, 3
        DO 10 I = 1, NX
          TEMP(I, T) = 10.0D0 * T + I
   10   CONTINUE
   20 CONTINUE
      DO 30 I = 1, NX
        IVALS(I) = I * I - 7
   30 CONTINUE
      CVALS = 'abcde'

C     --- create ---
      ST = NF_CREATE(URL, NF_CLOBBER, NCID)
      CALL CHK(ST, 'create')
      CALL CHK(NF_DEF_DIM(NCID, 'x', NX, XD), 'def_dim x')
      CALL CHK(NF_DEF_DIM(NCID, 'time', NF_UNLIMITED, TD), 'def_dim t')
      DIMS(1) = XD
      DIMS(2) = TD
      CALL CHK(NF_DEF_VAR(NCID, 'temp', NF_DOUBLE, 2, DIMS, VT),
     +         'def_var temp')
      XDS(1) = XD
      CALL CHK(NF_DEF_VAR(NCID, 'ival', NF_INT, 1, XDS, VI),
     +         'def_var ival')
      CALL CHK(NF_DEF_VAR(NCID, 'cval', NF_CHAR, 1, XDS, VC),
     +         'def_var cval')
      CALL CHK(NF_PUT_ATT_TEXT(NCID, NF_GLOBAL, 'title', 11,
     +         'F77 on Zarr'), 'put_att')
      CALL CHK(NF_ENDDEF(NCID), 'enddef')
      START(1) = 1
      START(2) = 1
      CNT(1) = NX
      CNT(2) = 2
      CALL CHK(NF_PUT_VARA_DOUBLE(NCID, VT, START, CNT, TEMP),
     +         'put temp')
      CALL CHK(NF_PUT_VAR_INT(NCID, VI, IVALS), 'put ival')
      CALL CHK(NF_PUT_VAR_TEXT(NCID, VC, CVALS), 'put cval')
      CALL CHK(NF_CLOSE(NCID), 'close 1')

C     --- append record 3 ---
      CALL CHK(NF_OPEN(URL, NF_WRITE, NCID), 'open write')
      CALL CHK(NF_INQ_VARID(NCID, 'temp', VT), 'inq temp')
      START(2) = 3
      CNT(2) = 1
      CALL CHK(NF_PUT_VARA_DOUBLE(NCID, VT, START, CNT, TEMP(1, 3)),
     +         'append')
      CALL CHK(NF_CLOSE(NCID), 'close 2')

C     --- verify ---
      CALL CHK(NF_OPEN(URL, NF_NOWRITE, NCID), 'open read')
      CALL CHK(NF_INQ_DIMID(NCID, 'time', TD), 'inq time')
      CALL CHK(NF_INQ_DIMLEN(NCID, TD, N), 'inq time len')
      IF (N .NE. 3) CALL FAIL('time length', N)
      CALL CHK(NF_INQ_VARID(NCID, 'temp', VT), 'inq temp 2')
      CALL CHK(NF_GET_VAR_DOUBLE(NCID, VT, TBACK), 'get temp')
      DO 50 T = 1, 3
        DO 40 I = 1, NX
          IF (TBACK(I, T) .NE. TEMP(I, T)) CALL FAIL('temp', I)
   40   CONTINUE
   50 CONTINUE
      CALL CHK(NF_INQ_VARID(NCID, 'ival', VI), 'inq ival')
      CALL CHK(NF_GET_VAR_INT(NCID, VI, IBACK), 'get ival')
      DO 60 I = 1, NX
        IF (IBACK(I) .NE. IVALS(I)) CALL FAIL('ival', I)
   60 CONTINUE
      CALL CHK(NF_INQ_VARID(NCID, 'cval', VC), 'inq cval')
      CALL CHK(NF_GET_VAR_TEXT(NCID, VC, CBACK), 'get cval')
      IF (CBACK .NE. CVALS) CALL FAIL('cval', 0)
      TEXT = ' '
      CALL CHK(NF_GET_ATT_TEXT(NCID, NF_GLOBAL, 'title', TEXT), 'att')
      IF (TEXT .NE. 'F77 on Zarr') CALL FAIL('title', 0)
      ST = NF_INQ_VARID(NCID, 'nope', VC)
      IF (ST .NE. NF_ENOTVAR) CALL FAIL('missing variable', ST)
      CALL CHK(NF_CLOSE(NCID), 'close 3')

C     --- the same data through the netCDF-2 Fortran API ---
      V2ID = NCOPN(URL, NCNOWRIT, RCODE)
      IF (RCODE .NE. 0) CALL FAIL('ncopn', RCODE)
      V2DIM = NCDID(V2ID, 'time', RCODE)
      IF (RCODE .NE. 0) CALL FAIL('ncdid', RCODE)
      CALL NCDINQ(V2ID, V2DIM, V2NAME, V2LEN, RCODE)
      IF (RCODE .NE. 0 .OR. V2LEN .NE. 3) CALL FAIL('ncdinq', V2LEN)
      V2VAR = NCVID(V2ID, 'temp', RCODE)
      IF (RCODE .NE. 0) CALL FAIL('ncvid', RCODE)
      V2START(1) = 1
      V2START(2) = 1
      V2CNT(1) = NX
      V2CNT(2) = 3
      CALL NCVGT(V2ID, V2VAR, V2START, V2CNT, V2VALS, RCODE)
      IF (RCODE .NE. 0) CALL FAIL('ncvgt', RCODE)
      DO 80 T = 1, 3
        DO 70 I = 1, NX
          IF (V2VALS(I, T) .NE. TEMP(I, T)) CALL FAIL('ncvgt value', I)
   70   CONTINUE
   80 CONTINUE
C     an error with NCVERBOS off and NCFATAL off: just a code
      CALL NCPOPT(0)
      V2VAR = NCVID(V2ID, 'nope', RCODE)
      IF (RCODE .NE. NF_ENOTVAR) CALL FAIL('ncvid nope', RCODE)
      CALL NCCLOS(V2ID, RCODE)
      IF (RCODE .NE. 0) CALL FAIL('ncclos', RCODE)
      PRINT *, 'f77_nczarr: OK'
      END

      SUBROUTINE CHK(ST, WHAT)
      IMPLICIT NONE
      INCLUDE 'netcdf.inc'
      INTEGER ST
      CHARACTER*(*) WHAT
      IF (ST .NE. NF_NOERR) THEN
        PRINT *, 'f77_nczarr: ', WHAT, ': ', NF_STRERROR(ST)
        STOP 1
      END IF
      END

      SUBROUTINE FAIL(WHAT, N)
      IMPLICIT NONE
      CHARACTER*(*) WHAT
      INTEGER N
      PRINT *, 'f77_nczarr: FAIL: ', WHAT, N
      STOP 1
      END
