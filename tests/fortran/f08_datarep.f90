! MPI_Register_datarep through mpi_f08 (MPI-4.1 14.5.3): conversion functions of the
! standard's interface (the buffers TYPE(C_PTR) by value, the datatype TYPE(MPI_Datatype))
! keep each INTEGER as an 8-byte word of twice its value; written through the view, the
! file's words checked, read back. The procedure of mpi_f08 takes a procedure argument,
! so it has no BIND(C): its CHARACTER comes with a hidden length, not a descriptor. Then
! the same through MPI_Register_datarep_c (functions whose count is an MPI_Count), a name
! registered twice (MPI_ERR_DUP_DATAREP), and MPI_CONVERSION_FN_NULL_C (no conversion).
module f08_datarep_functions
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer :: calls = 0, wrong = 0 ! conversion calls, and those given wrong arguments
  integer :: calls_c = 0 ! those of the large-count functions (MPI_Register_datarep_c)
contains
  ! the large-count form's functions: the count an INTEGER(KIND=MPI_COUNT_KIND)
  subroutine to_file_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    calls_c = calls_c + 1
    call convert(userbuf, datatype, int(count), filebuf, position, extra_state, .true.)
    ierror = MPI_SUCCESS
  end subroutine to_file_c

  subroutine from_file_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    calls_c = calls_c + 1
    call convert(userbuf, datatype, int(count), filebuf, position, extra_state, .false.)
    ierror = MPI_SUCCESS
  end subroutine from_file_c

  subroutine native_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    call MPI_Type_size(datatype, ierror)
    extent = ierror
    ierror = MPI_SUCCESS
  end subroutine native_extent

  subroutine to_file(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    call convert(userbuf, datatype, count, filebuf, position, extra_state, .true.)
    ierror = MPI_SUCCESS
  end subroutine to_file

  subroutine from_file(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    call convert(userbuf, datatype, count, filebuf, position, extra_state, .false.)
    ierror = MPI_SUCCESS
  end subroutine from_file

  ! both directions: count INTEGERs from position of the user's buffer, a word each
  subroutine convert(userbuf, datatype, count, filebuf, position, extra_state, writing)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: writing
    integer, pointer :: user(:)
    integer(kind=8), pointer :: file(:)
    calls = calls + 1
    if (datatype /= MPI_INTEGER .or. extra_state /= 42) wrong = wrong + 1
    call c_f_pointer(userbuf, user, [position + count])
    call c_f_pointer(filebuf, file, [count])
    if (writing) then
      file = 2_8 * user(position + 1:position + count)
    else
      user(position + 1:position + count) = int(file / 2_8)
    end if
  end subroutine convert

  subroutine file_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    extent = 8
    if (datatype /= MPI_INTEGER) extent = 0
    ierror = MPI_SUCCESS
  end subroutine file_extent
end module f08_datarep_functions

program f08_datarep
  use mpi_f08
  use test_check
  use f08_datarep_functions
  implicit none
  integer, parameter :: n = 10
  type(MPI_File) :: fh
  integer :: out(n), back(n), i, rank, np, ierr
  integer(kind=8) :: words(n)
  character(len=64) :: fname
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  out = [(i * 3 - rank * 1000, i = 1, n)]
  call MPI_Register_datarep('tollway_f08_twice', from_file, to_file, file_extent, &
                            42_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep')
  write (fname, '(A,I0,A,I0,A)') 'f08_datarep_', np, '_', rank, '.tmp'
  call MPI_File_open(MPI_COMM_SELF, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'tollway_f08_twice', &
                         MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view with the representation')
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, out, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. calls > 0 .and. wrong == 0, &
             'the write conversion called with its arguments')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, words, 8 * n, MPI_BYTE, MPI_STATUS_IGNORE)
  call check(all(words == 2 * out), 'the file holds twice each value, 8 bytes a value')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'tollway_f08_twice', &
                         MPI_INFO_NULL)
  back = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, n, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(all(back == out) .and. wrong == 0, 'read back through the representation')
  call MPI_File_close(fh)

  ! the large-count form: the same representation with functions taking an MPI_Count
  call MPI_Register_datarep_c('tollway_f08_twice_c', from_file_c, to_file_c, file_extent, &
                              42_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep_c')
  call MPI_Register_datarep_c('tollway_f08_twice_c', from_file_c, to_file_c, file_extent, &
                              42_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_ERR_DUP_DATAREP, 'MPI_Register_datarep_c of a name taken')
  call MPI_File_open(MPI_COMM_SELF, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
                         'tollway_f08_twice_c', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view with the large-count representation')
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, out, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. calls_c > 0 .and. wrong == 0, &
             'the large-count write conversion called with its arguments')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL)
  words = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, words, 8 * n, MPI_BYTE, MPI_STATUS_IGNORE)
  call check(all(words == 2 * out), 'the file holds twice each value (large-count functions)')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
                         'tollway_f08_twice_c', MPI_INFO_NULL)
  back = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, n, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(all(back == out) .and. wrong == 0, 'read back through the large-count functions')
  call MPI_File_close(fh)

  ! MPI_CONVERSION_FN_NULL_C: no conversion, the bytes as they are in memory
  call MPI_Register_datarep_c('tollway_f08_as_is_c', MPI_CONVERSION_FN_NULL_C, &
                              MPI_CONVERSION_FN_NULL_C, native_extent, 0_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep_c with MPI_CONVERSION_FN_NULL_C')
  call MPI_File_open(MPI_COMM_SELF, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
                         'tollway_f08_as_is_c', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view with no conversion')
  calls_c = 0
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, out, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. calls_c == 0, 'a write with no conversion')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
                         MPI_INFO_NULL)
  back = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, n, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(all(back == out), 'the file holds the values as they are')
  call MPI_File_close(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print *, 'f08_datarep: ok on', np
  call MPI_Finalize()
end program f08_datarep
