/* Attribute values set from Fortran (attr_value.h). MPI-4.1 section 19.3.7: a C get of an
 * attribute that Fortran set gives the address of the value (an MPI_Aint after
 * MPI_COMM_SET_ATTR, an INTEGER after MPI_ATTR_PUT), and a Fortran get gives the value
 * whichever language set it (a C pointer as its address). So libmpifort stores a value
 * from Fortran in a cell of its own and hands C the cell's address; a Fortran get
 * tells a cell from a C pointer by its address. The cells live in slabs that are
 * never unmapped, so telling costs no access to memory a C pointer might not own. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/bindings/fortran/attr_value.h"

struct cell {
    union {
        MPI_Aint aint; /* first: the address C gets is the cell's */
        MPI_Fint fint;
    } value;
    int mpi1;   /* set by MPI_ATTR_PUT: the value is an INTEGER */
    int in_use; /* held by an attribute */
    struct cell *next_free;
};

enum { SLAB_CELLS = 1024, MAX_SLABS = 4096 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cell *slabs[MAX_SLABS];
static int nslabs;
static struct cell *free_cells;

/* the cell at p, or NULL when p is no cell's address (the caller holds the lock) */
static struct cell *cell_at(const void *p) {
    uintptr_t a = (uintptr_t)p;
    for (int s = 0; s < nslabs; s++) {
        uintptr_t first = (uintptr_t)slabs[s];
        if (a < first || a >= first + SLAB_CELLS * sizeof(struct cell)) continue;
        if ((a - first) % sizeof(struct cell)) return NULL;
        struct cell *c = (struct cell *)p;
        return c->in_use ? c : NULL;
    }
    return NULL;
}

void *tw_f_attr_cell_new(MPI_Aint value, int mpi1) {
    pthread_mutex_lock(&lock);
    if (!free_cells && nslabs < MAX_SLABS) {
        struct cell *slab = calloc(SLAB_CELLS, sizeof *slab);
        if (slab) {
            slabs[nslabs++] = slab;
            for (int k = SLAB_CELLS - 1; k >= 0; k--) {
                slab[k].next_free = free_cells;
                free_cells = &slab[k];
            }
        }
    }
    struct cell *c = free_cells;
    if (c) {
        free_cells = c->next_free;
        c->in_use = 1;
        c->mpi1 = mpi1;
        if (mpi1)
            c->value.fint = (MPI_Fint)value;
        else
            c->value.aint = value;
    }
    pthread_mutex_unlock(&lock);
    return c;
}

MPI_Aint tw_f_attr_value(const void *attr) {
    pthread_mutex_lock(&lock);
    const struct cell *c = cell_at(attr);
    MPI_Aint value = !c ? (MPI_Aint)(intptr_t)attr : c->mpi1 ? c->value.fint : c->value.aint;
    pthread_mutex_unlock(&lock);
    return value;
}

void tw_f_attr_cell_free(void *attr) {
    pthread_mutex_lock(&lock);
    struct cell *c = cell_at(attr);
    if (c) {
        c->in_use = 0;
        c->next_free = free_cells;
        free_cells = c;
    }
    pthread_mutex_unlock(&lock);
}
