/* textfmt.h: small text formatters shared by the terminal reports: money with thousands
 * separators ("$4,672", "$3.33") and display width (wrapping is reports/termtext.h). Pure functions; they write
 * only into the caller's buffer or FILE. */
#ifndef TC_TEXTFMT_H
#define TC_TEXTFMT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes v dollars into buf (always NUL-terminated when n > 0) with `decimals` digits after the
 * point (0..6) and a comma every three digits: -1234.5 with 0 decimals -> "-$1,235". Non-finite
 * values write "-". Returns the length written (truncated to n - 1 if buf is short). */
size_t tc_fmt_money(char *buf, size_t n, double v, int decimals);

/* Writes a plain number with `decimals` digits and thousands separators: 4672 -> "4,672". */
size_t tc_fmt_grouped(char *buf, size_t n, double v, int decimals);

/* The one plain form of a figure for text and HTML: tc_fmt_grouped's thousands separators and
 * fixed decimals (0..6), never an exponent, and a nonzero value too small to show at those decimals
 * as "<0.01" (">-0.01" below zero) rather than "0.00". Non-finite values write "-". */
const char *tc_fmt_num(char *buf, size_t n, double v, int decimals); /* returns buf */

/* A share (a fraction, 0.123) as a percentage in tc_fmt_num's form with `decimals` decimals and
 * "%": "12.3%", and "<0.1%" for a nonzero share too small to show (never "0.0%" for time that was
 * there; 0 is "0.0%"). The one form of a share in text and HTML (CSV and JSON keep the fraction).
 * TC_PCT_LEN bytes hold any share up to 1e12. Returns buf. tc_fmt_pct_num: the same without "%"
 * (a cell under a "%" heading). */
#define TC_PCT_LEN 32
const char *tc_fmt_pct(char *buf, size_t n, double share, int decimals);
const char *tc_fmt_pct_num(char *buf, size_t n, double share, int decimals);
/* share as tc_fmt_pct with one decimal into the array b. Returns b. */
#define TC_PCT1(b, share) tc_fmt_pct((b), sizeof(b), (share), 1)
/* A difference of two shares (B - A, fractions) in percentage points, signed, in tc_fmt_pct_num's
 * form: "+1.2 pt", "-0.4 pt", "+0.0 pt" for none, "<+0.1 pt" / ">-0.1 pt" for a tiny one. Returns buf. */
const char *tc_fmt_pct_pt(char *buf, size_t n, double diff, int decimals);

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

/* Money of any magnitude for a comparison: tc_fmt_money ($4,672; $3.33) from $1 up, and 4
 * significant digits below ("$0.004321"), never an exponent. Returns buf. */
const char *tc_fmt_money_any(char *buf, size_t n, double v);

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
#endif
