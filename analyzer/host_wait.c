/* host_wait.c: idle causes, where the host was, the actions' evidence and launch statistics (see
 * host_wait.h; the definition is docs/definitions.md "Idle causes").
 *
 * Per rank, the host spans (sorted in place) and the runtime calls that can change a cause (through
 * an index) are two sequences in (thread, start, end descending) order. An idle gap [a, b) ends at a
 * GPU event E whose launch call R is found by correlation; the spans and calls of R's thread that
 * overlap [a, Le) are found by walking back from the last one starting before Le, jumping over those
 * that end too early (prev_longer: the nearest earlier entry of the thread that ends later), so a
 * query costs the entries reported plus the nesting depth.
 * The host part [a, min(Le, b)) is cut at those items' boundaries and each piece takes the first
 * cause that holds for it. Invariant: the causes of every window add up to its idle time
 * (asserted). */
#include "host_wait.h"
#include "base/util.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define MODULE_LOAD_NS 1000000 /* a kernel launch call this long or longer is lazy module loading */
#define HOLD_NS 1000000        /* a copy call this long or longer held the host (a pageable copy) */
#define SHORT_KERNEL_NS 10000  /* kernels shorter than this are short */

/* ---- call names ------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    tc_call_class cls;
} named_class;

static const named_class exact_calls[] = {
    {"cudaDeviceSynchronize", TC_CALL_SYNC}, {"cudaStreamSynchronize", TC_CALL_SYNC},
    {"cudaEventSynchronize", TC_CALL_SYNC}, {"cudaMemcpy", TC_CALL_SYNC_COPY}, {"cudaMemcpy2D", TC_CALL_SYNC_COPY},
    {"cudaMemcpyToSymbol", TC_CALL_SYNC_COPY}, {"cudaMemcpyFromSymbol", TC_CALL_SYNC_COPY},
    {"cudaMemset", TC_CALL_SYNC_COPY}, {"cuCtxSynchronize", TC_CALL_SYNC}, {"cuStreamSynchronize", TC_CALL_SYNC},
    {"cuEventSynchronize", TC_CALL_SYNC}, {"cuMemcpy", TC_CALL_SYNC_COPY}, {"hipMemcpyWithStream", TC_CALL_SYNC_COPY},
    {"cudaHostAlloc", TC_CALL_MEMORY}, {"cuMemHostAlloc", TC_CALL_MEMORY}, {"cuMemFreeHost", TC_CALL_MEMORY},
    {"hipHostMalloc", TC_CALL_MEMORY}, {"hipHostFree", TC_CALL_MEMORY},
    {"cudaLaunchKernel", TC_CALL_LAUNCH}, {"cudaLaunchKernelExC", TC_CALL_LAUNCH},
    {"cudaLaunchCooperativeKernel", TC_CALL_LAUNCH}, {"cuLaunchKernel", TC_CALL_LAUNCH},
    {"cuLaunchKernelEx", TC_CALL_LAUNCH}, {"hipLaunchKernel", TC_CALL_LAUNCH}, {"hipExtLaunchKernel", TC_CALL_LAUNCH},
    {"hipExtModuleLaunchKernel", TC_CALL_LAUNCH}, {"hipModuleLaunchKernel", TC_CALL_LAUNCH},
    {"cudaGraphLaunch", TC_CALL_GRAPH_LAUNCH},
    {"cudaMemcpyAsync", TC_CALL_COPY}, {"cudaMemsetAsync", TC_CALL_COPY}, {"cudaMemcpy2DAsync", TC_CALL_COPY},
    {"cudaMemcpyPeerAsync", TC_CALL_COPY}, {"cudaMemcpyToSymbolAsync", TC_CALL_COPY},
    {"cudaMemcpyFromSymbolAsync", TC_CALL_COPY}, {"cuMemcpyAsync", TC_CALL_COPY}, {"cuMemcpyPeerAsync", TC_CALL_COPY},
};
/* cudaMalloc* (cudaMallocHost, cudaMallocAsync, ...), cudaFree* (cudaFreeHost, ...), cuMemAlloc*,
 * cuMemFree*; the blocking driver copies cuMemcpyDtoH* and cuMemcpyHtoD* (their Async forms are
 * async copies); the module calls cuModuleLoad* (cuModuleLoadData, ...), cuModuleGetFunction,
 * cuLibraryLoad*, cuLibraryGetKernel, cudaLibraryLoad*, cudaLibraryGetKernel, and cudaModuleLoad*,
 * cudaModuleGetFunction, which are the hip spellings hipModuleLoad*, hipModuleGetFunction */
static const named_class prefix_calls[] = {
    {"cudaMalloc", TC_CALL_MEMORY}, {"cudaFree", TC_CALL_MEMORY}, {"cuMemAlloc", TC_CALL_MEMORY},
    {"cuMemFree", TC_CALL_MEMORY}, {"cuMemcpyDtoH", TC_CALL_SYNC_COPY}, {"cuMemcpyHtoD", TC_CALL_SYNC_COPY},
    {"cuModuleLoad", TC_CALL_MODULE}, {"cuModuleGetFunction", TC_CALL_MODULE}, {"cuLibraryLoad", TC_CALL_MODULE},
    {"cuLibraryGetKernel", TC_CALL_MODULE}, {"cudaLibraryLoad", TC_CALL_MODULE}, {"cudaLibraryGetKernel", TC_CALL_MODULE},
    {"cudaModuleLoad", TC_CALL_MODULE}, {"cudaModuleGetFunction", TC_CALL_MODULE},
};

static bool has_suffix(const char *s, size_t len, const char *suf) {
    size_t k = strlen(suf);
    return len >= k && memcmp(s + len - k, suf, k) == 0;
}

