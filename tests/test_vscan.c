/* test_vscan.c: the scanner's stage 1 (parsers/vscan.h) and the walk over its index
 * (chrome_scan.c): every path (scalar, SSE2, AVX2 where the CPU has it) gives the masks a byte-by-
 * byte model gives, on random and adversarial bytes cut into chunks anywhere (backslash runs
 * across blocks and chunks, control bytes, UTF-8); and every path parses the samples, generated
 * traces in the four layouts (plain and with escapes planted) and broken documents exactly as the
 * byte scanner without an index does: the same records and strings, the same events handled before
 * yajl and read without it, the same errors at the same offsets, whole and in odd-sized chunks;
 * and the one walk per event (event_walk) decides as the two walks before it did (pinned counts,
 * events broken at each point of the walk). */
#include "parsers/chrome_trace.h"
#include "parsers/vscan.h"
#include "testutil.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static const vs_path paths[] = {VS_SCALAR, VS_SSE2, VS_AVX2};
#define N_PATHS (sizeof paths / sizeof paths[0])

static uint64_t rng_next(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* n adversarial bytes: JSON's special bytes, control bytes, UTF-8 and backslash runs of every
 * length planted across 64-byte boundaries. */
static char *adversarial(size_t n, uint64_t seed) {
    static const unsigned char alphabet[] = {'"', '"', '"', '\\', '\\', '{', '}', '[', ']', ':', ',', ' ', ' ', '\n', '\t',
                                             '\r', 0x01, 0x0b, 0x0c, 0x1f, 'a', 'z', '0', '9', 0xc3, 0xa9, 0xe2, 0x82,
                                             0xac, 0xff, 0x80, 'u'};
    char *b = malloc(n);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) b[i] = (char)alphabet[rng_next(&s) % sizeof alphabet];
    for (size_t k = 0; k < n / 97; k++) { /* a run ending near a block boundary */
        size_t len = 1 + rng_next(&s) % 130, end = (rng_next(&s) % (n / 64 + 1)) * 64 + rng_next(&s) % 5;
        for (size_t i = end >= len ? end - len : 0; i < end && i < n; i++) b[i] = '\\';
        if (end < n) b[end] = rng_next(&s) % 2 ? '"' : '{';
    }
    return b;
}

/* The model: per byte, the bits the index must hold (qr, ws, brace, brace_in), one byte at a time
 * from the start of the bytes. */
typedef struct { bool qr, ws, brace, brace_in; } model_bits;

static model_bits *model(const char *b, size_t n) {
    model_bits *m = calloc(n ? n : 1, sizeof *m);
    bool esc = false, in = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        bool quote = c == '"' && !esc;
        if (quote) in = !in; /* an opening quote counts as inside, a closing one not */
        m[i].qr = quote || c == '\\' || (c < 0x20 && in);
        m[i].ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        m[i].brace = c == '{';
        m[i].brace_in = c == '{' && in;
        esc = c == '\\' && !esc;
    }
    return m;
}

/* Indexes b[0, n) with path in chunks whose sizes cycle through sizes[] (0 = whole) and checks
 * every bit and every chunk's summary against the model. */
