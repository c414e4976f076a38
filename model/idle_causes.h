/* idle_causes.h: why the GPU waits on the host, as results (analyzer/host_wait.c computes them;
 * docs/definitions.md "Idle causes"): the causes of idle time, where the host was (host ops), the
 * evidence the host actions name, and the kernel launch statistics. tc_host_op and
 * tc_idle_evidence are declared from model/rank_result.def (they hold strings the MPI encoding
 * walks). */
#ifndef TC_IDLE_CAUSES_H
#define TC_IDLE_CAUSES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cause of each instant of an idle gap, in the order of the JSON keys. */
typedef enum {
    TC_IDLE_GPU_SIDE,          /* the work was handed over before the GPU ran dry */
    TC_IDLE_SYNC,              /* the launching thread was in a synchronizing call, or in a copy call
                                * that held the host (1 ms or more: a pageable copy) */
    TC_IDLE_DATA_LOADING,      /* ... in a CPU op or annotation whose name holds "DataLoader" */
    TC_IDLE_MEMORY_MANAGEMENT, /* ... in cudaMalloc, cudaFree and the like */
    TC_IDLE_MODULE_LOAD,       /* ... in a module call, or a kernel launch call of 1 ms or more (lazy
                                * module loading) */
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
    int64_t copy_held_ns;        /* the part of ns[TC_IDLE_SYNC] where the thread was in a copy call
                                  * that held the host (1 ms or more) and in no synchronizing call */
} tc_idle_causes;

#define TC_HOST_OPS 10           /* entries of tc_rank_result.host_ops */

/* tc_host_op and tc_idle_evidence: their fields and what each holds are in rank_result.def */
#define TC_RR_PART(type, fields) typedef struct { fields } type;
#include "rank_result_decl.h"
#include "rank_result.def"

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
    uint64_t graph_kpl_min;      /* kernels_per_graph_launch: the fewest kernels one graph launch ran */
    uint64_t graph_kpl_max;      /* the most; both valid if graph_launches */
    double graph_kpl_mean;       /* graph_kernels / graph_launches; valid if graph_launches */
} tc_launch_stats;
#endif
