! A program of portable MPI Fortran, built by another MPI's mpifort (use mpi, or
! mpif.h when abi_program_mpif.F90 includes it): on Tollway's face of that MPI's ABI
! every check must pass. It touches each handle kind, the status and its indices, the
! predefined types and operations, MPI_IN_PLACE, MPI_BOTTOM, the IGNOREs, error
! classes, a user operation and an error handler given handles, a file (a handle
! wider than an INTEGER in MPICH's C), and through the module MPI_SIZEOF.
! Prints "library: <MPI_Get_library_version>" from rank 0 and, when every check
! passed, "every check passed"; a failed check says what and stops the job.
! The user operation and the error handler need none of MPI's declarations: the program
! puts what they compare with in /handled/ (the INTEGER of MPI_INTEGER, and of the
! communicator the handler is set on), and they count there what they were given.

! the user operation: the larger absolute value, elementwise; 12345 where the datatype
! it is given is not MPI_INTEGER
subroutine absmax(invec, inoutvec, n, datatype)
  implicit none
  integer :: n, datatype, i, calls, right, expected, integer_type
  integer :: invec(n), inoutvec(n)
  common /handled/ calls, right, expected, integer_type
  do i = 1, n
    if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
    if (datatype /= integer_type) inoutvec(i) = 12345
  end do
end subroutine absmax

! the error handler: counts its calls, and those given the communicator it was set on
! and an error (not MPI_SUCCESS, 0)
subroutine on_error(comm, code)
  implicit none
  integer :: comm, code, calls, right, expected, integer_type
  common /handled/ calls, right, expected, integer_type
  calls = calls + 1
  if (comm == expected .and. code /= 0) right = right + 1
end subroutine on_error

program abi_program
#ifdef TW_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  external absmax, on_error
  integer :: calls, right, expected, integer_type, eh
  common /handled/ calls, right, expected, integer_type
  integer :: ierr, rank, size, x, y, n, i, result, cls, t, dup, half, grp, info, win, op
  integer :: fh, req(2), status(MPI_STATUS_SIZE), pair(2), pairs(2)
  ! written by MPI_Bcast through MPI_BOTTOM and by MPI_Put, out of the compiler's sight
  ! (MPI-4.1 19.1.17): volatile, or it may keep them in registers across the calls
  integer, target, volatile :: bottom_value
  integer(kind=MPI_ADDRESS_KIND) :: addr, winsize
  integer(kind=MPI_OFFSET_KIND) :: fsize
  integer, volatile :: window(4)
  double precision :: d
  logical :: flag, l
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=64) :: value, fname
  ! arrays of handles (converted into C's where those are wider: more than 16 of them
  ! take another path than a few) and of their counts
  integer, parameter :: many = 20
  integer :: reqs(many), inbox(many), types(64), counts(64), displs(64), sendv(64), recvv(64)
  integer :: blocklens(2)
  integer(kind=MPI_ADDRESS_KIND) :: disps(2)
#ifndef TW_MPIF_H
  complex :: z
#ifndef ABI_NO_SIZEOF_DOUBLE_COMPLEX
  double complex :: zz
