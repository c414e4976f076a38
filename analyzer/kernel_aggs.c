/* kernel_aggs.c: per (name, kind) sums of GPU events, per trace and merged (see kernel_aggs.h). */
#include "kernel_aggs.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(const char *s, size_t n, uint8_t kind) {
    uint64_t x = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) { x ^= (unsigned char)s[i]; x *= 0x100000001b3ULL; }
    x ^= kind;
    return x * 0x100000001b3ULL;
}

void tc_kernel_aggs_free(tc_kernel_aggs *a) {
    for (size_t i = 0; !a->borrowed && i < a->n; i++) free(a->rows[i].name);
    free(a->rows);
    free(a->slot);
    memset(a, 0, sizeof *a);
}

/* Rebuilds the index with n_slot slots (a power of two > 2 * rows). */
static int reindex(tc_kernel_aggs *a, size_t n_slot) {
    size_t *slot = calloc(n_slot, sizeof *slot);
    if (!slot) return -1;
    for (size_t i = 0; i < a->n; i++) {
        const tc_kernel_agg *g = &a->rows[i];
        size_t k = (size_t)fnv(g->name, g->len, g->kind) & (n_slot - 1);
        while (slot[k]) k = (k + 1) & (n_slot - 1);
        slot[k] = i + 1;
    }
    free(a->slot);
    a->slot = slot;
    a->n_slot = n_slot;
    return 0;
}

int tc_kernel_aggs_add(tc_kernel_aggs *a, const tc_kernel_agg *row) {
    if (2 * (a->n + 1) > a->n_slot) {
        size_t ns = a->n_slot ? a->n_slot : 64;
        while (ns < 2 * (a->n + 1)) ns *= 2;
        if (reindex(a, ns)) return -1;
    }
    size_t k = (size_t)fnv(row->name, row->len, row->kind) & (a->n_slot - 1);
    for (; a->slot[k]; k = (k + 1) & (a->n_slot - 1)) {
        tc_kernel_agg *g = &a->rows[a->slot[k] - 1];
        if (g->len == row->len && g->kind == row->kind && !memcmp(g->name, row->name, row->len)) {
            g->count += row->count;
            g->total_ns += row->total_ns;
            if (row->max_ns > g->max_ns) g->max_ns = row->max_ns;
            g->ranks += row->ranks;
            return 0;
        }
    }
    tc_kernel_agg g = *row;
    if (!a->borrowed) {
        g.name = malloc(row->len + 1);
        if (!g.name) return -1;
        memcpy(g.name, row->name, row->len);
        g.name[row->len] = '\0';
    }
    if (TC_PUSH(a->rows, a->n, a->cap, g)) { if (!a->borrowed) free(g.name); return -1; }
    a->slot[k] = a->n;
    return 0;
}

/* per (string id, kind) sums of one trace before the names are copied */
typedef struct { uint64_t key; uint64_t count; int64_t total_ns, max_ns; } id_agg;

int tc_kernel_aggs_trace(const tc_trace *t, tc_kernel_aggs *out) {
    memset(out, 0, sizeof *out);
    id_agg *rows = NULL;
    size_t n = 0, cap = 0, n_slot = 64;
    uint32_t *slot = calloc(n_slot, sizeof *slot);
    if (!slot) return -1;
    for (size_t i = 0; i < t->n_gpu; i++) {
        const tc_gpu_event *e = &t->gpu[i];
        uint8_t kind = e->is_comm ? 1 : e->kind == TC_GPU_MEMCPY ? 2 : e->kind == TC_GPU_MEMSET ? 3 : 0;
        uint64_t key = (uint64_t)e->name << 2 | kind;
        if (2 * (n + 1) > n_slot) { /* grow the index */
            uint32_t *s2 = calloc(2 * n_slot, sizeof *s2);
            if (!s2) goto oom;
            n_slot *= 2;
            for (size_t r = 0; r < n; r++) {
                size_t k = (size_t)(rows[r].key * 0x9e3779b97f4a7c15ULL >> 20) & (n_slot - 1);
                while (s2[k]) k = (k + 1) & (n_slot - 1);
                s2[k] = (uint32_t)(r + 1);
            }
            free(slot);
            slot = s2;
        }
        size_t k = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 20) & (n_slot - 1);
        while (slot[k] && rows[slot[k] - 1].key != key) k = (k + 1) & (n_slot - 1);
        if (!slot[k]) {
            id_agg g = {key, 0, 0, 0};
            if (TC_PUSH(rows, n, cap, g)) goto oom;
            slot[k] = (uint32_t)n;
        }
        id_agg *g = &rows[slot[k] - 1];
        g->count++;
        g->total_ns += e->dur_ns;
        if (e->dur_ns > g->max_ns) g->max_ns = e->dur_ns;
    }
    free(slot);
    slot = NULL;
    /* (name id, kind) keys are unique, and so are (name, kind): the rows go in as they are, without
     * the name index (tc_kernel_aggs_add builds it when a row is added later) */
    out->borrowed = true;
    out->rows = malloc((n ? n : 1) * sizeof *out->rows);
    if (!out->rows) goto oom;
    out->cap = n ? n : 1;
    for (size_t r = 0; r < n; r++) {
        uint32_t id = (uint32_t)(rows[r].key >> 2);
        out->rows[out->n++] = (tc_kernel_agg){(char *)tc_strtab_get(t->strings, id), tc_strtab_len(t->strings, id),
                                              (uint8_t)(rows[r].key & 3), 1, rows[r].count, rows[r].total_ns,
                                              rows[r].max_ns};
    }
    free(rows);
    return 0;
oom:
    free(slot);
    free(rows);
    tc_kernel_aggs_free(out);
    return -1;
}

static int cmp_agg(const void *a, const void *b) {
    const tc_kernel_agg *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    int c = memcmp(x->name, y->name, x->len);
    if (c) return c;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

void tc_kernel_aggs_sort(tc_kernel_aggs *a) {
    tc_sort(a->rows, a->n, sizeof *a->rows, cmp_agg);
    free(a->slot); /* row numbers changed */
    a->slot = NULL;
    a->n_slot = 0;
}
