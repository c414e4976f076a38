/* mpi_pack.c: byte buffer and trace encoding for the MPI build (see mpi_pack.h). A trace's arrays
 * and the string ids in its records are walked from model/trace_arrays.def; a rank's results
 * through the field tables of model/rank_result.def (the one walker: tc_fields_*). */
#include "mpi_pack.h"
#include "base/util.h"
#include "model/gpu_catalog.h"
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

/* What tc_trace_pack and tc_skeleton_pack both write first: identity, strings (t's own, or the
 * skeleton's table with backend and host renumbered into it), metadata. Read by unpack_header. */
static void pack_header(tc_buf *b, const tc_trace *t, const tc_strtab *strings, uint32_t backend, uint32_t host) {
    tc_buf_str(b, t->path);
    tc_buf_u64(b, t->bytes);
    tc_buf_u64(b, t->bytes_decoded);
    size_t ns = tc_strtab_count(strings);
    tc_buf_u64(b, ns);
    for (size_t i = 0; i < ns; i++) {
        size_t len = tc_strtab_len(strings, (uint32_t)i);
        tc_buf_u64(b, len);
        tc_buf_put(b, tc_strtab_get(strings, (uint32_t)i), len);
    }
    tc_buf_i64(b, t->base_ns);
    tc_buf_u64(b, t->has_base);
    tc_buf_i64(b, t->rank);
    tc_buf_i64(b, t->world_size);
    tc_buf_u64(b, backend);
    tc_buf_u64(b, host);
    tc_buf_i64(b, t->gpu_device);
    tc_buf_u64(b, t->record_shapes);
    tc_buf_u64(b, t->has_gpu_span);
    tc_buf_i64(b, t->gpu_first_ns);
    tc_buf_i64(b, t->gpu_last_ns);
    tc_buf_u64(b, t->has_steps);
    tc_buf_i64(b, t->first_step);
    tc_buf_i64(b, t->last_step);
    tc_buf_i64(b, t->time_sum_ns); /* a skeleton keeps the full trace's */
}

static void put_warnings(tc_buf *b, const tc_trace *t);
static void get_warnings(tc_buf *b, tc_trace *t);

/* What both write last: the event counters and the warnings. Read by unpack_counts. */
static void pack_counts(tc_buf *b, const tc_trace *t) {
    tc_buf_u64(b, t->events_total);
    tc_buf_u64(b, t->events_skipped);
    tc_buf_u64(b, t->ops_with_shapes);
    tc_buf_u64(b, t->ops_without_shapes);
    tc_buf_u64(b, t->truncated);
    put_warnings(b, t);
}

static void unpack_counts(tc_buf *b, tc_trace *t) {
    t->events_total = tc_buf_get_u64(b);
    t->events_skipped = tc_buf_get_u64(b);
    t->ops_with_shapes = tc_buf_get_u64(b);
    t->ops_without_shapes = tc_buf_get_u64(b);
    t->truncated = tc_buf_get_u64(b) != 0;
    get_warnings(b, t);
}

void tc_trace_pack(tc_buf *b, const tc_trace *t) {
    pack_header(b, t, t->strings, t->backend, t->host_name);
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) PUT_ARR(b, t->field, t->count);
#include "model/trace_arrays.def"
    pack_counts(b, t);
}

/* Reads what pack_header wrote. */
static void unpack_header(tc_buf *b, tc_trace *t) {
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
    t->host_name = (uint32_t)tc_buf_get_u64(b);
    t->gpu_device = tc_buf_get_i64(b);
    t->record_shapes = tc_buf_get_u64(b) != 0;
    t->has_gpu_span = tc_buf_get_u64(b) != 0;
    t->gpu_first_ns = tc_buf_get_i64(b);
    t->gpu_last_ns = tc_buf_get_i64(b);
    t->has_steps = tc_buf_get_u64(b) != 0;
    t->first_step = tc_buf_get_i64(b);
    t->last_step = tc_buf_get_i64(b);
    t->time_sum_ns = tc_buf_get_i64(b);
}

