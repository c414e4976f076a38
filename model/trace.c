/* trace.c: lifetime, appending and small queries of the per-input event model (see trace.h). The
 * event store's arrays and record fields are walked from trace_arrays.def. */
#include "trace.h"
#include "comm_kernels.h"
#include "base/util.h"
#include <assert.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WARNINGS 100

/* trace_arrays.def's completeness check: each record's listed fields fill it exactly (padding is
 * explicit). A string id or index counts only when it is a uint32_t, so a wider one fails too.
 * `r` only names the type's fields for sizeof; it is never read. */
static void check_record_rows(void) {
#define ID_SIZE(x) (sizeof(x) == sizeof(uint32_t) ? sizeof(x) : 0)
#define TC_VALUE(f) +sizeof r->f
#define TC_STRING_ID(f) +ID_SIZE(r->f)
#define TC_INDEX(f, array) +ID_SIZE(r->f)
#define TC_TRACE_RECORD(type, fields)                                                                \
    {                                                                                                \
        const type *r = NULL;                                                                        \
        _Static_assert(0 fields == sizeof(type), #type ": a field is missing from its row in "       \
                       "trace_arrays.def, or it has implicit padding, or an id is not a uint32_t");  \
    }
#include "trace_arrays.def"
#undef ID_SIZE
}

/* A count per array of the event store, by the array's name: dst's counts before an append (where
 * src's records start), or a trace's lengths. */
typedef struct {
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) size_t field;
#include "trace_arrays.def"
} array_counts;

static array_counts counts_of(const tc_trace *t) {
    array_counts c;
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) c.field = t->count;
#include "trace_arrays.def"
    return c;
}

static inline uint32_t map_id(const uint32_t *ids, uint32_t id) { return id == TC_NONE ? TC_NONE : ids[id]; }

/* remap_<type>(recs, n, ids, base): for records appended to another trace, string ids through
 * ids[] (old id -> new id), indexes offset by base (the target array's count before the append). */
#define TC_STRING_ID(f) r->f = map_id(ids, r->f);
#define TC_INDEX(f, array) if (r->f != TC_NONE) r->f += (uint32_t)base->array;
#define TC_TRACE_RECORD(type, fields)                                                                \
    static void remap_##type(type *recs, size_t n, const uint32_t *ids, const array_counts *base) { \
        (void)ids;                                                                                   \
        (void)base;                                                                                  \
        for (size_t i = 0; i < n; i++) {                                                             \
            type *r = &recs[i];                                                                      \
            (void)r;                                                                                 \
            fields                                                                                   \
        }                                                                                            \
    }
#include "trace_arrays.def"

/* refs_valid_<type>(recs, n, n_strings, len): every string id below n_strings and every index
 * below its array's length, or TC_NONE. */
#define TC_STRING_ID(f) if (r->f != TC_NONE && r->f >= n_strings) return false;
#define TC_INDEX(f, array) if (r->f != TC_NONE && r->f >= len->array) return false;
#define TC_TRACE_RECORD(type, fields)                                                                \
    static bool refs_valid_##type(const type *recs, size_t n, size_t n_strings, const array_counts *len) { \
        (void)n_strings;                                                                             \
        (void)len;                                                                                   \
        for (size_t i = 0; i < n; i++) {                                                             \
            const type *r = &recs[i];                                                                \
            (void)r;                                                                                 \
            fields                                                                                   \
        }                                                                                            \
        return true;                                                                                 \
    }
#include "trace_arrays.def"

int tc_trace_init(tc_trace *t, const char *path) {
    check_record_rows();
    memset(t, 0, sizeof *t);
    t->rank = -1;
    t->world_size = -1;
    t->backend = UINT32_MAX;
    t->host_name = UINT32_MAX;
    t->gpu_device = TC_DEVICE_NONE;
    t->path = tc_strdup(path ? path : "-");
    t->strings = tc_strtab_new();
    return (t->path && t->strings) ? 0 : -1;
}

