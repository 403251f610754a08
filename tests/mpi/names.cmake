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
# include/tollway/pmpi.h is what src/mpi/gen_api.py makes of mpi.h today
add_test(NAME pmpi_header_current COMMAND sh -c
         "${PYTHON3} ${PROJECT_SOURCE_DIR}/src/mpi/gen_api.py header ${PROJECT_SOURCE_DIR}/include/mpi.h - | diff -u ${PROJECT_SOURCE_DIR}/include/tollway/pmpi.h - || { echo 'stale: run src/mpi/gen_api.py header include/mpi.h include/tollway/pmpi.h'; exit 1; }")
set_tests_properties(libmpi_internal_calls_private pmpi_header_current PROPERTIES LABELS "unit" TIMEOUT 60)
# mpi.h declares every C name of MPI-3.1 outside I/O and Fortran, and libmpi exports
# every call of them with its PMPI_ twin (the checker also checks itself)
add_test(NAME mpi_names COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_names.py
         ${CMAKE_CURRENT_SOURCE_DIR}/mpi31_names.txt ${PROJECT_SOURCE_DIR}/include $<TARGET_FILE:mpi> ${CMAKE_C_COMPILER})
add_test(NAME mpi_names_self_test COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_names.py --self-test)
set_tests_properties(mpi_names mpi_names_self_test PROPERTIES LABELS "unit" TIMEOUT 120)
