/* summary.h: the job's summary (tc_summary: sums and shares over the ranks, MFU, nodes, the
 * straggler, the basis of the conclusions (its codes: basis.h), comm kernels by library, idle
 * causes, process-group figures) and the types it is made of. Filled by analyzer/analyze.c and the analyses it runs. */
#ifndef TC_SUMMARY_H
#define TC_SUMMARY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "basis.h"
#include "breakdown.h"
#include "comm_kernels.h"
#include "idle_causes.h"
#include "process_groups.h"
#include "replay.h"
#include "verdict.h"

typedef struct {
    int64_t rank;             /* the straggler */
    double last_arrival_share;/* share of matched instances it arrived last */
    double caused_wait_share; /* its share of all the wait in matched instances */
    int64_t caused_wait_ns_per_step; /* others' wait in instances it arrived last, per step, summed
                                      * over the other ranks (GPU-ns: ns of each waiting GPU added) */
    size_t waiting_ranks;     /* the other ranks: ranks - 1 */
    int64_t wait_per_rank_ns_per_step; /* caused_wait_ns_per_step / waiting_ranks: what each other
                                        * rank waits for it per step, on average, ns */
    int64_t compute_ns_per_step, median_compute_ns_per_step;
} tc_straggler;

/* How the ranks were put on nodes (analyzer/nodes.h), the first evidence that holds. */
typedef enum {
    TC_NODES_ASSUMED = 0,   /* rank / 8: no evidence holds (the note) */
    TC_NODES_FLAG,          /* rank / --gpus-per-node */
    TC_NODES_FILE_NAMES,    /* the host in each input's file name (tensorboard_trace_handler's or
                             * tracecost record's), where the device indices agree */
    TC_NODES_TRACE_HOSTS,   /* the host name each trace records (top-level host_name) */
    TC_NODES_DEVICES        /* the ranks' device indices: rank r on local device r mod G */
} tc_node_rule;

/* The job's figures over one kind of window: the ranks' windows summed, their shares 0..1 and the
 * idle causes (the step window: analyzer/analyze.c; docs/definitions.md "Step window"). */
typedef struct {
    bool has;                 /* the kind of window exists (steps: some rank has ProfilerStep spans) */
    bool on_steps;            /* the step window (else the GPU window) */
    tc_breakdown b;           /* sums over ranks */
    double compute, exposed_comm, exposed_transfer, exposed_wait, memory_exposed, idle; /* of b.window;
                               * transfer/wait valid if the summary's split_known */
    double memory_host_exposed, memory_device_exposed; /* memory_exposed's two parts, of b.window */
    tc_idle_causes causes;    /* b's idle by cause, summed over ranks */
    double cause_share[TC_IDLE_CAUSES]; /* of b.window */
    int64_t before_first_kernel_ns, after_last_kernel_ns; /* step idle before the ranks' first and
                               * after their last GPU event, summed (the step window only) */
} tc_window_figures;

/* What the node evidence lacked or where it disagreed (tc_summary.node_notes, bits). */
enum {
    TC_NODE_NOTE_NAMES_DISAGREE = 1u << 0, /* the file names' hosts differ from the device indices' nodes */
    TC_NODE_NOTE_NAMES_UNCHECKED = 1u << 1,/* file names used, some rank's device index unknown */
    TC_NODE_NOTE_HOSTS_PARTIAL = 1u << 2,  /* some inputs record a host name, not all: not used */
    TC_NODE_NOTE_HOSTS_SHARE = 1u << 3,    /* two ranks of one recorded host on one device */
    TC_NODE_NOTE_DEVICES_UNFIT = 1u << 4,  /* device indices known but not rank r on r mod G */
    TC_NODE_NOTE_DEVICES_UNKNOWN = 1u << 5 /* some rank's device index unknown (no GPU event on one
                                            * numeric device) */
};

