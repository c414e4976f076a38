/* utf8.h: the one UTF-8 validator of every writer (JSON, HTML, terminal, the CUPTI converter).
 * Header-only, so the injected tracer library uses it without linking any analyzer or report code.
 * Rejects overlongs, surrogates, code points above U+10FFFF and truncated sequences. */
#ifndef TC_UTF8_H
#define TC_UTF8_H
#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the valid UTF-8 sequence at s, of which at most avail bytes may be read, or 0
 * when the bytes there are not valid UTF-8. The code point goes to *cp when cp is not NULL. Stops
 * at the first bad byte, so on NUL-terminated text it never reads past the NUL. */
static inline size_t tc_utf8_seq(const unsigned char *s, size_t avail, uint32_t *cp) {
    unsigned c = s[0];
    size_t n;
    uint32_t v;
    if (avail == 0) return 0;
    if (c < 0x80) { if (cp) *cp = c; return 1; }
    if (c >= 0xC2 && c <= 0xDF) { n = 2; v = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; v = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; v = c & 0x07; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if (i >= avail || (s[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF))) return 0;
    if (v >= 0xD800 && v <= 0xDFFF) return 0;
    if (cp) *cp = v;
    return n;
}
#endif
