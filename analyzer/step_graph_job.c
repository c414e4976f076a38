/* step_graph_job.c: the job's part of the step graph (step_graph.h; docs/definitions.md "Replay";
 * one rank's part is step_graph_rank.c) and its re-timing. Every node is numbered ahead (per rank: the
 * host block, the GPU block, the arrivals; then the instances) and each rank gets a window of the
 * edge array as large as its nodes can fill, so the ranks are built at once, one pool run each
 * (and a task for each rank's GPU block, so one rank keeps two threads busy);
 * then the windows are moved down into one array, the instance nodes added, and a topological order
 * found once (Kahn), a cycle broken by keeping a node at its measured time. The graph is the same
 * with any number of threads: every rank writes only its own nodes, steps, members and window. */
#include "step_graph_rank.h"
#include "step_host.h"
#include "base/pool.h"
#include "base/util.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* One rank's numbers: its nodes [first, end) (the GPU block's from gpu_first; its arrivals end
 * it), its window of the edge array [edge_first, edge_end). */
typedef struct { size_t first, gpu_first, end, edge_first, edge_end; } rank_span;

/* ---- the graph's arrays ----------------------------------------------------------------------- */

static int graph_alloc(tc_step_graph *g, size_t n) {
    g->n = n;
    g->start0 = malloc((n ? n : 1) * sizeof *g->start0);
    g->dur = malloc((n ? n : 1) * sizeof *g->dur);
    g->rank = malloc((n ? n : 1) * sizeof *g->rank);
    g->ref = malloc((n ? n : 1) * sizeof *g->ref);
    g->kind = malloc(n ? n : 1);
    g->flags = calloc(n ? n : 1, 1);
    g->first = malloc((n + 1) * sizeof *g->first);
    return g->start0 && g->dur && g->rank && g->ref && g->kind && g->flags && g->first ? 0 : -1;
}

void tc_step_graph_free(tc_step_graph *g) {
    if (!g) return;
    free(g->start0); free(g->dur); free(g->rank); free(g->ref); free(g->kind); free(g->flags); free(g->first);
    free(g->edges); free(g->order); free(g->shift); free(g->inst_node); free(g->steps); free(g->rank_steps);
    free(g->slot_number);
    free(g);
}

/* ---- the job's numbering --------------------------------------------------------------------- */

static size_t sync_calls_of(const tc_trace *t, int *err) {
    uint8_t *cls = tc_sg_call_classes(t);
    size_t n = 0;
    if (!cls) { *err = -1; return 0; }
    for (size_t i = 0; i < t->n_launches; i++) n += t->launches[i].name != TC_NONE && tc_sg_is_sync_class(cls[t->launches[i].name]);
    free(cls);
    return n;
}

typedef struct { int64_t number; size_t occ, at; } slot_key;

