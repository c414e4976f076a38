/* nccl_report.h: what NCCL's Inspector logs added to the analysis (model/nccl.h, analyzer/
 * nccl_join.h), rendered: the JSON keys process_groups[].nccl and summary.nccl (docs/json-schema.md;
 * absent when no NCCL logs were read) and the text report's lines under the process-group table. */
#ifndef TC_NCCL_REPORT_H
#define TC_NCCL_REPORT_H
#include <stdio.h>
#include "jsonw.h"
#include "model/job.h"

/* Key nccl of process group pg (null when it has no Inspector communicator); nothing without NCCL logs. */
void tc_nccl_json_group(jw *w, const tc_job *j, size_t pg);
/* Key nccl of the summary; nothing without NCCL logs. */
void tc_nccl_json_summary(jw *w, const tc_job *j);
/* One line per process group with an Inspector communicator, and the job's counts, wrapped to
 * width, indented by 2; nothing without NCCL logs. */
void tc_nccl_text_lines(FILE *out, const tc_job *j, int width);
#endif
