# Process topologies and neighbourhood collectives (MPI-3.1 chapter 7).
foreach(p topology topology_nbr)
  add_executable(mpi_${p} ${p}.c)
  target_link_libraries(mpi_${p} PRIVATE mpi)
  tw_mpi_ranks(${p} 1 2 3 4 7)
endforeach()
# 16 ranks on the machine's few cores
add_test(NAME mpi_topology_nbr_16_oversubscribed COMMAND ${MPIEXEC} -n 16 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_topology_nbr>)
set_tests_properties(mpi_topology_nbr_16_oversubscribed PROPERTIES LABELS "mpi" TIMEOUT ${TW_TEST_TIMEOUT})
# every message by rendezvous (the messages between two ranks still match in order);
# a mailbox so small that sends wait for room; every peer over the udp link
add_test(NAME mpi_topology_nbr_5_all_rendezvous COMMAND ${MPIEXEC} -n 5 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_topology_nbr>)
add_test(NAME mpi_topology_nbr_4_tiny_mailbox COMMAND ${MPIEXEC} -n 4 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_topology_nbr>)
add_test(NAME mpi_topology_nbr_udp COMMAND ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_topology_nbr>)
set_tests_properties(mpi_topology_nbr_5_all_rendezvous PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_EAGER_LIMIT=0")
set_tests_properties(mpi_topology_nbr_4_tiny_mailbox PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_VELO_SLOTS=128;TW_RNDV_SPLIT=4096")
set_tests_properties(mpi_topology_nbr_udp PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_LINK=udp")