typedef struct {
    size_t ranks;
    tc_breakdown b;           /* sums over ranks */
    bool split_known;
    double share_compute, share_exposed_comm, share_exposed_transfer, share_exposed_wait,
        share_memory_exposed, share_idle; /* of the summed windows; transfer/wait valid if split_known */
    double share_memory_host_exposed, share_memory_device_exposed; /* memory_exposed's two parts (copies
                               * that involve the host; device copies), of the summed windows */
    bool has_ratio;
    double comm_compute_ratio;
    bool has_mfu;
    double mfu;
    bool has_step_time;
    int64_t step_time_ns;     /* mean over ranks */
    tc_window_figures step;   /* over the ranks' step windows; step.has false without steps */
    tc_verdict verdict;       /* why: tc_findings.reasons */
    bool partial;             /* the conclusions rest on partial data: basis_reasons say why */
    tc_basis_reason basis_reasons[TC_MAX_BASIS]; size_t n_basis_reasons;
    bool transfer_upper_bound;/* exposed transfer may be too high and exposed wait too low (one
                               * rank, ranks missing, unmatched collectives): transfer is an upper
                               * bound and wait a lower bound */
    /* filled by tc_collectives_match: process groups whose size exceeds their ranks among the inputs */
    size_t partial_groups;    /* how many */
    char *partial_group;      /* the first one's label (owned), NULL when none */
    int64_t partial_group_present, partial_group_size; /* its ranks among the inputs, its size */
    /* filled by tc_collectives_match: collective instances (a kernel with its partners on the other
     * ranks, or one left without), how many of them are unmatched, and the end spread it measured */
    bool has_coll_instances;  /* matching ran: two ranks or more with collective kernels */
    int64_t coll_instances, unmatched_instances;
    bool has_end_spread;      /* measured: ordinal groups have kernels paired in order */
    int64_t end_spread_ns;    /* the job's end spread across ranks, ns (collectives.c measure_spread) */
    bool has_capture_time;    /* some rank has absolute times */
    int64_t capture_unix_s;   /* the earliest rank's first GPU event, s since 1970-01-01 UTC: when
                               * the trace was taken (the date catalog prices are aged against) */
    /* nodes (analyzer/nodes.h) */
    int64_t world_size;       /* GPUs of the job: max(ranks, the traces' distributedInfo.world_size) */
    tc_node_rule node_rule;   /* how ranks were put on nodes */
    int64_t gpus_per_node;    /* FLAG: --gpus-per-node; ASSUMED: 8; FILE_NAMES, TRACE_HOSTS: the most
                               * ranks on a host; DEVICES: G (docs/definitions.md "Nodes") */
    int64_t nodes;            /* nodes of the whole job (world_size ranks) */
    bool nodes_assumed;       /* 8 GPUs per node were assumed for some ranks (the note) */
    int64_t node_period;      /* G when rank r is on node r / G for every rank of the world (FLAG, and
                               * DEVICES when the indices settle G); 0 when only the inputs' ranks
                               * have a node (ASSUMED: none) */
    unsigned node_notes;      /* TC_NODE_NOTE_* bits */
    int64_t node_name_hosts;  /* hosts the file names give (0: they give none) */
    int64_t node_device_nodes;/* nodes the device indices give the inputs' ranks (0: they give none) */
    int64_t node_host_inputs; /* inputs whose trace records a host name */
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
    bool mfu_over_peak;       /* MFU left out: the FLOPs per step exceed the GPU's peak (mfu_note says) */
    /* comm kernels over all ranks by what made them comm (tc_comm_lib: a library of
     * comm_kernels.def, collective args, a --comm-kernel pattern) */
    uint64_t comm_kernels[TC_COMM_LIB_COUNT];   /* launches */
    int64_t comm_kernel_ns[TC_COMM_LIB_COUNT];  /* summed durations, ns (a sum, not a union) */
    /* why the GPU waits (host_wait.c): sums over ranks */
    tc_idle_causes idle;      /* idle causes summed */
    double idle_cause_share[TC_IDLE_CAUSES]; /* of the summed windows */
    tc_idle_evidence evidence;/* the ranks' evidence with the most time (names from a rank's trace) */
    tc_launch_stats launch;   /* summed; delay figures not kept (delay_kernels 0) */
    size_t host_event_ranks;  /* ranks whose trace holds runtime calls */
    /* process groups (analyzer/groups.h) */
    bool has_fabric;          /* --fabric or --nic-gbps named the fabric between nodes */
    tc_group_link fabric;     /* that fabric, valid if has_fabric */
    bool has_scoped_groups;   /* a process group of known scope has comm kernels */
    size_t inter_groups;      /* process groups on two or more nodes */
    int64_t inter_exposed_transfer_ns; /* Σ ranks' inter_exposed_transfer_ns */
    /* the replay of the step graph (model/replay.h, analyzer/replay.h) */
    tc_replay_summary replay;
    bool has_critical_path;
    tc_critical_path critical_path;      /* over all steps (number -1) */
    tc_critical_path *cp_steps; size_t n_cp_steps; /* one per step, in step order (owned) */
    bool has_inter_busbw;
    double inter_busbw_GBps;  /* Σ S × factor / Σ transfer over the inter-node groups' matched
                               * instances of ≥ 1 MiB; valid if has_inter_busbw */
    size_t groups_without_comm; /* process groups with no comm kernel in the inputs */
} tc_summary;
#endif
