! f08_grequest.f90's part through mpif.h, in a file of its own: gfortran checks the
! calls of one file against the mpi module's interfaces another unit of it uses.
! mpif.h: callbacks as external subroutines, counted in a common block
subroutine f77_query(extra_state, status, ierror)
  implicit none
  include 'mpif.h'
  integer(kind=MPI_ADDRESS_KIND) extra_state
  integer status(MPI_STATUS_SIZE), ierror
  integer nquery, nfree
  common /f77_grequest/ nquery, nfree
  nquery = nquery + 1
  status(MPI_SOURCE) = MPI_UNDEFINED
  status(MPI_TAG) = int(extra_state)
  call MPI_STATUS_SET_ELEMENTS(status, MPI_BYTE, 0, ierror)
  call MPI_STATUS_SET_CANCELLED(status, .false., ierror)
end subroutine

subroutine f77_free(extra_state, ierror)
  implicit none
  include 'mpif.h'
  integer(kind=MPI_ADDRESS_KIND) extra_state
  integer ierror
  integer nquery, nfree
  common /f77_grequest/ nquery, nfree
  nfree = nfree + 1
  ! the program's own variable, as MPICH and Open MPI hand it (not the constant 1234)
  if (extra_state /= 1234) extra_state = extra_state - 1
  ierror = MPI_SUCCESS
end subroutine

subroutine f77_cancel(extra_state, complete, ierror)
  implicit none
  include 'mpif.h'
  integer(kind=MPI_ADDRESS_KIND) extra_state
  logical complete
  integer ierror
  ierror = MPI_SUCCESS
end subroutine

subroutine through_mpif_h()
  implicit none
  include 'mpif.h'
  integer req, status(MPI_STATUS_SIZE), ierr
  integer(kind=MPI_ADDRESS_KIND) state
  logical flag
  integer nquery, nfree
  common /f77_grequest/ nquery, nfree
  external f77_query, f77_free, f77_cancel
  nquery = 0
  nfree = 0
  call MPI_GREQUEST_START(f77_query, f77_free, f77_cancel, 1234_MPI_ADDRESS_KIND, req, ierr)
  call MPI_TEST(req, flag, status, ierr)
  if (flag .or. nfree /= 0) then
    print *, 'f08_grequest: FAILED: mpif.h: complete before MPI_GREQUEST_COMPLETE'
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_GREQUEST_COMPLETE(req, ierr)
  call MPI_TEST(req, flag, status, ierr)
  if (.not. flag .or. status(MPI_TAG) /= 1234 .or. nfree /= 1 .or. nquery /= 1 .or. &
      req /= MPI_REQUEST_NULL) then
    print *, 'f08_grequest: FAILED: mpif.h: test', flag, status(MPI_TAG), nfree, nquery
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  ! what the free function writes to EXTRA_STATE, the program sees
  state = 7
  call MPI_GREQUEST_START(f77_query, f77_free, f77_cancel, state, req, ierr)
  call MPI_GREQUEST_COMPLETE(req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  if (state /= 6) then
    print *, 'f08_grequest: FAILED: mpif.h: the free function''s EXTRA_STATE', state
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
end subroutine
