/* opts.c: the option scanner, the one "did you mean" rule and the --help printer, all driven by
 * the tables of opt_tables.c (see opts.h). */
#include "opts.h"
#include "diag.h"
#include "exitcodes.h"
#include "model/comm_kernels.h"
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool long_matches(const tc_opt *r, const char *word) {
    if (!r->name) return false;
    return (r->flags & TC_OPT_ANYCASE) ? strcasecmp(r->name, word) == 0 : strcmp(r->name, word) == 0;
}

const tc_opt *tc_opts_find(const tc_opt_table *t, const char *word) {
    for (size_t i = 0; i < t->n_rows; i++) {
        const tc_opt *r = &t->rows[i];
        if (long_matches(r, word) || (r->short_name && strcmp(r->short_name, word) == 0)) return r;
    }
    return NULL;
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

const char *tc_opts_suggest(const tc_opt_table *t, const char *word) {
    char w[64];
    size_t wlen = strcspn(word, "=");
    if (wlen == 0 || wlen >= sizeof w) return NULL;
    memcpy(w, word, wlen);
    w[wlen] = '\0';
    size_t bare = strlen(w + strspn(w, "-")); /* without leading dashes */
    const char *prefix_of = NULL, *best = NULL;
    size_t n_prefix = 0, best_d = SIZE_MAX;
    for (size_t i = 0; i < t->n_rows; i++) {
        const char *names[2] = {t->rows[i].name, t->rows[i].short_name};
        for (size_t k = 0; k < 2; k++) {
            if (!names[k]) continue;
            if (bare >= 2 && strncasecmp(names[k], w, wlen) == 0) { prefix_of = names[k]; n_prefix++; }
            size_t d = tc_edit_distance(w, names[k]);
            if (d < best_d) { best_d = d; best = names[k]; }
        }
    }
    if (n_prefix == 1) return prefix_of; /* "an" -> analyze, "--price" -> --price-per-gpu-hour */
    size_t limit = bare / 3 + 1;
    if (limit > 4) limit = 4;
    return best_d <= limit ? best : NULL;
}

void tc_opts_init(tc_opts *o, const tc_opt_table *t, int argc, char **argv, int first) {
    memset(o, 0, sizeof *o);
    o->t = t;
    o->argc = argc;
    o->argv = argv;
    o->i = first;
}

/* The value of o->opt: inline (already in o->value), else the next argument, else NULL. */
static void take_value(tc_opts *o) {
    if (!o->value && o->i < o->argc) o->value = o->argv[o->i++];
}

tc_opts_kind tc_opts_next(tc_opts *o) {
    o->opt = NULL;
    o->word = o->value = o->operand = NULL;
    if (o->i >= o->argc) return TC_OPTS_END;
    const char *a = o->argv[o->i++];
    if (!o->operands_only && strcmp(a, "--") == 0) {
        o->operands_only = true;
        return tc_opts_next(o);
    }
    if (o->operands_only || a[0] != '-' || a[1] == '\0') {
        o->operand = a;
        return TC_OPTS_OPERAND;
    }
    bool is_long = a[1] == '-';
    size_t n = is_long ? strcspn(a, "=") : 2;           /* "-j4": the name is "-j" */
    const char *rest = is_long ? (a[n] ? a + n + 1 : NULL) : (a[2] ? a + 2 : NULL);
    if (n >= sizeof o->buf) n = sizeof o->buf - 1;
    memcpy(o->buf, a, n);
    o->buf[n] = '\0';
    o->word = o->buf;
    o->opt = tc_opts_find(o->t, o->buf);
    if (!o->opt || (!is_long && rest && !o->opt->arg)) { /* "-qx": not a known short option */
        o->opt = NULL;
        snprintf(o->buf, sizeof o->buf, "%s", a);
        if (is_long) o->buf[strcspn(o->buf, "=")] = '\0';
        return TC_OPTS_UNKNOWN;
    }
    o->value = rest;
    if (!o->opt->arg) return rest ? TC_OPTS_NO_VALUE : TC_OPTS_OPTION;
    take_value(o);
    return TC_OPTS_OPTION;
}

int tc_opts_error(const tc_opt_table *t, const char *fmt, ...) {
    const char *cmd = t->command ? t->command : "";
    fprintf(stderr, "tracecost%s%s: ", *cmd ? " " : "", cmd);
    va_list ap;
    va_start(ap, fmt);
    tc_vdiag(stderr, fmt, ap); /* the values come from argv */
    va_end(ap);
    fprintf(stderr, "\nTry 'tracecost%s%s --help'.\n", *cmd ? " " : "", cmd);
    return TC_EXIT_USAGE;
}

int tc_opts_fail(const tc_opts *o) {
    if (o->opt) return tc_opts_error(o->t, "%s takes no value", o->word);
    const char *close = tc_opts_suggest(o->t, o->word);
    if (close) return tc_opts_error(o->t, "unknown option '%s' (did you mean %s?)", o->word, close);
    return tc_opts_error(o->t, "unknown option '%s'", o->word);
}

void tc_opt_label(const tc_opt *r, char *buf, size_t len) {
    bool inline_arg = r->arg && !(r->flags & TC_OPT_UNIT);
    snprintf(buf, len, "%s%s%s%s%s", r->short_name ? r->short_name : "", r->short_name ? ", " : "",
             r->name ? r->name : "", inline_arg ? " " : "", inline_arg ? r->arg : "");
}

/* Writes text's lines, the first after what is already on the line, the others at column indent. */
static void help_lines(FILE *f, const char *text, int indent) {
    for (;;) {
        size_t n = strcspn(text, "\n");
        fprintf(f, "%.*s\n", (int)n, text);
        if (!text[n]) return;
        text += n + 1;
        fprintf(f, "%*s", indent, "");
    }
}

void tc_opts_help(FILE *f, const tc_opt_table *t) {
    char label[256] = "";
    for (size_t i = 0; i < t->n_rows; i++) {
        const tc_opt *r = &t->rows[i];
        if (r->flags & TC_OPT_UNLISTED) continue;
        if (!r->name) {
            fputs("  ", f);
            help_lines(f, r->help, 2);
            continue;
        }
        size_t used = strlen(label);
        if (used) label[used++] = ' '; /* after a label without help of its own */
        tc_opt_label(r, label + used, sizeof label - used);
        if (!r->help) continue;
        int col = 2 + (int)strlen(label);
        fprintf(f, "  %s%*s", label, col + 2 > t->help_column ? 2 : t->help_column - col, "");
        if (r->flags & TC_OPT_UNIT) fprintf(f, "%-11s ", r->arg);
        help_lines(f, r->help, t->help_column);
        label[0] = '\0';
    }
}

/* The digits, sign, '.', exponent and grouping of a number as users type it, copied into buf
 * without the grouping ('_' between digits, ',' before exactly three digits). Returns where the
 * number ends, or NULL with *why set. */
static const char *number_body(const char *s, unsigned forms, char *buf, size_t cap, const char **why) {
    size_t n = 0;
    bool any_digit = false, whole = true;
    for (int k = 0; k < 2; k++) { /* '-' and '$' in either order */
        if ((*s == '-' || *s == '+') && n == 0) buf[n++] = *s++;
        else if (*s == '$' && (forms & TC_NUM_MONEY)) s++;
    }
    for (;; s++) {
        char c = *s;
        if (n + 1 >= cap) { *why = "is too long for a number"; return NULL; }
        if (isdigit((unsigned char)c)) { buf[n++] = c; any_digit = true; continue; }
        bool sign = (c == '-' || c == '+') && n > 0 && (buf[n - 1] == 'e' || buf[n - 1] == 'E');
        if (c == '.' || c == 'e' || c == 'E' || sign) { buf[n++] = c; whole = false; continue; }
        if (c == '_' && n > 0 && isdigit((unsigned char)buf[n - 1]) && isdigit((unsigned char)s[1])) continue;
        if (c == ',' && n > 0 && isdigit((unsigned char)buf[n - 1]) && isdigit((unsigned char)s[1]) &&
            isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) && !isdigit((unsigned char)s[4]))
            continue;
        if (c == ',') { *why = "is not a number (use '.' for decimals; ',' only between groups of three digits)"; return NULL; }
        break;
    }
    buf[n] = '\0';
    if (!any_digit) *why = "is not a number";
    else if ((s[0] == 'x' || s[0] == 'X') && n > 0 && buf[n - 1] == '0') *why = "is hexadecimal: numbers are taken in decimal only";
    else if (!whole && (forms & TC_NUM_WHOLE)) *why = "is not a whole number (no '.', exponent or hex)";
    else return s;
    return NULL;
}