static void check_chunks(vs_path path, const char *b, size_t n, const model_bits *m, const size_t *sizes, size_t n_sizes) {
    vs_index ix = {0};
    size_t off = 0;
    for (size_t c = 0; off < n; c++) {
        size_t len = sizes[c % n_sizes] ? sizes[c % n_sizes] : n;
        if (len > n - off) len = n - off;
        vs_summary sum;
        cr_assert_eq(vs_build(&ix, path, b + off, len, true, &sum), 0);
        bool bs = false, refused = false;
        unsigned parity = 0;
        size_t vtff = len, nl = 0, last_nl = 0;
        for (size_t i = 0; i < len; i++) {
            const vs_block *w = &ix.blocks[i / 64];
            unsigned k = (unsigned)(i % 64);
            const model_bits *e = &m[off + i];
            cr_assert_eq((bool)(w->qr >> k & 1), e->qr, "path %d, chunk at %zu, byte %zu: qr", (int)path, off, i);
            cr_assert_eq((bool)(w->ws >> k & 1), e->ws, "path %d, byte %zu: ws", (int)path, off + i);
            cr_assert_eq((bool)(w->brace >> k & 1), e->brace, "path %d, byte %zu: brace", (int)path, off + i);
            cr_assert_eq((bool)(w->brace_in >> k & 1), e->brace_in, "path %d, byte %zu: brace_in", (int)path, off + i);
            char ch = b[off + i];
            bs |= ch == '\\';
            refused |= e->qr && ch != '"';
            parity ^= ch == '"';
            if ((ch == '\v' || ch == '\f') && vtff == len) vtff = i;
            if (ch == '\n') { nl++; last_nl = i; }
        }
        cr_assert_eq(sum.backslash, bs);
        cr_assert_eq(ix.plain, !refused, "path %d chunk at %zu: plain %d", (int)path, off, ix.plain);
        if (!bs) cr_assert_eq(sum.quote_parity, parity);
        cr_assert_eq(sum.vtff, vtff, "path %d chunk at %zu: vtff %zu, want %zu", (int)path, off, sum.vtff, vtff);
        cr_assert_eq(sum.newlines, nl);
        if (nl) cr_assert_eq(sum.last_newline, last_nl);
        off += len;
    }
    vs_free(&ix);
}

Test(vscan, every_path_gives_the_byte_models_masks_in_any_chunks) {
    static const size_t cuts[][6] = {{0}, {64}, {63}, {65}, {1, 2, 3, 5, 7, 11}, {4093}, {127, 128, 129, 1, 64, 0}};
    static const size_t n_cuts[] = {1, 1, 1, 1, 6, 1, 6};
    for (uint64_t seed = 1; seed <= 12; seed++) {
        size_t n = 50 + (size_t)(seed * 977) % 9000;
        char *b = adversarial(n, seed);
        if (seed % 3 == 0) /* random bytes, every value */
            for (size_t i = 0; i < n; i++) b[i] = (char)(seed * 2654435761u >> (i % 24) ^ i * 31);
        model_bits *m = model(b, n);
        for (size_t p = 0; p < N_PATHS; p++) {
            if (!vs_supported(paths[p])) continue;
            for (size_t c = 0; c < sizeof n_cuts / sizeof n_cuts[0]; c++) check_chunks(paths[p], b, n, m, cuts[c], n_cuts[c]);
        }
        free(m);
        free(b);
    }
}

Test(vscan, every_path_gives_the_scalar_blocks_masks) {
    /* all masks, the tests' ones too (unescaped quotes, escapes, in-string, structural, refused) */
    size_t n = 64 * 400;
    char *b = adversarial(n, 99);
    for (size_t p = 1; p < N_PATHS; p++) {
        if (!vs_supported(paths[p])) continue;
        vs_carry cs = {0}, cv = {0};
        for (size_t k = 0; k < n / 64; k++) {
            vs_masks s, v;
            vs_block_masks(VS_SCALAR, b + 64 * k, &cs, &s);
            vs_block_masks(paths[p], b + 64 * k, &cv, &v);
            cr_assert_eq(memcmp(&s, &v, sizeof s), 0, "path %d, block %zu", (int)paths[p], k);
            cr_assert_eq(cs.escaped, cv.escaped);
            cr_assert_eq(cs.in_str, cv.in_str);
        }
    }
    /* a few by hand: \\" closes, \" does not; a run of 65 backslashes across blocks escapes */
    char blk[128];
    memset(blk, 'a', sizeof blk);
    memcpy(blk, "\"x\\\\\"{\"\\\"{", 10); /* "x\\"{"\"{ */
    vs_carry c = {0};
    vs_masks m;
    vs_block_masks(VS_SCALAR, blk, &c, &m);
    cr_assert_eq(m.quote, 1u | 1u << 4 | 1u << 6, "%llx", (unsigned long long)m.quote);
    cr_assert_eq(m.brace & m.in_str, 1u << 9);
    cr_assert_eq(m.structural, 1u << 5);
    memset(blk, '\\', 64);
    blk[64] = 'x';
    c = (vs_carry){0};
    vs_block_masks(VS_SCALAR, blk, &c, &m);
    cr_assert_eq(c.escaped, 0, "64 backslashes: the next byte is not escaped");
    blk[0] = 'a';
    c = (vs_carry){0};
    vs_block_masks(VS_SCALAR, blk, &c, &m);
    cr_assert_eq(c.escaped, 1, "63 backslashes: the next byte is escaped");
    free(b);
}

