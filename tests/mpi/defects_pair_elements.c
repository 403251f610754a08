/* MPI_Get_elements after a receive of a pair type shorter than the receive: the
 * basic elements there whole count (a pair's value, then its index), as MPICH
 * counts them (its pairs are structs), never MPI_UNDEFINED. The pairs travel as
 * their type map says, without the C struct's padding: one pair is 12 bytes of
 * MPI_DOUBLE_INT. */
#include <mpi.h>
#include <string.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct pair {
        double d;
        int i;
    } in[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, out[3];
    unsigned char raw[sizeof in];
    memcpy(raw, in, sizeof in);
    /* bytes sent: {pairs, elements counted by an MPI_DOUBLE_INT receive of 3} */
    const size_t pair = sizeof(double) + sizeof(int);
    const struct {
        size_t bytes;
        int elements;
    } cases[] = {
        {pair, 2},         /* one whole pair */
        {pair + 8, 3},     /* and the next one's value */
        {pair + 12, 4},    /* and its index: both members whole */
        {2 * pair + 4, 4}, /* two pairs and part of a value */
        {8, 1},            /* a value alone */
        {10, 1},           /* and part of its index */
        {4, 0},            /* part of a value: nothing whole */
        {0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        MPI_Status st;
        int c = -5, n = -5;
        CHECK(MPI_Sendrecv(raw, (int)cases[k].bytes, MPI_BYTE, rank, 4, out, 3, MPI_DOUBLE_INT,
                           rank, 4, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &c) == MPI_SUCCESS && c == cases[k].elements);
        MPI_Count cx = -5;
        CHECK(MPI_Get_elements_x(&st, MPI_DOUBLE_INT, &cx) == MPI_SUCCESS &&
              cx == cases[k].elements);
        /* the count of whole items */
        CHECK(MPI_Get_count(&st, MPI_DOUBLE_INT, &n) == MPI_SUCCESS &&
              n == (cases[k].bytes % pair ? MPI_UNDEFINED : (int)(cases[k].bytes / pair)));
    }
    MPI_Finalize();
    return 0;
}
