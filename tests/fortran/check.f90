! The Fortran tests' one check: a failed one prints the program's name, the rank and
! what failed, and aborts the job (compiled into each test that uses it).
module test_check
  implicit none
contains
  subroutine check(ok, what)
    use mpi_f08, only : MPI_Abort, MPI_Comm_rank, MPI_COMM_WORLD
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    character(len=256) :: program
    integer :: rank, slash
    if (ok) return
    call get_command_argument(0, program)
    slash = index(program, '/', back=.true.)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    print '(2A,I0,2A)', trim(program(slash + 1:)), ': rank ', rank, ': FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check
end module test_check
