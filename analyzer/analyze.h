/* analyze.h: the analysis of a loaded job in one call (analyze.c runs the phases of
 * analyze_phases.h in order) and its options (analyze_options.h). What cli/, fuzz/ and the tests
 * call; the analyses themselves include analyze_options.h. */
#ifndef TC_ANALYZE_H
#define TC_ANALYZE_H
#include "analyze_options.h"
#include "model/job.h"

/* Runs every analysis on the loaded traces (ranks must be assigned: traces[i].rank >= 0 and
 * unique). 0, or -1 out of memory. */
int tc_job_analyze(tc_job *j, const tc_analyze_options *opt);
#endif