int tc_trace_unpack(tc_buf *b, tc_trace *t) {
    unpack_header(b, t);
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) GET_ARR(b, t->field, t->count, t->cap);
#include "model/trace_arrays.def"
    unpack_counts(b, t);
    if (!b->bad && !tc_trace_refs_valid(t)) b->bad = true;
    if (b->bad) { tc_trace_free(t); return -1; }
    return 0;
}

static void put_warnings(tc_buf *b, const tc_trace *t) {
    tc_buf_u64(b, t->n_warnings);
    for (size_t i = 0; i < t->n_warnings; i++) tc_buf_str(b, t->warnings[i]);
    tc_buf_u64(b, t->warnings_dropped);
}

/* Replaces t's warnings with the ones in b. */
static void get_warnings(tc_buf *b, tc_trace *t) {
    for (size_t i = 0; i < t->n_warnings; i++) free(t->warnings[i]);
    free(t->warnings);
    t->warnings = NULL; t->n_warnings = t->cap_warnings = 0;
    uint64_t nw = tc_buf_get_u64(b);
    if (b->bad || nw > (b->n - b->off) / 8) { b->bad = true; return; }
    t->warnings = calloc(nw ? nw : 1, sizeof *t->warnings);
    if (!t->warnings) { b->bad = true; return; }
    t->cap_warnings = nw;
    for (uint64_t i = 0; i < nw && !b->bad; i++) {
        t->warnings[i] = tc_buf_get_str(b);
        if (!t->warnings[i]) b->bad = true; else t->n_warnings++;
    }
    t->warnings_dropped = tc_buf_get_u64(b);
}

/* string id of t renumbered into the skeleton's table (TC_NONE stays) */
static uint32_t remap(tc_strtab *st, const tc_trace *t, uint32_t id, bool *bad) {
    if (id == TC_NONE) return TC_NONE;
    uint32_t r = tc_strtab_intern(st, tc_trace_str(t, id), tc_strtab_len(t->strings, id));
    if (r == TC_NONE) *bad = true;
    return r;
}

/* The skeleton carries gpu[] (comm kernels), colls[] and pgs[] (process 0 checks that the inputs
 * are one job and joins the process groups), and renumbers gpu.coll itself: a new index field in
 * these record types must be handled in tc_skeleton_pack first. */
#define TC_INDEX(f, array) +1
#define TC_TRACE_RECORD(type, fields) enum { skeleton_indexes_##type = 0 fields };
#include "model/trace_arrays.def"
_Static_assert(skeleton_indexes_tc_gpu_event == 1 && skeleton_indexes_tc_coll_args == 0 &&
                   skeleton_indexes_tc_pg_info == 0,
               "an index field the MPI skeleton does not renumber (tc_skeleton_pack)");

/* The string ids of one record of t (of record type `kind`) renumbered into st, in field order. */
typedef enum {
#define TC_TRACE_RECORD(type, fields) RECORD_##type,
#include "model/trace_arrays.def"
} record_kind;

static void restring(record_kind kind, void *record, tc_strtab *st, const tc_trace *t, bool *bad) {
    switch (kind) {
#define TC_STRING_ID(f) r->f = remap(st, t, r->f, bad);
#define TC_TRACE_RECORD(type, fields)                                                                \
    case RECORD_##type: {                                                                            \
        type *r = record;                                                                            \
        (void)r;                                                                                     \
        fields                                                                                       \
        break;                                                                                       \
    }
#include "model/trace_arrays.def"
    }
}

