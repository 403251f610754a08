! mpi_f08's calls with a procedure argument through a profiling tool in Fortran
! (f08_tool.f90): MPI_Op_create, MPI_Op_create_c, MPI_Comm_create_errhandler and
! MPI_Comm_create_keyval reach the tool's MPI_..._f08 (counted) and the library
! through PMPI_..._f08: the operations reduce with MPI_Allreduce, the error handler
! is called, the keyval's copy function copies. A PMPI_ call is not counted.
! A failed check aborts the job.
module f08_profiled_callbacks
  use test_check
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  integer :: handler_calls = 0
contains
  ! keeps the larger absolute value, its sign included
  subroutine abs_max(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    where (abs(a) > abs(b)) b = a
  end subroutine

  subroutine int_sum_c(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b
  end subroutine

  subroutine on_error(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    handler_calls = handler_calls + 1
  end subroutine

  subroutine copy_plus_one(old, keyval, extra, in, out, flag, ierror)
    type(MPI_Comm) :: old
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, in, out
    logical :: flag
    out = in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine

end module

program f08_profiled
  use mpi_f08
  use f08_profiled_callbacks
  use f08_tool_counts
  implicit none
  integer :: rank, np, r(3), keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: value
  logical :: found
  type(MPI_Op) :: op, op_c, op_p
  type(MPI_Errhandler) :: eh
  type(MPI_Comm) :: dup

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  call MPI_Op_create(abs_max, .true., op)
  call check(op_creates == 1, 'MPI_Op_create_f08 intercepted')
  ! rank r gives r+1, -(r+1) and (-1)**r * (r+1)
  call MPI_Allreduce([rank + 1, -(rank + 1), (rank + 1) * (1 - 2 * mod(rank, 2))], r, 3, &
                     MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(r(1) == np .and. r(2) == -np .and. r(3) == np * (1 - 2 * mod(np - 1, 2)), &
             'the intercepted op reduces')
  call MPI_Op_free(op)

  call MPI_Op_create_c(int_sum_c, .true., op_c, ierr)
  call check(ierr == MPI_SUCCESS .and. op_creates_c == 1, 'MPI_Op_create_c_f08 intercepted')
  call MPI_Allreduce([rank, 1, 2 * rank], r, 3, MPI_INTEGER, op_c, MPI_COMM_WORLD)
  call check(all(r == [np * (np - 1) / 2, np, np * (np - 1)]), 'the intercepted large-count op')
  call MPI_Op_free(op_c)

  ! a PMPI_ call goes past the tool
  call PMPI_Op_create(abs_max, .true., op_p)
  call check(op_creates == 1, 'PMPI_Op_create_f08 not intercepted')
  call MPI_Allreduce([-3 * rank], r(1:1), 1, MPI_INTEGER, op_p, MPI_COMM_WORLD)
  call check(r(1) == -3 * (np - 1), 'the PMPI_ op reduces')
  call MPI_Op_free(op_p)

  call MPI_Comm_create_errhandler(on_error, eh)
  call check(errhandler_creates == 1, 'MPI_Comm_create_errhandler_f08 intercepted')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  call MPI_Send([1], 1, MPI_INTEGER, np, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS .and. handler_calls == 1, 'the intercepted error handler')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  call MPI_Errhandler_free(eh)

  call MPI_Comm_create_keyval(copy_plus_one, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND)
  call check(keyval_creates == 1, 'MPI_Comm_create_keyval_f08 intercepted')
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 41_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, keyval, value, found)
  call check(found .and. value == 42, 'the intercepted keyval copies')
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval)
  call MPI_Comm_free_keyval(keyval)

  call check(op_creates == 1 .and. op_creates_c == 1 .and. errhandler_creates == 1 .and. &
             keyval_creates == 1, 'each call counted once')
  if (rank == 0) print '(a, i0, a)', 'f08_profiled: ok on ', np, ' ranks'
  call MPI_Finalize()
end program
