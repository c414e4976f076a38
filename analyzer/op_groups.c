/* op_groups.c: one rank's op attribution (see op_groups.h): its compute kernels to ops, modules and
 * fusion candidates, summed into tc_op_parts.
 *
 * The compute kernels whose launch call is known become queries (launch thread, launch start),
 * sorted; the host spans and the module spans, both in (thread, start, end descending) order, are
 * swept alongside with one stack each of the spans still open, so the innermost cpu_op and the
 * innermost module enclosing each launch are found in O(spans + kernels) after the sorts. Sums go
 * to small hash maps keyed by string ids (the trace's, interned: equal text, equal id). */
#include "op_groups.h"
#include "host_wait.h"
#include "model/ops.h"
#include "model/roofline.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* ---- a map from fixed-width keys of uint32 words to their index ---------------------------- */

typedef struct {
    uint32_t width;           /* words per key */
    uint32_t *keys;           /* n keys of width words each */
    size_t n, cap;            /* keys held; words of keys[] allocated */
    uint32_t *slot;           /* key index + 1, 0 empty; n_slot a power of two */
    size_t n_slot;
} key_map;

static uint32_t hash_words(const uint32_t *k, uint32_t w) {
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t i = 0; i < w; i++) { h ^= k[i]; h *= 1099511628211ULL; }
    return (uint32_t)(h ^ h >> 32);
}

static void map_free(key_map *m) { free(m->keys); free(m->slot); memset(m, 0, sizeof *m); }

static int map_rehash(key_map *m) {
    size_t ns = m->n_slot ? 2 * m->n_slot : 64;
    uint32_t *slot = calloc(ns, sizeof *slot);
    if (!slot) return -1;
    for (size_t i = 0; i < m->n; i++) {
        size_t at = hash_words(m->keys + i * m->width, m->width) & (ns - 1);
        while (slot[at]) at = (at + 1) & (ns - 1);
        slot[at] = (uint32_t)(i + 1);
    }
    free(m->slot);
    m->slot = slot;
    m->n_slot = ns;
    return 0;
}

/* The index of key (width words), added when new (*added true) while the map holds fewer than
 * limit keys; SIZE_MAX when it is new and the map is full. 0, or -1 out of memory. */
static int map_get_limit(key_map *m, const uint32_t *key, size_t limit, size_t *idx, bool *added) {
    if (2 * (m->n + 1) > m->n_slot && map_rehash(m)) return -1;
    size_t at = hash_words(key, m->width) & (m->n_slot - 1);
    *added = false;
    for (; m->slot[at]; at = (at + 1) & (m->n_slot - 1)) {
        size_t i = m->slot[at] - 1;
        if (memcmp(m->keys + i * m->width, key, m->width * sizeof *key) == 0) { *idx = i; return 0; }
    }
    if (m->n >= limit) { *idx = SIZE_MAX; return 0; }
    if (tc_grow((void **)&m->keys, &m->cap, (m->n + 1) * m->width, sizeof *m->keys)) return -1;
    memcpy(m->keys + m->n * m->width, key, m->width * sizeof *key);
    m->slot[at] = (uint32_t)(m->n + 1);
    *idx = m->n++;
    *added = true;
    return 0;
}

static int map_get(key_map *m, const uint32_t *key, size_t *idx, bool *added) {
    return map_get_limit(m, key, SIZE_MAX, idx, added);
}

/* ---- the sweep ------------------------------------------------------------------------------ */

static bool is_compute(const tc_gpu_event *g) { return g->kind == TC_GPU_KERNEL && !g->is_comm; }

typedef struct { int64_t ts; uint32_t thread, kernel; } query;

