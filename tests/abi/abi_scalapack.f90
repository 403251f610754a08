! Prebuilt software over a face: Debian's ScaLAPACK (libscalapack-openmpi.so.2.2, or
! -mpich.so.2.2, which call MPI from C and convert this program's Fortran handles with
! MPI_Comm_f2c) under a Fortran program built by that MPI's mpifort. PDGESV on a process
! grid: A (diagonally dominant) x = A*ones; every process checks its part of x against
! ones, and the largest error is reduced through the program's own MPI calls.
! Prints "library: ...", the grid and the error, and "every check passed" when the
! solve succeeded to 1e-10.
program abi_scalapack
  use mpi
  implicit none
  integer, parameter :: n = 200, nb = 16
  integer :: ierr, rank, nprocs, ictxt, nprow, npcol, myrow, mycol, info, i, j
  integer :: mloc, nloc, desca(9), descb(9), gi, gj, lld
  integer, allocatable :: ipiv(:)
  double precision, allocatable :: a(:,:), b(:)
  double precision :: err, errmax
  integer, external :: numroc, indxl2g
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  integer :: len
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nprow = 1
  do while ((nprow + 1) * (nprow + 1) <= nprocs)
    nprow = nprow + 1
  end do
  npcol = nprocs / nprow
  call blacs_get(-1, 0, ictxt)
  call blacs_gridinit(ictxt, 'R', nprow, npcol)
  call blacs_gridinfo(ictxt, nprow, npcol, myrow, mycol)
  if (myrow >= 0) then
    mloc = numroc(n, nb, myrow, 0, nprow)
    nloc = numroc(n, nb, mycol, 0, npcol)
    lld = max(1, mloc)
    allocate(a(lld, max(1, nloc)), b(lld), ipiv(mloc + nb))
    call descinit(desca, n, n, nb, nb, 0, 0, ictxt, lld, info)
    call descinit(descb, n, 1, nb, nb, 0, 0, ictxt, lld, info)
    do j = 1, nloc
      gj = indxl2g(j, nb, mycol, 0, npcol)
      do i = 1, mloc
        gi = indxl2g(i, nb, myrow, 0, nprow)
        a(i, j) = 1d0 / (gi + gj)
        if (gi == gj) a(i, j) = a(i, j) + n
      end do
    end do
    ! b = A * ones: the row sums, over the whole row (every process computes its rows')
    do i = 1, mloc
      gi = indxl2g(i, nb, myrow, 0, nprow)
      b(i) = n
      do gj = 1, n
        b(i) = b(i) + 1d0 / (gi + gj)
      end do
    end do
    call pdgesv(n, 1, a, 1, 1, desca, ipiv, b, 1, 1, descb, info)
    err = 0
    if (mycol == 0) err = maxval(abs(b(1:mloc) - 1d0))
  else
    info = 0
    err = 0
  end if
  call MPI_Allreduce(err, errmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Get_library_version(version, len, ierr)
    i = index(version(1:len), char(10))
    if (i == 0) i = len + 1
    print '(a,a)', 'library: ', version(1:i - 1)
    print '(a,i0,a,i0,a,i0,a,es10.3)', 'grid ', nprow, 'x', npcol, ' info ', info, ' max error ', errmax
    if (info == 0 .and. errmax < 1d-10) then
      print '(a)', 'every check passed'
    else
      print '(a)', 'FAIL: PDGESV did not solve the system'
    end if
  end if
  if (myrow >= 0) call blacs_gridexit(ictxt)
  call blacs_exit(1)
  call MPI_Finalize(ierr)
end program abi_scalapack
