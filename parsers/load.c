/* load.c: the loader (see load.h): an input's byte source read through the reader that takes it
 * (reader.h; the table below), or handed to that reader's parallel parse, and what damage means. */
#include "load.h"
#include "reader.h"
#include "source.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/numfmt.h"
#include "base/util.h"

/* The readers, asked in this order; the Chrome-trace reader takes every input, so it is last. */
static const tc_reader *const readers[] = {&tc_chrome_reader};

const tc_reader *tc_reader_for(const char *head, size_t len) {
    if (len > TC_READER_SNIFF) len = TC_READER_SNIFF;
    for (size_t i = 0; len > 0 && i < sizeof readers / sizeof *readers; i++)
        if (readers[i]->sniff(head, len)) return readers[i];
    return NULL;
}

/* a of b as a share (1 when b is 0) */
static double share_of(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 1.0; }

/* What every parse of a trace ends with, whichever way it was read: its time budget settled and its
 * comm kernels given the collective args of the ops that launched them, its op keys merged. 0, or -1 out of memory
 * (the message written). */
static int finish_trace(tc_trace *t, const char *path, char *msg, size_t msglen) {
    tc_trace_settle_times(t);
    if (!tc_trace_link_op_colls(t) && !tc_trace_merge_op_keys(t)) return 0;
    snprintf(msg, msglen, "%s: out of memory", path);
    return -1;
}

/* The reader of an input that begins with head[0, len) (len >= 1), begun into *ctx. TC_LOAD_OK, or
 * the status with its message written: no reader takes the input, or out of memory. */
static tc_load_status begin_reading(tc_trace *t, const char *head, size_t len, const char *path,
                                    const tc_load_trace_options *o, const tc_reader **r, void **ctx, char *msg,
                                    size_t msglen) {
    *r = tc_reader_for(head, len);
    if (!*r) {
        snprintf(msg, msglen, "%s: not a trace format tracecost reads (no reader takes what it begins with)", path);
        return TC_LOAD_NOT_JSON;
    }
    tc_read_options ro = {.comm = o->comm};
    *ctx = (*r)->begin(t, &ro);
    if (*ctx) return TC_LOAD_OK;
    snprintf(msg, msglen, "%s: out of memory", path);
    return TC_LOAD_NO_MEMORY;
}

/* The sequential load of an opened source (read from where it stands: nothing read yet); the
 * caller closes it. */
static tc_load_status load_source(tc_trace *t, tc_source *src, const char *path, const tc_load_trace_options *o,
                                  char *msg, size_t msglen) {
    char err[512] = "";
    char *buf = malloc(TC_LOAD_CHUNK);
    if (!buf) {
        snprintf(msg, msglen, "%s: out of memory", path);
        return TC_LOAD_NO_MEMORY;
    }
    const tc_reader *r = NULL;
    void *ctx = NULL;
    tc_load_status status = TC_LOAD_OK;
    bool parse_failed = false, source_failed = false;
    if (tc_source_format_of(src) != TC_SOURCE_GZIP) tc_trace_reserve(t, tc_source_file_size(src));
    for (;;) {
        long n = tc_source_read(src, buf, TC_LOAD_CHUNK, err, sizeof err);
        if (n > 0 && !r && (status = begin_reading(t, buf, (size_t)n, path, o, &r, &ctx, msg, msglen)) != TC_LOAD_OK)
            goto done;
        if (n > 0 && r->feed(ctx, buf, (size_t)n) != 0) { parse_failed = true; break; }
        if (o->progress) o->progress(o->progress_ctx, tc_source_raw_bytes(src), tc_source_file_size(src));
        if (n < 0) { source_failed = true; break; }
        if (n == 0) break;
    }
    t->bytes = tc_source_raw_bytes(src);
    t->bytes_decoded = tc_source_decoded_bytes(src);
    if (!parse_failed && t->bytes_decoded == 0) {
        bool cut = tc_source_truncated(src); /* a gzip file cut before its first data byte */
        if (source_failed) snprintf(msg, msglen, "%s", err); /* err names the path */
        else if (cut)
            snprintf(msg, msglen, "%s: gzip stream ends early, before any data (%llu compressed bytes)", path,
                     (unsigned long long)t->bytes);
        else snprintf(msg, msglen, "%s: empty input (0 bytes)", path);
        status = source_failed || cut ? TC_LOAD_UNREADABLE : TC_LOAD_EMPTY;
        goto done;
    }
    /* after a failed feed too: finish adds the warnings of what was skipped before it */
    if (r->finish(ctx) != 0) parse_failed = true;
    bool gz_cut = tc_source_truncated(src);
    if (parse_failed || source_failed || gz_cut) {
        bool nothing = t->events_total == 0 && t->n_devices == 0 && t->n_gpu == 0;
        char where[600];
        if (source_failed) snprintf(where, sizeof where, "%s", err);
        else if (gz_cut && !parse_failed) snprintf(where, sizeof where, "%s: gzip stream ends early", path);
        else snprintf(where, sizeof where, "%s: %s", path, r->error(ctx));
        if (gz_cut && parse_failed) {
            /* the reader's error is only the consequence of the cut gzip stream */
            snprintf(where, sizeof where, "%s: gzip stream ends early (%s cut at %s)", path, r->syntax, r->error(ctx));
        }
        if (nothing && !gz_cut && !source_failed) {
            snprintf(msg, msglen, "%s: not a %s: %s", path, r->name, r->error(ctx));
            status = TC_LOAD_NOT_JSON;
            goto done;
        }
        t->truncated = true;
        char pc[TC_PCT_LEN];
        uint64_t size = tc_source_file_size(src);
        if (tc_source_format_of(src) == TC_SOURCE_GZIP)
            tc_trace_warn(t, "%s; analyzed the %llu events read (%llu JSON bytes from %llu of %llu compressed bytes, %s)",
                          strchr(where, ':') ? strchr(where, ':') + 2 : where, (unsigned long long)t->events_total,
                          (unsigned long long)t->bytes_decoded, (unsigned long long)t->bytes,
                          (unsigned long long)size, TC_PCT1(pc, share_of(t->bytes, size)));
        else
            tc_trace_warn(t, "%s; analyzed the %llu events read (%llu bytes of %llu, %s)",
                          strchr(where, ':') ? strchr(where, ':') + 2 : where, (unsigned long long)t->events_total,
                          (unsigned long long)t->bytes_decoded, (unsigned long long)(size ? size : t->bytes_decoded),
                          TC_PCT1(pc, share_of(t->bytes_decoded, size ? size : t->bytes_decoded)));
        snprintf(msg, msglen, "%s", where);
        status = TC_LOAD_DAMAGED;
    }
    if (finish_trace(t, path, msg, msglen)) status = TC_LOAD_NO_MEMORY;
done:
    free(buf);
    if (r) r->end(ctx);
    return status;
}

