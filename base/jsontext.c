/* jsontext.c: number and string text of tracecost's JSON (see jsontext.h). */
#include "jsontext.h"
#include "utf8.h"
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- "%.10g" without printf ------------------------------------------------------------------
 * A report holds hundreds of thousands of doubles (shares per step and class), and snprintf's
 * exact conversion cost a fifth of writing one. For 1e-5 <= |v| < 1e15, v scaled to ten digits,
 * s = |v| * 10^(9 - x) with 10^x <= |v| < 10^(x+1), is one long-double product or quotient of two
 * exact values (10^k is exact for k <= 27 with a 64-bit mantissa), so it is off by at most 2^-64
 * of itself, under 1e-9 as s < 1e10: the rounding of s to an integer is the rounding of the exact
 * value unless s's fraction lies within 1e-6 of one half. Then (and outside that range, and where
 * long double has no 64-bit mantissa) printf does it. The digits are then laid out as %g does:
 * the exponent of the rounded value picks fixed or exponential, trailing zeros go. The tests
 * compare this with snprintf on millions of values (tests/test_jsonw.c). */
#if LDBL_MANT_DIG >= 64 && TC_JSON_DOUBLE_DIGITS == 10
static const long double pow10l_table[15] = {1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L,
                                             1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L, 1e14L};

/* |v| scaled by 10^(9 - x): in [1e9, 1e10) when x is |v|'s decimal exponent. */
static long double scaled(double a, int x) {
    return x <= 9 ? (long double)a * pow10l_table[9 - x] : (long double)a / pow10l_table[x - 9];
}

/* The ten digits of |v| rounded, and its exponent x; false when printf must decide. */
static bool ten_digits(double a, uint64_t *digits, int *x) {
    if (!(a >= 1e-5 && a < 1e15)) return false;
    int e = 0;
    while (e < 14 && a >= (double)pow10l_table[e + 1]) e++;
    if (a < 1) {
        e = -1;
        while (e > -5 && (long double)a * pow10l_table[-e] < 1) e--;
    }
    long double s = scaled(a, e);
    if (s < 1e9L && e > -5) s = scaled(a, --e); /* the table's guess was one too high or low */
    else if (s >= 1e10L && e < 14) s = scaled(a, ++e);
    if (s < 1e9L || s >= 1e10L) return false;
    uint64_t whole = (uint64_t)s;
    long double frac = s - (long double)whole;
    if (frac > 0.5L - 1e-6L && frac < 0.5L + 1e-6L) return false; /* too near a tie to tell */
    whole += frac > 0.5L;
    if (whole == 10000000000ull) { whole = 1000000000ull; e++; }
    *digits = whole;
    *x = e;
    return true;
}

/* The text %.10g gives for v (|v| in the range above), into out (32 bytes). Its length, or 0. */
static size_t fast_text(char *out, double v) {
    uint64_t d;
    int x;
    if (!ten_digits(fabs(v), &d, &x)) return 0;
    char dig[10];
    for (int i = 9; i >= 0; i--) { dig[i] = (char)('0' + d % 10); d /= 10; }
    int last = 9; /* the last digit kept: trailing zeros go */
    while (last > 0 && dig[last] == '0') last--;
    char *o = out;
    if (v < 0) *o++ = '-';
    if (x < -4 || x >= 10) { /* exponential: d.ddde+XX */
        *o++ = dig[0];
        if (last > 0) { *o++ = '.'; memcpy(o, dig + 1, (size_t)last); o += last; }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        *o++ = (char)('0' + ax / 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) { /* dd.ddd */
        memcpy(o, dig, (size_t)x + 1);
        o += x + 1;
        if (last > x) { *o++ = '.'; memcpy(o, dig + x + 1, (size_t)(last - x)); o += last - x; }
    } else { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int z = 0; z < -x - 1; z++) *o++ = '0';
        memcpy(o, dig, (size_t)last + 1);
        o += last + 1;
    }
    *o = 0;
    return (size_t)(o - out);
}
#else
static size_t fast_text(char *out, double v) { (void)out; (void)v; return 0; }
#endif

size_t tc_json_double_text(char *buf, size_t n, double v) {
    if (v == 0) v = 0; /* no "-0" */
    char fast[32];
    size_t fl = v != 0 ? fast_text(fast, v) : 0;
    if (fl) {
        if (n == 0) return 0;
        if (fl >= n) fl = n - 1;
        memcpy(buf, fast, fl);
        buf[fl] = 0;
        return fl;
    }
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
