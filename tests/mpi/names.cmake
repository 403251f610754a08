# The profiling interface: a tool that defines MPI_ calls and uses their PMPI_ twins,
# linked into the program and preloaded into one that does not know it.
add_library(pmpi_tool SHARED pmpi_tool.c)
target_link_libraries(pmpi_tool PRIVATE mpi)
add_executable(mpi_pmpi_linked pmpi.c)
target_link_libraries(mpi_pmpi_linked PRIVATE pmpi_tool mpi)
add_executable(mpi_pmpi_preloaded pmpi.c)
target_link_libraries(mpi_pmpi_preloaded PRIVATE mpi)
foreach(n 1 3)
  add_test(NAME mpi_pmpi_linked_${n} COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_pmpi_linked>)
  # the launcher itself is not preloaded: env sets LD_PRELOAD for the ranks only
  add_test(NAME mpi_pmpi_preloaded_${n} COMMAND ${MPIEXEC} -n ${n} --timeout ${TW_TEST_JOB_TIMEOUT}
           env LD_PRELOAD=$<TARGET_FILE:pmpi_tool> $<TARGET_FILE:mpi_pmpi_preloaded>)
  set_tests_properties(mpi_pmpi_linked_${n} mpi_pmpi_preloaded_${n} PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
  # under AddressSanitizer the preloaded tool comes before its runtime, which the
  # program itself loads: that order is the point of the test, so ASan is told to allow it
  set_tests_properties(mpi_pmpi_preloaded_${n} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0")
endforeach()
# The library calls itself by its internal names: no call of its own goes through a
# PLT slot a tool's MPI_ or PMPI_ definition could take over.
add_test(NAME libmpi_internal_calls_private COMMAND sh -c
         "objdump -R $<TARGET_FILE:mpi> | grep -E 'JUMP_SLOT +P?MPI_' && exit 1 || exit 0")
# The bindings are generated from the MPI Forum's description (src/mpi/bindings):
# the checked-in headers and extract are what the generator makes today, and libmpi's
# exports and mpi.h's prototypes are exactly the description less not_claimed.txt.
add_test(NAME mpi_bindings_current COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/bindings_current.sh
         ${PROJECT_SOURCE_DIR} ${PYTHON3})
add_test(NAME mpi_bindings_claim_library COMMAND ${PYTHON3} ${PROJECT_SOURCE_DIR}/src/mpi/bindings/gen_bindings.py
         check-library $<TARGET_FILE:mpi>)
add_test(NAME mpi_bindings_claim_header COMMAND ${PYTHON3} ${PROJECT_SOURCE_DIR}/src/mpi/bindings/gen_bindings.py
         check-header ${PROJECT_SOURCE_DIR}/include/mpi.h)
add_test(NAME mpi_bindings_self_test COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/bindings_self_test.py
         ${PROJECT_SOURCE_DIR})
set_tests_properties(libmpi_internal_calls_private mpi_bindings_current mpi_bindings_claim_library
                     mpi_bindings_claim_header mpi_bindings_self_test PROPERTIES LABELS "unit" TIMEOUT 60)
# the generated argument checks: a negative count reaches the communicator's handler
add_executable(mpi_bindings_checks bindings_checks.c)
add_executable(mpi_bindings_argchecks bindings_argchecks.c)
target_link_libraries(mpi_bindings_argchecks PRIVATE mpi)
tw_mpi_ranks(bindings_argchecks 1 2)
target_link_libraries(mpi_bindings_checks PRIVATE mpi)
tw_mpi_ranks(bindings_checks 1 2)
add_test(NAME mpi_bindings_checks_multiple COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT}
         $<TARGET_FILE:mpi_bindings_checks> multiple)
set_tests_properties(mpi_bindings_checks_multiple PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT})
# mpi.h declares every C name of MPI-3.1 outside I/O and Fortran, and libmpi exports
# every call of them with its PMPI_ twin (the checker also checks itself)
add_test(NAME mpi_names COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_names.py
         ${CMAKE_CURRENT_SOURCE_DIR}/mpi31_names.txt ${PROJECT_SOURCE_DIR}/include $<TARGET_FILE:mpi> ${CMAKE_C_COMPILER})
add_test(NAME mpi_names_self_test COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_names.py --self-test)
set_tests_properties(mpi_names mpi_names_self_test PROPERTIES LABELS "unit" TIMEOUT 120)
