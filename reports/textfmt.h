/* textfmt.h: the reports' text formatters beyond the plain number, share and money forms of
 * base/numfmt.h (included here): a figure bounded to a width, significant decimals, attribute
 * numbers and display width (wrapping is reports/termtext.h). Pure functions; they write only into
 * the caller's buffer or FILE. */
#ifndef TC_TEXTFMT_H
#define TC_TEXTFMT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/numfmt.h"

/* |v| in tc_fmt_num's form between prefix ("$" or "") and unit (" ms" or ""), its sign first, in
 * at most `cols` columns: a figure too wide for them is written as a bound, ">$999,999" or
 * "<-999,999 ms", with the most nines that fit; never an exponent. Returns buf. */
const char *tc_fmt_num_fit(char *buf, size_t n, double v, int decimals, const char *prefix, const char *unit,
                           size_t cols);

/* The decimals (0..6) that give v about `sig` significant digits, for tc_fmt_num: a figure of any
 * magnitude in plain form (6.597e12 at 4 -> 0 decimals, "6,597,000,000,000"; 0.0123 -> 4). */
int tc_sig_decimals(double v, int sig); /* trailing zeros dropped, as %g: 0.9 at 4 -> 1 */

/* v with about 4 significant digits in tc_fmt_num's plain form, into the array b. Returns b. */
#define TC_SIG4(b, v) tc_fmt_num((b), sizeof(b), (v), tc_sig_decimals((v), 4))

/* A machine-read HTML attribute (data-v sort keys, exact data-tip values): `sig` significant
 * digits (9 for sort keys), no separators, plain decimal (never an exponent; 4.67e-05 -> "0.0000466666667"). Returns buf
 * (TC_ATTR_LEN bytes hold any finite v, in this form or tc_fmt_num's; clipped if shorter). Non-finite writes "0". */
#define TC_ATTR_LEN 448
const char *tc_fmt_attr(char *buf, size_t n, double v, int sig);

/* A time in s since 1970-01-01 UTC as "2026-05-01T12:00:00Z" (tc_utc_text) or "2026-05-01"
 * (tc_date_text). Returns buf. */
const char *tc_utc_text(char *buf, size_t n, int64_t unix_s);
const char *tc_date_text(char *buf, size_t n, int64_t unix_s);

/* A byte count for a narrow cell, in decimal units: "4 B", "26.2 MB" (kB, MB, GB, TB = 1e3, 1e6,
 * 1e9, 1e12 B; one decimal); "?" when bytes < 0 (unknown). At most 8 columns. Returns buf. */
const char *tc_fmt_bytes(char *buf, size_t n, int64_t bytes);

/* Display width of a UTF-8 string: the number of code points (all treated as one column). */
size_t tc_fmt_width(const char *s);

/* What every report says of DeepEP's all-to-all (issue 33; docs/definitions.md "All-to-all
 * imbalance"): its kernels are counted, but nothing in the trace sizes them. */
#define TC_DEEPEP_UNSIZED_NOTE                                                                              \
    "DeepEP's dispatch and combine kernels are all-to-all: counted, not sized (neither they nor their "   \
    "ops carry token counts or sizes)"
#endif
