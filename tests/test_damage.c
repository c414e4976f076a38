/* test_damage.c: hostile and damaged input, end to end (issue 8): every class of damage gives its
 * documented exit code (0 analyzed, 2 nothing analyzable, 3 analyzed with damage), a message naming
 * the file, and the JSON fields that say what was read (inputs[].truncated, skipped_events,
 * warnings). Damaged inputs are made in a temp folder from tests/data/ref/alexnet_cuda_sync.json.gz
 * and small traces written here. Every run goes through `timeout 60`: a hang fails the test. */
#include "testutil.h"
#include "model/trace.h"
#include "parsers/chrome_trace.h"
#include "reports/jsonw.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#define ALEXNET "tests/data/ref/alexnet_cuda_sync.json.gz"
#define KEV "\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7"

typedef struct {
    char *dir;
    char out[600];  /* the --json path */
    char *msgs;     /* stderr of the last run */
    yajl_val json;  /* the last run's JSON report, NULL when none was written */
} ctx;

static void ctx_init(ctx *c) {
    memset(c, 0, sizeof *c);
    c->dir = tu_tmpdir();
    snprintf(c->out, sizeof c->out, "%s/out.json", c->dir);
}

static void ctx_clear(ctx *c) {
    free(c->msgs);
    c->msgs = NULL;
    if (c->json) yajl_tree_free(c->json);
    c->json = NULL;
}

static void ctx_free(ctx *c) {
    ctx_clear(c);
    tu_sh(NULL, "rm -rf '%s'", c->dir);
    free(c->dir);
}

static char *path_in(ctx *c, const char *name) {
    static __thread char buf[4][700];
    static __thread int k;
    char *p = buf[k++ & 3];
    snprintf(p, sizeof buf[0], "%s/%s", c->dir, name);
    return p;
}

/* Runs `tracecost analyze -q --json out.json <args>` under timeout 60; returns the exit code. */
static int analyze(ctx *c, const char *args) {
    ctx_clear(c);
    unlink(c->out);
    int rc = tu_sh(&c->msgs, "timeout 60 %s analyze -q --json '%s' %s", tu_bin(), c->out, args);
    cr_assert_neq(rc, 124, "tracecost hung (killed after 60 s) on %s", args);
    cr_assert_lt(rc, 128, "tracecost crashed (signal %d) on %s: %s", rc - 128, args, c->msgs);
    if (access(c->out, F_OK) == 0) c->json = tu_json_file(c->out);
    return rc;
}