static int cmp_query(const void *a, const void *b) {
    const query *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

static int cmp_module(const void *a, const void *b) {
    const tc_module_span *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->ts_ns != y->ts_ns) return x->ts_ns < y->ts_ns ? -1 : 1;
    if (x->dur_ns != y->dur_ns) return x->dur_ns > y->dur_ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* A rank's group while it is summed: its calls' costs (each call's own op key: calls of one group
 * may differ in their Concrete Inputs) and the durations. */
typedef struct {
    uint32_t name, shapes;    /* string ids; shapes TC_NONE none */
    int8_t dtype;
    uint8_t family;
    bool has_flops, has_bytes; /* every call's key gave them */
    double flops, bytes;      /* Σ over its calls */
    int64_t count, gpu_ns;
    int64_t *durs; size_t n_durs, cap_durs;
} work_group;

/* A module path: its parent path (TC_NONE at the top) and its last name. */
typedef struct { uint32_t parent, name; int64_t self_ns; } work_path;

typedef struct {
    tc_trace *t;
    key_map gmap, pmap, fmap, opmap; /* opmap: (group, parent name id) -> index into op_calls */
    int64_t *op_calls; size_t n_op_calls, cap_op_calls;
    work_group *g; size_t n_g, cap_g;
    work_path *p; size_t n_p, cap_p;
    tc_fusion_row *f; size_t n_f, cap_f; /* kernels NULL until exported; key in fmap */
    const tc_module_span *mods; size_t n_mods; /* the module spans the view uses (module_spans) */
    uint8_t *called;          /* per host span: it has had a kernel attributed */
    int64_t outside_ns;       /* compute time outside every module */
    bool oom;
} work;

/* The group of host span h (a cpu_op). Its index, or SIZE_MAX out of memory. */
static size_t group_of(work *w, const tc_host_span *h) {
    const tc_trace *t = w->t;
    const tc_op_key *k = h->op_key != TC_NONE ? &t->op_keys[h->op_key] : NULL;
    uint32_t key[3] = {h->name, k ? k->shapes : TC_NONE, k ? (uint32_t)(uint8_t)k->dtype : 0xffu};
    size_t i;
    bool added;
    if (map_get(&w->gmap, key, &i, &added)) return SIZE_MAX;
    if (!added) return i;
    work_group g;
    memset(&g, 0, sizeof g);
    g.name = h->name;
    g.shapes = key[1];
    g.dtype = k ? k->dtype : (int8_t)TC_DTYPE_UNKNOWN;
    if (k) {
        g.family = k->family;
        g.has_flops = g.has_bytes = true; /* until a call's key lacks them */
    }
    return TC_PUSH(w->g, w->n_g, w->cap_g, g) ? SIZE_MAX : i;
}

/* The path index of module name under parent (TC_NONE: the top), or TC_NONE out of memory. */
static uint32_t path_of(work *w, uint32_t parent, uint32_t name) {
    uint32_t key[2] = {parent, name};
    size_t i;
    bool added;
    if (map_get(&w->pmap, key, &i, &added)) return TC_NONE;
    work_path p = {parent, name, 0};
    if (added && TC_PUSH(w->p, w->n_p, w->cap_p, p)) return TC_NONE;
    return (uint32_t)i;
}

/* One more call of group gi inside parent (a host index, SIZE_MAX none). */
static void count_parent(work *w, size_t gi, size_t parent) {
    uint32_t key[2] = {(uint32_t)gi, parent == SIZE_MAX ? TC_NONE : w->t->host[parent].name};
    size_t i;
    bool added;
    if (map_get(&w->opmap, key, &i, &added)) { w->oom = true; return; }
    int64_t zero = 0;
    if (added && TC_PUSH(w->op_calls, w->n_op_calls, w->cap_op_calls, zero)) { w->oom = true; return; }
    w->op_calls[i]++;
}

/* One kernel attributed: to host span op (SIZE_MAX none) inside host span parent (SIZE_MAX none)
 * and module path mod (TC_NONE none). */
static void attribute(work *w, const tc_gpu_event *g, size_t op, size_t parent, uint32_t mod) {
    if (mod != TC_NONE) w->p[mod].self_ns += g->dur_ns;
    else w->outside_ns += g->dur_ns;
    if (op == SIZE_MAX) return;
    size_t gi = group_of(w, &w->t->host[op]);
    if (gi == SIZE_MAX) { w->oom = true; return; }
    work_group *wg = &w->g[gi];
    if (!w->called[op]) {
        const tc_host_span *h = &w->t->host[op];
        const tc_op_key *k = h->op_key != TC_NONE ? &w->t->op_keys[h->op_key] : NULL;
        w->called[op] = 1;
        wg->count++;
        wg->has_flops &= k && k->has_flops;
        wg->has_bytes &= k && k->has_bytes;
        if (k) { wg->flops += k->flops; wg->bytes += k->bytes; }
        count_parent(w, gi, parent);
    }
    wg->gpu_ns += g->dur_ns;
    if (TC_PUSH(wg->durs, wg->n_durs, wg->cap_durs, g->dur_ns)) w->oom = true;
}

typedef struct { int64_t end; uint32_t at; } open_span; /* at: host index, or module path */

/* Pops the spans of the stack that end before ts. */
static void pop_ended(const open_span *s, size_t *n, int64_t ts) {
    while (*n && s[*n - 1].end < ts) (*n)--;
}

/* Walks the queries (sorted) with the host spans and module spans of their threads. */
static int sweep(work *w, const query *q, size_t nq) {
    tc_trace *t = w->t;
    const tc_module_span *mods = w->mods;
    size_t n_mods = w->n_mods;
    size_t cap = (t->n_host > n_mods ? t->n_host : n_mods) + 1;
    open_span *hs = malloc(cap * sizeof *hs), *ms = malloc(cap * sizeof *ms);
    int rc = hs && ms ? 0 : -1;
    size_t hi = 0, mi = 0, nh = 0, nm = 0;
    uint32_t thread = TC_NONE;
    for (size_t i = 0; i < nq && !rc && !w->oom; i++) {
        if (q[i].thread != thread) {
            thread = q[i].thread;
            nh = nm = 0;
            while (hi < t->n_host && t->host[hi].thread < thread) hi++;
            while (mi < n_mods && mods[mi].thread < thread) mi++;
        }
        for (; hi < t->n_host && t->host[hi].thread == thread && t->host[hi].ts_ns <= q[i].ts; hi++) {
            const tc_host_span *h = &t->host[hi];
            if (h->kind != TC_HOST_CPU_OP) continue;
            pop_ended(hs, &nh, h->ts_ns);
            hs[nh++] = (open_span){h->ts_ns + h->dur_ns, (uint32_t)hi};
        }
        for (; mi < n_mods && mods[mi].thread == thread && mods[mi].ts_ns <= q[i].ts; mi++) {
            const tc_module_span *m = &mods[mi];
            pop_ended(ms, &nm, m->ts_ns);
            uint32_t p = path_of(w, nm ? ms[nm - 1].at : TC_NONE, m->name);
            if (p == TC_NONE) { rc = -1; break; }
            ms[nm++] = (open_span){m->ts_ns + m->dur_ns, p};
        }
        pop_ended(hs, &nh, q[i].ts);
        pop_ended(ms, &nm, q[i].ts);
        attribute(w, &t->gpu[q[i].kernel], nh ? hs[nh - 1].at : SIZE_MAX, nh > 1 ? hs[nh - 2].at : SIZE_MAX,
                  nm ? ms[nm - 1].at : TC_NONE);
    }
    free(hs);
    free(ms);
    return rc || w->oom ? -1 : 0;
}


/* ---- fusion candidates ---------------------------------------------------------------------- */

#define FUSION_KEYS 65536 /* distinct sequences counted per rank (memory bound) */

/* A stream's run of short kernels back to back: its names so far. */
typedef struct { uint32_t len; uint32_t names[TC_FUSION_MAX_LEN]; int64_t ns, end; } run;

static void run_close(work *w, run *r) {
    if (r->len >= 2 && !w->oom) {
        uint32_t key[1 + TC_FUSION_MAX_LEN];
        key[0] = r->len;
        for (uint32_t i = 0; i < TC_FUSION_MAX_LEN; i++) key[1 + i] = i < r->len ? r->names[i] : TC_NONE;
        size_t i;
        bool added;
        if (map_get_limit(&w->fmap, key, FUSION_KEYS, &i, &added)) { w->oom = true; return; }
        if (i == SIZE_MAX) { r->len = 0; r->ns = 0; return; } /* past the bound: not counted */
        tc_fusion_row f = {NULL, r->len, 0, 0};
        if (added && TC_PUSH(w->f, w->n_f, w->cap_f, f)) { w->oom = true; return; }
        w->f[i].occurrences++;
        w->f[i].gpu_ns += r->ns;
    }
    r->len = 0;
    r->ns = 0;
}

/* The runs of every stream, over the GPU events in start order. 0, or -1 out of memory. */
static int find_runs(work *w) {
    const tc_trace *t = w->t;
    key_map smap = {.width = 1};
    run *runs = NULL;
    size_t n_runs = 0, cap_runs = 0;
    for (size_t e = 0; e < t->n_gpu && !w->oom; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        size_t si;
        bool added;
        if (map_get(&smap, &g->stream, &si, &added)) { w->oom = true; break; }
        run r0 = {0};
        if (added && TC_PUSH(runs, n_runs, cap_runs, r0)) { w->oom = true; break; }
        run *r = &runs[si];
        bool short_k = is_compute(g) && g->dur_ns < TC_FUSION_SHORT_NS;
        if (r->len && (!short_k || g->start_ns - r->end >= TC_FUSION_GAP_NS || r->len == TC_FUSION_MAX_LEN))
            run_close(w, r);
        if (!short_k) continue;
        r->names[r->len++] = g->name;
        r->ns += g->dur_ns;
        r->end = g->start_ns + g->dur_ns;
    }
    for (size_t i = 0; i < n_runs; i++) run_close(w, &runs[i]);
    free(runs);
    map_free(&smap);
    return w->oom ? -1 : 0;
}

/* ---- the parts ------------------------------------------------------------------------------ */

static char *dup_str(const tc_trace *t, uint32_t id) {
    return tc_strdup(tc_trace_str(t, id));
}

/* "A_0/B_0/C_1" of path p into a new string, NULL out of memory. */
static char *path_text(const work *w, uint32_t p) {
    size_t len = 0; /* the names and a '/' before each but the first */
    for (uint32_t q = p; q != TC_NONE; q = w->p[q].parent) len += tc_strtab_len(w->t->strings, w->p[q].name) + (len > 0);
    char *s = malloc(len + 2);
    if (!s) return NULL;
    size_t at = len;
    s[at] = 0;
    for (uint32_t q = p; q != TC_NONE; q = w->p[q].parent) {
        size_t l = tc_strtab_len(w->t->strings, w->p[q].name);
        if (at < len) s[--at] = '/';
        at -= l;
        memcpy(s + at, tc_trace_str(w->t, w->p[q].name), l);
    }
    return s;
}

/* The kernel names of fusion key i joined by " > ", NULL out of memory. */
static char *fusion_text(const work *w, size_t i) {
    const uint32_t *k = w->fmap.keys + i * w->fmap.width;
    size_t len = 1;
    for (uint32_t j = 0; j < k[0]; j++) len += tc_strtab_len(w->t->strings, k[1 + j]) + 3;
    char *s = malloc(len), *at = s;
    if (!s) return NULL;
    for (uint32_t j = 0; j < k[0]; j++) {
        if (j) { memcpy(at, " > ", 3); at += 3; }
        size_t l = tc_strtab_len(w->t->strings, k[1 + j]);
        memcpy(at, tc_trace_str(w->t, k[1 + j]), l);
        at += l;
    }
    *at = 0;
    return s;
}

static int export_parts(work *w, tc_op_parts *out) {
    for (size_t i = 0; i < w->n_g; i++) {
        work_group *g = &w->g[i];
        tc_op_part_group o = {.dtype = g->dtype, .family = g->family, .has_flops = g->has_flops,
                              .has_bytes = g->has_bytes, .count = g->count, .kernels = (int64_t)g->n_durs,
                              .gpu_ns = g->gpu_ns, .durs = g->durs};
        o.flops = g->has_flops ? g->flops : 0;
        o.bytes = g->has_bytes ? g->bytes : 0;
        g->durs = NULL;
        o.op = dup_str(w->t, g->name);
        o.shapes = g->shapes == TC_NONE ? NULL : dup_str(w->t, g->shapes);
        bool bad = !o.op || (g->shapes != TC_NONE && !o.shapes);
        if (bad || TC_PUSH(out->groups, out->n_groups, out->cap_groups, o)) {
            free(o.op); free(o.shapes); free(o.durs);
            return -1;
        }
        out->attributed_ns += g->gpu_ns;
        if (g->shapes == TC_NONE) out->unknown_shapes_ns += g->gpu_ns;
    }
    for (size_t i = 0; i < w->n_op_calls; i++) { /* the groups were exported in their order */
        const uint32_t *k = w->opmap.keys + 2 * i;
        tc_op_part_parent pp = {k[0], NULL, w->op_calls[i]};
        if (k[1] != TC_NONE && !(pp.op = dup_str(w->t, k[1]))) return -1;
        if (TC_PUSH(out->parents, out->n_parents, out->cap_parents, pp)) { free(pp.op); return -1; }
    }
    for (size_t i = 0; i <= w->n_p; i++) { /* the last: outside every module */
        tc_op_part_module m = {NULL, i < w->n_p ? w->p[i].self_ns : w->outside_ns};
        if (m.self_ns == 0 && i < w->n_p) continue;
        if (i < w->n_p && !(m.path = path_text(w, (uint32_t)i))) return -1;
        if (TC_PUSH(out->modules, out->n_modules, out->cap_modules, m)) { free(m.path); return -1; }
    }
    for (size_t i = 0; i < w->n_f; i++) {
        if (w->f[i].occurrences < 2) continue;
        tc_fusion_row f = w->f[i];
        if (!(f.kernels = fusion_text(w, i)) || TC_PUSH(out->fusions, out->n_fusions, out->cap_fusions, f)) {
            free(f.kernels);
            return -1;
        }
    }
    return 0;
}

static void work_free(work *w) {
    for (size_t i = 0; i < w->n_g; i++) free(w->g[i].durs);
    free(w->g);
    free(w->p);
    free(w->f);
    free(w->called);
    free(w->op_calls);
    map_free(&w->opmap);
    map_free(&w->gmap);
    map_free(&w->pmap);
    map_free(&w->fmap);
}

/* The spans of the module view: the nn.Module spans, sorted in place; without any, the user
 * annotations (record_function ranges; ProfilerStep# spans are steps, not host spans) copied into
 * *owned, in the host spans' order, which is the modules' (thread, start, end descending). Sets
 * out->module_source. 0, or -1 out of memory. */
static int module_spans(work *w, tc_op_parts *out, tc_module_span **owned) {
    tc_trace *t = w->t;
    *owned = NULL;
    if (t->n_modules > 0) {
        tc_sort(t->modules, t->n_modules, sizeof *t->modules, cmp_module);
        w->mods = t->modules;
        w->n_mods = t->n_modules;
        out->module_source = TC_MODULES_NN_MODULE;
        return 0;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->n_host; i++) n += t->host[i].kind == TC_HOST_ANNOTATION;
    if (n == 0) return 0;
    tc_module_span *m = malloc(n * sizeof *m);
    if (!m) return -1;
    n = 0;
    for (size_t i = 0; i < t->n_host; i++) {
        const tc_host_span *h = &t->host[i];
        if (h->kind == TC_HOST_ANNOTATION) m[n++] = (tc_module_span){h->ts_ns, h->dur_ns, h->name, h->thread};
    }
    *owned = m;
    w->mods = m;
    w->n_mods = n;
    out->module_source = TC_MODULES_USER_ANNOTATION;
    return 0;
}

int tc_op_parts_rank(tc_trace *t, tc_op_parts *out) {
    memset(out, 0, sizeof *out);
    bool cpu_ops = false;
    for (size_t i = 0; i < t->n_host && !cpu_ops; i++) cpu_ops = t->host[i].kind == TC_HOST_CPU_OP;
    if (!cpu_ops) return 0;
    out->has = true;
    work w = {.t = t, .gmap = {.width = 3}, .pmap = {.width = 2}, .fmap = {.width = 1 + TC_FUSION_MAX_LEN},
              .opmap = {.width = 2}};
    tc_host_sort_spans(t); /* host_wait.h's order (it sorted them in place when it ran) */
    tc_module_span *owned = NULL;
    int rc = module_spans(&w, out, &owned);
    out->has_modules = out->module_source != TC_MODULES_NONE;
    query *q = malloc((t->n_gpu ? t->n_gpu : 1) * sizeof *q);
    w.called = calloc(t->n_host ? t->n_host : 1, 1);
    if (!q || !w.called) rc = -1;
    size_t nq = 0;
    for (size_t e = 0; e < t->n_gpu && !rc; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (!is_compute(g)) continue;
        out->compute_ns += g->dur_ns;
        const tc_launch *l = g->correlation != TC_NONE ? tc_trace_find_launch(t, g->correlation) : NULL;
        if (l) q[nq++] = (query){l->ts_ns, l->thread, (uint32_t)e};
        else w.outside_ns += g->dur_ns;
    }
    if (!rc) {
        tc_sort(q, nq, sizeof *q, cmp_query);
        rc = sweep(&w, q, nq);
    }
    free(q);
    if (!rc) rc = find_runs(&w);
    if (!rc) rc = export_parts(&w, out);
    free(owned);
    work_free(&w);
    if (rc) tc_op_parts_free(out);
    return rc;
}

void tc_op_parts_free(tc_op_parts *p) {
    for (size_t i = 0; i < p->n_groups; i++) { free(p->groups[i].op); free(p->groups[i].shapes); free(p->groups[i].durs); }
    for (size_t i = 0; i < p->n_modules; i++) free(p->modules[i].path);
    for (size_t i = 0; i < p->n_fusions; i++) free(p->fusions[i].kernels);
    for (size_t i = 0; i < p->n_parents; i++) free(p->parents[i].op);
    free(p->groups);
    free(p->modules);
    free(p->fusions);
    free(p->parents);
    memset(p, 0, sizeof *p);
}

/* ---- the job: parts summed, the roofline -------------------------------------------------------- */

/* What a job group gathers besides tc_op_group: the kernels' durations, its GPU time per rank. */
typedef struct { int64_t *durs; size_t n_durs, cap_durs; int64_t *rank_ns; } job_acc;

typedef struct {
    tc_job *j;
    tc_strtab *s;
    key_map gm, mm, fm, pm;   /* pm: (job group, parent name id) -> index into parent_calls */
    int64_t *parent_calls; size_t n_parent_calls, cap_parent_calls;
    job_acc *acc; size_t cap_acc;
    size_t cap_groups, cap_modules, cap_fusions;
} job_work;

static uint32_t intern(job_work *w, const char *text) {
    return text ? tc_strtab_intern(w->s, text, strlen(text)) : TC_NONE;
}

/* The job group of part group pg (added when new). Its index, SIZE_MAX out of memory. */
static size_t job_group(job_work *w, const tc_op_part_group *pg) {
    tc_op_result *r = &w->j->ops;
    uint32_t key[3] = {intern(w, pg->op), intern(w, pg->shapes), (uint32_t)(uint8_t)pg->dtype};
    if (key[0] == TC_NONE || (pg->shapes && key[1] == TC_NONE)) return SIZE_MAX;
    size_t i;
    bool added;
    if (map_get(&w->gm, key, &i, &added)) return SIZE_MAX;
    if (!added) return i;
    tc_op_group g;
    memset(&g, 0, sizeof g);
    g.op = tc_strdup(pg->op);
    g.shapes = pg->shapes ? tc_strdup(pg->shapes) : NULL;
    g.dtype = (tc_dtype)pg->dtype;
    g.family = pg->family;
    g.has_flops = pg->has_flops;
    g.has_bytes = pg->has_bytes;
    g.differing_rank = -1;
    job_acc a = {NULL, 0, 0, calloc(w->j->n_ranks ? w->j->n_ranks : 1, sizeof(int64_t))};
    size_t n_acc = r->n_groups;
    if (!g.op || (pg->shapes && !g.shapes) || !a.rank_ns || TC_PUSH(w->acc, n_acc, w->cap_acc, a) ||
        TC_PUSH(r->groups, r->n_groups, w->cap_groups, g)) {
        free(g.op); free(g.shapes); free(a.rank_ns);
        return SIZE_MAX;
    }
    return i;
}

/* The job's module row of path (NULL outside), added when new; SIZE_MAX out of memory. */
static size_t job_module(job_work *w, const char *path, size_t len) {
    tc_op_result *r = &w->j->ops;
    uint32_t key = path ? tc_strtab_intern(w->s, path, len) : TC_NONE;
    if (path && key == TC_NONE) return SIZE_MAX;
    size_t i;
    bool added;
    if (map_get(&w->mm, &key, &i, &added)) return SIZE_MAX;
    if (!added) return i;
    tc_module_row m = {NULL, 0, 0};
    if (path && !(m.path = malloc(len + 1))) return SIZE_MAX;
    if (path) { memcpy(m.path, path, len); m.path[len] = 0; }
    if (TC_PUSH(r->modules, r->n_modules, w->cap_modules, m)) { free(m.path); return SIZE_MAX; }
    return i;
}

/* pp's calls counted for job group gi. 0, or -1 out of memory. */
static int add_parent(job_work *w, size_t gi, const tc_op_part_parent *pp) {
    uint32_t key[2] = {(uint32_t)gi, intern(w, pp->op)};
    size_t i;
    bool added;
    if ((pp->op && key[1] == TC_NONE) || map_get(&w->pm, key, &i, &added)) return -1;
    int64_t zero = 0;
    if (added && TC_PUSH(w->parent_calls, w->n_parent_calls, w->cap_parent_calls, zero)) return -1;
    w->parent_calls[i] += pp->calls;
    return 0;
}

/* Each job group's parent: the one of most calls, ties to the first name in byte order (top level,
 * NULL, before any name). 0, or -1 out of memory. */
static int settle_parents(job_work *w) {
    tc_op_result *r = &w->j->ops;
    size_t *best = malloc((r->n_groups ? r->n_groups : 1) * sizeof *best);
    if (!best) return -1;
    for (size_t g = 0; g < r->n_groups; g++) best[g] = SIZE_MAX;
    for (size_t i = 0; i < w->n_parent_calls; i++) {
        const uint32_t *k = w->pm.keys + 2 * i;
        size_t b = best[k[0]];
        if (b != SIZE_MAX) {
            uint32_t bn = w->pm.keys[2 * b + 1];
            int64_t bc = w->parent_calls[b], c = w->parent_calls[i];
            bool before = bn != TC_NONE && (k[1] == TC_NONE || strcmp(tc_strtab_get(w->s, k[1]), tc_strtab_get(w->s, bn)) < 0);
            if (c < bc || (c == bc && !before)) continue;
        }
        best[k[0]] = i;
    }
    int rc = 0;
    for (size_t g = 0; g < r->n_groups && !rc; g++) {
        uint32_t name = best[g] == SIZE_MAX ? TC_NONE : w->pm.keys[2 * best[g] + 1];
        if (name != TC_NONE && !(r->groups[g].parent = tc_strdup(tc_strtab_get(w->s, name)))) rc = -1;
    }
    free(best);
    return rc;
}

static int add_part(job_work *w, const tc_op_parts *p, size_t rank) {
    tc_op_result *r = &w->j->ops;
    r->compute_ns += p->compute_ns;
    r->attributed_ns += p->attributed_ns;
    r->unknown_shapes_ns += p->unknown_shapes_ns;
    r->has_modules |= p->has_modules;
    if (p->module_source == TC_MODULES_NN_MODULE || r->module_source == TC_MODULES_NONE) r->module_source = p->module_source;
    for (size_t i = 0; i < p->n_parents; i++) {
        const tc_op_part_parent *pp = &p->parents[i];
        size_t gi = pp->group < p->n_groups ? job_group(w, &p->groups[pp->group]) : SIZE_MAX;
        if (gi == SIZE_MAX || add_parent(w, gi, pp)) return -1;
    }
    for (size_t i = 0; i < p->n_groups; i++) {
        const tc_op_part_group *pg = &p->groups[i];
        size_t gi = job_group(w, pg);
        if (gi == SIZE_MAX) return -1;
        tc_op_group *g = &r->groups[gi];
        job_acc *a = &w->acc[gi];
        g->count += pg->count;
        g->kernels += pg->kernels;
        g->gpu_ns += pg->gpu_ns;
        g->flops += pg->flops;
        g->bytes += pg->bytes;
        a->rank_ns[rank] += pg->gpu_ns;
        if (tc_grow((void **)&a->durs, &a->cap_durs, a->n_durs + (size_t)pg->kernels, sizeof *a->durs)) return -1;
        memcpy(a->durs + a->n_durs, pg->durs, (size_t)pg->kernels * sizeof *a->durs);
        a->n_durs += (size_t)pg->kernels;
    }
    for (size_t i = 0; i < p->n_modules; i++) {
        const char *path = p->modules[i].path;
        size_t mi = job_module(w, path, path ? strlen(path) : 0);
        if (mi == SIZE_MAX) return -1;
        r->modules[mi].self_ns += p->modules[i].self_ns;
    }
    for (size_t i = 0; i < p->n_fusions; i++) {
        const tc_fusion_row *pf = &p->fusions[i];
        uint32_t key = intern(w, pf->kernels);
        size_t fi;
        bool added;
        if (key == TC_NONE || map_get(&w->fm, &key, &fi, &added)) return -1;
        tc_fusion_row f = {NULL, pf->length, 0, 0};
        if (added && (!(f.kernels = tc_strdup(pf->kernels)) || TC_PUSH(r->fusions, r->n_fusions, w->cap_fusions, f))) {
            free(f.kernels);
            return -1;
        }
        r->fusions[fi].occurrences += pf->occurrences;
        r->fusions[fi].gpu_ns += pf->gpu_ns;
    }
    return 0;
}

/* The group's rates and its place under the roofline of gpu (NULL unknown): model/roofline.h. */
static void roofline(tc_op_group *g, const tc_gpu_spec *gpu) {
    tc_roofline rf;
    tc_roofline_of(gpu, g->dtype, g->has_flops, g->flops, g->has_bytes, g->bytes, (double)g->gpu_ns * 1e-9, &rf);
    g->achieved_flops = rf.achieved_flops;
    g->achieved_bytes = rf.achieved_bytes;
    g->intensity = rf.has_intensity ? rf.intensity : 0;
    g->has_roofline = rf.has;
    if (!rf.has) return;
    g->compute_bound = rf.compute_bound;
    g->attainable = rf.attainable;
    g->share_of_attainable = rf.share;
    g->lost_ns = (int64_t)(rf.lost_s * 1e9 + 0.5);
}

/* The rank (rr->rank) whose GPU time in the group is furthest from the ranks' median, by more than
 * 10% of it; -1 none or one rank. */
static int64_t differing_rank(const tc_job *j, const int64_t *rank_ns, double *tmp) {
    if (j->n_ranks < 2) return -1;
    for (size_t r = 0; r < j->n_ranks; r++) tmp[r] = (double)rank_ns[r];
    double med = tc_median(tmp, j->n_ranks), far = 0;
    size_t at = SIZE_MAX;
    for (size_t r = 0; r < j->n_ranks; r++) {
        double d = (double)rank_ns[r] > med ? (double)rank_ns[r] - med : med - (double)rank_ns[r];
        if (d > far) { far = d; at = r; }
    }
    return at != SIZE_MAX && far > 0.1 * med ? j->ranks[at].rank : -1;
}

static int cmp_group(const void *a, const void *b) {
    const tc_op_group *x = a, *y = b;
    if (x->lost_ns != y->lost_ns) return x->lost_ns > y->lost_ns ? -1 : 1;
    if (x->gpu_ns != y->gpu_ns) return x->gpu_ns > y->gpu_ns ? -1 : 1;
    int c = strcmp(x->op, y->op);
    if (c) return c;
    if (!x->shapes || !y->shapes) return (x->shapes == NULL) - (y->shapes == NULL);
    c = strcmp(x->shapes, y->shapes);
    return c ? c : (x->dtype > y->dtype) - (x->dtype < y->dtype);
}

static int cmp_module_row(const void *a, const void *b) {
    const tc_module_row *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    if (!x->path || !y->path) return (x->path == NULL) - (y->path == NULL);
    return strcmp(x->path, y->path);
}

static int cmp_fusion(const void *a, const void *b) {
    const tc_fusion_row *x = a, *y = b;
    if (x->gpu_ns != y->gpu_ns) return x->gpu_ns > y->gpu_ns ? -1 : 1;
    return strcmp(x->kernels, y->kernels);
}

/* Each module's total: its self time and that of every path below it (rows for ancestors without
 * time of their own are added). 0, or -1 out of memory. */
static int module_totals(job_work *w) {
    tc_op_result *r = &w->j->ops;
    size_t n = r->n_modules;
    for (size_t i = 0; i < n; i++) {
        int64_t self = r->modules[i].self_ns;
        r->modules[i].total_ns += self;
        if (!r->modules[i].path) continue;
        for (size_t cut = strlen(r->modules[i].path); cut > 0; cut--) {
            if (r->modules[i].path[cut - 1] != '/') continue;
            char *path = r->modules[i].path; /* job_module may move the rows: read the path first */
            size_t mi = job_module(w, path, cut - 1);
            if (mi == SIZE_MAX) return -1;
            r->modules[mi].total_ns += self;
        }
    }
    return 0;
}

/* Groups' medians, launch-bound flag, roofline, differing rank; family sums and MFU. */
static int settle_groups(job_work *w) {
    tc_job *j = w->j;
    tc_op_result *r = &j->ops;
    const tc_gpu_spec *gpu = NULL;
    double denom = 0; /* Σ over ranks of window × peak: the FLOPs at 100% MFU */
    for (size_t k = 0; k < j->n_ranks; k++) {
        const tc_rank_result *rr = &j->ranks[k];
        if (!gpu) gpu = rr->gpu;
        if (rr->has_peak && rr->b.window_ns > 0) denom += (double)rr->b.window_ns * 1e-9 * rr->peak_flops;
    }
    double *tmp = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof *tmp);
    if (!tmp) return -1;
    for (size_t i = 0; i < r->n_groups; i++) {
        tc_op_group *g = &r->groups[i];
        job_acc *a = &w->acc[i];
        tc_sort_i64(a->durs, a->n_durs);
        size_t n = a->n_durs;
        g->median_kernel_ns = n == 0 ? 0 : n % 2 ? a->durs[n / 2] : a->durs[n / 2 - 1] + (a->durs[n / 2] - a->durs[n / 2 - 1]) / 2;
        g->launch_bound = n >= TC_LAUNCH_BOUND_KERNELS && g->median_kernel_ns < TC_LAUNCH_BOUND_NS;
        roofline(g, gpu);
        g->differing_rank = differing_rank(j, a->rank_ns, tmp);
        uint8_t f = g->family < TC_OPF_COUNT ? g->family : TC_OPF_OTHER;
        if (g->has_flops) r->family_flops[f] += g->flops;
        r->family_ns[f] += g->gpu_ns;
    }
    free(tmp);
    r->has_family_mfu = denom > 0;
    for (int f = 0; f < TC_OPF_COUNT && denom > 0; f++) r->family_mfu[f] = r->family_flops[f] / denom;
    return 0;
}

