! Output to a file keeps the order it was written in and survives MPI_Abort: each rank
! writes a line from Fortran, one from C (flushed), another from Fortran, then rank 0
! aborts the job. output_file.sh runs it with mpiexec's stdout a regular file and checks
! that every rank's three lines are there, in that order.
program f90_output_file
    use mpi
    use iso_c_binding, only: c_int, c_char, c_null_char, c_ptr, c_null_ptr
    implicit none
    interface
        integer(c_int) function c_puts(s) bind(C, name='puts')
            import :: c_int, c_char
            character(kind=c_char), dimension(*), intent(in) :: s
        end function
        integer(c_int) function c_fflush(f) bind(C, name='fflush')
            import :: c_int, c_ptr
            type(c_ptr), value :: f
        end function
    end interface
    integer :: ierr, rank
    integer(c_int) :: rc
    character(len=64) :: line

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    write (6, '(a,i0)') 'f90_output_file: 1 from Fortran on rank ', rank
    write (line, '(a,i0)') 'f90_output_file: 2 from C on rank ', rank
    rc = c_puts(trim(line)//c_null_char)
    rc = c_fflush(c_null_ptr)
    write (6, '(a,i0)') 'f90_output_file: 3 from Fortran on rank ', rank
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (rank == 0) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
    call MPI_Finalize(ierr)
end program
