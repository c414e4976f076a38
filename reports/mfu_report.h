/* mfu_report.h: the MFU parts of the JSON and terminal reports (keys and lines documented in
 * docs/mfu.md), kept apart from json_report.c/text_report.c so those stay small. Read-only on
 * the job; write errors show in the jw or ferror(out). */
#ifndef TC_MFU_REPORT_H
#define TC_MFU_REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "model/job.h"
#include "jsonw.h"

/* Keys flops_per_step, peak_tflops, flops_source, hardware_flops_utilization, gpu (catalog id)
 * inside a ranks[] object. */
void tc_mfu_json_rank(jw *w, const tc_rank_result *rr);
/* Key flops inside a steps[] object (null when unknown). */
void tc_mfu_json_step(jw *w, const tc_step_result *st);
/* The same keys as a rank plus mfu_note, inside the summary object. */
void tc_mfu_json_summary(jw *w, const tc_summary *sm);
/* Key top_kernels: [{name, time_us, count, share_of_compute, achieved_tflops}] at the top level. */
void tc_mfu_json_top_kernels(jw *w, const tc_job *j);

/* Terminal: the MFU line of the summary (and its note, wrapped); the top-kernels table (the first
 * 10 rows, names told apart by tc_term_name_cell). Both fit `width` columns (80 or more). */
void tc_mfu_text_summary(FILE *out, const tc_job *j, const char *dim_on, const char *dim_off, int width);
void tc_mfu_text_top_kernels(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, int width);
#endif
