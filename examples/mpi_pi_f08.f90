! mpi_pi.c in Fortran through `use mpi_f08`: pi by the midpoint rule, the partial
! sums reduced to rank 0; with exactly 2 ranks also an 8-byte ping-pong and a strided
! array section (every 4th of 4096 DOUBLE PRECISION) sent as a(1:n:4) and as the same
! data described by a vector datatype, each timed (half round trip).
! Build: build/bin/mpifort -O2 examples/mpi_pi_f08.f90 -o mpi_pi_f08
! Run:   build/bin/mpiexec -n 2 ./mpi_pi_f08 [ITERATIONS]
program mpi_pi_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 50000000, m = 4096
  double precision :: h, x, part, total, pi, t0
  double precision, allocatable :: a(:)
  character(len=8) :: buf
  character(len=32) :: arg
  integer :: rank, size, i, iters
  type(MPI_Datatype) :: every4th

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  iters = 100000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if

  h = 1d0 / n
  part = 0
  do i = rank, n - 1, size
    x = h * (i + 0.5d0)
    part = part + 4d0 / (1d0 + x * x)
  end do
  part = part * h
  call MPI_Reduce(part, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    pi = 4d0 * atan(1d0)
    print '(a, i0, a, f14.12, a, es8.1, a)', 'mpi_pi_f08: ', size, ' ranks: pi = ', total, &
      ', error ', abs(total - pi), merge(': correct', ': WRONG  ', abs(total - pi) < 1d-9)
  end if

  if (size == 2) then
    buf = 'ping'
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, iters
      if (rank == 0) then
        call MPI_Send(buf, 8, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD)
        call MPI_Recv(buf, 8, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else
        call MPI_Recv(buf, 8, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(buf, 8, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD)
      end if
    end do
    if (rank == 0) print '(a, f8.3, a)', 'mpi_pi_f08: ping-pong 8 B: ', &
      (MPI_Wtime() - t0) / (2d0 * iters) * 1d6, ' us half round trip'

    allocate (a(m))
    a = [(dble(i), i = 1, m)]
    call MPI_Type_vector(m / 4, 1, 4, MPI_DOUBLE_PRECISION, every4th)
    call MPI_Type_commit(every4th)
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, iters / 10
      if (rank == 0) then
        call MPI_Send(a(1:m:4), m / 4, MPI_DOUBLE_PRECISION, 1, 2, MPI_COMM_WORLD)
        call MPI_Recv(a(1:m:4), m / 4, MPI_DOUBLE_PRECISION, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else
        call MPI_Recv(a(1:m:4), m / 4, MPI_DOUBLE_PRECISION, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(a(1:m:4), m / 4, MPI_DOUBLE_PRECISION, 0, 2, MPI_COMM_WORLD)
      end if
    end do
    if (rank == 0) print '(a, f8.3, a)', 'mpi_pi_f08: section a(1:4096:4): ', &
      (MPI_Wtime() - t0) / (2d0 * (iters / 10)) * 1d6, ' us half round trip'
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, iters / 10
      if (rank == 0) then
        call MPI_Send(a, 1, every4th, 1, 3, MPI_COMM_WORLD)
        call MPI_Recv(a, 1, every4th, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else
        call MPI_Recv(a, 1, every4th, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(a, 1, every4th, 0, 3, MPI_COMM_WORLD)
      end if
    end do
    if (rank == 0) print '(a, f8.3, a)', 'mpi_pi_f08: the same as a vector type: ', &
      (MPI_Wtime() - t0) / (2d0 * (iters / 10)) * 1d6, ' us half round trip'
    if (any(abs(a - [(dble(i), i = 1, m)]) > 0.5d0)) then
      print '(a)', 'mpi_pi_f08: the sections came back changed: WRONG'
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    call MPI_Type_free(every4th)
  end if
  call MPI_Finalize()
end program
