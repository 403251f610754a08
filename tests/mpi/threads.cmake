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
