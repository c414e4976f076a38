/* cost.h: the cost model (issue 5): turns network efficiency, prices and power into effective GPUs,
 * money lost a month, rent-vs-own break-even and TCO, and a fabric-upgrade what-if. The formulas
 * and the defaults' sources are in docs/cost-model.md.
 *
 * Flow: tc_cost_inputs_defaults -> tc_cost_set_value / tc_cost_set_gpu (the command line's flags
 * and config files: cli/cost_options.h) -> tc_cost_apply_catalog -> tc_cost_compute (with trace
 * facts, or NULL in calculator mode) -> the reports (reports/cost_report.h).
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
#include "model/gpu_catalog.h"

#define TC_COST_HOURS_PER_MONTH 730.0  /* H: hours in a month (8,760 / 12, rounded) */
#define TC_COST_MAX_NOTES 12           /* notes a result can carry */
#define TC_COST_PRICE_AGE_MONTHS 18    /* a catalog price older than this many months gets a note */
#define TC_COST_ORIGIN_LEN 96          /* bytes of an origin string, NUL included */

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

/* Where a value came from, in increasing precedence. */
typedef enum {
    TC_COST_SRC_UNSET = 0,
    TC_COST_SRC_DEFAULT,
    TC_COST_SRC_CATALOG,
    TC_COST_SRC_TRACE,
    TC_COST_SRC_CONFIG,
    TC_COST_SRC_FLAG
} tc_cost_source;

/* "unset", "default", "catalog", "trace", "config", "flag". */
const char *tc_cost_source_str(tc_cost_source src);

/* One input value and its provenance. */
typedef struct tc_cost_value {
    double value;                   /* in the unit of the tc_cost_inputs field holding it */
    bool set;                       /* false: no value (value is then 0) */
    tc_cost_source source;          /* rank of whoever set it; TC_COST_SRC_UNSET when !set */
    char origin[TC_COST_ORIGIN_LEN]; /* shown to the user: "flag", "config:cost.conf:3",
                                        "catalog:h100-sxm (price dated 2026-05)", "trace (...)" */
} tc_cost_value;

/* Every input of the model. Field names follow the flags (--price-per-gpu-hour ->
 * price_per_gpu_hour); the letters are those of the formulas in docs/cost-model.md. Every numeric
 * field has a row in model/cost_inputs.def (tc_cost_inputs_value reaches it by that row). */
typedef struct tc_cost_inputs {
    tc_cost_value gpus;                    /* N: GPUs, a whole number >= 1 */
    tc_cost_value price_per_gpu_hour;      /* P: rent, $ per GPU-hour, > 0 */
    tc_cost_value purchase_per_gpu;        /* C: purchase, $ per GPU incl. its server share, >= 0 */
    tc_cost_value fabric_cost;             /* F: network fabric, $ in total, >= 0 */
    tc_cost_value power_kw_per_gpu;        /* W: wall power per GPU incl. server share, kW, >= 0 */
    tc_cost_value electricity_per_kwh;     /* E: electricity, $ per kWh, >= 0 */
    tc_cost_value pue;                     /* pue: facility power / IT power, ratio >= 1 */
    tc_cost_value ops_per_month;           /* O: staff, colocation, support, $ per month, >= 0 */
    tc_cost_value months;                  /* M: horizon, months, whole number 1..600 */
    tc_cost_value utilization;             /* u: share of hours the cluster runs jobs, (0, 1] */
    tc_cost_value network_efficiency;      /* e: 1 - exposed transfer share, (0, 1] */
    tc_cost_value rent_network_efficiency; /* e_r: efficiency on the rented fabric, (0, 1] */
    tc_cost_value fabric_GBps;             /* B: measured fabric bus bandwidth, GB/s, > 0 */
    tc_cost_value fabric_target_GBps;      /* B': what-if fabric bus bandwidth, GB/s, > 0 */
    tc_cost_value fabric_upgrade_cost;     /* X: what-if upgrade price, $ in total, >= 0 */
    const tc_gpu_spec *gpu;                /* catalog GPU (--gpu or detected); NULL = none */
    tc_cost_source gpu_source;             /* rank of whoever chose gpu */
    char gpu_origin[TC_COST_ORIGIN_LEN];   /* provenance of gpu, as for the values */
    bool has_today;                        /* today_unix_s is set (the command line sets it) */
    int64_t today_unix_s;                  /* "today", s since 1970-01-01 UTC: what catalog prices
                                              are aged against when the trace has no date */
    bool today_from_env;                   /* today_unix_s is SOURCE_DATE_EPOCH */
} tc_cost_inputs;

/* What the analyzer measured, for tc_cost_compute. Shares are of the step (or window) time. */
typedef struct tc_cost_trace_facts {
    int world_size;                 /* ranks = GPUs in the job; <= 0 = unknown */
    double exposed_transfer_share;  /* share 0..1 of time moving data with no compute to hide it */
    double exposed_wait_share;      /* share 0..1 waiting for other ranks inside collectives */
    double idle_share;              /* share 0..1 idle plus exposed host memory copies */
    double step_time_us;            /* mean step time, µs; <= 0 = unknown */
    double fabric_busbw_GBps;       /* measured bus bandwidth, GB/s; <= 0 = unknown */
    bool transfer_split_known;      /* false (one rank): transfer and wait cannot be separated;
                                       then e = 1 - (transfer + wait) and no straggler loss */
    int nodes;                      /* nodes the world_size GPUs span (analyzer/nodes.h); <= 0 =
                                       unknown: N / gpus_per_node rounded up */
    double gpus_per_node;           /* GPUs per node, for an N other than world_size; <= 0 = 8 */
    bool nodes_assumed;             /* the node count rests on 8 GPUs per node assumed (a note) */
    bool partial;                   /* the shares rest on partial data (tc_summary.partial) */
    char partial_what[160];         /* in a few words ("2 of 128 ranks"), for the headline */
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
} tc_cost_trace_facts;