static void write_bytes(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void write_text(const char *path, const char *text) { write_bytes(path, text, strlen(text)); }

/* The alexnet trace unpacked. */
static char *alexnet_json(size_t *len) {
    gzFile g = gzopen(ALEXNET, "rb");
    cr_assert(g, "cannot open " ALEXNET);
    size_t cap = 1 << 20, n = 0;
    char *b = malloc(cap);
    int got;
    while ((got = gzread(g, b + n, (unsigned)(cap - n - 1))) > 0) {
        n += (size_t)got;
        if (cap - n < 4096) b = realloc(b, cap *= 2);
    }
    gzclose(g);
    b[n] = 0;
    *len = n;
    return b;
}

static yajl_val input0(ctx *c, const char *key) {
    cr_assert(c->json, "no JSON report; messages: %s", c->msgs);
    return tu_get(c->json, "inputs", "#0", key, NULL);
}

static bool input0_truncated(ctx *c) { return YAJL_IS_TRUE(input0(c, "truncated")); }

/* Concatenated warnings of input 0. */
static void input0_warnings(ctx *c, char *buf, size_t cap) {
    yajl_val w = input0(c, "warnings");
    cr_assert(w && YAJL_IS_ARRAY(w));
    buf[0] = 0;
    for (size_t i = 0; i < w->u.array.len; i++) {
        const char *text = YAJL_GET_STRING(w->u.array.values[i]);
        cr_assert(text, "warnings are strings");
        strncat(buf, text, cap - strlen(buf) - 2);
        strncat(buf, "\n", cap - strlen(buf) - 1);
    }
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF, no stray bytes. */
static bool strict_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], k, min, cp;
        if (c < 0x80) { i++; continue; }
        if ((c & 0xE0) == 0xC0) { k = 1; min = 0x80; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { k = 2; min = 0x800; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { k = 3; min = 0x10000; cp = c & 0x07; }
        else return false;
        if (i + k >= n) return false;
        for (unsigned j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + j] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += k + 1;
    }
    return true;
}

Test(damage, strict_utf8_validator_rejects_what_it_must) {
    cr_assert(strict_utf8((const unsigned char *)"caf\xc3\xa9 \xf0\x9f\x98\x80", 10));
    cr_assert_not(strict_utf8((const unsigned char *)"\xff", 1));
    cr_assert_not(strict_utf8((const unsigned char *)"\xc0\x80", 2));         /* overlong NUL */
    cr_assert_not(strict_utf8((const unsigned char *)"\xed\xa0\x80", 3));     /* surrogate */
    cr_assert_not(strict_utf8((const unsigned char *)"\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    cr_assert_not(strict_utf8((const unsigned char *)"\xc3", 1));             /* cut */
}

/* ---- truncated and corrupted files ------------------------------------------------------------ */

Test(damage, truncated_json_is_analyzed_up_to_the_cut, .timeout = 120) {
    ctx c;
    ctx_init(&c);
    size_t n;
    char *doc = alexnet_json(&n);
    const char *events = strstr(doc, "\"traceEvents\"");
    cr_assert(events);
    cr_assert_eq(analyze(&c, ALEXNET), 0);
    double full_events = tu_num(input0(&c, "events"));
    double fracs[] = {0.3, 0.55, 0.97};
    for (int i = 0; i < 3; i++) {
        size_t cut = (size_t)((double)n * fracs[i]);
        cr_assert_gt(doc + cut, events, "cut inside traceEvents");
        char *f = path_in(&c, "cut.json");
        write_bytes(f, doc, cut);
        char args[800];
        snprintf(args, sizeof args, "'%s'", f);
        cr_assert_eq(analyze(&c, args), 3, "cut at %zu: %s", cut, c.msgs);
        char want[800];
        snprintf(want, sizeof want, "tracecost: warning: %s: byte %zu (line ", f, cut);
        cr_assert(strstr(c.msgs, want), "cut at %zu: %s", cut, c.msgs);
        cr_assert(strstr(c.msgs, "the JSON ends early inside traceEvents (analyzing what was read)"), "%s", c.msgs);
        cr_assert(input0_truncated(&c));
        double ev = tu_num(input0(&c, "events"));
        cr_assert(ev > 0 && ev < full_events, "events %g of %g", ev, full_events);
        char w[4096];
        input0_warnings(&c, w, sizeof w);
        snprintf(want, sizeof want, "(%zu bytes of %zu, 100.0%%)", cut, cut);
        cr_assert(strstr(w, "analyzed the ") && strstr(w, want), "%s", w);
        cr_assert(tu_get(c.json, "ranks", "#0", NULL), "the rank is analyzed");
    }
    free(doc);
    ctx_free(&c);
}

Test(damage, parse_error_message_names_file_offset_line_column_and_excerpt) {
    ctx c;
    ctx_init(&c);
    char *f = path_in(&c, "broken.json");
    write_text(f, "{\"traceEvents\":[\n"
                  "{" KEV ",\"name\":\"k\",\"ts\":1,\"dur\":2},\n"
                  "{" KEV ",\"name\":\"k\",\"ts\":5 \"dur\":2}]}\n");
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 3, "%s", c.msgs);
    char want[1200];
    /* the offending token is "dur" on line 3, bytes 145-149 (columns 60-64); yajl places parse
     * errors inside the offending token, here on its 'd' */
    snprintf(want, sizeof want,
             "tracecost: warning: %s: byte 146 (line 3, column 61): invalid JSON (parse error: after key and "
             "value, inside map, I expect ',' or '}') near 'd\":7,\"name\":\"k\",\"ts\":5 \"dur\":2}]}.' "
             "(analyzing what was read)\n", f);
    cr_assert_str_eq(c.msgs, want);
    cr_assert(input0_truncated(&c));
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 1);
    ctx_free(&c);
}

Test(damage, truncated_gzip_is_analyzed_up_to_the_cut) {
    ctx c;
    ctx_init(&c);
    size_t n;
    char *gz = tu_read_file(ALEXNET, &n);
    char *f = path_in(&c, "cut.json.gz");
    write_bytes(f, gz, n / 2);
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 3, "%s", c.msgs);
    char want[800];
    snprintf(want, sizeof want, "tracecost: warning: %s: gzip stream ends early (JSON cut at byte ", f);
    cr_assert(strstr(c.msgs, want), "%s", c.msgs);
    cr_assert(input0_truncated(&c));
    char w[4096];
    input0_warnings(&c, w, sizeof w);
    snprintf(want, sizeof want, "from %zu of %zu compressed bytes, 100.0%%)", n / 2, n / 2);
    cr_assert(strstr(w, want), "%s", w);
    free(gz);
    ctx_free(&c);
}

