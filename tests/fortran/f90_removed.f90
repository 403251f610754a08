! f77_removed.f's calls through `use mpi`, whose interfaces have them: an hvector
! sent to the next rank, MPI_Type_extent, an error handler got back, and
! MPI_Address of an allocation past what an INTEGER holds: MPI_ERR_ARG.
subroutine removed_through_mpi(rank, np)
  use mpi
  implicit none
  integer, intent(in) :: rank, np
  integer :: hvec, extent, eh, ierr, sbuf(6), rbuf(3)
  integer :: i, addr, class
  integer(kind=MPI_ADDRESS_KIND) :: full
  integer, allocatable :: big(:)
  sbuf = [(10 * rank + i, i = 1, 6)]
  call MPI_Type_hvector(3, 1, 8, MPI_INTEGER, hvec, ierr)
  call MPI_Type_commit(hvec, ierr)
  call MPI_Type_extent(hvec, extent, ierr)
  rbuf = -1
  call MPI_Sendrecv(sbuf, 1, hvec, mod(rank + 1, np), 4, rbuf, 3, MPI_INTEGER, &
                    mod(rank + np - 1, np), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  i = mod(rank + np - 1, np)
  if (extent /= 20 .or. any(rbuf /= [10 * i + 1, 10 * i + 3, 10 * i + 5])) then
    print *, 'f77_removed: FAILED: use mpi: MPI_Type_hvector', extent, rbuf
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Type_free(hvec, ierr)
  call MPI_Errhandler_get(MPI_COMM_WORLD, eh, ierr)
  if (eh /= MPI_ERRORS_ARE_FATAL) then
    print *, 'f77_removed: FAILED: use mpi: MPI_Errhandler_get'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Errhandler_free(eh, ierr)

  allocate(big(1000000))  ! mapped apart, at an address past 2**31
  call MPI_Get_address(big(1), full, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Address(big(1), addr, ierr)
  call MPI_Error_class(ierr, class, i)
  if (full == int(full, kind(addr))) then
    if (ierr /= MPI_SUCCESS .or. addr /= full) class = -1
  else if (class /= MPI_ERR_ARG) then
    class = -1
  end if
  if (class == -1) then
    print *, 'f77_removed: FAILED: use mpi: MPI_Address of an allocation', full, ierr
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  deallocate(big)
end subroutine
