/* split.h: finds where a Chrome trace's event array starts and where events begin inside it, so
 * the array can be parsed in pieces on several threads. Two ways to find event boundaries: a fast
 * search for Kineto's layout ("},\n  {\n" between events) and a structural scan (strings, escapes,
 * nesting) that is right for any layout. A fast-path boundary is only a candidate: a wrong one
 * makes the JSON of the pieces around it invalid, which the caller detects when parsing them. */
#ifndef TC_SPLIT_H
#define TC_SPLIT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TC_SPLIT_NONE SIZE_MAX

typedef enum {
    TC_SPLIT_FOUND,     /* *body is the offset just after the events array's '[' */
    TC_SPLIT_NEED_MORE, /* the prefix runs past len */
    TC_SPLIT_NOT_FOUND  /* not an object with a top-level "traceEvents" array, nor a bare array */
} tc_split_find;

/* Scans a document's first len bytes for its events array: the value of the top-level key
 * "traceEvents" (spelled without escapes), or the document itself when it is an array. */
tc_split_find tc_split_find_events(const char *buf, size_t len, size_t *body);

/* Kineto layout: offset of the '{' of the first "},\n  {\n" at or after `from` that lies wholly
 * in buf[0, len); TC_SPLIT_NONE when there is none. */
size_t tc_split_kineto_next(const char *buf, size_t len, size_t from);

/* Structural scan of an array body, resumable across buffers. depth 0 = directly inside the
 * array. A boundary is the offset just after a depth-0 ','; the scan stops at the array's
 * closing ']' (ended, end_at). */
typedef struct {
    int64_t depth;      /* open containers inside the array */
    bool in_string;
    bool escape;        /* previous byte was a backslash inside a string */
    bool ended;         /* the array's closing bracket was seen */
    size_t end_at;      /* its offset in the buffer where it was seen */
} tc_scan;

/* Scans buf[from, len) from state s. Records in out[] (at most max_out) the boundaries that lie at
 * least min_gap bytes after *last (the previous boundary, as an offset that may be "negative"
 * relative to this buffer: pass it as a signed value). Returns the number recorded. Stops early at
 * the array's end or when out[] is full (then *stopped_at is where to resume; else len). */
size_t tc_scan_run(tc_scan *s, const char *buf, size_t len, size_t from, int64_t *last, size_t min_gap,
                   size_t *out, size_t max_out, size_t *stopped_at);

/* Length of piece buf[0, len) without its trailing whitespace and the one ',' before it; returns
 * TC_SPLIT_NONE when it does not end with a comma (the boundary after it was wrong). */
size_t tc_split_trim_comma(const char *buf, size_t len);
#endif