const char *tc_parse_number(const char *text, unsigned forms, double *out) {
    static const struct { char c; double scale; } suffixes[] = {
        {'K', 1e3}, {'M', 1e6}, {'B', 1e9}, {'G', 1e9}, {'T', 1e12}, {'P', 1e15},
    };
    if (!text || !*text) return "is empty: a number is needed";
    if (isspace((unsigned char)*text)) return "begins with a space: a number is needed";
    char buf[64];
    const char *why = NULL, *s = number_body(text, forms, buf, sizeof buf, &why);
    if (!s) return why;
    double scale = 1, divisor = 1;
    if (*s == '%') {
        if (!(forms & TC_NUM_SHARE)) return "has a '%': only shares take one";
        divisor = 100, s++;
    } else if (*s) {
        size_t i = 0, n = sizeof suffixes / sizeof suffixes[0];
        while (i < n && toupper((unsigned char)*s) != suffixes[i].c) i++;
        if (i < n && !(forms & TC_NUM_COUNT)) return "has a suffix K, M, B, T or P: only counts take one";
        if (i < n) scale = suffixes[i].scale, s++;
    }
    if (*s) return isspace((unsigned char)*s) ? "has a space in it: a number is needed" : "is not a number";
    errno = 0;
    char *end;
    double v = strtod(buf, &end) * scale / divisor;
    if (*end) return "is not a number";
    if (errno == ERANGE || !isfinite(v)) return "is out of range (beyond 1e308 or below 1e-307)";
    if (v != 0 && fabs(v) < DBL_MIN) return "is out of range (beyond 1e308 or below 1e-307)";
    *out = v;
    return NULL;
}

