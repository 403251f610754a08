! Fortran 77 style (include 'mpif.h') as old programs (NPB's BT, CG ...) are written:
! one MPI call on buffers of different types and ranks in the same file (an INTEGER,
! an INTEGER array, DOUBLE PRECISION and COMPLEX*16 arrays, LOGICALs), which
! gfortran 10 and later refuse to compile unless the flags mpifort and the mpifort
! CMake target add allow it. Each check stops the job with a message on failure.
      PROGRAM F77BUFFERS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, I, N, PEER, REQ(2)
      INTEGER STATUS(MPI_STATUS_SIZE), STATS(MPI_STATUS_SIZE, 2)
      INTEGER IV(4)
      DOUBLE PRECISION D, DV(4)
      DOUBLE COMPLEX Z(2)
      LOGICAL L, LV(2)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
!     bcast: an INTEGER, then a DOUBLE PRECISION array, then LOGICALs
      N = 0
      IF (RANK .EQ. 0) N = 42
      CALL MPI_BCAST(N, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(N .EQ. 42, 'bcast INTEGER')
      DO I = 1, 4
         DV(I) = 0.0D0
         IF (RANK .EQ. 0) DV(I) = 0.5D0 * I
      END DO
      CALL MPI_BCAST(DV, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &               IERR)
      CALL CHECK(DV(3) .EQ. 1.5D0, 'bcast DOUBLE PRECISION array')
      LV(1) = RANK .EQ. 0
      LV(2) = RANK .NE. 0
      CALL MPI_BCAST(LV, 2, MPI_LOGICAL, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(LV(1) .AND. .NOT. LV(2), 'bcast LOGICAL array')
!     allreduce: a DOUBLE PRECISION scalar, then an INTEGER array, a LOGICAL
      CALL MPI_ALLREDUCE(DBLE(RANK + 1), D, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_SUM, MPI_COMM_WORLD, IERR)
      CALL CHECK(D .EQ. DBLE(NP * (NP + 1) / 2), 'allreduce DOUBLE')
      DO I = 1, 4
         IV(I) = RANK * I
      END DO
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, IV, 4, MPI_INTEGER, MPI_MAX,
     &                   MPI_COMM_WORLD, IERR)
      CALL CHECK(IV(4) .EQ. 4 * (NP - 1), 'allreduce INTEGER array')
      CALL MPI_ALLREDUCE(RANK .EQ. NP - 1, L, 1, MPI_LOGICAL, MPI_LOR,
     &                   MPI_COMM_WORLD, IERR)
      CALL CHECK(L, 'allreduce LOGICAL')
!     point to point around a ring: COMPLEX*16 with ISEND/IRECV, then an
!     INTEGER scalar and a DOUBLE PRECISION array with SEND/RECV
      PEER = MOD(RANK + 1, NP)
      Z(1) = DCMPLX(DBLE(RANK), -1.0D0)
      Z(2) = DCMPLX(0.0D0, 0.0D0)
      CALL MPI_IRECV(Z(2), 1, MPI_DOUBLE_COMPLEX, MPI_ANY_SOURCE, 1,
     &               MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_ISEND(Z(1), 1, MPI_DOUBLE_COMPLEX, PEER, 1,
     &               MPI_COMM_WORLD, REQ(2), IERR)
      CALL MPI_WAITALL(2, REQ, STATS, IERR)
      CALL CHECK(DBLE(Z(2)) .EQ. DBLE(MOD(RANK + NP - 1, NP)) .AND.
     &           DIMAG(Z(2)) .EQ. -1.0D0, 'ring DOUBLE COMPLEX')
      IF (RANK .EQ. 0) THEN
         DO I = 1, NP - 1
            CALL MPI_RECV(N, 1, MPI_INTEGER, I, 2, MPI_COMM_WORLD,
     &                    STATUS, IERR)
            CALL CHECK(N .EQ. 10 * I, 'recv INTEGER')
            CALL MPI_RECV(DV, 4, MPI_DOUBLE_PRECISION, I, 3,
     &                    MPI_COMM_WORLD, STATUS, IERR)
            CALL CHECK(DV(4) .EQ. 0.25D0 * I, 'recv DOUBLE array')
         END DO
      ELSE
         CALL MPI_SEND(10 * RANK, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD,
     &                 IERR)
         DV(4) = 0.25D0 * RANK
         CALL MPI_SEND(DV, 4, MPI_DOUBLE_PRECISION, 0, 3,
     &                 MPI_COMM_WORLD, IERR)
      END IF
      CALL MPI_FINALIZE(IERR)
      IF (RANK .EQ. 0) PRINT '(A, I0, A)', 'f77_buffers: ok on ', NP,
     &                                     ' ranks'
      END

      SUBROUTINE CHECK(OK, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER IERR
      IF (.NOT. OK) THEN
         PRINT *, 'f77_buffers: failed: ', WHAT
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END
