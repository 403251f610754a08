# Process topologies and neighbourhood collectives (MPI-3.1 chapter 7).
foreach(p topology topology_nbr)
  add_executable(mpi_${p} ${p}.c)
  target_link_libraries(mpi_${p} PRIVATE mpi)
  tw_mpi_ranks(${p} 1 2 3 4 7)
endforeach()