/* ---- parse results ---------------------------------------------------------------------------- */

typedef struct {
    int rc;
    uint64_t fast, emitted, err_at, fits;
    char error[512];
} parse_out;

/* Parses doc[0, n) with path, and templates or not, in chunks of `chunk` bytes (0: whole) into t. */
static parse_out parse_path(const char *doc, size_t n, vs_path path, bool templates, size_t chunk, bool events_mode,
                            tc_trace *t) {
    cr_assert_eq(tc_trace_init(t, "vscan"), 0);
    tc_ct_parser *p = events_mode ? tc_ct_parser_new_events(t) : tc_ct_parser_new(t);
    tc_ct_parser_set_scan(p, path);
    tc_ct_parser_set_templates(p, templates);
    size_t step = chunk ? chunk : n;
    parse_out o = {0};
    for (size_t off = 0; off < n && o.rc == 0; off += step) o.rc = tc_ct_parser_feed(p, doc + off, off + step > n ? n - off : step);
    if (o.rc == 0) o.rc = tc_ct_parser_finish(p);
    o.fast = tc_ct_parser_fast_skipped(p);
    o.emitted = tc_ct_parser_emitted(p);
    o.fits = tc_ct_parser_template_fits(p);
    o.err_at = o.rc ? tc_ct_parser_error_offset(p) : UINT64_MAX;
    snprintf(o.error, sizeof o.error, "%s", o.rc ? tc_ct_parser_error(p) : "");
    tc_ct_parser_free(p);
    return o;
}

/* Every path, with templates and without, whole and in chunks, parses doc as the byte scanner
 * without templates does (same decisions too). */
static void check_paths(const char *doc, size_t n, const char *what, bool want_ok) {
    static const size_t chunks[] = {0, 65536, 4093, 777, 65, 64, 63, 7};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        if (chunks[c] && chunks[c] < 64 && n > 300000) continue; /* a big trace in tiny chunks: slow, nothing new */
        for (int ev = 0; ev < 2; ev++) {
            if (ev && (n < 2 || doc[0] != '[')) continue; /* entry mode: a bare array */
            tc_trace ref;
            parse_out r = parse_path(doc, n, VS_NONE, false, chunks[c], ev, &ref);
            if (want_ok) cr_assert_eq(r.rc, 0, "%s: %s", what, r.error);
            for (size_t p = 0; p <= N_PATHS; p++) { /* the paths with templates, then the byte scanner with them */
                tc_trace t;
                vs_path path = p < N_PATHS ? paths[p] : VS_NONE;
                parse_out o = parse_path(doc, n, path, true, chunks[c], ev, &t);
                char how[256];
                snprintf(how, sizeof how, "%s, path %d with templates, chunk %zu%s", what, (int)path, chunks[c],
                         ev ? ", entry mode" : "");
                cr_assert_eq(o.rc, r.rc, "%s", how);
                cr_assert_eq(o.fast, r.fast, "%s: handled before yajl %llu vs %llu", how, (unsigned long long)o.fast,
                             (unsigned long long)r.fast);
                cr_assert_eq(o.emitted, r.emitted, "%s: read without yajl %llu vs %llu", how, (unsigned long long)o.emitted,
                             (unsigned long long)r.emitted);
                cr_assert_eq(o.err_at, r.err_at, "%s", how);
                cr_assert_str_eq(o.error, r.error, "%s", how);
                tu_assert_same_trace(&ref, &t, how);
                tc_trace_free(&t);
            }
            tc_trace_free(&ref);
        }
    }
}

