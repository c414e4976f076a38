/* test_parallel.c: the multi-threaded parse gives exactly the sequential result. Unit tests of
 * the boundary finder on tricky inputs (braces, commas, "},\n  {\n" and escaped quotes inside
 * strings) and of the separator it learns in each layout; -j1 vs -j2 byte-identical JSON on every
 * sample in tests/data and on generated jobs in Kineto, one-line, 4-space and sorted-key 2-space
 * layouts (which must also agree with each other); the parallel path is really taken (pieces > 1,
 * right mode) and equals the sequential load record for record (every array of
 * model/trace_arrays.def), with 2, 3 and 9 threads; damaged inputs, wrong candidate boundaries
 * (the separator inside an event, concatenated documents) behave the same with -j1 and -j2, and a
 * piece that fails while others are in flight ends in a clean fallback. Scratch files go to
 * build/test-parallel/. */
#include <criterion/criterion.h>
#include "testutil.h"
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "parsers/chrome_trace.h"
#include "parsers/load.h"
#include "parsers/parallel.h"
#include "parsers/source.h"
#include "parsers/split.h"

#define TMP "build/test-parallel"

static const char *bin(const char *var, const char *dflt) {
    const char *v = getenv(var);
    return v && *v ? v : dflt;
}

static int sh(const char *fmt, ...) {
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Runs analyze with -j1 and -j2 on `inputs`; asserts equal exit codes and byte-identical JSON. */
static int analyze_j1_j2(const char *inputs, const char *tag) {
    const char *tc = bin("TRACECOST_BIN", "build/tracecost");
    int r1 = sh("%s analyze -q -j1 --json %s/%s.j1.json %s 2>%s/%s.j1.err", tc, TMP, tag, inputs, TMP, tag);
    int r2 = sh("%s analyze -q -j2 --json %s/%s.j2.json %s 2>%s/%s.j2.err", tc, TMP, tag, inputs, TMP, tag);
    cr_assert_eq(r1, r2, "%s: exit %d with -j1, %d with -j2", inputs, r1, r2);
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/%s.j1.json", TMP, tag);
    snprintf(b, sizeof b, "%s/%s.j2.json", TMP, tag);
    cr_assert(tu_same_file(a, b), "%s: -j1 and -j2 JSON differ (%s vs %s)", inputs, a, b);
    snprintf(a, sizeof a, "%s/%s.j1.err", TMP, tag);
    snprintf(b, sizeof b, "%s/%s.j2.err", TMP, tag);
    cr_assert(tu_same_file(a, b), "%s: -j1 and -j2 messages differ", inputs);
    return r1;
}

static void setup(void) { mkdir("build", 0777); mkdir(TMP, 0777); }

/* ---- boundary finder ------------------------------------------------------------------------ */

Test(split, finds_the_events_array_among_tricky_metadata) {
    size_t body = 0;
    const char *doc = "{\"a\": \"traceEvents\", \"b\": {\"traceEvents\": [1]}, \"c\": \"x\\\"traceEvents\\\": [\", "
                      "\"d\": [\"}\", \"]\"], \"traceEvents\" :\n [ {\"ph\": \"X\"}]}";
    cr_assert_eq(tc_split_find_events(doc, strlen(doc), &body), TC_SPLIT_FOUND);
    cr_assert_str_eq(doc + body, " {\"ph\": \"X\"}]}", "body starts at '%s'", doc + body);
    cr_assert_eq(tc_split_find_events("  [{}]", 6, &body), TC_SPLIT_FOUND);
    cr_assert_eq(body, 3);
    cr_assert_eq(tc_split_find_events("{\"schemaVersion\": 1, \"traceEv", 30, &body), TC_SPLIT_NEED_MORE);
    cr_assert_eq(tc_split_find_events("{\"x\": 1}  ", 10, &body), TC_SPLIT_NOT_FOUND);
    cr_assert_eq(tc_split_find_events("{\"traceEvents\": {}}", 19, &body), TC_SPLIT_NOT_FOUND);
    cr_assert_eq(tc_split_find_events("42", 2, &body), TC_SPLIT_NOT_FOUND);
}

/* Learns the separator of doc (whose events array starts after its first '['); the pattern text. */
static const char *learned(const char *doc, tc_split_pattern *pat) {
    const char *open = strchr(doc, '[');
    tc_split_find f = tc_split_learn(doc, strlen(doc), (size_t)(open + 1 - doc), pat);
    return f == TC_SPLIT_FOUND ? pat->text : NULL;
}

Test(split, learns_the_separator_of_every_layout) {
    static const struct { const char *doc, *pattern; } c[] = {
        /* Kineto */
        {"{\"traceEvents\": [\n  {\n    \"ph\": \"X\", \"args\": {\"a\": {}}\n  },\n  {\n    \"ph\": \"i\"\n  }\n]}",
         "},\n  {\n    \""},
        /* json.dumps: one line; indent=4; indent=2, sort_keys=True ("args" first, its object closing
         * on the line before) */
        {"{\"traceEvents\": [{\"ph\": \"X\", \"s\": \"}, {\\\"\"}, {\"ph\": \"i\"}]}", "}, {\""},
        {"{\n    \"traceEvents\": [\n        {\n            \"ph\": \"X\"\n        },\n        {\n            \"ph\": \"i\"\n        }\n    ]\n}",
         "},\n        {\n            \""},
        {"{\n  \"traceEvents\": [\n    {\n      \"args\": {\n        \"a\": 1\n      },\n      \"ph\": \"X\"\n    },\n    {\n      \"args\": {}\n    }\n  ]\n}",
         "},\n    {\n      \""},
        {"[{\"ph\":\"X\"},{\"ph\":\"i\"}]", "},{\""},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tc_split_pattern pat;
        const char *got = learned(c[i].doc, &pat);
        cr_assert_not_null(got, "case %zu: nothing learned", i);
        cr_assert_eq(pat.len, strlen(c[i].pattern), "case %zu: '%.*s'", i, (int)pat.len, pat.text);
        cr_assert_eq(memcmp(got, c[i].pattern, pat.len), 0, "case %zu: '%.*s'", i, (int)pat.len, pat.text);
        cr_assert_eq(pat.text[pat.brace], '{');
        /* the second event is found where it is */
        size_t at = tc_split_next(&pat, c[i].doc, strlen(c[i].doc), 0);
        cr_assert_neq(at, TC_SPLIT_NONE, "case %zu", i);
        cr_assert_eq(c[i].doc[at], '{');
        cr_assert_eq(tc_split_next(&pat, c[i].doc, strlen(c[i].doc), at + 1), TC_SPLIT_NONE, "case %zu", i);
    }
    /* nothing to learn: the first element is not an object, the second has no key, one element, a
     * separator longer than TC_SPLIT_PATTERN_MAX; the buffer ends inside the first element */
    static const char *const none[] = {"[0, {\"ph\": \"X\"}, {\"ph\": \"X\"}]", "[{\"ph\": \"X\"}, {}]", "[{\"ph\": \"X\"}]",
                                       "[{\"ph\": 1},                                                                   {\"ph\": 2}]"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        tc_split_pattern pat;
        cr_assert_null(learned(none[i], &pat), "'%s'", none[i]);
        cr_assert_eq(pat.len, 0);
        cr_assert_eq(tc_split_next(&pat, none[i], strlen(none[i]), 0), TC_SPLIT_NONE);
    }
    tc_split_pattern pat;
    static const char *const more[] = {"[{\"ph\": \"X\", \"n", "[{\"ph\": \"X\"}, ", "[{\"ph\": \"X\"}, {\n "};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        cr_assert_eq(tc_split_learn(more[i], strlen(more[i]), 1, &pat), TC_SPLIT_NEED_MORE, "'%s'", more[i]);
}

/* Structural scan of `body` (after the '['), fed in pieces of `step` bytes: boundaries as offsets. */
static size_t scan_all(const char *body, size_t step, size_t *out, size_t max, size_t *end_at) {
    tc_scan s;
    memset(&s, 0, sizeof s);
    size_t len = strlen(body), n = 0, base = 0;
    int64_t last = 0;
    *end_at = TC_SPLIT_NONE;
    while (base < len && !s.ended) {
        size_t part = len - base < step ? len - base : step;
        size_t got[64], stopped;
        size_t k = tc_scan_run(&s, body + base, part, 0, &last, 1, got, 64, &stopped);
        for (size_t i = 0; i < k && n < max; i++) out[n++] = base + got[i];
        if (s.ended) *end_at = base + s.end_at;
        last -= (int64_t)part;
        base += part;
    }
    return n;
}

Test(split, structural_scan_ignores_strings_and_nesting) {
    /* commas, brackets, braces, the Kineto pattern and escaped quotes/backslashes inside strings */
    const char *body = "{\"n\": \"a,b},\\n  {\\n\", \"q\": \"x\\\"],[{\"}, "
                       "{\"args\": {\"l\": [1, 2, {\"k\": [3, 4]}]}, \"s\": \"\\\\\"},\n"
                       "7 , [\"]\", \",\"] ] , \"after the end\"";
    size_t want_end = (size_t)(strstr(body, "] , \"after") - body);
    size_t first = (size_t)(strstr(body, ", {\"args\"") - body) + 1;
    size_t second = (size_t)(strstr(body, ",\n7") - body) + 1;
    size_t third = (size_t)(strstr(body, "7 ,") - body) + 3;
    size_t len = strlen(body);
    for (size_t step = 1; step <= len; step++) { /* every way of cutting it into buffers */
        size_t b[16], end;
        size_t n = scan_all(body, step, b, 16, &end);
        cr_assert_eq(n, 3, "step %zu: %zu boundaries", step, n);
        cr_assert_eq(b[0], first, "step %zu", step);
        cr_assert_eq(b[1], second, "step %zu", step);
        cr_assert_eq(b[2], third, "step %zu", step);
        cr_assert_eq(end, want_end, "step %zu: end at %zu, want %zu", step, end, want_end);
    }
}

Test(split, min_gap_and_trim) {
    const char *body = "1,2,3,4,5,6]";
    tc_scan s;
    memset(&s, 0, sizeof s);
    int64_t last = 0;
    size_t out[8], stopped;
    size_t n = tc_scan_run(&s, body, strlen(body), 0, &last, 4, out, 8, &stopped);
    cr_assert_eq(n, 2);
    cr_assert_eq(out[0], 4); /* "1,2," */
    cr_assert_eq(out[1], 8);
    cr_assert(s.ended);
    cr_assert_eq(tc_split_trim_comma("{} ,\n  ", 7), 3);
    cr_assert_eq(tc_split_trim_comma("{}\n  ", 5), TC_SPLIT_NONE);
}

/* ---- the parallel load equals the sequential one -------------------------------------------- */

/* Loads path both ways; asserts the parallel parse on `threads` threads was taken (in `mode`, in
 * several pieces) and gives the sequential trace. size_hint sizes the pieces (about hint / (16 ×
 * threads) bytes, at least 4 KiB). */
static void check_parallel_load_threads(const char *path, tc_par_mode mode, uint64_t size_hint, int threads) {
    tc_trace seq, par;
    char msg[600];
    cr_assert_eq(tc_trace_init(&seq, path), 0);
    cr_assert_eq(tc_load_trace(&seq, path, NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s: %s", path, msg);
    cr_assert_eq(tc_trace_init(&par, path), 0);
    char err[512];
    tc_source *src = tc_source_open(path, err, sizeof err);
    cr_assert_not_null(src, "%s", err);
    tc_par_info info;
    tc_par_status st = tc_parallel_load(&par, src, threads, size_hint, NULL, NULL, NULL, &info);
    cr_assert_eq(st, TC_PAR_OK, "%s: fell back (%s)", path, info.why ? info.why : "?");
    cr_assert_eq(info.mode, mode, "%s: mode %d, want %d", path, (int)info.mode, (int)mode);
    cr_assert_gt(info.pieces, 1, "%s: %llu pieces", path, (unsigned long long)info.pieces);
    par.bytes = info.raw_bytes;
    par.bytes_decoded = info.decoded_bytes;
    tc_source_close(src);
    tu_assert_same_trace(&seq, &par, path);
    tc_trace_free(&seq);
    tc_trace_free(&par);
}

static void check_parallel_load_hint(const char *path, tc_par_mode mode, uint64_t size_hint) {
    check_parallel_load_threads(path, mode, size_hint, 2);
}

/* A small size hint gives small pieces: many boundaries even in a small file. */
static void check_parallel_load(const char *path, tc_par_mode mode) { check_parallel_load_hint(path, mode, 64 * 1024); }

/* Copies src to dst with a 0 as the events array's first element: no separator can be learned. */
static void make_unlearnable(const char *src, const char *dst) {
    cr_assert_eq(sh("sed '0,/\"traceEvents\": \\[/s//\"traceEvents\": [0,/' %s > %s && grep -q '\"traceEvents\": \\[0,' %s",
                    src, dst, dst), 0, "%s", src);
}

Test(parallel, samples_j1_equals_j2, .init = setup) {
    glob_t g;
    cr_assert_eq(glob("tests/data/*.json.gz", 0, NULL, &g), 0, "no samples in tests/data");
    cr_assert_geq(g.gl_pathc, 4);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char tag[64];
        snprintf(tag, sizeof tag, "sample%zu", i);
        cr_assert_eq(analyze_j1_j2(g.gl_pathv[i], tag), 0, "%s", g.gl_pathv[i]);
    }
    globfree(&g);
}

Test(parallel, samples_take_the_parallel_path, .init = setup) {
    static const struct { const char *name; tc_par_mode mode; } s[] = {
        {"alexnet_cuda_sync", TC_PAR_MODE_PATTERN},
        {"sampled_rank-0", TC_PAR_MODE_PATTERN},  /* one line */
        {"b200_eager_tp8", TC_PAR_MODE_PATTERN},  /* 4-space indentation */
        {"mi250_minitoy_train_ROCm6_2_kineto", TC_PAR_MODE_PATTERN},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        char gz[256], plain[256];
        snprintf(gz, sizeof gz, "tests/data/%s.json.gz", s[i].name);
        snprintf(plain, sizeof plain, "%s/%s.json", TMP, s[i].name);
        cr_assert_eq(sh("gzip -dc %s > %s", gz, plain), 0);
        check_parallel_load(gz, s[i].mode);    /* inflate thread + buffers */
        check_parallel_load(plain, s[i].mode); /* pieces read by their parsers */
        /* a first element that is not an event: no separator learned, the structural scan */
        char odd[300];
        snprintf(odd, sizeof odd, "%s/%s-odd.json", TMP, s[i].name);
        make_unlearnable(plain, odd);
        check_parallel_load(odd, TC_PAR_MODE_STRUCTURAL); /* mapped windows */
        cr_assert_eq(sh("gzip -kf %s", odd), 0);
        snprintf(odd + strlen(odd), sizeof odd - strlen(odd), ".gz");
        check_parallel_load(odd, TC_PAR_MODE_STRUCTURAL); /* inflate thread + buffers */
    }
}

Test(parallel, layouts_agree_and_j1_equals_j2, .init = setup) {
    const char *gen = bin("TRACEGEN_BIN", "build/tracegen");
    static const char *layouts[] = {"kineto", "oneline", "indent4", "indent2sorted"};
    for (int l = 0; l < 4; l++) {
        cr_assert_eq(sh("rm -rf %s/%s && %s -o %s/%s --ranks 2 --steps 40 --clock-offset-us 500 --straggler 1 "
                        "--layout %s >/dev/null", TMP, layouts[l], gen, TMP, layouts[l], layouts[l]), 0);
        char in[1024], tag[64], one[512];
        snprintf(in, sizeof in, "%s/%s/rank0.pt.trace.json %s/%s/rank1.pt.trace.json", TMP, layouts[l], TMP, layouts[l]);
        snprintf(tag, sizeof tag, "layout-%s", layouts[l]);
        cr_assert_eq(analyze_j1_j2(in, tag), 0);
        snprintf(one, sizeof one, "%s/%s/rank0.pt.trace.json", TMP, layouts[l]);
        check_parallel_load(one, TC_PAR_MODE_PATTERN);
        /* gzip'd too */
        cr_assert_eq(sh("gzip -kf %s", one), 0);
        snprintf(in, sizeof in, "%s.gz", one);
        check_parallel_load(in, TC_PAR_MODE_PATTERN);
        snprintf(tag, sizeof tag, "layout-%s-gz", layouts[l]);
        cr_assert_eq(analyze_j1_j2(in, tag), 0);
    }
    /* the same job in four layouts: the same figures (paths and byte counts aside) */
    for (int l = 1; l < 4; l++) {
        int rc = sh("grep -v -e '\"path\"' -e '\"bytes\"' %s/layout-kineto.j2.json > %s/a.txt && "
                    "grep -v -e '\"path\"' -e '\"bytes\"' %s/layout-%s.j2.json > %s/b.txt && cmp -s %s/a.txt %s/b.txt",
                    TMP, TMP, TMP, layouts[l], TMP, TMP, TMP);
        cr_assert_eq(rc, 0, "kineto and %s layouts give different figures", layouts[l]);
    }
}

Test(parallel, kineto_file_pieces_of_many_reads, .init = setup) {
    /* a head longer than one read, pieces longer than one read, and events longer than one
     * boundary search read (a 300 KB name), with the Kineto pattern also inside a string where it
     * is escaped */
    const char *path = TMP "/long.json";
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    /* a head of 300 KB (more than one read) before the events array */
    fputs("{\n  \"schemaVersion\": 1,\n  \"note\": \"", f);
    for (int k = 0; k < 30000; k++) fputs("0123456789", f);
    fputs("\",\n  \"traceEvents\": [\n", f);
    for (int i = 0; i < 3000; i++) {
        if (i) fputs(",\n", f);
        fprintf(f, "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d", i % 7);
        if (i == 1500)
            for (int k = 0; k < 30000; k++) fputs(k % 1000 ? "0123456789" : "},\\n  {\\n", f);
        fprintf(f, "\", \"pid\": 0, \"tid\": 7,\n    \"ts\": %d.500, \"dur\": 2\n  },\n", 10 * i);
        fprintf(f, "  {\n    \"ph\": \"s\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %d,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }", i, 10 * i);
    }
    fputs("\n  ],\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}]\n}\n", f);
    cr_assert_eq(fclose(f), 0);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    check_parallel_load(path, TC_PAR_MODE_PATTERN);
    check_parallel_load_hint(path, TC_PAR_MODE_PATTERN, (uint64_t)st.st_size * 4); /* pieces of size / 8 */
    cr_assert_eq(analyze_j1_j2(path, "long"), 0);
}

/* Candidate boundaries that are not boundaries: the learned separator also inside events (one
 * line, an array of objects in every event's args), and after the events array (metadata after
 * it); two bare arrays one after the other, whose second holds candidates past the first one's end
 * (a piece across them must not parse: the parse of a piece takes one array only). The results are
 * the sequential ones, whether the parallel parse falls back or not. */
Test(parallel, wrong_candidate_boundaries_give_the_sequential_result, .init = setup) {
    FILE *f = fopen(TMP "/nested.json", "w");
    cr_assert_not_null(f);
    fputs("{\"traceEvents\": [", f);
    for (int i = 0; i < 4000; i++)
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 2, "
                   "\"args\": {\"l\": [{\"a\": 1}, {\"b\": [{\"c\": 2}, {\"d\": 3}]}], \"correlation\": %d}}",
                i ? ", " : "", i % 3 ? "kernel" : "cpu_op", i % 5, 10 * i, i);
    fputs("], \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}, {\"id\": 1, \"name\": \"x\"}]}", f);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(analyze_j1_j2(TMP "/nested.json", "nested"), 0);
    f = fopen(TMP "/concat.json", "w");
    cr_assert_not_null(f);
    for (int d = 0; d < 2; d++) {
        fputs("[\n", f);
        for (int i = 0; i < 3000; i++)
            fprintf(f, "%s  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7,\n"
                       "    \"ts\": %d, \"dur\": 2,\n    \"args\": {\"correlation\": %d}\n  }",
                    i ? ",\n" : "", i % 5, 100000 * d + 10 * i, i);
        fputs("\n]\n", f);
    }
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(analyze_j1_j2(TMP "/concat.json", "concat"), 0);
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, TMP "/concat.json"), 0);
    char err[512];
    tc_source *src = tc_source_open(TMP "/concat.json", err, sizeof err);
    cr_assert_not_null(src, "%s", err);
    tc_par_info info;
    cr_assert_eq(tc_parallel_load(&t, src, 2, 64 * 1024, NULL, NULL, NULL, &info), TC_PAR_FALLBACK);
    cr_assert_str_eq(info.why, "a piece did not parse");
    tc_source_close(src);
    tc_trace_free(&t);
}

