/* cliopt.c: option scanning and suggestions (see cliopt.h). */
#include "cliopt.h"
#include <ctype.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void tc_opts_init(tc_opts *o, int argc, char **argv, int first) {
    memset(o, 0, sizeof *o);
    o->argc = argc;
    o->argv = argv;
    o->i = first;
}

static bool operands_only(const tc_opts *o) {
    for (int k = 0; k < o->i && k < o->argc; k++)
        if (strcmp(o->argv[k], "--") == 0) return true;
    return false;
}

int tc_opts_next(tc_opts *o, const char **operand) {
    if (o->i >= o->argc) return -1;
    const char *a = o->argv[o->i++];
    if (operands_only(o) && strcmp(a, "--") != 0) { *operand = a; return 0; }
    if (strcmp(a, "--") == 0) return tc_opts_next(o, operand);
    if (a[0] != '-' || strcmp(a, "-") == 0) { *operand = a; return 0; }
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (n >= sizeof o->buf) n = sizeof o->buf - 1;
    memcpy(o->buf, a, n);
    o->buf[n] = 0;
    o->name = o->buf;
    o->inline_value = eq ? eq + 1 : NULL;
    return 1;
}

const char *tc_opts_value(tc_opts *o) {
    if (o->inline_value) return o->inline_value;
    if (o->i >= o->argc) return NULL;
    return o->argv[o->i++];
}

/* Edit distance between a and b, ignoring case: insertions, deletions, substitutions and swaps
 * of two neighbours ("gpsu" is 1 from "gpus") each count 1. Strings over 63 bytes count as far. */
size_t tc_edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return SIZE_MAX / 2;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + (ai != bj) < best) best = d[i - 1][j - 1] + (ai != bj);
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *tc_closest_option(const char *name, const char *const *known) {
    const char *best = NULL;
    size_t best_d = 99;
    for (size_t i = 0; known[i]; i++) {
        size_t d = tc_edit_distance(name, known[i]);
        if (d < best_d) { best_d = d; best = known[i]; }
    }
    size_t len = strlen(name);
    size_t limit = len / 3 + 1;
    if (limit > 4) limit = 4;
    return best_d <= limit ? best : NULL;
}

bool tc_parse_double(const char *s, double *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v)) return false;
    *out = v;
    return true;
}

bool tc_parse_long(const char *s, long *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno) return false;
    *out = v;
    return true;
}
