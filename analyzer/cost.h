/* cost.h: the cost model (issue 5): turns network efficiency, prices and power into effective GPUs,
 * money lost a month, rent-vs-own break-even and TCO, and a fabric-upgrade what-if. The formulas
 * and the defaults' sources are in docs/cost-model.md.
 *
 * Flow: tc_cost_inputs_defaults -> tc_cost_set_value / tc_cost_set_gpu (the command line's flags
 * and config files: cli/cost_options.h) -> tc_cost_apply_catalog -> tc_cost_compute (with the
 * facts of a run, tc_cost_facts_from_run, or NULL in calculator mode) -> the reports
 * (reports/cost_report.h). analyze and compare take that path through job_cost.h; the values and
 * the result are model/cost_result.h.
 *
 * Precedence of a value's origin, highest first: flag > config > trace > catalog > default. Each
 * value remembers the rank that set it and is only replaced by an equal or higher rank, so the
 * order of the calls above does not matter (a config loaded after the flags does not undo them).
 *
 * All structs are plain values owned by the caller; nothing here allocates, keeps global state,
 * prints or exits. Errors come back as -1 and a message in the caller's buffer (err, errlen bytes,
 * always NUL-terminated when errlen > 0), naming the input as its flag (--gpus). */
#ifndef TC_COST_H
#define TC_COST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/cost_inputs.h"
#include "model/cost_result.h"
#include "model/gpu_catalog.h"
#include "model/run_summary.h"
#include "model/verdict.h"

#define TC_COST_HOURS_PER_MONTH 730.0  /* H: hours in a month (8,760 / 12, rounded) */
#define TC_COST_PRICE_AGE_MONTHS 18    /* a catalog price older than this many months gets a note */

/* Defaults (docs/cost-model.md gives their sources). */
#define TC_COST_DEFAULT_MONTHS 36.0
#define TC_COST_DEFAULT_UTILIZATION 1.0
#define TC_COST_DEFAULT_POWER_KW 1.25       /* kW per GPU at the wall: an 8-GPU server draws about 10 kW */
#define TC_COST_SERVER_POWER_FACTOR (10.0 / (8 * 0.700)) /* wall power / GPU TDP: 10 kW for 8 x 700 W */
#define TC_COST_DEFAULT_ELECTRICITY 0.10    /* $ per kWh */
#define TC_COST_DEFAULT_PUE 1.3             /* facility power / IT power */
#define TC_COST_DEFAULT_OPS 0.0             /* $ per month: not counted unless given */
#define TC_COST_FABRIC_PER_NODE 15000.0     /* $ of switches and cables per node, counted only when
                                               the job spans more than one node */
#define TC_COST_GPUS_PER_NODE 8             /* GPUs per node when nothing says (analyzer/nodes.h) */

/* "unset", "default", "catalog", "trace", "config", "flag". */
const char *tc_cost_source_str(tc_cost_source src);

/* What the analyzer measured, for tc_cost_compute. Shares are of the step (or window) time. */
typedef struct tc_cost_trace_facts {
    int world_size;                 /* ranks = GPUs in the job; <= 0 = unknown */
    double exposed_transfer_share;  /* share 0..1 of time moving data with no compute to hide it */
    double exposed_wait_share;      /* share 0..1 waiting for other ranks inside collectives */
    double idle_share;              /* share 0..1 idle plus exposed host memory copies */
    double memory_share;            /* share 0..1: the exposed memory copies' part of idle_share */
    tc_verdict verdict;             /* the job's verdict: the loss the headline leads with */
    double step_time_us;            /* mean step time, µs; <= 0 = unknown */
    double fabric_busbw_GBps;       /* measured bus bandwidth, GB/s; <= 0 = unknown */
    bool transfer_split_known;      /* false (one rank): transfer and wait cannot be separated;
                                       then e = 1 - (transfer + wait) and no straggler loss */
    int nodes;                      /* nodes the world_size GPUs span (analyzer/nodes.h); <= 0 =
                                       unknown: N / gpus_per_node rounded up */
    double gpus_per_node;           /* GPUs per node, for an N other than world_size; <= 0 = 8 */
    bool nodes_assumed;             /* the node count rests on 8 GPUs per node assumed (a note) */
    bool partial;                   /* the shares rest on partial data (tc_summary.partial) */
    tc_basis_reason basis[TC_MAX_BASIS]; /* why, as codes and numbers (group NULL) */
    size_t n_basis;
    bool transfer_upper_bound;      /* exposed transfer is an upper bound and wait a lower bound:
                                       e, the effective GPUs and the straggler loss are lower
                                       bounds, the network loss an upper bound */
    bool has_capture_time;          /* capture_unix_s is known */
    int64_t capture_unix_s;         /* when the trace was taken, s since 1970-01-01 UTC: catalog
                                       prices are aged against it */
    bool groups_scoped;             /* the trace's process groups have known scopes: the what-if
                                       changes only the inter-node groups (analyzer/groups.h) */
    int inter_groups;               /* inter-node process groups with collectives */
    double inter_transfer_share;    /* share 0..1: their exposed transfer (Σ ranks |∪ their
                                       transfer tails − ∪ compute|) of the summed windows */
    double inter_busbw_GBps;        /* their bus bandwidth, GB/s; <= 0 = unknown */
    /* the replay of the step graph (summary.replay, issue 29), µs per step */
    bool has_replay;                /* replay_step_us known */
    double replay_step_us;          /* T: the unchanged graph re-timed */
    bool has_reference;
    double reference_step_us;       /* T_ref: on the reference (the target, else "instant") */
    char reference[64];             /* its name */
    bool has_projected;
    double projected_step_us;       /* T': on the what-if's target */
    bool projected_has_GBps, projected_has_latency; /* the target it was projected for */
    double fabric_rated_GBps;       /* the --fabric / --nic-gbps rating (B_rated when named); 0 none */
    double projected_GBps, projected_latency_us;
} tc_cost_trace_facts;

