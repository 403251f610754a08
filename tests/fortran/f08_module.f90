! `use mpi_f08`: TYPE(MPI_Status) fields, non-contiguous array sections sent and
! received (a(1:n:3), a 2-D section, blocking and not), MPI_IN_PLACE, a derived
! type, user operations (MPI_Op_create and _c) and an error handler with mpi_f08's
! callback signatures, split and dup with handle comparisons, ierror omitted and
! present with MPI_ERRORS_RETURN, Puts into a window on a Fortran array and into
! one the library allocates, conversions between the bindings (C's
! MPI_Comm_f2c/c2f, MPI_Status_f2f08), a gatherv into a section, the large-count
! overloads, MPI_Sizeof, a cartesian topology, and MPI_Send_f08 intercepted by a
! profiling tool in C (f08_helpers.c). A failed check aborts the job.
module f08_callbacks
  use test_check
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, handler_code = 0
contains
  subroutine int_max(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (datatype == MPI_INTEGER) b = max(a, b)
  end subroutine

  ! the same with the large-count signature (MPI_Op_create_c)
  subroutine int_min_c(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (datatype == MPI_INTEGER) b = min(a, b)
  end subroutine

  subroutine on_error(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    handler_calls = handler_calls + 1
    handler_code = code
    if (comm /= MPI_COMM_WORLD) handler_calls = -1000
  end subroutine

end module

! the `use mpi` side of the conversions: a receive into an INTEGER status
subroutine recv_with_mpi(buf, from, tag, status_f)
  use mpi
  implicit none
  integer :: buf, from, tag, status_f(MPI_STATUS_SIZE), ierr
  call MPI_Recv(buf, 1, MPI_INTEGER, from, tag, MPI_COMM_WORLD, status_f, ierr)
end subroutine

program f08_module
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use f08_callbacks
  implicit none
  interface
    integer(c_int) function tw_test_comm_size_f(fcomm) bind(c)
      import :: c_int
      integer(c_int), value :: fcomm
    end function
    integer(c_int) function tw_test_comm_world_c2f() bind(c)
      import :: c_int
    end function
    integer(c_int) function tw_test_sends_seen() bind(c)
      import :: c_int
    end function
    integer(c_long_long) function tw_test_velo_msgs_sent() bind(c)
      import :: c_long_long
    end function
  end interface
  integer, parameter :: n = 30
  integer :: rank, np, right, left, ierr, i, j, k, cnt, total, sub_size, res, sbuf, rbuf
  integer :: a(n), r(n), b(6, 8), rb(6, 8), v(12), vr(12), mx(2), status_f(6)
  double precision :: d(4)
  integer, target :: winbuf(8)
  type(MPI_Status) :: st, sts(2), st2
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: vec
  type(MPI_Op) :: op
  type(MPI_Comm) :: sub, dup
  type(MPI_Win) :: win
  type(MPI_Errhandler) :: eh
  type(MPI_Comm) :: cart
  integer :: dims(1)
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
  integer(kind=MPI_COUNT_KIND) :: bigcnt
  integer(kind=MPI_COUNT_KIND) :: nints, naddrs, nlarge, ntypes, larges(3)
  integer :: ints(3), combiner
  integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
  type(MPI_Datatype) :: types(1), vec_c
  integer(c_long_long) :: sent
  complex :: z(6), zr(6)
  type(c_ptr) :: wbase
  integer, pointer :: wmem(:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call check(ierr == MPI_SUCCESS, 'ierror present')
  right = mod(rank + 1, np)
  left = mod(rank - 1 + np, np)

  ! a ring: the status's public fields and the count
  a = [(rank * 1000 + i, i = 1, n)]
  call MPI_Irecv(r, n, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(a, 5, MPI_INTEGER, right, 7, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), st)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(st%MPI_SOURCE == left .and. st%MPI_TAG == 7 .and. cnt == 5, 'status fields')
  call check(all(r(1:5) == [(left * 1000 + i, i = 1, 5)]), 'ring data')
  call check(reqs(1) == MPI_REQUEST_NULL, 'request freed')

  ! a strided section a(1:n:3) into a strided section r(2:n:3), element by element
  r = -1
  call MPI_Irecv(r(2:n:3), n / 3, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a(1:n:3), n / 3, MPI_INTEGER, right, 8, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  call MPI_Get_count(sts(1), MPI_INTEGER, cnt)
  call check(cnt == n / 3, 'section count')
  do i = 1, n
    if (mod(i - 2, 3) == 0) then
      call check(r(i) == left * 1000 + (i - 2) + 1, 'strided section received')
    else
      call check(r(i) == -1, 'strided section: nothing else written')
    end if
  end do
  ! the same section again and again (its datatype is kept between calls), then the
  ! same shape elsewhere in the array, then fewer of its elements
  do k = 1, 3
    a(1:n:3) = [(rank * 1000 + k * 100 + i, i = 1, n / 3)]
    r = -1
    call MPI_Irecv(r, n, MPI_INTEGER, left, 16, MPI_COMM_WORLD, reqs(1))
    if (k < 3) call MPI_Send(a(1:n:3), n / 3, MPI_INTEGER, right, 16, MPI_COMM_WORLD)
    if (k == 3) call MPI_Send(a(2:n:3), n / 3 - 1, MPI_INTEGER, right, 16, MPI_COMM_WORLD)
    call MPI_Wait(reqs(1), st)
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    if (k < 3) then
      call check(cnt == n / 3 .and. all(r(1:n / 3) == [(left * 1000 + k * 100 + i, i = 1, n / 3)]), &
                 'a section sent again')
    else
      call check(cnt == n / 3 - 1 .and. r(1) == left * 1000 + 2 .and. r(2) == left * 1000 + 5 .and. &
                 r(n / 3) == -1, 'the same shape elsewhere, fewer elements')
    end if
  end do
  a = [(rank * 1000 + i, i = 1, n)]

  ! blocking, a section of fewer elements than it has (the first 4 of 10)
  r = -1
  call MPI_Irecv(r, n, MPI_INTEGER, left, 9, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(a(n:1:-3), 4, MPI_INTEGER, right, 9, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), st)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(cnt == 4, 'partial section count')
  do i = 1, 4
    call check(r(i) == left * 1000 + n - 3 * (i - 1), 'reversed section, first elements')
  end do

  ! the large-count overloads: INTEGER(KIND=MPI_COUNT_KIND) counts, a section too
  r = -1
  call MPI_Irecv(r, int(n, MPI_COUNT_KIND), MPI_INTEGER, left, 15, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(a(2:n:5), 6_MPI_COUNT_KIND, MPI_INTEGER, right, 15, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), st)
  call MPI_Get_count(st, MPI_INTEGER, bigcnt)
  call check(bigcnt == 6_MPI_COUNT_KIND .and. r(6) == left * 1000 + 27 .and. r(7) == -1, &
             'large-count send of a section')

  ! a 2-D section b(2:5, 1:8:2) (4 x 4) into rb(1:4, 5:8)
  b = reshape([(rank * 100 + i, i = 1, 48)], [6, 8])
  rb = -1
  call MPI_Irecv(rb(1:4, 5:8), 16, MPI_INTEGER, left, 10, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(b(2:5, 1:8:2), 16, MPI_INTEGER, right, 10, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  do j = 1, 8
    do i = 1, 6
      if (i <= 4 .and. j >= 5) then
        k = left * 100 + (i + 1) + 6 * (2 * (j - 5))
        call check(rb(i, j) == k, '2-D section received')
      else
        call check(rb(i, j) == -1, '2-D section: nothing else written')
      end if
    end do
  end do

  ! a section of COMPLEX as twice as many MPI_REAL; a datatype wider than the
  ! section's elements is MPI_ERR_TYPE
  z = [(cmplx(rank * 10 + i, -i), i = 1, 6)]
  zr = (0.0, 0.0)
  call MPI_Irecv(zr(1:6:2), 6, MPI_REAL, left, 17, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(z(2:6:2), 6, MPI_REAL, right, 17, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), st)
  do i = 1, 3
    call check(nint(real(zr(2 * i - 1))) == left * 10 + 2 * i .and. &
               nint(aimag(zr(2 * i - 1))) == -2 * i .and. nint(real(zr(2 * i))) == 0, &
               'COMPLEX section as MPI_REAL')
  end do
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(a(1:n:2), 2, MPI_DOUBLE_PRECISION, right, 18, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_ERR_TYPE, 'a datatype wider than the elements')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  ! a section of DOUBLE PRECISION by MPI_Sendrecv into a section
  d = [1d0, 2d0, 3d0, 4d0] + rank
  r = 0
  call MPI_Sendrecv(d(1:4:2), 2, MPI_DOUBLE_PRECISION, right, 11, d(2:4:2), 2, &
                    MPI_DOUBLE_PRECISION, left, 11, MPI_COMM_WORLD, st)
  call check(d(1) == 1d0 + rank .and. d(2) == 1d0 + left .and. d(4) == 3d0 + left, &
             'sendrecv of sections')

  ! collectives: MPI_IN_PLACE
  mx = [rank, 1]
  call MPI_Allreduce(MPI_IN_PLACE, mx, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(mx(1) == np * (np - 1) / 2 .and. mx(2) == np, 'allreduce in place')
  ! a blocking collective whose buffers share their count and datatype: sections
  ! through a copy (nonblocking ones: f08_sections.f90)
  v = -1
  v(1:12:4) = [rank, 1, 2 * rank]
  call MPI_Allreduce(v(1:12:4), vr(12:8:-2), 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(vr(12) == np * (np - 1) / 2 .and. vr(10) == np .and. vr(8) == np * (np - 1), &
             'allreduce of sections')
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')
  v = rank
  call MPI_Bcast(v, 12, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(v == 0), 'bcast')

  ! a derived type: every third of 12 INTEGERs
  call MPI_Type_vector(4, 1, 3, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  v = [(rank * 10 + i, i = 1, 12)]
  vr = 0
  call MPI_Irecv(vr, 4, MPI_INTEGER, left, 12, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(v, 1, vec, right, 12, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), st)
  call check(all(vr(1:4) == [(left * 10 + 1 + 3 * i, i = 0, 3)]), 'vector type')
  ! its envelope and contents through the large-count overloads (MPI-4.1 5.1.13): made
  ! by MPI_Type_vector, three integers and a datatype, no large counts
  call MPI_Type_get_envelope(vec, nints, naddrs, nlarge, ntypes, combiner)
  call check(nints == 3 .and. naddrs == 0 .and. nlarge == 0 .and. ntypes == 1 .and. &
             combiner == MPI_COMBINER_VECTOR, 'envelope, large-count overload')
  ints = 0
  call MPI_Type_get_contents(vec, nints, naddrs, nlarge, ntypes, ints, addrs, larges, types)
  call check(all(ints == [4, 1, 3]) .and. types(1) == MPI_INTEGER, &
             'contents, large-count overload')
  ! made by the large-count MPI_Type_vector: its three counts are large counts
  call MPI_Type_vector(4_MPI_COUNT_KIND, 1_MPI_COUNT_KIND, 3_MPI_COUNT_KIND, MPI_INTEGER, vec_c)
  call MPI_Type_get_envelope(vec_c, nints, naddrs, nlarge, ntypes, combiner)
  call check(nints == 0 .and. naddrs == 0 .and. nlarge == 3 .and. ntypes == 1 .and. &
             combiner == MPI_COMBINER_VECTOR, 'envelope of a large-count vector')
  larges = 0
  call MPI_Type_get_contents(vec_c, nints, naddrs, nlarge, ntypes, ints, addrs, larges, types, &
                             ierr)
  call check(ierr == MPI_SUCCESS .and. all(larges == [4, 1, 3]) .and. types(1) == MPI_INTEGER, &
             'contents of a large-count vector')
  call MPI_Type_free(vec_c)
  call MPI_Type_free(vec)
  call check(vec == MPI_DATATYPE_NULL, 'type freed')

  ! a user operation, mpi_f08's callback signature
  call MPI_Op_create(int_max, .true., op)
  call MPI_Allreduce([rank, -rank], mx, 2, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(mx(1) == np - 1 .and. mx(2) == 0, 'user op')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'op freed')
  call MPI_Op_create_c(int_min_c, .true., op)
  call MPI_Allreduce([rank, -rank], mx, 2, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(mx(1) == 0 .and. mx(2) == 1 - np, 'user op with the large-count signature')
  call MPI_Op_free(op)

  ! split and dup; handle comparisons
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Comm_size(sub, sub_size)
  call check(sub_size == (np + 1 - mod(rank, 2)) / 2, 'split')
  call MPI_Comm_dup(sub, dup)
  call check(dup /= sub .and. .not. (dup == MPI_COMM_NULL), 'dup is a new handle')
  call MPI_Comm_compare(sub, dup, res)
  call check(res == MPI_CONGRUENT, 'dup congruent')
  call MPI_Comm_free(dup)
  call MPI_Comm_free(sub)
  call check(sub == MPI_COMM_NULL .and. dup == MPI_COMM_NULL, 'freed')

  ! gatherv: its receive buffer has counts by rank, so a section goes by a copy,
  ! which keeps what the call does not write
  vr = -1
  rb = 0
  rb(1, 1:np) = 1
  rb(2, 1:np) = [(i, i = 0, np - 1)]
  call MPI_Gatherv(a(1:2), 1, MPI_INTEGER, vr(1:2 * np:2), rb(1, 1:np), rb(2, 1:np), &
                   MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    do i = 1, 12
      if (mod(i, 2) == 1 .and. i <= 2 * np) then
        call check(vr(i) == ((i - 1) / 2) * 1000 + 1, 'gatherv into a section')
      else
        call check(vr(i) == -1, 'gatherv into a section: nothing else written')
      end if
    end do
  end if

  ! a topology: a periodic ring of np, whose shift is the ring's neighbours
  dims = 0
  call MPI_Dims_create(np, 1, dims)
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, [.true.], .false., cart)
  call MPI_Cart_shift(cart, 0, 1, res, k)
  call check(dims(1) == np .and. res == left .and. k == right, 'cartesian shift')
  call MPI_Cart_coords(cart, rank, 1, dims)
  call check(dims(1) == rank, 'cartesian coordinates')
  call MPI_Comm_free(cart)

  ! ierror: MPI_ERRORS_RETURN, a negative count is MPI_ERR_COUNT
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(a, -1, MPI_INTEGER, right, 13, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, res)
  call check(res == MPI_ERR_COUNT, 'negative count is MPI_ERR_COUNT')
  ! an error handler in Fortran, mpi_f08's signature
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  call MPI_Send(a, -1, MPI_INTEGER, right, 13, MPI_COMM_WORLD)
  call MPI_Error_class(handler_code, res)
  call check(handler_calls == 1 .and. res == MPI_ERR_COUNT, 'error handler in Fortran')
  call MPI_Errhandler_free(eh)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  ! one-sided: a Put into a window on a Fortran array, with fences
  winbuf = -1
  wsize = 8 * 4
  call MPI_Win_create(winbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  disp = 2
  call MPI_Put(a(1:9:4), 3, MPI_INTEGER, right, disp, 3, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(winbuf)
  call check(all(winbuf(3:5) == [left * 1000 + 1, left * 1000 + 5, left * 1000 + 9]) .and. &
             winbuf(1) == -1 .and. winbuf(6) == -1, 'put into a window')
  call MPI_Win_free(win)
  call check(win == MPI_WIN_NULL, 'window freed')

  ! a window the library allocates, its memory a TYPE(C_PTR) made a Fortran pointer
  wsize = 4 * 4
  call MPI_Win_allocate(wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, wbase, win)
  call c_f_pointer(wbase, wmem, [4])
  wmem = -1
  call MPI_Win_fence(0, win)
  call MPI_Put([rank, rank + 1], 2, MPI_INTEGER, right, 1_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(all(wmem == [-1, left, left + 1, -1]), 'put into an allocated window')
  call MPI_Win_free(win)

  ! between the bindings: C's conversions of handles, MPI_Status_f2f08
  call check(tw_test_comm_world_c2f() == MPI_COMM_WORLD%MPI_VAL, 'MPI_Comm_c2f')
  call check(tw_test_comm_size_f(MPI_COMM_WORLD%MPI_VAL) == np, 'MPI_Comm_f2c')
  sbuf = rank + 500
  call MPI_Isend(sbuf, 1, MPI_INTEGER, right, 14, MPI_COMM_WORLD, reqs(1))
  call recv_with_mpi(rbuf, left, 14, status_f)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call MPI_Status_f2f08(status_f, st2)
  call check(rbuf == left + 500 .and. st2%MPI_SOURCE == left .and. st2%MPI_TAG == 14, &
             'MPI_Status_f2f08')
  call MPI_Get_count(st2, MPI_INTEGER, cnt)
  call check(cnt == 1, 'count of a converted status')
  call MPI_Status_f082f(st2, status_f)
  call check(status_f(MPI_SOURCE) == left, 'MPI_Status_f082f')

  ! MPI_Sizeof: the bytes of an element, any rank
  call MPI_Sizeof(d, k)
  call check(k == 8, 'MPI_Sizeof of DOUBLE PRECISION')
  call MPI_Sizeof(b, k, ierr)
  call check(k == 4 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof of INTEGER')
  call MPI_Sizeof((1.0, 2.0), k)
  call check(k == 8, 'MPI_Sizeof of COMPLEX')
  call MPI_Sizeof([1.0_16, 2.0_16], k)
  call check(k == 16, 'MPI_Sizeof of REAL(KIND=16)')

  ! the profiling interface: MPI_Send_f08 intercepted by C; the eleven MPI_Send calls
  ! above (those that failed too) went through it, the large-count
  ! one through MPI_Send_c_f08
  call check(tw_test_sends_seen() == 11, 'MPI_Send_f08 intercepted')

  ! MPI_T, which the standard gives no Fortran binding, read through C: this
  ! program's sends are counted (a counter that was not there reads -1)
  sent = tw_test_velo_msgs_sent()
  call check(sent >= 0, 'MPI_T counter velo_msgs_sent read')
  if (np > 1) then
    do k = 1, 5
      call MPI_Sendrecv(k, 1, MPI_INTEGER, right, 40, cnt, 1, MPI_INTEGER, left, 40, &
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    end do
    call check(tw_test_velo_msgs_sent() >= sent + 5, 'MPI_T counts the sends from Fortran')
  end if

  call MPI_Reduce(1, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    call check(total == np, 'reduce')
    print '(a, i0, a)', 'f08_module: ok on ', np, ' ranks'
  end if
  call MPI_Finalize()
end program
