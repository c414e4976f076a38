/* fuzz_parse.c: libFuzzer harness over the whole library path a trace takes: the Chrome-trace
 * parser (fed whole, in a few chunks whose sizes come from the input, and in pieces cut where the
 * separator learned from the first two events recurs, as the parallel parse cuts them: whenever
 * every piece parses, the trace must be the whole parse's), job assembly (parsers/assemble.h:
 * tc_job_assemble_parsed, as every command assembles its job) of a 1- or 2-rank job made of the
 * result, tc_job_analyze on it, and the JSON report written to a memory stream; and the scanner's
 * paths (parsers/vscan.h: scalar, SSE2, AVX2, each against the byte scanner without an index) fed
 * the same chunks must make the same decisions, errors and trace. Built by `make fuzz` with
 * clang -fsanitize=fuzzer,address,undefined; every library source is compiled the same way. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/analyze.h"
#include "model/job.h"
#include "parsers/assemble.h"
#include "parsers/chrome_trace.h"
#include "parsers/split.h"
#include "parsers/vscan.h"
#include "reports/json_report.h"
#include "reports/text_report.h"
#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_tree.h>
#include <stdlib.h>
#include <string.h>

/* Strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF); the report must always be. */
static int valid_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        unsigned min, cp;
        if (c < 0x80) { i++; continue; }
        else if ((c & 0xE0) == 0xC0) { k = 1; min = 0x80; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { k = 2; min = 0x800; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { k = 3; min = 0x10000; cp = c & 0x07; }
        else return 0;
        if (i + k >= n) return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        i += k + 1;
    }
    return 1;
}

/* Aborts (a finding) when the JSON report is not strictly valid UTF-8 JSON. */
static void check_report(const char *buf, size_t len) {
    if (!valid_utf8((const unsigned char *)buf, len)) { fprintf(stderr, "report is not valid UTF-8\n"); abort(); }
    char *copy = malloc(len + 1);
    if (!copy) return;
    memcpy(copy, buf, len);
    copy[len] = 0;
    char err[256];
    yajl_val v = yajl_tree_parse(copy, err, sizeof err);
    if (!v) { fprintf(stderr, "report is not valid JSON: %s\n", err); abort(); }
    yajl_tree_free(v);
    free(copy);
}

/* Parses data into t in chunks of 1 + (chunk_seed % 4093) bytes (UINT32_MAX: in one feed). */
static void parse_into(tc_trace *t, const uint8_t *data, size_t size, unsigned chunk_seed) {
    tc_ct_parser *p = tc_ct_parser_new(t);
    if (!p) return;
    size_t chunk = chunk_seed == UINT32_MAX ? (size ? size : 1) : 1 + chunk_seed % 4093, off = 0;
    int failed = 0;
    while (off < size && !failed) {
        size_t n = size - off < chunk ? size - off : chunk;
        failed = tc_ct_parser_feed(p, (const char *)data + off, n) != 0;
        off += n;
    }
    if (tc_ct_parser_finish(p) != 0 || failed) { /* finished after a failed feed too, as the loader does */
        t->truncated = true;
        tc_trace_warn(t, "%s", tc_ct_parser_error(p));
    }
    tc_ct_parser_free(p);
    tc_trace_settle_times(t);
}

/* What one parse with a scanner path made besides the trace. */
typedef struct {
    int rc;
    unsigned long long fast, emitted, err_at;
    char error[512];
} path_out;

/* Parses data with the scanner's path, and templates or not, in chunks of `chunk` bytes into t
 * (initialized). */
static path_out parse_path(tc_trace *t, const uint8_t *data, size_t size, vs_path path, bool templates, size_t chunk) {
    path_out o = {-1, 0, 0, 0, ""};
    tc_ct_parser *p = tc_ct_parser_new(t);
    if (!p) return o;
    tc_ct_parser_set_scan(p, path);
    tc_ct_parser_set_templates(p, templates);
    o.rc = 0;
    for (size_t off = 0; off < size && o.rc == 0; off += chunk)
        o.rc = tc_ct_parser_feed(p, (const char *)data + off, size - off < chunk ? size - off : chunk);
    if (o.rc == 0) o.rc = tc_ct_parser_finish(p);
    o.fast = tc_ct_parser_fast_skipped(p);
    o.emitted = tc_ct_parser_emitted(p);
    o.err_at = o.rc ? tc_ct_parser_error_offset(p) : 0;
    snprintf(o.error, sizeof o.error, "%s", o.rc ? tc_ct_parser_error(p) : "");
    tc_ct_parser_free(p);
    return o;
}

static void check_same(const tc_trace *a, const tc_trace *b, const char *how);

/* Every scanner path, with templates and without, parses data as the byte scanner without them
 * does, whole and in chunks of a size taken from the input: the same events before and without
 * yajl, the same error, the same trace. */
