! Generalized requests with query, free and cancel functions in Fortran, through each
! binding: `use mpi_f08` (MPI_Wait returns the status the query function set:
! source, tag, count; the free function is called once, with the extra state),
! `use mpi` (MPI_Cancel calls the cancel function, not complete yet; the query function
! marks the status cancelled) and mpif.h (MPI_Test completes it once complete).
! A failed check aborts the job.
module grequest_f08
  use test_check
  use mpi_f08
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0, bad_extra = 0
contains
  subroutine query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    queries = queries + 1
    if (extra_state /= 42) bad_extra = bad_extra + 1
    status%MPI_SOURCE = 3
    status%MPI_TAG = 17
    status%MPI_ERROR = MPI_SUCCESS
    call MPI_Status_set_elements(status, MPI_INTEGER, 5, ierror)
    call MPI_Status_set_cancelled(status, .false., ierror)
  end subroutine

  subroutine free_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    if (extra_state /= 42) bad_extra = bad_extra + 1
    ierror = MPI_SUCCESS
  end subroutine

  subroutine cancel_fn(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    cancels = cancels + 1
    ierror = MPI_SUCCESS
  end subroutine

end module

! `use mpi`: the cancel function hears whether the request was complete; the query
! function marks the status cancelled once it was
module grequest_mpi
  use mpi
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0, cancelled_complete = -1
contains
  subroutine query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE), ierror
    queries = queries + 1
    status(MPI_SOURCE) = int(extra_state)
    status(MPI_TAG) = 99
    call MPI_Status_set_elements(status, MPI_INTEGER, 0, ierror)
    call MPI_Status_set_cancelled(status, cancels > 0, ierror)
  end subroutine

  subroutine free_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    ierror = MPI_SUCCESS
  end subroutine

  subroutine cancel_fn(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    cancels = cancels + 1
    cancelled_complete = merge(1, 0, complete)
    ierror = MPI_SUCCESS
  end subroutine
end module

subroutine through_mpi(rank)
  use mpi
  use grequest_mpi
  implicit none
  integer, intent(in) :: rank
  integer :: req, status(MPI_STATUS_SIZE), ierr
  logical :: flag
  call MPI_Grequest_start(query, free_fn, cancel_fn, int(rank + 7, MPI_ADDRESS_KIND), req, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call MPI_Cancel(req, ierr)
  if (cancels /= 1 .or. cancelled_complete /= 0) then
    print *, 'f08_grequest: FAILED: use mpi: cancel function', cancels, cancelled_complete
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Test_cancelled(status, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. flag .or. status(MPI_SOURCE) /= rank + 7 .or. &
      status(MPI_TAG) /= 99 .or. frees /= 1 .or. queries < 1 .or. req /= MPI_REQUEST_NULL) then
    print *, 'f08_grequest: FAILED: use mpi: status', flag, status(MPI_SOURCE), &
             status(MPI_TAG), frees, queries
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
end subroutine

program f08_grequest
  use mpi_f08
  use grequest_f08
  implicit none
  integer :: rank, np, n
  type(MPI_Request) :: req
  type(MPI_Status) :: st

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  call MPI_Grequest_start(query, free_fn, cancel_fn, 42_MPI_ADDRESS_KIND, req)
  call check(req /= MPI_REQUEST_NULL .and. queries == 0 .and. frees == 0, 'started')
  call MPI_Grequest_complete(req)
  call check(frees == 0, 'not freed before the wait')
  call MPI_Wait(req, st)
  call check(req == MPI_REQUEST_NULL, 'the wait frees the request')
  call check(queries == 1 .and. frees == 1 .and. cancels == 0, 'each function called once')
  call check(bad_extra == 0, 'the extra state')
  call check(st%MPI_SOURCE == 3 .and. st%MPI_TAG == 17, 'the status the query function set')
  call MPI_Get_count(st, MPI_INTEGER, n)
  call check(n == 5, 'the count the query function set')

  call through_mpi(rank)
  call through_mpif_h()

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_grequest: ok on ', np, ' ranks'
  call MPI_Finalize()
end program
