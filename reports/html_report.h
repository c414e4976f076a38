/* html_report.h: the HTML verdict report (issue 6): ONE self-contained file (inline CSS, inline SVG
 * charts, a little inline JS for tooltips and sortable tables, nothing fetched) with the verdict,
 * key numbers, per-rank breakdown, a representative step's timeline, collectives, straggler
 * evidence, top kernels, the cost section, definitions and the inputs with their warnings.
 * Reads the job only: the verdict's reasons, the network efficiency and the timeline's ranks and
 * step are the analyzer's (tc_findings, worded by findings_text.h); every string from a trace goes
 * through one HTML escaper. */
#ifndef TC_HTML_REPORT_H
#define TC_HTML_REPORT_H
#include <stddef.h>
#include <stdio.h>
#include "model/job.h"

/* Every chart's width in px: drawn at this size, so its text keeps its size; the page's body is
 * 1052 px at most, and a narrower screen scrolls a chart's section sideways. */
#define TC_HTML_CHART_W 940

/* Writes the report to out, its cost section from j->cost (none after --no-cost; the reason when
 * there is no result). Returns 0, or -1 on a write error or out of memory
 * (the file is then incomplete). Output size is bounded: timelines are downsampled (events
 * narrower than a pixel are merged), tables stay exact. It reads GPU events (gpu[], wait_ns) only
 * of the traces of the ranks the analyzer chose for the timeline (j->findings.timeline_ranks; the
 * kernels table reads j->kernel_aggs): the other traces may hold only their metadata and warnings. */
int tc_html_report_write(FILE *out, const tc_job *j);

/* Writes s (len bytes) as HTML text or a double-quoted attribute value: & < > " ' are escaped,
 * invalid UTF-8 and control characters other than tab/newline become U+FFFD. When max_bytes > 0
 * and s is longer, it is cut at a character boundary and an ellipsis is added. The one escaper
 * used for every string that comes from a trace. */
void tc_html_escape(FILE *out, const char *s, size_t len, size_t max_bytes);
#endif
