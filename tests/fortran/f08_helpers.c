/* The C side of f08_module.f90: conversions between the bindings, and a profiling
 * tool that intercepts mpi_f08's MPI_Send_f08 (the standard's specific name) and
 * reaches the library through PMPI_Send_f08. */
#include <ISO_Fortran_binding.h>
#include <mpi.h>

void MPI_Send_f08(CFI_cdesc_t *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest,
                  MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierror);
void PMPI_Send_f08(CFI_cdesc_t *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest,
                   MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierror);
int tw_test_sends_seen(void);

static int sends_seen;

void MPI_Send_f08(CFI_cdesc_t *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest,
                  MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierror) {
    sends_seen++;
    PMPI_Send_f08(buf, count, datatype, dest, tag, comm, ierror);
}

int tw_test_sends_seen(void) {
    return sends_seen;
}

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
