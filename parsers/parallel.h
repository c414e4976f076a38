/* parallel.h: parses one trace's traceEvents array on several threads. A reader thread fills a
 * bounded ring of buffers from the source (plain read or gzip inflate); the calling thread finds
 * event boundaries in each buffer (parsers/split.h), hands the pieces to parse threads (one yajl
 * handle and one partial tc_trace each) and merges the partial traces in input order, so the
 * result is the one the sequential parser gives. Metadata before and after the array is parsed by
 * one ordinary parser. Any doubt (damaged or unusual input, a piece that does not parse) ends in
 * TC_PAR_FALLBACK: the caller then parses the file sequentially, which decides what damage means. */
#ifndef TC_PARALLEL_H
#define TC_PARALLEL_H
#include <stddef.h>
#include <stdint.h>
#include "../analyzer/trace.h"
#include "load.h"
#include "source.h"

typedef enum {
    TC_PAR_OK = 0,   /* t holds the whole trace */
    TC_PAR_FALLBACK  /* t holds partial data: free it and parse sequentially from the start */
} tc_par_status;

typedef enum { TC_PAR_MODE_NONE = 0, TC_PAR_MODE_KINETO, TC_PAR_MODE_STRUCTURAL } tc_par_mode;

typedef struct {
    tc_par_mode mode;     /* how boundaries were found */
    uint64_t pieces;      /* pieces parsed in parallel */
    uint64_t tail_bytes;  /* bytes after the last boundary, parsed by the sequential parser */
    uint64_t raw_bytes;     /* on TC_PAR_OK: bytes of the file (compressed for gzip) */
    uint64_t decoded_bytes; /* on TC_PAR_OK: JSON bytes parsed */
    const char *why;      /* for TC_PAR_FALLBACK: a short reason (static text) */
} tc_par_info;

/* Plain files are mapped in windows of TC_PAR_WINDOW bytes (two mapped at most); gzip inflates
 * into a ring of TC_PAR_BUFFERS buffers of TC_PAR_BUFFER bytes, small enough to still be in cache
 * when parsed. Memory held: about 2 windows or the ring, plus the pieces' records. */
#define TC_PAR_WINDOW (16u * 1024u * 1024u)
#define TC_PAR_BUFFER (2u * 1024u * 1024u)
#define TC_PAR_BUFFERS 8

/* Parses src (opened, nothing read yet) into t (initialized, empty) with `threads` parse threads
 * (>= 2). size_hint: the decoded size expected (0 unknown), to size the pieces. */
tc_par_status tc_parallel_load(tc_trace *t, tc_source *src, int threads, uint64_t size_hint,
                               tc_progress_fn progress, void *progress_ctx, tc_par_info *info);
#endif
