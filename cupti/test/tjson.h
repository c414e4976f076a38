/* tjson.h: small helpers shared by the CUPTI tests: a growable memory sink for the converter,
 * reading whole (optionally gzip) files, and lookups in yajl trees. Test-only, header-only. */
#ifndef TC_TJSON_H
#define TC_TJSON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>
#include <zlib.h>

typedef struct tj_buf {
    char *data;  /* NUL-terminated text */
    size_t len;  /* bytes, without the NUL */
    size_t cap;
    int fail_after; /* >0: the write that would exceed this many bytes fails (sink tests) */
} tj_buf;

static inline int tj_write(void *ctx, const char *d, size_t n) {
    tj_buf *b = ctx;
    if (b->fail_after > 0 && b->len + n > (size_t)b->fail_after) return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, d, n);
    b->len += n;
    b->data[b->len] = 0;
    return 0;
}

static inline void tj_buf_free(tj_buf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Whole file into a NUL-terminated malloc'd string (gzip or plain, zlib reads both). */
static inline char *tj_read_file(const char *path, size_t *len) {
    gzFile gz = gzopen(path, "rb");
    if (!gz) return NULL;
    tj_buf b = {0};
    char chunk[65536];
    int n;
    while ((n = gzread(gz, chunk, sizeof chunk)) > 0) tj_write(&b, chunk, (size_t)n);
    gzclose(gz);
    if (n < 0) {
        tj_buf_free(&b);
        return NULL;
    }
    if (!b.data) tj_write(&b, "", 0);
    if (len) *len = b.len;
    return b.data;
}

static inline yajl_val tj_key(yajl_val obj, const char *key) {
    const char *path[] = {key, NULL};
    return obj ? yajl_tree_get(obj, path, yajl_t_any) : NULL;
}

static inline const char *tj_str(yajl_val obj, const char *key) {
    yajl_val v = tj_key(obj, key);
    return v && YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
}

/* The number's text as written in the file (yajl keeps it). */
static inline const char *tj_raw(yajl_val obj, const char *key) {
    yajl_val v = tj_key(obj, key);
    return v && YAJL_IS_NUMBER(v) ? v->u.number.r : NULL;
}

static inline long long tj_int(yajl_val obj, const char *key, long long dflt) {
    yajl_val v = tj_key(obj, key);
    return v && YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : dflt;
}

static inline yajl_val tj_events(yajl_val root) {
    yajl_val ev = tj_key(root, "traceEvents");
    return ev && YAJL_IS_ARRAY(ev) ? ev : NULL;
}

/* Number of events with the given ph (NULL: any) and cat (NULL: any). */
static inline size_t tj_count(yajl_val root, const char *ph, const char *cat) {
    yajl_val ev = tj_events(root);
    size_t n = 0;
    for (size_t i = 0; ev && i < ev->u.array.len; i++) {
        yajl_val e = ev->u.array.values[i];
        const char *p = tj_str(e, "ph"), *c = tj_str(e, "cat");
        if ((!ph || (p && strcmp(p, ph) == 0)) && (!cat || (c && strcmp(c, cat) == 0))) n++;
    }
    return n;
}

/* The k-th (0-based) event with this ph and name, or NULL. */
static inline yajl_val tj_find(yajl_val root, const char *ph, const char *name, int k) {
    yajl_val ev = tj_events(root);
    for (size_t i = 0; ev && i < ev->u.array.len; i++) {
        yajl_val e = ev->u.array.values[i];
        const char *p = tj_str(e, "ph"), *nm = tj_str(e, "name");
        if (p && nm && strcmp(p, ph) == 0 && strcmp(nm, name) == 0 && k-- == 0) return e;
    }
    return NULL;
}

/* 1 when text is one valid JSON document. Streams (linear time), unlike building a tree, whose
 * arrays grow one element per realloc. */
static inline int tj_valid(const char *text) {
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    int ok = h && yajl_parse(h, (const unsigned char *)text, strlen(text)) == yajl_status_ok &&
             yajl_complete_parse(h) == yajl_status_ok;
    if (h) yajl_free(h);
    return ok;
}

/* Parses the object that follows the last occurrence of "\"key\": " in text (a top-level
 * object written after the events); NULL when absent or invalid. Free with yajl_tree_free. */
static inline yajl_val tj_tail_object(const char *text, const char *key) {
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": {", key);
    const char *p = NULL;
    for (const char *q = strstr(text, pat); q; q = strstr(q + 1, pat)) p = q;
    if (!p) return NULL;
    p += strlen(pat) - 1;
    const char *end = strchr(p, '}');
    if (!end) return NULL;
    size_t n = (size_t)(end - p) + 1;
    char *obj = malloc(n + 1);
    if (!obj) return NULL;
    memcpy(obj, p, n);
    obj[n] = 0;
    yajl_val v = yajl_tree_parse(obj, NULL, 0);
    free(obj);
    return v;
}

/* Occurrences of needle in hay. */
static inline size_t tj_occurrences(const char *hay, const char *needle) {
    size_t n = 0, l = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + l, needle)) n++;
    return n;
}
#endif
