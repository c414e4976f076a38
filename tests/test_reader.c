/* test_reader.c: the reader interface (parsers/reader.h) and the loader's dispatch on it
 * (parsers/load.h): which reader takes an input by its first decoded bytes (an object document
 * and a bare array, plain and gzip), the Chrome-trace reader fed through the interface in chunks
 * of 1..31 bytes giving the trace of one feed, and the byte offset of a syntax error. A new
 * reader's tests go here. */
#include "testutil.h"
#include "model/trace.h"
#include "parsers/load.h"
#include "parsers/reader.h"
#include "parsers/source.h"

#define EVENT "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}"

static const char *const docs[] = {
    "{\"traceEvents\":[" EVENT "," EVENT "]}",
    "[" EVENT "," EVENT "]",
    "  \n\t{\"deviceProperties\":[],\"traceEvents\":[" EVENT "]}",
};

/* Writes len bytes of doc to path, gzip'd when gz. */
static void write_doc(const char *path, const char *doc, size_t len, bool gz) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(doc, 1, len, f), len);
    fclose(f);
    if (gz) cr_assert_eq(tu_sh(NULL, "gzip -f %s && mv %s.gz %s", path, path, path), 0);
}

/* The first bytes of path as the loader shows them to sniff: decoded, at most TC_READER_SNIFF. */
static size_t first_bytes(const char *path, char *head) {
    char err[512];
    tc_source *src = tc_source_open(path, err, sizeof err);
    cr_assert_not_null(src, "%s", err);
    long n = tc_source_read(src, head, TC_READER_SNIFF, err, sizeof err);
    tc_source_close(src);
    cr_assert_gt(n, 0, "%s", err);
    return (size_t)n;
}

