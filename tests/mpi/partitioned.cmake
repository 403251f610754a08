# Partitioned point-to-point communication (MPI-4.1 chapter 4, partitioned.c): a ring of
# partitioned sends on one node and over the udp link (with faults too), a mailbox so
# small that the set-up messages wait for room, the pipelined copy; and several threads
# marking partitions at once (label "thread" too, for the ThreadSanitizer build).
add_executable(mpi_partitioned partitioned.c)
target_link_libraries(mpi_partitioned PRIVATE mpi Threads::Threads)
tw_mpi_ranks(partitioned 1 2 3)
foreach(variant udp udp_faults tiny_mailbox pipelined threads_2 threads_3 threads_udp)
  set(args "")
  if(variant MATCHES "^threads")
    set(args threads)
  endif()
  set(n 3)
  if(variant STREQUAL "threads_2")
    set(n 2)
  endif()
  add_test(NAME mpi_partitioned_${variant}
           COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_partitioned> ${args})
  set_tests_properties(mpi_partitioned_${variant} PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
endforeach()
set_tests_properties(mpi_partitioned_udp mpi_partitioned_threads_udp PROPERTIES ENVIRONMENT "TW_LINK=udp")
set_tests_properties(mpi_partitioned_udp_faults PROPERTIES ENVIRONMENT "TW_LINK=udp;${TW_FAULTS}")
set_tests_properties(mpi_partitioned_tiny_mailbox PROPERTIES ENVIRONMENT "TW_VELO_SLOTS=128")
set_tests_properties(mpi_partitioned_pipelined PROPERTIES ENVIRONMENT "TW_RMA_COPY=pipeline")
set_tests_properties(mpi_partitioned_threads_2 mpi_partitioned_threads_3 mpi_partitioned_threads_udp
                     PROPERTIES LABELS "mp;mpi;thread")
# rank 1 speaks the native API and forges set-up messages and puts (partitioned_hostile.c)
add_executable(mpi_partitioned_hostile partitioned_hostile.c)
target_link_libraries(mpi_partitioned_hostile PRIVATE mpi)
target_include_directories(mpi_partitioned_hostile PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME mpi_partitioned_hostile COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_partitioned_hostile>)
add_test(NAME mpi_partitioned_hostile_udp COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_partitioned_hostile>)
set_tests_properties(mpi_partitioned_hostile mpi_partitioned_hostile_udp PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
set_tests_properties(mpi_partitioned_hostile_udp PROPERTIES ENVIRONMENT "TW_LINK=udp")