Test(damage, corrupted_gzip_stops_at_the_damage) {
    ctx c;
    ctx_init(&c);
    size_t n;
    char *gz = tu_read_file(ALEXNET, &n);
    char *f = path_in(&c, "bad.json.gz");
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    /* bytes flipped in the trailer: zlib's CRC check fails after all the data was inflated */
    char *d = malloc(n);
    memcpy(d, gz, n);
    for (size_t i = n - 8; i < n - 4; i++) d[i] ^= 0xff;
    write_bytes(f, d, n);
    cr_assert_eq(analyze(&c, args), 3, "%s", c.msgs);
    char want[800];
    /* zlib stops at the trailer (byte n - 4); ISA-L reports where its input buffer stood */
    snprintf(want, sizeof want, "tracecost: warning: %s: corrupt gzip data near compressed byte ", f);
    cr_assert(strstr(c.msgs, want), "%s", c.msgs);
    cr_assert(strstr(c.msgs, "(incorrect data check) (analyzing what was read)"), "%s", c.msgs);
    cr_assert(input0_truncated(&c));
    /* bytes flipped mid-stream: inflate garbage stops at a zlib or JSON error; what came before is analyzed */
    for (size_t at = n / 2; at < n - 64; at += n / 8) {
        memcpy(d, gz, n);
        for (size_t i = at; i < at + 16; i++) d[i] ^= 0xff;
        write_bytes(f, d, n);
        int rc = analyze(&c, args);
        cr_assert_eq(rc, 3, "flip at %zu: %s", at, c.msgs);
        cr_assert(strstr(c.msgs, f), "%s", c.msgs);
        cr_assert(input0_truncated(&c));
    }
    /* damage in the first block: nothing can be read */
    memcpy(d, gz, n);
    for (size_t i = 100; i < 116; i++) d[i] ^= 0xff;
    write_bytes(f, d, n);
    cr_assert_eq(analyze(&c, args), 2, "%s", c.msgs);
    snprintf(want, sizeof want, "tracecost: %s: corrupt gzip data near compressed byte ", f);
    cr_assert(strstr(c.msgs, want), "%s", c.msgs);
    free(d);
    free(gz);
    ctx_free(&c);
}

/* ---- nothing analyzable ------------------------------------------------------------------------ */

static void expect_nothing(ctx *c, const char *name, const char *content, const char *message_tail) {
    char *f = path_in(c, name);
    if (content) write_text(f, content);
    char args[800], want[1200];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(c, args), 2, "%s: %s", name, c->msgs);
    snprintf(want, sizeof want, "tracecost: %s%s\n", f, message_tail);
    cr_assert_str_eq(c->msgs, want);
    cr_assert_null(c->json, "no report for nothing analyzable");
}

