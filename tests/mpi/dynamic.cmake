# Process creation and management (MPI-3.1 chapter 10): spawn under twrun, ports,
# accept/connect within a job and between two jobs, the name service, join.
foreach(p dynamic_spawn dynamic_ports)
  add_executable(mpi_${p} ${p}.c)
  target_link_libraries(mpi_${p} PRIVATE mpi)
endforeach()
tw_mpi_ranks(dynamic_spawn 1 2)
tw_mpi_ranks(dynamic_ports 2 4)
# and a connect to a port that is open but never accepted on: refused after 1 s
add_test(NAME mpi_dynamic_ports_3_connect_timeout COMMAND ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_dynamic_ports>)
set_tests_properties(mpi_dynamic_ports_3_connect_timeout PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_CONNECT_TIMEOUT=1")
