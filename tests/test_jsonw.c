/* test_jsonw.c: the JSON writer's string escaping (reports/jsonw.h), whose fast path passes 8 plain
 * bytes at a time: every byte value at every position of a string, and runs of valid and broken
 * UTF-8 across the 8-byte windows, give what a byte-at-a-time escape gives; an array's elements
 * written on several threads (jw_elements) give the bytes written in order. */
#include "testutil.h"
#include "reports/jsonw.h"
#include "base/utf8.h"
#include "base/jsontext.h"
#include "base/pool.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The escape rule written byte by byte, as the writer had it before its fast path. */
static void reference(FILE *f, const unsigned char *s, size_t len) {
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        if (c >= 0x80) {
            size_t n = tc_utf8_seq(s + i, len - i, NULL);
            if (n) { fwrite(s + i, 1, n, f); i += n; continue; }
            fputs("\xEF\xBF\xBD", f);
        } else if (c == '"') fputs("\\\"", f);
        else if (c == '\\') fputs("\\\\", f);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c == '<') fputs("\\u003c", f);
        else if (c < 0x20 || c == 0x7F) fprintf(f, "\\u%04x", c);
        else fputc((int)c, f);
        i++;
    }
}

/* Escapes s both ways into memory and asserts the same bytes. */
static void same_escape(const unsigned char *s, size_t len) {
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
    cr_assert(fa && fb);
    jw_escape_to(fa, (const char *)s, len);
    reference(fb, s, len);
    fclose(fa);
    fclose(fb);
    cr_assert(na == nb && memcmp(a, b, na) == 0, "escape of %zu bytes differs: '%.*s' vs '%.*s'", len, (int)na, a,
              (int)nb, b);
    free(a);
    free(b);
}

Test(jsonw, every_byte_at_every_position_escapes_as_byte_by_byte) {
    unsigned char s[40];
    for (unsigned v = 0; v < 256; v++)
        for (size_t at = 0; at < 24; at++)
            for (size_t len = at + 1; len <= at + 17 && len <= sizeof s; len += 4) {
                memset(s, 'a', sizeof s);
                s[at] = (unsigned char)v;
                same_escape(s, len);
            }
}

Test(jsonw, utf8_runs_across_the_windows_escape_as_byte_by_byte) {
    static const char *const pieces[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xe2\x82", "\xed\xa0\x80",
                                         "\xc0\xaf", "<", "\"", "\\", "\n", "\x7f", "kernel_name_", "_"};
    unsigned char s[96];
    unsigned seed = 7;
    for (int round = 0; round < 4000; round++) {
        size_t len = 0;
        while (len < 64) {
            seed = seed * 1103515245u + 12345u;
            const char *p = pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])];
            size_t n = strlen(p);
            memcpy(s + len, p, n);
            len += n;
        }
        same_escape(s, len);
    }
}

/* ---- the writer's buffer and its number text --------------------------------------------------- */

/* tc_json_double_text(v) is "%.10g" of v (0 for -0), whichever path wrote it. */
static void same_double(double v) {
    char got[64], want[64];
    size_t n = tc_json_double_text(got, sizeof got, v);
    snprintf(want, sizeof want, "%.10g", v == 0 ? 0.0 : v);
    cr_assert(strcmp(got, want) == 0 && n == strlen(want), "%.17g: '%s', printf gives '%s'", v, got, want);
}

static uint64_t next_rand(uint64_t *s) { /* xorshift64* */
    *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

Test(jsonw, double_text_is_printf_g10_on_random_values_of_every_magnitude) {
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 1000000; i++) { /* log-uniform over 1e-7 .. 1e17, both signs: the fast range and past it */
        double u = (double)(next_rand(&seed) >> 11) / 9007199254740992.0;
        double v = pow(10, -7 + 24 * u);
        same_double(i & 1 ? -v : v);
    }
    for (int i = 0; i < 300000; i++) { /* any bit pattern that is a finite double */
        uint64_t b = next_rand(&seed);
        double v;
        memcpy(&v, &b, sizeof v);
        if (isfinite(v)) same_double(v);
    }
}

Test(jsonw, double_text_is_printf_g10_where_rounding_is_close) {
    /* ties and near-ties at the tenth digit, carries into the next power of ten, the fixed and
     * exponential boundaries (1e-5, 1e-4, 1e10), whole numbers, the times and shares reports hold */
    static const double edges[] = {0.5, 1.0000000005, 1.00000000049999, 1.00000000050001, 123456789.05, 0.12345678905,
                                   9999999999.5, 9999999999.4, 99999.999995, 0.000099999999995, 1e-5, 1e-4, 1e10,
                                   1e15, 9.9999999995e14, 12345678905.0, 2.5, 1e9, 4294967296.0, 0.1, 0.2, 0.3,
                                   1.0 / 3, 2.0 / 3, 1e-5 * (1 + 1e-15), 1e-4 * (1 - 1e-16)};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        double v = edges[i];
        for (int k = -4; k <= 4; k++) { /* and its neighbours, a few ulps either side */
            double u = v;
            for (int s = 0; s < (k < 0 ? -k : k); s++) u = nextafter(u, k < 0 ? 0 : INFINITY);
            same_double(u);
            same_double(-u);
        }
    }
    same_double(0.0);
    same_double(-0.0);
    for (int64_t ns = -2000000; ns <= 2000000; ns += 7) same_double((double)ns / 1e3); /* µs from ns */
    for (int i = 0; i <= 100000; i++) same_double(i / 100000.0); /* shares */
    for (int64_t v = 1; v < 4000000000000000000ll; v = v * 3 + 1) same_double((double)v); /* whole numbers */
}

