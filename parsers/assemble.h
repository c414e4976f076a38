/* assemble.h: job assembly, the library step from files to a job: the paths of one job
 * (inputs.h) are parsed in parallel on the worker pool (base/pool.h), the usable traces kept, checked
 * to be one job, ranked and grouped into profiler windows (job_rules.h), and moved into one tc_job
 * (one window) or one per window. It prints nothing: every problem and note comes back in order as
 * data (notes.h), the outcome as a tc_assembly_status, the progress of the parse through a callback.
 * Results do not depend on the thread count: each file is parsed on its own and kept in input order.
 * cli/ (analyze, compare, timeline), the MPI build and the fuzz harness call it. */
#ifndef TC_ASSEMBLE_H
#define TC_ASSEMBLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "load.h"
#include "model/comm_kernels.h"
#include "model/job.h"
#include "notes.h"

#define TC_WINDOW_ALL (-1L) /* every profiler window (only for the _all functions) */

typedef enum {
    TC_ASSEMBLY_OK = 0,    /* every input used */
    TC_ASSEMBLY_DAMAGED,   /* some input was damaged or left out (notes); the job holds the rest */
    TC_ASSEMBLY_NOTHING,   /* no job: no input holds usable GPU activity, or out of memory */
    TC_ASSEMBLY_REFUSED    /* no job: inputs of different jobs, one rank twice at once, no such window */
} tc_assembly_status;

/* How far the parse is: all files together. */
typedef struct {
    uint64_t read_bytes;   /* raw bytes read so far */
    uint64_t total_bytes;  /* the regular files' sizes; 0 unknown */
    size_t files_done, files;
    double elapsed_s;      /* since the parse began */
    bool finished;         /* the last call: every file is parsed */
} tc_parse_progress;

/* Called after each chunk read, from the parse threads but one call at a time, and once more with
 * `finished` when the parse is over. */
typedef void (*tc_parse_progress_fn)(void *ctx, const tc_parse_progress *p);

typedef struct {
    int jobs;                      /* thread budget; <= 0: the number of cores */
    const tc_comm_patterns *comm;  /* user patterns marking more kernels as communication
                                      (model/comm_kernels.h); NULL: the built-in catalog only */
    long window;                   /* the profiler window: 0 the most recent, K >= 1 the K-th oldest */
    tc_parse_progress_fn progress; /* NULL: none */
    void *progress_ctx;
} tc_assemble_options;

/* The files of a job parsed, each on its own: per input its trace, status and the loader's message. */
typedef struct {
    tc_trace *traces;       /* per input, in input order */
    tc_load_status *status; /* per input */
    char (*msg)[600];       /* per input: the loader's message */
    size_t n;
} tc_loaded_files;

/* Files to the job: parses paths (from_folder[i], may be NULL: path i was found by scanning a
 * folder, so a JSON file holding no events at all is skipped with a note rather than a problem)
 * and keeps in j the usable inputs of the profiler window opt->window, checked to be one job and
 * ranked (j->windows describes every window when there are several; a warning in j when its inputs
 * start an hour or more apart). Notes are appended to notes, in order. */
tc_assembly_status tc_job_assemble(tc_job *j, char *const *paths, const bool *from_folder, size_t n,
                                   const tc_assemble_options *opt, tc_notes *notes);
/* The same for every profiler window: *jobs (malloc'd, *n_jobs, each to tc_job_free) oldest first;
 * none unless OK or DAMAGED. */
tc_assembly_status tc_job_assemble_all(tc_job **jobs, size_t *n_jobs, char *const *paths, const bool *from_folder,
                                       size_t n, const tc_assemble_options *opt, tc_notes *notes);

/* The two halves, for callers that parse elsewhere (the MPI build parses each process's share and
 * gathers them). tc_job_parse_files parses paths in parallel into out: TC_ASSEMBLY_OK, or
 * TC_ASSEMBLY_NOTHING out of memory (a note; out is then empty). The few files up to two per
 * thread are parsed one at a time, each on every thread; more get one thread each. */
tc_assembly_status tc_job_parse_files(char *const *paths, size_t n, const tc_assemble_options *opt,
                                      tc_loaded_files *out, tc_notes *notes);
/* Every input's problem as a note in input order, then the job as tc_job_assemble; it takes over
 * lf's arrays (traces it does not keep are freed). */
tc_assembly_status tc_job_assemble_parsed(tc_job *j, char *const *paths, const bool *from_folder, tc_loaded_files *lf,
                                          const tc_assemble_options *opt, tc_notes *notes);
tc_assembly_status tc_job_assemble_parsed_all(tc_job **jobs, size_t *n_jobs, char *const *paths,
                                              const bool *from_folder, tc_loaded_files *lf,
                                              const tc_assemble_options *opt, tc_notes *notes);
#endif
