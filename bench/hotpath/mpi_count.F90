! mpi_count.c's 8-byte MPI_Send and MPI_Recv of a message already there, through one
! Fortran binding (BINDING: 1 mpif.h, 2 `use mpi`, 3 `use mpi_f08`), so the bindings'
! cost shows as instructions against C's (instructions.sh). Rank 0 sends N messages
! (the loop: subroutine send_loop) and creates the file FLAG; rank 1 waits for it
! without calling MPI, then receives them (recv_loop). Callgrind collects only inside
! the loops (--toggle-collect='*send_loop*' and '*recv_loop*').
module count_loops
#if BINDING == 3
  use mpi_f08
#elif BINDING == 2
  use mpi
#endif
  implicit none
#if BINDING == 1
  include 'mpif.h'
#endif
contains
  subroutine send_loop(n, buf)
    integer, intent(in) :: n
    double precision :: buf(1)
    integer :: i, ierr
    do i = 1, n
      call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
    end do
  end subroutine send_loop

  subroutine recv_loop(n, buf)
    integer, intent(in) :: n
    double precision :: buf(1)
    integer :: i, ierr
#if BINDING == 3
    type(MPI_Status) :: st
#else
    integer :: st(MPI_STATUS_SIZE)
#endif
    do i = 1, n
      call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, st, ierr)
    end do
  end subroutine recv_loop
end module count_loops

program count_calls
  use count_loops
  use, intrinsic :: iso_c_binding, only : c_int
  implicit none
  interface
    integer(c_int) function usleep(us) bind(c)
      import :: c_int
      integer(c_int), value :: us
    end function usleep
  end interface
  integer :: rank, np, n, ierr, unit
  logical :: there
  character(len=4096) :: flag
  character(len=16) :: arg
  double precision :: buf(1)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call get_command_argument(1, flag)
  call get_command_argument(2, arg)
  read (arg, *) n
  if (np /= 2 .or. n < 1 .or. n > 2000) then
    if (rank == 0) print '(A)', 'usage: twrun -n 2 mpi_count_fN FLAG N (N: 1..2000)'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  buf = 8
  if (rank == 0) then ! warm up: the first contact
    call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call send_loop(n, buf)
    open (newunit=unit, file=trim(flag), status='replace')
    close (unit)
  else
    there = .false.
    do while (.not. there)
      inquire (file=trim(flag), exist=there)
      if (.not. there) ierr = usleep(10000)
    end do
    call recv_loop(n, buf)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program count_calls
