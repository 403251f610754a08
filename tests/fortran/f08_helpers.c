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

/* MPI_T has no Fortran binding (MPI-4.1 chapter 15): a Fortran program reads a
 * performance variable through C. Returns the VELO messages this process has sent
 * since the first call (the pvar velo_msgs_sent, started then), or -1 when it cannot
 * be read. */
long long tw_test_velo_msgs_sent(void);

long long tw_test_velo_msgs_sent(void) {
    static int started;
    static MPI_T_pvar_session session;
    static MPI_T_pvar_handle handle;
    if (!started) {
        int provided, index, count;
        if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
            MPI_T_pvar_get_index("velo_msgs_sent", MPI_T_PVAR_CLASS_COUNTER, &index) !=
                MPI_SUCCESS ||
            MPI_T_pvar_session_create(&session) != MPI_SUCCESS ||
            MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count) != MPI_SUCCESS ||
            count != 1 || MPI_T_pvar_start(session, handle) != MPI_SUCCESS)
            return -1;
        started = 1;
    }
    unsigned long long v = 0;
    return MPI_T_pvar_read(session, handle, &v) == MPI_SUCCESS ? (long long)v : -1;
}