#endif
#endif

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  if (rank == 0) then
    call MPI_Get_library_version(version, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n > 0, 'MPI_Get_library_version')
    print '(a,a)', 'library: ', version(1:n)
  end if

  ! reductions: predefined types and operations, MPI_IN_PLACE, a user operation
  x = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(x == size * (size + 1) / 2, 'MPI_Allreduce MPI_SUM in place')
  call MPI_Allreduce(rank, y, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(y == size - 1, 'MPI_Allreduce MPI_MAX')
  d = 0.5d0
  call MPI_Allreduce(MPI_IN_PLACE, d, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(abs(d - 0.5d0 * size) < 1d-12, 'MPI_Allreduce MPI_DOUBLE_PRECISION')
  l = rank == 0
  call MPI_Allreduce(MPI_IN_PLACE, l, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(l, 'MPI_Allreduce MPI_LOGICAL MPI_LOR')
  pair = (/ 10 - rank, rank /)
  call MPI_Allreduce(pair, pairs, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(pairs(1) == 11 - size .and. pairs(2) == size - 1, 'MPI_Allreduce MPI_MINLOC')
  integer_type = MPI_INTEGER
  call MPI_Op_create(absmax, .true., op, ierr)
  x = merge(-100, rank, rank == size - 1)
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. x == -100, 'a user operation')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'MPI_Op_free sets MPI_OP_NULL')

  ! point to point: the status's indices, MPI_ANY_SOURCE, MPI_PROC_NULL, the IGNOREs
  call MPI_Irecv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, mod(rank + 1, size), 40 + rank, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Wait(req(1), status, ierr)
  call check(req(1) == MPI_REQUEST_NULL, 'MPI_Wait sets MPI_REQUEST_NULL')
  call check(status(MPI_SOURCE) == mod(rank + size - 1, size) .and. &
             status(MPI_TAG) == 40 + status(MPI_SOURCE) .and. y == status(MPI_SOURCE), &
             'the status of a receive: MPI_SOURCE and MPI_TAG')
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  call check(n == 1, 'MPI_Get_count')
  call MPI_Waitall(1, req(2:2), MPI_STATUSES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. req(2) == MPI_REQUEST_NULL, 'MPI_Waitall, MPI_STATUSES_IGNORE')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, MPI_PROC_NULL, 0, y, 1, MPI_INTEGER, MPI_PROC_NULL, 0, &
                    MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == MPI_PROC_NULL .and. status(MPI_TAG) == MPI_ANY_TAG, &
             'a receive from MPI_PROC_NULL')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, rank, 1, y, 1, MPI_INTEGER, rank, 1, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. y == rank, 'MPI_Sendrecv to itself, MPI_STATUS_IGNORE')

  ! arrays of handles: 20 requests at once; MPI_Alltoallw's types, one a rank; a struct
  do i = 1, many
    call MPI_Irecv(inbox(i), 1, MPI_INTEGER, mod(rank + size - 1, size), i, MPI_COMM_WORLD, &
                   reqs(i), ierr)
  end do
  do i = 1, many
    call MPI_Send(rank * 100 + i, 1, MPI_INTEGER, mod(rank + 1, size), i, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Waitall(many, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. all(reqs == MPI_REQUEST_NULL), 'MPI_Waitall of 20 requests')
  call check(all(inbox == [(mod(rank + size - 1, size) * 100 + i, i = 1, many)]), &
             'the 20 messages, each where its request put it')
  types(1:size) = MPI_INTEGER
  counts(1:size) = 1
  displs(1:size) = [(4 * (i - 1), i = 1, size)]
  sendv(1:size) = [(rank * 1000 + i, i = 0, size - 1)]
  recvv = -1
  call MPI_Alltoallw(sendv, counts, displs, types, recvv, counts, displs, types, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(recvv(1:size) == [(i * 1000 + rank, i = 0, size - 1)]), &
             'MPI_Alltoallw with an array of types')
  blocklens = [1, 2]
  disps = [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND]
  call MPI_Type_create_struct(2, blocklens, disps, [MPI_INTEGER, MPI_DOUBLE_PRECISION], t, ierr)
  call MPI_Type_size(t, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 4 + 16, 'MPI_Type_create_struct of an INTEGER and 2 reals')
  call MPI_Type_free(t, ierr)

  ! communicators, groups, datatypes, info
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, result, ierr)
  call check(result == MPI_CONGRUENT, 'MPI_Comm_compare of a dup')
  call MPI_Comm_split(dup, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_size(half, n, ierr)
  call check(n == (size + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split')
  call MPI_Comm_group(half, grp, ierr)
  call MPI_Group_size(grp, n, ierr)
  call check(n == (size + 1 - mod(rank, 2)) / 2, 'MPI_Group_size')
  call MPI_Group_free(grp, ierr)
  call check(grp == MPI_GROUP_NULL, 'MPI_Group_free sets MPI_GROUP_NULL')
  call MPI_Comm_free(half, ierr)
  call MPI_Comm_free(dup, ierr)
  call check(dup == MPI_COMM_NULL, 'MPI_Comm_free sets MPI_COMM_NULL')
  call MPI_Type_contiguous(3, MPI_INTEGER, t, ierr)
  call MPI_Type_commit(t, ierr)
  call MPI_Type_size(t, n, ierr)
  call check(n == 12, 'MPI_Type_size of 3 MPI_INTEGER')
  call MPI_Type_free(t, ierr)
  call check(t == MPI_DATATYPE_NULL, 'MPI_Type_free sets MPI_DATATYPE_NULL')
  call MPI_Type_size(MPI_DOUBLE_PRECISION, n, ierr)
  call check(n == 8, 'MPI_Type_size(MPI_DOUBLE_PRECISION)')
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'tollway_key', 'a value', ierr)
  call MPI_Info_get(info, 'tollway_key', len(value), value, flag, ierr)
  call check(flag .and. value == 'a value', 'MPI_Info_get')
  call MPI_Info_free(info, ierr)
  call check(info == MPI_INFO_NULL, 'MPI_Info_free sets MPI_INFO_NULL')

  ! MPI_BOTTOM: a type of absolute addresses
  bottom_value = merge(77, -1, rank == 0)
  call MPI_Get_address(bottom_value, addr, ierr)
  call MPI_Type_create_hindexed(1, (/ 1 /), (/ addr /), MPI_INTEGER, t, ierr)
  call MPI_Type_commit(t, ierr)
  call MPI_Bcast(MPI_BOTTOM, 1, t, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. bottom_value == 77, 'MPI_Bcast from MPI_BOTTOM')
  call MPI_Type_free(t, ierr)

  ! a window
  window = 0
  winsize = 16
  call MPI_Win_create(window, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(rank, 1, MPI_INTEGER, mod(rank + 1, size), int(mod(rank, 4), MPI_ADDRESS_KIND), 1, &
               MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  i = mod(rank + size - 1, size)
  call check(window(mod(i, 4) + 1) == i, 'MPI_Put between fences')
  call MPI_Win_free(win, ierr)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free sets MPI_WIN_NULL')

  ! a file, each rank its own
  write (fname, '(a,i0,a,i0)') 'abi_program_f.', size, '.', rank
  call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_open')
  call MPI_File_write(fh, window, 4, MPI_INTEGER, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  call check(n == 4, 'MPI_File_write and its status')
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == 16, 'MPI_File_get_size')
  call MPI_File_close(fh, ierr)
  call check(fh == MPI_FILE_NULL, 'MPI_File_close sets MPI_FILE_NULL')

  ! error classes: an invalid rank with MPI_ERRORS_RETURN
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  calls = 0
  right = 0
  expected = dup
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call check(eh == MPI_ERRHANDLER_NULL, 'MPI_Errhandler_free sets MPI_ERRHANDLER_NULL')
  call MPI_Send(rank, 1, MPI_INTEGER, size + 5, 0, dup, ierr)
  call check(calls == 1 .and. right == 1, 'a Fortran error handler called with its communicator')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, size + 5, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'a send to an invalid rank fails')
  call MPI_Error_class(ierr, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'its error class is MPI_ERR_RANK')
  call check(MPI_Wtime() > 0d0 .and. MPI_Wtick() > 0d0, 'MPI_Wtime and MPI_Wtick')

#ifndef TW_MPIF_H
  ! MPI_SIZEOF, the mpi module's (a generic: mpif.h has none), which each MPI's module
  ! resolves to a procedure of its own library for the type (and rank): the size of one
  ! element, of a complex both parts. MPICH's module has no DOUBLE COMPLEX one
  ! (ABI_NO_SIZEOF_DOUBLE_COMPLEX) and Tollway's no CHARACTER one, which the standard
  ! leaves out (ABI_NO_SIZEOF_CHARACTER); MPICH's and Open MPI's give a CHARACTER's
  ! as that of one character, whatever its length
  call MPI_Sizeof(x, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 4, 'MPI_SIZEOF of an INTEGER')
  call MPI_Sizeof(d, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 8, 'MPI_SIZEOF of a DOUBLE PRECISION')
  call MPI_Sizeof(z, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 8, 'MPI_SIZEOF of a COMPLEX')
#ifndef ABI_NO_SIZEOF_DOUBLE_COMPLEX
  call MPI_Sizeof(zz, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 16, 'MPI_SIZEOF of a DOUBLE COMPLEX')
#endif
  call MPI_Sizeof(l, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 4, 'MPI_SIZEOF of a LOGICAL')
#ifndef ABI_NO_SIZEOF_CHARACTER
  call MPI_Sizeof(value, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 1, 'MPI_SIZEOF of a CHARACTER')
#endif
  call MPI_Sizeof(reqs, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 4, 'MPI_SIZEOF of an INTEGER array')
#endif

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'every check passed'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: ierr
    if (.not. ok) then
      print '(a,a)', 'FAIL: ', what
      flush (6)
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      stop 1
    end if
  end subroutine check
end program abi_program
