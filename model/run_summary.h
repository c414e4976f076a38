/* run_summary.h: what `tracecost compare` needs from one run, whichever way the run came in: read
 * from a saved `analyze --json` result (parsers/result_json.h) or built from an analyzed job
 * (analyzer/job_run.h). Both hold the same values by construction: every number is what the
 * tracecost/1 JSON text holds and every string is valid UTF-8 (base/jsontext.h), so comparing
 * traces and comparing their saved results give the same output. Owns its strings and arrays;
 * tc_run_summary_free releases them. Nothing here reads, prints or computes. */
#ifndef TC_RUN_SUMMARY_H
#define TC_RUN_SUMMARY_H
#include <stdbool.h>
#include <stddef.h>
#include "basis.h"
#include "cost_inputs.h"

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

/* One rank of a run (a tracecost/1 "ranks[]" entry): its GPU window and where it went, µs. */
typedef struct tc_cmp_rank {
    long long rank;
    double window_us, compute_us, exposed_comm_us, memory_us, idle_us; /* µs of its GPU window */
    bool has_step_time;
    double step_time_us;        /* mean ProfilerStep duration, µs; valid if has_step_time */
} tc_cmp_rank;

/* One of a run's top compute kernels (a tracecost/1 "top_kernels[]" entry). */
typedef struct tc_cmp_kernel {
    char *name;                 /* kernel name, owned */
    double time_us;             /* summed over the run's ranks, µs */
    unsigned long long count;   /* launches over the run's ranks */
    bool has_share;
    double share_of_compute;    /* of the summed compute-kernel time, 0..1; valid if has_share */
} tc_cmp_kernel;

/* A cost input a saved result was analyzed with (its source "flag" or "config"): a number for a
 * row of cost_inputs.def, or the catalog GPU. */
typedef struct tc_saved_cost_input {
    const tc_cost_input_desc *input; /* its row; NULL: the catalog GPU (gpu) */
    double value;               /* in the input's unit; valid if input */
    char *gpu;                  /* catalog id as saved, owned; valid if !input */
} tc_saved_cost_input;

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
        share_memory, share_idle, share_memory_host; /* shares 0..1 of the summed GPU windows (share_memory_host:
                                     the host copies' part of share_memory); transfer/wait valid
                                     if split_known */
    bool has_step_shares;       /* summary.step_shares is not null: the run has ProfilerSteps */
    double step_share_compute, step_share_exposed_comm, step_share_exposed_transfer, step_share_exposed_wait,
        step_share_memory, step_share_idle, step_share_memory_host; /* shares 0..1 of the summed step windows (the cost model
                                     prices these when has_step_shares); transfer/wait valid if
                                     split_known */
    double step_window_us;      /* summary.step_window_us: the ranks' step windows summed, µs */
    bool has_mfu;
    double mfu;                 /* model FLOPs utilization 0..1 */
    bool has_flops;
    double flops_per_step;      /* FLOPs per step per GPU, mean over ranks that report it */
    bool has_busbw;
    double fabric_busbw_GBps;   /* measured fabric bus bandwidth, GB/s */
    bool has_straggler;
    long long straggler_rank;
    char *verdict;              /* "network-bound", ...; owned */
    /* the basis and nodes of the analysis (tracecost/1 summary keys; unknown in older results) */
    bool partial;               /* summary.basis "partial" */
    tc_basis_reason basis[TC_MAX_BASIS]; /* why, as codes and numbers (group NULL): from the job's
                                   summary, or read back from a saved summary.basis_summary */
    size_t n_basis;
    bool transfer_upper_bound;  /* summary.transfer_upper_bound */
    int nodes;                  /* summary.nodes: nodes the world_size GPUs span; 0 unknown */
    int gpus_per_node;          /* summary.gpus_per_node when neither the rule nor the nodes are assumed;
                                 * 0 unknown or assumed */
    bool nodes_assumed;         /* summary.nodes_assumed (older results: nodes_note set): 8 GPUs per
                                 * node were assumed */
    bool has_capture_time;
    long long capture_unix_s;   /* summary.captured_at, s since 1970-01-01 UTC */
    /* the process groups between nodes (summary.inter_node_* and process_groups[]) */
    double window_us;           /* summary.window_us: the ranks' windows summed, µs */
    bool groups_scoped;         /* summary.inter_node_exposed_transfer_us is not null: a process
                                   group of known scope has collectives */
    int inter_groups;           /* process groups of scope "inter-node" with collectives (comm_us > 0) */
    double inter_exposed_transfer_us; /* summary.inter_node_exposed_transfer_us; valid if groups_scoped */
    bool has_inter_busbw;
    double inter_busbw_GBps;    /* summary.inter_node_busbw_GBps */
    /* the replay of the step graph (summary.replay; unknown in older results, and without a replay:
     * one rank's MPI skeleton, no steps) */
    bool has_replay;            /* summary.replay.available */
    double replay_measured_step_us, replay_replayed_step_us; /* µs: mean over ranks of each rank's mean step */
    double replay_identity_error; /* max over ranks and steps of |replayed − measured| / measured */
    bool has_replay_reference;
    char *replay_reference;     /* summary.replay.reference ("instant", a link id, "50 GB/s"), owned */
    double replay_reference_step_us; /* µs, valid if has_replay_reference */
    bool has_replay_projected;
    double replay_projected_step_us; /* µs: the what-if's replayed step, valid if has_replay_projected */
    double fabric_rated_GBps;   /* summary.fabric_rated_busbw_GBps: the --fabric / --nic-gbps rating, 0 none */
    bool projected_has_GBps, projected_has_latency; /* the target it was projected for, B' and A' (from */
    double projected_GBps, projected_latency_us;    /* the job; a saved result: its cost inputs) */
    /* the work of one step of the job, given to compare (--tokens-per-step, --samples-per-step) */
    bool has_tokens, has_samples;
    double tokens_per_step, samples_per_step;
    tc_cmp_coll *colls; size_t n_colls;
    tc_cmp_rank *ranks; size_t n_ranks;     /* in the result's order (by rank) */
    tc_cmp_kernel *kernels; size_t n_kernels; /* top compute kernels, by time */
    size_t steps;               /* ProfilerSteps of the rank with the most (0: none) */
    /* cost inputs carried over from a saved result (what the user set at analyze time);
       tc_run_cost re-applies them with rank "config" so compare's own flags override them */
    tc_saved_cost_input *saved_cost; size_t n_saved_cost;
} tc_run_summary;

/* Frees what s owns and zeroes it (a zeroed summary is fine). */
void tc_run_summary_free(tc_run_summary *s);
#endif
