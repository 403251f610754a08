# Process creation and management (MPI-3.1 chapter 10): spawn under twrun, ports,
# accept/connect within a job and between two jobs, the name service, join.
foreach(p dynamic_spawn dynamic_ports dynamic_jobs dynamic_nest dynamic_threads dynamic_spawn_threads)
  add_executable(mpi_${p} ${p}.c)
  target_link_libraries(mpi_${p} PRIVATE mpi)
endforeach()
target_link_libraries(mpi_dynamic_threads PRIVATE Threads::Threads)
target_link_libraries(mpi_dynamic_spawn_threads PRIVATE Threads::Threads)
tw_mpi_ranks(dynamic_spawn 1 2)
tw_mpi_ranks(dynamic_ports 2 4)
tw_mpi_ranks(dynamic_nest 2 3)
tw_mpi_ranks(dynamic_threads 2 3)
# spawns, and accepts and connects, from 4 threads of a process at once, each on a
# communicator of its own (labelled "thread": make test-tsan runs them too)
foreach(run self:1 self:2 world:2 world:3 ports:2)
  string(REPLACE ":" ";" run ${run})
  list(GET run 0 mode)
  list(GET run 1 n)
  add_test(NAME mpi_dynamic_spawn_threads_${mode}_${n} COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_dynamic_spawn_threads> ${mode})
  set_tests_properties(mpi_dynamic_spawn_threads_${mode}_${n} PROPERTIES LABELS "mp;mpi;thread" TIMEOUT ${TW_TEST_TIMEOUT})
endforeach()
# and a connect to a port that is open but never accepted on: refused after 1 s
add_test(NAME mpi_dynamic_ports_3_connect_timeout COMMAND ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_dynamic_ports>)
set_tests_properties(mpi_dynamic_ports_3_connect_timeout PROPERTIES LABELS "mp;mpi;waits" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_CONNECT_TIMEOUT=1")
# a spawned rank that dies ends the whole job with an error naming it, never a hang
add_test(NAME mpi_dynamic_spawned_dies COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/expect_output.sh
         --fail "rank 0 of spawned job 1 (pid" -- ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_dynamic_spawn> crash)
set_tests_properties(mpi_dynamic_spawned_dies PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
# two jobs started apart, by two twruns of one --universe
add_test(NAME mpi_dynamic_two_jobs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dynamic_jobs.sh ${MPIEXEC} $<TARGET_FILE:mpi_dynamic_jobs> ${TW_TEST_JOB_TIMEOUT})
set_tests_properties(mpi_dynamic_two_jobs PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
# the parents' own messages over the udp link (spawned ranks: shm)
add_test(NAME mpi_dynamic_spawn_2_udp COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_dynamic_spawn>)
set_tests_properties(mpi_dynamic_spawn_2_udp PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT} ENVIRONMENT "TW_LINK=udp")
# spawn under MPICH's Hydra (PMI-1's mcmd=spawn), when it is installed
add_test(NAME mpi_dynamic_spawn_2_hydra COMMAND sh -c "command -v mpiexec.hydra >/dev/null || exit 77; exec mpiexec.hydra -n 2 $<TARGET_FILE:mpi_dynamic_spawn>")
set_tests_properties(mpi_dynamic_spawn_2_hydra PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT} SKIP_RETURN_CODE 77
                     ENVIRONMENT "MPIEXEC_TIMEOUT=${TW_TEST_JOB_TIMEOUT}")
add_test(NAME mpi_dynamic_nest_3_hydra COMMAND sh -c "command -v mpiexec.hydra >/dev/null || exit 77; exec mpiexec.hydra -n 3 $<TARGET_FILE:mpi_dynamic_nest>")
set_tests_properties(mpi_dynamic_nest_3_hydra PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT} SKIP_RETURN_CODE 77
                     ENVIRONMENT "MPIEXEC_TIMEOUT=${TW_TEST_JOB_TIMEOUT}")