static int cmp_slot_key(const void *a, const void *b) {
    const slot_key *x = a, *y = b;
    if (x->number != y->number) return x->number < y->number ? -1 : 1;
    if (x->occ != y->occ) return x->occ < y->occ ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* g->steps (rank by rank, in each rank's step order) and the job's step slots: one per (number,
 * occurrence of it on its rank), in number order. 0, or -1 out of memory. */
static int make_slots(tc_job *j, tc_step_graph *g) {
    size_t total = 0;
    for (size_t r = 0; r < j->n_ranks; r++) total += j->ranks[r].n_steps;
    g->steps = calloc(total ? total : 1, sizeof *g->steps);
    g->rank_steps = calloc(j->n_ranks + 1, sizeof *g->rank_steps);
    slot_key *k = malloc((total ? total : 1) * sizeof *k);
    tc_step_span *sp = malloc((total ? total : 1) * sizeof *sp);
    size_t *occ = malloc((total ? total : 1) * sizeof *occ);
    g->slot_number = malloc((total ? total : 1) * sizeof *g->slot_number);
    int rc = -1;
    if (!g->steps || !g->rank_steps || !k || !sp || !occ || !g->slot_number) goto out;
    for (size_t r = 0, at = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        g->rank_steps[r] = at;
        for (size_t s = 0; s < rr->n_steps; s++) sp[s] = (tc_step_span){0, 0, rr->steps[s].number};
        if (tc_steps_occurrence(sp, rr->n_steps, occ)) goto out;
        for (size_t s = 0; s < rr->n_steps; s++, at++) {
            g->steps[at] = (tc_sg_step){(uint32_t)r, 0, TC_NONE, TC_NONE, rr->steps[s].step_time_ns};
            k[at] = (slot_key){rr->steps[s].number, occ[s], at};
        }
    }
    g->rank_steps[j->n_ranks] = total;
    tc_sort(k, total, sizeof *k, cmp_slot_key);
    for (size_t i = 0; i < total; i++) {
        if (i == 0 || k[i].number != k[i - 1].number || k[i].occ != k[i - 1].occ) g->slot_number[g->n_slots++] = k[i].number;
        g->steps[k[i].at].slot = (uint32_t)(g->n_slots - 1);
    }
    g->n_steps = total;
    rc = 0;
out:
    free(k);
    free(sp);
    free(occ);
    return rc;
}

/* The members grouped by rank, each member's instance and arrival node, each instance's measured
 * aligned start (the last arrival), each rank's clock shift (sp: the ranks' node numbers). 0, or
 * -1 out of memory. */
static int prepare_members(tc_sg_builder *b, const rank_span *sp) {
    tc_job *j = b->j;
    tc_step_graph *g = b->g;
    size_t nm = j->n_inst_members, nr = j->n_ranks;
    b->mem_inst = malloc((nm ? nm : 1) * sizeof *b->mem_inst);
    b->arrival = malloc((nm ? nm : 1) * sizeof *b->arrival);
    b->by_rank = malloc((nm ? nm : 1) * sizeof *b->by_rank);
    b->member_pred = malloc((nm ? nm : 1) * sizeof *b->member_pred);
    b->rank_members = calloc(nr + 1, sizeof *b->rank_members);
    b->inst_start = malloc((j->n_instances ? j->n_instances : 1) * sizeof *b->inst_start);
    g->inst_node = malloc((j->n_instances ? j->n_instances : 1) * sizeof *g->inst_node);
    g->shift = calloc(nr ? nr : 1, sizeof *g->shift);
    if (!b->mem_inst || !b->arrival || !b->by_rank || !b->member_pred || !b->rank_members || !b->inst_start ||
        !g->inst_node || !g->shift)
        return -1;
    int64_t base0 = nr && j->traces[j->ranks[0].input].has_base ? j->traces[j->ranks[0].input].base_ns : 0;
    for (size_t r = 0; r < nr; r++) {
        const tc_trace *t = &j->traces[j->ranks[r].input];
        g->shift[r] = (t->has_base ? t->base_ns : 0) - base0 - (j->ranks[r].has_clock_offset ? j->ranks[r].clock_offset_ns : 0);
    }
    for (size_t m = 0; m < nm; m++) b->rank_members[j->inst_members[m].rank + 1]++;
    for (size_t r = 0; r < nr; r++) b->rank_members[r + 1] += b->rank_members[r];
    size_t *fill = malloc((nr ? nr : 1) * sizeof *fill);
    if (!fill) return -1;
    memcpy(fill, b->rank_members, nr * sizeof *fill);
    for (size_t m = 0; m < nm; m++) {
        uint32_t r = j->inst_members[m].rank;
        size_t pos = fill[r]++;
        b->by_rank[pos] = (uint32_t)m;
        b->arrival[m] = (uint32_t)(sp[r].gpu_first + j->traces[j->ranks[r].input].n_gpu + (pos - b->rank_members[r]));
    }
    free(fill);
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        int64_t last = INT64_MIN;
        for (uint32_t k = in->first; k < in->first + in->n; k++) {
            const tc_inst_member *mb = &j->inst_members[k];
            b->mem_inst[k] = (uint32_t)i;
            int64_t a = j->traces[j->ranks[mb->rank].input].gpu[mb->event].start_ns + g->shift[mb->rank];
            if (a > last) last = a;
        }
        b->inst_start[i] = last;
    }
    return 0;
}

/* Node numbers and edge windows per rank (sp), *n_nodes the total with the instances and the
 * return the edge array's size. A window bounds what the rank's nodes can write: at most 4 edges a
 * GPU op or arrival, 3 a sync, 2 a member or other host node (2 a node, 3 more a GPU event, 4 more
 * a member, 1 more a sync); the instances' one per member come last. *err -1 out of memory. */
static size_t count_nodes(const tc_job *j, const tc_step_map *maps, rank_span *sp, size_t *n_nodes, int *err) {
    size_t nr = j->n_ranks, n = 0, edges = 0;
    size_t *members = calloc(nr ? nr : 1, sizeof *members);
    if (!members) { *err = -1; return 0; }
    for (size_t m = 0; m < j->n_inst_members; m++) members[j->inst_members[m].rank]++;
    for (size_t r = 0; r < nr; r++) {
        const tc_trace *t = &j->traces[j->ranks[r].input];
        size_t syncs = sync_calls_of(t, err);
        sp[r].first = n;
        sp[r].gpu_first = n + t->n_launches + syncs + 2 * maps[r].n_steps;
        sp[r].end = sp[r].gpu_first + t->n_gpu + members[r];
        n = sp[r].end;
        sp[r].edge_first = edges;
        edges += 2 * (sp[r].end - sp[r].first) + 3 * t->n_gpu + 4 * members[r] + syncs;
        sp[r].edge_end = edges;
    }
    free(members);
    *n_nodes = n + j->n_instances;
    return edges + j->n_inst_members;
}

/* The measured end of node v (a node kept at its measured time when a cycle is broken there). */
static int64_t measured_dur(const tc_job *j, const tc_step_graph *g, uint32_t v) {
    const tc_trace *t = g->rank[v] != TC_NONE ? &j->traces[j->ranks[g->rank[v]].input] : NULL;
    if (g->kind[v] == TC_SG_MEMBER) return t->gpu[g->ref[v]].dur_ns;
    if (g->kind[v] == TC_SG_SYNC) /* a polling run's last call starts with the run */
        return t->launches[g->ref[v]].ts_ns + t->launches[g->ref[v]].dur_ns - g->start0[v];
    return g->dur[v];
}

/* g->order: Kahn's order over the edges; when every node left waits, the lowest of them is kept at
 * its measured time (a cycle broken) and the walk goes on. 0, or -1 out of memory. */
static int topo_order(const tc_job *j, tc_step_graph *g) {
    size_t n = g->n;
    uint32_t *off = calloc(n + 1, sizeof *off), *succ = malloc((g->n_edges ? g->n_edges : 1) * sizeof *succ);
    uint32_t *indeg = malloc((n ? n : 1) * sizeof *indeg);
    g->order = malloc((n ? n : 1) * sizeof *g->order);
    int rc = -1;
    if (!off || !succ || !indeg || !g->order) goto out;
    for (size_t e = 0; e < g->n_edges; e++) off[g->edges[e].from + 1]++;
    for (size_t v = 0; v < n; v++) off[v + 1] += off[v];
    for (size_t v = 0; v < n; v++) {
        indeg[v] = g->first[v + 1] - g->first[v];
        for (uint32_t e = g->first[v]; e < g->first[v + 1]; e++) succ[off[g->edges[e].from]++] = (uint32_t)v;
    }
    for (size_t v = n; v > 0; v--) off[v] = off[v - 1];
    off[0] = 0;
    size_t head = 0, tail = 0, cursor = 0;
    for (size_t v = 0; v < n; v++) if (!indeg[v]) { indeg[v] = TC_NONE; g->order[tail++] = (uint32_t)v; }
    while (head < n) {
        if (head == tail) { /* a cycle: keep its lowest waiting node where it was measured */
            while (indeg[cursor] == TC_NONE) cursor++;
            g->dur[cursor] = measured_dur(j, g, (uint32_t)cursor);
            g->flags[cursor] |= TC_SG_FIXED;
            if (g->kind[cursor] == TC_SG_OP || g->kind[cursor] == TC_SG_MEMBER) { g->ops--; g->ops_unplaced++; }
            g->cycle_breaks++;
            indeg[cursor] = TC_NONE;
            g->order[tail++] = (uint32_t)cursor;
        }
        uint32_t v = g->order[head++];
        for (uint32_t k = off[v]; k < off[v + 1]; k++) {
            uint32_t s = succ[k];
            if (indeg[s] != TC_NONE && --indeg[s] == 0) { indeg[s] = TC_NONE; g->order[tail++] = s; }
        }
    }
    rc = 0;
out:
    free(off);
    free(succ);
    free(indeg);
    return rc;
}

static void builder_free(tc_sg_builder *b) {
    free(b->inst_start); free(b->mem_inst); free(b->arrival); free(b->rank_members); free(b->by_rank);
    free(b->member_pred);
}

/* ---- the ranks at once ------------------------------------------------------------------------ */

/* Edges [from, to), of nodes [v0, v1), moved down to *at (first[] with them); *at then past them. */
static void move_edges(tc_step_graph *g, size_t from, size_t to, size_t v0, size_t v1, size_t *at) {
    assert(*at <= from && from <= to);
    if (from != *at) {
        memmove(g->edges + *at, g->edges + from, (to - from) * sizeof *g->edges);
        uint32_t down = (uint32_t)(from - *at);
        for (size_t v = v0; v < v1; v++) g->first[v] -= down;
    }
    *at += to - from;
}

typedef struct { size_t nodes, r; } rank_size;

static int cmp_rank_size(const void *a, const void *b) { /* most nodes first, then rank order */
    const rank_size *x = a, *y = b;
    if (x->nodes != y->nodes) return x->nodes > y->nodes ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

typedef struct {
    tc_pool *pool;            /* the GPU blocks' tasks go here (NULL: built after the host block) */
    tc_sg_builder *rb;        /* per rank: the job's builder with the rank's own node ids and window */
    const tc_step_map *maps;
    const rank_span *sp;
    const rank_size *order;   /* run i builds rank order[i].r */
    int *rc;                  /* per rank */
} rank_runs;

static void build_run(void *ctx, size_t i, int worker) {
    rank_runs *k = ctx;
    size_t r = k->order[i].r;
    (void)worker;
    k->rc[r] = tc_sg_build_rank(&k->rb[r], &k->maps[r], k->rb[r].g->rank_steps[r], k->sp[r].gpu_first, k->pool);
}

/* Every rank's nodes, on the pool (NULL: one after the other here; a rank's host and GPU blocks at
 * once, so one rank uses two threads), then each rank's two runs of edges (tc_sg_build_rank) moved
 * down into one run (each node's first[] with them) and the counts summed in rank order; b then
 * continues after the last rank's edges. 0, or -1 out of memory. */
static int build_ranks(tc_sg_builder *b, const tc_step_map *maps, const rank_span *sp, tc_pool *pool) {
    size_t nr = b->j->n_ranks;
    tc_step_graph *g = b->g;
    tc_sg_builder *rb = malloc((nr ? nr : 1) * sizeof *rb);
    rank_size *order = malloc((nr ? nr : 1) * sizeof *order);
    int *rc = calloc(nr ? nr : 1, sizeof *rc);
    int bad = !rb || !order || !rc;
    for (size_t r = 0; r < nr && !bad; r++) {
        rb[r] = *b;
        rb[r].r = r;
        rb[r].next = (uint32_t)sp[r].first;
        rb[r].n_edges = sp[r].edge_first;
        rb[r].edge_end = sp[r].edge_end;
        order[r] = (rank_size){sp[r].end - sp[r].first, r};
    }
    if (!bad) {
        tc_sort(order, nr, sizeof *order, cmp_rank_size);
        rank_runs k = {pool, rb, maps, sp, order, rc};
        if (pool && nr >= 2) tc_pool_for_nesting(pool, nr, build_run, &k); /* each run submits its GPU block */
        else for (size_t i = 0; i < nr; i++) build_run(&k, i, 0);
    }
    size_t at = 0;
    for (size_t r = 0; r < nr && !bad; r++) {
        if ((bad = rc[r] != 0)) break;
        assert(rb[r].next == sp[r].end);
        move_edges(g, sp[r].edge_first, rb[r].host_end, sp[r].first, sp[r].gpu_first, &at);
        move_edges(g, rb[r].gpu_from, rb[r].n_edges, sp[r].gpu_first, sp[r].end, &at);
        const tc_sg_counts *c = &rb[r].c;
        g->ops += c->ops; g->ops_unplaced += c->ops_unplaced; g->ops_unmatched += c->ops_unmatched;
        g->event_deps += c->event_deps; g->inferred_deps += c->inferred_deps; g->sync_calls += c->sync_calls;
        g->step_tails += c->step_tails; g->poll_waits += c->poll_waits;
    }
    b->next = (uint32_t)(nr ? sp[nr - 1].end : 0);
    b->n_edges = at;
    free(rb);
    free(order);
    free(rc);
    return bad ? -1 : 0;
}

int tc_step_graph_build(tc_job *j, tc_pool *pool, tc_step_graph **out) {
    *out = NULL;
    size_t nr = j->n_ranks, steps = 0;
    tc_step_map *maps = calloc(nr ? nr : 1, sizeof *maps);
    rank_span *sp = malloc((nr ? nr : 1) * sizeof *sp);
    tc_sg_builder b = {.j = j};
    int rc = maps && sp ? 0 : -1;
    for (size_t r = 0; r < nr && !rc; r++) {
        rc = tc_steps_spans(&j->traces[j->ranks[r].input], &maps[r]);
        if (!rc && maps[r].n_steps != j->ranks[r].n_steps) tc_step_map_free(&maps[r]); /* not the analysis's steps */
        steps += maps[r].n_steps;
    }
    tc_step_graph *g = NULL;
    if (rc || !steps) goto out;
    g = calloc(1, sizeof *g);
    b.g = g;
    size_t n = 0, cap = g ? count_nodes(j, maps, sp, &n, &rc) : 0;
    rc = !g || rc || n >= TC_NONE || cap >= TC_NONE || graph_alloc(g, n) || make_slots(j, g) || prepare_members(&b, sp) ? -1 : 0;
    /* the windows: pages are touched as edges are written (the windows' unused ends cost address space) */
    if (!rc && !(g->edges = malloc((cap ? cap : 1) * sizeof *g->edges))) rc = -1;
    for (size_t i = 0; i < j->n_instances && !rc; i++) g->inst_node[i] = (uint32_t)(n - j->n_instances + i);
    if (!rc) rc = build_ranks(&b, maps, sp, pool);
    if (!rc) { b.edge_end = cap; rc = tc_sg_instance_nodes(&b); }
    if (!rc) {
        assert(b.next == n);
        g->n_edges = b.n_edges;
        g->first[n] = (uint32_t)g->n_edges;
        g->n_instances = j->n_instances;
        tc_sg_edge *fit = realloc(g->edges, (g->n_edges ? g->n_edges : 1) * sizeof *g->edges); /* the windows' rest */
        if (fit) g->edges = fit;
        rc = topo_order(j, g);
    }
out:
    for (size_t r = 0; maps && r < nr; r++) tc_step_map_free(&maps[r]);
    free(maps);
    free(sp);
    builder_free(&b);
    if (rc) tc_step_graph_free(g);
    else *out = g;
    return rc;
}

void tc_step_graph_retime(const tc_step_graph *g, const int64_t *transfer_ns, int64_t *start, int64_t *end) {
    for (size_t k = 0; k < g->n; k++) {
        uint32_t v = g->order[k];
        int64_t s = g->start0[v], d = g->dur[v];
        if (g->kind[v] == TC_SG_INSTANCE && transfer_ns) d = transfer_ns[g->ref[v]];
        if (g->flags[v] & TC_SG_FIXED) { start[v] = s; end[v] = s + d; continue; }
        int64_t s_max = INT64_MIN, e_max = INT64_MIN;
        for (uint32_t e = g->first[v]; e < g->first[v + 1]; e++) {
            const tc_sg_edge *ed = &g->edges[e];
            int64_t t = ((ed->flags & TC_SG_FROM_END) ? end[ed->from] : start[ed->from]) + ed->lag;
            if (ed->flags & TC_SG_TO_END) { if (t > e_max) e_max = t; }
            else if (t > s_max) s_max = t;
        }
        if (s_max != INT64_MIN) s = s_max;
        start[v] = s;
        end[v] = s + d > e_max ? s + d : e_max;
    }
}
