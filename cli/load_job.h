/* load_job.h: loads the inputs of one job into a tc_job, in parallel (one thread per file at a
 * time, -j of them), and decides what each input's state means for the exit code. Results do not
 * depend on the thread count: each file is parsed independently and kept in input order. */
#ifndef TC_LOAD_JOB_H
#define TC_LOAD_JOB_H
#include <stdbool.h>
#include <stdio.h>
#include "model/comm_kernels.h"
#include "model/job.h"
#include "parsers/load.h"

#define TC_WINDOW_ALL (-1L) /* --window all */

typedef struct {
    int jobs;         /* threads; <= 0 means the number of cores */
    bool progress;    /* a progress line on `err` (the caller checks it is a terminal) */
    FILE *err;        /* where messages go */
    const bool *from_folder; /* per path (may be NULL): found by scanning a folder, so a JSON file
                                that is not a trace (no events at all) is skipped with a note */
    const tc_comm_patterns *comm; /* --comm-kernel patterns marking more kernels as communication
                                     (model/comm_kernels.h); NULL: the built-in catalog only */
    long window;      /* the profiler window to analyze (inputs.h): 0 the most recent, K >= 1 the K-th
                         oldest, TC_WINDOW_ALL (only for the _all functions) every one */
    bool recursive;   /* --recursive: the operands' folders are read with their subfolders
                         (tc_inputs_expand; for the callers that expand the operands) */
} tc_load_options;

/* Loads paths into j->traces: the usable inputs, checked to be one job (world size, process-group
 * members), ranked, and of them the profiler window opt->window (inputs.h; j->windows describes
 * every window when there are several); a warning in j when its inputs start an hour or more apart.
 * Returns TC_EXIT_OK, TC_EXIT_DAMAGED (some input was damaged or dropped; the rest are loaded),
 * TC_EXIT_NOTHING, or TC_EXIT_USAGE (inputs of different jobs, one rank twice at once, no such
 * window). Every problem is printed to opt->err naming the file. */
int tc_job_load(tc_job *j, char *const *paths, size_t n, const tc_load_options *opt);
/* The same for every profiler window: *jobs (malloc'd, *n_jobs of them, each to tc_job_free) are the
 * windows oldest first; none on an error exit. */
int tc_job_load_all(tc_job **jobs, size_t *n_jobs, char *const *paths, size_t n, const tc_load_options *opt);

/* The two halves of tc_job_load, for callers that parse files elsewhere (the MPI build parses
 * each process's share and gathers them): tc_job_parse_files parses paths in parallel into
 * per-input traces, statuses and messages (0, or -1 out of memory, printed); tc_job_load_collect
 * reports every input's problems in input order, keeps the usable traces of the window in j and
 * returns the exit code as tc_job_load does. It takes over lf's arrays (traces it does not keep
 * are freed). */
typedef struct {
    tc_trace *traces;       /* per input, in input order */
    tc_load_status *status; /* per input */
    char (*msg)[600];       /* per input: the loader's message */
    size_t n;
} tc_loaded_files;
int tc_job_parse_files(char *const *paths, size_t n, const tc_load_options *opt, tc_loaded_files *out);
int tc_job_load_collect(tc_job *j, char *const *paths, tc_loaded_files *lf, const tc_load_options *opt);
int tc_job_load_collect_all(tc_job **jobs, size_t *n_jobs, char *const *paths, tc_loaded_files *lf,
                            const tc_load_options *opt);
#endif
