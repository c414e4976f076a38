/* host_wait_report.h: the idle causes, where the host was, the launch statistics and the per-step
 * view in the JSON, terminal and HTML reports (keys in docs/json-schema.md, figures in
 * docs/definitions.md), kept apart from json_report.c, text_report.c and html_report.c so those
 * stay small. Read-only on the job; write errors show in the jw or ferror(out). */
#ifndef TC_HOST_WAIT_REPORT_H
#define TC_HOST_WAIT_REPORT_H
#include <stdio.h>
#include "model/job.h"
#include "jsonw.h"

/* Keys idle_causes, idle_after_sync_us, step_window_us, step_idle_us and step_idle_causes inside a
 * steps[] object. */
void tc_host_wait_json_step(jw *w, const tc_step_result *st);
/* Keys idle_causes, idle_after_sync_us, idle_host_ops, launch_stats, step_time_min_us,
 * step_time_median_us, step_time_max_us and slowest_steps inside a ranks[] object. */
void tc_host_wait_json_rank(jw *w, const tc_rank_result *rr);
/* Keys idle_causes, idle_cause_shares, idle_after_sync_us and launch_stats inside summary. */
void tc_host_wait_json_summary(jw *w, const tc_summary *sm);

/* Key step_idle_causes (inside summary and ranks[]): the step window's idle by cause with
 * idle_after_sync_us, before_first_kernel_us and after_last_kernel_us; null when has is false. */
void tc_host_wait_json_step_causes(jw *w, bool has, const tc_idle_causes *k, int64_t before_ns, int64_t after_ns);

/* Terminal: the "Why the GPU waits" section (idle causes of the job, where the host was and the
 * launch figures of the step-view rank) and the "Steps" section (the compact per-step table,
 * folded when there are many steps, and the slowest steps). Lines fit `width` columns (80 or more). */
void tc_host_wait_text(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, const char *dim_on,
                       const char *dim_off, int width);

/* HTML: the section "Why the GPU waits, step by step" (id="steps"): the idle causes, where the
 * host was, the launch figures and the per-step stacked chart and table of the step-view rank.
 * Every string from a trace goes through tc_html_escape. */
void tc_host_wait_html(FILE *out, const tc_job *j);
#endif
