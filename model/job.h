/* job.h: one analyzed job: its inputs (one tc_trace per rank) and every result computed from them.
 * Owns the traces and all result arrays; tc_job_free releases everything. The analyses fill the
 * result structs; reports only read them. Times are ns; "unknown" is a has_* flag, never NaN. */
#ifndef TC_JOB_H
#define TC_JOB_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "base/status.h"
#include "breakdown.h"
#include "gpu_catalog.h"
#include "trace.h"

typedef enum { TC_VERDICT_NONE, TC_VERDICT_COMPUTE, TC_VERDICT_NETWORK, TC_VERDICT_STRAGGLER, TC_VERDICT_HOST } tc_verdict;

typedef struct {
    int64_t number;         /* N of ProfilerStep#N */
    tc_breakdown b;         /* over the GPU events assigned to the step */
    bool has_ratio;         /* compute > 0 */
    double comm_compute_ratio; /* comm / compute (unions) of the step; valid if has_ratio */
    int64_t step_time_ns;   /* ProfilerStep span duration (CPU span, else GPU span) */
    double flops;           /* FLOPs of the step's ops (shapes or user); valid if has_mfu */
    double mfu;             /* valid if has_mfu */
    bool has_mfu;
} tc_step_result;

typedef struct {
    int64_t rank;
    size_t input;            /* index into tc_job.traces */
    const char *device;      /* name from deviceProperties of the most used device, or NULL */
    tc_breakdown b;
    bool has_ratio;          /* compute > 0 */
    double comm_compute_ratio;
    tc_step_result *steps; size_t n_steps;
    bool has_step_time;
    int64_t step_time_ns;    /* mean ProfilerStep duration */
    bool has_mfu;
    double mfu;              /* mean over steps */
    double flops_per_step;   /* mean over steps; valid if has_mfu */
    bool has_clock_offset;
    int64_t clock_offset_ns; /* estimated offset of this rank's clock against the reference rank */
    uint64_t unassigned_events; /* GPU events in no step (steps exist) */
    int64_t *wait_ns;        /* per GPU event: wait head of matched comm kernels; NULL = unsplit */
    uint64_t matched_instances;   /* collective instances of this rank matched across ranks */
    double last_arrival_credit;   /* instances it arrived last (ties share the credit) */
    double last_arrival_share;    /* last_arrival_credit / matched_instances, 0 when none matched */
    int64_t caused_wait_ns;       /* others' waits in instances it alone arrived last */
    int64_t caused_wait_ns_per_step; /* caused_wait_ns / steps_total (the whole when no steps) */
    uint64_t unmatched_comm;      /* comm kernels that could not be matched */
    int64_t unmatched_exposed_ns; /* their exposed time, counted as transfer */
    uint64_t steps_total;         /* steps seen (for per-step figures) */
    /* MFU (mfu.c; see docs/mfu.md) */
    const tc_gpu_spec *gpu;       /* catalog entry giving the peaks (--gpu or detected); NULL unknown */
    bool has_peak;
    double peak_flops;            /* effective peak, FLOP/s: Σ flops / Σ (flops / peak(dtype)) over the
                                   * counted ops, else the GPU's BF16 peak; valid if has_peak */
    const char *flops_source;     /* "shapes" or "user" (flags); NULL when no FLOPs */
    bool has_hfu;
    double hfu;                   /* hardware FLOPs utilization: Σ over all counted ops of
                                   * flops / peak(dtype), divided by the rank's GPU window */
    double shape_flops;           /* FLOPs of all counted shaped ops of the trace */
} tc_rank_result;

/* One row of the top-kernels table (mfu.c): compute kernels by summed time over all ranks. */
typedef struct {
    char *name;                   /* kernel name */
    int64_t time_ns;              /* summed duration over ranks, ns */
    uint64_t count;               /* launches over ranks */
    double share_of_compute;      /* time_ns / summed duration of all compute kernels */
    bool has_tflops;
    double achieved_tflops;       /* FLOPs of its ops (by External id) / its time with known FLOPs, TFLOP/s */
} tc_kernel_row;

/* GPU events of one (exact name, kind) over all ranks: the HTML kernels table (kernel_aggs.c). */
typedef struct {
    char *name; size_t len;       /* the name's bytes (NUL-terminated copy) */
    uint8_t kind;                 /* 0 compute, 1 collective, 2 memcpy, 3 memset */
    uint32_t ranks;               /* ranks it ran on */
    uint64_t count;               /* launches */
    int64_t total_ns;             /* summed duration, ns */
    int64_t max_ns;               /* longest launch, ns (0 when none is longer) */
} tc_kernel_agg;

