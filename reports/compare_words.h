/* compare_words.h: private to the writers of `tracecost compare` (compare_report.c: the words, the
 * metric table, text and JSON; compare_html.c: the HTML page): what both share so that text, JSON
 * and HTML show the same rows and say the same words. Not for other reports. */
#ifndef TC_COMPARE_WORDS_H
#define TC_COMPARE_WORDS_H
#include <stdbool.h>
#include <stddef.h>
#include "analyzer/compare.h"

/* Sizes of the worded texts (a longer one is cut). */
#define DIFF_TEXT 240        /* one workload difference */
#define CONCLUSION_TEXT 1200 /* the conclusion paragraph */
#define REASON_TEXT 600      /* the reason clause inside it */
#define COST_NOTE_TEXT 600   /* why a side has no cost */

/* ---- the metric table: one row per figure, in text, JSON and HTML ---- */
typedef enum { F_MS, F_SHARE, F_GBPS, F_MONEY, F_RATE, F_NUM, F_TFLOPS } fmt_kind;

typedef struct {
    const char *key;     /* JSON key under "metrics" */
    const char *label;   /* text/HTML label */
    fmt_kind kind;
    size_t off;          /* offsetof the tc_cmp_pair in tc_comparison */
    const char *how;     /* how it is computed, for the HTML definitions */
} metric;
extern const metric tc_compare_metrics[];
extern const size_t tc_compare_n_metrics;

/* One metric's row as text: A, B, B - A and B / A. */
typedef struct { char a[48], b[48], diff[48], ratio[24]; } row_text;
/* Row i of the metric table as text; false when neither side has it (no row). */
bool tc_compare_format_row(const tc_comparison *c, size_t i, row_text *t);
/* B / A as "0.949x" (7 columns at most: "613.6x", "27100x", ">99,999x"), or "-". */
void tc_compare_fmt_ratio(char *buf, size_t n, const tc_cmp_pair *p);

/* ---- words ---- */
/* "slower", "faster", "only in A", ... */
const char *tc_compare_change_name(tc_cmp_change ch);
/* One workload difference in words (DIFF_TEXT bytes at most). Returns buf. */
const char *tc_compare_diff_text(char *buf, size_t n, const tc_comparison *c, const tc_cmp_diff *d);
/* The conclusion: which side is cheaper per unit of work, by how much and why, or why no side can
 * be named (CONCLUSION_TEXT bytes at most). Returns p. */
const char *tc_compare_conclusion_text(char *p, size_t n, const tc_comparison *c);
/* The workload warning's title line after "NOT THE SAME WORKLOAD:", agreeing with the conclusion. */
const char *tc_compare_mismatch_title(char *buf, size_t n, const tc_comparison *c);
/* Why side s has no cost, in words (COST_NOTE_TEXT bytes at most). Returns buf. */
const char *tc_compare_cost_note(char *buf, size_t n, const tc_cmp_cost *s);
/* "saved result" or "traces". */
const char *tc_compare_side_kind(const tc_run_summary *s);
/* The process group(s) of a collectives row: one side's, or "A's / B's" when matched across
 * different groups. */
void tc_compare_group_of(char *buf, size_t n, const tc_cmp_coll_row *r);
/* The monthly difference in words, the same in text and HTML. Returns buf. */
const char *tc_compare_monthly_text(char *buf, size_t n, const tc_comparison *c);
#endif
