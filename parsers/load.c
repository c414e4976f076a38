/* load.c: source -> parser pump with damage handling (see load.h). */
#include "load.h"
#include "chrome_trace.h"
#include "parallel.h"
#include "source.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 100.0; }

/* What every parse of a trace ends with, whichever way it was read: its time budget settled and its
 * comm kernels given the collective args of the ops that launched them. 0, or -1 out of memory
 * (the message written). */
static int finish_trace(tc_trace *t, const char *path, char *msg, size_t msglen) {
    tc_trace_settle_times(t);
    if (!tc_trace_link_op_colls(t)) return 0;
    snprintf(msg, msglen, "%s: out of memory", path);
    return -1;
}

/* The sequential load of an opened source (read from where it stands: nothing read yet); the
 * caller closes it. */
static tc_load_status load_source(tc_trace *t, tc_source *src, const char *path, const tc_load_trace_options *o,
                                  char *msg, size_t msglen) {
    char err[512] = "";
    tc_ct_parser *p = tc_ct_parser_new(t);
    if (p) tc_ct_parser_set_comm(p, o->comm);
    char *buf = malloc(TC_LOAD_CHUNK);
    if (!p || !buf) {
        snprintf(msg, msglen, "%s: out of memory", path);
        tc_ct_parser_free(p);
        free(buf);
        return TC_LOAD_NO_MEMORY;
    }
    tc_load_status status = TC_LOAD_OK;
    bool parse_failed = false, source_failed = false;
    if (tc_source_format_of(src) != TC_SOURCE_GZIP) tc_trace_reserve(t, tc_source_file_size(src));
    for (;;) {
        long n = tc_source_read(src, buf, TC_LOAD_CHUNK, err, sizeof err);
        if (n > 0 && tc_ct_parser_feed(p, buf, (size_t)n) != 0) { parse_failed = true; break; }
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
    /* after a JSON error too: finish adds the warnings of what was skipped before it */
    if (tc_ct_parser_finish(p) != 0) parse_failed = true;
    bool gz_cut = tc_source_truncated(src);
    if (parse_failed || source_failed || gz_cut) {
        bool nothing = t->events_total == 0 && t->n_devices == 0 && t->n_gpu == 0;
        char where[600];
        if (source_failed) snprintf(where, sizeof where, "%s", err);
        else if (gz_cut && !parse_failed) snprintf(where, sizeof where, "%s: gzip stream ends early", path);
        else snprintf(where, sizeof where, "%s: %s", path, tc_ct_parser_error(p));
        if (gz_cut && parse_failed) {
            /* the JSON error is only the consequence of the cut gzip stream */
            snprintf(where, sizeof where, "%s: gzip stream ends early (JSON cut at %s)", path, tc_ct_parser_error(p));
        }
        if (nothing && !gz_cut && !source_failed) {
            snprintf(msg, msglen, "%s: not a Chrome trace: %s", path, tc_ct_parser_error(p));
            status = TC_LOAD_NOT_JSON;
            goto done;
        }
        t->truncated = true;
        uint64_t size = tc_source_file_size(src);
        if (tc_source_format_of(src) == TC_SOURCE_GZIP)
            tc_trace_warn(t, "%s; analyzed the %llu events read (%llu JSON bytes from %llu of %llu compressed bytes, %.1f%%)",
                          strchr(where, ':') ? strchr(where, ':') + 2 : where, (unsigned long long)t->events_total,
                          (unsigned long long)t->bytes_decoded, (unsigned long long)t->bytes,
                          (unsigned long long)size, pct(t->bytes, size));
        else
            tc_trace_warn(t, "%s; analyzed the %llu events read (%llu bytes of %llu, %.1f%%)",
                          strchr(where, ':') ? strchr(where, ':') + 2 : where, (unsigned long long)t->events_total,
                          (unsigned long long)t->bytes_decoded, (unsigned long long)(size ? size : t->bytes_decoded),
                          pct(t->bytes_decoded, size ? size : t->bytes_decoded));
        snprintf(msg, msglen, "%s", where);
        status = TC_LOAD_DAMAGED;
    }
    if (finish_trace(t, path, msg, msglen)) status = TC_LOAD_NO_MEMORY;
done:
    free(buf);
    tc_ct_parser_free(p);
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

tc_load_status tc_load_trace_opts(tc_trace *t, const char *path, const tc_load_trace_options *o, char *msg,
                                  size_t msglen) {
    if (o->threads <= 1 || strcmp(path, "-") == 0) return load_path(t, path, o, msg, msglen);
    /* opened once: a pipe, FIFO or /dev/stdin can be read only once, so anything but a regular file
     * is read sequentially from this very source */
    char err[512];
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) { snprintf(msg, msglen, "%s", err); return TC_LOAD_UNREADABLE; }
    uint64_t size = tc_source_file_size(src);
    if (size == 0) {
        tc_load_status status = load_source(t, src, path, o, msg, msglen);
        tc_source_close(src);
        return status;
    }
    /* gzip'd traces inflate to about 10x; the hint only sizes the pieces */
    uint64_t hint = tc_source_format_of(src) == TC_SOURCE_GZIP ? size * 10 : size;
    tc_par_info info;
    tc_read_options ro = {.comm = o->comm};
    if (tc_parallel_load(t, src, o->threads, hint, &ro, o->progress, o->progress_ctx, &info) == TC_PAR_OK) {
        t->bytes = info.raw_bytes;
        t->bytes_decoded = info.decoded_bytes;
        tc_source_close(src);
        return finish_trace(t, path, msg, msglen) ? TC_LOAD_NO_MEMORY : TC_LOAD_OK;
    }
    tc_source_close(src);
    /* start over, sequentially (a regular file can be opened again): it decides what damage means */
    char *p = tc_strdup(path);
    tc_trace_free(t);
    int rc = tc_trace_init(t, p);
    free(p);
    if (rc) { snprintf(msg, msglen, "%s: out of memory", path); return TC_LOAD_NO_MEMORY; }
    return load_path(t, path, o, msg, msglen);
}

tc_load_status tc_load_trace(tc_trace *t, const char *path, tc_progress_fn progress, void *progress_ctx,
                             char *msg, size_t msglen) {
    tc_load_trace_options o = {.threads = 1, .progress = progress, .progress_ctx = progress_ctx};
    return tc_load_trace_opts(t, path, &o, msg, msglen);
}

tc_load_status tc_load_trace_mt(tc_trace *t, const char *path, int threads, tc_progress_fn progress,
                                void *progress_ctx, char *msg, size_t msglen) {
    tc_load_trace_options o = {.threads = threads, .progress = progress, .progress_ctx = progress_ctx};
    return tc_load_trace_opts(t, path, &o, msg, msglen);
}
