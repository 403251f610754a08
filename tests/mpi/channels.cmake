# Channels (TW_CHANNELS, src/mpi/pt2pt/channel.h): communicators spread over four
# endpoints of each process, each with its own matching queues and requests. The
# programs of the other areas, unchanged: a message that took another channel than
# its receive looks in would never match, and the job would time out.
foreach(p p2p requests coll nbc dtype comm win_ops threads)
  set(n 3)
  if(p STREQUAL "comm")
    set(n 5) # it splits into groups of 2 and more
  endif()
  add_test(NAME mpi_${p}_channels_4 COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_${p}>)
  set_tests_properties(mpi_${p}_channels_4 PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                       ENVIRONMENT "TW_CHANNELS=4")
endforeach()
set_tests_properties(mpi_threads_channels_4 PROPERTIES LABELS "mp;mpi;thread")
# across a link the device polls: a wait keeps every channel's endpoint going
foreach(p p2p win_ops)
  add_test(NAME mpi_${p}_channels_4_udp COMMAND ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_${p}>)
  set_tests_properties(mpi_${p}_channels_4_udp PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                       ENVIRONMENT "TW_CHANNELS=4;TW_LINK=udp")
endforeach()
# dynamic processes: the groups meeting swap one address per channel, and every
# channel's endpoint learns the other group's
foreach(t spawn_2 ports_4 nest_3 threads_3 spawn_threads_world_2)
  string(REGEX REPLACE "_[0-9]+$" "" p ${t})
  string(REGEX REPLACE "^.*_" "" n ${t})
  set(args)
  if(p STREQUAL "spawn_threads_world")
    set(p spawn_threads)
    set(args world)
  endif()
  add_test(NAME mpi_dynamic_${t}_channels_4 COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_dynamic_${p}> ${args})
  set_tests_properties(mpi_dynamic_${t}_channels_4 PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                       ENVIRONMENT "TW_CHANNELS=4")
endforeach()
add_test(NAME mpi_dynamic_spawn_2_udp_channels_4 COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_dynamic_spawn>)
set_tests_properties(mpi_dynamic_spawn_2_udp_channels_4 PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_CHANNELS=4;TW_LINK=udp")
# under MPICH's Hydra (PMI-1 spawn), and with waits that sleep
add_test(NAME mpi_dynamic_spawn_2_hydra_channels_4
         COMMAND sh -c "command -v mpiexec.hydra >/dev/null || exit 77; exec mpiexec.hydra -genv TW_CHANNELS 4 -genv TW_WAIT sleep -n 2 $<TARGET_FILE:mpi_dynamic_spawn>")
set_tests_properties(mpi_dynamic_spawn_2_hydra_channels_4 PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     SKIP_RETURN_CODE 77 ENVIRONMENT "MPIEXEC_TIMEOUT=${TW_TEST_JOB_TIMEOUT}")
# two jobs started apart, each of 4 channels; a third of 2 is refused, by name
add_test(NAME mpi_dynamic_two_jobs_channels_4 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dynamic_jobs.sh ${MPIEXEC} $<TARGET_FILE:mpi_dynamic_jobs> ${TW_TEST_JOB_TIMEOUT})
set_tests_properties(mpi_dynamic_two_jobs_channels_4 PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_CHANNELS=4")
# a count the setting refuses: MPI_Init says which and why
add_test(NAME mpi_channels_3_refused
         COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/expect_output.sh --fail "TW_CHANNELS"
                 -- ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_p2p>)
set_tests_properties(mpi_channels_3_refused PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT}
                     ENVIRONMENT "TW_CHANNELS=3")
# ranks set up with different counts: the job ends at once through its process manager,
# naming both (a hang would end by the launcher's timeout, with another status)
set(uneven "every rank of a job must open as many endpoints")
add_test(NAME mpi_channels_uneven_more_at_0
         COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/expect_output.sh --exit 1
                 "has TW_CHANNELS=1 but rank 0 has TW_CHANNELS=4: ${uneven}"
                 -- ${MPIEXEC} --timeout ${TW_TEST_JOB_TIMEOUT} -n 1 -env TW_CHANNELS 4 $<TARGET_FILE:mpi_p2p>
                 : -n 2 $<TARGET_FILE:mpi_p2p>)
add_test(NAME mpi_channels_uneven_fewer_at_0
         COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/expect_output.sh --exit 1
                 "has TW_CHANNELS=2 but rank 0 has TW_CHANNELS=1: ${uneven}"
                 -- ${MPIEXEC} --timeout ${TW_TEST_JOB_TIMEOUT} -n 1 $<TARGET_FILE:mpi_p2p>
                 : -n 2 -env TW_CHANNELS 2 $<TARGET_FILE:mpi_p2p>)
# Hydra does not end a job when one process exits: the rank that differs aborts it.
# Only the status is asserted: Hydra may end the job before it forwards the rank's
# message (on a busy machine it lost it in 1 run of 1), where twrun drains it first.
add_test(NAME mpi_channels_uneven_hydra
         COMMAND sh -c "command -v mpiexec.hydra >/dev/null || exit 77; exec \"$0\" \"$@\""
                 ${PROJECT_SOURCE_DIR}/tests/mp/expect_output.sh --exit 1 ""
                 -- mpiexec.hydra -n 1 -env TW_CHANNELS 2 $<TARGET_FILE:mpi_p2p> : -n 1 $<TARGET_FILE:mpi_p2p>)
set_tests_properties(mpi_channels_uneven_more_at_0 mpi_channels_uneven_fewer_at_0 mpi_channels_uneven_hydra
                     PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT} SKIP_RETURN_CODE 77
                     ENVIRONMENT "MPIEXEC_TIMEOUT=${TW_TEST_JOB_TIMEOUT}")
# every kind of call at once from threads on their own channels, and a thread blocked
# on another meanwhile (threads_channels.c); ThreadSanitizer runs it too (label thread)
add_executable(mpi_threads_channels threads_channels.c)
target_link_libraries(mpi_threads_channels PRIVATE mpi Threads::Threads)
foreach(channels 1 4)
  foreach(n 2 3)
    add_test(NAME mpi_threads_channels_${n}_ch${channels}
             COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads_channels>)
    set_tests_properties(mpi_threads_channels_${n}_ch${channels} PROPERTIES LABELS "mp;mpi;thread"
                         TIMEOUT ${TW_TEST_TIMEOUT} ENVIRONMENT "TW_CHANNELS=${channels}"
                         PASS_REGULAR_EXPRESSION "threads_channels: ${n} ranks x 4 threads ok")
  endforeach()
endforeach()
# the same with waits that sleep: a thread sleeps on the doorbells of the channels whose
# locks it holds, and one that wants such a lock rings that channel's
add_test(NAME mpi_threads_channels_3_ch4_sleep
         COMMAND ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads_channels>)
set_tests_properties(mpi_threads_channels_3_ch4_sleep PROPERTIES LABELS "mp;mpi;thread"
                     TIMEOUT ${TW_TEST_TIMEOUT} ENVIRONMENT "TW_CHANNELS=4;TW_WAIT=sleep"
                     PASS_REGULAR_EXPRESSION "threads_channels: 3 ranks x 4 threads ok")