/* doc with escapes planted in every 5th string value after "name" (an escaped quote, an escaped
 * backslash, runs of them, \u, \n) and a string holding ",{" events in disguise. */
static char *plant_escapes(const char *doc, size_t n, size_t *out_n) {
    static const char *const esc[] = {"\\\"", "\\\\", "\\\\\\\"", "\\u00e9", "\\n", "\\\\\\\\\\\\",
                                      ",{\\\"ph\\\": \\\"X\\\", ", "{", ", {"};
    char *out = malloc(2 * n + 64);
    size_t o = 0, k = 0;
    for (size_t i = 0; i < n;) {
        if (n - i > 9 && (memcmp(doc + i, "\"name\": \"", 9) == 0 || memcmp(doc + i, "\"name\":\"", 8) == 0)) {
            size_t l = doc[i + 7] == ' ' ? 9 : 8;
            memcpy(out + o, doc + i, l);
            o += l;
            i += l;
            if (k++ % 5 == 0) {
                const char *e = esc[(k / 5) % (sizeof esc / sizeof esc[0])];
                memcpy(out + o, e, strlen(e));
                o += strlen(e);
            }
            continue;
        }
        out[o++] = doc[i++];
    }
    *out_n = o;
    return out;
}

Test(vscan, every_path_parses_every_layout_as_the_byte_scanner) {
    static const char *const layouts[] = {"kineto", "oneline", "indent2sorted", "indent4"};
    char *dir = tu_tmpdir();
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        char path[512];
        tu_gen_layout(dir, layouts[l], path, sizeof path);
        size_t n, m;
        char *doc = tu_read_file(path, &n);
        check_paths(doc, n, layouts[l], true);
        char *esc = plant_escapes(doc, n, &m);
        cr_assert_gt(m, n, "%s: escapes planted", layouts[l]);
        char what[64];
        snprintf(what, sizeof what, "%s with escapes", layouts[l]);
        check_paths(esc, m, what, true);
        free(esc);
        free(doc);
    }
    cr_assert_eq(tu_sh(NULL, "rm -rf %s", dir), 0);
    free(dir);
}

Test(vscan, every_path_parses_the_samples_as_the_byte_scanner) {
    static const char *const files[] = {"samples/rank0.pt.trace.json.gz", "samples/rank3.pt.trace.json.gz",
                                        "tests/data/alexnet_cuda_sync.json.gz", "tests/data/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                                        "tests/data/sampled_rank-0.json.gz", "tests/data/real2/sglang_Qwen3-8B_decode.json.gz"};
    char *dir = tu_tmpdir();
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        cr_assert_eq(tu_sh(NULL, "gzip -dc %s > %s/s.json", files[f], dir), 0, "%s", files[f]);
        char path[512];
        snprintf(path, sizeof path, "%s/s.json", dir);
        size_t n;
        char *doc = tu_read_file(path, &n);
        check_paths(doc, n, files[f], false);
        free(doc);
    }
    static const char *const plain[] = {"tests/data/small/four_kernels-w0.pt.trace.json", "tests/data/small/one_nccl_kernel.json",
                                        "tests/data/hostile/string_then_event.json", "tests/data/hostile/kernel_string_then_event.json",
                                        "tests/data/hostile/skip_warnings_then_error.json", "tests/data/hostile/plain.json"};
    for (size_t f = 0; f < sizeof plain / sizeof plain[0]; f++) {
        size_t n;
        char *doc = tu_read_file(plain[f], &n);
        check_paths(doc, n, plain[f], false);
        free(doc);
    }
    cr_assert_eq(tu_sh(NULL, "rm -rf %s", dir), 0);
    free(dir);
}

