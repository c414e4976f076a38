/* chrome_reader.c: the Chrome-trace (Kineto JSON) reader (reader.h): the streaming parser of
 * chrome_trace.h behind the reader interface, and its parse of a regular file on several threads
 * (parallel.h). It takes every input: for one that is no JSON, the parser's error says so. */
#include "reader.h"
#include "chrome_trace.h"
#include "parallel.h"

static bool chrome_sniff(const char *head, size_t len) {
    (void)head;
    (void)len;
    return true;
}

static void *chrome_begin(tc_trace *t, const tc_read_options *opt) {
    tc_ct_parser *p = tc_ct_parser_new(t);
    if (p && opt) tc_ct_parser_set_comm(p, opt->comm);
    return p;
}

static int chrome_feed(void *ctx, const char *buf, size_t len) { return tc_ct_parser_feed(ctx, buf, len); }
static int chrome_finish(void *ctx) { return tc_ct_parser_finish(ctx); }
static const char *chrome_error(const void *ctx) { return tc_ct_parser_error(ctx); }
static uint64_t chrome_error_offset(const void *ctx) { return tc_ct_parser_error_offset(ctx); }
static void chrome_end(void *ctx) { tc_ct_parser_free(ctx); }

static int chrome_parse_parallel(tc_trace *t, tc_source *src, int threads, const tc_read_options *opt,
                                 tc_progress_fn progress, void *progress_ctx) {
    uint64_t size = tc_source_file_size(src);
    /* gzip'd traces inflate to about 10x; the hint only sizes the pieces */
    uint64_t hint = tc_source_format_of(src) == TC_SOURCE_GZIP ? size * 10 : size;
    tc_par_info info;
    if (tc_parallel_load(t, src, threads, hint, opt, progress, progress_ctx, &info) != TC_PAR_OK) return -1;
    t->bytes = info.raw_bytes;
    t->bytes_decoded = info.decoded_bytes;
    return 0;
}

const tc_reader tc_chrome_reader = {
    .name = "Chrome trace",
    .syntax = "JSON",
    .sniff = chrome_sniff,
    .begin = chrome_begin,
    .feed = chrome_feed,
    .finish = chrome_finish,
    .error = chrome_error,
    .error_offset = chrome_error_offset,
    .end = chrome_end,
    .parse_parallel = chrome_parse_parallel,
};
