/* job.h: one analyzed job (tc_job): its inputs (one tc_trace per rank), its profiler windows and
 * every result computed from them; its life is model/job.c. Owns the traces and all result arrays;
 * tc_job_free releases everything. The result types are declared by family in the headers it
 * includes: rank results (rank_result.h, from rank_result.def), steps (step_results.h), idle causes
 * (idle_causes.h), process groups (process_groups.h), kernel and collective tables
 * (kernel_tables.h), the summary and basis (summary.h), the findings and verdict (verdict.h). The
 * analyses fill them (analyzer/analyze.h); reports only read them. Times are ns; "unknown" is a
 * has_* flag, never NaN. */
#ifndef TC_JOB_H
#define TC_JOB_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "base/status.h"
#include "all_to_all.h"
#include "breakdown.h"
#include "comm_kernels.h"
#include "cost_result.h"
#include "gpu_catalog.h"
#include "idle_causes.h"
#include "coll_instances.h"
#include "nccl.h"
#include "op_groups.h"
#include "pipeline.h"
#include "kernel_tables.h"
#include "process_groups.h"
#include "rank_result.h"
#include "step_results.h"
#include "summary.h"
#include "trace.h"
#include "verdict.h"

/* One profiler window of the inputs (tensorboard_trace_handler writes a file per rank per window:
 * parsers/job_rules.h groups them). */
typedef struct {
    size_t files;             /* inputs in the window */
    size_t ranks;             /* distinct ranks among them */
    bool has_steps;
    int64_t first_step, last_step; /* lowest and highest ProfilerStep#N of its inputs */
    bool has_start;
    int64_t start_ns;         /* its earliest GPU start, ns on the epoch clock (tc_trace_epoch_span) */
} tc_window_info;

typedef struct {
    tc_trace *traces; size_t n_traces;      /* by input order */
    tc_rank_result *ranks; size_t n_ranks;  /* sorted by rank */
    tc_collective_result *colls; size_t n_colls, cap_colls;
    tc_process_group *groups; size_t n_groups;        /* every process group seen, by name (groups.h) */
    tc_group_row *group_rows; size_t n_group_rows;    /* the groups folded for the tables (groups.h) */
    /* matched collective instances (coll_instances.h, collectives.h), in matching order */
    tc_inst_group *inst_groups; size_t n_inst_groups, cap_inst_groups;
    tc_coll_instance *instances; size_t n_instances, cap_instances;
    tc_inst_member *inst_members; size_t n_inst_members, cap_inst_members;
    tc_summary summary;
    tc_findings findings;
    tc_kernel_row *top_kernels; size_t n_top_kernels; /* at most 20, by time (mfu.c) */
    tc_kernel_agg *kernel_aggs; size_t n_kernel_aggs; /* every GPU event name and kind, by summed time
                                                       * (kernel_aggs.h), for the HTML report */
    bool kernel_agg_names_borrowed; /* kernel_aggs' names point into the traces' string tables */
    /* string tables of traces replaced after the analysis (the MPI build swaps a rank's skeleton
     * for its whole trace, cli/mpi/mpi_job.c): job-level results (the summary's evidence, the
     * findings' names, the critical paths) still point into them; freed by tc_job_free */
    tc_strtab **kept_strings; size_t n_kept_strings, cap_kept_strings;
    char **warnings; size_t n_warnings, cap_warnings; /* job-level (matching, ...) */
    tc_window_info *windows; size_t n_windows; /* the inputs' profiler windows, oldest first; 0 when
                                                * they hold one (set by whoever loads the job) */
    size_t window;            /* the window this job is, 1-based; 0 when the inputs hold one */
    /* cost (issue 27): the cost model's result for this job, or why there is none; set by
     * analyzer/job_cost.h tc_job_price after the analysis, read by every report */
    tc_job_cost cost;
    /* the step graph the analysis built (analyzer/replay.h), kept for the what-if's replays at
     * pricing; freed through graph_free by tc_job_free. NULL when none. */
    struct tc_step_graph *graph;
    void (*graph_free)(struct tc_step_graph *);
    /* NCCL's own account (issue 32, docs/nccl.md): the Inspector logs read and their join
     * (analyzer/nccl_join.h); present false when none were given or found */
    tc_nccl_result nccl;
    /* the all-to-all(v) imbalance (issue 33, analyzer/all_to_all.h); no groups when the job has none */
    tc_a2a_result a2a;
    /* the pipeline stages and bubbles (issue 33, analyzer/pipeline.h); present false without P2P stages */
    tc_pipeline_result pipeline;
    /* where the compute time goes (issue 34, analyzer/op_groups.h): kernels to ops to modules
     * against the roofline; has false when the trace has no CPU ops */
    tc_op_result ops;
} tc_job;

void tc_job_init(tc_job *j);
void tc_job_free(tc_job *j);
/* Adds a job-level warning, printf-style (tc_vformat, cut at 1023 bytes); dropped out of memory. */
void tc_job_warn(tc_job *j, const char *fmt, ...) TC_FORMAT_LIKE(2, 3);

/* Frees j->groups and j->group_rows (tc_job_free frees each rank's rr->groups). */
void tc_job_groups_free(tc_job *j);
#endif
