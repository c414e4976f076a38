/* mpi_pack.c: byte buffer and trace encoding for the MPI build (see mpi_pack.h). */
#include "mpi_pack.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

void tc_buf_free(tc_buf *b) { free(b->p); memset(b, 0, sizeof *b); }

void tc_buf_put(tc_buf *b, const void *src, size_t len) {
    if (b->bad || len == 0) return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + len) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) { b->bad = true; return; }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, len);
    b->n += len;
}

void tc_buf_u64(tc_buf *b, uint64_t v) { tc_buf_put(b, &v, sizeof v); }
void tc_buf_i64(tc_buf *b, int64_t v) { tc_buf_put(b, &v, sizeof v); }
void tc_buf_f64(tc_buf *b, double v) { tc_buf_put(b, &v, sizeof v); }
void tc_buf_str(tc_buf *b, const char *s) {
    if (!s) { tc_buf_u64(b, UINT64_MAX); return; }
    size_t n = strlen(s);
    tc_buf_u64(b, n);
    tc_buf_put(b, s, n);
}

bool tc_buf_get(tc_buf *b, void *dst, size_t len) {
    if (b->bad || len > b->n - b->off) { b->bad = true; if (len) memset(dst, 0, len); return false; }
    if (len) memcpy(dst, b->p + b->off, len);
    b->off += len;
    return true;
}
uint64_t tc_buf_get_u64(tc_buf *b) { uint64_t v; tc_buf_get(b, &v, sizeof v); return v; }
int64_t tc_buf_get_i64(tc_buf *b) { int64_t v; tc_buf_get(b, &v, sizeof v); return v; }
double tc_buf_get_f64(tc_buf *b) { double v; tc_buf_get(b, &v, sizeof v); return v; }
char *tc_buf_get_str(tc_buf *b) {
    uint64_t n = tc_buf_get_u64(b);
    if (b->bad || n == UINT64_MAX) return NULL;
    if (n > b->n - b->off) { b->bad = true; return NULL; }
    char *s = malloc(n + 1);
    if (!s) { b->bad = true; return NULL; }
    tc_buf_get(b, s, n);
    s[n] = 0;
    return s;
}

/* an array of POD records: count, then the bytes */
#define PUT_ARR(b, arr, cnt) do { tc_buf_u64(b, cnt); tc_buf_put(b, arr, (cnt) * sizeof *(arr)); } while (0)
#define GET_ARR(b, arr, cnt, capacity) do {                                                \
        uint64_t c_ = tc_buf_get_u64(b);                                                   \
        if (b->bad || c_ > (b->n - b->off) / sizeof *(arr)) { b->bad = true; break; }      \
        (arr) = malloc(c_ ? c_ * sizeof *(arr) : 1);                                       \
        if (!(arr)) { b->bad = true; break; }                                              \
        tc_buf_get(b, arr, c_ * sizeof *(arr));                                            \
        (cnt) = (capacity) = c_;                                                           \
    } while (0)

void tc_trace_pack(tc_buf *b, const tc_trace *t) {
    tc_buf_str(b, t->path);
    tc_buf_u64(b, t->bytes);
    tc_buf_u64(b, t->bytes_decoded);
    size_t ns = tc_strtab_count(t->strings);
    tc_buf_u64(b, ns);
    for (size_t i = 0; i < ns; i++) {
        size_t len = tc_strtab_len(t->strings, (uint32_t)i);
        tc_buf_u64(b, len);
        tc_buf_put(b, tc_strtab_get(t->strings, (uint32_t)i), len);
    }
    tc_buf_i64(b, t->base_ns);
    tc_buf_u64(b, t->has_base);
    tc_buf_i64(b, t->rank);
    tc_buf_i64(b, t->world_size);
    tc_buf_u64(b, t->backend);
    tc_buf_u64(b, t->record_shapes);
    PUT_ARR(b, t->gpu, t->n_gpu);
    PUT_ARR(b, t->cpu_steps, t->n_cpu_steps);
    PUT_ARR(b, t->gpu_steps, t->n_gpu_steps);
    PUT_ARR(b, t->launches, t->n_launches);
    PUT_ARR(b, t->colls, t->n_colls);
    PUT_ARR(b, t->ops, t->n_ops);
    PUT_ARR(b, t->devices, t->n_devices);
    tc_buf_u64(b, t->events_total);
    tc_buf_u64(b, t->events_skipped);
    tc_buf_u64(b, t->ops_with_shapes);
    tc_buf_u64(b, t->ops_without_shapes);
    tc_buf_u64(b, t->truncated);
    tc_buf_u64(b, t->n_warnings);
    for (size_t i = 0; i < t->n_warnings; i++) tc_buf_str(b, t->warnings[i]);
    tc_buf_u64(b, t->warnings_dropped);
}

