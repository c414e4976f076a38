/* critical_path.c: the critical path of every step across ranks (critical_path.h; docs/definitions.md
 * "Critical path"). A step's path ends at the step's end on the rank whose step ends last (aligned
 * clocks) and is walked back, node by node, through the predecessor that set each node's time (its
 * binding edge) until it reaches that rank's step start; every stretch of time it covers goes to
 * one class, rank and name, so the classes add up to the step exactly. */
#include "critical_path.h"
#include "base/pool.h"
#include "base/util.h"
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t rank; uint8_t cls; const char *name; int64_t ns, lo; } piece; /* lo: aligned start */

typedef struct {
    const tc_job *j;
    const tc_step_graph *g;
    const int64_t *start, *end;
    int64_t cursor, ws;       /* aligned: the walk has covered [cursor, step end); the step starts at ws */
    uint32_t rank;            /* the rank the walk is on */
    piece *v; size_t n, cap;  /* the step's pieces, in walk order (last first) */
} walker;

static const char GAP_HOST[] = "host time between runtime calls";
static const char GAP_IDLE[] = "waiting that no event explains";

static int64_t shift_of(const tc_step_graph *g, uint32_t v) { return g->rank[v] == TC_NONE ? 0 : g->shift[g->rank[v]]; }

static const tc_trace *trace_of(const walker *w, uint32_t rank) { return &w->j->traces[w->j->ranks[rank].input]; }

static uint8_t scope_class(const walker *w, uint32_t inst) {
    return w->j->inst_groups[w->j->instances[inst].group].scope == TC_SCOPE_INTRA ? TC_CP_TRANSFER_INTRA
                                                                                  : TC_CP_TRANSFER_INTER;
}

/* The instance a member or instance node belongs to. */
static uint32_t inst_of(const walker *w, uint32_t v) {
    const tc_step_graph *g = w->g;
    if (g->kind[v] == TC_SG_INSTANCE) return g->ref[v];
    for (uint32_t e = g->first[v]; e < g->first[v + 1]; e++)
        if (g->kind[g->edges[e].from] == TC_SG_INSTANCE) return g->ref[g->edges[e].from];
    return TC_NONE;
}

static const char *node_name(const walker *w, uint32_t v) {
    const tc_step_graph *g = w->g;
    switch (g->kind[v]) {
    case TC_SG_OP: case TC_SG_MEMBER: case TC_SG_ARRIVAL: {
        const tc_trace *t = trace_of(w, g->rank[v]);
        return tc_trace_str(t, t->gpu[g->ref[v]].name);
    }
    case TC_SG_INSTANCE: {
        const tc_coll_instance *in = &w->j->instances[g->ref[v]];
        return tc_trace_str(trace_of(w, w->j->inst_members[in->first].rank), in->name);
    }
    case TC_SG_CALL: case TC_SG_SYNC: case TC_SG_BEGIN: {
        const tc_trace *t = trace_of(w, g->rank[v]);
        return tc_trace_str(t, t->launches[g->ref[v]].name);
    }
    default: return "ProfilerStep";
    }
}

static uint8_t node_class(const walker *w, uint32_t v) {
    const tc_step_graph *g = w->g;
    switch (g->kind[v]) {
    case TC_SG_OP: {
        const tc_gpu_event *e = &trace_of(w, g->rank[v])->gpu[g->ref[v]];
        if (e->kind != TC_GPU_KERNEL) return TC_CP_MEMORY;
        return e->is_comm ? TC_CP_TRANSFER_INTER : TC_CP_COMPUTE;
    }
    case TC_SG_MEMBER: case TC_SG_INSTANCE: {
        uint32_t i = inst_of(w, v);
        return i == TC_NONE ? TC_CP_TRANSFER_INTER : scope_class(w, i);
    }
    case TC_SG_CALL: return (g->flags[v] & TC_SG_LAUNCHES) ? TC_CP_HOST_LAUNCH : TC_CP_HOST_CPU;
    case TC_SG_SYNC: return TC_CP_HOST_SYNC;
    default: return TC_CP_HOST_CPU;
    }
}

/* The name an edge's stretch goes under. */
static const char *edge_name(const walker *w, const tc_sg_edge *e, uint32_t to) {
    switch (e->cls) {
    case TC_CP_HOST_LAUNCH: return node_name(w, e->from);
    case TC_CP_HOST_SYNC: return node_name(w, to);
    case TC_CP_HOST_CPU: return GAP_HOST;
    case TC_CP_TRANSFER_INTRA: case TC_CP_TRANSFER_INTER: return node_name(w, e->from);
    default: return GAP_IDLE;
    }
}

