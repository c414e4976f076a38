/* step_graph_rank.c: one rank's part of the job's step graph (step_graph.h; the rules are
 * docs/definitions.md "Replay"; the job's part, and the re-timing, are step_graph_job.c). Per rank,
 * in node order: the host block (every runtime call on its CPU thread in time order, a blocking
 * call's start as a node of its own, the step boundaries on the thread that makes the most calls),
 * the GPU block (one node per GPU event, start order) and the arrivals of its collective kernels;
 * then (the job) one node per matched instance. Each node's edges are written when the node is,
 * into the builder's window of the edge array, so they come out grouped by target. The two blocks
 * are built at once (every node id is known ahead; the GPU block's launch edges name the launch
 * until the host block has given it its node), each in its own run of the window. One pass of
 * sorts per rank: memory and time linear in events (times a log). */
#include "step_graph_rank.h"
#include "step_host.h"
#include "host_wait.h"
#include "steps.h"
#include "base/util.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define DEP_WINDOW_NS 10000 /* an op waits for another stream's op that ended at most this long before it */
#define DEP_LOOKBACK 8      /* ops ending before it looked at, at most */
#define HANDOFF_GAP_NS 100000 /* a thread idle this long before a call may have waited for another thread */
#define HANDOFF_NS 50000      /* ... for a call of another thread that ended at most this long before it */
#define EXPLAINED_NS 5000   /* a start this close after what its launch, stream or event wait explains is
                             * explained (the wait's own latency, 1-5 µs on real traces) */

typedef tc_sg_builder builder;
typedef tc_sg_end_rec end_rec;

/* Edge flag of the GPU block while it is built: `from` is a launch index, not yet its node. */
#define EDGE_LAUNCH 0x80

static int add_edge(builder *b, uint32_t from, uint8_t flags, uint8_t cls, int64_t lag) {
    assert(b->n_edges < b->edge_end); /* the windows are bounds (step_graph_job.c, edge_windows) */
    if (b->n_edges >= b->edge_end) return -1;
    b->g->edges[b->n_edges++] = (tc_sg_edge){from, flags, cls, 0, lag};
    return 0;
}

/* Starts node id b->next: its fields, its edges begin here. Returns its id. */
static uint32_t new_node(builder *b, uint8_t kind, uint32_t rank, uint32_t ref, int64_t start, int64_t dur) {
    tc_step_graph *g = b->g;
    uint32_t v = b->next++;
    assert(v < g->n);
    g->kind[v] = kind;
    g->rank[v] = rank;
    g->ref[v] = ref;
    g->start0[v] = start;
    g->dur[v] = dur;
    g->first[v] = (uint32_t)b->n_edges;
    return v;
}

static int64_t ev_end(const tc_gpu_event *e) { return e->start_ns + e->dur_ns; }

static int cmp_end_rec(const void *a, const void *b) {
    const end_rec *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->event > y->event) - (x->event < y->event);
}

