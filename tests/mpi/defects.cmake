# Regression tests of defects found by running external MPI programs: one program
# per defect, each asserting the fixed behaviour.
function(tw_mpi_defect name)
  add_executable(mpi_defects_${name} defects_${name}.c)
  target_link_libraries(mpi_defects_${name} PRIVATE mpi)
  tw_mpi_ranks(defects_${name} ${ARGN})
endfunction()
tw_mpi_defect(rma_zero 1 3)
tw_mpi_defect(zero_types 1 2)
tw_mpi_defect(bottom 1 2 4)
tw_mpi_defect(alltoall 2 3 5)
tw_mpi_defect(split_type 2 5)
tw_mpi_defect(char_ops 1 3)
tw_mpi_defect(freed_type 2 3)
tw_mpi_defect(intercomm_loop 2 6)
tw_mpi_defect(dyn_win 1 3)
tw_mpi_defect(put_pieces 2 3)
# over the udp link such puts go piece by piece, as before
add_test(NAME mpi_defects_put_pieces_2_udp COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_defects_put_pieces>)
set_tests_properties(mpi_defects_put_pieces_2_udp PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT} ENVIRONMENT "TW_LINK=udp")
# and over the pipelined shm copy
add_test(NAME mpi_defects_put_pieces_2_pipelined COMMAND ${MPIEXEC} -n 2 --timeout ${TW_TEST_JOB_TIMEOUT} $<TARGET_FILE:mpi_defects_put_pieces>)
set_tests_properties(mpi_defects_put_pieces_2_pipelined PROPERTIES LABELS "mp;mpi" TIMEOUT ${TW_TEST_TIMEOUT} ENVIRONMENT "TW_RMA_COPY=pipeline")
tw_mpi_defect(pair_elements 1 2)
