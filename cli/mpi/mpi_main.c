/* mpi_main.c: build/tracecost-mpi, `tracecost analyze` as an MPI program (make mpi; docs/mpi.md).
 * Every process parses the same command line; processes other than 0 write nothing (their
 * stdout and stderr go to /dev/null: process 0 reports every file's problems). The exit status of
 * every process is process 0's, so mpirun and srun return it. */
#define _POSIX_C_SOURCE 200809L
#include "cli/commands.h"
#include "cli/diag.h"
#include "cli/exitcodes.h"
#include "cli/output.h"
#include "mpi_job.h"
#include "base/version.h"
#include "parsers/source.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
        "tracecost-mpi %s: `tracecost analyze` over MPI processes (each parses a share of the files).\n"
        "\n"
        "Usage: mpirun -np P tracecost-mpi analyze [options] TRACE|FOLDER ...\n"
        "       srun -n P tracecost-mpi analyze [options] TRACE|FOLDER ...\n"
        "\n"
        "The options and output are those of `tracecost analyze` (tracecost-mpi analyze --help);\n"
        "-j N is the parse threads of each process.\n", TC_VERSION);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    tc_mpi_ctx ctx;
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ctx.size);
    /* mpirun forwards output through a pseudo-terminal even into a file: no colour (and no
     * progress line) rather than guessing wrong */
    setenv("NO_COLOR", "1", 1);
    if (ctx.rank != 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) { /* keep going */ }
    }
    int rc;
    const char *cmd = argc >= 2 ? argv[1] : "";
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) { usage(stdout); rc = TC_EXIT_OK; }
    else if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("tracecost-mpi %s\nfeatures: gzip=%s json=yajl cupti=no mpi=yes (%d processes)\n", TC_VERSION,
               tc_source_gzip_engine(), ctx.size);
        rc = TC_EXIT_OK;
    } else if (!strcmp(cmd, "analyze")) {
        tc_analyze_hooks h = {tc_mpi_load_analyze, NULL, &ctx, false}; /* one window at a time under MPI */
        rc = tc_cmd_analyze_hooked(argc - 1, argv + 1, &h);
    } else {
        if (*cmd) tc_diag(stderr, "tracecost-mpi: unknown command '%s' (only analyze runs under MPI)\n", cmd);
        usage(stderr);
        rc = TC_EXIT_USAGE;
    }
    if (ctx.rank == 0 && (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED)) { /* as the single-process tool */
        int out = tc_output_finish_stdout();
        if (out != TC_EXIT_OK) rc = out;
    }
    fflush(stdout);
    fflush(stderr);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD); /* every process exits with process 0's status */
    MPI_Finalize();
    return rc;
}