/* Covers aligned [lo, hi) as far as it is below the cursor and above the step's start: one piece
 * with its start (the segments need each; merge_pieces sums them by rank, class and name). */
static int take(walker *w, int64_t lo, int64_t hi, uint8_t cls, const char *name) {
    if (lo < w->ws) lo = w->ws;
    if (hi > w->cursor) hi = w->cursor;
    if (lo < w->cursor) w->cursor = lo;
    if (hi <= lo) return 0;
    piece p = {w->rank, cls, name, hi - lo, lo};
    return TC_PUSH(w->v, w->n, w->cap, p);
}

/* The edge of v (end edges when to_end) whose time is t, NULL when none. */
static const tc_sg_edge *binding(const walker *w, uint32_t v, bool to_end, int64_t t) {
    const tc_step_graph *g = w->g;
    for (uint32_t e = g->first[v]; e < g->first[v + 1]; e++) {
        const tc_sg_edge *ed = &g->edges[e];
        if (!(ed->flags & TC_SG_TO_END) != !to_end) continue;
        int64_t a = (ed->flags & TC_SG_FROM_END) ? w->end[ed->from] : w->start[ed->from];
        if (a + ed->lag == t) return ed;
    }
    return NULL;
}

/* Walks back from node v's end until the cursor reaches the step's start; what is left is idle. */
static int walk(walker *w, uint32_t v) {
    const tc_step_graph *g = w->g;
    bool at_end = true;
    for (size_t guard = 0; w->cursor > w->ws && guard < 2 * g->n + 2; guard++) {
        if (g->rank[v] != TC_NONE) w->rank = g->rank[v];
        int64_t sh = shift_of(g, v);
        bool fixed = g->flags[v] & TC_SG_FIXED;
        const tc_sg_edge *be = NULL;
        if (at_end) {
            if (!fixed && w->start[v] + g->dur[v] < w->end[v]) be = binding(w, v, true, w->end[v]);
            if (!be) {
                if (take(w, w->start[v] + sh, w->end[v] + sh, node_class(w, v), node_name(w, v))) return -1;
                at_end = false;
                continue;
            }
        } else {
            be = fixed ? NULL : binding(w, v, false, w->start[v]);
            if (!be) break;
        }
        int64_t anchor = ((be->flags & TC_SG_FROM_END) ? w->end[be->from] : w->start[be->from]) + shift_of(g, be->from);
        int64_t t = (at_end ? w->end[v] : w->start[v]) + sh;
        if (take(w, anchor, t, be->cls, edge_name(w, be, v))) return -1;
        v = be->from;
        at_end = be->flags & TC_SG_FROM_END;
    }
    return take(w, w->ws, w->cursor, TC_CP_IDLE, GAP_IDLE);
}

/* Pieces by (rank, class, name): a name is one string of its rank's table (or a constant here), so
 * equal names are equal pointers; the order among names is only for merging. */
static int cmp_piece_key(const void *a, const void *b) {
    const piece *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->cls != y->cls) return x->cls < y->cls ? -1 : 1;
    uintptr_t p = (uintptr_t)x->name, q = (uintptr_t)y->name;
    return (p > q) - (p < q);
}

/* Most time first; ties by rank, class and the name's text (the same order every run). */
static int cmp_piece_ns(const void *a, const void *b) {
    const piece *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->cls != y->cls) return x->cls < y->cls ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c < 0 ? -1 : c > 0;
}

