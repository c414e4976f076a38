/* jsontext.h: what tracecost's JSON text holds, for writers and for code that must hold the same
 * values without writing text. Owns the one format of a double in every JSON output
 * (TC_JSON_DOUBLE_DIGITS significant digits, "-0" written as 0: reports/jsonw.c prints with it)
 * and the values a reader gets back from that text, from a time written as exact decimal µs
 * (jw_ns_as_us) and from a string (invalid UTF-8 bytes written as U+FFFD). `tracecost compare`
 * builds a run from an analyzed job with these, so it equals the same run read back from its saved
 * `analyze --json` result, number for number and byte for byte. */
#ifndef TC_JSONTEXT_H
#define TC_JSONTEXT_H
#include <stddef.h>
#include <stdint.h>

#define TC_JSON_DOUBLE_DIGITS 10 /* significant digits of a double in JSON output ("%.10g") */

/* Writes finite v as JSON number text ("%.10g"; -0 as "0") into buf (n > 0: always
 * NUL-terminated). Returns the length written. Non-finite values have no JSON text: writers write
 * null instead (the caller checks). */
size_t tc_json_double_text(char *buf, size_t n, double v);

/* The double a reader (strtod) gets back from tc_json_double_text(v): v rounded to
 * TC_JSON_DOUBLE_DIGITS significant digits, -0 as 0. Non-finite v comes back unchanged. */
double tc_json_double_round(double v);

/* Writes ns as exact decimal µs ("1234.5" for 1234500 ns, "12" for 12000 ns: the fraction
 * without trailing zeros) into buf (n >= 24 holds every value; always NUL-terminated when n > 0):
 * the text of every time in the JSON (jw_ns_as_us) and CSV outputs. Returns the length written. */
size_t tc_json_us_text(char *buf, size_t n, int64_t ns);

/* The double a reader gets back from a time written with jw_ns_as_us (exact decimal µs): the
 * nearest double to ns / 1000, which is (double)ns / 1e3 for |ns| < 2^53 (both are correctly
 * rounded: the quotient of two exact doubles, and strtod of an exact decimal). */
double tc_json_us_from_ns(int64_t ns);

/* A malloc'd copy of s as a tracecost JSON reader gets it back: every byte that does not start a
 * valid UTF-8 sequence (base/utf8.h) becomes U+FFFD, as the JSON writer escapes it. NULL in ->
 * NULL out; NULL also when out of memory (s != NULL). */
char *tc_json_text_dup(const char *s);
#endif