Test(damage, nothing_analyzable_exits_2_naming_the_file) {
    ctx c;
    ctx_init(&c);
    expect_nothing(&c, "empty.json", "", ": empty input (0 bytes)");
    expect_nothing(&c, "text.json", "hello world\n",
                   ": not a Chrome trace: byte 0 (line 1, column 1): invalid JSON (lexical error: invalid char in "
                   "json text) near 'hello world.'");
    expect_nothing(&c, "cpu.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"ts\":1,\"dur\":2}]}",
                   ": no GPU activity (no kernel, gpu_memcpy or gpu_memset events among 1 events); a CPU-only trace? "
                   "profile the GPU too: torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])");
    /* unreadable: a dangling symlink (chmod 000 does not stop root) */
    cr_assert_eq(symlink("/nonexistent/trace.json", path_in(&c, "dangling.json")), 0);
    expect_nothing(&c, "dangling.json", NULL, ": cannot open: No such file or directory");
    /* a folder (also one named like a trace) without traces */
    cr_assert_eq(mkdir(path_in(&c, "run.json"), 0755), 0);
    write_text(path_in(&c, "run.json/notes.txt"), "no traces here\n");
    expect_nothing(&c, "run.json", NULL, ": folder holds no traces (*.json, *.json.gz)");
    ctx_free(&c);
}

Test(damage, a_damaged_input_beside_good_ones_gives_exit_3) {
    ctx c;
    ctx_init(&c);
    write_text(path_in(&c, "rank1.json"), "");
    char args[800];
    snprintf(args, sizeof args, "%s '%s'", ALEXNET, path_in(&c, "rank1.json"));
    cr_assert_eq(analyze(&c, args), 3, "%s", c.msgs);
    cr_assert(strstr(c.msgs, "rank1.json: empty input (0 bytes)"), "%s", c.msgs);
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 98);
    ctx_free(&c);
}

/* ---- unusable events ----------------------------------------------------------------------------- */

Test(damage, events_with_unusable_fields_are_skipped_and_counted) {
    ctx c;
    ctx_init(&c);
    char *f = path_in(&c, "fields.json");
    write_text(f, "{\"traceEvents\":[\n"
                  "{" KEV ",\"name\":\"good\",\"ts\":10,\"dur\":5},\n"
                  "{" KEV ",\"name\":\"s\",\"ts\":\"abc\",\"dur\":5},\n"
                  "{" KEV ",\"name\":\"s\",\"ts\":10,\"dur\":\"1.5us\"},\n"
                  "{" KEV ",\"name\":\"s\",\"ts\":true,\"dur\":5},\n"
                  "{" KEV ",\"name\":\"neg\",\"ts\":-10,\"dur\":5},\n"
                  "{" KEV ",\"name\":\"neg\",\"ts\":10,\"dur\":-5},\n"
                  "{" KEV ",\"name\":\"big\",\"ts\":1e400,\"dur\":5},\n"
                  "{" KEV ",\"name\":\"big\",\"ts\":10,\"dur\":99999999999999999999},\n"
                  "{" KEV ",\"name\":\"big\",\"ts\":\"1e400\",\"dur\":5},\n"
                  "{" KEV ",\"name\":\"sum\",\"ts\":9223372036854775,\"dur\":9223372036854775},\n"
                  "{\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"noph\",\"ts\":10,\"dur\":5},\n"
                  "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"nots\",\"dur\":5},\n"
                  "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"nodur\",\"ts\":5},\n"
                  "{" KEV ",\"name\":\"nullts\",\"ts\":null,\"dur\":5},\n"
                  "{" KEV ",\"name\":\"good2\",\"ts\":20,\"dur\":5}\n"
                  "]}\n");
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 0, "%s", c.msgs);
    cr_assert_eq(tu_num(input0(&c, "events")), 15);
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 3, "a negative ts is kept");
    cr_assert_eq(tu_num(input0(&c, "skipped_events")), 12);
    cr_assert_not(input0_truncated(&c));
    char w[4096];
    input0_warnings(&c, w, sizeof w);
    cr_assert_str_eq(w, "skipped 1 events without \"ph\"\n"
                        "skipped 2 complete events without \"ts\"\n"
                        "skipped 1 complete events without \"dur\"\n"
                        "skipped 3 events with non-numeric \"ts\" or \"dur\"\n"
                        "skipped 1 events with negative \"dur\"\n"
                        "skipped 4 events with overflowing \"ts\" or \"dur\"\n");
    /* the report holds no NaN or infinity: it parsed as JSON above, and JSON has neither */
    size_t n;
    char *out = tu_read_file(c.out, &n);
    cr_assert_null(strstr(out, "nan"));
    for (const char *p = strstr(out, "inf"); p; p = strstr(p + 1, "inf")) /* the one key holding it */
        cr_assert(!strncmp(p - 1, "\"inferred_deps\"", 15), "%.40s", p);
    free(out);
    ctx_free(&c);
}

