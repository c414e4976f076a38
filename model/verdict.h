/* verdict.h: the findings (analyzer/findings.c decides them): the verdict and its name, the reasons
 * behind it, the actions it suggests, the network efficiency and what the HTML timeline draws, as
 * codes and the numbers behind them; reports/findings_text.c is the one place that words them. */
#ifndef TC_VERDICT_H
#define TC_VERDICT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "idle_causes.h"

/* TOO_SMALL: too little GPU work to judge (analyzer/findings.h TC_JUDGE_MIN_*): no loss class is named,
 * no speed-up, no money. */
typedef enum { TC_VERDICT_NONE, TC_VERDICT_COMPUTE, TC_VERDICT_NETWORK, TC_VERDICT_STRAGGLER, TC_VERDICT_HOST,
               TC_VERDICT_TOO_SMALL } tc_verdict;

/* NCCL's own account of the fabric reason's row (docs/nccl.md "The verdict's NCCL settings"; the
 * rules in analyzer/findings.c): what its Inspector records and plugin trace say, as evidence bits,
 * and the NCCL settings to try under TC_NCCL_TUNE_SHARE of the link's rating (none when saturated). */
typedef enum {
    TC_NCCL_EV_FEW_CHANNELS = 1u << 0,   /* the main mix has fewer than TC_NCCL_FEW_CHANNELS channels on
                                          * messages of TC_NCCL_LARGE_MESSAGE or more */
    TC_NCCL_EV_LL_LARGE = 1u << 1,       /* protocol LL (not LL128) on messages of TC_NCCL_LARGE_MESSAGE or more */
    TC_NCCL_EV_RING_MANY_NODES = 1u << 2,/* Ring all-reduce on an inter-node group of TC_NCCL_MANY_NODES nodes or more */
    TC_NCCL_EV_WAIT_IN_TIMER = 1u << 3,  /* NCCL's busbw under TC_NCCL_WAIT_RATIO of the trace's: NCCL's timer
                                          * holds waiting for late ranks, not only transfer */
    TC_NCCL_EV_TIMER_AGREES = 1u << 4,   /* NCCL's busbw within that ratio of the trace's: the transfer is slow */
    TC_NCCL_EV_PEER_WAIT = 1u << 5,      /* proxy steps wait on the peer for at least half their time: the
                                          * fabric or the far side more than NCCL's choices */
    TC_NCCL_EV_CHOICES_FIT = 1u << 6     /* inter-node, none of the above choices: more connections per peer */
} tc_nccl_ev;
#define TC_NCCL_EV_KINDS 7

/* The NCCL environment variables the verdict may suggest (docs/nccl.md lists their sources). */
typedef enum {
    TC_NCCL_SET_ALGO, TC_NCCL_SET_PROTO, TC_NCCL_SET_MIN_NCHANNELS, TC_NCCL_SET_NCHANNELS_PER_NET_PEER,
    TC_NCCL_SET_IB_QPS_PER_CONNECTION, TC_NCCL_SETTINGS
} tc_nccl_setting;

typedef struct {
    tc_nccl_setting setting;
    uint32_t because;         /* the tc_nccl_ev bit it answers */
    char value[16];           /* the value to try: "Tree", "Simple", "16", "4" */
} tc_nccl_try;

#define TC_NCCL_MAX_TRIES 5