Test(parallel, damaged_inputs_behave_as_sequential, .init = setup) {
    const char *gen = bin("TRACEGEN_BIN", "build/tracegen");
    cr_assert_eq(sh("rm -rf %s/dmg && %s -o %s/dmg --ranks 1 --steps 40 >/dev/null", TMP, gen, TMP), 0);
    const char *f = TMP "/dmg/rank0.pt.trace.json";
    struct stat st;
    cr_assert_eq(stat(f, &st), 0);
    /* cut mid-array, cut in the tail metadata, garbage mid-array, gzip cut short */
    cr_assert_eq(sh("head -c %lld %s > %s/cut.json", (long long)st.st_size / 2, f, TMP), 0);
    cr_assert_eq(analyze_j1_j2(TMP "/cut.json", "cut"), 3);
    cr_assert_eq(sh("head -c %lld %s > %s/cut-tail.json", (long long)st.st_size - 3, f, TMP), 0);
    cr_assert_eq(analyze_j1_j2(TMP "/cut-tail.json", "cut-tail"), 3);
    cr_assert_eq(sh("cp %s %s/bad.json && printf '@@' | dd of=%s/bad.json bs=1 seek=%lld conv=notrunc 2>/dev/null",
                    f, TMP, TMP, (long long)st.st_size / 3), 0);
    cr_assert_eq(analyze_j1_j2(TMP "/bad.json", "bad"), 3);
    cr_assert_eq(sh("gzip -c %s | head -c 20000 > %s/cut.json.gz", f, TMP), 0);
    cr_assert_eq(analyze_j1_j2(TMP "/cut.json.gz", "cut-gz"), 3);
}