/* The name's length without a version suffix "_v<digits>" and then a "_ptsz"/"_ptds" suffix. */
static size_t base_length(const char *s, size_t len) {
    size_t i = len;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
    if (i < len && i >= 2 && s[i - 1] == 'v' && s[i - 2] == '_') len = i - 2;
    if (has_suffix(s, len, "_ptsz") || has_suffix(s, len, "_ptds")) len -= 5;
    return len;
}

static tc_call_class class_of_base(const char *s, size_t len) {
    for (size_t i = 0; i < sizeof exact_calls / sizeof *exact_calls; i++)
        if (strlen(exact_calls[i].name) == len && memcmp(exact_calls[i].name, s, len) == 0) return exact_calls[i].cls;
    for (size_t i = 0; i < sizeof prefix_calls / sizeof *prefix_calls; i++) {
        size_t k = strlen(prefix_calls[i].name);
        if (len < k || memcmp(prefix_calls[i].name, s, k) != 0) continue;
        if (prefix_calls[i].cls == TC_CALL_SYNC_COPY && has_suffix(s, len, "Async")) return TC_CALL_COPY;
        return prefix_calls[i].cls;
    }
    return TC_CALL_OTHER;
}

tc_call_class tc_host_call_class(const char *name, size_t len) {
    len = base_length(name, len);
    tc_call_class c = class_of_base(name, len);
    if (c != TC_CALL_OTHER || len < 3 || memcmp(name, "hip", 3) != 0 || len > 124) return c;
    char cuda[128]; /* hipX is classed as cudaX */
    memcpy(cuda, "cuda", 4);
    memcpy(cuda + 4, name + 3, len - 3);
    return class_of_base(cuda, len + 1);
}

/* ---- sums by key ----------------------------------------------------------------------------- */

#define EMPTY_KEY UINT64_MAX

typedef struct {
    uint64_t key;
    int64_t ns;
} kv;

/* An open-addressing map from a 64-bit key to a summed time. */
typedef struct {
    kv *v;
    size_t cap, n; /* cap: 0 or a power of two */
} sum_map;

static size_t slot_of(uint64_t key, size_t cap) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

static int map_add(sum_map *m, uint64_t key, int64_t ns) {
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        kv *v = malloc(cap * sizeof *v);
        if (!v) return -1;
        for (size_t i = 0; i < cap; i++) v[i].key = EMPTY_KEY;
        for (size_t i = 0; i < m->cap; i++) {
            if (m->v[i].key == EMPTY_KEY) continue;
            size_t s = slot_of(m->v[i].key, cap);
            while (v[s].key != EMPTY_KEY) s = (s + 1) & (cap - 1);
            v[s] = m->v[i];
        }
        free(m->v);
        m->v = v;
        m->cap = cap;
    }
    size_t s = slot_of(key, m->cap);
    while (m->v[s].key != EMPTY_KEY && m->v[s].key != key) s = (s + 1) & (m->cap - 1);
    if (m->v[s].key == EMPTY_KEY) { m->v[s].key = key; m->v[s].ns = 0; m->n++; }
    m->v[s].ns += ns;
    return 0;
}

