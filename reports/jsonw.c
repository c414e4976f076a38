/* jsonw.c: streaming JSON writer (see jsonw.h). Keeps a nesting stack and JW_BUF bytes of output. */
#define _GNU_SOURCE /* glibc's fwrite_unlocked */
#include "jsonw.h"
#include "base/jsontext.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "base/util.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void jw_init(jw *w, FILE *out, bool pretty) { /* field by field: the buffer needs no zeroing */
    w->out = out;
    w->depth = 0;
    memset(w->need_comma, 0, sizeof w->need_comma);
    w->after_key = false;
    w->pretty = pretty;
    w->error = false;
    w->n = 0;
    w->pool = NULL;
    w->mem = NULL;
    w->mem_len = w->mem_cap = 0;
}

void jw_set_pool(jw *w, tc_pool *pool) { w->pool = pool; }

/* Every write goes through put_n: a report is millions of short writes (the kineto bench's 26 MB
 * --json), and even stdio's unlocked fwrite cost about 40 instructions a call, so they gather in
 * the writer's buffer and go out JW_BUF bytes at a time (jw_flush). Errors show in ferror at
 * jw_finish. */
static inline void out_bytes(FILE *out, const char *s, size_t n) {
#if defined(__GLIBC__)
    fwrite_unlocked(s, 1, n, out);
#else
    fwrite(s, 1, n, out);
#endif
}

/* Output leaving the writer's buffer: to its FILE, or (a writer of jw_elements) its memory. */
static void sink_bytes(jw *w, const char *s, size_t n) {
    if (w->out) { out_bytes(w->out, s, n); return; }
    if (w->error) return;
    if (n > SIZE_MAX - w->mem_len || tc_grow((void **)&w->mem, &w->mem_cap, w->mem_len + n, 1)) {
        w->error = true;
        return;
    }
    memcpy(w->mem + w->mem_len, s, n);
    w->mem_len += n;
}

void jw_flush(jw *w) {
    if (w->n) sink_bytes(w, w->buf, w->n);
    w->n = 0;
}

static inline void put_n(jw *w, const char *s, size_t n) {
    if (n > JW_BUF - w->n) {
        jw_flush(w);
        if (n >= JW_BUF) { sink_bytes(w, s, n); return; }
    }
    memcpy(w->buf + w->n, s, n);
    w->n += n;
}
#define PUT_LIT(w, lit) put_n((w), (lit), sizeof(lit) - 1)

static void newline_indent(jw *w) {
    if (!w->pretty) return;
    /* a newline and two spaces per level, in one write (depth < JW_MAX_DEPTH = 64) */
    static const char indent[] = "\n" "                                                                "
                                 "                                                                ";
    size_t n = 1 + 2 * (size_t)w->depth;
    put_n(w, indent, n < sizeof indent - 1 ? n : sizeof indent - 1);
}

/* Called before every value or key: writes the separator the position needs. */
static void before_value(jw *w) {
    if (w->after_key) { w->after_key = false; return; }
    if (w->depth > 0) {
        if (w->need_comma[w->depth]) PUT_LIT(w, ",");
        w->need_comma[w->depth] = true;
        newline_indent(w);
    }
}

static void open(jw *w, const char *c) {
    before_value(w);
    put_n(w, c, 1);
    if (w->depth + 1 >= JW_MAX_DEPTH) { w->error = true; return; }
    w->depth++;
    w->need_comma[w->depth] = false;
}

static void close_(jw *w, const char *c) {
    if (w->depth <= 0) { w->error = true; return; }
    bool had = w->need_comma[w->depth];
    w->depth--;
    if (had) newline_indent(w);
    put_n(w, c, 1);
}

void jw_object_begin(jw *w) { open(w, "{"); }
void jw_object_end(jw *w) { close_(w, "}"); }
void jw_array_begin(jw *w) { open(w, "["); }
void jw_array_end(jw *w) { close_(w, "]"); }

