/* pipeline_report.h: the pipeline view (model/pipeline.h, analyzer/pipeline.h) rendered: the JSON
 * key pipeline (docs/json-schema.md; absent when the job has no pipeline) and the text report's
 * Pipeline section. CSV and HTML are reports/csv_report.c's and the HTML report's. */
#ifndef TC_PIPELINE_REPORT_H
#define TC_PIPELINE_REPORT_H
#include <stdio.h>
#include "jsonw.h"
#include "model/job.h"

/* Key pipeline; nothing when j->pipeline.present is false. */
void tc_pipeline_json(jw *w, const tc_job *j);
/* The Pipeline section: a row per stage (summed over pipelines and steps), the slowest stage and
 * the counts of the pairing; bold/unbold/dim/undim are the colour codes ("" without colour).
 * Nothing without a pipeline. Every line fits width (80 at least). */
void tc_pipeline_text(FILE *out, const tc_job *j, const char *bold, const char *unbold, const char *dim,
                      const char *undim, int width);
#endif
