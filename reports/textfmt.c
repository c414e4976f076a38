/* textfmt.c: money and number formatting with thousands separators, and word wrapping (see
 * textfmt.h). No locale is consulted: output is the same everywhere. */
#include "textfmt.h"
#include "base/util.h"
#include <math.h>
#include <stdbool.h>
#include <string.h>

/* Copies src into buf[0..n) and returns strlen(src) clipped to n - 1. */
static size_t put_clipped(char *buf, size_t n, const char *src) {
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
    if (!isfinite(v)) return put_clipped(buf, n, "-");
    char tmp[448];
    grouped_into(tmp, sizeof tmp, "$", v, decimals);
    return put_clipped(buf, n, tmp);
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
    if (!isfinite(v)) return put_clipped(buf, n, "-");
    char tmp[448];
    grouped_into(tmp, sizeof tmp, "", v, decimals);
    return put_clipped(buf, n, tmp);
}

const char *tc_fmt_num(char *buf, size_t n, double v, int decimals) {
    if (decimals < 0) decimals = 0;
    if (decimals > 6) decimals = 6;
    double least = pow(10.0, -decimals) / 2; /* the smallest magnitude that rounds away from 0 */
    if (isfinite(v) && v != 0 && fabs(v) < least) {
        char tmp[16];
        snprintf(tmp, sizeof tmp, "%s%.*f", v < 0 ? ">-" : "<", decimals, 2 * least);
        put_clipped(buf, n, tmp);
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
    char tmp[TC_ATTR_LEN];
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

const char *tc_fmt_num_fit(char *buf, size_t n, double v, int decimals, const char *prefix, const char *unit,
                           size_t cols) {
    char tmp[TC_ATTR_LEN];
    tc_fmt_num(tmp, sizeof tmp, fabs(v), decimals);
    snprintf(buf, n, "%s%s%s%s", v < 0 ? "-" : "", prefix, tmp, unit);
    if (tc_fmt_width(buf) <= cols) return buf;
    /* too wide: the bound 9, 99, ..., 999,999 with the most nines that fit */
    size_t fixed = 1 + (v < 0) + tc_fmt_width(prefix) + tc_fmt_width(unit);
    double bound = 9;
    for (double next = 99; next < 1e300; next = next * 10 + 9) {
        if (fixed + tc_fmt_grouped(tmp, sizeof tmp, next, 0) > cols) break;
        bound = next;
    }
    tc_fmt_grouped(tmp, sizeof tmp, bound, 0);
    snprintf(buf, n, "%s%s%s%s", v < 0 ? "<-" : ">", prefix, tmp, unit);
    return buf;
}

int tc_sig_decimals(double v, int sig) {
    if (!isfinite(v) || v == 0) return 0;
    int d = sig - 1 - (int)floor(log10(fabs(v)));
    d = d < 0 ? 0 : d > 6 ? 6 : d;
    /* as %g does, no trailing zeros: the fewest decimals that round to the same figure */
    while (d > 0 && fmod(round(fabs(v) * pow(10.0, d)), 10) == 0) d--;
    return d;
}

const char *tc_fmt_attr(char *buf, size_t n, double v, int sig) {
    if (!isfinite(v)) { put_clipped(buf, n, "0"); return buf; }
    snprintf(buf, n, "%.*g", sig, v);
    if (!strpbrk(buf, "eE")) return buf;
    int d = v == 0 ? 0 : sig - 1 - (int)floor(log10(fabs(v)));
    snprintf(buf, n, "%.*f", d < 0 ? 0 : d > 40 ? 40 : d, v);
    if (d > 0 && strchr(buf, '.')) { /* 0.0000123400 -> 0.00001234 */
        size_t len = strlen(buf);
        while (len > 0 && buf[len - 1] == '0') buf[--len] = '\0';
        if (len > 0 && buf[len - 1] == '.') buf[--len] = '\0';
    }
    return buf;
}

size_t tc_fmt_width(const char *s) {
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80) w++;
    return w;
}


/* Days and the second of the day of a time, floored (times before 1970 too). */
static int64_t split_day(int64_t unix_s, int64_t *sec) {
    int64_t days = unix_s / 86400, rem = unix_s % 86400;
    if (rem < 0) { rem += 86400; days--; }
    *sec = rem;
    return days;
}

const char *tc_utc_text(char *buf, size_t n, int64_t unix_s) {
    int64_t sec, y;
    int m, d;
    tc_civil_from_days(split_day(unix_s, &sec), &y, &m, &d);
    snprintf(buf, n, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)y, m, d, (int)(sec / 3600), (int)(sec / 60 % 60),
             (int)(sec % 60));
    return buf;
}

const char *tc_date_text(char *buf, size_t n, int64_t unix_s) {
    int64_t sec, y;
    int m, d;
    tc_civil_from_days(split_day(unix_s, &sec), &y, &m, &d);
    snprintf(buf, n, "%04lld-%02d-%02d", (long long)y, m, d);
    return buf;
}

const char *tc_fmt_bytes(char *buf, size_t n, int64_t bytes) {
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    if (bytes < 0) { snprintf(buf, n, "?"); return buf; }
    double v = (double)bytes;
    int u = 0;
    while (v >= 999.95 && u < 4) { v /= 1e3; u++; }
    if (u == 0) snprintf(buf, n, "%lld B", (long long)bytes); else snprintf(buf, n, "%.1f %s", v, units[u]);
    return buf;
}