#define EV(name, rest) "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 2, \"ts\": 10, \"dur\": 3" rest "}"
#define KE(name) "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 5, \"args\": {\"correlation\": 4}}"

Test(vscan, every_path_fails_and_falls_back_as_the_byte_scanner) {
    /* strings holding ",{" and "[{" (a '{' inside a string is read byte by byte), escapes,
     * control bytes, a backslash outside strings, numbers and literals cut or malformed, a vertical
     * tab, documents cut anywhere */
    static const char *const docs[] = {
        "{\"traceEvents\": [" EV("a", "") ", " KE("k,{\\\"x\\\": 1}") ", " EV("b\\\\", "") ", " KE("c") "]}",
        "{\"traceEvents\": [" EV("x,{\\\"ph\\\": \\\"X\\\"}", "") ", {\"ph\": \"i\", \"name\": \"s,{\"}, " KE("d") ", " KE("e") "]}",
        "[" EV("a", ", \"args\": {\"v\": [1, 2.5e3, -0.5, true, false, null, {\"n\": \"[{\"}]}") ", " KE("f") ", " KE("g") "]",
        "[" EV("a", ", \"args\": {\"v\": 01}") ", " KE("f") ", " KE("g") "]",
        "[" EV("a", ", \"args\": {\"v\": tru}") ", " KE("f") ", " KE("g") "]",
        "[" EV("a\x01", "") ", " KE("f\x1f") ", " KE("g") ", " KE("h") "]",
        "[" EV("a", "") ", \\ " KE("f") ", " KE("g") "]",
        "[" EV("a", "") ",\n\t\r " KE("f\t") ", " KE("g") ",\v" KE("h") "]",
        "[" EV("a", ", \"args\": {\"n\": 1.}") ", " KE("f") "]",
        "[" EV("a", ", \"args\": {\"n\": -}") ", " KE("f") "]",
        "[" EV("a", ", \"args\": {\"n\": 1e+}") ", " KE("f") "]",
        "{\"x\": \"\\\"\", \"traceEvents\": [" EV("a", "") ", " KE("\\u0041\\\\\\\\") ", " KE("i") ", " KE("j") "]}",
        "{\"x\": \"\\\\\", \"traceEvents\": [" EV("a", "") ", " KE("k") ", " KE("l") "]}",
    };
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        size_t n = strlen(docs[d]);
        char what[64];
        snprintf(what, sizeof what, "doc %zu", d);
        check_paths(docs[d], n, what, false);
        for (size_t cut = 1; cut < n; cut += 1 + n / 23) { /* cut anywhere: an early end */
            snprintf(what, sizeof what, "doc %zu cut at %zu", d, cut);
            check_paths(docs[d], cut, what, false);
        }
    }
}

Test(vscan, the_environment_chooses_a_supported_path) {
    cr_assert_eq(vs_choose("scalar"), VS_SCALAR);
    vs_path best = vs_choose(NULL);
    cr_assert(vs_supported(best));
    cr_assert_eq(vs_choose("bogus"), best, "an unknown name: the best path");
    cr_assert_eq(vs_choose(""), best);
    cr_assert_eq(vs_choose("avx2"), vs_supported(VS_AVX2) ? VS_AVX2 : best);
    cr_assert_eq(vs_choose("sse2"), vs_supported(VS_SSE2) ? VS_SSE2 : best);
}

/* ---- the one walk (event_walk) ------------------------------------------------------------------ */