Test(reader, dispatch_picks_the_chrome_reader_for_objects_and_arrays_plain_and_gzip) {
    char *dir = tu_tmpdir();
    for (size_t d = 0; d < sizeof docs / sizeof *docs; d++) {
        cr_expect_eq(tc_reader_for(docs[d], strlen(docs[d])), &tc_chrome_reader, "doc %zu", d);
        tc_trace want;
        for (int gz = 0; gz < 2; gz++) {
            char path[300], head[TC_READER_SNIFF];
            snprintf(path, sizeof path, "%s/doc%zu%s", dir, d, gz ? ".gz" : ".json");
            write_doc(path, docs[d], strlen(docs[d]), gz);
            /* gzip lies below the interface: sniff sees the document, not the compressed bytes */
            size_t n = first_bytes(path, head);
            cr_expect_eq(n, strlen(docs[d]));
            cr_expect_eq(memcmp(head, docs[d], n), 0, "%s", path);
            cr_expect_eq(tc_reader_for(head, n), &tc_chrome_reader, "%s", path);
            for (int threads = 1; threads <= 2; threads++) {
                tc_trace t;
                char msg[600];
                cr_assert_eq(tc_trace_init(&t, path), 0);
                tc_load_trace_options o = {.threads = threads};
                cr_assert_eq(tc_load_trace_opts(&t, path, &o, msg, sizeof msg), TC_LOAD_OK, "%s: %s", path, msg);
                cr_expect_eq(t.bytes_decoded, strlen(docs[d]));
                if (gz || threads == 2) {
                    t.bytes = want.bytes; /* compressed bytes aside, the same trace */
                    tu_assert_same_trace(&want, &t, path);
                    tc_trace_free(&t);
                } else want = t;
            }
        }
        tc_trace_free(&want);
    }
    cr_expect_null(tc_reader_for("{}", 0), "nothing to sniff: no reader");
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Reads doc through r's interface in chunks of `chunk` bytes (0: one feed). Returns finish's rc;
 * the error and its offset on failure. */
static int read_through(const tc_reader *r, tc_trace *t, const char *doc, size_t len, size_t chunk, char *err,
                        size_t errlen, uint64_t *err_at) {
    cr_assert_eq(tc_trace_init(t, "doc"), 0);
    tc_read_options ro = {0};
    void *ctx = r->begin(t, &ro);
    cr_assert_not_null(ctx);
    size_t step = chunk ? chunk : len;
    int rc = 0;
    for (size_t off = 0; off < len && rc == 0; off += step) rc = r->feed(ctx, doc + off, off + step > len ? len - off : step);
    if (r->finish(ctx) != 0) rc = -1; /* after a failed feed too, as the loader does */
    snprintf(err, errlen, "%s", rc ? r->error(ctx) : "");
    *err_at = rc ? r->error_offset(ctx) : 0;
    r->end(ctx);
    return rc;
}

Test(reader, chunks_of_1_to_31_bytes_give_the_whole_parse) {
    char *doc = NULL;
    size_t len = 0;
    char err[512], head[TC_READER_SNIFF];
    /* a real trace, decoded: metadata, kernels, launches, ops, annotations and flows */
    tc_source *src = tc_source_open("samples/rank0.pt.trace.json.gz", err, sizeof err);
    cr_assert_not_null(src, "%s", err);
    for (long n; (n = tc_source_read(src, head, sizeof head, err, sizeof err)) > 0; len += (size_t)n) {
        doc = realloc(doc, len + (size_t)n);
        memcpy(doc + len, head, (size_t)n);
    }
    tc_source_close(src);
    cr_assert_gt(len, 10000);
    const tc_reader *r = tc_reader_for(doc, len);
    cr_assert_eq(r, &tc_chrome_reader);
    tc_trace whole;
    uint64_t at;
    cr_assert_eq(read_through(r, &whole, doc, len, 0, err, sizeof err, &at), 0, "%s", err);
    cr_assert_gt(whole.n_gpu, 50);
    for (size_t chunk = 1; chunk <= 31; chunk++) {
        tc_trace t;
        cr_assert_eq(read_through(r, &t, doc, len, chunk, err, sizeof err, &at), 0, "chunk %zu: %s", chunk, err);
        char what[32];
        snprintf(what, sizeof what, "chunk %zu", chunk);
        tu_assert_same_trace(&whole, &t, what);
        tc_trace_free(&t);
    }
    tc_trace_free(&whole);
    free(doc);
}

Test(reader, a_syntax_error_is_reported_with_its_byte_offset) {
    /* the second comma is the error */
    const char *doc = "{\"traceEvents\":[" EVENT ",,"  EVENT "]}";
    size_t at_comma = strlen("{\"traceEvents\":[" EVENT ",");
    for (size_t chunk = 0; chunk <= 7; chunk++) {
        tc_trace t;
        char err[512];
        uint64_t at;
        cr_assert_eq(read_through(&tc_chrome_reader, &t, doc, strlen(doc), chunk, err, sizeof err, &at), -1);
        cr_expect_eq(at, at_comma, "chunk %zu: offset %llu, want %zu (%s)", chunk, (unsigned long long)at, at_comma, err);
        char want[64];
        snprintf(want, sizeof want, "byte %zu ", at_comma);
        cr_expect_eq(strncmp(err, want, strlen(want)), 0, "chunk %zu: %s", chunk, err);
        tc_trace_free(&t);
    }
    /* and through the loader: the path, the reader's name and the same offset */
    char *dir = tu_tmpdir(), path[300], msg[600], want[400];
    snprintf(path, sizeof path, "%s/broken.json", dir);
    write_doc(path, "{\"traceEvents\": [}", 18, false);
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, path), 0);
    tc_load_trace_options o = {.threads = 1};
    cr_assert_eq(tc_load_trace_opts(&t, path, &o, msg, sizeof msg), TC_LOAD_NOT_JSON);
    snprintf(want, sizeof want, "%s: not a Chrome trace: byte 17 ", path);
    cr_expect_eq(strncmp(msg, want, strlen(want)), 0, "%s", msg);
    tc_trace_free(&t);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
