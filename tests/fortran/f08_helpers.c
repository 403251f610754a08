/* The C side of f08_module.f90's conversions between the bindings. */
#include <mpi.h>

int tw_test_comm_world_c2f(void);
int tw_test_comm_size_f(int fcomm);

int tw_test_comm_world_c2f(void) {
    return MPI_Comm_c2f(MPI_COMM_WORLD);
}

int tw_test_comm_size_f(int fcomm) {
    int size = -1;
    MPI_Comm_size(MPI_Comm_f2c(fcomm), &size);
    return size;
}
