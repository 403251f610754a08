! A data representation in Fortran (MPI_REGISTER_DATAREP, MPI-4.1 14.5.3) through the
! mpi module: INTEGERs kept in the file as 8-byte big-endian words, by conversion and
! extent functions written in Fortran, each called with its arguments by reference
! (the datatype as its INTEGER, the extra state given at registration); every rank
! writes its block through the view, the file's bytes are checked, read back through
! it; then a representation with MPI_CONVERSION_FN_NULL, whose file holds the native
! bytes. Runs on any number of ranks.
module datarep_state
  implicit none
  integer :: calls = 0, wrong = 0 ! conversion calls, and those given wrong arguments
end module datarep_state

! file <- memory: count INTEGERs from userbuf(position + 1) as 8-byte big-endian words
subroutine to_file(userbuf, datatype, count, filebuf, position, extra, ierror)
  use mpi
  use datarep_state
  implicit none
  integer :: userbuf(*), datatype, count, ierror, i, k
  integer(kind=1) :: filebuf(*)
  integer(kind=MPI_OFFSET_KIND) :: position
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer(kind=8) :: w, b
  calls = calls + 1
  if (datatype /= MPI_INTEGER .or. extra /= 42) wrong = wrong + 1
  do i = 1, count
    w = userbuf(position + i)
    do k = 1, 8
      b = ibits(w, 8 * (8 - k), 8)
      filebuf(8 * (i - 1) + k) = int(b - merge(256_8, 0_8, b > 127), 1)
    end do
  end do
  ierror = MPI_SUCCESS
end subroutine to_file

! memory <- file: the reverse, into userbuf(position + 1)
subroutine from_file(userbuf, datatype, count, filebuf, position, extra, ierror)
  use mpi
  use datarep_state
  implicit none
  integer :: userbuf(*), datatype, count, ierror, i, k
  integer(kind=1) :: filebuf(*)
  integer(kind=MPI_OFFSET_KIND) :: position
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer(kind=8) :: w
  calls = calls + 1
  if (datatype /= MPI_INTEGER .or. extra /= 42) wrong = wrong + 1
  do i = 1, count
    w = 0
    do k = 1, 8
      w = ior(ishft(w, 8), iand(int(filebuf(8 * (i - 1) + k), 8), 255_8))
    end do
    userbuf(position + i) = int(w)
  end do
  ierror = MPI_SUCCESS
end subroutine from_file

! an INTEGER takes 8 bytes in the file of the first representation (extra state 42),
! the native size otherwise
subroutine file_extent(datatype, extent, extra, ierror)
  use mpi
  use datarep_state
  implicit none
  integer :: datatype, ierror, size
  integer(kind=MPI_ADDRESS_KIND) :: extent, extra
  if (datatype == MPI_INTEGER .and. extra == 42) then
    extent = 8
  else
    call MPI_Type_size(datatype, size, ierror)
    extent = size
  end if
  if (extra /= 42 .and. extra /= 7) wrong = wrong + 1
  ierror = MPI_SUCCESS
end subroutine file_extent

program f90_datarep
  use mpi
  use test_check
  use datarep_state
  implicit none
  external to_file, from_file, file_extent
  integer, parameter :: n = 25
  integer :: ierr, rank, np, fh, i, k, got, status(MPI_STATUS_SIZE)
  integer :: out(n), back(n)
  integer(kind=1), allocatable :: raw(:)
  integer(kind=MPI_OFFSET_KIND) :: fsize, disp
  integer(kind=MPI_ADDRESS_KIND) :: extent
  integer(kind=8) :: w
  character(len=64) :: fname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  do i = 1, n
    out(i) = merge(-1, 1, mod(i, 2) == 0) * (rank * 100000 + i * 7 + 1)
  end do

  call MPI_Register_datarep('tollway_f90_be64', from_file, to_file, file_extent, &
                            42_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep')
  call MPI_Register_datarep('tollway_f90_be64', from_file, to_file, file_extent, &
                            42_MPI_ADDRESS_KIND, ierr)
  call MPI_Error_class(ierr, k, i)
  call check(k == MPI_ERR_DUP_DATAREP, 'a second registration is MPI_ERR_DUP_DATAREP')

  write (fname, '(A,I0,A)') 'f90_datarep_', np, '.tmp'
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_open')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'tollway_f90_be64', &
                         MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view with the representation')
  call MPI_File_get_type_extent(fh, MPI_INTEGER, extent, ierr)
  call check(ierr == MPI_SUCCESS .and. extent == 8, 'MPI_File_get_type_extent: 8')
  disp = int(rank, MPI_OFFSET_KIND) * n
  call MPI_File_write_at_all(fh, disp, out, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_write_at_all through the representation')
  call MPI_Get_count(status, MPI_INTEGER, got, ierr)
  call check(got == n, 'the write counted in INTEGERs')
  call check(calls > 0 .and. wrong == 0, 'the write conversion called with its arguments')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! the file's bytes: 8 a value, big-endian, rank after rank
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == 8_MPI_OFFSET_KIND * n * np, 'the file holds 8 bytes a value')
  allocate(raw(8 * n))
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_read_at(fh, 8 * disp, raw, 8 * n, MPI_BYTE, status, ierr)
  call check(ierr == MPI_SUCCESS, 'the file read natively')
  do i = 1, n
    w = 0
    do k = 1, 8
      w = ior(ishft(w, 8), iand(int(raw(8 * (i - 1) + k), 8), 255_8))
    end do
    call check(w == out(i), 'a value in the file as a big-endian 8-byte word')
  end do

  ! and back through the representation
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'tollway_f90_be64', &
                         MPI_INFO_NULL, ierr)
  back = 0
  call MPI_File_read_at_all(fh, disp, back, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. all(back == out), 'read back through the representation')
  call check(wrong == 0, 'the read conversion called with its arguments')
  call MPI_File_close(fh, ierr)

  ! MPI_CONVERSION_FN_NULL: no conversion, the file holds the native bytes
  call MPI_Register_datarep('tollway_f90_as_is', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            file_extent, 7_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep with MPI_CONVERSION_FN_NULL')
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'tollway_f90_as_is', &
                         MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view with the null conversion')
  k = calls
  call MPI_File_write_at_all(fh, disp, out, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. calls == k, 'a write with no conversion function called')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == 4_MPI_OFFSET_KIND * n * np, 'the file holds the native 4 bytes a value')
  back = 0
  call MPI_File_read_at_all(fh, disp, back, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. all(back == out), 'read back with no conversion')
  call MPI_File_close(fh, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'f90_datarep: ok on', np
  call MPI_Finalize(ierr)
end program f90_datarep