/* The first index of ends[] past the records of `device` with end <= t (binary search). */
static size_t ends_upto(const builder *b, int32_t device, int64_t t) {
    size_t lo = 0, hi = b->n_ends;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const end_rec *m = &b->ends[mid];
        if (m->device < device || (m->device == device && m->end <= t)) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* The GPU event of the rank with the latest end in [from, to] on any device, TC_NONE when none. */
static uint32_t latest_end_within(const builder *b, int64_t from, int64_t to) {
    uint32_t best = TC_NONE;
    int64_t best_end = INT64_MIN;
    for (size_t k = 0; k < b->n_ends;) { /* one binary search per device */
        int32_t dev = b->ends[k].device;
        size_t at = ends_upto(b, dev, to);
        if (at > k && b->ends[at - 1].device == dev && b->ends[at - 1].end >= from && b->ends[at - 1].end > best_end) {
            best_end = b->ends[at - 1].end;
            best = b->ends[at - 1].event;
        }
        k = ends_upto(b, dev, INT64_MAX);
    }
    return best;
}

static uint64_t stream_key(const tc_gpu_event *e) { return ((uint64_t)(uint32_t)e->device << 32 | e->stream) + 1; }

/* ---- the host block ------------------------------------------------------------------------- */

/* One call's nodes: [begin,] the call; its edge from the thread's chain (prev: the node with the
 * latest end so far, prev_end its measured end; nested calls hang from its start). */
/* The call of another thread than `thread` that ended last in (after, at], at most HANDOFF_NS before
 * at: what a thread idle since `after` may have waited for (PyTorch's main thread handing backward
 * to the autograd engine's thread, and taking the step back when it is done). NULL when none. */
static const end_rec *handoff(const builder *b, uint32_t thread, int64_t after, int64_t at) {
    size_t lo = 0, hi = b->n_calls;
    while (lo < hi) { size_t mid = lo + (hi - lo) / 2; if (b->calls[mid].end <= at) lo = mid + 1; else hi = mid; }
    for (size_t k = lo, seen = 0; k-- > 0 && seen < DEP_LOOKBACK; seen++) {
        const end_rec *u = &b->calls[k];
        if (u->end <= after || u->end < at - HANDOFF_NS) break;
        if (u->stream != thread) return u;
    }
    return NULL;
}

/* A call's edge from its thread's chain, or, after an idle gap another thread's call explains, from
 * that call (the chain's then only orders). */
static int chain_edge(builder *b, uint32_t thread, int64_t ts, uint32_t prev, int64_t prev_end, int64_t prev_start) {
    if (prev == TC_NONE) return 0;
    bool nested = ts < prev_end;
    int64_t lag = ts - (nested ? prev_start : prev_end);
    const end_rec *u = !nested && lag >= HANDOFF_GAP_NS ? handoff(b, thread, prev_end, ts) : NULL;
    if (u && add_edge(b, u->event, TC_SG_FROM_END, TC_CP_HOST_CPU, ts - u->end)) return -1;
    return add_edge(b, prev, nested ? 0 : TC_SG_FROM_END, TC_CP_HOST_CPU, u ? 0 : lag);
}

static int host_call(builder *b, const tc_sg_host_item *it, uint8_t cls, uint32_t *prev, int64_t *prev_end, int64_t prev_start) {
    const tc_launch *l = &b->t->launches[it->idx];
    uint32_t rank = (uint32_t)b->r;
    bool sync = tc_sg_is_sync_class(cls);
    uint32_t w = TC_NONE;
    if (sync) w = latest_end_within(b, l->ts_ns, l->ts_ns + l->dur_ns);
    uint32_t v = new_node(b, sync ? TC_SG_BEGIN : TC_SG_CALL, rank, it->idx, l->ts_ns, sync ? 0 : l->dur_ns);
    if (cls == TC_CALL_LAUNCH || cls == TC_CALL_GRAPH_LAUNCH || cls == TC_CALL_COPY) b->g->flags[v] |= TC_SG_LAUNCHES;
    if (chain_edge(b, it->thread, l->ts_ns, *prev, *prev_end, prev_start)) return -1;
    b->launch_node[it->idx] = v;
    if (sync) { /* the call itself, after its begin */
        const tc_gpu_event *we = w != TC_NONE ? &b->t->gpu[w] : NULL;
        int64_t ret = we ? l->ts_ns + l->dur_ns - ev_end(we) : l->dur_ns;
        uint32_t c = new_node(b, we ? TC_SG_SYNC : TC_SG_CALL, rank, it->idx, l->ts_ns, ret);
        if (add_edge(b, v, TC_SG_FROM_END, TC_CP_HOST_CPU, 0)) return -1;
        if (we) {
            if (add_edge(b, b->gpu_base + w, TC_SG_FROM_END | TC_SG_TO_END, TC_CP_HOST_SYNC, ret)) return -1;
            b->c.sync_calls++;
        }
        v = c;
    }
    if (*prev == TC_NONE || l->ts_ns + l->dur_ns > *prev_end) { *prev = v; *prev_end = l->ts_ns + l->dur_ns; }
    return 0;
}

/* The last call of a polling run (tc_sg_poll_runs), from the run's first call (node first, its start
 * first_ts): the host asked the GPU until the op it waited for was done, so the run ends when the GPU
 * op of the rank that ended last before the call returned (within DEP_WINDOW_NS of the call's start,
 * and not before the run's) ends, plus the measured return; it starts with the run. 1 when no op
 * fits (the caller places it as any call), 0 done, -1 out of memory. */
static int poll_call(builder *b, const tc_sg_host_item *it, uint32_t first, int64_t first_ts, uint32_t *prev,
                     int64_t *prev_end) {
    const tc_launch *l = &b->t->launches[it->idx];
    int64_t end = l->ts_ns + l->dur_ns, lo = l->ts_ns - DEP_WINDOW_NS > first_ts ? l->ts_ns - DEP_WINDOW_NS : first_ts;
    uint32_t w = latest_end_within(b, lo, end);
    if (w == TC_NONE) return 1;
    int64_t ret = end - ev_end(&b->t->gpu[w]);
    uint32_t v = new_node(b, TC_SG_SYNC, (uint32_t)b->r, it->idx, first_ts, ret);
    if (add_edge(b, first, 0, TC_CP_HOST_CPU, 0) ||
        add_edge(b, b->gpu_base + w, TC_SG_FROM_END | TC_SG_TO_END, TC_CP_HOST_SYNC, ret))
        return -1;
    b->launch_node[it->idx] = v;
    b->c.poll_waits++;
    if (*prev == TC_NONE || end > *prev_end) { *prev = v; *prev_end = end; }
    return 0;
}

/* A step boundary on the host chain. tail: for a step's end, the GPU op it ends at when its GPU work
 * runs past its CPU span (tc_sg_step_tails), else TC_NONE: the mark then waits for that op too, and stays
 * off the chain (the host's next call follows its last one, as measured). */
static int host_mark(builder *b, const tc_sg_host_item *it, uint32_t step, bool end, uint32_t tail, uint32_t *prev,
                     int64_t *prev_end, int64_t prev_start) {
    int64_t tail_end = tail != TC_NONE ? ev_end(&b->t->gpu[tail]) : it->ts;
    uint32_t v = new_node(b, TC_SG_MARK, (uint32_t)b->r, step, tail_end, 0);
    b->g->flags[v] |= end ? TC_SG_STEP_END : 0;
    (end ? &b->g->steps[step].end_node : &b->g->steps[step].start_node)[0] = v;
    if (*prev != TC_NONE) {
        bool nested = it->ts < *prev_end;
        if (add_edge(b, *prev, nested ? 0 : TC_SG_FROM_END, TC_CP_HOST_CPU, it->ts - (nested ? prev_start : *prev_end)))
            return -1;
    }
    if (tail != TC_NONE) {
        b->g->steps[step].measured_ns += tail_end - it->ts;
        b->c.step_tails++;
        return add_edge(b, b->gpu_base + tail, TC_SG_FROM_END, TC_CP_IDLE, 0);
    }
    if (*prev == TC_NONE || it->ts > *prev_end) { *prev = v; *prev_end = it->ts; }
    return 0;
}

/* A GPU-only step's boundary, hung from the GPU work: the start from the first op starting at or
 * after it, the end from the latest op ending at or before it; else kept where it is. */
static int gpu_mark(builder *b, uint32_t step, int64_t ts, bool end) {
    uint32_t v = new_node(b, TC_SG_MARK, (uint32_t)b->r, step, ts, 0);
    b->g->flags[v] |= end ? TC_SG_STEP_END : 0;
    (end ? &b->g->steps[step].end_node : &b->g->steps[step].start_node)[0] = v;
    const tc_trace *t = b->t;
    if (end) {
        uint32_t u = latest_end_within(b, INT64_MIN, ts);
        if (u != TC_NONE) return add_edge(b, b->gpu_base + u, TC_SG_FROM_END, TC_CP_IDLE, ts - ev_end(&t->gpu[u]));
    } else {
        size_t lo = 0, hi = t->n_gpu;
        while (lo < hi) { size_t mid = lo + (hi - lo) / 2; if (t->gpu[mid].start_ns < ts) lo = mid + 1; else hi = mid; }
        if (lo < t->n_gpu) return add_edge(b, b->gpu_base + (uint32_t)lo, 0, TC_CP_IDLE, ts - t->gpu[lo].start_ns);
    }
    b->g->flags[v] |= TC_SG_FIXED;
    return 0;
}

/* Waits across streams by event, as ProcessGroupNCCL and DDP issue them (cudaEventRecord on one
 * stream, cudaStreamWaitEvent on another, then the launch): the calls carry no event or stream in
 * the trace, so a record is taken to capture the last op its thread launched before it, and a wait
 * to hold the next op the thread launches for the op of the latest record before the wait.
 * b->event_dep gets it. it: the rank's host items (threads in time order). 0, or -1 out of memory. */
static int event_waits(builder *b, const tc_sg_host_item *it, size_t n, const uint8_t *cls) {
    const tc_trace *t = b->t;
    uint32_t *op_of = malloc((t->n_launches ? t->n_launches : 1) * sizeof *op_of);
    if (!op_of) return -1;
    for (size_t l = 0; l < t->n_launches; l++) op_of[l] = TC_NONE;
    for (size_t e = 0; e < t->n_gpu; e++) {
        b->event_dep[e] = TC_NONE;
        const tc_launch *l = t->gpu[e].correlation != TC_NONE ? tc_trace_find_launch(t, t->gpu[e].correlation) : NULL;
        if (l && op_of[l - t->launches] == TC_NONE) op_of[l - t->launches] = (uint32_t)e;
    }
    uint32_t last = TC_NONE, captured = TC_NONE, pending = TC_NONE;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || it[i].thread != it[i - 1].thread) last = captured = pending = TC_NONE;
        if (it[i].mark) continue;
        uint32_t nm = t->launches[it[i].idx].name, op = op_of[it[i].idx];
        int c = nm == TC_NONE ? TC_CALL_OTHER : cls[nm];
        if (c == CALL_EVENT_RECORD) captured = last;
        else if (c == CALL_STREAM_WAIT) pending = captured;
        else if (op != TC_NONE) {
            if (pending != TC_NONE && pending != op) b->event_dep[op] = pending;
            pending = TC_NONE;
            last = op;
        }
    }
    free(op_of);
    return 0;
}