/* Whether any of the 8 bytes in x needs more than a copy: below 0x20, 0x7F and up, '"', '\\' or
 * '<'. (x - 0x20 per byte) & ~x sets a byte's top bit where it is below 0x20 (for any such byte,
 * not only the first); the same on x ^ c finds a byte equal to c. */
static inline bool needs_escape8(uint64_t x) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
#define JW_EQ(c) (((x ^ (ones * (c))) - ones) & ~(x ^ (ones * (c))))
    uint64_t m = ((x - ones * 0x20) & ~x) | x | JW_EQ(0x7F) | JW_EQ('"') | JW_EQ('\\') | JW_EQ('<');
#undef JW_EQ
    return (m & high) != 0;
}

/* The escape of str into a sink: runs of bytes that go out as they are in one emit call each. One
 * body for both sinks (a FILE, the writer's buffer), inlined into each. */
typedef void (*emit_fn)(void *sink, const char *s, size_t n);

__attribute__((always_inline)) static inline void escape_into(emit_fn emit, void *sink, const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0; /* s[run, i): bytes that go out as they are, written in one call */
    while (i < len) {
        uint64_t x;
        if (i + 8 <= len && (memcpy(&x, s + i, 8), !needs_escape8(x))) { i += 8; continue; } /* names: 8 at a time */
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '<') { i++; continue; }
        if (c >= 0x80) {
            size_t n = tc_utf8_seq(s + i, len - i, NULL);
            if (n) { i += n; continue; }
        }
        if (i > run) emit(sink, (const char *)s + run, i - run);
        switch (c) {
        case '"': emit(sink, "\\\"", 2); break;
        case '\\': emit(sink, "\\\\", 2); break;
        case '\n': emit(sink, "\\n", 2); break;
        case '\t': emit(sink, "\\t", 2); break;
        case '\r': emit(sink, "\\r", 2); break;
        case '<': emit(sink, "\\u003c", 6); break; /* safe inside HTML <script> too */
        default:
            if (c < 0x20 || c == 0x7F) {
                char u[8];
                snprintf(u, sizeof u, "\\u%04x", c);
                emit(sink, u, 6);
            } else emit(sink, "\xEF\xBF\xBD", 3); /* a byte that is not UTF-8 */
            break;
        }
        run = ++i;
    }
    if (i > run) emit(sink, (const char *)s + run, i - run);
}

static void emit_file(void *sink, const char *s, size_t n) { out_bytes(sink, s, n); }
static void emit_buffer(void *sink, const char *s, size_t n) { put_n(sink, s, n); }

void jw_escape_to(FILE *out, const char *str, size_t len) { escape_into(emit_file, out, str, len); }
static void escape(jw *w, const char *str, size_t len) { escape_into(emit_buffer, w, str, len); }

void jw_key(jw *w, const char *key) {
    before_value(w);
    PUT_LIT(w, "\"");
    escape(w, key, strlen(key));
    if (w->pretty) PUT_LIT(w, "\": ");
    else PUT_LIT(w, "\":");
    w->after_key = true;
}

void jw_string_n(jw *w, const char *s, size_t len) {
    before_value(w);
    PUT_LIT(w, "\"");
    escape(w, s, len);
    PUT_LIT(w, "\"");
}

void jw_string(jw *w, const char *s) {
    if (!s) { jw_null(w); return; }
    jw_string_n(w, s, strlen(s));
}

/* Writes the decimal digits of v so they end just before `end`; returns where they start.
 * (Reports hold tens of thousands of integers: printf's parsing of its format showed up.) */
static char *decimal(char *end, uint64_t v) {
    do { *--end = (char)('0' + v % 10); v /= 10; } while (v);
    return end;
}

static void put_signed(jw *w, bool negative, uint64_t magnitude) {
    char buf[24], *end = buf + sizeof buf - 1, *d;
    *end = 0;
    d = decimal(end, magnitude);
    if (negative) *--d = '-';
    put_n(w, d, (size_t)(end - d));
}

