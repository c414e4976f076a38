/* termtext.c: cleaning, wrapping and fitting text for the terminal summary (see termtext.h). */
#include "termtext.h"
#include "base/utf8.h"
#include <string.h>

/* Length of the valid, printable UTF-8 sequence at s (1..4), or 0 when it must be replaced:
 * invalid UTF-8, C0 controls, DEL and C1 controls (U+009B is CSI). */
static size_t printable_seq(const unsigned char *s) {
    uint32_t cp;
    size_t len = tc_utf8_seq(s, 4, &cp);
    if (len == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) return 0;
    return len;
}

char *tc_term_clean(char *dst, size_t n, const char *src, size_t max_cols) {
    if (n == 0) return dst;
    const unsigned char *s = (const unsigned char *)(src ? src : "?");
    size_t o = 0, cols = 0;
    while (*s && (max_cols == 0 || cols < max_cols)) {
        size_t len = printable_seq(s);
        if (len == 0) {
            if (o + 1 >= n) break;
            dst[o++] = '?';
            s++;
        } else {
            if (o + len >= n) break;
            memcpy(dst + o, s, len);
            o += len;
            s += len;
        }
        cols++;
    }
    dst[o] = 0;
    return dst;
}

/* Code points in s[0, len). */
static size_t cols_of(const char *s, size_t len) {
    size_t c = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80) c++;
    return c;
}

/* Bytes of the first `cols` code points of s[0, len). */
static size_t bytes_of_cols(const char *s, size_t len, size_t cols) {
    size_t i = 0, c = 0;
    while (i < len) {
        if (((unsigned char)s[i] & 0xc0) != 0x80) {
            if (c == cols) break;
            c++;
        }
        i++;
    }
    return i;
}

void tc_term_wrap(FILE *out, const char *text, int indent_first, int indent_rest, int width) {
    fprintf(out, "%*s", indent_first, "");
    tc_term_wrap_from(out, text, indent_first, indent_rest, width);
}

void tc_term_wrap_from(FILE *out, const char *text, int start_col, int indent_rest, int width) {
    char clean[4096];
    tc_term_clean(clean, sizeof clean, text, 0);
    const char *p = clean;
    int indent = start_col; /* the first line: what the caller wrote counts as its indent */
    size_t col = 0; /* columns used on the current line after the indent; 0 = nothing yet */
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        size_t wlen = strcspn(p, " ");
        size_t wcols = cols_of(p, wlen);
        size_t room = width > indent ? (size_t)(width - indent) : 1;
        if (col > 0 && col + 1 + wcols > room) {
            indent = indent_rest;
            fprintf(out, "\n%*s", indent, "");
            col = 0;
            room = width > indent ? (size_t)(width - indent) : 1;
        }
        if (col > 0) { fputc(' ', out); col++; }
        while (wcols > room - col) { /* a word longer than the line: break it */
            size_t take = bytes_of_cols(p, wlen, room - col);
            fwrite(p, 1, take, out);
            p += take;
            wlen -= take;
            wcols = cols_of(p, wlen);
            indent = indent_rest;
            fprintf(out, "\n%*s", indent, "");
            col = 0;
            room = width > indent ? (size_t)(width - indent) : 1;
        }
        fwrite(p, 1, wlen, out);
        col += wcols;
        p += wlen;
    }
    fputc('\n', out);
}

char *tc_term_cell(char *dst, size_t n, const char *src, int width) {
    if (n == 0) return dst;
    size_t cols = (size_t)(width < 0 ? -(long)width : width);
    tc_term_clean(dst, n, src, 0);
    size_t len = strlen(dst), have = cols_of(dst, len);
    if (have > cols && cols > 0) {
        size_t keep = bytes_of_cols(dst, len, cols - 1);
        if (keep + 3 < n) { memcpy(dst + keep, "\xe2\x80\xa6", 3); dst[keep + 3] = 0; } /* … */
        else dst[keep] = 0;
        len = strlen(dst);
        have = cols_of(dst, len);
    }
    size_t pad = have < cols ? cols - have : 0;
    if (len + pad >= n) pad = n - 1 - len;
    if (width > 0) {
        memmove(dst + pad, dst, len + 1);
        memset(dst, ' ', pad);
    } else {
        memset(dst + len, ' ', pad);
        dst[len + pad] = 0;
    }
    return dst;
}

char *tc_term_fit(char *buf, size_t n, double v, int decimals, int width) {
    for (int d = decimals; d >= 0; d--) {
        snprintf(buf, n, "%.*f", d, v);
        if ((int)strlen(buf) <= width) break;
    }
    return buf;
}
