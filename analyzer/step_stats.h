/* step_stats.h: the step times of a rank (docs/definitions.md "Steps"): min, median and max, and
 * its slowest steps with the class of time that grew (compute, exposed comm, memory, idle and its
 * cause, or time outside the step's GPU window). Reads the rank's step results only. */
#ifndef TC_STEP_STATS_H
#define TC_STEP_STATS_H
#include "model/job.h"

/* Fills rr->step_stats from rr->steps (their breakdowns and idle causes computed); zero when the
 * rank has no steps. 0, or -1 out of memory. */
int tc_step_stats_rank(tc_rank_result *rr);
#endif