void tc_skeleton_pack(tc_buf *b, const tc_trace *t) {
    tc_strtab *st = tc_strtab_new();
    size_t n_comm = 0, n_args = 0;
    for (size_t e = 0; e < t->n_gpu; e++)
        if (t->gpu[e].is_comm) { n_comm++; n_args += t->gpu[e].coll != TC_NONE; }
    tc_gpu_event *ev = malloc((n_comm ? n_comm : 1) * sizeof *ev);
    tc_coll_args *args = malloc((n_args ? n_args : 1) * sizeof *args);
    tc_pg_info *pgs = malloc((t->n_pgs ? t->n_pgs : 1) * sizeof *pgs);
    bool bad = !st || !ev || !args || !pgs;
    size_t k = 0, a = 0;
    for (size_t e = 0; e < t->n_gpu && !bad; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (!g->is_comm) continue;
        tc_gpu_event s = *g;
        restring(RECORD_tc_gpu_event, &s, st, t, &bad);
        if (g->coll != TC_NONE) {
            tc_coll_args c = t->colls[g->coll];
            restring(RECORD_tc_coll_args, &c, st, t, &bad);
            s.coll = (uint32_t)a;
            args[a++] = c;
        }
        ev[k++] = s;
    }
    for (size_t i = 0; i < t->n_pgs && !bad; i++) {
        pgs[i] = t->pgs[i];
        restring(RECORD_tc_pg_info, &pgs[i], st, t, &bad);
    }
    uint32_t backend = bad ? TC_NONE : remap(st, t, t->backend, &bad);
    uint32_t host = bad ? TC_NONE : remap(st, t, t->host_name, &bad);
    if (bad) { b->bad = true; goto out; }
    pack_header(b, t, st, backend, host);
    tc_buf_u64(b, t->n_gpu);
    PUT_ARR(b, ev, k);
    PUT_ARR(b, args, a);
    PUT_ARR(b, pgs, t->n_pgs);
    pack_counts(b, t);
out:
    free(ev);
    free(args);
    free(pgs);
    tc_strtab_free(st);
}

int tc_skeleton_unpack(tc_buf *b, tc_trace *t) {
    unpack_header(b, t);
    t->n_gpu_parsed = tc_buf_get_u64(b);
    GET_ARR(b, t->gpu, t->n_gpu, t->cap_gpu);
    GET_ARR(b, t->colls, t->n_colls, t->cap_colls);
    GET_ARR(b, t->pgs, t->n_pgs, t->cap_pgs);
    unpack_counts(b, t);
    if (!b->bad && !tc_trace_refs_valid(t)) b->bad = true;
    if (b->bad) { tc_trace_free(t); return -1; }
    return 0;
}

/* ---- field tables ------------------------------------------------------------------------- */

/* s interned into t's strings; NULL and *bad set out of memory. */
static const char *intern_in(tc_trace *t, const char *s, bool *bad) {
    uint32_t id = tc_strtab_intern(t->strings, s, strlen(s));
    if (id == TC_NONE) { *bad = true; return NULL; }
    return tc_strtab_get(t->strings, id);
}

void tc_fields_pack(tc_buf *b, const tc_fields *fs, const void *rec) {
    const unsigned char *r = rec;
    for (size_t i = 0; i < fs->n; i++) {
        const tc_field *f = &fs->at[i];
        const void *m = r + f->offset;
        switch (f->kind) {
        case TC_FIELD_VALUE: tc_buf_put(b, m, f->size); break;
        case TC_FIELD_STRING: tc_buf_str(b, *(const char *const *)m); break;
        case TC_FIELD_ARRAY: {
            size_t n = *(const size_t *)(const void *)(r + f->count_offset);
            tc_buf_u64(b, n);
            tc_buf_put(b, *(const void *const *)m, n * f->elem_size);
            break;
        }
        case TC_FIELD_GPU: {
            const tc_gpu_spec *g = *(const tc_gpu_spec *const *)m;
            uint64_t gi = UINT64_MAX;
            for (size_t k = 0; g && k < tc_gpu_count(); k++) if (tc_gpu_at(k) == g) gi = k;
            tc_buf_u64(b, gi);
            break;
        }
        case TC_FIELD_STRUCT:
            for (size_t k = 0; k < f->n; k++) tc_fields_pack(b, f->of(), (const unsigned char *)m + k * f->elem_size);
            break;
        case TC_FIELD_KEPT: break;
        }
    }
}

