/* numfmt.h: the one plain form of numbers, shares and money in text and HTML, for every layer
 * (a warning's share is written as a report's is): thousands separators, fixed decimals, never an
 * exponent, "<0.1%" for a tiny share. Pure functions; they write only into the caller's buffer. */
#ifndef TC_NUMFMT_H
#define TC_NUMFMT_H
#include <stddef.h>

/* Copies src into buf[0..n) (NUL-terminated when n > 0); returns strlen(src) clipped to n - 1. */
size_t tc_put_clipped(char *buf, size_t n, const char *src);

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

/* Money of any magnitude for a comparison: tc_fmt_money ($4,672; $3.33) from $1 up, and 4
 * significant digits below ("$0.004321"), never an exponent. Returns buf. */
const char *tc_fmt_money_any(char *buf, size_t n, double v);
#endif