/* b->calls: the rank's calls by end with the node each ends at (the host block's nodes come in item
 * order from b->next: a mark or call one, a synchronizing call two), when more than one thread
 * makes calls. 0, or -1 out of memory. */
static int handoff_list(builder *b, const tc_sg_host_item *it, size_t n, const uint8_t *cls) {
    const tc_trace *t = b->t;
    bool several = false;
    for (size_t i = 1; i < n && !several; i++) several = it[i].thread != it[i - 1].thread;
    if (!several) return 0;
    b->calls = malloc(n * sizeof *b->calls);
    if (!b->calls) return -1;
    uint32_t node = b->next;
    for (size_t i = 0; i < n; i++) {
        if (it[i].mark) { node++; continue; }
        uint32_t nm = t->launches[it[i].idx].name;
        bool sync = nm != TC_NONE && tc_sg_is_sync_class(cls[nm]);
        b->calls[b->n_calls++] = (end_rec){it[i].end, 0, it[i].thread, node + sync, 0};
        node += sync ? 2 : 1;
    }
    tc_sort(b->calls, b->n_calls, sizeof *b->calls, cmp_end_rec);
    return 0;
}

/* What the host block is built from: the call classes by name id, the host items, the step tails,
 * the polling runs; made (with the event waits the GPU block reads, and the calls by end) before
 * either block is built. */
