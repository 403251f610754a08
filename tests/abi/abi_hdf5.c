/* Prebuilt software over a face: Debian's parallel HDF5 (libhdf5_openmpi.so.103 or
 * libhdf5_mpich.so.103, built for that MPI), which writes and reads through MPI-IO,
 * under a program built by its h5pcc. Each rank writes its rows of a 2-D dataset
 * collectively, then every rank reads the whole dataset back independently and checks
 * every value. Prints "library: ..." and "every check passed" (or FAIL). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const hsize_t rows = 64, cols = 1000;
    char name[64]; /* one file a job size: the tests of 1 and 3 ranks may run at once */
    snprintf(name, sizeof name, "abi_hdf5_%d.h5", size);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims[2] = {rows * size, cols};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset =
        H5Dcreate2(file, "data", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t start[2] = {rows * rank, 0}, count[2] = {rows, cols};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(2, count, NULL);
    int *buf = malloc(rows * cols * sizeof *buf);
    for (hsize_t i = 0; i < rows * cols; i++) buf[i] = (int)(rank * rows * cols + i);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    herr_t w = H5Dwrite(dset, H5T_NATIVE_INT, mem, space, xfer, buf);
    H5Dclose(dset);
    H5Sclose(space);
    H5Sclose(mem);
    H5Pclose(xfer);
    H5Fclose(file);
    file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    dset = H5Dopen2(file, "data", H5P_DEFAULT);
    int *all = malloc(rows * size * cols * sizeof *all);
    herr_t r = H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all);
    long bad = 0;
    for (hsize_t i = 0; i < rows * size * cols; i++) bad += all[i] != (int)i;
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(fapl);
    long badall = 0;
    MPI_Allreduce(&bad, &badall, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    if (rank == 0)
        printf("library: %.40s\nwrite %d read %d wrong %ld\n%s\n", v, (int)w, (int)r, badall,
               w >= 0 && r >= 0 && badall == 0 ? "every check passed" : "FAIL");
    if (rank == 0) remove(name);
    MPI_Finalize();
    return 0;
}
