/* critical_path.h: the critical path of every step across ranks (docs/definitions.md "Critical
 * path"), walked back through the replayed step graph (step_graph.h) by each node's binding
 * predecessor. */
#ifndef TC_CRITICAL_PATH_H
#define TC_CRITICAL_PATH_H
#include "base/pool.h"
#include "model/job.h"
#include "step_graph.h"

/* Fills j->summary.cp_steps (one per step slot), critical_path (their sum, number -1) and
 * has_critical_path from g re-timed unchanged (start, end: every node's times). The steps are
 * walked in one chunk per thread of pool (NULL: here, in order); the results are the same. 0, or -1
 * out of memory. */
int tc_critical_paths(tc_job *j, const tc_step_graph *g, const int64_t *start, const int64_t *end, tc_pool *pool);
#endif
