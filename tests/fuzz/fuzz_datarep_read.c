/* Fuzz target of a program's data representation (MPI_Register_datarep_c and
 * MPI_Register_datarep, src/mpi/io/datarep.c) as a read hands the file's bytes to its
 * read conversion function: the input's bytes are a file, read through a view in a
 * representation whose extents (1 to 16 bytes a predefined type) the input chooses,
 * into count items of a struct of up to four predefined types, with a conversion
 * buffer of 1 to 64 bytes (so one read is many calls, at positions past 0).
 *
 * Bytes 0-4: the memory type; 5: the count (0-15); 6: the offset (0-31); 7: the
 * filetype; 8: the displacement; 9: the buffer; 10-20: the extents; the rest: the
 * file. The conversion function is called with the read's datatype and buffer, at
 * least one item, positions that follow each other from 0 and stay inside the read;
 * the items it converts are what the status counts; nothing outside the buffer is
 * written (guard zones, and ASan). */
#include "io_view.h"

enum { HEAD = 21, SLOTS = 512 };

/* A representation: its extent of each of io_basics (MPI_BYTE's is 1). */
typedef struct rep {
    MPI_Aint extent[IO_BASICS];
    int registered;
} rep_t;

static rep_t reps[SLOTS];
static io_memtype_t *cur;
static const rep_t *cur_rep;
static unsigned char *cur_buf;
static MPI_Count cur_items, next_position;
static long calls;

static int basic_index(MPI_Datatype type) {
    for (int k = 0; k < IO_BASICS; k++)
        if (io_basics[k] == type) return k;
    return -1;
}

static int extent_fn(MPI_Datatype type, MPI_Aint *extent, void *state) {
    const rep_t *r = state;
    int k = basic_index(type);
    if (type == MPI_BYTE) {
        *extent = 1;
        return MPI_SUCCESS;
    }
    FUZZ_CHECK(k >= 0); /* only the types the program used */
    *extent = r->extent[k];
    return MPI_SUCCESS;
}

static int read_fn_c(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                     MPI_Offset position, void *state) {
    FUZZ_CHECK(state == cur_rep && type == cur->type && userbuf == cur_buf);
    FUZZ_CHECK(count >= 1 && position == next_position && position + count <= cur_items);
    const unsigned char *f = filebuf;
    for (MPI_Count e = position; e < position + count; e++) {
        int j = (int)(e % cur->n);
        MPI_Aint fext = cur_rep->extent[basic_index(cur->member[j])];
        unsigned char *to = cur_buf + (e / cur->n) * cur->extent + cur->disp[j];
        size_t take = (size_t)(fext < cur->size[j] ? fext : cur->size[j]);
        memcpy(to, f, take);
        f += fext;
    }
    next_position += count;
    calls++;
    return MPI_SUCCESS;
}

static int read_fn(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                   void *state) {
    return read_fn_c(userbuf, type, count, filebuf, position, state);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < HEAD) return 0;
    io_start();
    /* the representation: a slot by the extents asked (the first one there stays) */
    rep_t want = {0};
    uint32_t hash = 2166136261u;
    for (int k = 0; k < IO_BASICS; k++) {
        want.extent[k] = 1 + data[10 + k] % 16;
        hash = (hash ^ (uint32_t)want.extent[k]) * 16777619u;
    }
    unsigned slot = hash % SLOTS;
    char name[32];
    snprintf(name, sizeof name, "fuzz-%u", slot);
    if (!reps[slot].registered) {
        reps[slot] = want;
        reps[slot].registered = 1;
        int rc = slot % 2 ? MPI_Register_datarep(name, read_fn, NULL, extent_fn, &reps[slot])
                          : MPI_Register_datarep_c(name, read_fn_c, NULL, extent_fn, &reps[slot]);
        FUZZ_CHECK(rc == MPI_SUCCESS);
    }
    io_memtype_t t;
    io_memtype_make(&t, data);
    int count = data[5] % 16, v = data[7];
    MPI_Offset offset = data[6] % 32, disp = data[8] % 16;
    MPI_Datatype filetype = io_filetype_make(v);
    char buffer[16];
    snprintf(buffer, sizeof buffer, "%d", 1 + data[9] % 64);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "tw_datarep_buffer_size", buffer);
    io_set_file(data + HEAD, size - HEAD);
    FUZZ_CHECK(MPI_File_set_view(io_file, disp, MPI_BYTE, filetype, name, info) == MPI_SUCCESS);
    MPI_Info_free(&info);
    size_t n = (size_t)count * (size_t)t.extent;
    cur = &t;
    cur_rep = &reps[slot];
    cur_buf = io_guarded(n);
    cur_items = (MPI_Count)count * t.n;
    next_position = 0;
    MPI_Status st;
    FUZZ_CHECK(MPI_File_read_at(io_file, offset, cur_buf, count, t.type, &st) == MPI_SUCCESS);
    MPI_Count elements = -1;
    MPI_Get_elements_c(&st, t.type, &elements);
    /* a pair (MPI_DOUBLE_INT) counts two basic elements */
    MPI_Count pairs = 0;
    for (MPI_Count e = 0; e < next_position; e++)
        pairs += cur->member[e % cur->n] == MPI_DOUBLE_INT;
    FUZZ_CHECK(elements == next_position + pairs);
    io_guards_check(cur_buf, n);
    if (filetype != MPI_BYTE) MPI_Type_free(&filetype);
    MPI_Type_free(&t.type);
    return 0;
}

void fuzz_report(FILE *out) {
    fprintf(out, ", %ld conversion calls", calls);
}