static int cmp_kv(const void *a, const void *b) {
    const kv *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* The entries by time, most first (ties: lower key), in a new array of m->n (NULL: none or out
 * of memory, *oom says which). */
static kv *map_sorted(const sum_map *m, bool *oom) {
    if (!m->n) return NULL;
    kv *out = malloc(m->n * sizeof *out);
    if (!out) { *oom = true; return NULL; }
    size_t k = 0;
    for (size_t i = 0; i < m->cap; i++) if (m->v[i].key != EMPTY_KEY) out[k++] = m->v[i];
    tc_sort(out, k, sizeof *out, cmp_kv);
    return out;
}

/* ---- the items of a rank --------------------------------------------------------------------- */

enum { IT_CPU_OP = 0, IT_ANNOTATION = 1, IT_CALL = 2 };
#define REF_INDEX(ref) ((ref) & 0x3fffffffu)
#define REF_KIND(ref) ((ref) >> 30)
#define MAX_ITEMS 0x3fffffffu

/* A span or call as the queries see it. */
typedef struct {
    int64_t start, end; /* trace ns */
    uint32_t thread;    /* strtab id */
    uint32_t ref;       /* IT_* << 30 | index into t->host (spans, once sorted) or t->launches (calls) */
} item;

/* What an instant inside an item counts as (cause flags, in the order the causes are tried). */
enum { F_DATA = 1, F_SYNC = 2, F_COPY = 4, F_MEMORY = 8, F_MODULE = 16, F_LAUNCH = 32 };
#define N_FLAGS 6

typedef struct {
    int64_t at;
    int delta;          /* +1 an item starts, -1 it ends */
    unsigned flags;     /* F_* */
} edge;

typedef struct {
    uint32_t thread;
    size_t lo, hi;      /* its entries in the sequence: [lo, hi) */
} thread_range;

/* The host events of one source in (thread, start, end descending) order: the spans (t->host,
 * sorted in place) or the calls that can change a cause (an index into t->launches). */
typedef struct {
    bool calls;
    uint32_t *idx;                /* calls: indices into t->launches, in order; spans: NULL */
    size_t n;
    uint32_t *prev_longer;        /* per entry: the nearest earlier entry of its thread that ends later */
    thread_range *thr; size_t n_thr; /* by thread id */
} sequence;

typedef struct {
    tc_trace *t;
    sequence seq[2];              /* the spans, the calls */
    uint8_t *call_cls;            /* per string id: 0 not known yet, else tc_call_class + 1 */
    uint8_t *dl;                  /* per string id: 0 not known yet, 1 no, 2 the name holds DataLoader */
    uint8_t *used;                /* per call (t->launches): 1 when it launched a GPU event */
    int64_t *first_start;         /* per call: the earliest start of the GPU events it launched */
    size_t n_strings;
    item *q; size_t nq, cap_q;    /* the items of the last query, ascending (cmp_item) */
    edge *e; size_t ne, cap_e;
    sum_map host_ops;             /* (cause << 32 | name) -> ns */
    sum_map sync_sites;           /* (call << 32 | op) -> ns */
    sum_map copy_sites;           /* (call << 32 | op) -> ns of sync time held by a copy call */
    sum_map drain_sites;          /* (call << 32 | op) -> ns of after-sync gaps begun in it */
    sum_map data_ops, memory_calls; /* name -> ns */
    bool oom;
} hw_ctx;

static int cmp_item(const void *a, const void *b) {
    const item *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return (x->ref > y->ref) - (x->ref < y->ref);
}

/* Entry i of a sequence as an item. */
static item entry(const hw_ctx *c, const sequence *s, size_t i) {
    if (s->calls) {
        const tc_launch *l = &c->t->launches[s->idx[i]];
        return (item){l->ts_ns, l->ts_ns + l->dur_ns, l->thread, (uint32_t)IT_CALL << 30 | s->idx[i]};
    }
    const tc_host_span *h = &c->t->host[i];
    uint32_t kind = h->kind == TC_HOST_ANNOTATION ? IT_ANNOTATION : IT_CPU_OP;
    return (item){h->ts_ns, h->ts_ns + h->dur_ns, h->thread, kind << 30 | (uint32_t)i};
}

static uint32_t item_name(const hw_ctx *c, const item *it) {
    size_t i = REF_INDEX(it->ref);
    return REF_KIND(it->ref) == IT_CALL ? c->t->launches[i].name : c->t->host[i].name;
}

static tc_call_class call_class(hw_ctx *c, uint32_t name) {
    if (name >= c->n_strings) return TC_CALL_OTHER;
    if (!c->call_cls[name]) {
        const char *s = tc_trace_str(c->t, name);
        c->call_cls[name] = (uint8_t)(tc_host_call_class(s, tc_strtab_len(c->t->strings, name)) + 1);
    }
    return (tc_call_class)(c->call_cls[name] - 1);
}

static bool is_data_loader(hw_ctx *c, uint32_t name) {
    if (name >= c->n_strings) return false;
    if (!c->dl[name]) c->dl[name] = strstr(tc_trace_str(c->t, name), "DataLoader") ? 2 : 1;
    return c->dl[name] == 2;
}

/* The spans' order, all fields compared (so the sort's result does not depend on the input order). */
int tc_host_span_cmp(const void *a, const void *b) {
    const tc_host_span *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->ts_ns != y->ts_ns) return x->ts_ns < y->ts_ns ? -1 : 1;
    if (x->dur_ns != y->dur_ns) return x->dur_ns > y->dur_ns ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

void tc_host_sort_spans(tc_trace *t) {
    for (size_t i = 1; i < t->n_host; i++)
        if (tc_host_span_cmp(&t->host[i - 1], &t->host[i]) > 0) {
            tc_sort(t->host, t->n_host, sizeof *t->host, tc_host_span_cmp);
            return;
        }
}

static int cmp_call(const hw_ctx *c, uint32_t a, uint32_t b) {
    const tc_launch *p = &c->t->launches[a], *q = &c->t->launches[b];
    item x = {p->ts_ns, p->ts_ns + p->dur_ns, p->thread, a}, y = {q->ts_ns, q->ts_ns + q->dur_ns, q->thread, b};
    return cmp_item(&x, &y);
}

/* Sorts the call indices v[0, n) by cmp_call: nothing to do when they are in order already (the
 * usual case), else a bottom-up merge sort. 0, or -1 out of memory. */
static int sort_calls(const hw_ctx *c, uint32_t *v, size_t n) {
    size_t i = 1;
    while (i < n && cmp_call(c, v[i - 1], v[i]) <= 0) i++;
    if (i >= n) return 0;
    uint32_t *tmp = malloc(n * sizeof *tmp), *src = v, *dst = tmp;
    if (!tmp) return -1;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, a = lo, b = mid, k = lo;
            while (a < mid && b < hi) dst[k++] = cmp_call(c, src[a], src[b]) <= 0 ? src[a++] : src[b++];
            while (a < mid) dst[k++] = src[a++];
            while (b < hi) dst[k++] = src[b++];
        }
        uint32_t *sw = src; src = dst; dst = sw;
    }
    if (src != v) memcpy(v, src, n * sizeof *v);
    free(tmp);
    return 0;
}

/* A sorted sequence's thread ranges and prev_longer. 0, or -1 out of memory. */
static int index_sequence(hw_ctx *c, sequence *s) {
    s->prev_longer = tc_big_alloc(s->n ? s->n : 1, sizeof *s->prev_longer, false);
    uint32_t *stack = malloc((s->n ? s->n : 1) * sizeof *stack);
    size_t cap_thr = 0;
    int rc = s->prev_longer && stack ? 0 : -1;
    for (size_t lo = 0; lo < s->n && !rc;) {
        size_t hi = lo, top = 0;
        uint32_t thread = entry(c, s, lo).thread;
        while (hi < s->n && entry(c, s, hi).thread == thread) hi++;
        for (size_t i = lo; i < hi; i++) { /* the previous entry of the thread that ends later */
            int64_t end = entry(c, s, i).end;
            while (top && entry(c, s, stack[top - 1]).end <= end) top--;
            s->prev_longer[i] = top ? stack[top - 1] : TC_NONE;
            stack[top++] = (uint32_t)i;
        }
        thread_range r = {thread, lo, hi};
        rc = TC_PUSH(s->thr, s->n_thr, cap_thr, r);
        lo = hi;
    }
    free(stack);
    return rc;
}

