# Error handlers, attributes, generalized requests, handle conversion and the rest.
foreach(p misc_errh misc_attr misc_req)
  add_executable(mpi_${p} ${p}.c)
  target_link_libraries(mpi_${p} PRIVATE mpi)
endforeach()
tw_mpi_ranks(misc_errh 1 2 3)
tw_mpi_ranks(misc_attr 1 2 3)
tw_mpi_ranks(misc_req 1 2)
