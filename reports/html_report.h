/* html_report.h: the HTML verdict report (issue 6): ONE self-contained file (inline CSS, inline SVG
 * charts, a little inline JS for tooltips and sortable tables, nothing fetched) with the verdict,
 * key numbers, per-rank breakdown, a representative step's timeline, collectives, straggler
 * evidence, top kernels, the cost section, definitions and the inputs with their warnings.
 * Reads the job only: the verdict's reasons, the network efficiency and the timeline's ranks and
 * step are the analyzer's (tc_findings, worded by findings_text.h); every string from a trace goes
 * through one HTML escaper (html_kit.h). Written by html_report.c with its parts html_tables.c,
 * html_charts.c and html_timeline.c (html_page.h). */
#ifndef TC_HTML_REPORT_H
#define TC_HTML_REPORT_H
#include <stddef.h>
#include <stdio.h>
#include "model/job.h"
#include "html_kit.h" /* tc_html_escape, the one escaper; TC_HTML_CHART_W */

/* Writes the report to out, its cost section from j->cost (none after --no-cost; the reason when
 * there is no result). Returns 0, or -1 on a write error or out of memory
 * (the file is then incomplete). Output size is bounded: timelines are downsampled (events
 * narrower than a pixel are merged), tables stay exact. It reads GPU events (gpu[], wait_ns) only
 * of the traces of the ranks the analyzer chose for the timeline (j->findings.timeline_ranks; the
 * kernels table reads j->kernel_aggs): the other traces may hold only their metadata and warnings. */
int tc_html_report_write(FILE *out, const tc_job *j);
#endif
