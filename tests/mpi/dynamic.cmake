# Process creation and management (MPI-3.1 chapter 10): spawn under twrun, ports,
# accept/connect within a job and between two jobs, the name service, join.
foreach(p dynamic_spawn)
  add_executable(mpi_${p} ${p}.c)
  target_link_libraries(mpi_${p} PRIVATE mpi)
endforeach()
tw_mpi_ranks(dynamic_spawn 1 2)