/* "[" + ev + tail: ev is the first element. */
static char *one_event_doc(const char *ev, const char *tail) {
    size_t n = strlen(ev), m = strlen(tail);
    char *d = malloc(n + m + 2);
    d[0] = '[';
    memcpy(d + 1, ev, n);
    memcpy(d + 1 + n, tail, m + 1);
    return d;
}

/* A cpu_op named name whose args hold "v": an array nested `depth` deep (depth 1: [0]), or a flat
 * array of `count` zeros. */
static char *big_event(const char *name, int depth, int count) {
    char *e = malloc(4096 + 3 * (size_t)count);
    int o = sprintf(e, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 2, \"ts\": 10, \"dur\": 3, \"args\": {\"v\": ", name);
    for (int k = 0; k < depth; k++) e[o++] = '[';
    for (int k = 0; k < count; k++) o += sprintf(e + o, k ? ", 0" : "0");
    for (int k = 0; k < depth; k++) e[o++] = ']';
    strcpy(e + o, "}}");
    return e;
}

/* Parses "[" + ev + tail whole by the byte scanner and checks how ev was handled (fast: counted
 * before yajl; emitted: its callbacks called from its tokens; neither: read by yajl), then that
 * every path agrees, whole, in chunks and cut anywhere, and with each byte of the event broken. */
static void check_walk(const char *tail, const char *ev, uint64_t fast, uint64_t emitted, const char *what) {
    char *doc = one_event_doc(ev, tail);
    size_t n = strlen(doc);
    tc_trace t;
    parse_out r = parse_path(doc, n, VS_NONE, false, 0, false, &t);
    tc_trace_free(&t);
    cr_assert_eq(r.rc, 0, "%s: %s", what, r.error);
    cr_assert_eq(r.fast, fast, "%s: handled before yajl %llu", what, (unsigned long long)r.fast);
    cr_assert_eq(r.emitted, emitted, "%s: emitted %llu", what, (unsigned long long)r.emitted);
    check_paths(doc, n, what, true);
    size_t evn = strlen(ev);
    /* the event twice: the second by the first's template */
    char *two = malloc(2 * evn + strlen(tail) + 4);
    sprintf(two, "[%s, %s%s", ev, ev, tail);
    size_t n2 = strlen(two);
    char how2[96];
    snprintf(how2, sizeof how2, "%s, twice", what);
    check_paths(two, n2, how2, true);
    static const char breakers[] = {'x', '"', '}', ',', '\\', '\x01'};
    for (size_t i = 0; i < evn; i += 1 + evn / 40) { /* malformed at each point of the walk: yajl's error, on every path */
        char *bad = strdup(doc);
        bad[1 + i] = breakers[i % sizeof breakers];
        char how[96];
        snprintf(how, sizeof how, "%s, byte %zu broken", what, i);
        check_paths(bad, n, how, false);
        free(bad);
        bad = strdup(two); /* the second copy broken: the first's template must not fit it */
        bad[1 + evn + 2 + i] = breakers[i % sizeof breakers];
        snprintf(how, sizeof how, "%s, twice, byte %zu of the second broken", what, i);
        check_paths(bad, n2, how, false);
        free(bad);
    }
    free(two);
    free(doc);
}

#define K ", " KE("end") "]" /* a kernel last: yajl reads it */

