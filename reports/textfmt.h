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
