/* analyze_phases.h: tc_job_analyze split into the phases it runs in order, so that an MPI run can
 * do each where its data lives (docs/mpi.md): prepare (sort events, rank results, sort ranks),
 * tc_job_groups (the nodes of the ranks and the process-group table: groups.h; metadata and
 * collective arguments only), tc_collectives_match (comm kernels only), the per-rank phase
 * (breakdowns, steps, per-group figures, MFU parts, top-kernel partial rows and GPU kernel
 * aggregates of its trace; runs where the trace was parsed) and finish (job sums, shares, job MFU,
 * process-group sums and rows, top kernels and kernel aggregates merged in input order, then the
 * findings: straggler, verdict, actions, the timeline's ranks and step; findings.h). */
#ifndef TC_ANALYZE_PHASES_H
#define TC_ANALYZE_PHASES_H
#include "analyze_options.h"
#include "model/job.h"
#include "kernel_aggs.h"
#include "op_groups.h"

/* Per-rank MFU facts that the job-level note is made of (mfu.c). */
typedef struct {
    uint64_t shaped_ops, unshaped_ops, counted_ops, unknown_flops_ops, unknown_dtype_ops;
    bool record_shapes;
    bool unknown_device;      /* rr->device is named but not in the catalog */
    bool no_device_name;
    bool bad_gpu_option;
    bool no_steps;
    double over_peak;         /* largest step MFU above 1 (FLOPs past the GPU's peak), left out; 0 none */
    char fallback[128];       /* first catalog fallback note of this rank, "" none */
    char fallback_dtype[16];
} tc_mfu_rank_facts;

/* One compute kernel name's sums over one trace (top-kernels table, mfu.c). */
typedef struct {
    char *name;
    int64_t time_ns, flops_time_ns; /* summed duration; of it, with known FLOPs */
    uint64_t count;                 /* launches */
    double flops;                   /* FLOPs summed in event order within the trace */
} tc_kernel_part;

/* A trace's partial rows, in order of the names' first appearance in its sorted events. */
typedef struct {
    tc_kernel_part *rows; size_t n, cap;
    int64_t total_ns;               /* all compute kernels' summed duration */
    bool borrowed;                  /* the names point into the trace's string table (not freed);
                                     * rows unpacked from an MPI message own theirs */
} tc_kernel_parts;

/* What the per-rank phase leaves for finish besides tc_rank_result. */
typedef struct {
    size_t kernel_rows_keep;    /* in (0: all): the top-kernel rows to keep, TC_TOP_KERNELS when the
                                 * trace is the job's only one (its sums are the job's then) */
    tc_mfu_rank_facts mfu;
    tc_kernel_parts kernels;
    tc_kernel_aggs gpu_kernels; /* every GPU event name and kind of the trace (HTML kernels table) */
    tc_op_parts ops;            /* its kernels to ops, modules and fusion candidates (op_groups.h) */
} tc_rank_extra;

void tc_rank_extra_free(tc_rank_extra *x);

/* Sorts each trace's events (when sort_events) and builds j->ranks sorted by rank; rr->device from
 * the events (when sort_events; else left NULL for the caller). 0, or -1 out of memory. */
int tc_job_prepare(tc_job *j, bool sort_events);
/* FLOPs per GPU per step from the user's options for this job (world = max(ranks, world_size)). */
double tc_job_user_flops(const tc_job *j, const tc_analyze_options *opt);
/* The per-rank phase of ranks[r] (after matching: rr->wait_ns and the matching stats are set; the
 * names and scopes of j->groups known): breakdowns, steps, unmatched-exposed time, per-group
 * figures, MFU parts, x (zeroed by the caller). 0, or -1. */
int tc_job_rank_phase(tc_job *j, size_t r, const tc_analyze_options *opt, double user_flops, tc_rank_extra *x);
/* Job-level: unmatched warnings, sums and shares, job MFU and note, process-group sums, links and
 * rows (tc_groups_finish), top kernels (x indexed by rank index r, merged in input order), then
 * tc_job_findings. Reads results only (no GPU event).
 * 0, or -1 out of memory. */
int tc_job_finish(tc_job *j, const tc_analyze_options *opt, const tc_rank_extra *x);
#endif
