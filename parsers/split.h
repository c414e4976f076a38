/* split.h: finds where a Chrome trace's event array starts and where events begin inside it, so
 * the array can be parsed in pieces on several threads. Two ways to find event boundaries: a fast
 * search for the separator the document wrote between its first two events, whatever its layout
 * (learned by tc_split_learn), and a structural scan (strings, escapes, nesting) that is right for
 * any layout but reads every byte in order. A searched boundary is only a candidate: a wrong one
 * (inside a string, or deeper in the nesting) makes the JSON of the piece before it invalid, which
 * the caller detects when parsing it. */
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

/* How the document separates two events: the bytes from the '}' that ends the array's first
 * element to the '"' that opens the second one's first key ("},\n  {\n    \"" in Kineto's layout,
 * "}, {\"" on one line, "},\n    {\n      \"" at indent 2 in an array at depth 2, ...). */
#define TC_SPLIT_PATTERN_MAX 64
typedef struct {
    char text[TC_SPLIT_PATTERN_MAX];
    size_t len;   /* 0: none */
    size_t brace; /* offset of the '{' in text */
} tc_split_pattern;

/* Learns *pat from the separator after the first element of the array whose body starts at
 * buf[body] (found by the structural scan, so never one inside a string). NOT_FOUND: the first
 * element is not an object, the second does not start with a key, the separator is longer than
 * TC_SPLIT_PATTERN_MAX, or the array holds one element; NEED_MORE: it runs past len. */
tc_split_find tc_split_learn(const char *buf, size_t len, size_t body, tc_split_pattern *pat);

/* Offset of the '{' of the first match of pat that lies wholly in buf[from, len); TC_SPLIT_NONE
 * when there is none. */
size_t tc_split_next(const tc_split_pattern *pat, const char *buf, size_t len, size_t from);

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