typedef struct {
    uint8_t *cls;
    tc_sg_host_item *it;
    size_t n, n_cpu;
    uint32_t *tail, *run;
} host_plan;

/* All of it but the step tails (made beside it, rank_side); h->n_cpu is set. */
static int host_plan_make(builder *b, const tc_step_map *steps, host_plan *h) {
    const tc_trace *t = b->t;
    h->cls = tc_sg_call_classes(t);
    h->it = h->cls ? tc_sg_host_items(t, h->cls, steps, h->n_cpu, &h->n) : NULL;
    h->run = h->it ? tc_sg_poll_runs(t, h->cls, h->it, h->n) : NULL;
    if (!h->it || !h->cls || !h->run) return -1;
    return event_waits(b, h->it, h->n, h->cls) || handoff_list(b, h->it, h->n, h->cls) ? -1 : 0;
}

static void host_plan_free(builder *b, host_plan *h) {
    free(h->it);
    free(h->cls);
    free(h->tail);
    free(h->run);
    free(b->calls);
    b->calls = NULL;
    b->n_calls = 0;
}

/* The rank's host block: calls and CPU step boundaries per thread in time order, then the
 * GPU-only steps' boundaries. steps: the rank's steps (tc_steps_spans), first: its first tc_sg_step. */
static int host_block(builder *b, const tc_step_map *steps, size_t first, const host_plan *h) {
    const tc_trace *t = b->t;
    const tc_sg_host_item *it = h->it;
    const uint8_t *cls = h->cls;
    uint32_t prev = TC_NONE, run_node = TC_NONE;
    int64_t prev_end = 0;
    for (size_t i = 0; i < h->n; i++) {
        if (i == 0 || it[i].thread != it[i - 1].thread) prev = TC_NONE;
        int64_t prev_start = prev != TC_NONE ? b->g->start0[prev] : 0;
        if (tc_sg_is_query(t, cls, &it[i]) && (i == 0 || it[i].thread != it[i - 1].thread || !tc_sg_is_query(t, cls, &it[i - 1])))
            run_node = b->next; /* a run's first call: one node */
        if (h->run[i] != TC_NONE) {
            int pc = poll_call(b, &it[i], run_node, it[h->run[i]].ts, &prev, &prev_end);
            if (pc < 0) return -1;
            if (pc == 0) continue;
        }
        if (it[i].mark) {
            uint32_t k = it[i].mark - 1;
            uint32_t tl = k % 2 == 1 ? h->tail[k / 2] : TC_NONE;
            if (host_mark(b, &it[i], (uint32_t)first + k / 2, k % 2 == 1, tl, &prev, &prev_end, prev_start)) return -1;
            continue;
        }
        uint32_t nm = t->launches[it[i].idx].name;
        if (host_call(b, &it[i], nm == TC_NONE ? TC_CALL_OTHER : cls[nm], &prev, &prev_end, prev_start)) return -1;
    }
    for (size_t k = h->n_cpu; k < steps->n_steps; k++)
        if (gpu_mark(b, (uint32_t)(first + k), steps->steps[k].span_start_ns, false) ||
            gpu_mark(b, (uint32_t)(first + k), steps->steps[k].span_end_ns, true))
            return -1;
    return 0;
}

