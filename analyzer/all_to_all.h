/* all_to_all.h: the all-to-all(v) imbalance (model/all_to_all.h, docs/definitions.md "All-to-all
 * imbalance") from the matched instances (analyzer/collectives.h runs first). */
#ifndef TC_ANALYZER_ALL_TO_ALL_H
#define TC_ANALYZER_ALL_TO_ALL_H
#include "model/job.h"

/* Fills j->a2a from j->instances. 0, or -1 out of memory. */
int tc_all_to_all(tc_job *j);
#endif
