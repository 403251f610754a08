/* Attribute values set from Fortran (MPI-4.1 section 19.3.7): kept in a cell whose
 * address is the C attribute, so that C reads the value through a pointer and
 * Fortran the value itself (attr_value.c). */
#ifndef TW_MPI_BINDINGS_FORTRAN_ATTR_VALUE_H
#define TW_MPI_BINDINGS_FORTRAN_ATTR_VALUE_H

#include <mpi.h>

/* a new cell holding value (NULL: no memory); mpi1: an INTEGER of MPI_ATTR_PUT */
void *tw_f_attr_cell_new(MPI_Aint value, int mpi1);
/* the value Fortran gets for a C attribute: a cell's value, else the pointer's address */
MPI_Aint tw_f_attr_value(const void *attr);
/* gives a cell back when its attribute is deleted; anything else is left alone */
void tw_f_attr_cell_free(void *attr);

#endif
