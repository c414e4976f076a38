/* findings.h: what the analysis concludes, decided once here from the job's results (no GPU event
 * is read): the straggler (tc_summary.straggler), the basis (complete or partial data, and why),
 * the verdict and its reasons (the process groups whose transfer shows most, against their link), the actions it suggests, the network efficiency, and what the HTML timeline draws (its ranks and the
 * representative step), all as codes and numbers in tc_job.findings (model/verdict.h). The reports
 * only word them (reports/findings_text.h) and draw them. */
#ifndef TC_FINDINGS_H
#define TC_FINDINGS_H
#include "analyze_options.h"
#include "model/job.h"

/* The straggler rule (decide_straggler; worded once by reports/findings_text.h): it caused at least
 * clamp(TC_STRAGGLER_SHARE_PER_RANKS / n, MIN, MAX) of all charged wait, and that wait, summed over
 * the other ranks, is at least 1 / TC_STRAGGLER_WAIT_PER_WINDOW of its window per step. */
#define TC_STRAGGLER_SHARE_PER_RANKS 2.0
#define TC_STRAGGLER_SHARE_MIN 0.5
#define TC_STRAGGLER_SHARE_MAX 0.75
#define TC_STRAGGLER_WAIT_PER_WINDOW 100 /* 1% */

/* The fabric reason (decide_fabric; docs/definitions.md "Verdict"): a row of process groups whose bus
 * bandwidth reaches this share of its link's rated figure is "saturated" (a faster link is what would
 * shorten its transfers); below it, NCCL and NIC settings come before buying. */
#define TC_FABRIC_SATURATED_SHARE 0.70
/* Above this share of the rated figure the link is faster than the catalog says (several NICs per GPU,
 * in-network reduction, another fabric than --fabric names): the reason says so. */
#define TC_FABRIC_ABOVE_RATED_SHARE 1.10

/* The rules that turn NCCL's evidence about the fabric reason's row into the settings to try
 * (tc_nccl_evidence, docs/nccl.md "The verdict's NCCL settings"): under TC_NCCL_TUNE_SHARE of the
 * link's rating; few channels below TC_NCCL_FEW_CHANNELS, LL on a large message (TC_NCCL_LARGE_MESSAGE
 * or more), Ring across TC_NCCL_MANY_NODES nodes or more, NCCL's busbw under TC_NCCL_WAIT_RATIO of the
 * trace's, proxy steps waiting on the peer TC_NCCL_PEER_WAIT_SHARE of their time. */
#define TC_NCCL_TUNE_SHARE 0.50
#define TC_NCCL_FEW_CHANNELS 8
#define TC_NCCL_LARGE_MESSAGE (4LL << 20)
#define TC_NCCL_MANY_NODES 4
#define TC_NCCL_WAIT_RATIO 0.80
#define TC_NCCL_PEER_WAIT_SHARE 0.50

/* Too little to judge (decide_too_small; docs/definitions.md "Too small to judge"): a job with fewer
 * than TC_JUDGE_MIN_EVENTS GPU events and less than TC_JUDGE_MIN_BUSY_NS of GPU time (Σ over ranks of
 * the time some GPU activity runs: window − idle) gets the verdict too-small: no loss class, no
 * speed-up, no money. Either figure reached is enough to judge. */
#define TC_JUDGE_MIN_EVENTS 100
#define TC_JUDGE_MIN_BUSY_NS 10000000 /* 10 ms */

/* Called by tc_job_finish after the job sums and shares, the ranks' per-step figures and the replay
 * (summary.replay and the critical paths: the critical-path reason and its action read them): fills
 * j->summary's straggler and verdict and j->findings (replacing what an earlier call left). 0, or
 * -1 out of memory. */
int tc_job_findings(tc_job *j, const tc_analyze_options *opt);
#endif