/* Builds the two sequences: every host span (t->host sorted in place) and the calls of a class or
 * that launched GPU work (no other call can change a cause). 0, or -1 out of memory. */
static int build_items(hw_ctx *c) {
    tc_trace *t = c->t;
    if (t->n_host > MAX_ITEMS || t->n_launches > MAX_ITEMS) return -1;
    tc_host_sort_spans(t);
    sequence *spans = &c->seq[0], *calls = &c->seq[1];
    spans->n = t->n_host;
    calls->calls = true;
    calls->idx = malloc((t->n_launches ? t->n_launches : 1) * sizeof *calls->idx);
    if (!calls->idx) return -1;
    for (size_t i = 0; i < t->n_launches; i++)
        if (c->used[i] || call_class(c, t->launches[i].name) != TC_CALL_OTHER) calls->idx[calls->n++] = (uint32_t)i;
    if (sort_calls(c, calls->idx, calls->n)) return -1;
    return index_sequence(c, spans) || index_sequence(c, calls) ? -1 : 0;
}

static const thread_range *find_thread(const sequence *s, uint32_t thread) {
    size_t lo = 0, hi = s->n_thr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->thr[mid].thread < thread) lo = mid + 1; else hi = mid;
    }
    return lo < s->n_thr && s->thr[lo].thread == thread ? &s->thr[lo] : NULL;
}

/* Appends to c->q the entries of s on `thread` with start < y and end > x. */
static void collect(hw_ctx *c, const sequence *s, uint32_t thread, int64_t x, int64_t y) {
    const thread_range *r = find_thread(s, thread);
    if (!r) return;
    size_t lo = r->lo, hi = r->hi;
    while (lo < hi) { /* the first entry starting at or after y */
        size_t mid = lo + (hi - lo) / 2;
        if (entry(c, s, mid).start < y) lo = mid + 1; else hi = mid;
    }
    for (size_t i = lo; i > r->lo;) {
        size_t k = i - 1;
        item it = entry(c, s, k);
        if (it.end > x) {
            if (TC_PUSH(c->q, c->nq, c->cap_q, it)) { c->oom = true; return; }
            i = k;
        } else {
            uint32_t p = s->prev_longer[k]; /* every entry between p and k ends by it.end <= x */
            i = p == TC_NONE ? r->lo : (size_t)p + 1;
        }
    }
}

/* c->q = the spans and calls of thread with start < y and end > x, ascending (cmp_item). */
static void overlapping(hw_ctx *c, uint32_t thread, int64_t x, int64_t y) {
    c->nq = 0;
    collect(c, &c->seq[0], thread, x, y);
    collect(c, &c->seq[1], thread, x, y);
    tc_sort(c->q, c->nq, sizeof *c->q, cmp_item);
}

/* ---- one gap --------------------------------------------------------------------------------- */

typedef struct {
    const tc_launch *R;
    uint32_t r_ref, p_ref;  /* R's and P's (the innermost cpu_op around R) item refs; TC_NONE none */
    int64_t a, hend, Le;    /* the gap's start, the end of its host part, R's end */
} gap_ctx;

/* A copy call (async, or a blocking one that is R) holds the host when it lasts HOLD_NS or more: the
 * host copied (a copy of pageable memory is staged by the CPU) or waited in it, it launched nothing
 * for that long. */
static bool holds_host(const item *it) { return it->end - it->start >= HOLD_NS; }

static unsigned item_flags(hw_ctx *c, const item *it, const gap_ctx *g) {
    uint32_t name = item_name(c, it);
    if (REF_KIND(it->ref) != IT_CALL) {
        unsigned f = is_data_loader(c, name) ? F_DATA : 0;
        return it->ref == g->p_ref ? f | F_LAUNCH : f;
    }
    tc_call_class k = call_class(c, name);
    bool is_r = it->ref == g->r_ref;
    if ((k == TC_CALL_SYNC || k == TC_CALL_SYNC_COPY) && !is_r) return F_SYNC;
    if (k == TC_CALL_MEMORY) return F_MEMORY;
    if (k == TC_CALL_MODULE) return F_MODULE;
    if (k == TC_CALL_COPY || k == TC_CALL_SYNC_COPY) return holds_host(it) ? F_COPY : F_LAUNCH;
    if (k == TC_CALL_LAUNCH || k == TC_CALL_GRAPH_LAUNCH) return it->end - it->start >= MODULE_LOAD_NS ? F_MODULE : F_LAUNCH;
    return is_r ? F_LAUNCH : 0;
}

static tc_idle_cause cause_of(const unsigned *count) {
    if (count[0]) return TC_IDLE_DATA_LOADING;
    if (count[1] || count[2]) return TC_IDLE_SYNC; /* a sync call, or a copy call holding the host */
    if (count[3]) return TC_IDLE_MEMORY_MANAGEMENT;
    if (count[4]) return TC_IDLE_MODULE_LOAD;
    if (count[5]) return TC_IDLE_LAUNCH_OVERHEAD;
    return TC_IDLE_CPU_OTHER;
}