/* ---- the GPU block --------------------------------------------------------------------------- */

/* The rank's launch latency: the lower decile of op start − launch end (>= 0) over ops whose stream
 * was free when their launch ended (the launch, or a wait on another stream, set their start): a
 * low quantile, since ops that waited on another stream count too; 0 when none. */
static int launch_latency(builder *b, tc_sg_stream_map *m) {
    const tc_trace *t = b->t;
    int64_t *v = malloc((t->n_gpu ? t->n_gpu : 1) * sizeof *v);
    size_t n = 0;
    if (!v) return -1;
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        uint32_t *slot = tc_sg_stream_slot(m, stream_key(g));
        if (!slot) { free(v); return -1; }
        const tc_launch *l = g->correlation != TC_NONE ? tc_trace_find_launch(t, g->correlation) : NULL;
        int64_t lend = l ? l->ts_ns + l->dur_ns : 0;
        if (l && (*slot == TC_NONE || ev_end(&t->gpu[*slot]) <= lend)) v[n++] = g->start_ns - lend;
        *slot = (uint32_t)e;
    }
    tc_sort_i64(v, n);
    size_t lo = 0;
    while (lo < n && v[lo] < 0) lo++; /* a launch call that returns after its op has started shows no latency */
    b->launch_latency = lo < n ? v[lo + (n - lo) / 10] : 0;
    free(v);
    memset(m->key, 0, m->cap * sizeof *m->key);
    m->n = 0;
    return 0;
}

/* The start edges of op e (stream predecessor pred): its launch, its stream predecessor and, when
 * neither explains its start, the op of another stream of its device that ended just before. The
 * one that explains the start most keeps the measured lag; the others their nominal lag (0 after a
 * predecessor, the launch's duration + the rank's launch latency after a launch) or less. false:
 * the op has no launch (kept at its measured time). */
