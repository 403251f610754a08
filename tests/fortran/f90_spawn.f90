! MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran: the program spawns itself
! through mpif.h (an argv of blank-padded CHARACTER ending at a blank entry, an
! argument with blanks inside and in front, array_of_errcodes), through mpi_f08
! (spawn_multiple: two commands, a 2-D array_of_argv a row each, MPI_ERRCODES_IGNORE)
! and through `use mpi` (MPI_ARGV_NULL). The children check their arguments, the
! intercommunicator to their parents (remote size, told by the parents) and MPI_APPNUM,
! and answer; the parents check the answers. A failed check aborts the job.
module spawn_checks
  use test_check
  implicit none
contains

  ! the value a child answers with: what it was spawned through, its rank
  integer function answer(mode, rank)
    integer, intent(in) :: mode, rank
    answer = 100 * mode + rank
  end function
end module

! mpi_f08: spawn_multiple, 1 process of the first command, 2 of the second
subroutine spawn_multiple_through_f08(prog)
  use mpi_f08
  use spawn_checks
  implicit none
  character(len=*), intent(in) :: prog
  character(len=len(prog)) :: commands(2)
  character(len=10) :: argvs(2, 3)
  integer :: rank, np, n, c, v
  type(MPI_Comm) :: inter
  type(MPI_Info) :: infos(2)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  commands = prog
  argvs(1, :) = ['f08multi  ', 'first     ', '          ']
  argvs(2, :) = ['f08multi  ', '          ', 'never     ']
  infos = MPI_INFO_NULL
  call MPI_Comm_spawn_multiple(2, commands, argvs, [1, 2], infos, 0, MPI_COMM_WORLD, inter, &
                               MPI_ERRCODES_IGNORE)
  call MPI_Comm_remote_size(inter, n)
  call check(n == 3, 'mpi_f08: the children of spawn_multiple')
  if (rank == 0) then
    do c = 0, 2
      call MPI_Send(np, 1, MPI_INTEGER, c, 1, inter)
      call MPI_Recv(v, 1, MPI_INTEGER, c, 2, inter, MPI_STATUS_IGNORE)
      call check(v == answer(2, c), 'mpi_f08: a child answers')
    end do
  end if
  call MPI_Comm_disconnect(inter)
end subroutine

! use mpi: one child without arguments
subroutine spawn_through_mpi(prog)
  use mpi
  use spawn_checks
  implicit none
  character(len=*), intent(in) :: prog
  integer :: inter, codes(1), rank, np, n, v, ierr
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  codes = -1
  call MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes, ierr)
  call check(ierr == MPI_SUCCESS .and. codes(1) == MPI_SUCCESS, 'use mpi: MPI_Comm_spawn')
  call MPI_Comm_remote_size(inter, n, ierr)
  call check(n == 1, 'use mpi: the child')
  if (rank == 0) then
    call MPI_Send(np, 1, MPI_INTEGER, 0, 1, inter, ierr)
    call MPI_Recv(v, 1, MPI_INTEGER, 0, 2, inter, MPI_STATUS_IGNORE, ierr)
    call check(v == answer(3, 0), 'use mpi: the child answers')
  end if
  call MPI_Comm_disconnect(inter, ierr)
end subroutine

subroutine child(parent)
  use mpi_f08
  use spawn_checks
  implicit none
  type(MPI_Comm), intent(inout) :: parent
  integer :: rank, np, nparents, n, mode, app, l
  integer(kind=MPI_ADDRESS_KIND) :: appnum
  logical :: inter, found
  character(len=64) :: arg1, arg2
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call MPI_Comm_test_inter(parent, inter)
  call check(inter, 'child: the parent communicator is an intercommunicator')
  call MPI_Recv(nparents, 1, MPI_INTEGER, 0, 1, parent, MPI_STATUS_IGNORE)
  call MPI_Comm_remote_size(parent, n)
  call check(n == nparents, 'child: the parents')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, found)
  call check(found, 'child: MPI_APPNUM')
  app = int(appnum)
  arg1 = ''
  arg2 = ''
  if (command_argument_count() >= 1) call get_command_argument(1, arg1)
  if (command_argument_count() >= 2) call get_command_argument(2, arg2, length=l)
  if (arg1 == 'mpifh') then
    mode = 1
    call check(np == 2 .and. app == 0, 'mpif.h child: its world')
    call check(command_argument_count() == 2, 'mpif.h child: argv ends at the blank entry')
    ! blanks inside kept, those around it stripped (as MPICH and Open MPI do)
    call check(arg2 == 'two  words' .and. l == 10, 'mpif.h child: an argument with blanks')
  else if (arg1 == 'f08multi') then
    mode = 2
    call check(np == 3 .and. app == merge(0, 1, rank == 0), 'spawn_multiple child: MPI_APPNUM')
    if (app == 0) then
      call check(command_argument_count() == 2 .and. arg2 == 'first', &
                 'spawn_multiple child: the first row of array_of_argv')
    else
      call check(command_argument_count() == 1, 'spawn_multiple child: the second row')
    end if
  else
    mode = 3
    call check(command_argument_count() == 0 .and. np == 1, 'MPI_ARGV_NULL child: no arguments')
  end if
  call MPI_Send(answer(mode, rank), 1, MPI_INTEGER, 0, 2, parent)
  call MPI_Comm_disconnect(parent)
  call check(parent == MPI_COMM_NULL, 'child: disconnected')
end subroutine

program f90_spawn
  use mpi_f08
  use spawn_checks
  implicit none
  type(MPI_Comm) :: parent
  integer :: rank, np
  character(len=4096) :: prog

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call MPI_Comm_get_parent(parent)
  if (parent /= MPI_COMM_NULL) then
    call child(parent)
  else
    call get_command_argument(0, prog)
    call spawn_through_mpif_h(trim(prog))
    call spawn_multiple_through_f08(trim(prog))
    call spawn_through_mpi(trim(prog))
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) print '(a, i0, a)', 'f90_spawn: ok on ', np, ' ranks'
  end if
  call MPI_Finalize()
end program
