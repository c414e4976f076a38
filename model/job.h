/* job.h: one analyzed job: its inputs (one tc_trace per rank) and every result computed from them.
 * Owns the traces and all result arrays; tc_job_free releases everything. The analyses fill the
 * result structs; reports only read them. Times are ns; "unknown" is a has_* flag, never NaN. */
#ifndef TC_JOB_H
#define TC_JOB_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "base/status.h"
#include "basis.h"
#include "breakdown.h"
#include "cost_result.h"
#include "comm_kernels.h"
#include "gpu_catalog.h"
#include "link_catalog.h"
#include "trace.h"

typedef enum { TC_VERDICT_NONE, TC_VERDICT_COMPUTE, TC_VERDICT_NETWORK, TC_VERDICT_STRAGGLER, TC_VERDICT_HOST } tc_verdict;

/* ---- why the GPU waits on the host (analyzer/host_wait.c; docs/definitions.md "Idle causes") */

/* The cause of each instant of an idle gap, in the order of the JSON keys. */
typedef enum {
    TC_IDLE_GPU_SIDE,          /* the work was handed over before the GPU ran dry */
    TC_IDLE_SYNC,              /* the launching thread was in a synchronizing call */
    TC_IDLE_DATA_LOADING,      /* ... in a CPU op or annotation whose name holds "DataLoader" */
    TC_IDLE_MEMORY_MANAGEMENT, /* ... in cudaMalloc, cudaFree and the like */
    TC_IDLE_MODULE_LOAD,       /* ... in a launch call of 1 ms or more (lazy module loading) */
    TC_IDLE_LAUNCH_OVERHEAD,   /* ... in a launch call, or in the CPU op that launched the work */
    TC_IDLE_CPU_OTHER,         /* ... elsewhere (Python between ops, CPU optimizer, logging) */
    TC_IDLE_UNATTRIBUTED,      /* the work that ended the gap has no launch call in the trace */
    TC_IDLE_CAUSES
} tc_idle_cause;

/* The idle gaps of a window split by cause; ns[] adds up to the window's idle time exactly. */
typedef struct {
    int64_t ns[TC_IDLE_CAUSES];  /* ns per tc_idle_cause */
    int64_t after_sync_ns;       /* the gaps split by time that began while the launching thread was
                                  * in a synchronizing call (evidence, not a cause) */
} tc_idle_causes;

#define TC_HOST_OPS 10           /* entries of tc_rank_result.host_ops */

/* Where the host was during the host side of idle gaps: the outermost CPU op or annotation of the
 * launching thread that covers most of a gap's host part, with the time of one cause. */
typedef struct {
    const char *name;            /* the op's name (the trace's string), NULL: inside no op */
    uint8_t cause;               /* tc_idle_cause */
    int64_t ns;                  /* idle of that cause in the gaps it covered, ns */
} tc_host_op;

/* The evidence the host actions name (the trace's strings; NULL when there is none). */
typedef struct {
    const char *sync_call;       /* the synchronizing call the GPU waited on most (cudaStreamSynchronize) */
    const char *sync_op;         /* the outermost CPU op around it (aten::item), NULL when none */
    int64_t sync_ns;             /* sync idle inside that call and op, ns */
    const char *data_op;         /* the DataLoader op or annotation with the most data_loading idle */
    int64_t data_ns;             /* its data_loading idle, ns */
    const char *memory_call;     /* the memory-management call with the most idle */
    int64_t memory_ns;           /* its memory_management idle, ns */
    const char *other_op;        /* the host op with the most cpu_other idle (where the host was) */
    int64_t other_ns;            /* its cpu_other idle, ns */
    const char *drain_call;      /* the synchronizing call the most idle_after_sync time began in */
    const char *drain_op;        /* the outermost CPU op around it, NULL when none */
    int64_t drain_ns;            /* the after-sync gap time that began in that call and op, ns */
} tc_idle_evidence;

