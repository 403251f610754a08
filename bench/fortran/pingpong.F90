! 8-byte ping-pong between ranks 0 and 1 through one Fortran binding, and a strided
! array section against the same data described by a vector datatype (mpi_f08,
! where a section is a choice buffer of its own). BINDING: 1 mpif.h, 2 `use mpi`,
! 3 `use mpi_f08` (latency.sh builds this file once per binding and MPI).
! Prints "name microseconds" lines: half a round trip, the best of REPEATS runs.
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
  integer, parameter :: REPEATS = 5, STRIDED = 1024
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
  call report('latency_8B', best_small(iters))
  call MPI_Type_vector(STRIDED, 1, 2, MPI_DOUBLE_PRECISION, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  call report('strided_vector_8KiB', best_vector(iters / 10))
#if BINDING == 3
  call report('strided_section_8KiB', best_section(iters / 10))
#endif
  call MPI_Type_free(vec, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine report(name, us)
    character(len=*), intent(in) :: name
    double precision, intent(in) :: us
    if (rank == 0) print '(A,1X,F10.4)', name, us
  end subroutine report

  double precision function best_small(n)
    integer, intent(in) :: n
    integer :: r, i
    double precision :: t
    best_small = huge(1d0)
    do r = 1, REPEATS
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t = MPI_Wtime()
      do i = 1, n
        if (rank == 0) then
          call MPI_Send(small, 1, MPI_DOUBLE_PRECISION, 1, 1, MPI_COMM_WORLD, ierr)
          call MPI_Recv(small, 1, MPI_DOUBLE_PRECISION, 1, 1, MPI_COMM_WORLD, st, ierr)
        else
          call MPI_Recv(small, 1, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, st, ierr)
          call MPI_Send(small, 1, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, ierr)
        end if
      end do
      best_small = min(best_small, (MPI_Wtime() - t) * 1d6 / (2 * n))
    end do
  end function best_small

  double precision function best_vector(n)
    integer, intent(in) :: n
    integer :: r, i
    double precision :: t
    best_vector = huge(1d0)
    do r = 1, REPEATS
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t = MPI_Wtime()
      do i = 1, n
        if (rank == 0) then
          call MPI_Send(a, 1, vec, 1, 2, MPI_COMM_WORLD, ierr)
          call MPI_Recv(a, 1, vec, 1, 2, MPI_COMM_WORLD, st, ierr)
        else
          call MPI_Recv(a, 1, vec, 0, 2, MPI_COMM_WORLD, st, ierr)
          call MPI_Send(a, 1, vec, 0, 2, MPI_COMM_WORLD, ierr)
        end if
      end do
      best_vector = min(best_vector, (MPI_Wtime() - t) * 1d6 / (2 * n))
    end do
  end function best_vector

#if BINDING == 3
  double precision function best_section(n)
    integer, intent(in) :: n
    integer :: r, i
    double precision :: t
    best_section = huge(1d0)
    do r = 1, REPEATS
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t = MPI_Wtime()
      do i = 1, n
        if (rank == 0) then
          call MPI_Send(a(1:2 * STRIDED:2), STRIDED, MPI_DOUBLE_PRECISION, 1, 3, MPI_COMM_WORLD)
          call MPI_Recv(a(1:2 * STRIDED:2), STRIDED, MPI_DOUBLE_PRECISION, 1, 3, MPI_COMM_WORLD, st)
        else
          call MPI_Recv(a(1:2 * STRIDED:2), STRIDED, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD, st)
          call MPI_Send(a(1:2 * STRIDED:2), STRIDED, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD)
        end if
      end do
      best_section = min(best_section, (MPI_Wtime() - t) * 1d6 / (2 * n))
    end do
  end function best_section
#endif
end program pingpong
