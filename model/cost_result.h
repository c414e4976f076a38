/* cost_result.h: the cost model's values and result as data (issue 27: results stored with the job):
 * an input with its provenance (tc_cost_value), every input (tc_cost_inputs), the result
 * (tc_cost_result) and a job's cost (tc_job_cost: the result, or why there is none). The model
 * that fills them is analyzer/cost.h; the reports (reports/cost_report.h) word them. Plain values:
 * nothing here allocates, computes or prints. */
#ifndef TC_COST_RESULT_H
#define TC_COST_RESULT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "basis.h"
#include "cost_inputs.h"
#include "gpu_catalog.h"

#define TC_COST_MAX_NOTES 12           /* notes a result can carry */
#define TC_COST_ORIGIN_LEN 96          /* bytes of an origin string, NUL included */
#define TC_COST_WHY_LEN 400            /* bytes of the model's reason for no result, NUL included */

/* Where a value came from, in increasing precedence. */
typedef enum {
    TC_COST_SRC_UNSET = 0,
    TC_COST_SRC_DEFAULT,
    TC_COST_SRC_CATALOG,
    TC_COST_SRC_TRACE,
    TC_COST_SRC_CONFIG,
    TC_COST_SRC_FLAG
} tc_cost_source;

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
    tc_cost_value fabric_target_latency_us;/* A': what-if latency per collective of the inter-node
                                              groups, µs, >= 0 (default: each group's alpha) */
    tc_cost_value fabric_upgrade_cost;     /* X: what-if upgrade price, $ in total, >= 0 */
    const char *fabric_target_id;          /* the links.def id --fabric-target named (static), NULL
                                              none; it names B' while fabric_target_GBps's origin
                                              is that option's */
    const tc_gpu_spec *gpu;                /* catalog GPU (--gpu or detected); NULL = none */
    tc_cost_source gpu_source;             /* rank of whoever chose gpu */
    char gpu_origin[TC_COST_ORIGIN_LEN];   /* provenance of gpu, as for the values */
    bool has_today;                        /* today_unix_s is set (the command line sets it) */
    int64_t today_unix_s;                  /* "today", s since 1970-01-01 UTC: what catalog prices
                                              are aged against when the trace has no date */
    bool today_from_env;                   /* today_unix_s is SOURCE_DATE_EPOCH */
} tc_cost_inputs;

/* One point of the cumulative-cost chart. */
typedef struct tc_cost_month {
    int month;                      /* months since purchase, 0..M */
    double own;                     /* cumulative cost of owning, $ (capex + month x opex) */
    double rent;                    /* cumulative cost of renting, $ (month x rent_monthly) */
} tc_cost_month;

/* How far a figure can be trusted on partial data. */
typedef enum {
    TC_COST_EXACT = 0,  /* as measured */
    TC_COST_LOWER,      /* a lower bound: the true figure may be higher */
    TC_COST_UPPER       /* an upper bound: the true figure may be lower */
} tc_cost_bound;

/* How the what-if projected the step (docs/cost-model.md "What-if: another fabric"). */
typedef enum {
    TC_WHAT_IF_SCALED = 0,  /* the exposed transfer share scaled by B / B' (no step graph: the MPI
                               build, a job without steps, the calculator) */
    TC_WHAT_IF_REPLAY       /* the step graph replayed with the inter-node groups' collectives on
                               the target (analyzer/fabric_replay.h) */
} tc_what_if_method;

#define TC_COST_WHAT_IF_STEPS 64   /* projected steps kept for the reports (more: the first ones) */
#define TC_COST_WHAT_IF_GROUPS 16  /* changed groups kept for the reports */

/* One matching group the fabric changes, as the what-if projected it (from the analyzed job). */
typedef struct tc_cost_what_if_group {
    char name[64];                  /* as reports name it: "pg 3 (DP)", "stream 20" */
    double alpha_us, beta_GBps;     /* its model as fitted */
    double projected_alpha_us, projected_beta_GBps; /* on the target */
    double transfer_us;             /* Σ its instances' measured transfer */
    double projected_transfer_us;   /* Σ their transfer on the target */
} tc_cost_what_if_group;

/* The fabric what-if: by replay, the job's step graph re-timed with the inter-node groups'
 * collectives on the target fabric; else (scaled) only exposed transfer time changes, scaled by
 * B / B' (from a trace with process groups of known scope, only the inter-node groups'). */