/* The facts from a job's measured shares of GPU time (0..1), with the one policy every caller
 * uses: with one rank (split unknown) all exposed communication counts as transfer and the wait
 * share is unknown (0); the idle share is idle + exposed memory (the host's part). step_time_us and
 * fabric_busbw_GBps <= 0 mean unknown. The node, basis and date fields are left unknown (zero) for
 * the caller to set. */
tc_cost_trace_facts tc_cost_facts_from_shares(int world_size, bool split_known, double exposed_transfer,
                                              double exposed_wait, double exposed_comm, double idle,
                                              double memory_exposed, double step_time_us,
                                              double fabric_busbw_GBps);

/* One point of the cumulative-cost chart. */
typedef struct tc_cost_month {
    int month;                      /* months since purchase, 0..M */
    double own;                     /* cumulative cost of owning, $ (capex + month x opex) */
    double rent;                    /* cumulative cost of renting, $ (month x rent_monthly) */
} tc_cost_month;

/* The fabric-upgrade what-if: only exposed transfer time changes, scaled by B / B': from a trace
 * with process groups of known scope, only the inter-node groups' exposed transfer. */
typedef struct tc_cost_what_if {
    double fabric_GBps;                      /* B: measured bus bandwidth, GB/s */
    double target_GBps;                      /* B': target bus bandwidth, GB/s */
    bool inter_node_only;                    /* only the inter-node groups' transfer was scaled */
    double scaled_transfer_share;            /* the share 0..1 of the measured step scaled by B/B' */
    double projected_exposed_transfer_share; /* share 0..1 of the projected step time */
    bool has_step_time;                      /* projected_step_time_us is known (from a trace) */
    double projected_step_time_us;           /* µs */
    double projected_effective_gpus;         /* GPUs: N x e' */
    double monthly_value_recovered;          /* $ per month: N·P·H·u·(e' - e); < 0 for a downgrade */
    bool has_upgrade_cost;                   /* X was given */
    double upgrade_cost;                     /* X, $ */
    bool has_payback;                        /* X given and value recovered > 0 */
    double payback_months;                   /* months: X / monthly_value_recovered */
} tc_cost_what_if;

/* How far a figure can be trusted on partial data. */
typedef enum {
    TC_COST_EXACT = 0,  /* as measured */
    TC_COST_LOWER,      /* a lower bound: the true figure may be higher */
    TC_COST_UPPER       /* an upper bound: the true figure may be lower */
} tc_cost_bound;

/* "exact", "lower bound", "upper bound". */
const char *tc_cost_bound_str(tc_cost_bound b);

typedef struct tc_cost_result {
    tc_cost_inputs used;                     /* every input as resolved (trace facts and derived
                                                defaults applied): what the JSON "inputs" echo */
    bool partial;                            /* from a trace on partial data (facts->partial) */
    char partial_what[160];                  /* its words, for the headline ("" when complete) */
    tc_cost_bound efficiency_bound;          /* e: LOWER when it came from a trace whose transfer
                                                is an upper bound; then effective GPUs are LOWER,
                                                the network loss and the prices per effective
                                                GPU-hour UPPER */
    tc_cost_bound straggler_loss_bound;      /* LOWER when the wait share is a lower bound */
    bool has_price_as_of;                    /* a catalog price was aged: price_as_of_unix_s */
    int64_t price_as_of_unix_s;              /* the date catalog prices were aged against, s */
    const char *price_as_of_source;          /* "trace (capture date)", "SOURCE_DATE_EPOCH" or
                                                "today" (static) */
    int fabric_nodes;                        /* nodes the N GPUs span for the fabric default */
    double effective_gpus;                   /* GPUs: N·e */
    double effective_price_per_gpu_hour;     /* $ per effective GPU-hour: P / e */
    double network_loss_per_month;           /* $ per month: N·P·H·u·(1 - e) */
    bool has_idle_loss;                      /* idle_loss_per_month known (from a trace) */
    double idle_loss_per_month;              /* $ per month: N·P·H·u·idle_share */
    bool has_straggler_loss;                 /* straggler_loss_per_month known (trace, > 1 rank) */
    double straggler_loss_per_month;         /* $ per month: N·P·H·u·wait_share */
    double rent_monthly;                     /* $ per month: N·P·H·u */
    double tco_rent;                         /* $: M·rent_monthly */
    double rent_cost_per_effective_gpu_hour; /* $ per effective GPU-hour: P / e_r */
    bool has_own;                            /* purchase price known: the own side below is set */
    double own_capex;                        /* $: N·C + F */
    double own_opex_monthly;                 /* $ per month: N·W·H·u·pue·E + O */
    double tco_own;                          /* $: own_capex + M·own_opex_monthly */
    double own_cost_per_effective_gpu_hour;  /* $ per effective GPU-hour: tco_own / (N·H·u·M·e) */
    bool has_breakeven;                      /* owning pays back: rent_monthly > own_opex_monthly */
    double breakeven_months;                 /* months: own_capex / (rent_monthly - own_opex_monthly) */
    size_t timeline_len;                     /* M + 1 entries used in timeline */
    tc_cost_month timeline[TC_COST_MAX_MONTHS + 1]; /* months 0..M */
    bool has_what_if;                        /* what_if is set (B and B' known) */
    tc_cost_what_if what_if;
    size_t n_notes;                          /* notes used */
    char notes[TC_COST_MAX_NOTES][200];      /* caveats for the reader, one sentence each */
} tc_cost_result;

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
