# Info objects (MPI-3.1 chapter 9), MPI_INFO_ENV, and the hints of communicators
# and windows.
add_executable(mpi_info info.c)
target_link_libraries(mpi_info PRIVATE mpi)
tw_mpi_ranks(info 1 2)
# MPI_INFO_ENV's argv: the arguments the program was started with
add_test(NAME mpi_info_2_args COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_info> first "second arg")
set_tests_properties(mpi_info_2_args PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
# MPI_Init(NULL, NULL): MPI_INFO_ENV still has the command line
add_test(NAME mpi_info_1_init_null COMMAND ${MPIEXEC} -n 1 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_info> --init-null)
set_tests_properties(mpi_info_1_init_null PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
add_test(NAME mpi_info_2_funneled COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_info> --funneled)
set_tests_properties(mpi_info_2_funneled PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
