/* reader.h: the interface of a trace reader, one per input format, and the readers there are.
 *
 * The loader (load.h) opens an input as a byte source (source.h: a file or stdin, gzip inflated
 * below this interface), shows its first decoded bytes to the readers of load.c's table in turn
 * (sniff), and the first that takes the input reads all of it: begin, feed for every chunk in
 * order, finish once (after a failed feed too: it then keeps that error), end. A reader says what
 * is wrong and where; what that means (the input damaged, or not a trace at all) the loader
 * decides. A reader may also parse a regular file on several threads (parse_parallel).
 *
 * A new input format is one file parsers/NAME.c that defines `const tc_reader tc_NAME_reader`
 * (declared below), a row in load.c's table (before the Chrome-trace reader, which takes every
 * input), and its tests (as tests/test_reader.c holds the Chrome-trace reader's). It fills the
 * tc_trace (model/trace.h) as the Chrome-trace reader does; nothing above the parsers changes. */
#ifndef TC_READER_H
#define TC_READER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/trace.h"
#include "read_options.h"
#include "source.h"

#define TC_READER_SNIFF 4096u /* the most bytes sniff is shown */

typedef struct tc_reader {
    const char *name;   /* what its inputs are, in messages: "PATH: not a Chrome trace: ERROR" */
    const char *syntax; /* what its errors are errors of: "gzip stream ends early (JSON cut at ERROR)" */
    /* Whether it takes an input whose first decoded bytes are head[0, len): the first
     * TC_READER_SNIFF bytes, or all of a shorter input (len >= 1). */
    bool (*sniff)(const char *head, size_t len);
    /* A reading of one input into t (initialized, empty) with opt; NULL out of memory. */
    void *(*begin)(tc_trace *t, const tc_read_options *opt);
    /* The next len bytes. 0 ok; -1 the input is broken here (see error). */
    int (*feed)(void *ctx, const char *buf, size_t len);
    /* The end of the input; may add warnings to the trace of what was skipped. 0 ok; -1 the input
     * is incomplete or broken (see error). */
    int (*finish)(void *ctx);
    /* After a -1: where and what, beginning with the byte offset: "byte B (...): ..." (no path). */
    const char *(*error)(const void *ctx);
    uint64_t (*error_offset)(const void *ctx); /* that byte offset (of the end, when incomplete) */
    void (*end)(void *ctx);                   /* frees the reading; NULL is a no-op */
    /* Optional (NULL: none). Reads the regular file src (opened, nothing read yet) into t on
     * `threads` (>= 2) threads, giving the trace the sequential reading gives, with t->bytes and
     * t->bytes_decoded set. 0; or -1 when it cannot be sure (damage, a layout it cannot split): t
     * then holds partial data, and the loader reads the file again, sequentially. */
    int (*parse_parallel)(tc_trace *t, tc_source *src, int threads, const tc_read_options *opt,
                          tc_progress_fn progress, void *progress_ctx);
} tc_reader;

/* The readers, one file each. */
extern const tc_reader tc_chrome_reader; /* Chrome-trace (Kineto) JSON, parsers/chrome_reader.c: takes
                                          * every input (its errors say what is wrong with one that
                                          * is no JSON) */
#endif
