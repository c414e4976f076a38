/* jsontext.c: number and string text of tracecost's JSON (see jsontext.h). */
#include "jsontext.h"
#include "utf8.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tc_json_double_text(char *buf, size_t n, double v) {
    if (v == 0) v = 0; /* no "-0" */
    int w = snprintf(buf, n, "%.*g", TC_JSON_DOUBLE_DIGITS, v);
    if (w < 0) { if (n) buf[0] = '\0'; return 0; }
    return (size_t)w < n ? (size_t)w : n ? n - 1 : 0;
}

double tc_json_double_round(double v) {
    if (!isfinite(v)) return v;
    char buf[64];
    tc_json_double_text(buf, sizeof buf, v);
    return strtod(buf, NULL);
}

double tc_json_us_from_ns(int64_t ns) { return (double)ns / 1e3; }

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

char *tc_json_text_dup(const char *s) {
    if (!s) return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), out = 0;
    for (size_t i = 0; i < len;) { /* the length first: each bad byte grows by 2 */
        size_t k = p[i] < 0x80 ? 1 : tc_utf8_seq(p + i, len - i, NULL);
        out += k ? k : 3;
        i += k ? k : 1;
    }
    char *d = malloc(out + 1);
    if (!d) return NULL;
    char *q = d;
    for (size_t i = 0; i < len;) {
        size_t k = p[i] < 0x80 ? 1 : tc_utf8_seq(p + i, len - i, NULL);
        if (k) { memcpy(q, p + i, k); q += k; i += k; }
        else { memcpy(q, REPLACEMENT, 3); q += 3; i++; }
    }
    *q = '\0';
    return d;
}

size_t tc_json_us_text(char *buf, size_t n, int64_t ns) {
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char tmp[32], *end = tmp + sizeof tmp - 1;
    *end = 0;
    /* the fraction without its trailing zeros (none at all when whole), then the whole part */
    unsigned frac = (unsigned)(mag % 1000), digits = 3;
    while (digits > 0 && frac % 10 == 0) { frac /= 10; digits--; }
    for (unsigned i = 0; i < digits; i++) { *--end = (char)('0' + frac % 10); frac /= 10; }
    if (digits) *--end = '.';
    uint64_t whole = mag / 1000;
    do { *--end = (char)('0' + whole % 10); whole /= 10; } while (whole);
    if (ns < 0) *--end = '-';
    if (n == 0) return 0;
    size_t len = (size_t)(tmp + sizeof tmp - 1 - end);
    if (len >= n) len = n - 1;
    memcpy(buf, end, len);
    buf[len] = 0;
    return len;
}
