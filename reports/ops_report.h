/* ops_report.h: where the compute time goes (tc_job.ops, issue 34) in the terminal report: the top
 * op groups against their roofline and the top modules (docs/definitions.md "Ops and the roofline").
 * Shown only when the job has op evidence (tc_job.ops.has). Read-only on the job. */
#ifndef TC_OPS_REPORT_H
#define TC_OPS_REPORT_H
#include <stdio.h>
#include "model/job.h"

/* The sections "Top op groups" and (with nn.Module evidence) "Top modules", each line within width
 * columns (at least 80 keeps every column). Nothing without tc_job.ops.has. */
void tc_ops_text(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, int width);
#endif