/* One (process group, collective, message size) row. */
typedef struct {
    char *name;             /* collective name (allreduce, ...) or kernel name when no args */
    char *process_group;    /* group name, or a description of how it was grouped */
    char *dtype;            /* NULL unknown */
    int64_t group_size;     /* ranks; -1 unknown */
    uint64_t count;         /* matched instances */
    int64_t bytes;          /* S per nccl-tests; -1 unknown */
    int64_t transfer_ns_median;
    int64_t wait_ns_total;  /* summed over ranks and instances */
    double algbw_GBps, busbw_GBps; /* valid if has_bw */
    bool has_bw;
} tc_collective_result;

typedef struct {
    int64_t rank;             /* the straggler */
    double last_arrival_share;/* share of matched instances it arrived last */
    double caused_wait_share; /* its share of all the wait in matched instances */
    int64_t caused_wait_ns_per_step; /* others' wait in instances it arrived last, per step */
    int64_t compute_ns_per_step, median_compute_ns_per_step;
} tc_straggler;

typedef struct {
    size_t ranks;
    tc_breakdown b;           /* sums over ranks */
    bool split_known;
    double share_compute, share_exposed_comm, share_exposed_transfer, share_exposed_wait,
        share_memory_exposed, share_idle; /* of the summed windows; transfer/wait valid if split_known */
    bool has_ratio;
    double comm_compute_ratio;
    bool has_mfu;
    double mfu;
    bool has_step_time;
    int64_t step_time_ns;     /* mean over ranks */
    tc_verdict verdict;       /* why: tc_findings.reasons */
    bool has_straggler;
    tc_straggler straggler;
    bool has_fabric_busbw;
    double fabric_busbw_GBps;
    /* MFU (mfu.c): means over the ranks that have them */
    double flops_per_step;    /* FLOPs per GPU per step; valid if has_mfu */
    bool has_peak;
    double peak_flops;        /* FLOP/s */
    const char *flops_source; /* "shapes", "user" or NULL */
    bool has_hfu;
    double hfu;               /* Σ ranks' flops/peak over Σ ranks' windows */
    char *mfu_note;           /* why MFU is missing or approximate; NULL when fine */
} tc_summary;

/* ---- findings (analyzer/findings.c): what the analysis concludes, as codes and the numbers
 * behind them; reports/findings_text.c is the one place that words them. */

/* Why the verdict is what it is: the verdict's own reason first, then the speed-up and the other
 * losses (named verdicts only), then the straggler when there is one. */
typedef enum {
    TC_REASON_NETWORK,        /* exposed transfer (exposed comm when not split) reaches the threshold */
    TC_REASON_STRAGGLER,      /* exposed wait for slower ranks reaches the threshold */
    TC_REASON_HOST,           /* idle + exposed memory reaches the threshold */
    TC_REASON_COMPUTE,        /* no loss reaches the threshold */
    TC_REASON_SPEEDUP,        /* removing the verdict's loss would make the job `speedup` times faster */
    TC_REASON_OTHER_LOSSES,   /* every loss's share, after a named verdict */
    TC_REASON_STRAGGLER_RANK  /* the straggler: how much of the waiting it causes */
} tc_reason_code;

#define TC_MAX_REASONS 4

typedef struct {
    tc_reason_code code;
    double threshold;         /* the verdict threshold share */
    bool split_known;         /* wait and transfer are split (two or more ranks) */
    double network, straggler, host; /* loss shares of the summed windows (straggler 0 when not split) */
    double idle, memory;      /* host's two parts: idle and exposed memory shares */
    double speedup;           /* SPEEDUP: 1 / (1 - the verdict's loss share) */
    int64_t rank;             /* STRAGGLER_RANK: the straggler */
    double caused_wait_share, last_arrival_share; /* STRAGGLER_RANK (tc_straggler) */
    int64_t wait_ns_per_step; /* STRAGGLER_RANK: the others' wait for it per step */
} tc_reason;

