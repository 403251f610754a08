/* The generated wrappers' argument checks (checks.h). */
#include <stdio.h>

#include "mpi/bindings/checks.h"
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"
#include "mpi/rma/win.h"

int tw_mpi_arg_reportable(int object, int handle) {
    if (tw_mpi.users <= 0) return 0;
    switch (object) {
    case TW_ARG_COMM:
        return tw_mpi_comm_get(handle) != NULL;
    case TW_ARG_WIN:
        return win_get(handle) != NULL;
    default:
        return 1;
    }
}

static int report(int object, int handle, const char *call, int errclass, const char *detail) {
    switch (object) {
    case TW_ARG_COMM:
        return tw_mpi_error(tw_mpi_comm_get(handle), call, errclass, detail);
    case TW_ARG_WIN:
        return tw_win_error(win_get(handle), call, errclass, detail);
    default:
        return tw_mpi_error(NULL, call, errclass, detail);
    }
}

int tw_mpi_arg_negative(int object, int handle, const char *call, const char *param, int errclass,
                        long long value) {
    char detail[96];
    snprintf(detail, sizeof detail, "%s %lld is negative", param, value);
    return report(object, handle, call, errclass, detail);
}

int tw_mpi_arg_null(int object, int handle, const char *call, const char *param, int errclass,
                    const char *null_name) {
    char detail[96];
    snprintf(detail, sizeof detail, "%s is %s", param, null_name);
    return report(object, handle, call, errclass, detail);
}
