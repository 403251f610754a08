/* Fuzz target of external32 views as a read decodes them (src/mpi/io/datarep.c, the
 * external32 values of src/mpi/datatype/external32.c): the input's bytes are a file,
 * read through an external32 view (a displacement and a filetype of bytes, contiguous
 * or strided, the input chooses) into count items of a struct of up to four
 * predefined types (long, long double, wchar_t, a pair ... whose external32 sizes
 * differ from the native ones), at an offset the input chooses.
 *
 * Bytes 0-4: the memory type; 5: the count (0-15); 6: the offset (0-31); 7: the
 * filetype; 8: the displacement (0-15); the rest: the file. A read succeeds, counts no
 * more than asked, and writes nothing outside the items' buffer (guard zones; under
 * ASan, any byte outside is an error too). */
#include "io_view.h"

enum { HEAD = 9 };

static long bytes_read;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < HEAD) return 0;
    io_start();
    io_memtype_t t;
    io_memtype_make(&t, data);
    int count = data[5] % 16, v = data[7];
    MPI_Offset offset = data[6] % 32, disp = data[8] % 16;
    MPI_Datatype filetype = io_filetype_make(v);
    io_set_file(data + HEAD, size - HEAD);
    FUZZ_CHECK(MPI_File_set_view(io_file, disp, MPI_BYTE, filetype, "external32", MPI_INFO_NULL) ==
               MPI_SUCCESS);
    size_t n = (size_t)count * (size_t)t.extent;
    unsigned char *buf = io_guarded(n);
    MPI_Status st;
    FUZZ_CHECK(MPI_File_read_at(io_file, offset, buf, count, t.type, &st) == MPI_SUCCESS);
    MPI_Count got = -1, asked;
    MPI_Type_size_c(t.type, &asked);
    MPI_Get_elements_c(&st, MPI_BYTE, &got);
    FUZZ_CHECK(got >= 0 && got <= asked * count);
    bytes_read += (long)got;
    io_guards_check(buf, n);
    if (filetype != MPI_BYTE) MPI_Type_free(&filetype);
    MPI_Type_free(&t.type);
    return 0;
}

void fuzz_report(FILE *out) {
    fprintf(out, ", %ld bytes decoded", bytes_read);
}