/* ---- names, keys, documents -------------------------------------------------------------------- */

Test(damage, invalid_utf8_and_nul_escapes_give_valid_utf8_json) {
    ctx c;
    ctx_init(&c);
    /* two ranks so that the collective's names (with the bad bytes) reach the report */
    for (int r = 0; r < 2; r++) {
        char doc[2048], name[64];
        snprintf(doc, sizeof doc,
                 "{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":["
                 "{" KEV ",\"name\":\"gemm\\u0000tail\xff\",\"ts\":1,\"dur\":2},"
                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":\"st\xfe\",\"name\":\"ncclDevKernel_AllReduce\xc0\x80\","
                 "\"ts\":5,\"dur\":%d,\"args\":{\"Collective name\":\"all\xffreduce\",\"In msg nelems\":100,"
                 "\"Group size\":2,\"dtype\":\"Fl\xed\xa0\x80oat\",\"Process Group Name\":\"p\\ud800g\\u0000x\",\"Seq\":1}}]}",
                 r, r ? 2 : 4);
        snprintf(name, sizeof name, "rank%d.json", r);
        write_text(path_in(&c, name), doc);
    }
    char args[800];
    snprintf(args, sizeof args, "'%s' '%s'", path_in(&c, "rank0.json"), path_in(&c, "rank1.json"));
    cr_assert_eq(analyze(&c, args), 0, "%s", c.msgs);
    size_t n;
    char *out = tu_read_file(c.out, &n);
    cr_assert(strict_utf8((const unsigned char *)out, n), "report is not strict UTF-8");
    cr_assert(strstr(out, "\"all\xef\xbf\xbdreduce\""), "invalid byte replaced by U+FFFD: %s", out);
    cr_assert_eq(strlen(out), n, "no raw NUL in the report");
    free(out);
    cr_assert_eq(tu_num(tu_get(c.json, "summary", "ranks", NULL)), 2);
    ctx_free(&c);
}

Test(damage, duplicated_keys_take_the_last_value) {
    ctx c;
    ctx_init(&c);
    char *f = path_in(&c, "dup.json");
    write_text(f, "{\"traceEvents\":[{\"ph\":\"B\",\"ph\":\"X\",\"cat\":\"cpu_op\",\"cat\":\"kernel\",\"name\":\"a\",\"name\":\"b\","
                  "\"pid\":0,\"tid\":1,\"ts\":\"bad\",\"ts\":5,\"dur\":-1,\"dur\":3}],"
                  "\"traceEvents\":[{" KEV ",\"name\":\"c\",\"ts\":10,\"dur\":3}]}");
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 0, "%s", c.msgs);
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 2);
    cr_assert_eq(tu_num(input0(&c, "skipped_events")), 0);
    ctx_free(&c);
}

