! Must NOT compile: an error handler whose arguments are not the standard's
! MPI_Comm_errhandler_function (a TYPE(MPI_Comm) and an INTEGER). mpi_f08 declares the
! procedure arguments with the standard's abstract interfaces, so the compiler catches
! it (test fortran_f08_callback_checked).
subroutine wrong_handler(comm, code)
  integer :: comm ! the mpi binding's handle, not TYPE(MPI_Comm)
  integer :: code
  comm = code
end subroutine wrong_handler

program f08_callback_mismatch
  use mpi_f08
  implicit none
  interface
    subroutine wrong_handler(comm, code)
      integer :: comm
      integer :: code
    end subroutine wrong_handler
  end interface
  type(MPI_Errhandler) :: h
  call MPI_Comm_create_errhandler(wrong_handler, h)
end program f08_callback_mismatch
