/* test_jsonw.c: the JSON writer's string escaping (reports/jsonw.h), whose fast path passes 8 plain
 * bytes at a time: every byte value at every position of a string, and runs of valid and broken
 * UTF-8 across the 8-byte windows, give what a byte-at-a-time escape gives. */
#include "testutil.h"
#include "reports/jsonw.h"
#include "base/utf8.h"
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
