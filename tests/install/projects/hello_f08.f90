! An MPI program in Fortran as users build it (`use mpi_f08`): prints the library's
! own version line, as hello_mpi.c does, and checks an allreduce over the ranks.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, size, total, len
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Get_library_version(version, len)
  if (rank == 0) print '(a, ": ", i0, " ranks, sum ", i0)', version(1:len), size, total
  call MPI_Finalize()
  if (total /= size * (size - 1) / 2) error stop 1
end program