int tc_trace_unpack(tc_buf *b, tc_trace *t) {
    memset(t, 0, sizeof *t);
    t->path = tc_buf_get_str(b);
    t->strings = tc_strtab_new();
    if (!t->path || !t->strings) b->bad = true;
    t->bytes = tc_buf_get_u64(b);
    t->bytes_decoded = tc_buf_get_u64(b);
    uint64_t ns = tc_buf_get_u64(b);
    for (uint64_t i = 0; i < ns && !b->bad; i++) {
        uint64_t len = tc_buf_get_u64(b);
        if (b->bad || len > b->n - b->off) { b->bad = true; break; }
        /* interning in id order gives the same ids (the table holds distinct strings) */
        if (tc_strtab_intern(t->strings, (const char *)b->p + b->off, len) != i) b->bad = true;
        b->off += len;
    }
    t->base_ns = tc_buf_get_i64(b);
    t->has_base = tc_buf_get_u64(b) != 0;
    t->rank = tc_buf_get_i64(b);
    t->world_size = tc_buf_get_i64(b);
    t->backend = (uint32_t)tc_buf_get_u64(b);
    t->record_shapes = tc_buf_get_u64(b) != 0;
    GET_ARR(b, t->gpu, t->n_gpu, t->cap_gpu);
    GET_ARR(b, t->cpu_steps, t->n_cpu_steps, t->cap_cpu_steps);
    GET_ARR(b, t->gpu_steps, t->n_gpu_steps, t->cap_gpu_steps);
    GET_ARR(b, t->launches, t->n_launches, t->cap_launches);
    GET_ARR(b, t->colls, t->n_colls, t->cap_colls);
    GET_ARR(b, t->ops, t->n_ops, t->cap_ops);
    GET_ARR(b, t->devices, t->n_devices, t->cap_devices);
    t->events_total = tc_buf_get_u64(b);
    t->events_skipped = tc_buf_get_u64(b);
    t->ops_with_shapes = tc_buf_get_u64(b);
    t->ops_without_shapes = tc_buf_get_u64(b);
    t->truncated = tc_buf_get_u64(b) != 0;
    uint64_t nw = tc_buf_get_u64(b);
    if (!b->bad && nw <= (b->n - b->off) / 8) {
        t->warnings = calloc(nw ? nw : 1, sizeof *t->warnings);
        if (!t->warnings) b->bad = true;
        else t->cap_warnings = nw;
        for (uint64_t i = 0; i < nw && !b->bad; i++) {
            t->warnings[i] = tc_buf_get_str(b);
            if (!t->warnings[i]) b->bad = true; else t->n_warnings++;
        }
    } else b->bad = true;
    t->warnings_dropped = tc_buf_get_u64(b);
    if (b->bad) { tc_trace_free(t); return -1; }
    return 0;
}

typedef struct { uint64_t size; size_t index; } sized;
static int cmp_sized(const void *a, const void *b) {
    const sized *x = a, *y = b;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int tc_mpi_assign(const uint64_t *sizes, const bool *is_stdin, size_t n, int procs, int *owner) {
    sized *order = malloc((n ? n : 1) * sizeof *order);
    uint64_t *load = calloc(procs > 0 ? (size_t)procs : 1, sizeof *load);
    if (!order || !load) { free(order); free(load); return -1; }
    for (size_t i = 0; i < n; i++) order[i] = (sized){sizes[i], i};
    qsort(order, n, sizeof *order, cmp_sized);
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k].index;
        int best = 0;
        if (!(is_stdin && is_stdin[i]))
            for (int p = 1; p < procs; p++) if (load[p] < load[best]) best = p;
        owner[i] = best;
        load[best] += sizes[i] ? sizes[i] : 1;
    }
    free(order);
    free(load);
    return 0;
}
