/* group_ranks.c: a process group's ranks text into rank numbers (see group_ranks.h). */
#include "group_ranks.h"
#include "base/util.h"
#include <stdlib.h>

bool tc_parse_group_ranks(const char *text, int64_t **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!text) return false;
    const char *p = text;
    while (*p == ' ') p++;
    if (*p++ != '[') return false;
    int64_t *v = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        while (*p == ' ') p++;
        if (*p == ']') { p++; break; }
        if (len) {
            if (*p != ',') goto bad;
            p++;
            while (*p == ' ') p++;
        }
        if (*p < '0' || *p > '9') goto bad; /* "...", a sign, anything else: not a list of ranks */
        int64_t x = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (x > (INT64_MAX - 9) / 10) goto bad;
            x = x * 10 + (*p - '0');
        }
        if (TC_PUSH(v, len, cap, x)) goto bad;
    }
    while (*p == ' ') p++;
    if (*p || !len) goto bad;
    tc_sort_i64(v, len);
    for (size_t i = 1; i < len; i++) if (v[i] == v[i - 1]) goto bad; /* a rank twice: not a group */
    *out = v;
    *n = len;
    return true;
bad:
    free(v);
    return false;
}