static int cmp_cp_rank(const void *a, const void *b) {
    const tc_cp_rank *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sums pieces v[0, n) of equal (rank, class, name) and sorts what is left by them; returns how many
 * are left. The sums first, by a hash table (a path holds thousands of pieces of a few dozen names:
 * sorting them all was most of this file's time), then the sort of the few left; a sort of all
 * when the table finds no memory. */
static size_t merge_pieces(piece *v, size_t n) {
    size_t cap = 64, m = 0;
    while (cap < 2 * n) cap *= 2;
    uint32_t *slot = n >= 64 && n < UINT32_MAX ? malloc(cap * sizeof *slot) : NULL;
    if (!slot) {
        tc_sort(v, n, sizeof *v, cmp_piece_key);
        for (size_t i = 0; i < n; i++) {
            if (m && cmp_piece_key(&v[m - 1], &v[i]) == 0) v[m - 1].ns += v[i].ns;
            else v[m++] = v[i];
        }
        return m;
    }
    memset(slot, 0xff, cap * sizeof *slot);
    for (size_t i = 0; i < n; i++) {
        uint64_t h = ((uint64_t)(uintptr_t)v[i].name ^ ((uint64_t)v[i].rank << 8 | v[i].cls)) * 0x9E3779B97F4A7C15ull;
        size_t k = (size_t)(h >> 32) & (cap - 1);
        while (slot[k] != UINT32_MAX && cmp_piece_key(&v[slot[k]], &v[i]) != 0) k = (k + 1) & (cap - 1);
        if (slot[k] != UINT32_MAX) { v[slot[k]].ns += v[i].ns; continue; }
        slot[k] = (uint32_t)m; /* the first of its key, moved down to the ones kept (m <= i) */
        v[m++] = v[i];
    }
    free(slot);
    tc_sort(v, m, sizeof *v, cmp_piece_key);
    return m;
}

/* p from merged pieces v[0, n) (reordered): classes, ranks by time, the top stretches. */
static int fill_path(const tc_job *j, tc_critical_path *p, int64_t number, piece *v, size_t n) {
    p->number = number;
    size_t ranks = 0;
    for (size_t i = 0; i < n; i++) {
        p->class_ns[v[i].cls] += v[i].ns;
        p->step_ns += v[i].ns;
        ranks += i == 0 || v[i].rank != v[i - 1].rank;
    }
    p->by_rank = calloc(ranks ? ranks : 1, sizeof *p->by_rank);
    if (!p->by_rank) return -1;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || v[i].rank != v[i - 1].rank) p->by_rank[p->n_by_rank++].rank = j->ranks[v[i].rank].rank;
        tc_cp_rank *r = &p->by_rank[p->n_by_rank - 1];
        r->ns += v[i].ns;
        if (v[i].cls == TC_CP_COMPUTE) r->compute_ns += v[i].ns;
    }
    tc_sort(p->by_rank, p->n_by_rank, sizeof *p->by_rank, cmp_cp_rank);
    tc_sort(v, n, sizeof *v, cmp_piece_ns);
    for (size_t i = 0; i < n && p->n_top < TC_CP_TOP; i++) {
        tc_cp_top *t = &p->top[p->n_top];
        t->name = v[i].name; /* a trace's string or a constant: borrowed */
        t->kind = v[i].cls;
        t->rank = j->ranks[v[i].rank].rank;
        t->ns = v[i].ns;
        p->n_top++;
    }
    return 0;
}

/* p->segs from the walk's pieces v[0, n) (last first, as walked): in time order on each rank's own
 * clock, neighbours of one rank and class joined (the HTML timeline draws them); the array cut to
 * what it holds. */
static int path_segments(const tc_step_graph *g, tc_critical_path *p, const piece *v, size_t n) {
    p->segs = malloc((n ? n : 1) * sizeof *p->segs);
    if (!p->segs) return -1;
    for (size_t i = n; i-- > 0;) {
        int64_t s = v[i].lo - g->shift[v[i].rank], e = s + v[i].ns;
        tc_cp_segment *last = p->n_segs ? &p->segs[p->n_segs - 1] : NULL;
        if (last && last->rank == v[i].rank && last->kind == v[i].cls && last->end_ns == s) { last->end_ns = e; continue; }
        p->segs[p->n_segs++] = (tc_cp_segment){v[i].rank, v[i].cls, s, e};
    }
    if (p->n_segs < n) {
        tc_cp_segment *cut = realloc(p->segs, (p->n_segs ? p->n_segs : 1) * sizeof *p->segs);
        if (cut) p->segs = cut;
    }
    return 0;
}

/* For each step slot, the step (g->steps index) whose end is the latest on aligned clocks. */
static size_t *last_ending(const tc_step_graph *g, const int64_t *end) {
    size_t *best = malloc((g->n_slots ? g->n_slots : 1) * sizeof *best);
    if (!best) return NULL;
    for (size_t s = 0; s < g->n_slots; s++) best[s] = SIZE_MAX;
    for (size_t k = 0; k < g->n_steps; k++) {
        const tc_sg_step *st = &g->steps[k];
        if (st->start_node == TC_NONE || st->end_node == TC_NONE) continue;
        size_t *b = &best[st->slot];
        int64_t e = end[st->end_node] + g->shift[st->rank];
        if (*b == SIZE_MAX || e > end[g->steps[*b].end_node] + g->shift[g->steps[*b].rank]) *b = k;
    }
    return best;
}

