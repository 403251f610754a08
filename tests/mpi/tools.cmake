# The tools information interface (MPI_T): every variable and category listed and
# checked, before MPI_Init, while MPI runs and after MPI_Finalize. The environment
# sets two settings the test reads back as control variables.
add_executable(mpi_tools_list tools_list.c)
target_link_libraries(mpi_tools_list PRIVATE mpi)
tw_mpi_ranks(tools_list 1 2)
set_tests_properties(mpi_tools_list_1 mpi_tools_list_2 PROPERTIES
                     ENVIRONMENT "TW_EAGER_LIMIT=2000;TW_COLL_BCAST=binomial")
# over the udp link: the link's counters count too
add_test(NAME mpi_tools_list_udp COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_tools_list>)
set_tests_properties(mpi_tools_list_udp PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_EAGER_LIMIT=2000;TW_COLL_BCAST=binomial;TW_LINK=udp")
# the udp link's counters read while the device's progress thread serves the link
add_test(NAME mpi_tools_list_udp_progress_thread COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_tools_list>)
set_tests_properties(mpi_tools_list_udp_progress_thread PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_EAGER_LIMIT=2000;TW_COLL_BCAST=binomial;TW_LINK=udp;TW_PROGRESS_THREAD=1")
# MPI_T events (tools_events.c): every type and the source listed, bad indices, objects
# and instances, an unexpected message, a rendezvous begun, a burst through the ring of a
# callback at MPI_T_CB_REQUIRE_NONE with its dropped handler; and over the udp link with
# a fifth of the packets dropped, the retransmissions the link counts
add_executable(mpi_tools_events tools_events.c)
target_link_libraries(mpi_tools_events PRIVATE mpi)
tw_mpi_ranks(tools_events 2)
add_test(NAME mpi_tools_events_udp_retransmits COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_tools_events> retransmits)
set_tests_properties(mpi_tools_events_udp_retransmits PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_LINK=udp;TW_UDP_FAULTS=drop=0.2")
# a peer lost over the udp link (as win_lost): the mpi_peer_lost event names it
add_test(NAME mpi_tools_events_peer_lost COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/expect_output.sh
         --pass "tools_events: lost ok" -- ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_tools_events> lost)
set_tests_properties(mpi_tools_events_peer_lost PROPERTIES LABELS "mp;mpi;waits" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_LINK=udp;TW_UDP_TIMEOUT=2000")