void tc_fields_unpack(tc_buf *b, const tc_fields *fs, void *rec, tc_trace *t) {
    unsigned char *r = rec;
    for (size_t i = 0; i < fs->n; i++) {
        const tc_field *f = &fs->at[i];
        void *m = r + f->offset;
        switch (f->kind) {
        case TC_FIELD_VALUE: tc_buf_get(b, m, f->size); break;
        case TC_FIELD_STRING: {
            const char **sp = m;
            *sp = NULL;
            char *s = b->bad ? NULL : tc_buf_get_str(b);
            if (s) *sp = intern_in(t, s, &b->bad);
            free(s);
            break;
        }
        case TC_FIELD_ARRAY: {
            void **pp = m;
            size_t *np = (void *)(r + f->count_offset);
            free(*pp);
            *pp = NULL;
            *np = 0;
            uint64_t c = tc_buf_get_u64(b);
            if (b->bad || c > (b->n - b->off) / f->elem_size) { b->bad = true; break; }
            *pp = malloc(c ? c * f->elem_size : 1);
            if (!*pp) { b->bad = true; break; }
            if (tc_buf_get(b, *pp, c * f->elem_size)) *np = c;
            break;
        }
        case TC_FIELD_GPU: {
            const tc_gpu_spec **gp = m;
            *gp = NULL;
            uint64_t gi = tc_buf_get_u64(b);
            if (b->bad || gi == UINT64_MAX) break;
            if (gi < tc_gpu_count()) *gp = tc_gpu_at(gi); else b->bad = true;
            break;
        }
        case TC_FIELD_STRUCT:
            for (size_t k = 0; k < f->n; k++) tc_fields_unpack(b, f->of(), (unsigned char *)m + k * f->elem_size, t);
            break;
        case TC_FIELD_KEPT: break;
        }
    }
}

int tc_fields_rehome(const tc_fields *fs, void *rec, tc_trace *t) {
    unsigned char *r = rec;
    int rc = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const tc_field *f = &fs->at[i];
        void *m = r + f->offset;
        if (f->kind == TC_FIELD_STRING) {
            const char **sp = m;
            bool bad = false;
            if (*sp) *sp = intern_in(t, *sp, &bad);
            if (bad) rc = -1;
        } else if (f->kind == TC_FIELD_STRUCT) {
            for (size_t k = 0; k < f->n; k++)
                if (tc_fields_rehome(f->of(), (unsigned char *)m + k * f->elem_size, t)) rc = -1;
        }
    }
    return rc;
}

/* The tables of model/rank_result.def: tc_fields_of_tc_host_op, _tc_idle_evidence and
 * _tc_rank_result. */
#define TC_RR_PART TC_FIELDS_OF
#define TC_RR_RANK TC_FIELDS_OF
#include "rank_result_rows.h"
#include "model/rank_result.def"

int tc_rank_result_rehome(tc_rank_result *rr, tc_trace *t) { return tc_fields_rehome(tc_fields_of_tc_rank_result(), rr, t); }

/* The rows of tc_rank_extra (top-kernel parts, kernel aggregates) are packed member by member
 * below, and own their names (no trace string): a new member must be added there. Their sizes are
 * what the members shipped add up to (tc_kernel_agg: kind, 1 byte, padded to 4 before ranks; a
 * member small enough to fit that padding is not caught). */
_Static_assert(sizeof(tc_kernel_part) == sizeof(char *) + 3 * 8 + sizeof(double),
               "a tc_kernel_part member tc_rank_result_pack does not ship");
_Static_assert(sizeof(tc_kernel_agg) == sizeof(char *) + sizeof(size_t) + 4 + 4 + 3 * 8,
               "a tc_kernel_agg member tc_rank_result_pack does not ship");

