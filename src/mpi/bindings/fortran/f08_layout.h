/* The parts of a descriptor (ISO_Fortran_binding.h's CFI_cdesc_t) that mpi_f08's C
 * side reads: base_addr, elem_len, rank and dim[] (never type or attribute, which
 * gfortran and LLVM flang place and number otherwise). Checked where f08.c is built
 * (the compiler's header) and where a second compiler's modules are built against
 * libmpifort (f08_layout.c, its header): a compiler whose descriptors differ here
 * fails to build, rather than having its sections misread. */
#ifndef TW_MPI_BINDINGS_FORTRAN_F08_LAYOUT_H
#define TW_MPI_BINDINGS_FORTRAN_F08_LAYOUT_H

#include <ISO_Fortran_binding.h>
#include <stddef.h>

#define TW_F08_LAYOUT(what, cond) _Static_assert(cond, "descriptor layout: " what)
TW_F08_LAYOUT("base_addr first", offsetof(CFI_cdesc_t, base_addr) == 0);
TW_F08_LAYOUT("elem_len a size_t after it", offsetof(CFI_cdesc_t, elem_len) == sizeof(void *) &&
                                                sizeof(size_t) == sizeof(void *));
TW_F08_LAYOUT("rank a byte after version",
              offsetof(CFI_cdesc_t, rank) == offsetof(CFI_cdesc_t, version) + sizeof(int) &&
                  sizeof(CFI_rank_t) == 1);
TW_F08_LAYOUT("dim[] 4 bytes after rank",
              offsetof(CFI_cdesc_t, dim) == offsetof(CFI_cdesc_t, rank) + 4);
TW_F08_LAYOUT("CFI_dim_t: lower_bound, extent, sm",
              offsetof(CFI_dim_t, lower_bound) == 0 &&
                  offsetof(CFI_dim_t, extent) == sizeof(CFI_index_t) &&
                  offsetof(CFI_dim_t, sm) == 2 * sizeof(CFI_index_t) &&
                  sizeof(CFI_dim_t) == 3 * sizeof(CFI_index_t) &&
                  sizeof(CFI_index_t) == sizeof(ptrdiff_t));
TW_F08_LAYOUT("CFI_MAX_RANK 15", CFI_MAX_RANK == 15);
#undef TW_F08_LAYOUT

#endif
