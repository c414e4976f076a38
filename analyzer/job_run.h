/* job_run.h: a run's summary (model/run_summary.h) built from an analyzed job: what `compare`
 * compares and what the cost model's facts come from (analyzer/cost.h tc_cost_facts_from_run), so
 * a job priced by analyze and a run priced by compare go through the one mapping. Nothing here
 * reads files, prints or exits. */
#ifndef TC_JOB_RUN_H
#define TC_JOB_RUN_H
#include "base/status.h"
#include "model/job.h"
#include "model/run_summary.h"

/* How a run summary built from a job holds the summary's figures (shares, MFU, bus bandwidths). */
typedef enum {
    TC_RUN_AS_SAVED,  /* rounded as the JSON text holds them: a trace folder and its saved result
                         compare alike (compare) */
    TC_RUN_EXACT      /* as analyzed: analyze prices its job from these (its outputs are the
                         figures at full precision; they agree with a saved result's to the 10
                         digits the JSON prints, up to its last digit) */
} tc_run_precision;

/* Fills s from an analyzed job, holding what the job's saved `analyze --json` result would give
 * parsers/result_json.h (strings as valid UTF-8: base/jsontext.h; µs as the JSON's exact decimals;
 * the rows' numbers rounded as the JSON holds them; the summary's figures as p says). The world
 * size also takes the traces' distributedInfo. label is copied. Returns TC_OK, or TC_ERR_NOMEM
 * (message in e; s is then empty). */
tc_status tc_run_summary_from_job(tc_run_summary *s, const tc_job *j, const char *label, tc_run_precision p,
                                  tc_error *e);

/* A saved run re-noded by --gpus-per-node g (> 0): the node rule of nodes.h with the flag, rank / g,
 * over its world size. */
void tc_run_summary_set_gpus_per_node(tc_run_summary *s, int64_t g);
#endif
