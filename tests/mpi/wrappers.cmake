# mpicc as build systems ask it: Open MPI's and MPICH's query flags, --version,
# the flags alone, and CMake's FindMPI
add_test(NAME mpicc_as_build_systems_use_it COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpicc.sh ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
# not under the sanitizers: the plain programs it builds cannot load their runtimes
set_tests_properties(mpicc_as_build_systems_use_it PROPERTIES LABELS "wrapper" TIMEOUT ${TW_TEST_TIMEOUT})