/* The facts of run s (a job's summary or a saved result, model/run_summary.h): the one mapping
 * analyze and compare share. With one rank (split unknown) all exposed communication counts as
 * transfer and the wait share is unknown (0); the idle share is idle + exposed memory (the host's
 * part), the memory share that part alone; the inter-node share is the inter-node groups' exposed
 * transfer over the summed windows; the verdict is s->verdict's (none when not a known name). */
tc_cost_trace_facts tc_cost_facts_from_run(const tc_run_summary *s);

/* "exact", "lower bound", "upper bound". */
const char *tc_cost_bound_str(tc_cost_bound b);

/* Clears in and sets the documented defaults (source "default"): months 36, utilization 1.0,
 * power 1.25 kW/GPU, electricity $0.10/kWh, pue 1.3, ops $0/month. */
void tc_cost_inputs_defaults(tc_cost_inputs *in);

/* The field of in that holds input `id` (a row of model/cost_inputs.def); NULL when id is out of
 * range. */
tc_cost_value *tc_cost_inputs_value(tc_cost_inputs *in, tc_cost_input_id id);
const tc_cost_value *tc_cost_inputs_cvalue(const tc_cost_inputs *in, tc_cost_input_id id);

/* Sets input d to v with rank src and origin text (NULL: the rank's name), unless a value of
 * higher rank is already set (then nothing changes and 0 is returned). v must be within d's range
 * (tc_cost_input_check): otherwise returns -1 with "--NAME must be ...; got V" in err and in is
 * unchanged. Returns 0 when set or kept. */
int tc_cost_set_value(tc_cost_inputs *in, const tc_cost_input_desc *d, double v, tc_cost_source src,
                      const char *origin, char *err, size_t errlen);

/* Chooses the catalog GPU whose id or name is id_or_name (tc_gpu_find_by_id) with rank src and
 * origin (NULL: the rank's name), unless one of higher rank was chosen. Returns 0, or -1 with
 * "--gpu: unknown GPU 'X'; known: h100-pcie, ... (tracecost gpus lists them)" in err. */
int tc_cost_set_gpu(tc_cost_inputs *in, const char *id_or_name, tc_cost_source src, const char *origin,
                    char *err, size_t errlen);

/* Fills price_per_gpu_hour, purchase_per_gpu and power_kw_per_gpu (TDP x
 * TC_COST_SERVER_POWER_FACTOR) from a catalog GPU wherever nothing of higher rank set them. The
 * GPU is the one chosen with --gpu (flag or config) if any, else `detected` (matched from the
 * trace's device name; NULL when unknown, then nothing changes). Records the GPU in in->gpu. */
void tc_cost_apply_catalog(tc_cost_inputs *in, const tc_gpu_spec *detected);

/* Runs the model. facts: what a trace measured, or NULL in calculator mode. Trace values take
 * rank "trace": N from world_size, e = 1 - exposed transfer share, B from the measured bus
 * bandwidth. Refuses (returns -1, message in err naming the flag and where its value came from,
 * r zeroed) missing N, e or P; N not a whole number >= 1; a negative value; e, e_r or u outside
 * (0, 1]; M outside 1..600 or fractional; pue < 1; shares in facts outside [0, 1]. On success
 * returns 0 and fills every field of r; unknowns are flagged (has_*), never NaN or infinite. */
int tc_cost_compute(const tc_cost_inputs *in, const tc_cost_trace_facts *facts, tc_cost_result *r,
                    char *err, size_t errlen);
#endif
