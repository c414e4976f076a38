/* compare_report.h: the writers of `tracecost compare` (issue 12): terminal text, JSON
 * (tracecost-compare/1, keys in docs/compare.md) and a self-contained HTML page. They only read
 * the comparison (analyzer/compare.h) and word its codes: the workload differences, the
 * conclusion, the cost notes and the money figures are written here, the same words in all three.
 * Every string from a trace is escaped. */
#ifndef TC_COMPARE_REPORT_H
#define TC_COMPARE_REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "termtext.h"
#include "analyzer/compare.h"

#define TC_COMPARE_SCHEMA "tracecost-compare/1"

/* Side-by-side table, the collectives, cost per unit of work and the conclusion. A "NOT THE SAME
 * WORKLOAD" line comes first when the runs differ. Write errors show in ferror(out). */
void tc_compare_text_write(FILE *out, const tc_comparison *c, const tc_term_opts *o);
/* JSON document; returns 0, or -1 on a write error. */
int tc_compare_json_write(FILE *out, const tc_comparison *c);
/* HTML page (inline CSS, nothing fetched); returns 0, or -1 on a write error. */
int tc_compare_html_write(FILE *out, const tc_comparison *c);
#endif