typedef struct {
    bool has;                 /* the row's groups have NCCL records joined (Inspector or plugin) */
    bool has_mix;             /* plugin COLL records (else Inspector v4.2+ records naming their choice) were
                               * joined: the main mix below */
    char algorithm[16], protocol[16]; /* of the mix with the most records, as NCCL writes them */
    int32_t channels;         /* its channels, -1 unknown */
    int64_t mix_records;      /* its records, summed over the row's groups and ranks */
    int64_t plugin_records;   /* all joined plugin records of the row (those Inspector records without) */
    int64_t message_bytes;    /* the row's main message: S of the (collective, size) row with the most
                               * bytes moved (count x S); -1 unknown */
    int coll;                 /* tc_nccl_coll of that collective */
    int64_t nodes;            /* the most nodes of one of its groups, 0 unknown */
    bool has_busbw;
    double busbw_GBps;        /* NCCL's busbw over the row's joined Inspector records */
    bool has_trace_busbw;
    double trace_busbw_GBps;  /* the row's busbw from the trace */
    bool has_proxy;
    double proxy_gpu_wait_share, proxy_peer_wait_share, proxy_net_share; /* of the row's proxy time */
    bool tune;                /* the row is under TC_NCCL_TUNE_SHARE of its link's rating */
    bool saturated;           /* the link is saturated (tc_reason.saturated): no NCCL setting will help */
    uint32_t evidence;        /* tc_nccl_ev bits */
    tc_nccl_try tries[TC_NCCL_MAX_TRIES]; size_t n_tries; /* the settings to try, when tune */
} tc_nccl_evidence;

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
    TC_REASON_FABRIC,         /* network-bound: the group row with the most exposed transfer, its
                               * scope and link, its bus bandwidth against the link's rated one */
    TC_REASON_TOO_SMALL,      /* too-small: the GPU events and GPU time found, against what is needed */
    TC_REASON_A2A_IMBALANCE,  /* network- or straggler-bound with an all-to-all group whose imbalance
                               * causes at least half its ranks' all-to-all time (row: index into
                               * tc_job.a2a.groups; rank: its hot rank; caused_wait_share) */
    TC_REASON_CRITICAL_PATH,  /* what the critical path across ranks is made of (summary.critical_path),
                               * and the most a network that moves bytes instantly would save */
    TC_REASON_PP_BUBBLE       /* the pipeline bubble (tc_job.pipeline.bubble_share, in cause_share) is the
                               * largest loss: at least the threshold and more than either loss class */
} tc_reason_code;

#define TC_MAX_REASONS 10

/* The two loss classes of the verdict. */
typedef enum { TC_LOSS_COMM, TC_LOSS_HOST } tc_loss_class;

typedef struct {
    tc_reason_code code;
    bool on_steps;            /* the shares are of the step window (the job has steps), else of the GPU
                               * window: the text says "step time" or "GPU time" */
    double threshold;         /* the verdict threshold share */
    bool split_known;         /* wait and transfer are split (two or more ranks) */
    double compute, comm, transfer, wait, host, idle, memory; /* shares of the summed windows: comm =
                               * transfer + wait (transfer = comm, wait 0 when not split); memory =
                               * exposed host copies; host = idle + memory */
    double device_memory;     /* exposed device copies (D2D, peer, memset): GPU work, in no loss class */
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
    bool copy_holds;          /* HOST_CAUSE, sync: copy calls holding the host (1 ms or more) hold most
                               * of it; name and where are the copy call and the CPU op around it */
    size_t row;               /* FABRIC: index into tc_job.group_rows */
    double row_share;         /* FABRIC: its exposed transfer (exposed comm when not split) / windows */
    bool saturated;           /* FABRIC: busbw reaches TC_FABRIC_SATURATED_SHARE of the rated figure */
    bool above_rated;         /* FABRIC: busbw is over TC_FABRIC_ABOVE_RATED_SHARE of it */
    tc_nccl_evidence nccl;    /* FABRIC: NCCL's account of the row (has false without NCCL logs) */
    uint64_t gpu_events;      /* TOO_SMALL: GPU events over the job (tc_summary.b.gpu_events) */
    int64_t gpu_busy_ns;      /* TOO_SMALL: GPU time over the job: Σ ranks |∪ GPU activity| (window − idle) */
    uint64_t need_events;     /* TOO_SMALL: the GPU events a verdict needs (TC_JUDGE_MIN_EVENTS) */
    int64_t need_busy_ns;     /* TOO_SMALL: or the GPU time it needs (TC_JUDGE_MIN_BUSY_NS) */
    /* CRITICAL_PATH (rank: the rank holding most of the path's compute when cp_class is compute) */
    int cp_class;             /* the class (tc_cp_class) with the most path time */
    double cp_share;          /* compute: that rank's compute / the path; else the class's share of it */
    double cp_compute_share;  /* the path's compute over all ranks / the path */
    double cp_inter_share;    /* the path's inter-node transfer / the path */
    size_t cp_ranks;          /* ranks the path runs through */
    bool cp_bound;            /* partial data: transfer on the path an upper bound (transfer_upper_bound) */
    bool has_fabric_saving;   /* the instant reference was replayed (summary.replay.reference "instant") */
    double fabric_saving;     /* at most 1 − T_ref/T of the step: T the replayed step, T_ref the step with
                               * inter-node transfer taking no time (>= 0) */
} tc_reason;