Test(jsonw, output_past_the_buffer_and_around_a_flush_keeps_its_order) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    jw w;
    jw_init(&w, f, false);
    jw_array_begin(&w);
    char big[JW_BUF + 100]; /* one string longer than the buffer, written past it */
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    for (int i = 0; i < 3 * JW_BUF / 8; i++) jw_int(&w, i % 10); /* many small writes: the buffer fills */
    jw_string(&w, big);
    jw_flush(&w);
    fputc(' ', f); /* the FILE's own write, between two of the writer's */
    jw_int(&w, 42);
    jw_array_end(&w);
    cr_assert_eq(jw_finish(&w), 0);
    fclose(f);
    char *want = NULL;
    size_t wlen = 0;
    FILE *g = open_memstream(&want, &wlen);
    cr_assert(g);
    fputc('[', g);
    for (int i = 0; i < 3 * JW_BUF / 8; i++) fprintf(g, "%s%d", i ? "," : "", i % 10);
    fprintf(g, ",\"%s\" ,42]", big);
    fclose(g);
    cr_assert(len == wlen && memcmp(text, want, len) == 0, "output differs (%zu vs %zu bytes)", len, wlen);
    free(text);
    free(want);
}

/* ---- jw_elements ------------------------------------------------------------------------------ */

/* Element i: an object whose size varies with i (an empty one, a string past JW_BUF, a nested
 * array that is itself written with jw_elements), so runs differ in size and cross the buffer. */
static void leaf(jw *w, const void *ctx, size_t i) {
    (void)ctx;
    if (i % 3 == 0) jw_double(w, (double)i / 7);
    else jw_string(w, i % 2 ? "<odd>" : "even\n");
}

static void element(jw *w, const void *ctx, size_t i) {
    const char *big = ctx;
    jw_object_begin(w);
    if (i % 11 == 5) { jw_object_end(w); return; } /* {} */
    jw_key(w, "i"); jw_uint(w, i);
    jw_key(w, "us"); jw_ns_as_us(w, (int64_t)i * 1234567 - 99);
    if (i % 97 == 3) { jw_key(w, "big"); jw_string(w, big); }
    jw_key(w, "inner");
    jw_array_begin(w);
    jw_elements(w, i % 13, leaf, NULL);
    jw_array_end(w);
    jw_object_end(w);
}

/* The document {"a": [1, ELEMENTS...], "b": [ELEMENTS...], "c": true} with n elements, written with
 * a pool of `threads` threads (-1: none), pretty or compact; *len its size. */
static char *document(size_t n, int threads, bool pretty, size_t *len) {
    static char big[JW_BUF * 2 + 17];
    memset(big, 'b', sizeof big - 1);
    big[sizeof big - 1] = 0;
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    cr_assert(f);
    tc_pool *pool = threads >= 0 ? tc_pool_new(threads) : NULL;
    cr_assert(threads < 0 || pool);
    jw w;
    jw_init(&w, f, pretty);
    jw_set_pool(&w, pool);
    jw_object_begin(&w);
    jw_key(&w, "a");
    jw_array_begin(&w);
    jw_int(&w, 1); /* an element before: the first run starts with a comma */
    jw_elements(&w, n, element, big);
    jw_array_end(&w);
    jw_key(&w, "b");
    jw_array_begin(&w);
    jw_elements(&w, n, element, big);
    jw_array_end(&w);
    jw_key(&w, "c"); jw_bool(&w, true);
    jw_object_end(&w);
    cr_assert_eq(jw_finish(&w), 0);
    tc_pool_free(pool);
    cr_assert_eq(fclose(f), 0);
    return text;
}

Test(jsonw, elements_on_threads_are_the_bytes_written_in_order) {
    static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 100, 1000, 20000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int pretty = 0; pretty < 2; pretty++) {
            size_t lw, lt;
            char *want = document(sizes[k], -1, pretty, &lw);
            for (int threads = 0; threads <= 3; threads++) {
                char *got = document(sizes[k], threads, pretty, &lt);
                cr_assert(lw == lt && memcmp(want, got, lw) == 0, "%zu elements, %d threads, pretty %d: %zu vs %zu bytes",
                          sizes[k], threads, pretty, lt, lw);
                free(got);
            }
            free(want);
        }
}

/* An element that leaves its object open: the writer reports it, threads or not. */
static void unbalanced(jw *w, const void *ctx, size_t i) {
    (void)ctx;
    jw_object_begin(w);
    if (i != 40) jw_object_end(w);
}

Test(jsonw, an_unbalanced_element_is_an_error_on_threads_too) {
    for (int threads = -1; threads <= 2; threads++) {
        FILE *f = fopen("/dev/null", "w");
        cr_assert(f);
        tc_pool *pool = threads >= 0 ? tc_pool_new(threads) : NULL;
        jw w;
        jw_init(&w, f, true);
        jw_set_pool(&w, pool);
        jw_array_begin(&w);
        jw_elements(&w, 100, unbalanced, NULL);
        jw_array_end(&w);
        cr_assert_eq(jw_finish(&w), -1, "%d threads", threads);
        tc_pool_free(pool);
        fclose(f);
    }
}