static void compare_paths(const uint8_t *data, size_t size) {
    static const vs_path paths[] = {VS_SCALAR, VS_SSE2, VS_AVX2, VS_NONE};
    size_t chunks[2] = {size ? size : 1, 1 + (size * 40503u) % 4099};
    for (int c = 0; c < 2; c++) {
        tc_trace ref;
        if (tc_trace_init(&ref, "r")) return;
        path_out r = parse_path(&ref, data, size, VS_NONE, false, chunks[c]);
        for (size_t k = 0; k < 2 * (sizeof paths / sizeof paths[0]) - 1; k++) {
            tc_trace t;
            if (tc_trace_init(&t, "p")) break;
            vs_path path = paths[k % 4];
            bool templates = k < 4;
            path_out o = parse_path(&t, data, size, path, templates, chunks[c]);
            if (o.rc != r.rc || o.fast != r.fast || o.emitted != r.emitted || o.err_at != r.err_at || strcmp(o.error, r.error)) {
                fprintf(stderr, "scanner path %d%s, chunk %zu: rc %d/%d, before yajl %llu/%llu, without %llu/%llu, error '%s'/'%s'\n",
                        (int)path, templates ? " with templates" : "", chunks[c], o.rc, r.rc, o.fast, r.fast, o.emitted, r.emitted,
                        o.error, r.error);
                abort();
            }
            check_same(&ref, &t, "scanner path");
            tc_trace_free(&t);
        }
        tc_trace_free(&ref);
    }
}

/* Chunk boundaries and pieces must not matter: the same bytes fed whole, in chunks or in pieces give
 * the same trace (`how` names the second way). */
static void check_same(const tc_trace *a, const tc_trace *b, const char *how) {
    int same = a->events_total == b->events_total && a->events_skipped == b->events_skipped &&
               a->n_gpu == b->n_gpu && a->n_cpu_steps == b->n_cpu_steps && a->n_gpu_steps == b->n_gpu_steps &&
               a->n_launches == b->n_launches && a->n_colls == b->n_colls && a->n_devices == b->n_devices &&
               a->n_host == b->n_host && a->rank == b->rank && a->n_warnings == b->n_warnings;
    for (size_t i = 0; same && i < a->n_gpu; i++)
        same = a->gpu[i].start_ns == b->gpu[i].start_ns && a->gpu[i].dur_ns == b->gpu[i].dur_ns &&
               strcmp(tc_trace_str(a, a->gpu[i].name), tc_trace_str(b, b->gpu[i].name)) == 0;
    /* host spans: whole, many are recorded by the check before yajl; in chunks, by yajl */
    for (size_t i = 0; same && i < a->n_host; i++)
        same = a->host[i].ts_ns == b->host[i].ts_ns && a->host[i].dur_ns == b->host[i].dur_ns &&
               a->host[i].kind == b->host[i].kind &&
               strcmp(tc_trace_str(a, a->host[i].name), tc_trace_str(b, b->host[i].name)) == 0 &&
               strcmp(tc_trace_str(a, a->host[i].thread), tc_trace_str(b, b->host[i].thread)) == 0;
    for (size_t i = 0; same && i < a->n_launches; i++)
        same = a->launches[i].dur_ns == b->launches[i].dur_ns &&
               strcmp(tc_trace_str(a, a->launches[i].name), tc_trace_str(b, b->launches[i].name)) == 0 &&
               strcmp(tc_trace_str(a, a->launches[i].thread), tc_trace_str(b, b->launches[i].thread)) == 0;
    if (!same) { fprintf(stderr, "%s and whole parses differ\n", how); abort(); }
}

/* One piece of the events array, b[from, to) (its events; the comma after them left out), parsed
 * on its own and appended to t, its skip counts handed to p0, as parsers/parallel.c does. */
static int parse_piece(tc_trace *t, tc_ct_parser *p0, const char *b, size_t from, size_t to, uint32_t **remap,
                       size_t *remap_cap) {
    tc_trace piece;
    if (tc_trace_init(&piece, "piece")) return -1;
    tc_ct_parser *pp = tc_ct_parser_new_events(&piece);
    int rc = pp && tc_ct_parser_feed(pp, "[", 1) == 0 && tc_ct_parser_feed(pp, b + from, to - from) == 0 &&
             tc_ct_parser_feed(pp, "]", 1) == 0 && tc_ct_parser_finish(pp) == 0 ? 0 : -1;
    if (rc == 0) rc = tc_trace_append(t, &piece, remap, remap_cap);
    if (rc == 0) tc_ct_parser_absorb(p0, pp);
    tc_ct_parser_free(pp);
    tc_trace_free(&piece);
    return rc;
}

