/* record.h: `tracecost record`, the launcher that runs a command under the CUPTI tracer.
 * Linked into the main tracecost binary; it has no CUDA dependency (it only points the child's
 * CUDA_INJECTION64_PATH / NVTX_INJECTION64_PATH at libtracecost_cupti.so). */
#ifndef TC_CUPTI_RECORD_H
#define TC_CUPTI_RECORD_H
#include <stdio.h>

/* Exit codes of tc_record_main besides the command's own status. */
enum {
    TC_RECORD_EXIT_USAGE = 1,      /* bad options, no command, or setup failed before the run */
    TC_RECORD_EXIT_NOEXEC = 126,   /* the command exists but could not be executed */
    TC_RECORD_EXIT_NOTFOUND = 127, /* the command was not found */
};

/* record's options, one X(ID, short, long, value, help) row each: the table tc_record_main parses
 * and its usage lists, and the one cli/ reads (cli/opt_tables.c) for the docs and completion
 * checks. Values come inline (--delay=2, -oDIR) or as the next argument. */
#define TC_RECORD_OPTIONS(X)                                                                   \
    X(OUTPUT, "-o", "--output", "DIR", "trace directory (default ./tracecost-traces)")         \
    X(GZIP, NULL, "--gzip", NULL, "compress traces (.pt.trace.json.gz)")                       \
    X(DELAY, NULL, "--delay", "S", "start capturing S seconds after CUDA initialises")         \
    X(DURATION, NULL, "--duration", "S", "stop capturing S seconds after the start")           \
    X(HELP, "-h", "--help", NULL, "this text")

/* Runs `record`. argv[0] is the subcommand name ("record"); options (TC_RECORD_OPTIONS) follow:
 *   -o DIR | --output DIR   trace directory (default ./tracecost-traces; the tracer makes it when
 *                           it writes the first trace, the launcher only checks it can be made)
 *   --gzip                  write .pt.trace.json.gz
 *   --delay S               start capturing S seconds after CUDA starts (decimal, e.g. 2.5)
 *   --duration S            stop capturing S seconds after it started
 *   -h | --help             usage on stdout, returns 0
 *   --                      ends the options; the command follows (also the first non-option)
 * The command runs with stdin/stdout/stderr inherited and these variables set:
 *   CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH (the tracer library), TRACECOST_OUT_DIR
 *   (absolute), and TRACECOST_GZIP=1 / TRACECOST_DELAY_S / TRACECOST_DURATION_S when given.
 * The tracer library is TRACECOST_CUPTI_LIB when set, else <dir of /proc/self/exe>/
 * libtracecost_cupti.so (build tree), else <dir>/../lib/tracecost/libtracecost_cupti.so
 * (installed).
 *
 * While the command runs, SIGINT and SIGQUIT are ignored by the launcher (the terminal sends
 * them to the command too), so is SIGUSR2 (it toggles capture in traced processes and must not
 * kill the launcher), and SIGTERM and SIGHUP are forwarded to the command.
 *
 * Returns the exit code tracecost should exit with:
 *   the command's exit status when it exits; 128 + N when signal N kills it (like a shell);
 *   TC_RECORD_EXIT_USAGE (1) for usage or setup errors (message on err), among them no CUDA driver
 *   (the library TRACECOST_CUDA_DRIVER names, default libcuda.so.1, cannot be loaded: nothing runs);
 *   126 / 127 when the command cannot be executed / is not found (message on err).
 * Messages and one summary line ("tracecost: N trace file(s) in DIR") go to err. Not
 * thread-safe: it changes the signal mask of the calling thread while the command runs. */
int tc_record_main(int argc, char **argv, FILE *err);

/* Writes record's usage text to out. */
void tc_record_usage(FILE *out);
#endif
