/* testutil.h: small helpers shared by the Criterion tests: run the built binaries, read files, streams
 * and their JSON, make temporary folders, compare two loaded traces record for record. Header-only
 * (static functions) so each test file stays self-contained. */
#ifndef TC_TESTUTIL_H
#define TC_TESTUTIL_H
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>
#include "model/trace.h"

static inline const char *tu_bin(void) {
    const char *b = getenv("TRACECOST_BIN");
    return b ? b : "build/tracecost";
}

static inline const char *tu_gen(void) {
    const char *b = getenv("TRACEGEN_BIN");
    return b ? b : "build/tracegen";
}

/* Runs a shell command; returns its exit status (or 128+signal). stdout+stderr go to *output
 * (malloc'd, NUL-terminated) when output is not NULL. */
static inline int tu_sh(char **output, const char *fmt, ...) {
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char tmp[] = "/tmp/tc-test-out-XXXXXX";
    int fd = mkstemp(tmp);
    cr_assert(fd >= 0);
    close(fd);
    char full[8400];
    snprintf(full, sizeof full, "( %s ) > %s 2>&1", cmd, tmp);
    int st = system(full);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (output) {
        FILE *f = fopen(tmp, "rb");
        cr_assert(f);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        *output = malloc((size_t)n + 1);
        size_t got = fread(*output, 1, (size_t)n, f);
        (*output)[got] = 0;
        fclose(f);
    }
    unlink(tmp);
    return rc;
}

static inline char *tu_tmpdir(void) {
    char *d = strdup("/tmp/tc-test-XXXXXX");
    cr_assert(mkdtemp(d));
    return d;
}

/* Everything written to f since it was opened (f stands at its end), NUL-terminated. Caller frees. */
static inline char *tu_read_stream(FILE *f) {
    long n = ftell(f);
    cr_assert(n >= 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    return buf;
}

/* The whole file, NUL-terminated, its size in *len when len is not NULL; asserts it can be opened.
 * Caller frees. */
static inline char *tu_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    cr_assert(fseek(f, 0, SEEK_END) == 0);
    char *buf = tu_read_stream(f);
    if (len) *len = (size_t)ftell(f);
    fclose(f);
    return buf;
}

static inline yajl_val tu_json_file(const char *path) {
    char *buf = tu_read_file(path, NULL);
    char err[256];
    yajl_val v = yajl_tree_parse(buf, err, sizeof err);
    free(buf);
    cr_assert(v, "%s is not valid JSON: %s", path, err);
    return v;
}

/* `tracecost analyze -q --json - ARGS` (stderr dropped): asserts its exit code is want_rc and returns
 * the parsed document (yajl_tree_free it). */
static inline yajl_val tu_analyze_json(const char *args, int want_rc) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze -q --json - %s 2>/dev/null", tu_bin(), args);
    cr_assert_eq(rc, want_rc, "analyze %s: exit %d", args, rc);
    char err[256];
    yajl_val v = yajl_tree_parse(out, err, sizeof err);
    cr_assert_not_null(v, "%s: %s", err, out);
    free(out);
    return v;
}

/* v[key1][key2]... ; NULL-terminated key list. Numeric index as "#3". */
static inline yajl_val tu_get(yajl_val v, ...) {
    va_list ap;
    va_start(ap, v);
    const char *k;
    while (v && (k = va_arg(ap, const char *)) != NULL) {
        if (k[0] == '#') {
            size_t i = (size_t)atoi(k + 1);
            v = (YAJL_IS_ARRAY(v) && i < v->u.array.len) ? v->u.array.values[i] : NULL;
        } else {
            const char *path[] = {k, NULL};
            v = yajl_tree_get(v, path, yajl_t_any);
        }
    }
    va_end(ap);
    return v;
}

static inline double tu_num(yajl_val v) {
    cr_assert(v && YAJL_IS_NUMBER(v), "expected a number");
    return YAJL_GET_DOUBLE(v);
}

/* A JSON string's text; asserts v is a string. */
static inline const char *tu_str(yajl_val v) {
    cr_assert(v && YAJL_IS_STRING(v), "expected a string");
    return v->u.string;
}

