! The 1-D heat equation on a ring of cells split across ranks, in Fortran through
! `use mpi`: a periodic Cartesian communicator, halo cells exchanged with
! MPI_Sendrecv each step, the total heat (conserved) and the hottest cell reduced.
! The result is checked against the same steps run on one rank.
! Build: build/bin/mpifort -O2 examples/heat_mpi.f90 -o heat_mpi
! Run:   build/bin/mpiexec -n 4 ./heat_mpi [STEPS]
program heat_mpi
  use mpi
  implicit none
  integer, parameter :: cells = 1200
  double precision, parameter :: alpha = 0.25d0
  integer :: rank, np, ierr, ring, left, right, steps, n, first, i, s
  integer :: dims(1)
  logical :: periods(1)
  double precision, allocatable :: u(:), v(:), whole(:), w(:)
  double precision :: heat, hottest, mine(2)
  character(len=16) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  dims = np
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .true., ring, ierr)
  call MPI_Comm_rank(ring, rank, ierr)
  call MPI_Cart_shift(ring, 0, 1, left, right, ierr)
  steps = 500
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  n = cells / np + merge(1, 0, rank < mod(cells, np))
  first = rank * (cells / np) + min(rank, mod(cells, np)) ! this rank's first cell, from 0
  allocate(u(0:n + 1), v(0:n + 1))
  do i = 1, n
    u(i) = start(first + i - 1)
  end do
  do s = 1, steps
    ! halo: my last cell to the right, my first to the left
    call MPI_Sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, MPI_DOUBLE_PRECISION, &
                      left, 1, ring, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, u(n + 1), 1, &
                      MPI_DOUBLE_PRECISION, right, 2, ring, MPI_STATUS_IGNORE, ierr)
    v(1:n) = u(1:n) + alpha * (u(0:n - 1) - 2 * u(1:n) + u(2:n + 1))
    u(1:n) = v(1:n)
  end do
  mine = [sum(u(1:n)), maxval(u(1:n))]
  call MPI_Reduce(mine(1), heat, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, ring, ierr)
  call MPI_Reduce(mine(2), hottest, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, ring, ierr)
  if (rank == 0) then ! the same on one rank, to check
    allocate(whole(0:cells + 1), w(cells))
    whole(1:cells) = [(start(i), i = 0, cells - 1)]
    do s = 1, steps
      whole(0) = whole(cells)
      whole(cells + 1) = whole(1)
      w = whole(1:cells) + alpha * (whole(0:cells - 1) - 2 * whole(1:cells) + whole(2:cells + 1))
      whole(1:cells) = w
    end do
    if (abs(heat - sum(whole(1:cells))) < 1d-9 * cells .and. &
        abs(hottest - maxval(whole(1:cells))) < 1d-12) then
      print '(A,I0,A,I0,A,F0.6,A)', 'heat: ', steps, ' steps on ', np, ' ranks, hottest ', &
        hottest, ': correct'
    else
      print '(A,2F14.8)', 'heat: WRONG ', heat, hottest
    end if
  end if
  call MPI_Comm_free(ring, ierr)
  call MPI_Finalize(ierr)

contains

  double precision function start(cell) ! a hot spot in the middle
    integer, intent(in) :: cell
    start = merge(100d0, 0d0, abs(cell - cells / 2) < 10)
  end function start
end program heat_mpi