Test(damage, concatenated_documents_are_all_read_with_a_warning) {
    ctx c;
    ctx_init(&c);
    char *f = path_in(&c, "cat.json");
    write_text(f, "{\"traceEvents\":[{" KEV ",\"name\":\"a\",\"ts\":10,\"dur\":3}]}\n"
                  "{\"traceEvents\":[{" KEV ",\"name\":\"b\",\"ts\":20,\"dur\":3}]} "
                  "[{" KEV ",\"name\":\"c\",\"ts\":30,\"dur\":3}]");
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 0, "%s", c.msgs);
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 3);
    char w[4096];
    input0_warnings(&c, w, sizeof w);
    cr_assert_str_eq(w, "input holds 3 concatenated JSON documents; events of all were read\n");
    ctx_free(&c);
}

/* ---- size and depth ---------------------------------------------------------------------------- */

Test(damage, deep_nesting_is_handled, .timeout = 120) {
    ctx c;
    ctx_init(&c);
    size_t depth = 100000;
    char *b = malloc(2 * depth + 512);
    memset(b, '[', depth);
    char *f = path_in(&c, "deep.json");
    write_bytes(f, b, depth);
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 2, "%s", c.msgs);
    cr_assert(strstr(c.msgs, "deep.json: not a Chrome trace: byte 100000 (line 1, column 100001): the JSON ends early"), "%s", c.msgs);
    /* the same depth inside an event's args, events around it still read */
    size_t k = (size_t)sprintf(b, "{\"traceEvents\":[{" KEV ",\"name\":\"a\",\"ts\":1,\"dur\":2,\"args\":{\"x\":");
    memset(b + k, '[', depth);
    memset(b + k + depth, ']', depth);
    k += 2 * depth;
    k += (size_t)sprintf(b + k, "}},{" KEV ",\"name\":\"b\",\"ts\":5,\"dur\":2}]}");
    write_bytes(f, b, k);
    cr_assert_eq(analyze(&c, args), 0, "%s", c.msgs);
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 2);
    free(b);
    ctx_free(&c);
}

Test(damage, multi_megabyte_strings_are_cut, .timeout = 120) {
    ctx c;
    ctx_init(&c);
    size_t big = 6u << 20;
    char *b = malloc(2 * big + 512);
    size_t k = (size_t)sprintf(b, "{\"traceEvents\":[{" KEV ",\"name\":\"");
    memset(b + k, 'A', big);
    k += big;
    k += (size_t)sprintf(b + k, "\",\"ts\":1,\"dur\":2},{" KEV ",\"name\":\"b\",\"ts\":5,\"dur\":2,\"junk\":\"");
    for (size_t i = 0; i < big / 6; i++) { memcpy(b + k, "\\u00e9", 6); k += 6; } /* escapes across the cut */
    k += (size_t)sprintf(b + k, "\"}]}");
    char *f = path_in(&c, "long.json");
    write_bytes(f, b, k);
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 0, "%s", c.msgs);
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 2);
    char w[4096];
    input0_warnings(&c, w, sizeof w);
    cr_assert(strstr(w, "cut 2 strings longer than 1048576 bytes ("), "%s", w);
    free(b);
    ctx_free(&c);
}

Test(damage, a_million_zero_length_events, .timeout = 240) {
    ctx c;
    ctx_init(&c);
    char *f = path_in(&c, "zero.json");
    FILE *o = fopen(f, "wb");
    cr_assert(o);
    fputs("{\"traceEvents\":[", o);
    for (int i = 0; i < 1000000; i++)
        fprintf(o, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"z\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":0}", i ? "," : "", i);
    fputs("]}", o);
    fclose(o);
    char args[800];
    snprintf(args, sizeof args, "'%s'", f);
    cr_assert_eq(analyze(&c, args), 0, "%s", c.msgs);
    cr_assert_eq(tu_num(input0(&c, "gpu_events")), 1000000);
    ctx_free(&c);
}

/* ---- chunk boundaries (unit test of parsers/chrome_trace.h) -------------------------------------- */

