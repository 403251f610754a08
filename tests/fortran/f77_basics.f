! Fortran 77 style (include 'mpif.h'): point-to-point with status fields and
! MPI_ANY_SOURCE, collectives, MPI_IN_PLACE, a vector of REAL, names (CHARACTER),
! MPI_Wtime, MPI_STATUS_IGNORE. Each check stops the job with a message on failure.
      PROGRAM F77BASICS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, I, ISUM, STATUS(MPI_STATUS_SIZE), COUNT
      INTEGER BUF(4), ALL(64), VTYPE, LEN
      DOUBLE PRECISION DSUM, T0
      REAL A(12), B(12)
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) PNAME
      CALL MPI_INIT(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      T0 = MPI_WTIME()
      IF (RANK .EQ. 0) THEN
         DO I = 1, NP - 1
C           a call of one status leaves its error field (MPI-4.1 3.2.5)
            STATUS(MPI_ERROR) = -77
            CALL MPI_RECV(BUF, 4, MPI_INTEGER, MPI_ANY_SOURCE, 7,
     &                    MPI_COMM_WORLD, STATUS, IERR)
            CALL CHECK(STATUS(MPI_TAG) .EQ. 7, 'status tag')
            CALL CHECK(BUF(1) .EQ. STATUS(MPI_SOURCE), 'status source')
            CALL CHECK(STATUS(MPI_ERROR) .EQ. -77, 'status error kept')
            CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
            CALL CHECK(COUNT .EQ. 4, 'MPI_GET_COUNT')
            CALL CHECK(BUF(4) .EQ. 3 * BUF(1), 'received data')
         END DO
      ELSE
         BUF(1) = RANK
         BUF(2) = RANK * 1
         BUF(3) = RANK * 2
         BUF(4) = RANK * 3
         CALL MPI_SEND(BUF, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, IERR)
      END IF
! bcast, reduce (INTEGER and DOUBLE PRECISION), allreduce in place, gather
      I = 0
      IF (RANK .EQ. 0) I = 42
      CALL MPI_BCAST(I, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(I .EQ. 42, 'MPI_BCAST')
      CALL MPI_REDUCE(RANK + 1, ISUM, 1, MPI_INTEGER, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) CALL CHECK(ISUM .EQ. NP * (NP + 1) / 2, 'reduce')
      DSUM = 0.5D0 * RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, DSUM, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_SUM, MPI_COMM_WORLD, IERR)
      CALL CHECK(DSUM .EQ. 0.25D0 * NP * (NP - 1), 'allreduce in place')
      CALL MPI_GATHER(RANK * 10, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         DO I = 1, NP
            CALL CHECK(ALL(I) .EQ. (I - 1) * 10, 'gather')
         END DO
      END IF
! a vector of REAL: every third of 12, sent to self
      CALL MPI_TYPE_VECTOR(4, 1, 3, MPI_REAL, VTYPE, IERR)
      CALL MPI_TYPE_COMMIT(VTYPE, IERR)
      DO I = 1, 12
         A(I) = I
         B(I) = 0
      END DO
      CALL MPI_SENDRECV(A, 1, VTYPE, RANK, 1, B, 4, MPI_REAL, RANK, 1,
     &                  MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'sendrecv')
      CALL CHECK(B(1) .EQ. 1 .AND. B(2) .EQ. 4 .AND. B(4) .EQ. 10,
     &           'vector of REAL')
      CALL MPI_TYPE_FREE(VTYPE, IERR)
      CALL CHECK(VTYPE .EQ. MPI_DATATYPE_NULL, 'type freed')
! names: CHARACTER in and out, blank-padded
      CALL MPI_COMM_SET_NAME(MPI_COMM_WORLD, 'fortran world   ', IERR)
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, LEN, IERR)
      CALL CHECK(LEN .EQ. 13, 'name length (trailing blanks cut)')
      CALL CHECK(NAME .EQ. 'fortran world', 'name')
      CALL CHECK(NAME(14:14) .EQ. ' ', 'name blank-padded')
      CALL MPI_GET_PROCESSOR_NAME(PNAME, LEN, IERR)
      CALL CHECK(LEN .GT. 0 .AND. PNAME(LEN+1:LEN+1) .EQ. ' ',
     &           'processor name')
      CALL CHECK(MPI_WTIME() .GE. T0, 'MPI_WTIME')
      CALL CHECK(MPI_WTICK() .GT. 0, 'MPI_WTICK')
      CALL MPI_F_SYNC_REG(ISUM)
      CALL MPI_FINALIZE(IERR)
      IF (RANK .EQ. 0) PRINT *, 'f77_basics: ok on', NP
      END

      SUBROUTINE CHECK(OK, WHAT)
      LOGICAL OK
      CHARACTER*(*) WHAT
      INCLUDE 'mpif.h'
      INTEGER IERR
      IF (.NOT. OK) THEN
         PRINT *, 'FAILED: ', WHAT
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END