void jw_int(jw *w, int64_t v) {
    before_value(w);
    put_signed(w, v < 0, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void jw_uint(jw *w, uint64_t v) {
    before_value(w);
    put_signed(w, false, v);
}

void jw_double(jw *w, double v) {
    if (!isfinite(v)) { jw_null(w); return; }
    before_value(w);
    char buf[64];
    put_n(w, buf, tc_json_double_text(buf, sizeof buf, v)); /* the one number format (base/jsontext.h) */
}

void jw_bool(jw *w, bool v) {
    before_value(w);
    if (v) PUT_LIT(w, "true");
    else PUT_LIT(w, "false");
}
void jw_null(jw *w) { before_value(w); PUT_LIT(w, "null"); }

void jw_ns_as_us(jw *w, int64_t ns) {
    before_value(w);
    char buf[32];
    put_n(w, buf, tc_json_us_text(buf, sizeof buf, ns));
}

/* ---- an array's elements on several threads --------------------------------------------------- */

typedef struct {
    jw w;            /* the run's writer: into memory, at the array's depth */
    size_t from, to; /* its elements */
} jw_run;

typedef struct {
    const jw *parent;
    jw_element_fn *fn;
    const void *ctx;
    bool comma;      /* the array held an element before these */
    jw_run *runs;
} jw_round;

static void run_elements(void *arg, size_t k, int worker) {
    jw_round *r = arg;
    jw_run *u = &r->runs[k];
    jw *s = &u->w;
    (void)worker;
    s->out = NULL;
    s->pretty = r->parent->pretty;
    s->depth = r->parent->depth;
    s->need_comma[s->depth] = r->comma || u->from > 0;
    s->after_key = false;
    s->error = false;
    s->n = 0;
    s->pool = NULL; /* its own arrays are written in order, here */
    s->mem_len = 0;
    for (size_t i = u->from; i < u->to; i++) r->fn(s, r->ctx, i);
    jw_flush(s);
}

void jw_elements(jw *w, size_t n, jw_element_fn *fn, const void *ctx) {
    size_t threads = w->pool ? (size_t)tc_pool_threads(w->pool) + 1 : 1;
    size_t cap = JW_ROUND_CHUNKS * threads;
    /* fewer elements than runs: in order here, where their own arrays may use the threads (a few
     * ranks of thousands of steps each would leave a thread idle) */
    jw_run *runs = threads > 1 && n >= cap && !w->after_key && w->depth > 0 ? calloc(cap, sizeof *runs) : NULL;
    if (!runs) {
        for (size_t i = 0; i < n; i++) fn(w, ctx, i);
        return;
    }
    jw_round r = {.parent = w, .fn = fn, .ctx = ctx, .comma = w->need_comma[w->depth], .runs = runs};
    /* a first round of small runs measures the elements; later runs hold about JW_ROUND_BYTES / cap */
    size_t per = n / cap, done = 0;
    uint64_t bytes = 0;
    if (per < 1) per = 1;
    if (per > 8) per = 8;
    jw_flush(w);
    while (done < n) {
        size_t k = 0;
        for (; k < cap && done < n; k++) {
            runs[k].from = done;
            runs[k].to = per > n - done ? n : done + per;
            done = runs[k].to;
        }
        tc_pool_for(w->pool, k, run_elements, &r);
        for (size_t m = 0; m < k; m++) {
            if (runs[m].w.error || runs[m].w.depth != w->depth) w->error = true;
            sink_bytes(w, runs[m].w.mem, runs[m].w.mem_len);
            bytes += runs[m].w.mem_len;
        }
        uint64_t each = bytes / done + 1, want = JW_ROUND_BYTES / cap / each;
        per = want < 1 ? 1 : want > n ? n : (size_t)want;
    }
    for (size_t m = 0; m < cap; m++) free(runs[m].w.mem);
    free(runs);
    w->need_comma[w->depth] = true;
}

int jw_finish(jw *w) {
    if (w->pretty) PUT_LIT(w, "\n");
    jw_flush(w);
    if (fflush(w->out) != 0 || ferror(w->out)) w->error = true;
    return (w->error || w->depth != 0) ? -1 : 0;
}
