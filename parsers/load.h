/* load.h: reads one trace input (file, gzip or stdin) into a tc_trace, streaming it in fixed-size
 * chunks through the reader that takes it (reader.h: the one interface every input format
 * implements; the Chrome-trace parser is its first), or on several threads by that reader's
 * parallel parse. Decides what a damaged input means: whatever was read before the damage is kept
 * and the trace is flagged truncated with a warning. */
#ifndef TC_LOAD_H
#define TC_LOAD_H
#include <stddef.h>
#include <stdint.h>
#include "model/trace.h"
#include "read_options.h"
#include "reader.h"

typedef enum {
    TC_LOAD_OK = 0,      /* read completely */
    TC_LOAD_DAMAGED,     /* read up to damage or an early end; t->truncated, warning added */
    TC_LOAD_UNREADABLE,  /* could not open or read at all */
    TC_LOAD_EMPTY,       /* no bytes */
    TC_LOAD_NOT_JSON,    /* broken before any event was read, or no reader takes it */
    TC_LOAD_NO_MEMORY
} tc_load_status;

#define TC_LOAD_CHUNK (256u * 1024u) /* bytes handed to the reader at a time */

typedef struct {
    int threads;                  /* parse threads: more than 1 parses a regular file (plain or gzip)
                                   * in pieces (parsers/parallel.h); anything the parallel parse is
                                   * unsure of (damage, a layout it cannot split) is parsed
                                   * sequentially, so the result is always the sequential one */
    tc_progress_fn progress;      /* NULL: none */
    void *progress_ctx;
    const tc_comm_patterns *comm; /* the user's --comm-kernel patterns (model/comm_kernels.h), applied
                                   * with the catalog as each kernel is read; NULL: the catalog only */
    tc_pool *pool;                /* a worker pool shared with other loads (threads - 1 threads), the
                                   * caller one of its runs: the file's pieces go to its queue (NULL:
                                   * the load makes its own) */
} tc_load_trace_options;

/* Loads path into t (initialized by the caller with tc_trace_init). On anything but TC_LOAD_OK the
 * message (naming the path, and for JSON errors the byte offset, line:column and an excerpt) is
 * written to msg. */
tc_load_status tc_load_trace_opts(tc_trace *t, const char *path, const tc_load_trace_options *opt, char *msg,
                                  size_t msglen);
/* tc_load_trace_opts with one thread and no user patterns. */
tc_load_status tc_load_trace(tc_trace *t, const char *path, tc_progress_fn progress, void *progress_ctx,
                             char *msg, size_t msglen);
/* The reader that takes an input whose first decoded bytes are head[0, len): the first of load.c's
 * table whose sniff accepts them (it is shown at most TC_READER_SNIFF bytes); NULL when none does or
 * len is 0. */
const tc_reader *tc_reader_for(const char *head, size_t len);
#endif
