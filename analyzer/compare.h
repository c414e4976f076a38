/* compare.h: the comparison of `tracecost compare` (issue 12). Owns two steps: the cost of a run
 * (tc_run_cost: job_cost.h tc_run_price, the one pricing analyze uses too; a run's summary from an
 * analyzed job is job_run.h), and tc_comparison: differences, ratios, matched collectives, cost per unit of
 * work, the workload check and the conclusion, as numbers and codes. The sentences are written by
 * reports/compare_report.c; nothing here reads files, prints or exits. Formulas: docs/compare.md. */
#ifndef TC_COMPARE_H
#define TC_COMPARE_H
#include <stdbool.h>
#include <stddef.h>
#include "cost.h"
#include "base/status.h"
#include "model/run_summary.h"

#define TC_CMP_FLOPS_TOLERANCE 0.02   /* FLOPs per step further apart than 2%: not the same workload */
#define TC_CMP_COLL_TOLERANCE 0.02    /* transfer medians within 2%: "same" speed */
#define TC_CMP_SAME_COST_PCT 0.05     /* cheaper by less than 0.05%: the same cost */
#define TC_CMP_WORK_APART 10.0       /* work per step further apart than 10x (not per step): the runs are
                                        different jobs, and the conclusion says so with the ratio */
#define TC_CMP_RATIO_FROM 10.0       /* cheaper by 10x or more (or work apart): said as a ratio ("27,000x
                                        cheaper"), never as a percentage that rounds to 100 */
#define TC_CMP_MAX_DIFFS 16           /* workload differences kept */
#define TC_CMP_COST_WHY 400           /* bytes of the cost model's message, NUL included */

/* The cost model's result for one run. */
typedef struct tc_cmp_cost {
    bool has_cost;
    tc_cost_result *cost;       /* owned (large); NULL when !has_cost */
    char why_not[TC_CMP_COST_WHY]; /* the cost model's reason when !has_cost ("" otherwise) */
    bool too_small;             /* not priced: the run's verdict is too-small (why_not says so) */
} tc_cmp_cost;

/* Runs the cost model for run s (job_cost.h tc_run_price: inputs from `in`, the side's flags, already
 * set; the values a saved result carried; the catalog entry of s->device; facts from s). Fills out
 * (zeroed first); a run whose verdict is too-small is not priced (out->too_small, whatever the
 * flags). Returns TC_OK
 * (out->has_cost false with out->why_not when the inputs are not a valid model and no flag was
 * given), TC_ERR_USAGE when a carried value is refused ("LABEL: saved cost input: why" in e) or
 * flags_given and the inputs are not a valid model ("LABEL: why"), or TC_ERR_NOMEM. */
tc_status tc_run_cost(tc_cmp_cost *out, const tc_run_summary *s, tc_cost_inputs *in, bool flags_given,
                      tc_error *e);
void tc_cmp_cost_free(tc_cmp_cost *c);

/* A value on both sides with its difference (b - a) and ratio (b / a). */
typedef struct tc_cmp_pair {
    bool has_a, has_b;
    double a, b;
    bool has_diff;              /* both known */
    double diff;                /* b - a */
    bool has_ratio;             /* both known and a != 0 */
    double ratio;               /* b / a */
} tc_cmp_pair;

/* How a collective or a rank changed from A to B (NO_STEP_TIME: a rank of both runs, without a step
 * time on a side). */
typedef enum { TC_CMP_SAME, TC_CMP_SLOWER, TC_CMP_FASTER, TC_CMP_ONLY_IN_A, TC_CMP_ONLY_IN_B, TC_CMP_NO_STEP_TIME } tc_cmp_change;

/* A matched collective (same name and bytes; the same process group preferred). */
typedef struct tc_cmp_coll_row {
    const tc_cmp_coll *a, *b;   /* NULL: only on the other side */
    tc_cmp_pair transfer_us;    /* transfer medians, µs */
    tc_cmp_pair busbw_GBps;
    tc_cmp_change change;       /* B against A (transfer ratio beyond TC_CMP_COLL_TOLERANCE) */
} tc_cmp_coll_row;

