/* chrome_numbers.c: the Chrome-trace parser's numbers, read from their text (any number of digits,
 * never through a double): times in ns, counts, ids. */
#include "chrome_trace_int.h"
#include <string.h>

/* The leading digits of s[0, len) four at a time, into *m (which it multiplies on): how many it
 * read, a multiple of 4 (0 off little-endian machines). A byte below '0' borrows into its high
 * bit, one above '9' carries into it. */
static inline size_t four_digit_runs(const char *s, size_t len, uint64_t *m) {
    size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 4 <= len; i += 4) {
        uint32_t d;
        memcpy(&d, s + i, 4);
        d -= 0x30303030u;
        if (((d + 0x76767676u) | d) & 0x80808080u) break; /* some byte is no digit */
        d = d * 10 + (d >> 8); /* bytes 0 and 2: the first two digits' value and the last two's */
        *m = *m * 10000 + (d & 0xff) * 100 + (d >> 16 & 0xff);
    }
#else
    (void)s; (void)len; (void)m;
#endif
    return i;
}

/* The two shapes nearly every number of a Kineto trace has, read with no loop but the one above:
 * 1..15 digits ("14397", an id, a size) and, for scale 3, 1..15 digits, a '.' and three digits
 * ("7600.000", "416.667": Kineto writes times with three decimals). True with *out set, the value
 * parse_plain gives (at most 18 digits after scaling: nothing rounds or overflows); false, and
 * parse_plain decides. */
__attribute__((always_inline)) static inline bool parse_fixed(const char *s, size_t len, int scale, int64_t *out) {
    bool dot = scale == 3 && len >= 5 && s[len - 4] == '.';
    size_t n = dot ? len - 4 : len;
    if (n == 0 || n > 15 || (scale != 0 && !dot)) return false;
    uint64_t m = 0;
    size_t i = four_digit_runs(s, n, &m);
    for (; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9) return false;
        m = m * 10 + d;
    }
    if (dot) {
        unsigned a = (unsigned)(s[n + 1] - '0'), b = (unsigned)(s[n + 2] - '0'), c = (unsigned)(s[n + 3] - '0');
        if ((a > 9) | (b > 9) | (c > 9)) return false;
        m = m * 1000 + a * 100 + b * 10 + c;
    }
    *out = (int64_t)m;
    return true;
}

/* The common shape of a number in a trace, read at once: digits, then optionally a '.' and at most
 * `scale` digits ("7000.000", "416.667", "14397"), 18 digits at most after scaling, so nothing
 * rounds or overflows. True with *out set when s[0, len) has that shape; else the general reader
 * below decides (it gives the same value for these). It cost about a hundred instructions a number
 * through the general one; parse_fixed, before it, reads the commonest shapes in fewer still. */
static bool parse_plain(const char *s, size_t len, int scale, int64_t *out) {
    uint64_t m = 0;
    size_t i = four_digit_runs(s, len, &m);
    while (i < len && (unsigned)(s[i] - '0') < 10) m = m * 10 + (uint64_t)(s[i++] - '0');
    size_t digits = i;
    int frac = 0;
    if (i < len && s[i] == '.') {
        for (i++; i < len && frac < scale && (unsigned)(s[i] - '0') < 10; i++, frac++) m = m * 10 + (uint64_t)(s[i] - '0');
        digits += (size_t)frac;
    }
    if (i != len || digits == 0 || digits + (size_t)(scale - frac) > 18) return false;
    for (; frac < scale; frac++) m *= 10;
    *out = (int64_t)m;
    return true;
}

/* Parses decimal text (optional sign, digits, fraction, exponent) as value * 10^scale, rounded to
 * the nearest integer. Exact for any number of digits that matter; never goes through a double. */
num_state ct_parse_scaled(const char *s, size_t len, int scale, int64_t *out) {
    if (parse_fixed(s, len, scale, out)) return NUM_OK;
    if (scale >= 0 && len <= 18 && parse_plain(s, len, scale, out)) return NUM_OK;
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; i++; }
    uint64_t mant = 0;
    int exp10 = 0, round_digit = 0;
    bool any = false, dropped = false;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        any = true;
        if (mant <= (UINT64_MAX - 9) / 10) mant = mant * 10 + (uint64_t)(s[i] - '0');
        else exp10++; /* integer digit beyond 19 digits: magnitude only */
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            any = true;
            if (mant <= (UINT64_MAX - 9) / 10) { mant = mant * 10 + (uint64_t)(s[i] - '0'); exp10--; }
            else if (!dropped) { round_digit = s[i] - '0'; dropped = true; }
        }
    }
    if (!any) return NUM_NOT_NUMERIC;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+')) { eneg = s[i] == '-'; i++; }
        int e = 0;
        bool edig = false;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) { edig = true; if (e < 10000) e = e * 10 + (s[i] - '0'); }
        if (!edig) return NUM_NOT_NUMERIC;
        exp10 += eneg ? -e : e;
    }
    if (i != len) return NUM_NOT_NUMERIC;
    int total = exp10 + scale;
    if (mant == 0) { *out = 0; return NUM_OK; }
    if (total >= 0) {
        for (int k = 0; k < total; k++) {
            if (mant > (uint64_t)INT64_MAX / 10) return neg ? NUM_NEGATIVE : NUM_OVERFLOW;
            mant *= 10;
        }
    } else {
        if (total < -25) { mant = 0; round_digit = 0; }
        for (int k = 0; k < -total && mant > 0; k++) { round_digit = (int)(mant % 10); mant /= 10; }
        if (round_digit >= 5) mant++;
    }
    if (mant > (uint64_t)INT64_MAX) return neg ? NUM_NEGATIVE : NUM_OVERFLOW;
    if (neg && mant != 0) return NUM_NEGATIVE;
    *out = (int64_t)mant;
    return NUM_OK;
}

/* A signed time ("ts"): as ct_parse_scaled, and a leading '-' is kept: relative times before
 * baseTimeNanoseconds are negative (Chrome-trace allows it: a GPU event recorded just before the
 * profiler's base). Only a negative "dur" is unusable. */
num_state ct_parse_scaled_signed(const char *s, size_t len, int scale, int64_t *out) {
    bool neg = len > 0 && s[0] == '-';
    num_state st = ct_parse_scaled(neg ? s + 1 : s, neg ? len - 1 : len, scale, out);
    if (neg && st == NUM_NEGATIVE) return NUM_NOT_NUMERIC; /* "--5" */
    if (neg && st == NUM_OK) *out = -*out;
    return st;
}

/* Signed integer from text (fractions rounded); false when unusable. */
bool ct_parse_int(const char *s, size_t len, int64_t *out) {
    bool neg = len > 0 && s[0] == '-';
    int64_t v;
    if (!parse_fixed(neg ? s + 1 : s, neg ? len - 1 : len, 0, &v) &&
        ct_parse_scaled(neg ? s + 1 : s, neg ? len - 1 : len, 0, &v) != NUM_OK)
        return false;
    *out = neg ? -v : v;
    return true;
}

bool ct_parse_uint64(const char *s, size_t len, uint64_t *out) {
    uint64_t v = 0;
    int64_t fixed;
    if (len == 0) return false;
    if (parse_fixed(s, len, 0, &fixed)) { *out = (uint64_t)fixed; return true; } /* most: digits only */
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            if (s[i] == '.') break; /* "123.0" */
            return false;
        }
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}
