/* job_cost.h: pricing a run and a job with the cost model (cost.h). One path for analyze and
 * compare: a job becomes a run summary (job_run.h), a saved result is one already
 * (parsers/result_json.h), and both are priced by tc_run_price from the same facts
 * (tc_cost_facts_from_run). tc_job_price stores the result (or why there is none) in the job
 * (tc_job.cost) for every report to read. Nothing here reads files, prints or exits. */
#ifndef TC_JOB_COST_H
#define TC_JOB_COST_H
#include <stdbool.h>
#include "cost.h"
#include "base/status.h"
#include "model/job.h"
#include "model/run_summary.h"

/* Runs the cost model for run s into r: the inputs `in` (flags and configs, already set), the
 * values a saved result carried (s->saved_cost, re-applied with rank "config" so the flags win),
 * the catalog entry of s->device, and the facts of s. Returns TC_OK with r filled; TC_ERR_INPUT
 * when the inputs are not a valid model (the model's reason in e, as cost.h words it); or
 * TC_ERR_USAGE when a carried value is refused ("saved cost input: why" in e). in is updated. */
tc_status tc_run_price(const tc_run_summary *s, tc_cost_inputs *in, tc_cost_result *r, tc_error *e);

/* Prices the analyzed job j into j->cost with a copy of in (the command's cost inputs; each job
 * gets its own copy). in NULL: --no-cost (j->cost.missing TC_COST_LEFT_OUT). When the inputs are
 * not a valid model: with flags_given (cost flags were given) returns TC_ERR_USAGE with the
 * model's reason in e (the command prints it and stops); else TC_OK with j->cost.missing
 * TC_COST_NO_MODEL and the reason in j->cost.why. TC_ERR_NOMEM out of memory. */
tc_status tc_job_price(tc_job *j, const tc_cost_inputs *in, bool flags_given, tc_error *e);
#endif