/* The parallel parse's way, with a cut at every candidate boundary: the head (up to the events
 * array's '[') and the rest after the last cut go to one parser, each piece between two cuts to its
 * own. 0 when every part parsed (the trace must then be the whole parse's); -1 when one did not
 * (the parallel parse falls back to the whole parse) or no separator was learned. */
static int parse_in_pieces(tc_trace *t, const uint8_t *data, size_t size) {
    const char *b = (const char *)data;
    size_t body;
    tc_split_pattern pat;
    if (tc_split_find_events(b, size, &body) != TC_SPLIT_FOUND || tc_split_learn(b, size, body, &pat) != TC_SPLIT_FOUND)
        return -1;
    tc_ct_parser *p0 = tc_ct_parser_new(t);
    uint32_t *remap = NULL;
    size_t remap_cap = 0, from = body, at;
    int rc = p0 && tc_ct_parser_feed(p0, b, body) == 0 ? 0 : -1;
    while (rc == 0 && (at = tc_split_next(&pat, b, size, from)) != TC_SPLIT_NONE) {
        rc = parse_piece(t, p0, b, from, at - pat.brace + 1, &remap, &remap_cap);
        from = at;
    }
    if (rc == 0) rc = tc_ct_parser_feed(p0, b + from, size - from) == 0 && tc_ct_parser_finish(p0) == 0 ? 0 : -1;
    free(remap);
    tc_ct_parser_free(p0);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    compare_paths(data, size);
    {
        tc_trace whole, chunked;
        if (tc_trace_init(&whole, "w") == 0) {
            if (tc_trace_init(&chunked, "c") == 0) {
                parse_into(&whole, data, size, UINT32_MAX); /* one feed */
                parse_into(&chunked, data, size, (unsigned)(size % 7)); /* chunks of 1..7 bytes */
                check_same(&whole, &chunked, "chunked");
                tc_trace_free(&chunked);
            }
            tc_trace pieces;
            if (!whole.truncated && tc_trace_init(&pieces, "w") == 0) {
                if (parse_in_pieces(&pieces, data, size) == 0) check_same(&whole, &pieces, "pieces");
                tc_trace_free(&pieces);
            }
            tc_trace_free(&whole);
        }
    }
    /* the input stays a plain trace (so the seed corpus is plain traces); the job shape and the
     * chunking come from its size: odd sizes make a 2-rank job, the chunk size varies with it */
    unsigned ctl = (unsigned)((size * 2654435761u) >> 7);
    size_t ranks = (size & 1) ? 2 : 1;
    char *paths[2] = {"rank0.json", "rank1.json"};
    /* the parsed files as tc_job_parse_files gives them (job assembly takes the arrays over) */
    tc_loaded_files lf = {calloc(2, sizeof *lf.traces), calloc(2, sizeof *lf.status), calloc(2, sizeof *lf.msg), 0};
    if (!lf.traces || !lf.status || !lf.msg) { free(lf.traces); free(lf.status); free(lf.msg); return 0; }
    size_t half = ranks == 2 ? size / 2 : size;
    for (size_t r = 0; r < ranks; r++) {
        tc_trace *t = &lf.traces[r];
        if (tc_trace_init(t, paths[r])) { lf.status[r] = TC_LOAD_NO_MEMORY; continue; }
        /* with two ranks, rank 1 parses the same bytes (a job of twins exercises matching) unless
         * the input is long enough to give each rank its own half */
        if (ranks == 2 && size >= 64) parse_into(t, r ? data + half : data, r ? size - half : half, ctl);
        else parse_into(t, data, size, ctl);
        lf.status[r] = t->truncated ? TC_LOAD_DAMAGED : TC_LOAD_OK;
        snprintf(lf.msg[r], sizeof lf.msg[r], "%s: damaged", paths[r]);
        tc_trace_note_spans(t); /* as the per-file load step does (parsers/assemble.c) */
    }
    lf.n = ranks;
    tc_job j;
    tc_job_init(&j);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_assemble_options aopt = {.jobs = 1};
    tc_assembly_status st = tc_job_assemble_parsed(&j, paths, NULL, &lf, &aopt, &notes);
    tc_notes_free(&notes);
    if (st == TC_ASSEMBLY_OK || st == TC_ASSEMBLY_DAMAGED) {
        tc_analyze_options opt = {.bound_threshold = 0.15, .jobs = 1};
        if (tc_job_analyze(&j, &opt) == 0) {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            if (f) {
                tc_json_report_write(f, &j, 1);
                fclose(f);
                check_report(buf, len);
            }
            free(buf);
            buf = NULL;
            f = open_memstream(&buf, &len);
            if (f) {
                tc_text_report_write(f, &j, &(tc_term_opts){false, TC_TERM_WIDTH});
                fclose(f);
            }
            free(buf);
        }
    }
    tc_job_free(&j);
    return 0;
}