Test(parallel, gzip_engines_agree, .init = setup) {
    /* ISA-L (when built in) and zlib inflate the samples to the same analysis */
    const char *tc = bin("TRACECOST_BIN", "build/tracecost");
    glob_t g;
    cr_assert_eq(glob("tests/data/*.json.gz", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        cr_assert_eq(sh("%s analyze -q -j2 --json %s/eng-default.json %s", tc, TMP, g.gl_pathv[i]), 0);
        cr_assert_eq(sh("TRACECOST_GZIP=zlib %s analyze -q -j2 --json %s/eng-zlib.json %s", tc, TMP, g.gl_pathv[i]), 0);
        cr_assert(tu_same_file(TMP "/eng-default.json", TMP "/eng-zlib.json"), "%s: engines differ", g.gl_pathv[i]);
    }
    globfree(&g);
}

/* The pool's size does not change the result: 3 and 9 threads (more than this machine has cores),
 * on the three paths (plain file with a learned separator, mapped windows, inflate task + buffers). */
Test(parallel, thread_counts_agree, .init = setup) {
    cr_assert_eq(sh("gzip -dc tests/data/alexnet_cuda_sync.json.gz > %s/alexnet.json && "
                    "gzip -dc tests/data/b200_eager_tp8.json.gz > %s/b200-learnable.json", TMP, TMP), 0);
    make_unlearnable(TMP "/b200-learnable.json", TMP "/b200.json");
    for (int threads = 3; threads <= 9; threads += 6) {
        check_parallel_load_threads(TMP "/alexnet.json", TC_PAR_MODE_PATTERN, 64 * 1024, threads);
        check_parallel_load_threads(TMP "/b200.json", TC_PAR_MODE_STRUCTURAL, 64 * 1024, threads);
        check_parallel_load_threads("tests/data/alexnet_cuda_sync.json.gz", TC_PAR_MODE_PATTERN, 64 * 1024, threads);
    }
}

/* A piece that does not parse while others are in flight: the load falls back, after waiting for
 * the pieces in flight and freeing them (no hang, no leak under the sanitizers). */
Test(parallel, fallback_waits_for_pieces_in_flight, .init = setup) {
    const char *gen = bin("TRACEGEN_BIN", "build/tracegen");
    cr_assert_eq(sh("rm -rf %s/inflight && %s -o %s/inflight --ranks 1 --steps 40 >/dev/null", TMP, gen, TMP), 0);
    const char *f = TMP "/inflight/rank0.pt.trace.json";
    struct stat st;
    cr_assert_eq(stat(f, &st), 0);
    cr_assert_eq(sh("printf '@@' | dd of=%s bs=1 seek=%lld conv=notrunc 2>/dev/null", f, (long long)st.st_size / 3), 0);
    cr_assert_eq(sh("gzip -kf %s", f), 0);
    const char *paths[] = {f, TMP "/inflight/rank0.pt.trace.json.gz"};
    for (size_t i = 0; i < 2; i++) {
        tc_trace t;
        cr_assert_eq(tc_trace_init(&t, paths[i]), 0);
        char err[512];
        tc_source *src = tc_source_open(paths[i], err, sizeof err);
        cr_assert_not_null(src, "%s", err);
        tc_par_info info;
        cr_assert_eq(tc_parallel_load(&t, src, 6, 64 * 1024, NULL, NULL, NULL, &info), TC_PAR_FALLBACK, "%s", paths[i]);
        cr_assert_str_eq(info.why, "a piece did not parse", "%s: %s", paths[i], info.why);
        tc_source_close(src);
        tc_trace_free(&t);
    }
}

/* A byte order mark before the document and a kernel whose "dur" ends null, in a file cut into
 * pieces: the parallel parse is taken and gives the sequential trace (the kernel skipped as without
 * "dur", the mark passed over with its note), plain and gzip'd. */
Test(parallel, byte_order_mark_and_null_duplicate_in_pieces, .init = setup) {
    cr_assert_eq(sh("{ printf '\\357\\273\\277'; awk 'BEGIN { printf \"{\\\"traceEvents\\\": [\\n\"; "
                    "for (i = 0; i < 20000; i++) printf \"{\\\"ph\\\": \\\"X\\\", \\\"cat\\\": \\\"kernel\\\", \\\"name\\\": \\\"k%%d\\\", "
                    "\\\"pid\\\": 0, \\\"tid\\\": 7, \\\"ts\\\": %%d, \\\"dur\\\": 5%%s}%%s\\n\", i %% 7, i * 10, "
                    "i == 12345 ? \", \\\"dur\\\": null\" : \"\", i < 19999 ? \",\" : \"\"; printf \"]}\\n\" }'; } >%s/bomnull.json "
                    "&& gzip -nkf %s/bomnull.json", TMP, TMP), 0);
    const char *paths[] = {TMP "/bomnull.json", TMP "/bomnull.json.gz"};
    for (size_t i = 0; i < 2; i++) {
        check_parallel_load(paths[i], TC_PAR_MODE_PATTERN);
        tc_trace t;
        char msg[600];
        cr_assert_eq(tc_trace_init(&t, paths[i]), 0);
        cr_assert_eq(tc_load_trace(&t, paths[i], NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s: %s", paths[i], msg);
        cr_assert_eq(t.n_gpu, 19999);
        cr_assert_eq(t.events_skipped, 1);
        cr_assert_eq(t.n_warnings, 2, "the mark and the skip: %zu", t.n_warnings);
        cr_assert(strstr(t.warnings[0], "byte order mark"), "%s", t.warnings[0]);
        tc_trace_free(&t);
    }
}