Test(vscan, one_walk_judges_checks_and_writes_tokens_down) {
    /* counted: an op without "Input Dims"; emitted from the same walk: one with them (by key or as a
     * string), a FLOP op (known at its name), args first (a re-saved trace's sorted keys), a
     * category that matters first and is overwritten later, a pid that is not a string or number,
     * a phase that is not a string, a ProfilerStep, an empty object */
    check_walk(K, EV("aten::zero_", ""), 1, 0, "plain cpu_op");
    check_walk(K, EV("aten::linear", ", \"args\": {\"External id\": 4, \"Input Dims\": [[4, 4], []], \"Input type\": [\"float\"]}"), 0, 1,
               "cpu_op with Input Dims");
    check_walk(K, EV("aten::relu", ", \"args\": {\"note\": \"Input Dims\"}"), 0, 1, "Input Dims as a string value");
    check_walk(K, EV("aten::relu", ", \"args\": {\"Input Dimsx\": 1, \"x\": \"Input Dim\"}"), 1, 0, "near Input Dims");
    check_walk(K, EV("aten::mm", ", \"args\": {\"Input Dims\": [[2, 3], [3, 4]]}"), 0, 1, "FLOP op");
    check_walk(K, "{\"args\": {\"Input Dims\": [[1]]}, \"cat\": \"cpu_op\", \"dur\": 3, \"name\": \"aten::relu\", \"ph\": \"X\", \"pid\": 1, "
               "\"tid\": 2, \"ts\": 10}",
               0, 1, "args first");
    check_walk(K, "{\"ph\": \"X\", \"cat\": \"kernel\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 2, \"ts\": 10, \"dur\": 3}",
               0, 1, "kernel then cpu_op");
    check_walk(K, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": [1], \"tid\": 2, \"ts\": 10, \"dur\": 3, \"x\": 0}", 0, 1,
               "pid an array");
    check_walk(K, "{\"ph\": 1, \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 2, \"ts\": 10, \"dur\": 3, \"x\": true}", 0, 1,
               "ph a number");
    check_walk(K, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 1, \"tid\": 2, \"ts\": 10, \"dur\": 3}", 0,
               1, "ProfilerStep");
    check_walk(K, "{\"ph\": \"s\", \"id\": 1001, \"pid\": 1, \"tid\": 2, \"ts\": 7290.000, \"cat\": \"ac2g\", \"name\": \"ac2g\"}", 1, 0, "flow");
    check_walk(K, "{}", 0, 1, "empty");
    check_walk(", {}]", "{\"ph\": \"i\", \"name\": \"a\"}", 0, 1, "within 64 bytes of the end: emitted");
    /* too deep or too many tokens for the sink: counted when its fate allows, else yajl's */
    static const struct { const char *name; int depth, count; uint64_t fast, emitted; } big[] = {
        {"aten::add", 31, 1, 1, 0}, {"aten::mm", 31, 1, 0, 0}, {"aten::mm", 30, 1, 0, 1}, {"aten::add", 32, 1, 0, 0},
        {"aten::add", 1, 600, 1, 0}, {"aten::mm", 1, 600, 0, 0}, {"aten::mm", 1, 490, 0, 1}, {"aten::mm", 1, 491, 0, 0},
    };
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
        char *e = big_event(big[k].name, big[k].depth, big[k].count), what[64];
        snprintf(what, sizeof what, "%s nested %d, %d values", big[k].name, big[k].depth, big[k].count);
        check_walk(K, e, big[k].fast, big[k].emitted, what);
        free(e);
    }
}

/* "[" a ", " b ", " a ", " b K: with templates, as without them (check_paths); how many events a
 * template gave, whole by the byte scanner (the events yajl reads never fit one). */
static uint64_t check_pair(const char *a, const char *b, const char *what) {
    char *doc = malloc(2 * strlen(a) + 2 * strlen(b) + strlen(K) + 16);
    sprintf(doc, "[%s, %s, %s, %s%s", a, b, a, b, K);
    size_t n = strlen(doc);
    check_paths(doc, n, what, false);
    tc_trace t;
    parse_out o = parse_path(doc, n, VS_NONE, true, 0, false, &t);
    tc_trace_free(&t);
    free(doc);
    return o.fits;
}

