/* pipeline.h: the pipeline-parallel view of a job (issue 33 item 1) as results: the point-to-point
 * transfers paired send to recv across ranks, the pipeline stages found from their pattern (or
 * --pp N), and per stage and step its forward and backward compute, P2P wait and transfer and the
 * bubble, with the wait charged to the stage that arrived later. analyzer/pipeline.h fills it;
 * owned by tc_job (tc_pipeline_free); reports only read it. Times are ns. Definitions:
 * docs/definitions.md "Pipeline bubble". */
#ifndef TC_PIPELINE_H
#define TC_PIPELINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One stage's figures over one step window, or summed over its steps. window_ns: the pipeline
 * step window (first GPU start to last GPU end of that step over all stages of the pipeline);
 * bubble_ns = window_ns − forward_ns − backward_ns − p2p_transfer_ns (idle plus P2P wait). */
typedef struct {
    int64_t step;            /* ProfilerStep number; -1 for the sum over steps, or no steps */
    int64_t window_ns;
    int64_t forward_ns;      /* compute kernels not launched under a ...Backward... autograd op */
    int64_t backward_ns;     /* compute kernels launched under autograd::engine::evaluate_function: ...Backward... */
    int64_t bubble_ns;
    int64_t p2p_wait_ns;     /* Σ over its P2P kernels of arrival − own start */
    int64_t p2p_transfer_ns; /* Σ over its P2P kernels of end − arrival */
    int64_t charged_wait_ns; /* the P2P wait of its peers charged to this stage (it arrived later) */
} tc_pp_figures;

/* One stage of one pipeline: one rank. */
typedef struct {
    uint32_t pipeline;       /* which pipeline (0.. n_pipelines−1; data-parallel replicas each have one) */
    uint32_t stage;          /* 0 = first stage */
    int64_t rank;
    tc_pp_figures total;     /* summed over its steps (step = −1) */
    size_t steps_first, n_steps; /* its per-step figures: tc_pipeline_result.steps[first, first + n) */
} tc_pp_stage;

/* One point-to-point transfer: a send kernel paired with its recv kernel on the peer (by process
 * group, Dst Rank / Src Rank, size and order within the pair). Times on the aligned clock (base +
 * trace ns − the rank's clock offset). */
typedef struct {
    uint32_t send_rank, send_event; /* the sender: index into tc_job.ranks, its GPU event */
    uint32_t recv_rank, recv_event; /* the receiver */
    int64_t arrival_ns;             /* the later start of the two kernels, aligned ns */
} tc_pp_transfer;

/* How the stages were found. */
typedef enum { TC_PP_NONE = 0, TC_PP_FROM_PATTERN, TC_PP_FROM_OPTION } tc_pp_source;

typedef struct {
    bool present;            /* the job has paired P2P transfers forming a pipeline (or --pp N) */
    tc_pp_source source;
    uint32_t n_stages;       /* stages per pipeline */
    uint32_t n_pipelines;
    tc_pp_stage *stages; size_t n_stages_rows, cap_stages; /* by pipeline, then stage */
    tc_pp_figures *steps; size_t n_steps, cap_steps;
    int64_t slowest_stage;   /* the stage charged most P2P wait (summed over pipelines); −1 none */
    int64_t slowest_rank;    /* its rank in the pipeline charged most; −1 none */
    int64_t pairs;           /* P2P transfers paired send to recv */
    int64_t unpaired;        /* P2P kernels with peer args and no partner among the inputs */
    int64_t no_peer_args;    /* P2P kernels without peer args (kept in the cross-rank matching) */
    double bubble_share;     /* Σ bubble / Σ window over every stage and step; 0 when no window */
    /* added with the analysis (analyzer/pipeline.h) */
    tc_pp_transfer *transfers; size_t n_transfers, cap_transfers; /* every paired transfer (pairs of them),
                             * kept also when no pipeline is found (present false) */
    int64_t p2p_wait_ns;     /* Σ over every stage and step of p2p_wait_ns */
    int64_t bubble_ns, window_ns; /* Σ over every stage and step of bubble_ns and window_ns */
} tc_pipeline_result;

void tc_pipeline_free(tc_pipeline_result *p);
#endif