/* A rank of either run, matched by rank number. */
typedef struct tc_cmp_rank_row {
    long long rank;
    const tc_cmp_rank *a, *b;   /* NULL: not on that side */
    tc_cmp_pair share_compute, share_exposed_comm, share_idle; /* of the rank's window, 0..1 */
    tc_cmp_pair step_time_us;   /* mean step time, µs */
    tc_cmp_change change;       /* B against A: step time beyond TC_CMP_COLL_TOLERANCE (SLOWER, FASTER) */
} tc_cmp_rank_row;

/* A top compute kernel of either run, matched by exact name. */
typedef struct tc_cmp_kernel_row {
    const tc_cmp_kernel *a, *b; /* NULL: not among that side's top kernels */
    tc_cmp_pair share_of_compute;       /* 0..1 */
    tc_cmp_pair time_us_per_gpu_step;   /* its summed time / (steps x ranks) of each run, µs */
    tc_cmp_change change;       /* B against A: time per GPU per step beyond TC_CMP_COLL_TOLERANCE
                                   (SAME when a side has no steps) */
} tc_cmp_kernel_row;

/* Why the runs are not the same workload. */
typedef enum {
    TC_CMP_DIFF_GPUS,           /* different world sizes (a->world_size, b->world_size) */
    TC_CMP_DIFF_FLOPS,          /* FLOPs per step per GPU apart by more than TC_CMP_FLOPS_TOLERANCE */
    TC_CMP_DIFF_COLL_ONLY_IN_A, /* a collective (coll) no row of B matches */
    TC_CMP_DIFF_COLL_ONLY_IN_B
} tc_cmp_diff_kind;

typedef struct tc_cmp_diff {
    tc_cmp_diff_kind kind;
    const tc_cmp_coll *coll;    /* the collective of a COLL_ONLY_IN_* difference, else NULL */
} tc_cmp_diff;

/* The unit of work the sides are compared per (docs/compare.md): tokens or samples when given for
 * both, else a step when the runs are the same workload, else a PFLOP of model FLOPs when both
 * know their FLOPs; NONE: no common unit, so no cheaper side. */
typedef enum {
    TC_CMP_UNIT_NONE,
    TC_CMP_UNIT_STEP,
    TC_CMP_UNIT_PFLOP,          /* 10^15 model FLOPs: FLOPs per GPU per step x GPUs */
    TC_CMP_UNIT_MTOKENS,        /* 10^6 tokens (--tokens-per-step) */
    TC_CMP_UNIT_KSAMPLES        /* 10^3 samples (--samples-per-step) */
} tc_cmp_unit;

/* What makes the cheaper side (X) cheaper; figures in tc_comparison.reason_x/_y. */
typedef enum {
    TC_CMP_REASON_NONE,             /* no cheaper side */
    TC_CMP_REASON_GPU_PRICE,        /* price per GPU-hour, $ */
    TC_CMP_REASON_GPU_COUNT,        /* GPUs the step runs on */
    TC_CMP_REASON_COMPUTE_TIME,     /* compute time per step, ms (unit STEP) */
    TC_CMP_REASON_TFLOPS,           /* TFLOP/s per GPU (unit PFLOP: compute saves the most) */
    TC_CMP_REASON_COMPUTE_PER_UNIT, /* compute GPU-seconds per unit (tokens, samples) */
    TC_CMP_REASON_EXPOSED_TRANSFER, /* shares 0..1 of GPU time (both sides split transfer/wait) */
    TC_CMP_REASON_EXPOSED_COMM,     /* shares 0..1 (exposed communication, not split) */
    TC_CMP_REASON_EXPOSED_WAIT,     /* shares 0..1 */
    TC_CMP_REASON_MEMORY,           /* shares 0..1 (exposed memory copies) */
    TC_CMP_REASON_IDLE,             /* shares 0..1 */
    TC_CMP_REASON_STEP_TIME         /* step time, ms */
} tc_cmp_reason;

