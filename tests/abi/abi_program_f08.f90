! A program of the mpi_f08 module, built by another MPI's mpifort (Open MPI's: its own
! libmpi_usempif08 runs over Tollway's face) and run on Tollway: typed handles, the
! status's components, MPI_STATUS_IGNORE and MPI_IN_PLACE, predefined types and
! operations, a user operation given the datatype, a communicator's dup and split, a
! derived type, nonblocking requests, an error class through MPI_ERRORS_RETURN,
! MPI_Sizeof, and a user error handler given the communicator.
! Prints "library: <MPI_Get_library_version>" from rank 0 and, when every check
! passed, "every check passed"; a failed check says what and stops the job.
module abi_f08_callbacks
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, handler_code = -1
  type(MPI_Comm) :: handler_comm
contains
  ! a sum of integers that checks it is given MPI_INTEGER
  subroutine int_sum(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) then
      print '(a)', 'FAIL: the user operation was not given MPI_INTEGER'
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b
  end subroutine int_sum

  subroutine on_error(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    handler_calls = handler_calls + 1
    handler_code = code
    handler_comm = comm
  end subroutine on_error
end module abi_f08_callbacks

program abi_program_f08
  use mpi_f08
  use abi_f08_callbacks
  implicit none
  integer :: rank, size, n, i, right, left, ierr, cls, flag, sz
  integer :: buf(4), got(4), color_rank, color_size
  integer, allocatable :: gathered(:)
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  type(MPI_Status) :: st, sts(2)
  type(MPI_Comm) :: dup, half
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: pair
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  double precision :: d

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  if (rank == 0) then
    call MPI_Get_library_version(version, n)
    print '(a,a)', 'library: ', version(1:n)
  end if

  ! predefined types and operations, MPI_IN_PLACE
  buf = [rank, 1, 2 * rank, -rank]
  call MPI_Allreduce(MPI_IN_PLACE, buf, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(buf == [size * (size - 1) / 2, size, size * (size - 1), -size * (size - 1) / 2]), &
             'MPI_Allreduce of MPI_INTEGER with MPI_SUM in place')
  d = rank
  call MPI_Allreduce(MPI_IN_PLACE, d, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
  call check(d == size - 1, 'MPI_Allreduce of MPI_DOUBLE_PRECISION with MPI_MAX')

  ! the status's components, and MPI_STATUS_IGNORE
  call MPI_Sendrecv([rank, 7], 2, MPI_INTEGER, right, 11, got, 2, MPI_INTEGER, left, 11, &
                    MPI_COMM_WORLD, st)
  call MPI_Get_count(st, MPI_INTEGER, n)
  call check(st%MPI_SOURCE == left .and. st%MPI_TAG == 11 .and. n == 2 .and. got(1) == left, &
             'MPI_Sendrecv status')
  call MPI_Recv(got, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Recv(got, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, st)
  call check(st%MPI_SOURCE == MPI_PROC_NULL .and. st%MPI_TAG == MPI_ANY_TAG, &
             'a receive from MPI_PROC_NULL')

  ! requests
  call MPI_Irecv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend([rank, rank, rank, rank], 4, MPI_INTEGER, right, 40 + rank, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'MPI_Waitall''s requests')
  call check(sts(1)%MPI_SOURCE == left .and. sts(1)%MPI_TAG == 40 + left .and. all(got == left), &
             'MPI_Waitall''s status')

  ! a communicator's dup and split
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, flag)
  call check(flag == MPI_CONGRUENT, 'MPI_Comm_compare of a dup')
  call MPI_Comm_split(dup, mod(rank, 2), -rank, half)
  call MPI_Comm_rank(half, color_rank)
  call MPI_Comm_size(half, color_size)
  call check(color_size == (size + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split size')
  allocate (gathered(color_size))
  call MPI_Allgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, half)
  call check(gathered(color_rank + 1) == rank, 'MPI_Allgather on a split')
  do i = 2, color_size
    call check(gathered(i) < gathered(i - 1), 'MPI_Comm_split ordered by the key')
  end do

  ! a derived type
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  call MPI_Type_size(pair, sz)
  call check(sz == 8, 'MPI_Type_size of two integers')
  call MPI_Bcast(buf, 2, pair, 0, dup)
  call check(buf(1) == size * (size - 1) / 2 .and. buf(4) == -size * (size - 1) / 2, &
             'MPI_Bcast of a derived type')
  call MPI_Type_free(pair)
  call check(pair == MPI_DATATYPE_NULL, 'MPI_Type_free')

  ! a user operation
  call MPI_Op_create(int_sum, .true., op)
  buf = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, buf, 4, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(buf == size * (size + 1) / 2), 'MPI_Allreduce with a user operation')
  call MPI_Op_free(op)

  ! an error class through MPI_ERRORS_RETURN, then a user error handler
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Send(buf, 1, MPI_INTEGER, size + 5, 0, dup, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'MPI_ERR_RANK from a send to no rank')
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Send(buf, 1, MPI_INTEGER, size + 5, 0, dup, ierr)
  call MPI_Error_class(handler_code, cls)
  call check(handler_calls == 1 .and. cls == MPI_ERR_RANK .and. handler_comm == dup, &
             'a user error handler given the communicator')
  call MPI_Errhandler_free(eh)

  ! MPI_Sizeof
  call MPI_Sizeof(d, sz)
  call check(sz == 8, 'MPI_Sizeof of DOUBLE PRECISION')
  call MPI_Sizeof(buf, sz)
  call check(sz == 4, 'MPI_Sizeof of an INTEGER array')

  call MPI_Comm_free(half)
  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'MPI_Comm_free')
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'every check passed'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'FAIL: rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program abi_program_f08
