/* mfu.h: model FLOPs utilization from the trace alone: FLOPs of the shaped GEMM/convolution/
 * attention ops (flops.h) or the user's figure, peaks from the GPU catalog per op dtype, per step,
 * per rank and for the job; hardware FLOPs utilization over the window; the top-kernels table.
 * Definitions in docs/mfu.md. Fills tc_rank_result/tc_step_result/tc_summary MFU fields and
 * tc_job.top_kernels; prints nothing. */
#ifndef TC_MFU_H
#define TC_MFU_H
#include "analyze_options.h"
#include "model/job.h"

#define TC_TOP_KERNELS 20

/* Per rank, after its breakdowns and steps (analyze_phases.h types): the rank's MFU fields and
 * facts f (zeroed by the caller). An unknown opt->gpu leaves MFU null with a note (commands
 * validate --gpu before). 0, or -1 out of memory. */
#include "analyze_phases.h"
int tc_mfu_rank(tc_job *j, tc_rank_result *rr, const tc_analyze_options *opt, double user_flops, tc_mfu_rank_facts *f);
/* A trace's top-kernel partial rows (after tc_mfu_rank on its rank); p zeroed by the caller. The
 * names are borrowed from t's string table (p->borrowed): t must outlive p. keep > 0 (at most
 * TC_TOP_KERNELS): only the keep longest rows, for a trace that is its job's only one. */
int tc_kernel_parts_trace(tc_trace *t, size_t keep, tc_kernel_parts *p);
void tc_kernel_parts_free(tc_kernel_parts *p);
/* Job MFU means, the note and the top-kernels table from every rank's x (indexed by rank index). */
int tc_mfu_finish(tc_job *j, const tc_analyze_options *opt, double user_flops, const tc_rank_extra *x);

/* FLOPs per GPU per step the user's options give: model_flops_per_step, else
 * 6 · params · tokens_per_step / world_size (world_size >= 1); 0 when neither is set. */
double tc_mfu_user_flops(const tc_analyze_options *opt, int64_t world_size);
#endif
