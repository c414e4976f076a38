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
/* The NCCL evidence of the verdict's fabric reason or action (tc_nccl_evidence): its codes as an
 * array under evidence_key, the settings to try as [{name, value, because}] under settings_key. */
void tc_nccl_json_evidence(jw *w, const char *evidence_key, const char *settings_key, const tc_nccl_evidence *e);
/* One line per process group with an Inspector communicator, and the job's counts, wrapped to
 * width, indented by 2; nothing without NCCL logs. */
void tc_nccl_text_lines(FILE *out, const tc_job *j, int width);
/* Key mix: the rows {algorithm, protocol, channels, records} of l's mixes with records
 * (mix_records per l->mixes entry), in the order they were first read. */
void tc_nccl_json_mix(jw *w, const tc_nccl_log *l, const int64_t *mix_records);
/* The same rows under another key ("inspector_mix"). */
void tc_nccl_json_mix_key(jw *w, const char *key, const tc_nccl_log *l, const int64_t *mix_records);
/* The mixes with records as text ("Ring/LL 2 channels 80, Tree/Simple 8 channels 40"), the first
 * after sep, appended to line (cap bytes) at n. Returns the new length (may be >= cap: cut). */
int tc_nccl_mix_text(char *line, size_t cap, int n, const char *sep, const tc_nccl_log *l, const int64_t *mix_records);
#endif