static bool op_start_edges(builder *b, uint32_t e, uint32_t pred, tc_sg_edge *out, size_t *n_out) {
    const tc_trace *t = b->t;
    const tc_gpu_event *g = &t->gpu[e];
    const tc_launch *l = g->correlation != TC_NONE ? tc_trace_find_launch(t, g->correlation) : NULL;
    *n_out = 0;
    if (!l) return false;
    int64_t st = g->start_ns, meas[4], nominal[4], expl[4];
    size_t n = 0, best = 0;
    /* the launch's node is the host block's, which may be built at this moment: the launch index,
     * resolved once both blocks are done (resolve_launches) */
    out[n] = (tc_sg_edge){(uint32_t)(l - t->launches), EDGE_LAUNCH, TC_CP_HOST_LAUNCH, 0, 0};
    meas[n] = st - l->ts_ns;
    nominal[n] = l->dur_ns + b->launch_latency;
    expl[n] = l->ts_ns + (meas[n] < nominal[n] ? meas[n] : nominal[n]);
    n++;
    if (pred != TC_NONE) {
        int64_t pe = ev_end(&t->gpu[pred]);
        out[n] = (tc_sg_edge){b->gpu_base + pred, TC_SG_FROM_END, TC_CP_IDLE, 0, 0};
        meas[n] = st - pe;
        nominal[n] = 0;
        expl[n] = pe + (meas[n] < 0 ? meas[n] : 0);
        if (expl[n] >= expl[best]) best = n; /* a tie goes to the GPU side */
        n++;
    }
    uint32_t ev = b->event_dep[e];
    if (ev != TC_NONE && ev != pred && (t->gpu[ev].stream != g->stream || t->gpu[ev].device != g->device)) {
        int64_t ue = ev_end(&t->gpu[ev]);
        out[n] = (tc_sg_edge){b->gpu_base + ev, TC_SG_FROM_END, TC_CP_IDLE, 0, 0};
        meas[n] = st - ue;
        nominal[n] = 0;
        expl[n] = ue + (meas[n] < 0 ? meas[n] : 0);
        if (expl[n] >= expl[best]) best = n;
        n++;
        b->c.event_deps++;
    }
    if (st - expl[best] > EXPLAINED_NS) { /* unexplained: another stream's op ending just before? */
        size_t at = ends_upto(b, g->device, st);
        for (size_t k = at, seen = 0; k-- > 0 && seen < DEP_LOOKBACK; seen++) {
            const end_rec *u = &b->ends[k];
            if (u->device != g->device || u->end < st - DEP_WINDOW_NS || u->end <= expl[best]) break;
            if (u->stream == g->stream || u->event == e) continue;
            out[n] = (tc_sg_edge){b->gpu_base + u->event, TC_SG_FROM_END, TC_CP_IDLE, 0, 0};
            meas[n] = st - u->end;
            nominal[n] = 0;
            expl[n] = u->end;
            best = n++;
            b->c.inferred_deps++;
            break;
        }
    }
    for (size_t k = 0; k < n; k++) out[k].lag = k == best ? meas[k] : meas[k] < nominal[k] ? meas[k] : nominal[k];
    *n_out = n;
    return true;
}

/* Node of GPU event e: a placed op (a collective kernel left unmatched is one, with its measured
 * duration: no instance re-times it), a member of an instance (its start is its arrival's, its end
 * its instance's), or an op without its launch, kept at its measured time. */
static int gpu_node(builder *b, uint32_t e, uint32_t pred) {
    const tc_trace *t = b->t;
    const tc_gpu_event *g = &t->gpu[e];
    uint32_t m = b->member_of[e];
    uint32_t rank = (uint32_t)b->r;
    if (m != TC_NONE) {
        uint32_t i = b->mem_inst[m];
        uint32_t v = new_node(b, TC_SG_MEMBER, rank, e, g->start_ns, 0);
        (void)v;
        int64_t inst_end = b->inst_start[i] + b->j->instances[i].transfer_ns;
        if (add_edge(b, b->arrival[m], 0, TC_CP_IDLE, 0) ||
            add_edge(b, b->g->inst_node[i], TC_SG_FROM_END | TC_SG_TO_END,
                     b->j->inst_groups[b->j->instances[i].group].scope == TC_SCOPE_INTRA ? TC_CP_TRANSFER_INTRA
                                                                                        : TC_CP_TRANSFER_INTER,
                     ev_end(g) - inst_end))
            return -1;
        b->c.ops++;
        return 0;
    }
    tc_sg_edge ed[4];
    size_t ne = 0;
    bool placed = op_start_edges(b, e, pred, ed, &ne); /* an unmatched collective too, with its measured time */
    uint32_t v = new_node(b, TC_SG_OP, rank, e, g->start_ns, g->dur_ns);
    if (!placed) { b->g->flags[v] |= TC_SG_FIXED; b->c.ops_unplaced++; return 0; }
    b->c.ops++;
    b->c.ops_unmatched += g->is_comm != 0;
    for (size_t k = 0; k < ne; k++)
        if (add_edge(b, ed[k].from, ed[k].flags, ed[k].cls, ed[k].lag)) return -1;
    return 0;
}