Test(vscan, templates_give_the_walks_tokens_and_fate) {
    /* the same shape, other values (longer, shorter, negative, exponents): every event after the
     * first of its shape by a template */
    cr_expect_eq(check_pair(KE("a"), KE("a_much_longer_kernel_name_than_before"), "kernels"), 3);
    cr_expect_eq(check_pair(EV("aten::add", ", \"args\": {\"External id\": 4}"), EV("x", ", \"args\": {\"External id\": -4e2}"),
                            "cpu ops"), 3);
    /* the same shape and another fate: a host span, then a FLOP op emitted; "Input Dims" as a
     * string value, then another string; a flow, then a flow whose last "ph" makes it a kernel */
    cr_expect_eq(check_pair(EV("aten::add", ", \"args\": {\"Input Dims\": [[2, 3], [3, 4]]}"),
                            EV("aten::mm", ", \"args\": {\"Input Dims\": [[2, 3], [3, 4]]}"), "host span, FLOP op"),
                 3);
    cr_expect_eq(check_pair(EV("aten::relu", ", \"args\": {\"note\": \"Input Dims\"}"), EV("aten::relu", ", \"args\": {\"note\": \"Input Dimz\"}"),
                            "Input Dims as a value"),
                 3);
    check_pair("{\"ph\": \"s\", \"id\": 1, \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 3}",
               "{\"ph\": \"s\", \"id\": 2, \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 3, \"ph\": \"X\"}",
               "flow, then a kernel by its last ph");
    /* the same shape: a FLOP op, judged no further than its name, whose first "ph" is not "X",
     * then an op that is judged on, only counted from that "ph", with a second "ph": the walk's
     * yajl, not a template's count */
    cr_expect_eq(check_pair("{\"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ph\": \"s\", \"ts\": 1, \"ph\": \"X\", \"dur\": 2, \"pid\": 1, "
                            "\"tid\": 1, \"x\": 0}",
                            "{\"cat\": \"cpu_op\", \"name\": \"aten::add\", \"ph\": \"s\", \"ts\": 1, \"ph\": \"X\", \"dur\": 2, \"pid\": 1, "
                            "\"tid\": 1, \"x\": 0}",
                            "a second ph after a count"),
                 1);
    /* another shape: a string where a number was, another "ph" or "cat", an escape in a value, a
     * key more: walked (the second of each pair fits the first pair's templates) */
    cr_expect_eq(check_pair(KE("a"), "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": \"0\", \"tid\": 7, \"ts\": 20, \"dur\": 5, "
                            "\"args\": {\"correlation\": 4}}", "a string pid"), 2);
    /* an event only counted is checked without its tokens: no template is made of it */
    cr_expect_eq(check_pair("{\"ph\": \"s\", \"id\": 1, \"ts\": 2}", "{\"ph\": \"f\", \"id\": 1, \"ts\": 2}", "flows s and f"), 0);
    cr_expect_eq(check_pair(KE("a"), "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\\\"b\", \"pid\": 0, \"tid\": 7, \"ts\": 20, "
                            "\"dur\": 5, \"args\": {\"correlation\": 4}}", "an escape"), 1);
    cr_expect_eq(check_pair(EV("a", ""), EV("a", ", \"x\": 1"), "a key more"), 2);
    /* within 64 bytes of the chunk's end a walked event is emitted, not judged: so is one by a template */
    for (size_t c = 1; c < 120; c += 7) {
        char *doc = malloc(4096);
        sprintf(doc, "[%s, %s, %s%s", EV("aten::add", ""), EV("aten::add", ""), EV("aten::add", ""), K);
        tc_trace ref, t;
        size_t n = strlen(doc);
        parse_out r = parse_path(doc, n, VS_NONE, false, n - c, false, &ref);
        parse_out o = parse_path(doc, n, VS_AVX2, true, n - c, false, &t);
        cr_assert_eq(o.fast, r.fast, "chunk %zu", n - c);
        cr_assert_eq(o.emitted, r.emitted, "chunk %zu", n - c);
        tu_assert_same_trace(&ref, &t, "near the chunk's end");
        tc_trace_free(&ref);
        tc_trace_free(&t);
        free(doc);
    }
}
