/* parallel.h: parses one trace's traceEvents array on several threads. The separator the document
 * wrote between its first two events ("},\n  {\n    \"" in Kineto's layout; any whitespace, any
 * key order) is learned, and a plain file is cut into pieces where it recurs, found with small
 * reads; each piece is read (in 64 KiB slices, still in cache when parsed) by the thread that
 * parses it. Other inputs go through a reader (a thread inflating gzip into a bounded ring of
 * buffers, or 16 MiB windows read with pread of a plain file whose separator was not learned) and
 * the calling thread finds event boundaries in each buffer (parsers/split.h). Each piece has its
 * own yajl handle and partial tc_trace; the calling thread merges the partial traces in input
 * order, so the result is the one the sequential parser gives. Metadata before and after the array
 * is parsed by one ordinary parser. Any doubt (damaged or unusual input, a piece that does not
 * parse) ends in TC_PAR_FALLBACK: the caller then parses the file sequentially, which decides what
 * damage means. */
#ifndef TC_PARALLEL_H
#define TC_PARALLEL_H
#include <stddef.h>
#include <stdint.h>
#include "model/trace.h"
#include "read_options.h"
#include "source.h"

typedef enum {
    TC_PAR_OK = 0,   /* t holds the whole trace */
    TC_PAR_FALLBACK  /* t holds partial data: free it and parse sequentially from the start */
} tc_par_status;

/* PATTERN: boundaries where the learned separator recurs; STRUCTURAL: by a scan of every byte */
typedef enum { TC_PAR_MODE_NONE = 0, TC_PAR_MODE_PATTERN, TC_PAR_MODE_STRUCTURAL } tc_par_mode;

typedef struct {
    tc_par_mode mode;     /* how boundaries were found */
    uint64_t pieces;      /* pieces parsed in parallel */
    uint64_t pieces_direct; /* of them, plain-file pieces no other thread had begun, parsed by the
                             * file's thread straight into its trace (not merged) */
    uint64_t tail_bytes;  /* bytes after the last boundary, parsed by the sequential parser */
    uint64_t raw_bytes;     /* on TC_PAR_OK: bytes of the file (compressed for gzip) */
    uint64_t decoded_bytes; /* on TC_PAR_OK: JSON bytes parsed */
    uint64_t gzip_runs;   /* BGZF files: runs of members inflated on the pool (0: one stream) */
    uint64_t gzip_split;  /* other gzip files: runs split at candidates (gzsplit.h; 0: one stream) */
    const char *why;      /* for TC_PAR_FALLBACK: a short reason (static text) */
} tc_par_info;

/* Plain files whose separator was not learned are read in windows of TC_PAR_WINDOW bytes (two
 * held at most; read, not mapped, so a file that shrinks meanwhile gives a short read, not
 * SIGBUS); gzip inflates into a ring of TC_PAR_BUFFERS buffers of TC_PAR_BUFFER bytes, small enough
 * to still be in cache when parsed. Memory held: about 2 windows or the ring (other plain files:
 * one 64 KiB slice per thread), plus the records of the pieces in flight. */
#define TC_PAR_WINDOW (16u * 1024u * 1024u)
#define TC_PAR_BUFFER (2u * 1024u * 1024u)
#define TC_PAR_BUFFERS 8

/* Parses src (opened, nothing read yet) into t (initialized, empty) with `threads` parse threads
 * (>= 2), every piece's parser begun with opt (NULL: the defaults). size_hint: the decoded size
 * expected (0 unknown), to size the pieces. */
tc_par_status tc_parallel_load(tc_trace *t, tc_source *src, int threads, uint64_t size_hint, const tc_read_options *opt,
                               tc_progress_fn progress, void *progress_ctx, tc_par_info *info);
#endif