/* The rank's GPU block (one node per event, start order), then the arrivals of its members. */
static int gpu_block(builder *b) {
    const tc_trace *t = b->t;
    tc_sg_stream_map m = {0};
    int rc = launch_latency(b, &m);
    for (size_t e = 0; e < t->n_gpu && !rc; e++) {
        uint32_t *slot = tc_sg_stream_slot(&m, stream_key(&t->gpu[e]));
        if (!slot) { rc = -1; break; }
        uint32_t pred = *slot;
        *slot = (uint32_t)e;
        if (b->member_of[e] != TC_NONE) b->member_pred[b->member_of[e]] = pred;
        rc = gpu_node(b, (uint32_t)e, pred);
    }
    free(m.key);
    free(m.last);
    for (size_t k = b->rank_members[b->r]; k < b->rank_members[b->r + 1] && !rc; k++) {
        uint32_t mi = b->by_rank[k], e = b->j->inst_members[mi].event;
        tc_sg_edge ed[4];
        size_t ne = 0;
        bool placed = op_start_edges(b, e, b->member_pred[mi], ed, &ne);
        uint32_t v = new_node(b, TC_SG_ARRIVAL, (uint32_t)b->r, e, t->gpu[e].start_ns, 0);
        assert(v == b->arrival[mi]);
        if (!placed) { b->g->flags[v] |= TC_SG_FIXED; b->c.ops--; b->c.ops_unplaced++; }
        for (size_t q = 0; q < ne && !rc; q++) rc = add_edge(b, ed[q].from, ed[q].flags, ed[q].cls, ed[q].lag);
    }
    return rc;
}

/* The end_rec list of t's GPU events by (device, end). */
static int rank_ends(builder *b) {
    const tc_trace *t = b->t;
    b->ends = malloc((t->n_gpu ? t->n_gpu : 1) * sizeof *b->ends);
    if (!b->ends) return -1;
    for (size_t e = 0; e < t->n_gpu; e++)
        b->ends[e] = (end_rec){ev_end(&t->gpu[e]), t->gpu[e].device, t->gpu[e].stream, (uint32_t)e, 0};
    b->n_ends = t->n_gpu;
    /* in start order the ends are nearly sorted (only ops running across others are out of
     * place): insertion, unless that takes long; then the full sort */
    size_t moves = 0, budget = 8 * b->n_ends + 1024, i = 1;
    for (; i < b->n_ends && moves <= budget; i++) {
        end_rec x = b->ends[i];
        size_t k = i;
        for (; k > 0 && cmp_end_rec(&b->ends[k - 1], &x) > 0; k--, moves++) b->ends[k] = b->ends[k - 1];
        b->ends[k] = x;
    }
    if (i < b->n_ends) tc_sort(b->ends, b->n_ends, sizeof *b->ends, cmp_end_rec);
    return 0;
}

/* The GPU block as a task of the pool. */
typedef struct {
    tc_pool_task task; /* first: the pool hands it back to gpu_run */
    builder gb;        /* the rank's builder with the GPU block's node ids, window and counts */
    int rc;
} gpu_task;

static void gpu_run(tc_pool_task *task, size_t i, int worker) {
    (void)i;
    (void)worker;
    gpu_task *g = (gpu_task *)task;
    g->rc = gpu_block(&g->gb);
}

/* The host block here and the GPU block at once on pool (or after it, here), each in its own run of
 * the rank's window: the host block's first, as large as it can fill (at most 2 edges a node), the
 * GPU block's after it. Then the GPU block's launch edges get their nodes and its counts are added. */
static int build_blocks(builder *b, const tc_step_map *map, size_t first, size_t gpu_first, const host_plan *h,
                        tc_pool *pool) {
    size_t window_end = b->edge_end, split = b->n_edges + 2 * (gpu_first - b->next);
    if (split > window_end) split = window_end;
    gpu_task g = {.gb = *b, .rc = 0};
    memset(&g.task, 0, sizeof g.task);
    g.gb.next = (uint32_t)gpu_first;
    g.gb.n_edges = split;
    memset(&g.gb.c, 0, sizeof g.gb.c);
    b->edge_end = split;
    if (pool) tc_pool_submit(pool, &g.task, gpu_run, 1);
    int rc = host_block(b, map, first, h);
    if (!pool || tc_pool_take_back(pool, &g.task)) g.rc = gpu_block(&g.gb);
    else tc_pool_wait(pool, &g.task);
    b->edge_end = window_end;
    if (rc || g.rc) return -1;
    assert(b->next == gpu_first);
    b->host_end = b->n_edges;
    b->gpu_from = split;
    for (size_t e = split; e < g.gb.n_edges; e++) {
        tc_sg_edge *ed = &b->g->edges[e];
        if (ed->flags & EDGE_LAUNCH) { ed->from = b->launch_node[ed->from]; ed->flags &= (uint8_t)~EDGE_LAUNCH; }
    }
    b->n_edges = g.gb.n_edges;
    b->next = g.gb.next;
    b->launch_latency = g.gb.launch_latency;
    const tc_sg_counts *c = &g.gb.c;
    b->c.ops += c->ops; b->c.ops_unplaced += c->ops_unplaced; b->c.ops_unmatched += c->ops_unmatched;
    b->c.event_deps += c->event_deps; b->c.inferred_deps += c->inferred_deps; b->c.sync_calls += c->sync_calls;
    b->c.step_tails += c->step_tails; b->c.poll_waits += c->poll_waits;
    return 0;
}

