/* job.h: one analyzed job: its inputs (one tc_trace per rank) and every result computed from them.
 * Owns the traces and all result arrays; tc_job_free releases everything. The analyses fill the
 * result structs; reports only read them. Times are ns; "unknown" is a has_* flag, never NaN. */
#ifndef TC_JOB_H
#define TC_JOB_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "breakdown.h"
#include "gpu_catalog.h"
#include "trace.h"

typedef enum { TC_VERDICT_NONE, TC_VERDICT_COMPUTE, TC_VERDICT_NETWORK, TC_VERDICT_STRAGGLER, TC_VERDICT_HOST } tc_verdict;

typedef struct {
    int64_t number;         /* N of ProfilerStep#N */
    tc_breakdown b;         /* over the GPU events assigned to the step */
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
    int64_t caused_wait_ns;       /* others' waits in instances it alone arrived last */
    uint64_t unmatched_comm;      /* comm kernels that could not be matched */
    int64_t unmatched_exposed_ns; /* their exposed time, counted as transfer */
    uint64_t steps_total;         /* steps seen (for per-step figures) */
    /* MFU (mfu.c; see README.md) */
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
    tc_verdict verdict;
    char **reasons; size_t n_reasons, cap_reasons;
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

typedef struct {
    double bound_threshold;   /* verdict threshold share, default 0.15 */
    int jobs;                 /* parse threads */
    const char *gpu;          /* --gpu: catalog id/name overriding detection, NULL = detect */
    double model_flops_per_step; /* --model-flops-per-step: FLOPs per GPU per step, 0 = from shapes */
    double params;            /* --params N (with tokens_per_step: 6·N·T / world size), 0 = unset */
    double tokens_per_step;   /* --tokens-per-step T, tokens per step over the whole job, 0 = unset */
} tc_analyze_options;

typedef struct {
    tc_trace *traces; size_t n_traces;      /* by input order */
    tc_rank_result *ranks; size_t n_ranks;  /* sorted by rank */
    tc_collective_result *colls; size_t n_colls, cap_colls;
    tc_summary summary;
    tc_kernel_row *top_kernels; size_t n_top_kernels; /* at most 20, by time (mfu.c) */
    tc_kernel_agg *kernel_aggs; size_t n_kernel_aggs; /* every GPU event name and kind, by summed time
                                                       * (kernel_aggs.h), for the HTML report */
    char **warnings; size_t n_warnings, cap_warnings; /* job-level (matching, ...) */
} tc_job;

void tc_job_init(tc_job *j);
void tc_job_free(tc_job *j);
void tc_job_warn(tc_job *j, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tc_summary_reason(tc_summary *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Runs every analysis on the loaded traces (ranks must be assigned: traces[i].rank >= 0 and
 * unique). 0, or -1 out of memory. */
int tc_job_analyze(tc_job *j, const tc_analyze_options *opt);

const char *tc_verdict_name(tc_verdict v);
#endif
