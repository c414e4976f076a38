/* html_kit.h: the HTML toolkit every HTML writer of reports/ shares (html_report.c and its parts,
 * host_wait_report.c, compare_html.c): the one escaper for strings from a trace, the chart width, the page's frame (doctype, a Content-Security-Policy that lets only the page's own
 * script run, by nonce, and fetches nothing; the inline style sheet; that one generic script:
 * tooltips from data-tip attributes and table sorting), and the number and money forms of the
 * HTML report (times exact to the nanosecond for tooltips, rounded for reading). */
#ifndef TC_HTML_KIT_H
#define TC_HTML_KIT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Every chart is drawn twice, and each drawing scales to its container (a viewBox, width 100%) up
 * to its own width: TC_HTML_CHART_W wide (class "wide") for screens wider than TC_HTML_NARROW_MAX
 * px, and TC_HTML_NARROW_W wide (class "narrow", its id ending in "-narrow") for narrower ones,
 * laid out so its text stays readable (10 px or more on a 400 px screen) and inside the chart. The
 * style sheet (TC_HTML_CHART_CSS) shows one of them, and the wide one on paper. */
#define TC_HTML_CHART_W 940
#define TC_HTML_NARROW_W 400
#define TC_HTML_NARROW_MAX 720
#define TC_HTML_STR_(x) #x
#define TC_HTML_STR(x) TC_HTML_STR_(x)
#define TC_HTML_CHART_CSS                                                                                     \
    "svg.chart{display:block;width:100%;height:auto;max-width:" TC_HTML_STR(TC_HTML_CHART_W) "px}"           \
    "svg.chart.narrow{display:none;max-width:560px}"                                                        \
    "@media (max-width:" TC_HTML_STR(TC_HTML_NARROW_MAX) "px){svg.chart.wide{display:none}"                \
    "svg.chart.narrow{display:block}body{padding-left:12px;padding-right:12px}}"                            \
    "@media print{svg.chart.wide{display:block!important}svg.chart.narrow{display:none!important}}"
/* The width of a chart's drawing: TC_HTML_NARROW_W or TC_HTML_CHART_W. */
static inline int tc_html_chart_w(int narrow) { return narrow ? TC_HTML_NARROW_W : TC_HTML_CHART_W; }
/* Opens a chart's drawing: <svg id="ID" (or "ID-narrow") class="chart wide|narrow", its viewBox W x H
 * (W from tc_html_chart_w), width 100%, role img and the aria label (plain text, not escaped). */
void tc_html_svg_open(FILE *out, const char *id, int narrow, int H, const char *aria);

/* Writes s (len bytes) as HTML text or a double-quoted attribute value: & < > " ' are escaped,
 * invalid UTF-8 and control characters other than tab/newline become U+FFFD. When max_bytes > 0
 * and s is longer, it is cut at a character boundary and an ellipsis is added. The one escaper
 * used for every string that comes from a trace. */
void tc_html_escape(FILE *out, const char *s, size_t len, size_t max_bytes);

/* The page's frame. A page is tc_html_head_begin, its title's text (escaped), tc_html_head_end,
 * the body, tc_html_doc_end, all with one nonce from tc_html_nonce. */
/* A fresh 16-hex-digit nonce for the page's CSP in buf (n >= 17), seeded by the clock and `seed`
 * (any address of the caller's). */
void tc_html_nonce(const void *seed, char *buf, size_t n);
/* The doctype, the CSP allowing the script with this nonce, the meta tags, an open <title>. */
void tc_html_head_begin(FILE *out, const char *nonce);
/* Closes the title, writes the style sheet and opens the body with the tooltip box. */
void tc_html_head_end(FILE *out);
/* The page's one script (with nonce) and the end of the document. */
void tc_html_doc_end(FILE *out, const char *nonce);

/* Numbers. Each writes into buf (n bytes) and returns it. */
/* ns as exact milliseconds: "12.345678" (6 decimals = every nanosecond). */
const char *tc_html_ms_exact(char *buf, size_t n, int64_t ns);
/* ns as exact microseconds: "12.345" (3 decimals). */
const char *tc_html_us_exact(char *buf, size_t n, int64_t ns);
/* ns as milliseconds rounded for reading: 3 decimals below 10 ms, 2 below 100, else 1. */
const char *tc_html_ms_round(char *buf, size_t n, int64_t ns);
/* Dollars with thousands separators: "$1,234,567" (cents below $100; "n/a" from 1e15 on). */
const char *tc_html_money(char *buf, size_t n, double v);
/* A share (0.123) in the one form of text and HTML (tc_fmt_pct: "12.3%", "<0.1%" for a tiny
 * nonzero share) as HTML text ("&lt;0.1%"); tc_html_pct_num without the "%". Returns buf. */
const char *tc_html_pct(char *buf, size_t n, double share, int decimals);
const char *tc_html_pct_num(char *buf, size_t n, double share, int decimals);
#define TC_HTML_PCT1(b, share) tc_html_pct((b), sizeof(b), (share), 1)
/* tc_fmt_pct_pt as HTML text ("&lt;+0.1 pt"). Returns buf. */
const char *tc_html_pct_pt(char *buf, size_t n, double diff, int decimals);
/* A "nice" axis step (1, 2 or 5 x 10^k) giving about `ticks` divisions of range. */
double tc_html_nice_step(double range, int ticks);
#endif
