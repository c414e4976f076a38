/* textfmt.c: money and number formatting with thousands separators, and word wrapping (see
 * textfmt.h). No locale is consulted: output is the same everywhere. */
#include "textfmt.h"
#include "base/util.h"
#include <math.h>
#include <stdbool.h>
#include <string.h>

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
    if (!isfinite(v)) { tc_put_clipped(buf, n, "0"); return buf; }
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