/* What the blocks need besides the host plan, made at once with it (a task of the pool, taken
 * back when no thread is free): the GPU events by end (both blocks) and the step tails (the host
 * block). It writes b->ends only; the host plan neither reads nor writes them. */
typedef struct {
    tc_pool_task task; /* first: the pool hands it back to side_run */
    builder *b;
    const tc_step_map *map;
    size_t n_cpu;
    uint32_t *tail;    /* NULL: out of memory */
    int rc;
} rank_side;

static void side_make(rank_side *s) {
    s->rc = rank_ends(s->b);
    s->tail = tc_sg_step_tails(s->b->t, s->map, s->n_cpu);
}

static void side_run(tc_pool_task *task, size_t i, int worker) {
    (void)i;
    (void)worker;
    side_make((rank_side *)task);
}

int tc_sg_build_rank(builder *b, const tc_step_map *map, size_t first, size_t gpu_first, tc_pool *pool) {
    tc_job *j = b->j;
    size_t r = b->r;
    b->t = &j->traces[j->ranks[r].input];
    const tc_trace *t = b->t;
    b->gpu_base = (uint32_t)gpu_first;
    host_plan h = {0};
    h.n_cpu = t->n_cpu_steps < map->n_steps ? t->n_cpu_steps : map->n_steps;
    rank_side side = {.b = b, .map = map, .n_cpu = h.n_cpu};
    memset(&side.task, 0, sizeof side.task);
    if (pool) tc_pool_submit(pool, &side.task, side_run, 1);
    b->launch_node = malloc((t->n_launches ? t->n_launches : 1) * sizeof *b->launch_node);
    b->member_of = malloc((t->n_gpu ? t->n_gpu : 1) * sizeof *b->member_of);
    b->event_dep = malloc((t->n_gpu ? t->n_gpu : 1) * sizeof *b->event_dep);
    int rc = b->launch_node && b->member_of && b->event_dep ? 0 : -1;
    if (!rc) {
        for (size_t e = 0; e < t->n_gpu; e++) b->member_of[e] = TC_NONE;
        for (size_t k = b->rank_members[r]; k < b->rank_members[r + 1]; k++)
            b->member_of[j->inst_members[b->by_rank[k]].event] = b->by_rank[k];
        for (size_t l = 0; l < t->n_launches; l++) b->launch_node[l] = TC_NONE;
        rc = host_plan_make(b, map, &h);
    }
    if (!pool || tc_pool_take_back(pool, &side.task)) side_make(&side);
    else tc_pool_wait(pool, &side.task);
    h.tail = side.tail;
    if (!rc && (side.rc || !h.tail)) rc = -1;
    if (!rc) rc = build_blocks(b, map, first, gpu_first, &h, pool);
    host_plan_free(b, &h);
    free(b->launch_node);
    free(b->member_of);
    free(b->event_dep);
    free(b->ends);
    b->launch_node = b->member_of = b->event_dep = NULL;
    b->ends = NULL;
    return rc;
}

int tc_sg_instance_nodes(builder *b) {
    tc_job *j = b->j;
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        uint32_t v = new_node(b, TC_SG_INSTANCE, TC_NONE, (uint32_t)i, b->inst_start[i], in->transfer_ns);
        assert(v == b->g->inst_node[i]);
        for (uint32_t k = in->first; k < in->first + in->n; k++)
            if (add_edge(b, b->arrival[k], 0, TC_CP_IDLE, b->g->shift[j->inst_members[k].rank])) return -1;
    }
    return 0;
}
