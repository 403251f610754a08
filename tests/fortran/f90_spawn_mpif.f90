! f90_spawn.f90's spawn through mpif.h, in a file of its own: gfortran checks the
! calls of one file against the mpi module's interfaces another unit of it uses.
! mpif.h: 2 children, argv 'mpifh', ' two  words', then a blank entry (what follows it
! is not passed)
subroutine spawn_through_mpif_h(prog)
  use spawn_checks
  implicit none
  include 'mpif.h'
  character(len=*), intent(in) :: prog
  character(len=16) :: argv(4)
  integer :: inter, codes(2), rank, np, n, c, v, ierr
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  argv = ['mpifh           ', ' two  words     ', '                ', 'never           ']
  codes = -1
  call MPI_COMM_SPAWN(prog, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes, ierr)
  call check(ierr == MPI_SUCCESS, 'mpif.h: MPI_COMM_SPAWN')
  call check(all(codes == MPI_SUCCESS), 'mpif.h: array_of_errcodes')
  call MPI_COMM_REMOTE_SIZE(inter, n, ierr)
  call check(n == 2, 'mpif.h: the children')
  if (rank == 0) then
    do c = 0, 1
      call MPI_SEND(np, 1, MPI_INTEGER, c, 1, inter, ierr)
      call MPI_RECV(v, 1, MPI_INTEGER, c, 2, inter, MPI_STATUS_IGNORE, ierr)
      call check(v == answer(1, c), 'mpif.h: a child answers')
    end do
  end if
  call MPI_COMM_DISCONNECT(inter, ierr)
end subroutine
