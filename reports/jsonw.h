/* jsonw.h: a small streaming JSON writer that can only emit valid, strictly UTF-8 JSON.
 * Owns: comma/nesting bookkeeping, escaping, a buffer of output not yet handed to the FILE, and
 * the writing of an array's elements on several threads (jw_elements) into memory, handed to the
 * FILE in order.
 * Non-finite doubles become null; invalid UTF-8 bytes in strings become U+FFFD. Output goes to a
 * FILE* the caller owns, JW_BUF bytes at a time: whoever writes to that FILE between jw calls
 * calls jw_flush first. Write errors are sticky and reported by jw_finish(). */
#ifndef TC_JSONW_H
#define TC_JSONW_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

typedef struct tc_pool tc_pool;

#define JW_MAX_DEPTH 64
#define JW_BUF 16384 /* output gathered before one fwrite: a report is millions of short writes */
#define JW_ROUND_BYTES (512u << 10) /* jw_elements: about this much output in memory at a time */
#define JW_ROUND_CHUNKS 4 /* jw_elements: runs of a round per thread, so one slow run idles little */

typedef struct jw {
    FILE *out;               /* destination, not owned */
    int depth;               /* current nesting depth */
    bool need_comma[JW_MAX_DEPTH];
    bool after_key;          /* a key was written; the next value follows it */
    bool pretty;             /* indent with two spaces per level */
    bool error;              /* a write failed or the API was misused */
    size_t n;                /* bytes in buf not yet written to out */
    tc_pool *pool;           /* threads jw_elements may use (jw_set_pool); not owned; NULL: none */
    char *mem;               /* with out NULL (a writer of jw_elements): the output, malloc'd */
    size_t mem_len, mem_cap;
    char buf[JW_BUF];
} jw;

void jw_init(jw *w, FILE *out, bool pretty);
void jw_object_begin(jw *w);
void jw_object_end(jw *w);
void jw_array_begin(jw *w);
void jw_array_end(jw *w);
void jw_key(jw *w, const char *key);
void jw_string(jw *w, const char *s);                  /* NULL writes null */
void jw_string_n(jw *w, const char *s, size_t len);
void jw_int(jw *w, int64_t v);
void jw_uint(jw *w, uint64_t v);
void jw_double(jw *w, double v);                       /* non-finite writes null */
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
/* Nanoseconds written as exact decimal microseconds ("1234.567"), no float rounding. */
void jw_ns_as_us(jw *w, int64_t ns);
/* The pool jw_elements may use (the caller's threads; owned by the caller, alive until jw_finish). */
void jw_set_pool(jw *w, tc_pool *pool);
/* Element i of an array: exactly one value (a scalar, or a container with anything inside),
 * written through w. */
typedef void jw_element_fn(jw *w, const void *ctx, size_t i);
/* The n elements of the array w is inside: fn(w', ctx, i) for i in [0, n). The bytes are those of
 * calling fn(w, ctx, i) for every i in order. With a pool and at least JW_ROUND_CHUNKS elements
 * per thread, runs of consecutive elements are written at once on the pool's threads and the
 * caller, each into memory by a writer at w's position (whose own jw_elements write in order, on
 * its thread), and handed to w's FILE in order, at most JW_ROUND_BYTES or so of them at a time;
 * fewer elements are written in order by w (their own arrays may then use the threads). fn must only read what it
 * writes from (no shared state written). */
void jw_elements(jw *w, size_t n, jw_element_fn *fn, const void *ctx);
/* Hands the buffered output to the FILE (before someone else writes to it). */
void jw_flush(jw *w);
/* Flushes; returns 0 when everything was written, -1 on a write error or unbalanced nesting. */
int jw_finish(jw *w);

/* Escapes s (len bytes) as the body of a JSON string into out (no quotes). Invalid UTF-8 is
 * replaced by U+FFFD. Shared with the HTML writer's embedded data. */
void jw_escape_to(FILE *out, const char *s, size_t len);
#endif