static int cmp_edge(const void *a, const void *b) {
    const edge *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

/* The innermost cpu_op of R's thread enclosing R (starts at or before Ls, ends at or after Le). */
static uint32_t innermost_op(hw_ctx *c, const tc_launch *R) {
    int64_t ls = R->ts_ns, le = R->ts_ns + R->dur_ns;
    overlapping(c, R->thread, le - 1, ls + 1); /* start <= Ls, end >= Le */
    uint32_t best = TC_NONE;
    int64_t best_start = INT64_MIN;
    for (size_t i = 0; i < c->nq; i++) {
        const item *it = &c->q[i];
        if (REF_KIND(it->ref) != IT_CPU_OP || it->end < le) continue;
        if (it->start >= best_start) { best_start = it->start; best = it->ref; }
    }
    return best;
}

/* The name of the outermost span of the query that covers most of [a, Le) (ties: the earliest);
 * TC_NONE when no span covers any of it. */
static uint32_t gap_host_op(hw_ctx *c, const gap_ctx *g) {
    int64_t max_end = INT64_MIN, best = 0;
    uint32_t name = TC_NONE;
    for (size_t i = 0; i < c->nq; i++) {
        const item *it = &c->q[i];
        if (REF_KIND(it->ref) == IT_CALL) continue;
        bool outermost = it->end > max_end; /* an earlier span ending as late encloses it */
        if (it->end > max_end) max_end = it->end;
        if (!outermost) continue;
        int64_t s = it->start > g->a ? it->start : g->a, e = it->end < g->Le ? it->end : g->Le;
        if (e - s > best) { best = e - s; name = item_name(c, it); }
    }
    return name;
}

/* The first (outermost) item of the query containing instant x with flag f. */
static const item *holder(hw_ctx *c, const gap_ctx *g, int64_t x, unsigned f) {
    for (size_t i = 0; i < c->nq; i++) {
        const item *it = &c->q[i];
        if (it->start <= x && x < it->end && (item_flags(c, it, g) & f)) return it;
    }
    return NULL;
}

/* The outermost cpu_op of the query around item h, TC_NONE none. */
static uint32_t op_around(hw_ctx *c, const item *h) {
    for (size_t i = 0; i < c->nq; i++) {
        const item *o = &c->q[i];
        if (REF_KIND(o->ref) == IT_CPU_OP && o->start <= h->start && o->end >= h->end) return item_name(c, o);
    }
    return TC_NONE;
}

/* The evidence of one piece [x, x + len) of a gap's host part with cause k (rank level only). */
static void note_piece(hw_ctx *c, const gap_ctx *g, uint32_t host_op, tc_idle_cause k, int64_t x, int64_t len) {
    bool bad = map_add(&c->host_ops, (uint64_t)k << 32 | host_op, len) != 0;
    const item *h = NULL;
    if (k == TC_IDLE_SYNC && (h = holder(c, g, x, F_SYNC))) {
        bad |= map_add(&c->sync_sites, (uint64_t)item_name(c, h) << 32 | op_around(c, h), len) != 0;
    } else if (k == TC_IDLE_SYNC && (h = holder(c, g, x, F_COPY))) {
        bad |= map_add(&c->copy_sites, (uint64_t)item_name(c, h) << 32 | op_around(c, h), len) != 0;
    } else if (k == TC_IDLE_DATA_LOADING && (h = holder(c, g, x, F_DATA))) {
        bad |= map_add(&c->data_ops, item_name(c, h), len) != 0;
    } else if (k == TC_IDLE_MEMORY_MANAGEMENT && (h = holder(c, g, x, F_MEMORY))) {
        bad |= map_add(&c->memory_calls, item_name(c, h), len) != 0;
    }
    if (bad) c->oom = true;
}

/* Splits the host part [a, hend) of a gap by cause (the query holds the items over [a, Le)). */
static void split_host_part(hw_ctx *c, const gap_ctx *g, bool detail, tc_idle_causes *out) {
    c->ne = 0;
    for (size_t i = 0; i < c->nq && !c->oom; i++) {
        const item *it = &c->q[i];
        int64_t s = it->start > g->a ? it->start : g->a, e = it->end < g->hend ? it->end : g->hend;
        unsigned f = s < e ? item_flags(c, it, g) : 0;
        if (!f) continue;
        if (TC_PUSH(c->e, c->ne, c->cap_e, ((edge){s, 1, f})) || TC_PUSH(c->e, c->ne, c->cap_e, ((edge){e, -1, f})))
            c->oom = true;
    }
    if (c->oom) return;
    tc_sort(c->e, c->ne, sizeof *c->e, cmp_edge);
    uint32_t host_op = detail ? gap_host_op(c, g) : TC_NONE;
    unsigned count[N_FLAGS] = {0};
    int64_t pos = g->a;
    for (size_t i = 0; i <= c->ne; i++) {
        int64_t at = i < c->ne ? c->e[i].at : g->hend;
        if (at > pos) {
            tc_idle_cause k = cause_of(count);
            out->ns[k] += at - pos;
            if (k == TC_IDLE_SYNC && !count[1]) out->copy_held_ns += at - pos;
            if (detail) note_piece(c, g, host_op, k, pos, at - pos);
            pos = at;
        }
        if (i == c->ne) break;
        for (int b = 0; b < N_FLAGS; b++)
            if (c->e[i].flags & (1u << b)) count[b] = (unsigned)((int)count[b] + c->e[i].delta);
    }
}

/* Attributes the gap [a, b) that the GPU event E ends. */
static void attribute_gap(hw_ctx *c, int64_t a, int64_t b, const tc_gpu_event *E, bool detail, tc_idle_causes *out) {
    const tc_trace *t = c->t;
    const tc_launch *R = E->correlation != TC_NONE ? tc_trace_find_launch(t, E->correlation) : NULL;
    if (!R) { out->ns[TC_IDLE_UNATTRIBUTED] += b - a; return; }
    gap_ctx g = {R, (uint32_t)IT_CALL << 30 | (uint32_t)(R - t->launches), TC_NONE, a, 0, R->ts_ns + R->dur_ns};
    /* a graph's kernel after its first: the GPU, not the host, launched it (one launch, many kernels) */
    bool in_graph = call_class(c, R->name) == TC_CALL_GRAPH_LAUNCH && c->first_start[R - t->launches] < E->start_ns;
    if (g.Le <= a || in_graph) { out->ns[TC_IDLE_GPU_SIDE] += b - a; return; }
    g.hend = g.Le < b ? g.Le : b;
    g.p_ref = innermost_op(c, R);
    overlapping(c, R->thread, a, g.Le);
    const item *drain = holder(c, &g, a, F_SYNC); /* began while the thread was in another sync call */
    if (drain) {
        out->after_sync_ns += b - a;
        if (detail && map_add(&c->drain_sites, (uint64_t)item_name(c, drain) << 32 | op_around(c, drain), b - a))
            c->oom = true;
    }
    split_host_part(c, &g, detail, out);
    if (g.Le < b) out->ns[TC_IDLE_GPU_SIDE] += b - g.Le;
}

/* ---- the gaps of a window -------------------------------------------------------------------- */

typedef struct {
    const tc_gpu_event *ev;
    const uint32_t *idx;    /* the window's events ev[idx[i]], or ev[i] when NULL; sorted by start */
    size_t n;
} event_list;

static const tc_gpu_event *at(const event_list *l, size_t i) { return &l->ev[l->idx ? l->idx[i] : i]; }

/* The event that ends a gap at b, among those starting at b (l[i] is one): one with a launch call
 * beats one without, then the earliest launch, then the first. */
static const tc_gpu_event *ending_event(const hw_ctx *c, const event_list *l, size_t i, int64_t b) {
    while (i > 0 && at(l, i - 1)->start_ns == b) i--;
    const tc_gpu_event *best = NULL;
    const tc_launch *best_l = NULL;
    for (; i < l->n && at(l, i)->start_ns == b; i++) {
        const tc_gpu_event *e = at(l, i);
        const tc_launch *ln = e->correlation != TC_NONE ? tc_trace_find_launch(c->t, e->correlation) : NULL;
        if (!best || (ln && (!best_l || ln->ts_ns < best_l->ts_ns))) { best = e; best_l = ln; }
    }
    return best;
}

/* Splits every idle gap of the window (first start to last end of the events) by cause into out
 * (zeroed first). Gaps are the maximal intervals where none of the events runs (an event of zero
 * length runs nowhere). Returns their summed length. */
static int64_t window_causes(hw_ctx *c, const event_list *l, bool detail, tc_idle_causes *out) {
    memset(out, 0, sizeof *out);
    if (!l->n) return 0;
    int64_t end = at(l, 0)->start_ns, last = INT64_MIN, idle = 0;
    for (size_t i = 0; i < l->n; i++) {
        const tc_gpu_event *g = at(l, i);
        if (g->start_ns + g->dur_ns > last) last = g->start_ns + g->dur_ns;
        if (g->dur_ns <= 0) continue;
        if (g->start_ns > end) {
            attribute_gap(c, end, g->start_ns, ending_event(c, l, i, g->start_ns), detail, out);
            idle += g->start_ns - end;
        }
        if (g->start_ns + g->dur_ns > end) end = g->start_ns + g->dur_ns;
    }
    if (last > end) { /* zero-length events after the last busy time */
        attribute_gap(c, end, last, ending_event(c, l, l->n - 1, last), detail, out);
        idle += last - end;
    }
    return idle;
}

/* ---- launch statistics ----------------------------------------------------------------------- */

/* kernels_per_graph_launch of ls from the kernels each graph launch ran (kpl, per call). */
static void graph_figures(hw_ctx *c, const uint32_t *kpl, tc_launch_stats *ls) {
    for (size_t i = 0; i < c->t->n_launches; i++) {
        if (call_class(c, c->t->launches[i].name) != TC_CALL_GRAPH_LAUNCH) continue;
        if (!ls->graph_launches || kpl[i] < ls->graph_kpl_min) ls->graph_kpl_min = kpl[i];
        if (kpl[i] > ls->graph_kpl_max) ls->graph_kpl_max = kpl[i];
        ls->graph_launches++;
    }
    ls->graph_kpl_mean = ls->graph_launches ? (double)ls->graph_kernels / (double)ls->graph_launches : 0;
}

/* The launch statistics; marks c->used and sets c->first_start. */
static int launch_stats(hw_ctx *c, const tc_breakdown *b, tc_launch_stats *ls) {
    const tc_trace *t = c->t;
    memset(ls, 0, sizeof *ls);
    uint8_t *used = c->used;
    /* one delay per launched kernel: none without runtime calls (no 8 bytes per kernel then) */
    int64_t *delay = tc_big_alloc(t->n_gpu && t->n_launches ? t->n_gpu : 1, sizeof *delay, false);
    uint32_t *kpl = calloc(t->n_launches ? t->n_launches : 1, sizeof *kpl); /* kernels per call */
    if (!delay || !kpl) { free(delay); free(kpl); return -1; }
    for (size_t i = 0; i < t->n_launches; i++) c->first_start[i] = INT64_MAX;
    for (size_t i = 0; i < t->n_gpu; i++) {
        const tc_gpu_event *e = &t->gpu[i];
        const tc_launch *R = e->correlation != TC_NONE ? tc_trace_find_launch(t, e->correlation) : NULL;
        if (R) used[R - t->launches] = 1;
        if (R && e->start_ns < c->first_start[R - t->launches]) c->first_start[R - t->launches] = e->start_ns;
        if (e->kind != TC_GPU_KERNEL) continue;
        ls->kernels++;
        if (e->dur_ns < SHORT_KERNEL_NS) ls->short_kernels++;
        if (!R) continue;
        ls->launched++;
        if (call_class(c, R->name) == TC_CALL_GRAPH_LAUNCH) { ls->graph_kernels++; kpl[R - t->launches]++; }
        else delay[ls->delay_kernels++] = e->start_ns - R->ts_ns;
    }
    graph_figures(c, kpl, ls);
    for (size_t i = 0; i < t->n_launches; i++) {
        tc_call_class k = call_class(c, t->launches[i].name);
        if (k != TC_CALL_LAUNCH && k != TC_CALL_GRAPH_LAUNCH && k != TC_CALL_COPY && !used[i]) continue;
        ls->launch_calls++;
        ls->launch_cpu_ns += t->launches[i].dur_ns;
    }
    if (ls->delay_kernels) {
        tc_sort_i64(delay, ls->delay_kernels);
        ls->delay_median_ns = delay[(ls->delay_kernels - 1) / 2];
        ls->delay_p95_ns = delay[(95 * ls->delay_kernels + 99) / 100 - 1];
    }
    ls->gpu_busy_ns = b->window_ns - b->idle_ns;
    ls->launch_bound = ls->launch_cpu_ns > ls->gpu_busy_ns;
    free(delay);
    free(kpl);
    return 0;
}

/* ---- results --------------------------------------------------------------------------------- */

static const char *str_or_null(const tc_trace *t, uint32_t id) { return id == TC_NONE ? NULL : tc_trace_str(t, id); }

/* rr's host ops and evidence from the rank-level sums. */
static void fill_evidence(hw_ctx *c, tc_rank_result *rr) {
    const tc_trace *t = c->t;
    tc_idle_evidence *ev = &rr->evidence;
    kv *v = map_sorted(&c->host_ops, &c->oom);
    for (size_t i = 0; v && i < c->host_ops.n; i++) {
        uint32_t name = (uint32_t)v[i].key;
        uint8_t cause = (uint8_t)(v[i].key >> 32);
        if (rr->n_host_ops < TC_HOST_OPS) rr->host_ops[rr->n_host_ops++] = (tc_host_op){str_or_null(t, name), cause, v[i].ns};
        if (cause == TC_IDLE_CPU_OTHER && name != TC_NONE && !ev->other_op) { ev->other_op = str_or_null(t, name); ev->other_ns = v[i].ns; }
    }
    free(v);
    if ((v = map_sorted(&c->sync_sites, &c->oom))) {
        ev->sync_call = str_or_null(t, (uint32_t)(v[0].key >> 32));
        ev->sync_op = str_or_null(t, (uint32_t)v[0].key);
        ev->sync_ns = v[0].ns;
        free(v);
    }
    if ((v = map_sorted(&c->copy_sites, &c->oom))) {
        ev->copy_call = str_or_null(t, (uint32_t)(v[0].key >> 32));
        ev->copy_op = str_or_null(t, (uint32_t)v[0].key);
        ev->copy_ns = v[0].ns;
        free(v);
    }
    if ((v = map_sorted(&c->drain_sites, &c->oom))) {
        ev->drain_call = str_or_null(t, (uint32_t)(v[0].key >> 32));
        ev->drain_op = str_or_null(t, (uint32_t)v[0].key);
        ev->drain_ns = v[0].ns;
        free(v);
    }
    if ((v = map_sorted(&c->data_ops, &c->oom))) { ev->data_op = str_or_null(t, (uint32_t)v[0].key); ev->data_ns = v[0].ns; free(v); }
    if ((v = map_sorted(&c->memory_calls, &c->oom))) {
        ev->memory_call = str_or_null(t, (uint32_t)v[0].key);
        ev->memory_ns = v[0].ns;
        free(v);
    }
}

static void ctx_free(hw_ctx *c) {
    for (int k = 0; k < 2; k++) { free(c->seq[k].idx); free(c->seq[k].prev_longer); free(c->seq[k].thr); }
    free(c->call_cls); free(c->dl); free(c->used); free(c->first_start); free(c->q); free(c->e);
    free(c->host_ops.v); free(c->sync_sites.v); free(c->copy_sites.v); free(c->drain_sites.v); free(c->data_ops.v); free(c->memory_calls.v);
}

/* The invariant: the gaps add up to the breakdown's idle time, and the causes to the gaps. */
static bool adds_up(const tc_idle_causes *k, int64_t gaps, int64_t idle) {
    int64_t s = 0;
    for (int i = 0; i < TC_IDLE_CAUSES; i++) s += k->ns[i];
    return gaps == idle && s == idle;
}

/* rr->step_idle: the GPU window's causes, the lead (before the first GPU event, a gap that event
 * ends, with its evidence) and the tail (after the last: host work no GPU event follows, cpu_other;
 * unattributed when the trace has no runtime calls). */
static void widen_causes(hw_ctx *c, const event_list *l, const tc_breakdown *wide, int64_t lead, int64_t tail,
                         bool host_events, bool detail, tc_idle_causes *out) {
    tc_idle_cause host = host_events ? TC_IDLE_CPU_OTHER : TC_IDLE_UNATTRIBUTED;
    int64_t first = wide->first_ns + lead;
    if (lead > 0 && l->n) attribute_gap(c, wide->first_ns, first, ending_event(c, l, 0, first), detail, out);
    else out->ns[host] += lead;
    out->ns[host] += tail;
    assert(c->oom || adds_up(out, wide->idle_ns, wide->idle_ns));
}

static void step_window_causes(hw_ctx *c, const event_list *all, tc_rank_result *rr) {
    rr->step_idle = rr->idle;
    widen_causes(c, all, &rr->step_b, rr->before_first_kernel_ns, rr->after_last_kernel_ns, rr->has_host_events, true,
                 &rr->step_idle);
}

int tc_host_wait_rank(tc_trace *t, tc_rank_result *rr, const tc_step_map *m) {
    hw_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    int rc = -1;
    c.n_strings = tc_strtab_count(t->strings);
    c.call_cls = calloc(c.n_strings ? c.n_strings : 1, 1);
    c.dl = calloc(c.n_strings ? c.n_strings : 1, 1);
    c.used = calloc(t->n_launches ? t->n_launches : 1, 1);
    c.first_start = malloc((t->n_launches ? t->n_launches : 1) * sizeof *c.first_start);
    if (!c.call_cls || !c.dl || !c.used || !c.first_start || launch_stats(&c, &rr->b, &rr->launch) || build_items(&c)) goto done;
    rr->has_host_events = t->n_launches > 0;
    event_list all = {t->gpu, NULL, t->n_gpu};
    int64_t gaps = window_causes(&c, &all, true, &rr->idle);
    if (c.oom) goto done;
    assert(adds_up(&rr->idle, gaps, rr->b.idle_ns));
    if (rr->has_step_window) step_window_causes(&c, &all, rr);
    if (c.oom) goto done;
    fill_evidence(&c, rr);
    for (size_t s = 0; s < rr->n_steps && !c.oom; s++) {
        event_list l = {t->gpu, m->steps[s].events, m->steps[s].n_events};
        tc_step_result *st = &rr->steps[s];
        gaps = window_causes(&c, &l, false, &st->idle);
        assert(c.oom || adds_up(&st->idle, gaps, st->b.idle_ns));
        st->step_idle = st->idle; /* the step's span: its lead and tail too */
        widen_causes(&c, &l, &st->step_b, st->before_first_kernel_ns, st->after_last_kernel_ns, rr->has_host_events,
                     false, &st->step_idle);
    }
    (void)adds_up;
    (void)gaps;
    if (c.oom) goto done;
    rc = 0;
done:
    ctx_free(&c);
    return rc;
}

/* ---- the job --------------------------------------------------------------------------------- */

int tc_idle_top_cause(const tc_idle_causes *k) {
    int top = -1;
    for (int c = 0; c < TC_IDLE_CAUSES; c++)
        if (k->ns[c] > 0 && (top < 0 || k->ns[c] > k->ns[top])) top = c;
    return top;
}

void tc_host_wait_job(tc_job *j) {
    tc_summary *sm = &j->summary;
    memset(&sm->idle, 0, sizeof sm->idle);
    memset(&sm->evidence, 0, sizeof sm->evidence);
    memset(&sm->launch, 0, sizeof sm->launch);
    sm->host_event_ranks = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        for (int k = 0; k < TC_IDLE_CAUSES; k++) sm->idle.ns[k] += rr->idle.ns[k];
        sm->idle.after_sync_ns += rr->idle.after_sync_ns;
        sm->idle.copy_held_ns += rr->idle.copy_held_ns;
        sm->host_event_ranks += rr->has_host_events;
        const tc_idle_evidence *e = &rr->evidence;
        tc_idle_evidence *s = &sm->evidence;
        if (e->sync_ns > s->sync_ns) { s->sync_call = e->sync_call; s->sync_op = e->sync_op; s->sync_ns = e->sync_ns; }
        if (e->copy_ns > s->copy_ns) { s->copy_call = e->copy_call; s->copy_op = e->copy_op; s->copy_ns = e->copy_ns; }
        if (e->data_ns > s->data_ns) { s->data_op = e->data_op; s->data_ns = e->data_ns; }
        if (e->memory_ns > s->memory_ns) { s->memory_call = e->memory_call; s->memory_ns = e->memory_ns; }
        if (e->other_ns > s->other_ns) { s->other_op = e->other_op; s->other_ns = e->other_ns; }
        if (e->drain_ns > s->drain_ns) { s->drain_call = e->drain_call; s->drain_op = e->drain_op; s->drain_ns = e->drain_ns; }
        const tc_launch_stats *l = &rr->launch;
        tc_launch_stats *sl = &sm->launch;
        sl->kernels += l->kernels;
        sl->launched += l->launched;
        sl->short_kernels += l->short_kernels;
        sl->launch_calls += l->launch_calls;
        sl->launch_cpu_ns += l->launch_cpu_ns;
        sl->gpu_busy_ns += l->gpu_busy_ns;
        if (l->graph_launches && (!sl->graph_launches || l->graph_kpl_min < sl->graph_kpl_min))
            sl->graph_kpl_min = l->graph_kpl_min;
        if (l->graph_kpl_max > sl->graph_kpl_max) sl->graph_kpl_max = l->graph_kpl_max;
        sl->graph_launches += l->graph_launches;
        sl->graph_kernels += l->graph_kernels;
    }
    sm->launch.launch_bound = sm->launch.launch_cpu_ns > sm->launch.gpu_busy_ns;
    sm->launch.graph_kpl_mean =
        sm->launch.graph_launches ? (double)sm->launch.graph_kernels / (double)sm->launch.graph_launches : 0;
    tc_window_figures *st = &sm->step; /* a rank without steps counts its GPU window's causes */
    memset(&st->causes, 0, sizeof st->causes);
    st->before_first_kernel_ns = st->after_last_kernel_ns = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        const tc_idle_causes *k = rr->has_step_window ? &rr->step_idle : &rr->idle;
        for (int c = 0; c < TC_IDLE_CAUSES; c++) st->causes.ns[c] += k->ns[c];
        st->causes.after_sync_ns += k->after_sync_ns;
        st->causes.copy_held_ns += k->copy_held_ns;
        st->before_first_kernel_ns += rr->has_step_window ? rr->before_first_kernel_ns : 0;
        st->after_last_kernel_ns += rr->has_step_window ? rr->after_last_kernel_ns : 0;
    }
    for (int k = 0; k < TC_IDLE_CAUSES; k++)
        st->cause_share[k] = st->b.window_ns > 0 ? (double)st->causes.ns[k] / (double)st->b.window_ns : 0;
    for (int k = 0; k < TC_IDLE_CAUSES; k++)
        sm->idle_cause_share[k] = sm->b.window_ns > 0 ? (double)sm->idle.ns[k] / (double)sm->b.window_ns : 0;
}