void tc_trace_free(tc_trace *t) {
    if (!t) return;
    free(t->path);
    tc_strtab_free(t->strings);
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) free(t->field);
#include "trace_arrays.def"
    free(t->launch_slot);
    for (size_t i = 0; i < t->n_warnings; i++) free(t->warnings[i]);
    free(t->warnings);
    memset(t, 0, sizeof *t);
}

/* Frees one of the record arrays and leaves it empty. */
#define DROP_ARRAY(t, field, count, cap) (free((t)->field), (t)->field = NULL, (t)->count = (t)->cap = 0)

void tc_trace_free_ops(tc_trace *t) { DROP_ARRAY(t, ops, n_ops, cap_ops); }

void tc_trace_free_cpu_ops(tc_trace *t) {
    DROP_ARRAY(t, ops, n_ops, cap_ops);
    DROP_ARRAY(t, host, n_host, cap_host);
    DROP_ARRAY(t, op_colls, n_op_colls, cap_op_colls);
    DROP_ARRAY(t, op_keys, n_op_keys, cap_op_keys);
    DROP_ARRAY(t, modules, n_modules, cap_modules);
}
#undef DROP_ARRAY

void tc_trace_reserve(tc_trace *t, uint64_t json_bytes) {
    if (json_bytes / 512 < 65536) return; /* small traces: growing is cheap */
    /* tc_grow gives blocks this big huge pages */
#define TC_TRACE_ARRAY(field, count, cap, type, reserve)                                             \
    if (reserve) (void)tc_grow((void **)&t->field, &t->cap, (size_t)(json_bytes / ((reserve) ? (reserve) : 1)), sizeof(type));
#include "trace_arrays.def"
}

/* Appends n records of elem bytes from src to the array *arr (count *len, capacity *cap). */
static int append_records(void **arr, size_t *len, size_t *cap, const void *src, size_t n, size_t elem) {
    if (tc_grow(arr, cap, *len + n, elem)) return -1;
    tc_prefault((char *)*arr + *len * elem, n * elem);
    memcpy((char *)*arr + *len * elem, src, n * elem);
    *len += n;
    return 0;
}

int tc_trace_append(tc_trace *dst, const tc_trace *src, uint32_t **scratch, size_t *scratch_cap) {
    assert(dst != src);
    size_t ns = tc_strtab_count(src->strings);
    if (ns > *scratch_cap) {
        uint32_t *r = realloc(*scratch, ns * sizeof *r);
        if (!r) return -1;
        *scratch = r;
        *scratch_cap = ns;
    }
    /* interning in id order keeps first-appearance order */
    uint32_t *ids = *scratch;
    if (tc_strtab_intern_all(dst->strings, src->strings, ids)) return -1;
    array_counts base = counts_of(dst);
#define TC_TRACE_ARRAY(field, count, cap, type, reserve)                                             \
    if (src->count) {                                                                                \
        if (append_records((void **)&dst->field, &dst->count, &dst->cap, src->field, src->count,     \
                           sizeof(type)))                                                            \
            return -1;                                                                               \
        remap_##type(dst->field + base.field, src->count, ids, &base);                              \
    }
#include "trace_arrays.def"
    dst->events_total += src->events_total;
    dst->events_skipped += src->events_skipped;
    dst->ops_with_shapes += src->ops_with_shapes;
    dst->ops_without_shapes += src->ops_without_shapes;
    dst->warnings_dropped += src->warnings_dropped;
    for (size_t i = 0; i < src->n_warnings; i++) tc_trace_warn(dst, "%s", src->warnings[i]);
    return 0;
}