/* Kernel launches of a rank (or summed over ranks: no delay percentiles then). */
typedef struct {
    uint64_t kernels;            /* kernel events */
    uint64_t launched;           /* of them, with their launch call in the trace */
    uint64_t short_kernels;      /* kernels shorter than 10 µs */
    uint64_t delay_kernels;      /* kernels the delay is measured on: launched by a call that is not a
                                  * graph launch */
    int64_t delay_median_ns;     /* GPU start − launch call start, lower median; valid if delay_kernels */
    int64_t delay_p95_ns;        /* its 95th percentile (nearest rank); valid if delay_kernels */
    uint64_t launch_calls;       /* launch calls (the launch list) and calls that launched GPU work */
    int64_t launch_cpu_ns;       /* their summed duration (CPU time), ns */
    int64_t gpu_busy_ns;         /* |∪ GPU activity| (window − idle): the GPU's busy time, ns */
    bool launch_bound;           /* launch_cpu_ns > gpu_busy_ns */
    uint64_t graph_launches;     /* cudaGraphLaunch calls */
    uint64_t graph_kernels;      /* kernels they launched */
} tc_launch_stats;

/* The class of a step's time that grew most over its median (tc_slow_step). */
typedef enum {
    TC_STEP_COMPUTE, TC_STEP_EXPOSED_COMM, TC_STEP_MEMORY, TC_STEP_IDLE,
    TC_STEP_OUTSIDE,             /* step time outside its GPU window (step time − window) */
    TC_STEP_NONE                 /* no class grew */
} tc_step_class;

typedef struct {
    int64_t number;              /* N of ProfilerStep#N */
    int64_t step_time_ns;        /* its step time */
    int64_t over_median_ns;      /* step time − the median step time (> 0) */
    uint8_t grew;                /* tc_step_class */
    int64_t grew_ns;             /* that class's time − its median over the steps */
    uint8_t idle_cause;          /* grew == TC_STEP_IDLE: the tc_idle_cause that grew most */
    int64_t idle_cause_grew_ns;  /* its time − its median over the steps */
} tc_slow_step;

#define TC_SLOW_STEPS 3

/* Step times of a rank (analyzer/step_stats.c); valid when the rank has steps. */
typedef struct {
    int64_t min_ns, median_ns, max_ns; /* step times; median: the lower median */
    tc_slow_step slowest[TC_SLOW_STEPS]; size_t n_slowest; /* slowest steps above the median, slowest first */
} tc_step_stats;

typedef struct {
    int64_t number;         /* N of ProfilerStep#N */
    tc_breakdown b;         /* over the GPU events assigned to the step */
    bool has_ratio;         /* compute > 0 */
    double comm_compute_ratio; /* comm / compute (unions) of the step; valid if has_ratio */
    int64_t step_time_ns;   /* ProfilerStep span duration (CPU span, else GPU span) */
    double flops;           /* FLOPs of the step's ops (shapes or user); valid if has_mfu */
    double mfu;             /* valid if has_mfu */
    bool has_mfu;
    tc_idle_causes idle;    /* its idle gaps by cause (gaps of its own events, inside its window) */
} tc_step_result;

/* ---- process groups (analyzer/groups.h; docs/definitions.md "Process groups") */

/* Where a process group's ranks run. */
typedef enum {
    TC_SCOPE_UNKNOWN = 0, /* its ranks, or the nodes of some of them, are unknown */
    TC_SCOPE_INTRA,       /* all on one node */
    TC_SCOPE_INTER        /* on two or more nodes */
} tc_group_scope;

/* The link a process group's collectives run over, and what it is rated to carry. */
typedef struct {
    const char *id;           /* links.def id, or "nic" for --nic-gbps (static); NULL: unknown */
    char name[32];            /* display name ("NVLink 4", "NIC 100 Gb/s"); "" when unknown */
    double rated_GBps;        /* per GPU, one direction, GB/s (GB = 1e9 B); valid when id */
} tc_group_link;

