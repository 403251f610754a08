# MPI_THREAD_MULTIPLE (MPI-3.1 section 12.4): threads calling MPI at once. Label
# "thread" as well, so the ThreadSanitizer build (make test-tsan) runs them.
add_executable(mpi_threads threads.c)
target_link_libraries(mpi_threads PRIVATE mpi Threads::Threads)
add_executable(mpi_threads_level threads_level.c)
target_link_libraries(mpi_threads_level PRIVATE mpi Threads::Threads)
tw_mpi_ranks(threads 1 2 3)
add_test(NAME mpi_threads_udp COMMAND ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads>)
set_tests_properties(mpi_threads_udp PROPERTIES ENVIRONMENT "TW_LINK=udp")
# the device's progress thread polls the udp link alongside the MPI threads
add_test(NAME mpi_threads_udp_progress_thread COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads>)
set_tests_properties(mpi_threads_udp_progress_thread PROPERTIES ENVIRONMENT "TW_LINK=udp;TW_PROGRESS_THREAD=1")
foreach(level 0 1 2 3 below above)
  add_test(NAME mpi_threads_level_${level} COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads_level> ${level})
  set_tests_properties(mpi_threads_level_${level} PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
endforeach()
set_tests_properties(mpi_threads_1 mpi_threads_2 mpi_threads_3 mpi_threads_udp mpi_threads_udp_progress_thread
                     PROPERTIES LABELS "mp;mpi;thread" TIMEOUT ${TW_TEST_TIMEOUT})
# Waits that sleep (TW_WAIT=sleep, up to a second at a time) holding the library's
# lock, which a thread of the same process then needs (threads_handover.c)
add_executable(mpi_threads_handover threads_handover.c)
target_link_libraries(mpi_threads_handover PRIVATE mpi Threads::Threads)
foreach(n 1 2)
  add_test(NAME mpi_threads_handover_${n}
           COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads_handover>)
  set_tests_properties(mpi_threads_handover_${n} PROPERTIES LABELS "mp;mpi;thread"
                       TIMEOUT ${TW_TEST_TIMEOUT} PASS_REGULAR_EXPRESSION "rounds ok"
                       ENVIRONMENT "TW_WAIT=sleep;TW_WAIT_SLEEP=1000000")
endforeach()
# Every phase of threads.c with waits that sleep (TW_WAIT=sleep, up to a second at a
# time) holding the library's lock, the ranks on one CPU
add_test(NAME mpi_threads_sleeping_3_on_1_cpu
         COMMAND ${PROJECT_SOURCE_DIR}/tests/mpi/few_cpus.sh 1 ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads>)
set_tests_properties(mpi_threads_sleeping_3_on_1_cpu PROPERTIES LABELS "mp;mpi;thread"
                     TIMEOUT ${TW_TEST_TIMEOUT} SKIP_RETURN_CODE 77
                     ENVIRONMENT "TW_WAIT=sleep;TW_WAIT_SLEEP=1000000")
# Ranks and threads outnumbering the CPUs, as users run IMB-MT: 4 ranks of 4 threads on
# 2 CPUs, waits as TW_WAIT=auto chooses there (they sleep, 2 ms at most); collectives on
# the threads' own communicators wait without the library's lock
# (tw_mpi_thread_pause_free). Lost wake-ups: mpi_threads_sleeping_3_on_1_cpu, whose
# sleeps last up to a second, and mpi_threads_queued below.
add_test(NAME mpi_threads_crowded_4_on_2_cpus
         COMMAND ${PROJECT_SOURCE_DIR}/tests/mpi/few_cpus.sh 2 ${MPIEXEC} -n 4 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads>)
set_tests_properties(mpi_threads_crowded_4_on_2_cpus PROPERTIES LABELS "mp;mpi;thread"
                     TIMEOUT ${TW_TEST_TIMEOUT} SKIP_RETURN_CODE 77)
# A collective's wait without the lock retries sends refused by a full mailbox rather
# than sleep past them (threads_queued.c): a sleep bound of a second would cost every
# round a second
add_executable(mpi_threads_queued threads_queued.c)
target_link_libraries(mpi_threads_queued PRIVATE mpi)
add_test(NAME mpi_threads_queued COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_threads_queued>)
set_tests_properties(mpi_threads_queued PROPERTIES LABELS "mp;mpi;thread" TIMEOUT ${TW_TEST_TIMEOUT}
                     PASS_REGULAR_EXPRESSION "rounds ok"
                     ENVIRONMENT "TW_WAIT=sleep;TW_WAIT_SLEEP=1000000;TW_VELO_SLOTS=128")
