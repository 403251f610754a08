# The rest of MPI-4.0 and 4.1 (mpi41.c): pair exchanges, idup with info, info,
# removed errors, status fields, request statuses, pair types, hardware-guided
# splits, communicators' buffers; over shared memory and over the udp link.
add_executable(mpi_mpi41 mpi41.c)
target_link_libraries(mpi_mpi41 PRIVATE mpi)
tw_mpi_ranks(mpi41 1 2 3)
add_test(NAME mpi_mpi41_udp COMMAND ${MPIEXEC} -n 3 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_mpi41>)
set_tests_properties(mpi_mpi41_udp PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT} ENVIRONMENT "TW_LINK=udp")
# MPI_ERRORS_ABORT on MPI_COMM_SELF and on MPI_COMM_WORLD: the job ends with the
# error class as its status (MPI_ERR_TAG, 4), the message naming the handler
foreach(comm self world)
  string(TOUPPER ${comm} COMM)
  add_test(NAME mpi_mpi41_errors_abort_${comm} COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/expect_output.sh
           --exit 4 "MPI_ERRORS_ABORT on MPI_COMM_${COMM}" -- ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_mpi41> abort-${comm})
  set_tests_properties(mpi_mpi41_errors_abort_${comm} PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
endforeach()
