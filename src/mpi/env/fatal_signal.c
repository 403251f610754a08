/* A rank killed by SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT says so on stderr, as
 * Open MPI's ranks do: "tollway MPI: rank N (pid P, host H): signal NAME", then the
 * backtrace glibc finds. The handler then restores the default action and raises the
 * signal again, so the process still dies of it: its parent (twrun, a shell) sees
 * the signal in the exit status. It runs on an alternate stack, so that a stack
 * overflow is reported too. Everything in the handler is async-signal-safe: the
 * text is formatted by hand and written with write(2); backtrace() is called once
 * beforehand, which loads libgcc_s (its first call would allocate). */
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <tollway/settings.h>

#include "mpi/env/fatal_signal.h"
#include "mpi/env/state.h"

static const struct {
    int sig;
    const char *name;
} handled[] = {{SIGSEGV, "SIGSEGV"},
               {SIGBUS, "SIGBUS"},
               {SIGFPE, "SIGFPE"},
               {SIGILL, "SIGILL"},
               {SIGABRT, "SIGABRT"}};

enum { ALT_STACK_SIZE = 64 * 1024, MAX_FRAMES = 64 };

/* the alternate stack: static, since the handler must work when malloc's heap is what
 * broke */
static _Alignas(16) char alt_stack[ALT_STACK_SIZE];
static char host[64]; /* gethostname is not async-signal-safe: asked at MPI_Init */
static int rank_of_process;

/* Appends s to buf (at *len, cap bytes), cut short when full. */
static void put_text(char *buf, size_t cap, size_t *len, const char *s) {
    while (*s && *len < cap) buf[(*len)++] = *s++;
}

static void put_number(char *buf, size_t cap, size_t *len, uintmax_t v, unsigned base) {
    char digits[32];
    size_t n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && n < sizeof digits);
    while (n && *len < cap) buf[(*len)++] = digits[--n];
}

static void write_all(const char *buf, size_t len) {
    while (len) {
        ssize_t n = write(STDERR_FILENO, buf, len);
        if (n <= 0) return; /* nothing more can be said */
        buf += n;
        len -= (size_t)n;
    }
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context) {
    (void)context;
    const char *name = "?";
    for (size_t k = 0; k < sizeof handled / sizeof handled[0]; k++)
        if (handled[k].sig == sig) name = handled[k].name;
    char line[256];
    size_t len = 0;
    put_text(line, sizeof line, &len, "tollway MPI: rank ");
    put_number(line, sizeof line, &len, (uintmax_t)rank_of_process, 10);
    put_text(line, sizeof line, &len, " (pid ");
    put_number(line, sizeof line, &len, (uintmax_t)getpid(), 10);
    put_text(line, sizeof line, &len, ", host ");
    put_text(line, sizeof line, &len, host);
    put_text(line, sizeof line, &len, "): signal ");
    put_text(line, sizeof line, &len, name);
    if (info && (sig == SIGSEGV || sig == SIGBUS) && info->si_code > 0) {
        /* a fault, not a kill(2): where */
        put_text(line, sizeof line, &len, " at address 0x");
        put_number(line, sizeof line, &len, (uintptr_t)info->si_addr, 16);
    }
    put_text(line, sizeof line, &len, "; backtrace:\n");
    write_all(line, len);
    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    /* the default action, raised again: it is delivered once this handler returns (the
     * signal is blocked while it runs), or the faulting instruction faults again */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

void tw_mpi_fatal_signals_init(void) {
    if (!tw_setting_unsigned(TW_SETTING_BACKTRACE)) return;
    rank_of_process = tw_mpi.rank;
    if (gethostname(host, sizeof host)) strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    void *warm_up[1];
    backtrace(warm_up, 1); /* loads libgcc_s now, not inside the handler */

    /* an alternate stack of the program's own (or a sanitizer's) stays */
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
        sigaltstack(&ss, NULL);
    }
    for (size_t k = 0; k < sizeof handled / sizeof handled[0]; k++) {
        struct sigaction old;
        /* a handler the program set (or SIG_IGN) is the program's choice */
        if (sigaction(handled[k].sig, NULL, &old) || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal_signal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(handled[k].sig, &sa, NULL);
    }
}
