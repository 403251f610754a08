! `use mpi`: a user-defined op in Fortran, comm split/dup/free, an error handler
! called back from Fortran, MPI_ERRORS_RETURN with its error codes, attributes with
! Fortran copy and delete functions, MPI_TAG_UB. A failed check aborts the job.
module callbacks
  implicit none
  integer :: handler_calls = 0, handler_code = 0, deletes = 0
contains
  subroutine int_max(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: i
    do i = 1, len
      inoutvec(i) = max(invec(i), inoutvec(i))
    end do
  end subroutine
  subroutine on_error(comm, code)
    integer :: comm, code
    handler_calls = handler_calls + 1
    handler_code = code
  end subroutine
  subroutine copy_attr(old, keyval, extra, val_in, val_out, flag, ierr)
    use mpi
    integer :: old, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    val_out = val_in + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine
  subroutine delete_attr(comm, keyval, val, extra, ierr)
    use mpi
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    ierr = MPI_SUCCESS
  end subroutine
end module

program f90_module
  use mpi
  use callbacks
  implicit none
  integer :: ierr, rank, np, op, mx(2), half, sub, dup, subsize, eh, code, cls, keyval, sbuf(1)
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: msg
  integer :: msglen
  integer :: status(MPI_STATUS_SIZE)
  type(MPI_Status) :: status08
  integer, parameter :: dp = selected_real_kind(15, 307)
  integer :: f90t
  real(kind=dp) :: x
  integer :: fh, iobuf(4)
  character(len=32) :: fname
  integer(kind=MPI_OFFSET_KIND) :: fsize

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! a user op: commutative max of two INTEGERs
  call MPI_Op_create(int_max, .true., op, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Op_create')
  call MPI_Allreduce([rank, -rank], mx, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(mx(1) == np - 1 .and. mx(2) == 0, 'user op')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'op freed')

  ! split into halves, dup, free
  half = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, half, rank, sub, ierr)
  call MPI_Comm_size(sub, subsize, ierr)
  call check(subsize == (np + 1 - half) / 2, 'comm split')
  call MPI_Comm_dup(sub, dup, ierr)
  call MPI_Comm_compare(sub, dup, code, ierr)
  call check(code == MPI_CONGRUENT, 'comm dup')

  ! attributes: Fortran copy and delete functions, called on dup and free
  call MPI_Comm_create_keyval(copy_attr, delete_attr, keyval, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(dup, keyval, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_get_attr(dup, keyval, val, flag, ierr)
  call check(flag .and. val == 100, 'get_attr')
  call MPI_Comm_dup(dup, sub, ierr)  ! sub's old value is freed below
  call MPI_Comm_get_attr(sub, keyval, val, flag, ierr)
  call check(flag .and. val == 105, 'attribute copied by a Fortran function')
  call MPI_Comm_free(sub, ierr)
  call check(deletes == 1 .and. sub == MPI_COMM_NULL, 'delete function called on free')
  call MPI_Comm_free_keyval(keyval, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val >= 32767, 'MPI_TAG_UB is the value itself')

  ! an error handler written in Fortran, then MPI_ERRORS_RETURN
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Send(sbuf, 1, MPI_INTEGER, np + 5, 0, dup, ierr)
  call check(handler_calls == 1, 'Fortran error handler called')
  call MPI_Error_class(handler_code, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'handler got MPI_ERR_RANK')
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(sbuf, -1, MPI_INTEGER, 0, 0, dup, code)
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_COUNT, 'MPI_ERRORS_RETURN: negative count is MPI_ERR_COUNT')
  call MPI_Error_string(code, msg, msglen, ierr)
  call check(index(msg(1:msglen), 'count') > 0, 'error string names the count: '//msg(1:msglen))
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, half, rank, sub, ierr)
  call MPI_Comm_free(sub, ierr)

  ! a status both ways: INTEGER and TYPE(MPI_Status) (MPI_Status_f2f08, f082f)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, 0, 5, code, 1, MPI_INTEGER, 0, 5, &
                    MPI_COMM_SELF, status, ierr)
  call MPI_Status_f2f08(status, status08, ierr)
  call check(ierr == MPI_SUCCESS .and. status08%MPI_SOURCE == 0 .and. status08%MPI_TAG == 5, &
             'MPI_Status_f2f08')
  status = -1
  call MPI_Status_f082f(status08, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, code, ierr)
  call check(status(MPI_TAG) == 5 .and. code == 1, 'MPI_Status_f082f')

  ! the Fortran-only calls: MPI_SIZEOF (any rank) and MPI_F_SYNC_REG
  call MPI_Sizeof(mx, code, ierr)
  call check(code == 4 .and. ierr == MPI_SUCCESS, 'MPI_SIZEOF of INTEGER')
  call MPI_Sizeof(1.0d0, code, ierr)
  call check(code == 8, 'MPI_SIZEOF of DOUBLE PRECISION')
  call MPI_Sizeof(1.0_16, code, ierr)
  call check(code == 16, 'MPI_SIZEOF of REAL(KIND=16)')
  call MPI_Sizeof((1.0_16, 2.0_16), code, ierr)
  call check(code == 32, 'MPI_SIZEOF of COMPLEX(KIND=16)')
  ! MPI_DISPLACEMENT_CURRENT is an offset (MPI_File_set_view's disp), not a default INTEGER
  call check(kind(MPI_DISPLACEMENT_CURRENT) == MPI_OFFSET_KIND, 'MPI_DISPLACEMENT_CURRENT''s kind')
  ! the functions' PMPI_ twins are typed by the module too, as by mpif.h
  x = PMPI_Wtime()
  call check(x > 0.0d0, 'PMPI_WTIME')
  x = PMPI_Wtick()
  call check(x > 0.0d0, 'PMPI_WTICK')
  val = PMPI_Aint_add(10_MPI_ADDRESS_KIND, 5_MPI_ADDRESS_KIND)
  call check(val == 15, 'PMPI_AINT_ADD')
  val = PMPI_Aint_diff(10_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND)
  call check(val == 6, 'PMPI_AINT_DIFF')
  call MPI_F_sync_reg(mx)

  ! the types of Fortran's parameterised kinds: REAL(KIND=dp) sent and summed as one
  call MPI_Type_create_f90_real(15, 307, f90t, ierr)
  call MPI_Type_size(f90t, code, ierr)
  call check(ierr == MPI_SUCCESS .and. code == 8, 'MPI_TYPE_CREATE_F90_REAL(15, 307)')
  x = real(rank + 1, dp) / 2
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, f90t, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(x == real(np * (np + 1), dp) / 4, 'allreduce of an F90 real type')
  call MPI_Type_create_f90_integer(15, f90t, ierr)
  call MPI_Type_size(f90t, code, ierr)
  call check(code == 8, 'MPI_TYPE_CREATE_F90_INTEGER(15)')
  call MPI_Type_create_f90_complex(6, 37, f90t, ierr)
  call MPI_Type_size(f90t, code, ierr)
  call check(code == 8, 'MPI_TYPE_CREATE_F90_COMPLEX(6, 37)')
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, f90t, ierr)
  call MPI_Type_size(f90t, code, ierr)
  call check(ierr == MPI_SUCCESS .and. code == 2, 'MPI_TYPE_MATCH_SIZE')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Type_create_f90_real(40, 5000, f90t, ierr)
  call check(ierr /= MPI_SUCCESS, 'MPI_TYPE_CREATE_F90_REAL with no such kind fails')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  ! MPI-IO through the module: each rank writes 4 INTEGERs at its block, reads its
  ! neighbour's; the file (in the build directory, named by the job's size, as the
  ! runs on 1 to 4 ranks go side by side) goes at the close
  write (fname, '(A,I0,A)') 'f90_module_io_', np, '.tmp'
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), &
                     MPI_MODE_RDWR + MPI_MODE_CREATE + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_open')
  iobuf = [rank, rank + 1, rank + 2, rank + 3]
  call MPI_File_write_at_all(fh, int(rank * 16, MPI_OFFSET_KIND), iobuf, 4, MPI_INTEGER, &
                             status, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_write_at_all')
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == 16 * np, 'MPI_File_get_size')
  iobuf = -1
  call MPI_File_read_at(fh, int(mod(rank + 1, np) * 16, MPI_OFFSET_KIND), iobuf, 4, &
                        MPI_INTEGER, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, code, ierr)
  call check(code == 4 .and. iobuf(4) == mod(rank + 1, np) + 3, 'MPI_File_read_at')
  call MPI_File_close(fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh == MPI_FILE_NULL, 'MPI_File_close')

  call info_strings()

  call MPI_Finalize(ierr)
  if (rank == 0) print *, 'f90_module: ok on', np