/* What the verdict suggests doing, two or three for each named verdict. */
typedef enum {
    TC_ACTION_HIDE_COMM,           /* network: bigger buckets, accumulation, overlap */
    TC_ACTION_FABRIC_BUSBW,        /* network: compare the measured bus bandwidth (value, GB/s) with the links */
    TC_ACTION_MEASURE_FABRIC,      /* network, no bus bandwidth measured: nccl-tests */
    TC_ACTION_FEWER_BYTES,         /* network: bf16 gradients, compression, bigger batch */
    TC_ACTION_LOOK_AT_STRAGGLER,   /* straggler: the rank and its trace (input) */
    TC_ACTION_STRAGGLER_MORE_WORK, /* its compute per step is over 105% of the median: more GPU work */
    TC_ACTION_STRAGGLER_HOST_SIDE, /* its compute is within 5% of the median: the delay is host side */
    TC_ACTION_BALANCE_WORK,        /* straggler-bound without a single straggler */
    TC_ACTION_COMPARE_RANKS,       /* straggler-bound: compare per-rank compute */
    TC_ACTION_FEED_GPUS,           /* host: data loading */
    TC_ACTION_CUT_LAUNCHES,        /* host: launch overhead */
    TC_ACTION_AVOID_SYNCS,         /* host: host-device syncs */
    TC_ACTION_KERNEL_WORK,         /* compute: kernel-level work */
    TC_ACTION_MFU_GAP,             /* compute, MFU known (value, a share) */
    TC_ACTION_MEASURE_MFU          /* compute, MFU unknown */
} tc_action_code;

#define TC_MAX_ACTIONS 3

typedef struct {
    tc_action_code code;
    double value;             /* FABRIC_BUSBW: GB/s; MFU_GAP: the MFU share */
    int64_t rank;             /* straggler actions: the straggler */
    size_t input;             /* LOOK_AT_STRAGGLER: its trace, an index into tc_job.traces */
    int64_t compute_ns_per_step, median_compute_ns_per_step; /* STRAGGLER_MORE_WORK / _HOST_SIDE */
} tc_action;

typedef struct {
    tc_reason reasons[TC_MAX_REASONS]; size_t n_reasons;
    tc_action actions[TC_MAX_ACTIONS]; size_t n_actions;
    double network_efficiency; /* e = 1 - exposed transfer share (exposed comm share with one rank),
                                * as in analyzer/cost.h */
    double effective_gpus;    /* ranks x e: the GPUs' worth of work done */
    /* The HTML timeline: the ranks it draws (indices into tc_job.ranks, ascending): the first rank,
     * the straggler, the rank that waited most, the last, then others in order, up to
     * tc_analyze_options.timeline_ranks. Only these ranks' GPU events are read by the report. */
    size_t *timeline_ranks; size_t n_timeline_ranks;
    /* The representative step drawn: of the first timeline rank whose median-duration step has
     * GPU events, that step. has_step false: none (the whole window is drawn). */
    bool has_step;
    int64_t step_number;      /* N of ProfilerStep#N */
    int64_t step_time_ns;     /* its duration, the rank's median */
    size_t step_rank;         /* index into tc_job.ranks of the rank it was taken from */
} tc_findings;

#define TC_TIMELINE_RANKS 4   /* ranks the timeline draws by default */

typedef struct {
    double bound_threshold;   /* verdict threshold share, default 0.15 */
    int jobs;                 /* parse threads */
    const char *gpu;          /* --gpu: catalog id/name overriding detection, NULL = detect */
    double model_flops_per_step; /* --model-flops-per-step: FLOPs per GPU per step, 0 = from shapes */
    double params;            /* --params N (with tokens_per_step: 6·N·T / world size), 0 = unset */
    double tokens_per_step;   /* --tokens-per-step T, tokens per step over the whole job, 0 = unset */
    size_t timeline_ranks;    /* ranks the HTML timeline draws (tc_findings), 0 = TC_TIMELINE_RANKS */
} tc_analyze_options;

typedef struct {
    tc_trace *traces; size_t n_traces;      /* by input order */
    tc_rank_result *ranks; size_t n_ranks;  /* sorted by rank */
    tc_collective_result *colls; size_t n_colls, cap_colls;
    tc_summary summary;
    tc_findings findings;
    tc_kernel_row *top_kernels; size_t n_top_kernels; /* at most 20, by time (mfu.c) */
    tc_kernel_agg *kernel_aggs; size_t n_kernel_aggs; /* every GPU event name and kind, by summed time
                                                       * (kernel_aggs.h), for the HTML report */
    bool kernel_agg_names_borrowed; /* kernel_aggs' names point into the traces' string tables */
    char **warnings; size_t n_warnings, cap_warnings; /* job-level (matching, ...) */
} tc_job;

void tc_job_init(tc_job *j);
void tc_job_free(tc_job *j);
/* Adds a job-level warning, printf-style (tc_vformat, cut at 1023 bytes); dropped out of memory. */
void tc_job_warn(tc_job *j, const char *fmt, ...) TC_FORMAT_LIKE(2, 3);

/* Runs every analysis on the loaded traces (ranks must be assigned: traces[i].rank >= 0 and
 * unique). 0, or -1 out of memory. */
int tc_job_analyze(tc_job *j, const tc_analyze_options *opt);

const char *tc_verdict_name(tc_verdict v);
#endif