bool tc_parse_double(const char *s, double *out) { return tc_parse_number(s, 0, out) == NULL; }

bool tc_parse_count(const char *s, double *out) { return tc_parse_number(s, TC_NUM_COUNT, out) == NULL; }

bool tc_parse_long(const char *s, long *out) {
    double v;
    if (tc_parse_number(s, TC_NUM_WHOLE, &v) || v < (double)LONG_MIN || v >= (double)LONG_MAX || fabs(v) > 9007199254740992.0)
        return false;
    *out = (long)v;
    return true;
}

int tc_opts_read_all(tc_opts *o, char **operands, size_t *n, int (*set)(const tc_opts *o, void *ctx), void *ctx) {
    tc_opts_kind kind;
    while ((kind = tc_opts_next(o)) != TC_OPTS_END) {
        int rc = TC_EXIT_OK;
        if (kind == TC_OPTS_OPERAND) operands[(*n)++] = (char *)o->operand;
        else if (kind != TC_OPTS_OPTION) return tc_opts_fail(o);
        else rc = set(o, ctx);
        if (rc != TC_EXIT_OK) return rc;
    }
    return TC_EXIT_OK;
}

int tc_opts_comm_kernel(const tc_opts *o, struct tc_comm_patterns *patterns) {
    char err[700];
    if (!o->value) return tc_opts_error(o->t, "%s needs a regular expression", o->word);
    if (tc_comm_patterns_add(patterns, o->value, err, sizeof err) != 0) return tc_opts_error(o->t, "%s: %s", o->word, err);
    return TC_EXIT_OK;
}
