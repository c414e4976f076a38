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

size_t tc_term_cols(const char *s) { return cols_of(s, strlen(s)); }

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

/* Code points two cleaned names share at their start. */
static size_t common_cols(const char *a, const char *b) {
    size_t i = 0, cols = 0;
    while (a[i] && a[i] == b[i]) {
        if (((unsigned char)a[i] & 0xc0) != 0x80) cols++;
        i++;
    }
    /* a difference inside a UTF-8 sequence: that code point differs, it was counted */
    if (i && ((unsigned char)a[i] & 0xc0) == 0x80) cols--;
    return cols;
}

char *tc_term_name_cell(char *dst, size_t n, const char *name, const char *const *others, size_t n_others, int width) {
    char me[1024], other[1024];
    size_t w = (size_t)(width < 0 ? -(long)width : width);
    tc_term_clean(me, sizeof me, name, 0);
    size_t len = strlen(me), cols = cols_of(me, len), d = 0;
    if (cols <= w || w < 8) return tc_term_cell(dst, n, me, width);
    for (size_t k = 0; k < n_others; k++) {
        if (others[k] == name) continue;
        tc_term_clean(other, sizeof other, others[k], 0);
        if (strcmp(other, me)) { size_t c = common_cols(me, other); if (c > d) d = c; }
    }
    if (d < w - 1) return tc_term_cell(dst, n, me, width); /* the cut keeps the difference */
    size_t head = w / 3, room = w - head - 1; /* columns after the first "…" */
    size_t from = cols - room;                /* the tail shown when it holds the difference */
    bool tail = from <= d;
    if (!tail) {
        room--;                               /* a closing "…" */
        from = d > room / 2 ? d - room / 2 : 0;
        if (from < head) from = head;
    }
    char out[4 * 1024 + 16];
    size_t hb = bytes_of_cols(me, len, head), fb = bytes_of_cols(me, len, from), tb = bytes_of_cols(me, len, from + room);
    int o = snprintf(out, sizeof out, "%.*s\xe2\x80\xa6%.*s%s", (int)hb, me, (int)(tb - fb), me + fb, tail ? "" : "\xe2\x80\xa6");
    (void)o;
    size_t outlen = strlen(out), have = cols_of(out, outlen), pad = have < w ? w - have : 0;
    if (outlen + pad >= n) { if (n) dst[0] = 0; return dst; }
    if (width > 0) { memset(dst, ' ', pad); memcpy(dst + pad, out, outlen + 1); }
    else { memcpy(dst, out, outlen); memset(dst + outlen, ' ', pad); dst[outlen + pad] = 0; }
    return dst;
}

char *tc_term_name_row(FILE *out, char *dst, size_t n, const char *name, const char *const *others, size_t n_others,
                       int nw, int width) {
    char clean[4 * 1024 + 1];
    if ((int)tc_term_cols(tc_term_clean(clean, sizeof clean, name, 0)) <= nw)
        return tc_term_name_cell(dst, n, name, others, n_others, -nw);
    tc_term_name_cell(dst, n, name, others, n_others, -width);
    size_t end = strlen(dst);
    while (end && dst[end - 1] == ' ') end--; /* the cell's padding: not at a line's end */
    fprintf(out, "%.*s\n", (int)end, dst);
    snprintf(dst, n, "%*s", nw, "");
    return dst;
}

void tc_term_join(FILE *out, const char *const *items, size_t n, const char *sep, int indent_first, int indent_rest,
                  int width) {
    char clean[2048];
    size_t seplen = cols_of(sep, strlen(sep)), keep = strlen(sep); /* sep's end-of-line part: its text */
    while (keep && sep[keep - 1] == ' ') keep--;
    if (sep[0] == ' ') keep = 0;                                     /* " | " ends a line with nothing */
    size_t col = (size_t)indent_first;
    bool fresh = true; /* nothing on the line after its indent */
    fprintf(out, "%*s", indent_first, "");
    for (size_t i = 0; i < n; i++) {
        tc_term_clean(clean, sizeof clean, items[i], 0);
        size_t c = cols_of(clean, strlen(clean)), after = i + 1 < n ? keep : 0; /* room for a closing "," */
        if (!fresh && col + seplen + c + after > (size_t)width) {
            fprintf(out, "%.*s\n%*s", (int)keep, sep, indent_rest, "");
            col = (size_t)indent_rest;
            fresh = true;
        }
        if (!fresh) { fputs(sep, out); col += seplen; }
        if (col + c > (size_t)width) { /* longer than a line: wrapped at its spaces, then a new line */
            tc_term_wrap_from(out, clean, (int)col, indent_rest, width);
            if (i + 1 == n) return;
            fprintf(out, "%*s", indent_rest, "");
            col = (size_t)indent_rest;
            fresh = true;
            continue;
        }
        fputs(clean, out);
        col += c;
        fresh = false;
    }
    fputc('\n', out);
}
