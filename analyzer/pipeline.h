/* pipeline.h: point-to-point pairing and the pipeline bubble (issue 33 item 1; model/pipeline.h,
 * docs/definitions.md "Pipeline bubble"). tc_p2p_pair runs right after the collective matching
 * (collectives.h: it leaves P2P kernels with peer args to it, and measures the clock offsets this
 * uses); tc_pipeline once the per-rank phases are done. Pure: no printing, no option names. */
#ifndef TC_ANALYZER_PIPELINE_H
#define TC_ANALYZER_PIPELINE_H
#include <stdbool.h>
#include "model/job.h"

/* True when a kernel's collective args name a P2P peer ("Dst Rank" or "Src Rank"). */
bool tc_p2p_has_peer(const tc_coll_args *c);

/* Pairs every P2P kernel with peer args (a send on rank r to p with the recv on p from r, in the
 * same process group, of the same size, by order among those) into j->pipeline.transfers; each
 * paired kernel's wait head (rr->wait_ns, when the job has two ranks or more) is arrival − its own
 * start, the rest of it transfer. Kernels without a partner count in rr->unmatched_comm and in
 * j->pipeline.unpaired. 0, or -1 out of memory. */
int tc_p2p_pair(tc_job *j);

/* The stages (from the transfers' chain of ranks, or pp > 0 stages by rank order as Megatron-LM
 * lays them: stage = rank / (world / pp)) and per stage and step the figures of model/pipeline.h.
 * j->pipeline.present stays false without a pipeline. 0, or -1 out of memory. */
int tc_pipeline(tc_job *j, int pp);
#endif
