! 8-byte ping-pong between ranks 0 and 1 through one Fortran binding, and a strided
! array section against the same data described by a vector datatype (mpi_f08,
! where a section is a choice buffer of its own). BINDING: 1 mpif.h, 2 `use mpi`,
! 3 `use mpi_f08` (latency.sh builds this file once per binding and MPI).
! Prints "name microseconds" lines: half a round trip, the best of REPEATS runs;
! latency_8B_C is C's ping-pong (round_trips.c) timed between the Fortran ones, so
! the binding's cost against C's is read in one placement of the two ranks.
program pingpong
#if BINDING == 3
  use mpi_f08
#elif BINDING == 2
  use mpi
#endif
  implicit none
#if BINDING == 1
  include 'mpif.h'
#endif
#if BINDING == 3
#define HANDLE(t) type(t)
#define STATUS type(MPI_Status) :: st
#else
#define HANDLE(t) integer
#define STATUS integer :: st(MPI_STATUS_SIZE)
#endif
  interface
    double precision function c_round_trips(rank, n) bind(c)
      integer, value :: rank, n
    end function c_round_trips
  end interface
  integer, parameter :: REPEATS = 5, STRIDED = 1024
  double precision :: best_c
  integer :: rank, np, ierr, iters
  character(len=32) :: arg
  double precision :: small(1), a(2 * STRIDED)
  HANDLE(MPI_Datatype) :: vec
  STATUS

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np /= 2) then
    if (rank == 0) print '(A)', 'pingpong: run it on 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  iters = 100000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  small = rank
  a = rank
  call report('latency_8B', best(iters, 1))
  ! C's MPI_Send and MPI_Recv (round_trips.c) timed between the Fortran ones above
  call report('latency_8B_C', best_c)
  call MPI_Type_vector(STRIDED, 1, 2, MPI_DOUBLE_PRECISION, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  call report('strided_vector_8KiB', best(iters / 10, 2))
#if BINDING == 3
  call report('strided_section_8KiB', best(iters / 10, 3))
#endif
  call MPI_Type_free(vec, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine report(name, us)
    character(len=*), intent(in) :: name
    double precision, intent(in) :: us
    if (rank == 0) print '(A,1X,F10.4)', name, us
  end subroutine report

  ! the best of REPEATS timings of n round trips of what: 1 the 8 bytes, 2 the strided
  ! data as the vector datatype, 3 as the array section (mpi_f08)
  double precision function best(n, what)
    integer, intent(in) :: n, what
    integer :: r, i, peer
    double precision :: t
    peer = 1 - rank
    best = huge(1d0)
    if (what == 1) best_c = huge(1d0)
    do r = 1, REPEATS
      if (what == 1) best_c = min(best_c, c_round_trips(rank, n))
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t = MPI_Wtime()
      do i = 1, n
        if (rank == 0) call send(what, peer)
        call recv(what, peer)
        if (rank == 1) call send(what, peer)
      end do
      best = min(best, (MPI_Wtime() - t) * 1d6 / (2 * n))
    end do
  end function best

  subroutine send(what, peer)
    integer, intent(in) :: what, peer
    select case (what)
    case (1)
      call MPI_Send(small, 1, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, ierr)
    case (2)
      call MPI_Send(a, 1, vec, peer, 2, MPI_COMM_WORLD, ierr)
#if BINDING == 3
    case (3)
      call MPI_Send(a(1:2 * STRIDED:2), STRIDED, MPI_DOUBLE_PRECISION, peer, 3, MPI_COMM_WORLD)
#endif
    end select
  end subroutine send

  subroutine recv(what, peer)
    integer, intent(in) :: what, peer
    select case (what)
    case (1)
      call MPI_Recv(small, 1, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, st, ierr)
    case (2)
      call MPI_Recv(a, 1, vec, peer, 2, MPI_COMM_WORLD, st, ierr)
#if BINDING == 3
    case (3)
      call MPI_Recv(a(1:2 * STRIDED:2), STRIDED, MPI_DOUBLE_PRECISION, peer, 3, MPI_COMM_WORLD, st)
#endif
    end select
  end subroutine recv
end program pingpong