static int parse_chunked(const char *doc, size_t n, size_t chunk, tc_trace *t, char *err, size_t errlen) {
    cr_assert_eq(tc_trace_init(t, "chunks"), 0);
    tc_ct_parser *p = tc_ct_parser_new(t);
    cr_assert(p);
    int rc = 0;
    for (size_t off = 0; off < n && rc == 0; off += chunk)
        rc = tc_ct_parser_feed(p, doc + off, off + chunk > n ? n - off : chunk);
    if (rc == 0) rc = tc_ct_parser_finish(p);
    /* the excerpt shows only the chunk at hand: compare the location part */
    snprintf(err, errlen, "%s", rc ? tc_ct_parser_error(p) : "");
    char *near = strstr(err, " near '");
    if (near) *near = 0;
    tc_ct_parser_free(p);
    return rc;
}

static void same_trace(const tc_trace *a, const tc_trace *b, size_t chunk) {
    cr_assert_eq(a->events_total, b->events_total, "chunk %zu", chunk);
    cr_assert_eq(a->events_skipped, b->events_skipped, "chunk %zu", chunk);
    cr_assert_eq(a->n_gpu, b->n_gpu, "chunk %zu", chunk);
    for (size_t i = 0; i < a->n_gpu; i++) {
        cr_assert_eq(a->gpu[i].start_ns, b->gpu[i].start_ns);
        cr_assert_eq(a->gpu[i].dur_ns, b->gpu[i].dur_ns);
        cr_assert_eq(a->gpu[i].kind, b->gpu[i].kind);
        cr_assert_eq(a->gpu[i].is_comm, b->gpu[i].is_comm);
        cr_assert_eq(a->gpu[i].device, b->gpu[i].device);
        cr_assert_eq(a->gpu[i].correlation, b->gpu[i].correlation);
        cr_assert_str_eq(tc_trace_str(a, a->gpu[i].name), tc_trace_str(b, b->gpu[i].name), "chunk %zu", chunk);
        cr_assert_str_eq(tc_trace_str(a, a->gpu[i].stream), tc_trace_str(b, b->gpu[i].stream));
    }
    cr_assert_eq(a->n_cpu_steps, b->n_cpu_steps);
    cr_assert_eq(a->n_gpu_steps, b->n_gpu_steps);
    cr_assert_eq(a->n_launches, b->n_launches);
    for (size_t i = 0; i < a->n_launches; i++) cr_assert_eq(a->launches[i].correlation, b->launches[i].correlation);
    cr_assert_eq(a->n_colls, b->n_colls);
    cr_assert_eq(a->n_devices, b->n_devices);
    cr_assert_eq(a->rank, b->rank);
    cr_assert_eq(a->n_warnings, b->n_warnings, "chunk %zu", chunk);
    for (size_t i = 0; i < a->n_warnings; i++) cr_assert_str_eq(a->warnings[i], b->warnings[i]);
}

/* Chunk sizes base+1 .. base+31 must give what one feed gives. */
static void check_chunk_invariance(const char *doc, size_t n, size_t base) {
    tc_trace ref;
    char ref_err[600], err[600];
    int ref_rc = parse_chunked(doc, n, n ? n : 1, &ref, ref_err, sizeof ref_err);
    for (size_t chunk = base + 1; chunk <= base + 31; chunk++) {
        tc_trace t;
        int rc = parse_chunked(doc, n, chunk, &t, err, sizeof err);
        cr_assert_eq(rc, ref_rc, "chunk %zu", chunk);
        cr_assert_str_eq(err, ref_err, "chunk %zu", chunk);
        same_trace(&ref, &t, chunk);
        tc_trace_free(&t);
    }
    tc_trace_free(&ref);
}

