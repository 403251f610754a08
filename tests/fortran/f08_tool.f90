! A profiling tool in Fortran for f08_profiled.f90: it defines the specific procedures
! of mpi_f08 that take a procedure argument (MPI_Op_create_f08, MPI_Op_create_c_f08,
! MPI_Comm_create_errhandler_f08, MPI_Comm_create_keyval_f08: external procedures,
! so gfortran's linker names mpi_op_create_f08_ ...), counts the calls and passes
! them on to the library through the PMPI_ generics.
module f08_tool_counts
  implicit none
  integer :: op_creates = 0, op_creates_c = 0, errhandler_creates = 0, keyval_creates = 0
end module

subroutine MPI_Op_create_f08(user_fn, commute, op, ierror)
  use mpi_f08, only : MPI_Op, MPI_User_function, PMPI_Op_create
  use f08_tool_counts
  implicit none
  procedure(MPI_User_function) :: user_fn
  logical, intent(in) :: commute
  type(MPI_Op), intent(out) :: op
  integer, optional, intent(out) :: ierror
  op_creates = op_creates + 1
  call PMPI_Op_create(user_fn, commute, op, ierror)
end subroutine

subroutine MPI_Op_create_c_f08(user_fn, commute, op, ierror)
  use mpi_f08, only : MPI_Op, MPI_User_function_c, PMPI_Op_create_c
  use f08_tool_counts
  implicit none
  procedure(MPI_User_function_c) :: user_fn
  logical, intent(in) :: commute
  type(MPI_Op), intent(out) :: op
  integer, optional, intent(out) :: ierror
  op_creates_c = op_creates_c + 1
  call PMPI_Op_create_c(user_fn, commute, op, ierror)
end subroutine

subroutine MPI_Comm_create_errhandler_f08(comm_errhandler_fn, errhandler, ierror)
  use mpi_f08, only : MPI_Errhandler, PMPI_Comm_create_errhandler
  use f08_tool_counts
  implicit none
  external :: comm_errhandler_fn
  type(MPI_Errhandler), intent(out) :: errhandler
  integer, optional, intent(out) :: ierror
  errhandler_creates = errhandler_creates + 1
  call PMPI_Comm_create_errhandler(comm_errhandler_fn, errhandler, ierror)
end subroutine

subroutine MPI_Comm_create_keyval_f08(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, &
                                      extra_state, ierror)
  use mpi_f08, only : MPI_ADDRESS_KIND, PMPI_Comm_create_keyval
  use f08_tool_counts
  implicit none
  external :: comm_copy_attr_fn, comm_delete_attr_fn
  integer, intent(out) :: comm_keyval
  integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state
  integer, optional, intent(out) :: ierror
  keyval_creates = keyval_creates + 1
  call PMPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, &
                               extra_state, ierror)
end subroutine
