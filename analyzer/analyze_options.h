/* analyze_options.h: what the user tells the analyses (tc_analyze_options: the verdict threshold,
 * threads, the GPU, FLOPs, the timeline's ranks, nodes and the fabric), read by the analyses that
 * need them; cli/ fills it from the flags. Apart from analyze.h (tc_job_analyze) so that the
 * analyses analyze.c runs can read the options without including it. */
#ifndef TC_ANALYZE_OPTIONS_H
#define TC_ANALYZE_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/link_catalog.h"

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
    bool kernel_table;        /* every GPU event name's row is wanted (tc_job.kernel_aggs, --csv's
                               * kernels.csv); false: left empty, as it costs memory per distinct name
                               * (docs/performance.md) */
    int pp;                   /* --pp N: pipeline stages by rank order (pipeline.h); 0 = from the P2P pattern */
    bool no_replay;           /* --no-replay: no step graph, replay or critical path (summary.replay's note says) */
} tc_analyze_options;
#endif