/* What the verdict suggests doing: two or three for each named verdict (host-bound: one to three,
 * from the idle causes), the critical path's FIX_PATH_RANK first when it names a rank; too-small:
 * one, profile longer. */
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
    TC_ACTION_OVERLAP_COPIES,      /* exposed host copies */
    TC_ACTION_PIN_COPIES,          /* sync held by copy calls (1 ms or more): name = the call, where = its op */
    TC_ACTION_FABRIC_SATURATED,    /* network: the row's link is saturated: the fabric what-if (row) */
    TC_ACTION_FABRIC_TUNE,         /* network: the row's link delivers less than it is rated: tune (row) */
    TC_ACTION_PROFILE_LONGER,      /* too-small: profile more steps of the real workload */
    TC_ACTION_FIX_PATH_RANK,       /* the critical path is mostly one rank's compute, over the median rank's:
                                    * fix that rank (rank, share, compute figures, fabric saving); first
                                    * when its compute over the median's is at least the path's transfer */
    /* compute-bound, from the op evidence (tc_job.ops; docs/definitions.md "Actions from the ops"):
     * the op group that loses most against its roofline (op: its index in tc_job.ops.groups; share:
     * its GPU time / the compute time; value: its share of attainable; lost_ns), advice by family */
    TC_ACTION_FUSE_NORM,           /* a norm or softmax group: a fused norm / softmax kernel */
    TC_ACTION_GEMM_SHAPES,         /* a GEMM, batched GEMM or convolution group: larger or fused GEMMs,
                                    * better tile shapes */
    TC_ACTION_ATTENTION_KERNEL,    /* an attention group: a flash / fused attention kernel */
    TC_ACTION_FUSE_MEMORY_OPS,     /* an elementwise, reduction, copy, embedding or other group:
                                    * fuse it into its neighbours (torch.compile) */
    TC_ACTION_LAUNCH_BOUND_OPS,    /* launch-bound groups (op: the one with most GPU time; count: how many;
                                    * share: their GPU time / the compute time): CUDA graphs or fusion */
    TC_ACTION_FUSE_SEQUENCE        /* the fusion candidate with most time (op: its index in
                                    * tc_job.ops.fusions; share: its GPU time / the compute time) */
} tc_action_code;
#define TC_ACTION_CODES (TC_ACTION_FUSE_SEQUENCE + 1)

#define TC_MAX_ACTIONS 4       /* three from the verdict, and the critical path's first when it names a rank */

typedef struct {
    tc_action_code code;
    double value;             /* FABRIC_BUSBW: GB/s; MFU_GAP: the MFU share; FIX_PATH_RANK: the path's
                               * inter-node transfer share */
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
    bool first;               /* FIX_PATH_RANK: put before the verdict's own actions ("fix rank R first") */
    bool has_fabric_saving;   /* FIX_PATH_RANK: as tc_reason's */
    double fabric_saving;     /* FIX_PATH_RANK: as tc_reason's */
    bool cp_bound;            /* FIX_PATH_RANK: as tc_reason's (partial data: the saving is on partial data) */
    tc_nccl_evidence nccl;    /* FABRIC_TUNE / FABRIC_SATURATED: the fabric reason's NCCL evidence and the
                               * settings to try */
    size_t op;                /* the op actions: index into tc_job.ops.groups (FUSE_SEQUENCE: .fusions) */
    int64_t lost_ns;          /* the op actions but FUSE_SEQUENCE: the group's time lost against its roofline */
    size_t count;             /* LAUNCH_BOUND_OPS: the launch-bound groups */
} tc_action;

typedef struct {
    tc_reason reasons[TC_MAX_REASONS]; size_t n_reasons;
    tc_action actions[TC_MAX_ACTIONS]; size_t n_actions;
    bool on_steps;            /* the verdict, actions and efficiency judge the step window (the job
                               * has steps), else the GPU window (tc_summary.step) */
    double network_efficiency; /* e = 1 - exposed transfer share (exposed comm share with one rank),
                                * as in analyzer/cost.h */
    double effective_gpus;    /* ranks x e: the GPUs' worth of work done */
    /* The HTML timeline: the ranks it draws (indices into tc_job.ranks, ascending): the first rank,
     * the straggler, the rank that waited most, the last, then others in order, up to
     * the analysis options' timeline_ranks (analyzer/analyze_options.h). Only these ranks' GPU
     * events are read by the report. */
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

/* Frees what analyzer/findings.c allocated in f and zeroes it. */
void tc_findings_free(tc_findings *f);

const char *tc_verdict_name(tc_verdict v);
/* The verdict tc_verdict_name gives name; TC_VERDICT_NONE for NULL or any other text. */
tc_verdict tc_verdict_of_name(const char *name);
#endif
