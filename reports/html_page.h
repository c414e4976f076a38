/* html_page.h: private to the HTML report's files (html_report.c: the page and its verdict, key
 * numbers and cost sections; html_tables.c; html_charts.c; html_timeline.c; nccl_html.c): the page being
 * written, its short writers, the categories a GPU window is split into, and each file's
 * sections and charts. Not for other reports: they use html_kit.h. */
#ifndef TC_HTML_PAGE_H
#define TC_HTML_PAGE_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "model/job.h"
#include "model/cost_result.h"
#include "html_kit.h"

/* The page being written: the job it reports (its cost section from j->cost), and whether memory
 * ran out (the page is then incomplete and tc_html_report_write fails). */
typedef struct {
    FILE *out;
    const tc_job *j;
    bool oom;
} hr;

static inline void put(hr *h, const char *s) { fputs(s, h->out); }

static inline void pf(hr *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline void pf(hr *h, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(h->out, fmt, ap);
    va_end(ap);
}

/* Escaped text of a NUL-terminated string (NULL writes nothing). */
static inline void esc(hr *h, const char *s) { if (s) tc_html_escape(h->out, s, strlen(s), 0); }
static inline void esc_max(hr *h, const char *s, size_t max) { if (s) tc_html_escape(h->out, s, strlen(s), max); }

static inline double share(int64_t a, int64_t b) { return b > 0 ? (double)a / (double)b : 0; }

/* What a GPU window is split into (the per-rank bars, the timeline). Okabe-Ito colours
 * (colour-blind safe); every use also carries a text label. */
enum { CAT_COMPUTE, CAT_TRANSFER, CAT_WAIT, CAT_COMM, CAT_MEMORY, CAT_IDLE, CAT_N };
extern const char *const tc_html_cat_class[CAT_N]; /* their CSS classes ("c-compute", ...) */

/* html_charts.c */
/* A legend: a swatch and labels[cats[i]] for each of the n categories, then `extra` (raw HTML list
 * items, or NULL). */
void tc_html_legend(hr *h, const int *cats, size_t n, const char *const *labels, const char *extra);
/* Vertical grid lines at 0, 25, ..., 100 % of a bar chart's plot width (left edge L, width PW),
 * labelled under the bars; the chart is H high and its bars start at `top`. */
void tc_html_percent_grid(hr *h, int L, double PW, int top, int H);
/* One stacked bar per rank split into the categories, with its note and legend above it. */
void tc_html_rank_bars(hr *h);
/* The section "Straggler evidence"; left out without two ranks and matched collectives. */
void tc_html_section_straggler(hr *h);
/* The cumulative cost of owning against renting, month by month, with the breakeven. */
void tc_html_cost_chart(hr *h, const tc_cost_result *c);

/* html_tables.c */
/* The per-rank table: numbers rounded for reading, each exact in its tooltip. */
void tc_html_rank_table(hr *h);
/* The sections "Process groups and their links", "Communication: collectives and bus bandwidth",
 * "Top compute kernels" (each left out when it has nothing to show) and "Inputs and warnings". */
void tc_html_section_groups(hr *h);
void tc_html_section_collectives(hr *h);
void tc_html_section_kernels(hr *h);
void tc_html_section_inputs(hr *h);

/* nccl_html.c */
/* The section "NCCL's own account" (process_groups[].nccl); left out without NCCL logs. */
void tc_html_section_nccl(hr *h);
/* html_parallel.c */
/* The section "All-to-all: bytes by rank pair" (a heatmap and the instances' imbalance per group);
 * left out without all-to-all instances. */
void tc_html_section_all_to_all(hr *h);
/* The section "Pipeline stages and bubbles" (a bar per stage, the stage table); left out without a
 * pipeline. */
void tc_html_section_pipeline(hr *h);

/* html_ops.c */
/* The section "Ops against the roofline": the roofline chart, the top op groups and the module
 * table (tc_job.ops); left out without op evidence. */
void tc_html_section_ops(hr *h);

/* html_timeline.c */
/* The section "Timeline of one representative step". */
void tc_html_section_timeline(hr *h);
#endif