/* Sums over a process group's ranks among the inputs (or over the groups of one table row). */
typedef struct {
    int64_t comm_ns;             /* Σ ranks |∪ its comm kernels| */
    int64_t exposed_comm_ns;     /* Σ ranks |∪ its comm kernels − ∪ compute| */
    int64_t exposed_transfer_ns; /* Σ ranks |∪ its transfer tails − ∪ compute| */
    int64_t exposed_wait_ns;     /* Σ ranks |∪ its wait heads − ∪ compute − ∪ its transfer tails| */
    double bus_bytes;            /* Σ S × bus factor over its matched instances of ≥ 1 MiB, bytes */
    double bus_ns;               /* Σ those instances' transfer, ns */
} tc_group_sums;

/* A process group's (or a row's) figures beside its sums. */
typedef struct {
    tc_group_scope scope;
    tc_group_link link;       /* intra-node: the GPU's own link; inter-node: --fabric / --nic-gbps */
    bool split_known;         /* wait and transfer are split (two or more ranks in the job) */
    bool partial;             /* ranks of the group (of a group of the row) are missing from the inputs, or
                               * its size is unknown: exposed transfer an upper bound, wait and busbw
                               * lower bounds */
    tc_group_sums sums;
    bool has_busbw;
    double busbw_GBps;        /* bus_bytes / bus_ns (bytes/ns = GB/s); valid if has_busbw */
    bool has_share;
    double share_of_rated;    /* busbw / link.rated_GBps; valid if has_share */
} tc_group_figures;

/* One process group of the job, joined from every input's pg_config and collective arguments. */
typedef struct {
    char *name;               /* Process Group Name (owned) */
    char *desc;               /* pg_desc / Process Group Description; NULL when no input gives it (owned) */
    int64_t *ranks;           /* its global ranks, ascending (owned); NULL: unknown */
    size_t n_ranks;           /* entries of ranks */
    int64_t size;             /* ranks in the group; -1 unknown */
    int64_t ranks_present;    /* its ranks among the inputs (ranks unknown: the inputs naming it) */
    bool has_nodes;
    int64_t nodes;            /* distinct nodes of its ranks; valid if has_nodes */
    tc_group_figures f;
    size_t row;               /* its row in tc_job.group_rows; SIZE_MAX: none (no comm kernel) */
} tc_process_group;

/* One row of the group tables and of the verdict's fabric reason: the groups of one description,
 * scope and link folded (a group without a description is a row of its own). */
typedef struct {
    size_t first;             /* index into tc_job.groups of its first group (name order) */
    size_t groups;            /* groups folded into it */
    tc_group_figures f;       /* the sums of its groups; busbw from the summed bytes and time */
    double exposed_comm_share;     /* sums.exposed_comm_ns / the summed windows of all ranks */
    double exposed_transfer_share; /* sums.exposed_transfer_ns / the same; valid if f.split_known */
} tc_group_row;

/* One rank's share of a process group (summed into tc_process_group at finish). */
typedef struct {
    uint64_t group;           /* index into tc_job.groups */
    int64_t comm_ns, exposed_comm_ns, exposed_transfer_ns, exposed_wait_ns; /* as tc_group_sums, this rank */
} tc_rank_group;

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
    int64_t caused_wait_ns_per_step; /* caused_wait_ns / steps_total (the whole when no steps),
                                  * summed over the ranks that waited (GPU-ns) */
    int64_t caused_wait_per_rank_ns_per_step; /* caused_wait_ns_per_step / (ranks - 1): what each
                                  * other rank waits for it per step on average, ns; 0 with one rank */
    uint64_t unmatched_comm;      /* comm kernels that could not be matched */
    int64_t unmatched_exposed_ns; /* their exposed time, counted as transfer */
    uint64_t steps_total;         /* steps seen (for per-step figures) */
    int64_t node;                 /* index of its node, 0.. (analyzer/nodes.h: tc_job_nodes) */
    bool has_start_epoch;         /* the trace has absolute times (baseTimeNanoseconds, or epoch ts) */
    int64_t start_epoch_ns;       /* its first GPU event's start, ns since 1970-01-01 UTC */
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
    /* why the GPU waits (host_wait.c) */
    tc_idle_causes idle;          /* the rank's idle gaps by cause */
    tc_host_op host_ops[TC_HOST_OPS]; size_t n_host_ops; /* by time, most first */
    tc_idle_evidence evidence;
    tc_launch_stats launch;
    bool has_host_events;         /* the trace holds runtime calls (else every gap is unattributed) */
    tc_step_stats step_stats;     /* valid if n_steps */
    /* process groups (analyzer/groups.h) */
    tc_rank_group *groups;        /* the groups its comm kernels name, by group (owned) */
    size_t n_groups;
    int64_t inter_exposed_transfer_ns; /* |∪ transfer tails of its inter-node groups' kernels − ∪ compute| */
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
    size_t group;           /* index into tc_job.groups of its process group; SIZE_MAX none */
    bool has_share;
    double share_of_rated;  /* busbw / the rated figure of its group's link (groups.h); valid if has_share */
} tc_collective_result;

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

