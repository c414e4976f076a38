/* compare.h: the comparison model of `tracecost compare` (issue 12). Owns tc_run_summary (what a
 * comparison needs from one run, read from a tracecost/1 JSON document: a saved `analyze --json`
 * result, or the same JSON rendered in memory from a freshly analyzed job, so both give the same
 * figures by construction) and tc_comparison (differences, ratios, matched collectives, cost per
 * unit of work, the workload check and the conclusion). Nothing here prints or exits; formulas
 * are in README.md. */
#ifndef TC_COMPARE_H
#define TC_COMPARE_H
#include <stdbool.h>
#include <stddef.h>
#include "cost.h"
#include "model/job.h"

#define TC_CMP_FLOPS_TOLERANCE 0.02   /* FLOPs per step further apart than 2%: not the same workload */
#define TC_CMP_COLL_TOLERANCE 0.02    /* transfer medians within 2%: "same" speed */
#define TC_CMP_MAX_DIFFS 16           /* workload differences kept */

/* One collectives row of a run (a tracecost/1 "collectives[]" entry). */
typedef struct tc_cmp_coll {
    char *name;                 /* collective name, owned */
    char *process_group;        /* group name, owned; NULL unknown */
    long long bytes;            /* message size S, bytes; -1 unknown */
    unsigned long long count;   /* matched instances */
    double transfer_us_median;  /* µs */
    bool has_busbw;
    double busbw_GBps;          /* GB/s (1e9 B/s); valid if has_busbw */
} tc_cmp_coll;

/* What a comparison needs from one run. Unknown values have their has_* false. */
typedef struct tc_run_summary {
    char *label;                /* the operand as given (folder, file), owned */
    bool from_json;             /* read from a saved result (true) or analyzed from traces */
    char *tool_version;         /* tool_version of the JSON, owned; NULL unknown */
    char *device;               /* first rank's device name, owned; NULL unknown */
    int world_size;             /* GPUs: max(summary.ranks, trace world size); >= 1 */
    bool has_step_time;
    double step_time_us;        /* mean step time over ranks, µs */
    bool split_known;           /* transfer and wait are separated (more than one rank) */
    double share_compute, share_exposed_comm, share_exposed_transfer, share_exposed_wait,
        share_memory, share_idle; /* shares 0..1 of the summed GPU windows; transfer/wait valid
                                     if split_known */
    bool has_mfu;
    double mfu;                 /* model FLOPs utilization 0..1 */
    bool has_flops;
    double flops_per_step;      /* FLOPs per step per GPU, mean over ranks that report it */
    bool has_busbw;
    double fabric_busbw_GBps;   /* measured fabric bus bandwidth, GB/s */
    bool has_straggler;
    long long straggler_rank;
    char *verdict;              /* "network-bound", ...; owned */
    tc_cmp_coll *colls; size_t n_colls;
    /* cost inputs carried over from a saved result ("flag"/"config" values at analyze time):
       name=value pairs re-applied with rank "config" so compare's flags override them */
    char **saved_cost_kv; size_t n_saved_cost_kv;
    /* cost, computed by tc_run_cost from the facts above and the side's flags */
    bool has_cost;
    tc_cost_result *cost;       /* owned (large); NULL when !has_cost */
    char cost_note[600];        /* why there is no cost, when !has_cost */
} tc_run_summary;

void tc_run_summary_free(tc_run_summary *s);

/* True when the first bytes of path (not gzip) say it is a tracecost/1 result: a JSON object
 * whose leading "schema" key is "tracecost/1". */
bool tc_run_is_saved_result(const char *path);

/* Fills s from a tracecost/1 JSON document (text, NUL-terminated). label is copied. Returns 0, or
 * -1 with a message in err (not JSON, wrong schema, missing summary). */
int tc_run_summary_from_json_text(tc_run_summary *s, const char *text, const char *label,
                                  bool from_json, char *err, size_t errlen);

/* Reads and parses a saved result file. */
int tc_run_summary_from_json_file(tc_run_summary *s, const char *path, char *err, size_t errlen);

/* From an analyzed job: renders the job's tracecost/1 JSON in memory and reads it back with
 * tc_run_summary_from_json_text (the world size also takes the traces' distributedInfo). */
int tc_run_summary_from_job(tc_run_summary *s, const tc_job *j, const char *label, char *err,
                            size_t errlen);

/* Runs the cost model for the run: trace facts from s, inputs from `in` (the side's flags, already
 * set) plus values carried over from a saved result and the catalog entry of s->device. Fills
 * s->cost / s->has_cost, or s->cost_note. Returns 0, or -1 when flags_given and the inputs are
 * not a valid model (message in err). */
int tc_run_cost(tc_run_summary *s, tc_cost_inputs *in, bool flags_given, char *err, size_t errlen);

/* A value on both sides with its difference (b - a) and ratio (b / a). */
typedef struct tc_cmp_pair {
    bool has_a, has_b;
    double a, b;
    bool has_diff;              /* both known */
    double diff;                /* b - a */
    bool has_ratio;             /* both known and a != 0 */
    double ratio;               /* b / a */
} tc_cmp_pair;

/* A matched collective (same name and bytes; the same process group preferred). */
typedef struct tc_cmp_coll_row {
    const tc_cmp_coll *a, *b;   /* NULL: only on the other side */
    tc_cmp_pair transfer_us;    /* transfer medians, µs */
    tc_cmp_pair busbw_GBps;
    const char *change;         /* "slower", "faster", "same" (B against A), "only in A", "only in B" */
} tc_cmp_coll_row;

typedef struct tc_comparison {
    const tc_run_summary *a, *b;
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
    double work_steps_per_month;      /* W: steps per month (given, or A's month at its utilization) */
    bool work_from_flag;              /* W was given with --work-steps-per-month */
    bool has_monthly_diff;
    double monthly_diff;              /* $ per month: W x (cost_per_step_B - cost_per_step_A) */
    tc_cmp_coll_row *colls; size_t n_colls;
    bool same_workload;
    char differences[TC_CMP_MAX_DIFFS][240]; size_t n_differences; /* why not the same workload */
    char cheaper;                     /* 'A', 'B', '=' (within 0.05%) or '?' (unknown) */
    bool by_cost;                     /* cheaper decided by cost per step (prices known), else by
                                         GPU-seconds per step */
    double cheaper_pct;               /* how much cheaper per step, % of the dearer side */
    char reason_key[32];              /* "exposed_transfer", ..., "compute_time", "gpu_price",
                                         "gpu_count", "" */
    char conclusion[1200];            /* one paragraph, figures as printed */
} tc_comparison;

/* Computes the comparison of a against b. work_steps_per_month <= 0: the default. Returns 0, or -1
 * out of memory. The result points into a and b, which must outlive it. */
int tc_compare(tc_comparison *c, const tc_run_summary *a, const tc_run_summary *b,
               double work_steps_per_month);
void tc_comparison_free(tc_comparison *c);

/* Money for comparisons: whole dollars from $100, cents from $1, else 4 significant digits:
 * "$4,466", "$2.95", "$0.00005841". Returns the length written (at most n - 1). */
size_t tc_cmp_fmt_money(char *buf, size_t n, double v);
#endif