int tc_op_groups_finish(tc_job *j, const tc_op_parts *const *parts) {
    tc_op_result *r = &j->ops;
    tc_op_result_free(r);
    for (size_t k = 0; k < j->n_ranks; k++) r->has |= parts[k]->has;
    if (!r->has) return 0;
    job_work w = {.j = j, .s = tc_strtab_new(), .gm = {.width = 3}, .mm = {.width = 1}, .fm = {.width = 1},
                  .pm = {.width = 2}};
    int rc = w.s ? 0 : -1;
    for (size_t k = 0; k < j->n_ranks && !rc; k++) rc = add_part(&w, parts[k], k);
    if (!rc) rc = module_totals(&w);
    if (!rc) rc = settle_groups(&w);
    if (!rc) rc = settle_parents(&w);
    if (!rc) {
        size_t keep = 0;
        for (size_t i = 0; i < r->n_fusions; i++) {
            if (r->fusions[i].occurrences >= TC_FUSION_MIN_RUNS) r->fusions[keep++] = r->fusions[i];
            else free(r->fusions[i].kernels);
        }
        r->n_fusions = keep;
        tc_sort(r->fusions, r->n_fusions, sizeof *r->fusions, cmp_fusion);
        for (; r->n_fusions > TC_FUSION_ROWS; r->n_fusions--) free(r->fusions[r->n_fusions - 1].kernels);
        tc_sort(r->groups, r->n_groups, sizeof *r->groups, cmp_group);
        tc_sort(r->modules, r->n_modules, sizeof *r->modules, cmp_module_row);
        if (!r->has_modules) { /* no module spans: the one row outside every module says nothing */
            for (size_t i = 0; i < r->n_modules; i++) free(r->modules[i].path);
            r->n_modules = 0;
        }
    }
    for (size_t i = 0; i < r->n_groups && i < w.cap_acc; i++) { free(w.acc[i].durs); free(w.acc[i].rank_ns); }
    free(w.acc);
    map_free(&w.gm);
    map_free(&w.mm);
    map_free(&w.fm);
    map_free(&w.pm);
    free(w.parent_calls);
    tc_strtab_free(w.s);
    r->cap_groups = w.cap_groups;
    r->cap_modules = w.cap_modules;
    r->cap_fusions = w.cap_fusions;
    if (rc) tc_op_result_free(r);
    return rc;
}