/* How the ranks were put on nodes (analyzer/nodes.h). */
typedef enum {
    TC_NODES_ASSUMED = 0, /* rank / 8: nothing said (the note) */
    TC_NODES_FLAG,        /* rank / --gpus-per-node */
    TC_NODES_HOSTS        /* the host of each input's tensorboard_trace_handler file name */
} tc_node_rule;

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
    bool partial;             /* the conclusions rest on partial data: basis_reasons say why */
    tc_basis_reason basis_reasons[TC_MAX_BASIS]; size_t n_basis_reasons;
    bool transfer_upper_bound;/* exposed transfer may be too high and exposed wait too low (one
                               * rank, ranks missing, unmatched collectives): transfer is an upper
                               * bound and wait a lower bound */
    /* filled by tc_collectives_match: process groups whose size exceeds their ranks among the inputs */
    size_t partial_groups;    /* how many */
    char *partial_group;      /* the first one's label (owned), NULL when none */
    int64_t partial_group_present, partial_group_size; /* its ranks among the inputs, its size */
    bool has_capture_time;    /* some rank has absolute times */
    int64_t capture_unix_s;   /* the earliest rank's first GPU event, s since 1970-01-01 UTC: when
                               * the trace was taken (the date catalog prices are aged against) */
    /* nodes (analyzer/nodes.h) */
    int64_t world_size;       /* GPUs of the job: max(ranks, the traces' distributedInfo.world_size) */
    tc_node_rule node_rule;   /* how ranks were put on nodes */
    int64_t gpus_per_node;    /* FLAG: --gpus-per-node; ASSUMED: 8; HOSTS: the most ranks on a host */
    int64_t nodes;            /* nodes of the whole job (world_size ranks) */
    bool nodes_assumed;       /* 8 GPUs per node were assumed for some ranks (the note) */
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
    bool has_inter_busbw;
    double inter_busbw_GBps;  /* Σ S × factor / Σ transfer over the inter-node groups' matched
                               * instances of ≥ 1 MiB; valid if has_inter_busbw */
    size_t groups_without_comm; /* process groups with no comm kernel in the inputs */
} tc_summary;

/* ---- findings (analyzer/findings.c): what the analysis concludes, as codes and the numbers
 * behind them; reports/findings_text.c is the one place that words them. */

/* Why the verdict is what it is: the verdict's own reason first, then (named verdicts) the speed-up,
 * every share, the rank that stands out, then the straggler when there is one. */
typedef enum {
    TC_REASON_NETWORK,        /* exposed comm reaches the threshold and is mostly transfer (or not split) */
    TC_REASON_STRAGGLER,      /* exposed comm reaches the threshold and is mostly wait */
    TC_REASON_HOST,           /* idle + exposed memory reaches the threshold and exceeds exposed comm */
    TC_REASON_COMPUTE,        /* neither loss class reaches the threshold */
    TC_REASON_SPEEDUP,        /* removing the verdict's loss: speedup; all exposed comm: speedup_class */
    TC_REASON_SHARES,         /* every share of GPU time */
    TC_REASON_WORST_RANK,     /* a rank's loss share (class) is over the job's by more than the threshold */
    TC_REASON_STRAGGLER_RANK, /* the straggler: how much of the waiting it causes */
    TC_REASON_HOST_CAUSE,     /* host-bound: the idle cause with the most time (host_wait.h) */
    TC_REASON_FABRIC          /* network-bound: the group row with the most exposed transfer, its
                               * scope and link, its bus bandwidth against the link's rated one */
} tc_reason_code;