Test(damage, chunk_sizes_1_to_31_give_the_same_trace, .timeout = 240) {
    /* a real trace */
    size_t n;
    char *doc = alexnet_json(&n);
    check_chunk_invariance(doc, n, 0);
    /* cut inside traceEvents, and broken in the middle */
    check_chunk_invariance(doc, n / 2, 0);
    doc[n / 3] = '#';
    check_chunk_invariance(doc, n, 0);
    free(doc);
    /* escapes, bad numbers, bad bytes, duplicated keys, concatenated documents */
    const char *small =
        "{\"traceEvents\":[{" KEV ",\"name\":\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\\u0000\xff\",\"ts\":\"1.5\",\"dur\":2},"
        "{" KEV ",\"name\":\"x\",\"ts\":1e400,\"dur\":2},{\"cat\":\"kernel\",\"ts\":1},"
        "{" KEV ",\"ph\":\"X\",\"name\":\"y\",\"ts\":-1,\"ts\":3,\"dur\":99999999999999999999}]}\n"
        "[{" KEV ",\"name\":\"z\\\\\",\"ts\":4,\"dur\":1}]";
    check_chunk_invariance(small, strlen(small), 0);
    /* a string past the 1 MiB cut, with escapes straddling the cut point; chunks of 64 KiB + 1..31
     * (yajl re-reads a token spanning chunks at every chunk, so 1-byte chunks of a 1 MiB string
     * would take hours: that is what the cut bounds for the real 256 KiB chunks) */
    size_t big = (1u << 20) + 4096;
    char *b = malloc(big * 2 + 256);
    size_t k = (size_t)sprintf(b, "[{" KEV ",\"ts\":1,\"dur\":2,\"name\":\"");
    for (size_t i = 0; k < big; i++) {
        static const char *const pieces[] = {"ab", "\\u00e9", "\\\\", "\\\"", "c"};
        const char *pc = pieces[i % 5];
        memcpy(b + k, pc, strlen(pc));
        k += strlen(pc);
    }
    k += (size_t)sprintf(b + k, "\"},{" KEV ",\"ts\":5,\"dur\":2,\"name\":\"after\"}]");
    check_chunk_invariance(b, k, 65536);
    free(b);
}

/* The check before yajl must know where strings are (issue 23): a string element ending in ",{"
 * then something that looks like a skippable event is invalid JSON, whatever the chunking, and
 * with an escaped quote before it too. */
Test(damage, a_brace_inside_a_string_is_never_skipped_as_an_event) {
    static const char *const docs[] = {
        "{\"traceEvents\":[\"a,{\"ph\": \"i\", \"name\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxx\", \"ts\": 1}, \"]}",
        "{\"traceEvents\":[\"q\\\"a,{\"ph\": \"i\", \"name\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"ts\": 1}, \"]}",
    };
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        size_t n = strlen(docs[d]);
        for (size_t chunk = 1; chunk <= n; chunk++) {
            tc_trace t;
            char err[512];
            cr_assert_neq(parse_chunked(docs[d], n, chunk, &t, err, sizeof err), 0, "doc %zu, chunk %zu", d, chunk);
            cr_assert(strstr(err, "invalid JSON"), "doc %zu, chunk %zu: %s", d, chunk, err);
            tc_trace_free(&t);
        }
    }
}

Test(damage, json_numbers_are_written_exactly) {
    /* integers and nanoseconds-as-microseconds are formatted by hand (jsonw.c): every edge */
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    jw w;
    jw_init(&w, f, false);
    jw_array_begin(&w);
    const int64_t ns[] = {0, 1, 10, 999, 1000, 1500, 1230, -1, -1000, -1001, 123456789, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) jw_ns_as_us(&w, ns[i]);
    jw_int(&w, 0);
    jw_int(&w, -7);
    jw_int(&w, INT64_MIN);
    jw_uint(&w, UINT64_MAX);
    jw_array_end(&w);
    cr_assert_eq(jw_finish(&w), 0);
    rewind(f);
    char text[512] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    cr_assert_str_eq(text, "[0,0.001,0.01,0.999,1,1.5,1.23,-0.001,-1,-1.001,123456.789,9223372036854775.807,"
                           "-9223372036854775.808,0,-7,-9223372036854775808,18446744073709551615]");
}
