! mpi_f08's non-contiguous array sections in collectives (MPI_SUBARRAYS_SUPPORTED):
! per-rank blocks of a section (one datatype when the blocks are alike, a copy when
! not), nonblocking and persistent collectives whose buffers share a count and
! datatype (a copy the request holds), and the buffers the library keeps, which must
! be contiguous. Every result is checked element by element, and so is every element
! of a section's array that the call must not touch.
program f08_sections
  use mpi_f08
  use test_check
  implicit none
  integer :: rank, np, i, j, k, cols, m, ierr, start
  integer, allocatable :: s1(:), r1(:), s2(:,:), r2(:,:), g(:), counts(:), displs(:)
  integer :: a(12), b(12), c(12)
  integer, allocatable :: wbuf(:)
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Win) :: win
  integer(kind=MPI_ADDRESS_KIND) :: wsize

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED is .TRUE.')

  ! MPI_Alltoall of every other element, 2 a rank: blocks alike (one datatype)
  allocate(s1(4 * np), r1(4 * np))
  s1 = [(rank * 1000 + i, i = 1, 4 * np)]
  r1 = -1
  call MPI_Alltoall(s1(1:4 * np:2), 2, MPI_INTEGER, r1(1:4 * np:2), 2, MPI_INTEGER, MPI_COMM_WORLD)
  do j = 0, np - 1
    do i = 1, 2 ! element rank*2+i of j's section came into element j*2+i of ours
      call check(r1(2 * (j * 2 + i) - 1) == j * 1000 + 2 * (rank * 2 + i) - 1, 'alltoall, 1-D')
      call check(r1(2 * (j * 2 + i)) == -1, 'alltoall leaves the gaps alone')
    end do
  end do

  ! the same with a 2-D section, 3 of 4 rows: on 3 ranks a block of 2 elements
  ! straddles columns, so blocks are not alike and the call goes through a copy
  cols = 2
  if (np > 3) cols = np
  m = 3 * cols / np
  allocate(s2(4, cols), r2(4, cols))
  do start = 1, 2 ! blocking, then nonblocking
    s2 = reshape([(rank * 1000 + i, i = 1, 4 * cols)], [4, cols])
    r2 = -1
    if (start == 1) then
      call MPI_Alltoall(s2(1:3, :), m, MPI_INTEGER, r2(1:3, :), m, MPI_INTEGER, MPI_COMM_WORLD)
    else
      call MPI_Ialltoall(s2(1:3, :), m, MPI_INTEGER, r2(1:3, :), m, MPI_INTEGER, &
                         MPI_COMM_WORLD, req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
    end if
    do j = 0, np - 1
      do i = 1, m ! the section's element number e is row mod(e-1,3)+1, column (e-1)/3+1
        k = j * m + i - 1 ! where it lands, from element rank*m+i of j's section
        call check(r2(mod(k, 3) + 1, k / 3 + 1) == &
                   j * 1000 + elem(rank * m + i - 1), 'alltoall, 2-D')
      end do
    end do
    call check(all(r2(4, :) == -1), 'alltoall, 2-D, leaves row 4 alone')
  end do

  ! MPI_Allgather into every third element
  deallocate(r1)
  allocate(r1(3 * np))
  r1 = -1
  call MPI_Allgather(rank + 7, 1, MPI_INTEGER, r1(1:3 * np:3), 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(r1(1:3 * np:3) == [(j + 7, j = 0, np - 1)]), 'allgather into a section')
  call check(all(r1(2:3 * np:3) == -1) .and. all(r1(3:3 * np:3) == -1), 'allgather gaps')

  ! nonblocking collectives whose buffers share a count and datatype
  a = [(rank * 100 + i, i = 1, 12)]
  b = -1
  call MPI_Iallreduce(a(1:12:3), b(12:1:-3), 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  do i = 1, 4
    call check(b(15 - 3 * i) == 100 * np * (np - 1) / 2 + np * (3 * i - 2), 'iallreduce of sections')
  end do
  call check(count(b == -1) == 8, 'iallreduce leaves the gaps alone')

  ! two at once, completed in the opposite order; one in place
  a = [(rank + i, i = 1, 12)]
  b = [(rank * i, i = 1, 12)]
  c = -1
  call MPI_Iscan(a(2:12:2), c(1:6), 6, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1))
  call MPI_Iallreduce(MPI_IN_PLACE, b(1:12:4), 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, reqs(2))
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  do i = 1, 6
    call check(c(i) == (rank + 1) * 2 * i + rank * (rank + 1) / 2, 'iscan of a section')
  end do
  call check(b(1) == (np - 1) * 1 .and. b(5) == (np - 1) * 5 .and. b(9) == (np - 1) * 9, &
             'iallreduce in place on a section')
  call check(b(2) == rank * 2 .and. b(12) == rank * 12, 'in place leaves the gaps alone')

  ! MPI_Igatherv into every other element at the root, from a section
  allocate(g(np * (np + 1)), counts(np), displs(np))
  counts = [(j + 1, j = 0, np - 1)]
  displs = [((j * (j + 1)) / 2, j = 0, np - 1)]
  a = [(rank * 10 + i, i = 1, 12)]
  g = -1
  call MPI_Igatherv(a(12:1:-2), rank + 1, MPI_INTEGER, g(1:np * (np + 1):2), counts, displs, &
                    MPI_INTEGER, 0, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rank == 0) then
    do j = 0, np - 1
      do i = 1, j + 1
        call check(g(2 * (displs(j + 1) + i) - 1) == j * 10 + 14 - 2 * i, 'igatherv')
      end do
    end do
    call check(all(g(2:np * (np + 1):2) == -1), 'igatherv leaves the gaps alone')
  end if

  ! a persistent collective with sections: each start reads the send section as it is
  ! then, and each completion writes the receive section
  a = 0
  b = -1
  call MPI_Allreduce_init(a(1:12:2), b(2:12:2), 6, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                          MPI_INFO_NULL, req)
  do start = 1, 3
    a(1:12:2) = [(rank * start + i, i = 1, 6)]
    call MPI_Start(req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    do i = 1, 6
      call check(b(2 * i) == start * np * (np - 1) / 2 + np * i, 'persistent allreduce')
    end do
    call check(all(b(1:12:2) == -1), 'persistent allreduce leaves the gaps alone')
  end do
  call MPI_Request_free(req)

  ! a one-sided call of one element on a section uses its first
  wsize = 4 * 4
  allocate(wbuf(4))
  wbuf = 0
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  a = 1
  c = -1
  call MPI_Win_fence(0, win)
  call MPI_Fetch_and_op(a(1:12:5), c(3:12:4), MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, MPI_SUM, win)
  call MPI_Win_fence(0, win)
  call check(c(3) >= 0 .and. c(3) < np .and. count(c == -1) == 11, 'fetch_and_op of a section')
  if (rank == 0) call check(wbuf(1) == np, 'fetch_and_op sums')
  ! the library keeps a window's memory: a section is refused, naming the argument
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Win_free(win)
  call MPI_Win_create(wbuf(1:4:2), 2_MPI_ADDRESS_KIND * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &
                      win, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'MPI_Win_create refuses a non-contiguous section')
  call MPI_Buffer_attach(wbuf(1:4:2), 8, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'MPI_Buffer_attach refuses a non-contiguous section')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(A,I0,A)', 'f08_sections: ok on ', np, ' ranks'
  call MPI_Finalize()

contains

  ! the value of element e (from 0, in array element order) of a rank's 3-row section
  ! of s2 is its position in the 4-row array: row mod(e,3)+1, column e/3+1
  integer function elem(e)
    integer, intent(in) :: e
    elem = (e / 3) * 4 + mod(e, 3) + 1
  end function elem

end program f08_sections
