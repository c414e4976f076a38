/* json_report.h: writes an analyzed job as the documented tracecost/1 JSON (docs/json-schema.md).
 * Reads the job only. Keys are stable; unknown values are null; times are µs. */
#ifndef TC_JSON_REPORT_H
#define TC_JSON_REPORT_H
#include <stdio.h>
#include "model/job.h"

/* Writes the document, its last keys the job's cost (j->cost: "cost" and "cost_notes",
 * reports/cost_report.h tc_job_cost_json), its long arrays (ranks, steps, critical paths) on up to
 * `threads` threads (1: this one; the bytes are the same with any number); 0 ok, -1 write error. */
int tc_json_report_write(FILE *out, const tc_job *j, int threads);
#endif