/* The slots [lo, hi) of one task: each slot's path into cp[at[s]], and the merged pieces of them all
 * in acc (kept merged as it grows: sorted by key with equal keys summed once it doubles). */
typedef struct {
    walker w;
    const size_t *best, *at;
    tc_critical_path *cp;
    size_t lo, hi;
    piece *acc; size_t n_acc, cap_acc, merged;
    int rc;
} cp_chunk;

static int chunk_slot(cp_chunk *c, size_t s) {
    walker *w = &c->w;
    const tc_step_graph *g = w->g;
    const tc_sg_step *st = &g->steps[c->best[s]];
    w->n = 0;
    w->rank = st->rank;
    w->ws = w->start[st->start_node] + g->shift[st->rank];
    w->cursor = w->end[st->end_node] + g->shift[st->rank];
    int64_t len = w->cursor > w->ws ? w->cursor - w->ws : 0;
    tc_critical_path *cp = &c->cp[c->at[s]];
    int rc = walk(w, st->end_node);
    if (!rc) rc = path_segments(g, cp, w->v, w->n);
    size_t m = rc ? 0 : merge_pieces(w->v, w->n);
    if (!rc && tc_grow((void **)&c->acc, &c->cap_acc, c->n_acc + m, sizeof *c->acc)) rc = -1;
    if (!rc) {
        memcpy(c->acc + c->n_acc, w->v, m * sizeof *c->acc);
        c->n_acc += m;
        if (c->n_acc >= 2 * c->merged + 4096) c->n_acc = c->merged = merge_pieces(c->acc, c->n_acc);
        rc = fill_path(w->j, cp, g->slot_number[s], w->v, m);
    }
    assert(rc || cp->step_ns == len);
    (void)len;
    return rc;
}

static void chunk_run(void *arg, size_t i, int worker) {
    cp_chunk *c = &((cp_chunk *)arg)[i];
    (void)worker;
    for (size_t s = c->lo; s < c->hi && !c->rc; s++)
        if (c->best[s] != SIZE_MAX) c->rc = chunk_slot(c, s);
}

int tc_critical_paths(tc_job *j, const tc_step_graph *g, const int64_t *start, const int64_t *end, tc_pool *pool) {
    tc_summary *sm = &j->summary;
    size_t *best = last_ending(g, end), *at = malloc((g->n_slots ? g->n_slots : 1) * sizeof *at);
    size_t k = pool ? (size_t)tc_pool_threads(pool) + 1 : 1; /* one chunk of slots per thread */
    if (k > g->n_slots) k = g->n_slots ? g->n_slots : 1;
    cp_chunk *c = calloc(k, sizeof *c);
    sm->cp_steps = calloc(g->n_slots ? g->n_slots : 1, sizeof *sm->cp_steps);
    int rc = best && at && c && sm->cp_steps ? 0 : -1;
    for (size_t s = 0; s < g->n_slots && !rc; s++) if (best[s] != SIZE_MAX) at[s] = sm->n_cp_steps++;
    for (size_t i = 0; i < k && !rc; i++)
        c[i] = (cp_chunk){.w = {.j = j, .g = g, .start = start, .end = end}, .best = best, .at = at,
                          .cp = sm->cp_steps, .lo = g->n_slots * i / k, .hi = g->n_slots * (i + 1) / k};
    if (!rc && pool && k > 1) tc_pool_for(pool, k, chunk_run, c);
    else if (!rc) chunk_run(c, 0, 0);
    piece *all = NULL; /* the chunks' pieces in one list, merged */
    size_t n_all = 0;
    for (size_t i = 0; i < k && !rc; i++) { rc = c[i].rc; n_all += c[i].n_acc; }
    if (!rc && sm->n_cp_steps && !(all = malloc((n_all ? n_all : 1) * sizeof *all))) rc = -1;
    if (!rc && sm->n_cp_steps) {
        for (size_t i = 0, o = 0; i < k; o += c[i].n_acc, i++) memcpy(all + o, c[i].acc, c[i].n_acc * sizeof *all);
        rc = fill_path(j, &sm->critical_path, -1, all, merge_pieces(all, n_all));
        sm->has_critical_path = rc == 0;
    }
    for (size_t i = 0; c && i < k; i++) { free(c[i].w.v); free(c[i].acc); }
    free(c);
    free(best);
    free(at);
    free(all);
    return rc;
}
