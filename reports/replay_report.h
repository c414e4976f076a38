/* replay_report.h: the replay of the step graph and the critical path across ranks (model/replay.h,
 * computed by analyzer/replay.h) in the JSON, terminal and HTML reports (keys in
 * docs/json-schema.md, figures in docs/definitions.md "Replay" and "Critical path"), kept apart
 * from json_report.c, text_report.c and html_report.c so those stay small. Read-only on the job;
 * write errors show in the jw or ferror(out). */
#ifndef TC_REPLAY_REPORT_H
#define TC_REPLAY_REPORT_H
#include <stdio.h>
#include "model/job.h"
#include "jsonw.h"

/* Keys replay, critical_path and critical_path_steps inside summary. */
void tc_replay_json_summary(jw *w, const tc_job *j);

/* Key model inside process_groups[g]: the collective time model of its matching group
 * (tc_job.inst_groups[].model), null when it has none. */
void tc_replay_json_group_model(jw *w, const tc_job *j, size_t g);

/* Terminal: the section "What limits the step": the replay's identity, the path's shares, the
 * ranks it runs through, its top stretches, the reference step and what the graph could not
 * place; "not available" with the note when there is no replay. Lines fit `width` (80 or more). */
void tc_replay_text(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, const char *dim_on,
                    const char *dim_off, int width);

/* HTML: the section "What limits the step" (id="critical-path"). Every string from a trace goes
 * through tc_html_escape. */
void tc_replay_html(FILE *out, const tc_job *j);

/* The critical path of step `number` (summary.cp_steps), NULL when there is none. */
const tc_critical_path *tc_replay_step_path(const tc_summary *sm, int64_t number);
#endif
