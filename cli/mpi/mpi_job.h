/* mpi_job.h: `analyze` as an MPI program (built only by `make mpi`, with mpicc): the load-and-
 * analyze step of cmd_analyze.c run over P processes. Process 0 splits the files of its expansion
 * of the operands among the processes balanced by size; each process parses its share
 * (parsers/assemble.h: tc_job_parse_files); process 0 assembles the job of them (tc_job_assemble_parsed),
 * gathers what the analyses need and runs the same analysis code as the single-process tool, so
 * its reports are identical. See docs/mpi.md. */
#ifndef TC_MPI_JOB_H
#define TC_MPI_JOB_H
#include "analyzer/analyze.h"
#include "cli/commands.h"

typedef struct {
    int rank, size;  /* this process, number of processes (MPI_COMM_WORLD) */
} tc_mpi_ctx;

/* tc_analyze_hooks.load_analyze for ctx = tc_mpi_ctx*: every process must call it (collective).
 * Only process 0 gets *report = true. */
int tc_mpi_load_analyze(void *ctx, const tc_cli_inputs *in, const tc_load_options *lopt,
                        const tc_analyze_options *aopt, bool need_events, tc_job *j, bool *report);
#endif
