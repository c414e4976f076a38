/* numfmt.c: the one plain form of numbers, shares and money in text and HTML (see numfmt.h):
 * thousands separators, fixed decimals, never an exponent, "<0.1%" for tiny shares. No locale is
 * consulted: output is the same everywhere. */
#include "numfmt.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Copies src into buf[0..n) and returns strlen(src) clipped to n - 1. */
size_t tc_put_clipped(char *buf, size_t n, const char *src) {
    if (n == 0) return 0;
    size_t len = strlen(src);
    if (len >= n) len = n - 1;
    memcpy(buf, src, len);
    buf[len] = '\0';
    return len;
}

/* Formats |v| with thousands separators into tmp; prefix goes first. Never an exponent: a finite
 * double has at most 309 integer digits, which digits[] holds. */
static size_t grouped_into(char *tmp, size_t tmplen, const char *prefix, double v, int decimals) {
    if (decimals < 0) decimals = 0;
    if (decimals > 6) decimals = 6;
    char digits[330];
    double mag = fabs(v);
    /* Round once, here, so "-0.004" at 2 decimals prints as "$0.00", not "-$0.00". */
    double scale = pow(10.0, decimals);
    double rounded = round(mag * scale) / scale;
    snprintf(digits, sizeof digits, "%.*f", decimals, rounded);
    const char *dot = strchr(digits, '.');
    size_t intlen = dot ? (size_t)(dot - digits) : strlen(digits);
    size_t o = 0;
    if (v < 0 && rounded > 0) tmp[o++] = '-';
    for (const char *p = prefix; *p && o + 1 < tmplen; p++) tmp[o++] = *p;
    for (size_t i = 0; i < intlen && o + 2 < tmplen; i++) {
        if (i > 0 && (intlen - i) % 3 == 0) tmp[o++] = ',';
        tmp[o++] = digits[i];
    }
    if (dot) for (const char *p = dot; *p && o + 1 < tmplen; p++) tmp[o++] = *p;
    tmp[o] = '\0';
    return o;
}

size_t tc_fmt_money(char *buf, size_t n, double v, int decimals) {
    if (!isfinite(v)) return tc_put_clipped(buf, n, "-");
    char tmp[448];
    grouped_into(tmp, sizeof tmp, "$", v, decimals);
    return tc_put_clipped(buf, n, tmp);
}

const char *tc_fmt_money_any(char *buf, size_t n, double v) {
    double m = fabs(v);
    if (m >= 1 || m == 0 || !isfinite(m)) tc_fmt_money(buf, n, v, m >= 100 ? 0 : 2);
    else {
        int dec = 3 - (int)floor(log10(m));
        snprintf(buf, n, "%s$%.*f", v < 0 ? "-" : "", dec > 12 ? 12 : dec, m);
    }
    return buf;
}

size_t tc_fmt_grouped(char *buf, size_t n, double v, int decimals) {
    if (!isfinite(v)) return tc_put_clipped(buf, n, "-");
    char tmp[448];
    grouped_into(tmp, sizeof tmp, "", v, decimals);
    return tc_put_clipped(buf, n, tmp);
}

const char *tc_fmt_num(char *buf, size_t n, double v, int decimals) {
    if (decimals < 0) decimals = 0;
    if (decimals > 6) decimals = 6;
    double least = pow(10.0, -decimals) / 2; /* the smallest magnitude that rounds away from 0 */
    if (isfinite(v) && v != 0 && fabs(v) < least) {
        char tmp[16];
        snprintf(tmp, sizeof tmp, "%s%.*f", v < 0 ? ">-" : "<", decimals, 2 * least);
        tc_put_clipped(buf, n, tmp);
        return buf;
    }
    tc_fmt_grouped(buf, n, v, decimals);
    return buf;
}

const char *tc_fmt_pct_num(char *buf, size_t n, double share, int decimals) {
    double v = 100 * share;
    if (decimals < 0) decimals = 0;
    if (decimals > 6) decimals = 6;
    /* rounded as printf rounds the double (as every share was before this form), separators from 1,000 */
    if (!isfinite(v) || fabs(v) >= 1000 || (v != 0 && fabs(v) < pow(10.0, -decimals) / 2))
        return tc_fmt_num(buf, n, v, decimals);
    snprintf(buf, n, "%.*f", decimals, v);
    return buf;
}

const char *tc_fmt_pct(char *buf, size_t n, double share, int decimals) {
    char tmp[448];
    snprintf(buf, n, "%s%%", tc_fmt_pct_num(tmp, sizeof tmp, share, decimals));
    return buf;
}

const char *tc_fmt_pct_pt(char *buf, size_t n, double diff, int decimals) {
    char f[TC_PCT_LEN];
    tc_fmt_pct_num(f, sizeof f, diff, decimals);
    const char *sign = f[0] == '<' ? "<+" : f[0] == '>' || f[0] == '-' ? "" : "+";
    snprintf(buf, n, "%s%s pt", sign, f + (f[0] == '<'));
    return buf;
}