typedef struct tc_cost_what_if {
    tc_what_if_method method;
    double fabric_GBps;                      /* B: the fabric's bus bandwidth, GB/s (0 unknown) */
    double target_GBps;                      /* B': target bus bandwidth, GB/s (0 not given) */
    bool has_target_latency;                 /* A' was given (replay only) */
    double target_latency_us;                /* A': the inter-node groups' latency per collective, µs */
    bool inter_node_only;                    /* only the inter-node groups' transfer was changed */
    bool has_shares;                         /* the two shares below are known (scaled) */
    double scaled_transfer_share;            /* the share 0..1 of the measured step scaled by B/B' */
    double projected_exposed_transfer_share; /* share 0..1 of the projected step time */
    bool has_step_time;                      /* projected_step_time_us is known (from a trace) */
    double projected_step_time_us;           /* µs */
    double step_ratio;                       /* T' / T: the projected step over the step (replayed) */
    double projected_effective_gpus;         /* GPUs: N·T_ref/T' (replay), N x e' (scaled) */
    double monthly_value_recovered;          /* $ per month: N·P·H·u·(1 - T'/T) (issue 29; it was
                                                N·P·H·u·(e' - e)); < 0 for a downgrade */
    tc_cost_bound value_bound;               /* by replay on data whose transfer is an upper bound
                                                (unmatched collectives keep their measured time):
                                                LOWER, the change is at least this large */
    bool has_upgrade_cost;                   /* X was given */
    double upgrade_cost;                     /* X, $ */
    bool has_payback;                        /* X given and value recovered > 0 */
    double payback_months;                   /* months: X / monthly_value_recovered */
    size_t n_steps;                          /* projected steps kept (replay, analyze only) */
    int64_t step_number[TC_COST_WHAT_IF_STEPS];
    double step_projected_us[TC_COST_WHAT_IF_STEPS]; /* mean over ranks of each step on the target, µs */
    size_t n_groups;                         /* changed groups kept (replay, analyze only) */
    tc_cost_what_if_group groups[TC_COST_WHAT_IF_GROUPS];
} tc_cost_what_if;


/* The classes of loss the money is split into (docs/cost-model.md "Every loss priced"): together
 * they are every share of GPU time that is not compute. */
typedef enum {
    TC_COST_LOSS_INTER_NODE = 0, /* exposed transfer of the inter-node process groups: the network
                                    between nodes */
    TC_COST_LOSS_INTRA_NODE,     /* the rest of the exposed transfer: NVLink/PCIe inside a node */
    TC_COST_LOSS_STRAGGLER,      /* exposed wait: waiting for a straggler inside collectives */
    TC_COST_LOSS_IDLE,           /* GPU idle (the host's part of the host class) */
    TC_COST_LOSS_MEMORY,         /* exposed memory copies */
    TC_COST_LOSS_COUNT
} tc_cost_loss_class;

/* Why the inter-node network's share is what it is. */
typedef enum {
    TC_COST_INTER_GIVEN = 0,     /* calculator: all of 1 - e, as given */
    TC_COST_INTER_MEASURED,      /* the inter-node process groups' exposed transfer */
    TC_COST_INTER_ONE_GPU,       /* one GPU: 0 */
    TC_COST_INTER_ONE_NODE,      /* the job's GPUs are on one node: 0 */
    TC_COST_INTER_GROUPS_IN_NODE,/* every process group with collectives runs within one node: 0 */
    TC_COST_INTER_SCOPE_UNKNOWN  /* several nodes, no group of known scope: all exposed transfer
                                    (an upper bound; the intra-node part is in it) */
} tc_cost_inter_rule;

/* The class the headline leads with: the verdict's loss. */
typedef enum {
    TC_COST_LEAD_NONE = 0,       /* no trace (calculator): the network, as given */
    TC_COST_LEAD_TRANSFER,       /* network-bound: exposed transfer (inter-node + intra-node) */
    TC_COST_LEAD_STRAGGLER,      /* straggler-bound: exposed wait */
    TC_COST_LEAD_HOST,           /* host-bound: idle and exposed memory copies */
    TC_COST_LEAD_TOTAL           /* compute-bound or no verdict: every loss together */
} tc_cost_lead;

/* One class's money. */
typedef struct tc_cost_loss {
    bool known;                  /* false: share and per_month unknown (JSON null) */
    double share;                /* of GPU time, 0..1: what the class is priced with */
    double per_month;            /* $ per month: N·P·H·u·share */
    tc_cost_bound bound;         /* how far it can be trusted on partial data */
} tc_cost_loss;