/* The text with every line break and the indentation after it turned into one space, so wrapped
 * sentences can be searched whole. In place; returns s. */
static inline char *tu_unwrap(char *s) {
    char *o = s;
    for (char *p = s; *p; p++) {
        if (*p == '\n') {
            while (p[1] == ' ') p++;
            *o++ = ' ';
        } else *o++ = *p;
    }
    *o = '\0';
    return s;
}

/* Generates a tracegen job into DIR/NAME with the given flags; asserts it worked. */
static inline void tu_gen_job(const char *dir, const char *name, const char *flags) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s -o %s/%s %s", tu_gen(), dir, name, flags);
    cr_assert_eq(rc, 0, "tracegen %s: %s", flags, out);
    free(out);
}

/* Generates a one-rank, two-step tracegen job in `layout` into DIR/LAYOUT and writes its rank
 * file's path into path (size n). */
static inline void tu_gen_layout(const char *dir, const char *layout, char *path, size_t n) {
    char flags[128];
    snprintf(flags, sizeof flags, "--ranks 1 --steps 2 --layout %s", layout);
    tu_gen_job(dir, layout, flags);
    snprintf(path, n, "%s/%s/rank0.pt.trace.json", dir, layout);
}

/* True when files a and b both read and hold the same bytes. */
static inline bool tu_same_file(const char *a, const char *b) {
    size_t la, lb;
    char *x = tu_read_file(a, &la), *y = tu_read_file(b, &lb);
    bool same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* Expects every line of text to fit `width` columns: ANSI CSI sequences and CR do not count, a
 * UTF-8 sequence counts one column. */
static inline void tu_expect_width(const char *text, size_t width) {
    size_t cols = 0, line = 1;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\033' && p[1] == '[') {
            p += 2;
            while (*p && !(*p >= 0x40 && *p <= 0x7e)) p++;
            if (!*p) break;
            continue;
        }
        if (*p == '\r') continue;
        if (*p == '\n') { cr_expect(cols <= width, "line %zu is %zu columns", line, cols); cols = 0; line++; continue; }
        if ((*p & 0xc0) != 0x80) cols++;
    }
    cr_expect(cols <= width, "last line is %zu columns", cols);
}
/* The same trace, record for record: the counts, every array of the event store
 * (model/trace_arrays.def; padding is explicit and zeroed, so whole records compare), the byte
 * counts, the strings in id order and the warnings. */
static inline void tu_assert_same_trace(const tc_trace *a, const tc_trace *b, const char *what) {
    cr_assert_eq(a->events_total, b->events_total, "%s: events", what);
    cr_assert_eq(a->events_skipped, b->events_skipped, "%s: skipped", what);
#define TC_TRACE_ARRAY(field, count, cap, type, reserve)                                           \
    cr_assert_eq(a->count, b->count, "%s: %s %zu vs %zu", what, #field, a->count, b->count);      \
    for (size_t i = 0; i < a->count; i++)                                                          \
        if (memcmp(&a->field[i], &b->field[i], sizeof(type)) != 0) cr_assert_fail("%s: %s[%zu]", what, #field, i);
#include "model/trace_arrays.def"
    cr_assert_eq(a->rank, b->rank, "%s: rank", what);
    cr_assert_eq(a->bytes, b->bytes, "%s: bytes", what);
    cr_assert_eq(a->bytes_decoded, b->bytes_decoded, "%s: decoded bytes", what);
    size_t ns = tc_strtab_count(a->strings);
    cr_assert_eq(ns, tc_strtab_count(b->strings), "%s: strings", what);
    for (size_t i = 0; i < ns; i++)
        cr_assert_str_eq(tc_strtab_get(a->strings, (uint32_t)i), tc_strtab_get(b->strings, (uint32_t)i), "%s: string %zu", what, i);
    cr_assert_eq(a->n_warnings, b->n_warnings, "%s: warnings", what);
    for (size_t i = 0; i < a->n_warnings; i++) cr_assert_str_eq(a->warnings[i], b->warnings[i]);
}

#endif