void tc_rank_result_pack(tc_buf *b, const tc_rank_result *rr, const tc_rank_extra *x, const tc_trace *t) {
    tc_fields_pack(b, tc_fields_of_tc_rank_result(), rr);
    tc_buf_put(b, &x->mfu, sizeof x->mfu);
    tc_buf_u64(b, x->kernels.n);
    tc_buf_i64(b, x->kernels.total_ns);
    for (size_t i = 0; i < x->kernels.n; i++) {
        const tc_kernel_part *k = &x->kernels.rows[i];
        tc_buf_str(b, k->name);
        tc_buf_i64(b, k->time_ns);
        tc_buf_i64(b, k->flops_time_ns);
        tc_buf_u64(b, k->count);
        tc_buf_f64(b, k->flops);
    }
    tc_buf_u64(b, x->gpu_kernels.n);
    for (size_t i = 0; i < x->gpu_kernels.n; i++) {
        const tc_kernel_agg *g = &x->gpu_kernels.rows[i];
        tc_buf_u64(b, g->len);
        tc_buf_put(b, g->name, g->len);
        tc_buf_u64(b, g->kind);
        tc_buf_u64(b, g->ranks);
        tc_buf_u64(b, g->count);
        tc_buf_i64(b, g->total_ns);
        tc_buf_i64(b, g->max_ns);
    }
    tc_op_parts_pack(b, &x->ops);
    put_warnings(b, t);
}

int tc_rank_result_unpack(tc_buf *b, tc_rank_result *rr, tc_rank_extra *x, tc_trace *t) {
    tc_fields_unpack(b, tc_fields_of_tc_rank_result(), rr, t);
    if (rr->n_host_ops > TC_HOST_OPS) b->bad = true;
    memset(x, 0, sizeof *x);
    tc_buf_get(b, &x->mfu, sizeof x->mfu);
    uint64_t nk = tc_buf_get_u64(b);
    x->kernels.total_ns = tc_buf_get_i64(b);
    if (b->bad || nk > (b->n - b->off) / 8) { b->bad = true; return -1; }
    x->kernels.rows = calloc(nk ? nk : 1, sizeof *x->kernels.rows);
    if (!x->kernels.rows) { b->bad = true; return -1; }
    x->kernels.cap = nk;
    for (uint64_t i = 0; i < nk && !b->bad; i++) {
        tc_kernel_part *k = &x->kernels.rows[i];
        k->name = tc_buf_get_str(b);
        if (!k->name) { b->bad = true; break; }
        x->kernels.n++;
        k->time_ns = tc_buf_get_i64(b);
        k->flops_time_ns = tc_buf_get_i64(b);
        k->count = tc_buf_get_u64(b);
        k->flops = tc_buf_get_f64(b);
    }
    uint64_t ng = tc_buf_get_u64(b);
    if (b->bad || ng > (b->n - b->off) / 8) { b->bad = true; return -1; }
    for (uint64_t i = 0; i < ng && !b->bad; i++) {
        tc_kernel_agg g;
        uint64_t len = tc_buf_get_u64(b);
        if (b->bad || len > b->n - b->off) { b->bad = true; break; }
        g.name = (char *)b->p + b->off;
        g.len = len;
        b->off += len;
        uint64_t kind = tc_buf_get_u64(b);
        g.kind = (uint8_t)kind;
        g.ranks = (uint32_t)tc_buf_get_u64(b);
        g.count = tc_buf_get_u64(b);
        g.total_ns = tc_buf_get_i64(b);
        g.max_ns = tc_buf_get_i64(b);
        if (b->bad || kind > 3) { b->bad = true; break; }
        if (tc_kernel_aggs_add(&x->gpu_kernels, &g)) b->bad = true;
    }
    if (!b->bad && tc_op_parts_unpack(b, &x->ops)) b->bad = true;
    get_warnings(b, t);
    return b->bad ? -1 : 0;
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