#define TC_MAX_REASONS 8

/* The two loss classes of the verdict. */
typedef enum { TC_LOSS_COMM, TC_LOSS_HOST } tc_loss_class;

typedef struct {
    tc_reason_code code;
    double threshold;         /* the verdict threshold share */
    bool split_known;         /* wait and transfer are split (two or more ranks) */
    double compute, comm, transfer, wait, host, idle, memory; /* shares of the summed windows: comm =
                               * transfer + wait (transfer = comm, wait 0 when not split); host =
                               * idle + memory */
    double speedup;           /* SPEEDUP: 1 / (1 - the verdict's loss share): transfer (network),
                               * wait (straggler), exposed comm (network, one rank), host */
    bool has_speedup_class;   /* SPEEDUP: the verdict's loss is a part of exposed comm */
    double speedup_class;     /* SPEEDUP: 1 / (1 - exposed comm share) */
    tc_loss_class loss;       /* WORST_RANK: the class */
    double rank_share;        /* WORST_RANK: the rank's share of its own window */
    int64_t rank;             /* WORST_RANK: that rank; STRAGGLER_RANK: the straggler */
    double caused_wait_share, last_arrival_share; /* STRAGGLER_RANK (tc_straggler) */
    int64_t wait_ns_per_step; /* STRAGGLER_RANK: the others' wait for it per step, summed (GPU-ns) */
    size_t waiting_ranks;     /* STRAGGLER_RANK: the other ranks */
    int64_t wait_per_rank_ns_per_step; /* STRAGGLER_RANK: what each of them waits per step, ns */
    int cause;                /* HOST_CAUSE: the tc_idle_cause with the most time */
    double cause_share;       /* HOST_CAUSE: its share of the summed windows */
    const char *name;         /* HOST_CAUSE: the evidence behind it (the sync call, the DataLoader op,
                               * the memory call, the host op; a trace's string), NULL none */
    const char *where;        /* HOST_CAUSE, sync: the outermost CPU op around the call, NULL none */
    double after_sync_share;  /* HOST_CAUSE: the gaps that began in a sync call, as a share of the summed
                               * windows, when they are 10% of idle or more; else 0 */
    const char *drain_call, *drain_op; /* HOST_CAUSE with after_sync_share: the call they began in most
                               * and the outermost CPU op around it (NULL none) */
    size_t row;               /* FABRIC: index into tc_job.group_rows */
    double row_share;         /* FABRIC: its exposed transfer (exposed comm when not split) / windows */
    bool saturated;           /* FABRIC: busbw reaches TC_FABRIC_SATURATED_SHARE of the rated figure */
    bool above_rated;         /* FABRIC: busbw is over TC_FABRIC_ABOVE_RATED_SHARE of it */
} tc_reason;

/* What the verdict suggests doing: two or three for each named verdict (host-bound: one to three,
 * from the idle causes). */
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
    TC_ACTION_MEASURE_MFU,         /* compute, MFU unknown */
    /* host, from the idle causes (host_wait.h) in order of their time; FEED_GPUS (data_loading),
     * CUT_LAUNCHES (launch_overhead) and AVOID_SYNCS (sync) carry their evidence too */
    TC_ACTION_ALLOCATOR,           /* memory_management: the caching allocator, name = the call */
    TC_ACTION_WARM_UP,             /* module_load: lazy module loading on first launches */
    TC_ACTION_HOST_WORK,           /* cpu_other: host work between ops, name = where the host was */
    TC_ACTION_GPU_SIDE,            /* gpu_side: work queued but waiting on the GPU side */
    TC_ACTION_TRACE_LAUNCHES,      /* unattributed: launches the trace does not hold */
    TC_ACTION_OVERLAP_COPIES,      /* exposed memory copies */
    TC_ACTION_FABRIC_SATURATED,    /* network: the row's link is saturated: the fabric what-if (row) */
    TC_ACTION_FABRIC_TUNE          /* network: the row's link delivers less than it is rated: tune (row) */
} tc_action_code;