typedef struct tc_comparison {
    const tc_run_summary *a, *b;
    const tc_cmp_cost *cost_a, *cost_b;
    tc_cmp_pair gpus;           /* world sizes */
    tc_cmp_pair step_time_us;
    tc_cmp_pair steps_per_s;    /* 1e6 / step_time_us: job steps per second */
    tc_cmp_pair gpu_s_per_step; /* GPUs x step seconds: GPU-seconds one step takes */
    tc_cmp_pair tflops_per_gpu; /* flops_per_step / step seconds / 1e12 */
    tc_cmp_pair mfu;
    tc_cmp_pair share_compute, share_exposed_transfer, share_exposed_wait, share_exposed_comm,
        share_memory, share_idle;
    tc_cmp_pair busbw_GBps;
    tc_cmp_pair price_per_gpu_hour;   /* P used on each side, $ */
    tc_cmp_pair cost_per_step;        /* $: P x N x step_s / 3600 */
    tc_cmp_pair cost_per_effective_gpu_hour; /* $: P / e, from the cost model */
    tc_cmp_pair model_pflop_per_step; /* model FLOPs of a step of the job / 1e15: FLOPs per GPU x GPUs */
    tc_cmp_pair tokens_per_step, samples_per_step; /* as given */
    tc_cmp_pair cost_per_pflop;       /* $: cost per step / model PFLOP per step */
    tc_cmp_pair cost_per_mtokens;     /* $: cost per step / (tokens per step / 1e6) */
    tc_cmp_pair cost_per_ksamples;    /* $: cost per step / (samples per step / 1e3) */
    tc_cmp_unit unit;                 /* what the cheaper side is decided per */
    tc_cmp_pair work_per_step;        /* units of work in a step on each side (1 for STEP) */
    tc_cmp_pair gpu_s_per_unit;       /* GPU-seconds per unit of work */
    tc_cmp_pair cost_per_unit;        /* $ per unit of work */
    double work_steps_per_month;      /* W: steps per month (given, or A's month at its utilization) */
    bool work_from_flag;              /* W was given with --work-steps-per-month */
    bool has_monthly_diff;
    double monthly_diff;              /* $ per month: W x work_per_step_A x (cost_per_unit_B -
                                         cost_per_unit_A): B doing A's month of work */
    tc_cmp_coll_row *colls; size_t n_colls;
    tc_cmp_rank_row *ranks; size_t n_ranks;       /* A's ranks in order, then B's others */
    tc_cmp_kernel_row *kernels; size_t n_kernels; /* A's top kernels in order, then B's others */
    bool same_workload;
    tc_cmp_diff differences[TC_CMP_MAX_DIFFS]; size_t n_differences; /* why not the same workload */
    char cheaper;                     /* 'A', 'B', '=' (within TC_CMP_SAME_COST_PCT) or '?' (unknown) */
    bool too_small_a, too_small_b;    /* '?' because that side's verdict is too-small (too little GPU
                                         work to judge or price: docs/definitions.md) */
    bool missing_step_time;           /* '?' because a step time is missing (else no common unit of
                                         work, or a cost or GPU time per unit is zero on one side) */
    bool by_cost;                     /* cheaper decided by cost per unit (prices known), else by
                                         GPU-seconds per unit */
    double cheaper_pct;               /* how much cheaper per unit, % of the dearer side */
    double cheaper_ratio;             /* the dearer side's cost (or GPU time) per unit / the cheaper
                                         side's: 'A'/'B' and '=' only, else 0 */
    bool has_work_ratio;              /* work_ratio is set (the unit is not a step) */
    double work_ratio;                /* the larger work per step / the smaller (model FLOPs, tokens or
                                         samples per step, whichever the unit is) */
    bool work_apart;                  /* work_ratio > TC_CMP_WORK_APART */
    tc_cmp_reason reason;             /* why X (the cheaper side) is cheaper; NONE unless 'A'/'B' */
    double reason_x, reason_y;        /* the reason's figure on X and on the other side, in the
                                         unit tc_cmp_reason gives */
} tc_comparison;

/* Computes the comparison of a against b, with each side's cost. work_steps_per_month <= 0: the
 * default. The work units per step (tokens, samples) are read from a and b. Returns TC_OK, or TC_ERR_NOMEM. The result points into its arguments, which must
 * outlive it. */
tc_status tc_compare(tc_comparison *c, const tc_run_summary *a, const tc_cmp_cost *cost_a,
                     const tc_run_summary *b, const tc_cmp_cost *cost_b, double work_steps_per_month);
void tc_comparison_free(tc_comparison *c);
#endif