/* The sequential load of path. */
static tc_load_status load_path(tc_trace *t, const char *path, const tc_load_trace_options *o, char *msg,
                                size_t msglen) {
    char err[512] = "";
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) { snprintf(msg, msglen, "%s", err); return TC_LOAD_UNREADABLE; }
    tc_load_status status = load_source(t, src, path, o, msg, msglen);
    tc_source_close(src);
    return status;
}

/* The reader that takes the input src begins with (read from where it stands: nothing read yet);
 * NULL when it is empty, damaged at once, or no reader takes it. */
static const tc_reader *sniff_source(tc_source *src) {
    char head[TC_READER_SNIFF], err[512];
    long n = tc_source_read(src, head, sizeof head, err, sizeof err);
    return n > 0 ? tc_reader_for(head, (size_t)n) : NULL;
}

/* The regular file path read by r's parallel parse; when that is unsure, read again sequentially,
 * which decides what damage means. */
static tc_load_status load_parallel(tc_trace *t, const tc_reader *r, const char *path, const tc_load_trace_options *o,
                                    char *msg, size_t msglen) {
    char err[512];
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) { snprintf(msg, msglen, "%s", err); return TC_LOAD_UNREADABLE; }
    tc_read_options ro = {.comm = o->comm, .pool = o->pool};
    int rc = r->parse_parallel(t, src, o->threads, &ro, o->progress, o->progress_ctx);
    tc_source_close(src);
    if (rc == 0) return finish_trace(t, path, msg, msglen) ? TC_LOAD_NO_MEMORY : TC_LOAD_OK;
    /* start over, sequentially (a regular file can be opened again) */
    char *p = tc_strdup(path);
    tc_trace_free(t);
    int init = tc_trace_init(t, p);
    free(p);
    if (init) { snprintf(msg, msglen, "%s: out of memory", path); return TC_LOAD_NO_MEMORY; }
    return load_path(t, path, o, msg, msglen);
}

tc_load_status tc_load_trace_opts(tc_trace *t, const char *path, const tc_load_trace_options *o, char *msg,
                                  size_t msglen) {
    if (o->threads <= 1 || strcmp(path, "-") == 0) return load_path(t, path, o, msg, msglen);
    /* opened once: a pipe, FIFO or /dev/stdin can be read only once, so anything but a regular file
     * is read sequentially from this very source */
    char err[512];
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) { snprintf(msg, msglen, "%s", err); return TC_LOAD_UNREADABLE; }
    if (tc_source_file_size(src) == 0) {
        tc_load_status status = load_source(t, src, path, o, msg, msglen);
        tc_source_close(src);
        return status;
    }
    /* a regular file: its first bytes say which reader reads it, and whether in parallel */
    const tc_reader *r = sniff_source(src);
    tc_source_close(src);
    if (r && r->parse_parallel) return load_parallel(t, r, path, o, msg, msglen);
    return load_path(t, path, o, msg, msglen);
}

tc_load_status tc_load_trace(tc_trace *t, const char *path, tc_progress_fn progress, void *progress_ctx,
                             char *msg, size_t msglen) {
    tc_load_trace_options o = {.threads = 1, .progress = progress, .progress_ctx = progress_ctx};
    return tc_load_trace_opts(t, path, &o, msg, msglen);
}
