# external32 packing, the Fortran types and sizes, the MPI-1 type calls.
add_executable(mpi_datatypes datatypes.c)
target_link_libraries(mpi_datatypes PRIVATE mpi m)
tw_mpi_ranks(datatypes 1 2 3)