#define TC_MAX_ACTIONS 3

typedef struct {
    tc_action_code code;
    double value;             /* FABRIC_BUSBW: GB/s; MFU_GAP: the MFU share */
    int64_t rank;             /* straggler actions: the straggler */
    size_t input;             /* LOOK_AT_STRAGGLER: its trace, an index into tc_job.traces */
    int64_t compute_ns_per_step, median_compute_ns_per_step; /* STRAGGLER_MORE_WORK / _HOST_SIDE */
    /* host actions (from the idle causes): share 0 and name NULL give the generic advice */
    double share;             /* the share of the summed windows the action answers */
    const char *name;         /* AVOID_SYNCS: the sync call; FEED_GPUS: the DataLoader op; ALLOCATOR: the
                               * memory call; HOST_WORK: the host op (a trace's string), NULL none */
    const char *where;        /* AVOID_SYNCS: the outermost CPU op around the call, NULL none */
    double after_sync_share;  /* AVOID_SYNCS: the gaps that began in a sync call (share of the summed
                               * windows); name/where are then the call they began in most when this
                               * exceeds share */
    tc_launch_stats launch;   /* CUT_LAUNCHES: the job's launch figures, summed over ranks */
    size_t row;               /* FABRIC_*: index into tc_job.group_rows; SIZE_MAX none */
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
    /* The rank whose steps, host ops and launch figures the terminal and HTML show (index into
     * tc_job.ranks; n_ranks > 0): the representative step's rank, else the first with steps, else
     * the first. */
    size_t view_rank;
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
    int64_t gpus_per_node;    /* --gpus-per-node G: rank r is on node r / G (nodes.h); 0 = unset */
    const tc_link_spec *fabric; /* --fabric ID: the fabric between nodes (an inter-node link); NULL unset */
    double nic_gbps;          /* --nic-gbps X: each GPU's NIC line rate, Gb/s; 0 = unset */
} tc_analyze_options;

/* One profiler window of the inputs (tensorboard_trace_handler writes a file per rank per window:
 * cli/inputs.h groups them). */
typedef struct {
    size_t files;             /* inputs in the window */
    size_t ranks;             /* distinct ranks among them */
    bool has_steps;
    int64_t first_step, last_step; /* lowest and highest ProfilerStep#N of its inputs */
    bool has_start;
    int64_t start_ns;         /* its earliest GPU start, ns on the epoch clock (tc_trace_epoch_span) */
} tc_window_info;

typedef struct {
    tc_trace *traces; size_t n_traces;      /* by input order */
    tc_rank_result *ranks; size_t n_ranks;  /* sorted by rank */
    tc_collective_result *colls; size_t n_colls, cap_colls;
    tc_process_group *groups; size_t n_groups;        /* every process group seen, by name (groups.h) */
    tc_group_row *group_rows; size_t n_group_rows;    /* the groups folded for the tables (groups.h) */
    tc_summary summary;
    tc_findings findings;
    tc_kernel_row *top_kernels; size_t n_top_kernels; /* at most 20, by time (mfu.c) */
    tc_kernel_agg *kernel_aggs; size_t n_kernel_aggs; /* every GPU event name and kind, by summed time
                                                       * (kernel_aggs.h), for the HTML report */
    bool kernel_agg_names_borrowed; /* kernel_aggs' names point into the traces' string tables */
    char **warnings; size_t n_warnings, cap_warnings; /* job-level (matching, ...) */
    tc_window_info *windows; size_t n_windows; /* the inputs' profiler windows, oldest first; 0 when
                                                * they hold one (set by whoever loads the job) */
    size_t window;            /* the window this job is, 1-based; 0 when the inputs hold one */
    /* cost (issue 27): the cost model's result for this job, or why there is none; set by
     * analyzer/job_cost.h tc_job_price after the analysis, read by every report */
    tc_job_cost cost;
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