contains
  ! info keys and values as Fortran has them: blanks around them stripped, no
  ! terminator (buflen out is the value's length), nothing written for a key not there
  ! nor past the CHARACTER's length
  subroutine info_strings()
    integer :: info, e, buflen
    logical :: found
    character(len=8) :: short
    character(len=4) :: after ! beside short: a write past short's end would show here
    character(len=64) :: long
    common /adjacent/ short, after
    call MPI_Info_create(info, e)
    call MPI_Info_set(info, '  padded key ', ' twenty characters.. ', e)
    call check(e == MPI_SUCCESS, 'MPI_Info_set')
    long = 'unchanged'
    call MPI_Info_get(info, 'absent', MPI_MAX_INFO_VAL, long, found, e)
    call check(e == MPI_SUCCESS .and. .not. found .and. long == 'unchanged', &
               'MPI_Info_get of a key not there leaves the value')
    call MPI_Info_get(info, 'padded key', len(long), long, found, e)
    call check(found .and. long == 'twenty characters..', 'MPI_Info_get: blanks stripped')
    after = 'kept'
    call MPI_Info_get(info, 'padded key', MPI_MAX_INFO_VAL, short, found, e)
    call check(found .and. short == 'twenty c' .and. after == 'kept', &
               'MPI_Info_get: no more than the CHARACTER holds')
    buflen = 0
    long = 'unchanged'
    call MPI_Info_get_string(info, 'padded key', buflen, long, found, e)
    call check(found .and. buflen == 19 .and. long == 'unchanged', &
               'MPI_Info_get_string: buflen 0 gives the length and writes nothing')
    buflen = 3
    call MPI_Info_get_string(info, 'padded key', buflen, long, found, e)
    call check(found .and. buflen == 19 .and. long == 'twe', 'MPI_Info_get_string: 3 characters')
    buflen = 5
    long = 'unchanged'
    call MPI_Info_get_string(info, 'absent', buflen, long, found, e)
    call check(.not. found .and. buflen == 5 .and. long == 'unchanged', &
               'MPI_Info_get_string of a key not there')
    call MPI_Info_free(info, e)
  end subroutine

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      print *, 'FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine
end program
