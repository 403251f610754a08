! A token around the ranks, in fixed-form FORTRAN 77 through mpif.h: each rank adds
! its rank and passes it on; rank 0 checks the sum after one lap.
! Build: build/bin/mpif77 examples/ring_mpif.f -o ring_mpif
! Run:   build/bin/mpiexec -n 4 ./ring_mpif
      PROGRAM RING
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP, IERR, TOKEN, NEXT, PREV
      INTEGER STATUS(MPI_STATUS_SIZE)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)
      IF (RANK .EQ. 0) THEN
         TOKEN = 0
         CALL MPI_SEND(TOKEN, 1, MPI_INTEGER, NEXT, 7,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_RECV(TOKEN, 1, MPI_INTEGER, PREV, 7,
     &                 MPI_COMM_WORLD, STATUS, IERR)
         IF (TOKEN .EQ. NP * (NP - 1) / 2 .AND.
     &       STATUS(MPI_SOURCE) .EQ. PREV) THEN
            PRINT '(A,I0,A,I0,A)', 'ring: token ', TOKEN,
     &            ' after one lap of ', NP, ': correct'
         ELSE
            PRINT '(A,I0)', 'ring: WRONG token ', TOKEN
         END IF
      ELSE
         CALL MPI_RECV(TOKEN, 1, MPI_INTEGER, PREV, 7,
     &                 MPI_COMM_WORLD, STATUS, IERR)
         TOKEN = TOKEN + RANK
         CALL MPI_SEND(TOKEN, 1, MPI_INTEGER, NEXT, 7,
     &                 MPI_COMM_WORLD, IERR)
      END IF
      CALL MPI_FINALIZE(IERR)
      END