typedef struct tc_cost_result {
    tc_cost_inputs used;                     /* every input as resolved (trace facts and derived
                                                defaults applied): what the JSON "inputs" echo */
    bool partial;                            /* from a trace on partial data (facts->partial) */
    tc_basis_reason basis[TC_MAX_BASIS];     /* why, as codes and numbers (reports word them for
                                                the headline); n_basis 0 when complete */
    size_t n_basis;
    tc_cost_bound efficiency_bound;          /* e: LOWER when it came from a trace whose transfer
                                                is an upper bound; then effective GPUs are LOWER,
                                                the network loss and the prices per effective
                                                GPU-hour UPPER */
    tc_cost_bound straggler_loss_bound;      /* LOWER when the wait share is a lower bound */
    tc_cost_bound effective_price_bound;     /* P / e: UPPER when e is LOWER */
    tc_cost_bound rent_price_bound;          /* P / e_r: UPPER when e_r is e's default and e LOWER */
    tc_cost_bound own_price_bound;           /* own per effective GPU-hour: UPPER when e is LOWER */
    bool has_price_as_of;                    /* a catalog price was aged: price_as_of_unix_s */
    int64_t price_as_of_unix_s;              /* the date catalog prices were aged against, s */
    const char *price_as_of_source;          /* "trace (capture date)", "SOURCE_DATE_EPOCH" or
                                                "today" (static) */
    int fabric_nodes;                        /* nodes the N GPUs span for the fabric default */
    bool has_reference;                      /* effective figures are against a replayed reference */
    char reference[64];                      /* its name: "instant" (a network that moves bytes
                                                instantly), "ib-ndr", "50 GB/s" (the target) */
    double reference_efficiency;             /* T_ref / T, valid if has_reference */
    double effective_gpus;                   /* GPUs: N·T_ref/T against the reference (issue 29),
                                                else N·e (against an infinitely fast network) */
    double effective_price_per_gpu_hour;     /* $ per effective GPU-hour: P / e_eff (e_eff = T_ref/T
                                                with a reference, else e; so are the two below) */
    double network_loss_per_month;           /* $ per month: the inter-node network's (issue 28; it
                                                was N·P·H·u·(1 - e), every exposed transfer):
                                                loss[TC_COST_LOSS_INTER_NODE].per_month */
    bool has_idle_loss;                      /* idle_loss_per_month known (from a trace) */
    double idle_loss_per_month;              /* $ per month: N·P·H·u·idle_share */
    bool has_straggler_loss;                 /* straggler_loss_per_month known (trace, > 1 rank) */
    double straggler_loss_per_month;         /* $ per month: N·P·H·u·wait_share */
    tc_cost_loss loss[TC_COST_LOSS_COUNT];   /* every class of loss priced (network_loss_per_month
                                                is loss[INTER_NODE]'s) */
    double total_loss_per_month;             /* $ per month: the known classes summed */
    tc_cost_inter_rule inter_rule;           /* why the inter-node network's share is what it is */
    bool inter_nodes_assumed;                /* ONE_NODE rests on 8 GPUs per node assumed */
    tc_cost_lead lead;                       /* the class the headline leads with */
    double rent_monthly;                     /* $ per month: N·P·H·u */
    double tco_rent;                         /* $: M·rent_monthly */
    double rent_cost_per_effective_gpu_hour; /* $ per effective GPU-hour: P / e_r (default e_eff) */
    bool has_own;                            /* purchase price known: the own side below is set */
    double own_capex;                        /* $: N·C + F */
    double own_opex_monthly;                 /* $ per month: N·W·H·u·pue·E + O */
    double tco_own;                          /* $: own_capex + M·own_opex_monthly */
    double own_cost_per_effective_gpu_hour;  /* $ per effective GPU-hour: tco_own / (N·H·u·M·e_eff) */
    bool has_breakeven;                      /* owning pays back: rent_monthly > own_opex_monthly */
    double breakeven_months;                 /* months: own_capex / (rent_monthly - own_opex_monthly) */
    size_t timeline_len;                     /* M + 1 entries used in timeline */
    tc_cost_month timeline[TC_COST_MAX_MONTHS + 1]; /* months 0..M */
    bool has_what_if;                        /* what_if is set (B and B' known) */
    tc_cost_what_if what_if;
    size_t n_notes;                          /* notes used */
    char notes[TC_COST_MAX_NOTES][200];      /* caveats for the reader, one sentence each */
} tc_cost_result;

/* Why a job has no cost result (tc_job_cost.missing). */
typedef enum {
    TC_COST_UNPRICED = 0,   /* nobody priced the job (the JSON's "cost" is null, nothing else) */
    TC_COST_LEFT_OUT,       /* --no-cost: no cost section at all */
    TC_COST_NO_MODEL,       /* the inputs are not a valid model: why holds the model's reason */
    TC_COST_TOO_SMALL       /* the verdict is too-small: too little GPU work to price (model/verdict.h) */
} tc_cost_missing;

/* A job's cost (tc_job.cost), set by analyzer/job_cost.h tc_job_price. */
typedef struct tc_job_cost {
    bool computed;                 /* result is valid */
    tc_cost_missing missing;       /* why there is none, when !computed */
    char why[TC_COST_WHY_LEN];     /* TC_COST_NO_MODEL: the model's reason ("--price-per-gpu-hour is
                                      required ..."); "" otherwise */
    tc_cost_result result;         /* valid if computed */
} tc_job_cost;
#endif