bool tc_trace_refs_valid(const tc_trace *t) {
    size_t ns = tc_strtab_count(t->strings);
    array_counts len = counts_of(t);
    if (t->backend != TC_NONE && t->backend >= ns) return false;
    if (t->host_name != TC_NONE && t->host_name >= ns) return false;
#define TC_TRACE_ARRAY(field, count, cap, type, reserve)                                             \
    if (!refs_valid_##type(t->field, t->count, ns, &len)) return false;
#include "trace_arrays.def"
    return true;
}

void tc_trace_warn(tc_trace *t, const char *fmt, ...) {
    if (t->n_warnings >= MAX_WARNINGS) { t->warnings_dropped++; return; }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    tc_vformat(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = tc_strdup(buf);
    if (!s || TC_PUSH(t->warnings, t->n_warnings, t->cap_warnings, s)) free(s);
}

const char *tc_trace_str(const tc_trace *t, uint32_t id) { return tc_strtab_get(t->strings, id); }

uint32_t tc_trace_intern_thread(tc_trace *t, const char *pid, size_t pid_len, const char *tid, size_t tid_len) {
    char buf[2 * 255 + 1];
    if (pid_len > 255) pid_len = 255;
    if (tid_len > 255) tid_len = 255;
    memcpy(buf, pid, pid_len);
    buf[pid_len] = 0x1f;
    memcpy(buf + pid_len + 1, tid, tid_len);
    return tc_strtab_intern(t->strings, buf, pid_len + 1 + tid_len);
}

const char *tc_trace_device_name(const tc_trace *t, int64_t device) {
    for (size_t i = 0; i < t->n_devices; i++)
        if (t->devices[i].id == device) {
            const char *name = tc_trace_str(t, t->devices[i].name);
            return *name ? name : NULL;
        }
    return NULL;
}

/* A side of "Memcpy XtoY": 'H' host, 'D' or 'A' device memory (an array is on the device), 'P' a peer
 * device; 0 anything else. */
static char copy_side(char c) { return c == 'A' ? 'D' : (c == 'H' || c == 'D' || c == 'P') ? c : 0; }

tc_copy_kind tc_copy_kind_of(tc_gpu_kind kind, const char *name, size_t len) {
    if (kind == TC_GPU_KERNEL) return TC_COPY_NONE;
    if (kind == TC_GPU_MEMSET) return TC_COPY_MEMSET;
    char x = len >= 11 && memcmp(name, "Memcpy ", 7) == 0 && name[8] == 't' && name[9] == 'o' ? copy_side(name[7]) : 0;
    char y = x ? copy_side(name[10]) : 0;
    if (!y || (len > 11 && name[11] != ' ')) return TC_COPY_UNKNOWN;
    if (x == 'H') return y == 'H' ? TC_COPY_HTOH : y == 'D' ? TC_COPY_HTOD : TC_COPY_UNKNOWN;
    if (y == 'H') return x == 'D' ? TC_COPY_DTOH : TC_COPY_UNKNOWN;
    return x == 'P' || y == 'P' ? TC_COPY_PTOP : TC_COPY_DTOD;
}

static int cmp_launch(const void *a, const void *b) {
    const tc_launch *x = a, *y = b;
    if (x->correlation != y->correlation) return x->correlation < y->correlation ? -1 : 1;
    return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

void tc_trace_sort_launches(tc_trace *t) {
    if (t->launch_slot && t->launch_slot_for == t->n_launches) return;
    free(t->launch_slot);
    t->launch_slot = NULL;
    tc_sort(t->launches, t->n_launches, sizeof *t->launches, cmp_launch);
    /* a direct table when ids are dense enough (CUPTI numbers them in order): one probe per lookup
     * instead of a binary search that misses the cache; over the calls with a correlation id (those
     * without, TC_NONE, sort last) */
    size_t with_id = t->n_launches;
    while (with_id > 0 && t->launches[with_id - 1].correlation == TC_NONE) with_id--;
    t->launch_slot = tc_dense_index(t->launches, with_id, sizeof *t->launches, offsetof(tc_launch, correlation),
                                    &t->launch_slot_base, &t->launch_slot_n);
    t->launch_slot_for = t->n_launches;
}

const tc_launch *tc_trace_find_launch(const tc_trace *t, uint32_t corr) {
    if (corr == TC_NONE) return NULL; /* calls without a correlation id launched nothing known */
    if (t->launch_slot && t->launch_slot_for == t->n_launches) {
        if (corr < t->launch_slot_base || corr - t->launch_slot_base >= t->launch_slot_n) return NULL;
        uint32_t i = t->launch_slot[corr - t->launch_slot_base];
        return i == TC_NONE ? NULL : &t->launches[i];
    }
    size_t lo = 0, hi = t->n_launches;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->launches[mid].correlation < corr) lo = mid + 1; else hi = mid;
    }
    return (lo < t->n_launches && t->launches[lo].correlation == corr) ? &t->launches[lo] : NULL;
}

void tc_trace_note_spans(tc_trace *t) {
    t->has_gpu_span = t->n_gpu > 0;
    for (size_t e = 0; e < t->n_gpu; e++) {
        int64_t s = t->gpu[e].start_ns, end = s + t->gpu[e].dur_ns;
        if (e == 0 || s < t->gpu_first_ns) t->gpu_first_ns = s;
        if (e == 0 || end > t->gpu_last_ns) t->gpu_last_ns = end;
        int64_t d = t->gpu[e].device < 0 ? TC_DEVICE_NONE : t->gpu[e].device;
        if (e == 0) t->gpu_device = d;
        else if (d != t->gpu_device) t->gpu_device = TC_DEVICE_SEVERAL;
    }
    if (!t->n_gpu) t->gpu_device = TC_DEVICE_NONE;
    t->has_steps = false;
    for (size_t s = 0; s < t->n_cpu_steps + t->n_gpu_steps; s++) {
        int64_t num = s < t->n_cpu_steps ? t->cpu_steps[s].number : t->gpu_steps[s - t->n_cpu_steps].number;
        if (num < 0) continue;
        if (!t->has_steps || num < t->first_step) t->first_step = num;
        if (!t->has_steps || num > t->last_step) t->last_step = num;
        t->has_steps = true;
    }
}

#define EPOCH_2001_NS INT64_C(978307200000000000) /* times from here on read as epoch */

bool tc_trace_epoch_span(const tc_trace *t, int64_t *start, int64_t *end) {
    if (!t->has_gpu_span) return false;
    int64_t base = t->has_base ? t->base_ns : 0;
    if (!t->has_base && t->gpu_first_ns < EPOCH_2001_NS) return false;
    *start = base + t->gpu_first_ns;
    *end = base + t->gpu_last_ns;
    return true;
}

/* *sum += v (v >= 0); false when it passes INT64_MAX. */
static bool add_ns(int64_t *sum, int64_t v) { return !__builtin_add_overflow(*sum, v, sum); }

void tc_trace_settle_times(tc_trace *t) {
    int64_t first = INT64_MAX, last = INT64_MIN, sum = 0;
    bool fits = true;
    for (size_t i = 0; i < t->n_gpu; i++) {
        const tc_gpu_event *g = &t->gpu[i];
        if (g->start_ns < first) first = g->start_ns;
        if (g->start_ns + g->dur_ns > last) last = g->start_ns + g->dur_ns;
        fits = fits && add_ns(&sum, g->dur_ns);
    }
    for (size_t i = 0; i < t->n_cpu_steps; i++) fits = fits && add_ns(&sum, t->cpu_steps[i].dur_ns);
    for (size_t i = 0; i < t->n_gpu_steps; i++) fits = fits && add_ns(&sum, t->gpu_steps[i].dur_ns);
    if (t->n_gpu) fits = fits && add_ns(&sum, last - first); /* both within +-2^62: no overflow */
    t->time_sum_ns = fits ? sum : -1;
    if (t->has_base && t->n_gpu && (t->base_ns + last >= TC_TIME_LIMIT_NS || t->base_ns + first <= -TC_TIME_LIMIT_NS)) {
        tc_trace_warn(t, "baseTimeNanoseconds %lld plus the event times passes 2^62 ns (146 years): the base is "
                      "ignored", (long long)t->base_ns);
        t->has_base = false;
    }
}

static int cmp_op_coll(const void *a, const void *b) {
    uint32_t x = ((const tc_op_coll *)a)->external_id, y = ((const tc_op_coll *)b)->external_id;
    return (x > y) - (x < y);
}

typedef struct { uint32_t correlation, coll; } corr_coll; /* a launch under an op with collective args */

static int cmp_corr_coll(const void *a, const void *b) {
    uint32_t x = ((const corr_coll *)a)->correlation, y = ((const corr_coll *)b)->correlation;
    return (x > y) - (x < y);
}

/* A communication kernel that carries no collective arguments but can be traced to its launch (not
 * one of a user pattern: see trace.h). */
static bool lacks_args(const tc_gpu_event *g) {
    return g->kind == TC_GPU_KERNEL && g->is_comm && g->is_comm != TC_COMM_USER && g->coll == TC_NONE &&
           g->correlation != TC_NONE;
}

int tc_trace_link_op_colls(tc_trace *t) {
    if (!t->n_op_colls) return 0;
    size_t i = 0;
    while (i < t->n_gpu && !lacks_args(&t->gpu[i])) i++;
    if (i == t->n_gpu) return 0; /* the usual case: the kernels carry their own */
    tc_sort(t->op_colls, t->n_op_colls, sizeof *t->op_colls, cmp_op_coll);
    /* the launches under such an op, sorted by correlation */
    corr_coll *by_corr = NULL;
    size_t n = 0, cap = 0;
    for (i = 0; i < t->n_launches; i++) {
        const tc_launch *l = &t->launches[i];
        if (l->external_id == TC_NONE || l->correlation == TC_NONE) continue;
        tc_op_coll key = {l->external_id, TC_NONE};
        const tc_op_coll *o = bsearch(&key, t->op_colls, t->n_op_colls, sizeof *t->op_colls, cmp_op_coll);
        if (!o) continue;
        corr_coll pair = {l->correlation, o->coll};
        if (TC_PUSH(by_corr, n, cap, pair)) { free(by_corr); return -1; }
    }
    tc_sort(by_corr, n, sizeof *by_corr, cmp_corr_coll);
    for (i = 0; i < t->n_gpu && n; i++) {
        tc_gpu_event *g = &t->gpu[i];
        if (!lacks_args(g)) continue;
        corr_coll key = {g->correlation, TC_NONE};
        const corr_coll *o = bsearch(&key, by_corr, n, sizeof *by_corr, cmp_corr_coll);
        if (o) g->coll = o->coll;
    }
    free(by_corr);
    return 0;
}

uint64_t tc_trace_gpu_events(const tc_trace *t) { return t->n_gpu_parsed ? t->n_gpu_parsed : t->n_gpu; }

int tc_trace_merge_op_keys(tc_trace *t) {
    if (t->n_op_keys < 2) return 0;
    size_t cap = 16;
    while (cap < 2 * t->n_op_keys) cap *= 2;
    uint32_t *slot = calloc(cap, sizeof *slot), *to = malloc(t->n_op_keys * sizeof *to);
    if (!slot || !to) { free(slot); free(to); return -1; }
    size_t n = 0;
    for (size_t i = 0; i < t->n_op_keys; i++) { /* the first of equal keys stays, in order */
        const tc_op_key *k = &t->op_keys[i];
        uint64_t h = ((uint64_t)k->name << 32 | k->shapes) * 0x9E3779B97F4A7C15ULL ^ (uint8_t)k->dtype;
        size_t at = (size_t)(h >> 32) & (cap - 1);
        for (; slot[at]; at = (at + 1) & (cap - 1)) {
            const tc_op_key *o = &t->op_keys[slot[at] - 1];
            if (tc_op_key_same(o, k)) break;
        }
        if (slot[at]) { to[i] = slot[at] - 1; continue; }
        to[i] = (uint32_t)n;
        t->op_keys[n++] = *k; /* n <= i: the kept keys stay in place, in order */
        slot[at] = (uint32_t)n;
    }
    if (n < t->n_op_keys)
        for (size_t i = 0; i < t->n_host; i++)
            if (t->host[i].op_key != TC_NONE) t->host[i].op_key = to[t->host[i].op_key];
    t->n_op_keys = n;
    free(slot);
    free(to);
    return 0;
}
