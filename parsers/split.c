/* split.c: event-array location and boundary finding (see split.h). Pure functions over byte
 * buffers; the scan state lives in the caller's tc_scan. */
#define _GNU_SOURCE /* memmem */
#include "split.h"
#include <string.h>

static bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

static size_t skip_ws(const char *b, size_t len, size_t i) {
    while (i < len && is_ws(b[i])) i++;
    return i;
}

/* Offset just after the closing quote of the string whose opening quote is at b[i]; len when it
 * runs past the buffer. */
static size_t string_end(const char *b, size_t len, size_t i) {
    for (i++; i < len; i++) {
        if (b[i] == '\\') { i++; continue; }
        if (b[i] == '"') return i + 1;
    }
    return len;
}

tc_split_find tc_split_find_events(const char *b, size_t len, size_t *body) {
    /* a UTF-8 byte order mark before the document: the parser of the head passes it over */
    size_t i = skip_ws(b, len, len >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0);
    if (i >= len) return TC_SPLIT_NEED_MORE;
    if (b[i] == '[') { *body = i + 1; return TC_SPLIT_FOUND; }
    if (b[i] != '{') return TC_SPLIT_NOT_FOUND;
    int64_t depth = 0; /* containers open, the top object included */
    static const char key[] = "\"traceEvents\"";
    while (i < len) {
        char c = b[i];
        if (c == '"') {
            size_t e = string_end(b, len, i);
            if (e >= len) return TC_SPLIT_NEED_MORE;
            if (depth == 1 && e - i == sizeof key - 1 && memcmp(b + i, key, sizeof key - 1) == 0) {
                size_t j = skip_ws(b, len, e);
                if (j >= len) return TC_SPLIT_NEED_MORE;
                if (b[j] == ':') { /* it is the key (a value would be followed by , or }) */
                    j = skip_ws(b, len, j + 1);
                    if (j >= len) return TC_SPLIT_NEED_MORE;
                    if (b[j] != '[') return TC_SPLIT_NOT_FOUND;
                    *body = j + 1;
                    return TC_SPLIT_FOUND;
                }
            }
            i = e;
            continue;
        }
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') {
            if (--depth <= 0) return TC_SPLIT_NOT_FOUND; /* top object closed without traceEvents */
        }
        i++;
    }
    return TC_SPLIT_NEED_MORE;
}

tc_split_find tc_split_learn(const char *b, size_t len, size_t body, tc_split_pattern *pat) {
    memset(pat, 0, sizeof *pat);
    tc_scan s;
    memset(&s, 0, sizeof s);
    int64_t last = (int64_t)body;
    size_t comma, stopped; /* the first boundary: just after the comma that ends the first element */
    if (tc_scan_run(&s, b, len, body, &last, 0, &comma, 1, &stopped) == 0)
        return s.ended ? TC_SPLIT_NOT_FOUND : TC_SPLIT_NEED_MORE;
    comma--;
    size_t close = comma;
    while (close > body && is_ws(b[close - 1])) close--;
    if (close == body || b[close - 1] != '}') return TC_SPLIT_NOT_FOUND; /* the first element is no object */
    close--;
    size_t brace = skip_ws(b, len, comma + 1);
    if (brace >= len) return TC_SPLIT_NEED_MORE;
    if (b[brace] != '{') return TC_SPLIT_NOT_FOUND;
    size_t quote = skip_ws(b, len, brace + 1);
    if (quote >= len) return TC_SPLIT_NEED_MORE;
    if (b[quote] != '"' || quote + 1 - close > TC_SPLIT_PATTERN_MAX) return TC_SPLIT_NOT_FOUND;
    pat->len = quote + 1 - close;
    pat->brace = brace - close;
    memcpy(pat->text, b + close, pat->len);
    return TC_SPLIT_FOUND;
}

size_t tc_split_next(const tc_split_pattern *pat, const char *buf, size_t len, size_t from) {
    if (from >= len || pat->len == 0) return TC_SPLIT_NONE;
    const char *m = memmem(buf + from, len - from, pat->text, pat->len);
    return m ? (size_t)(m - buf) + pat->brace : TC_SPLIT_NONE;
}

size_t tc_scan_run(tc_scan *s, const char *b, size_t len, size_t from, int64_t *last, size_t min_gap,
                   size_t *out, size_t max_out, size_t *stopped_at) {
    size_t n = 0, i = from;
    *stopped_at = len;
    if (s->ended) { *stopped_at = from; return 0; }
    while (i < len) {
        if (s->in_string) {
            /* fast skip to the next quote or backslash */
            if (s->escape) { s->escape = false; i++; continue; }
            while (i < len && b[i] != '"' && b[i] != '\\') i++;
            if (i >= len) break;
            if (b[i] == '\\') s->escape = true;
            else s->in_string = false;
            i++;
            continue;
        }
        char c = b[i];
        switch (c) {
        case '"': s->in_string = true; break;
        case '{': case '[': s->depth++; break;
        case '}': case ']':
            if (s->depth == 0) { s->ended = true; s->end_at = i; *stopped_at = i; return n; }
            s->depth--;
            break;
        case ',':
            if (s->depth == 0 && (int64_t)(i + 1) - *last >= (int64_t)min_gap) {
                if (n >= max_out) { *stopped_at = i; return n; }
                out[n++] = i + 1;
                *last = (int64_t)(i + 1);
            }
            break;
        default: break;
        }
        i++;
    }
    return n;
}

size_t tc_split_trim_comma(const char *buf, size_t len) {
    while (len > 0 && is_ws(buf[len - 1])) len--;
    if (len == 0 || buf[len - 1] != ',') return TC_SPLIT_NONE;
    return len - 1;
}
