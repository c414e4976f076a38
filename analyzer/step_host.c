/* step_host.c: the host side of the step graph's input (step_host.h; docs/definitions.md "Replay"):
 * the calls' classes, the host items (every call and CPU step boundary per thread in time order, the
 * boundaries on the thread that runs the loop), the polling runs of query calls, and the steps whose
 * GPU work runs past their CPU span. Pure functions of one rank's trace; step_graph_rank.c builds on them. */
#include "step_host.h"
#include "host_wait.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static int64_t gpu_end(const tc_gpu_event *e) { return e->start_ns + e->dur_ns; }

/* A uint64 key (not 0) -> uint32 value, TC_NONE when new: the last GPU event of each (device,
 * stream) so far, the index of each CPU thread. Open addressing. */

uint32_t *tc_sg_stream_slot(tc_sg_stream_map *m, uint64_t key) {
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        uint64_t *k = calloc(cap, sizeof *k);
        uint32_t *l = malloc(cap * sizeof *l);
        if (!k || !l) { free(k); free(l); return NULL; }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->key[i]) continue;
            size_t s = (size_t)(m->key[i] * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
            while (k[s]) s = (s + 1) & (cap - 1);
            k[s] = m->key[i];
            l[s] = m->last[i];
        }
        free(m->key); free(m->last);
        m->key = k; m->last = l; m->cap = cap;
    }
    size_t s = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);
    while (m->key[s] && m->key[s] != key) s = (s + 1) & (m->cap - 1);
    if (!m->key[s]) { m->key[s] = key; m->last[s] = TC_NONE; m->n++; }
    return &m->last[s];
}

/* A call (mark 0, idx its launch) or a step boundary (mark 1 + 2k for step k's start, 2 + 2k its end). */

int tc_sg_cmp_host_item(const void *a, const void *b) {
    const tc_sg_host_item *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    if (x->mark != y->mark) return x->mark < y->mark ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

 
/* The class of each call of t by name id (names[] sized by the largest id): its tc_call_class, or
 * an event record (cudaEventRecord, cuEventRecord, hip...) or a stream's wait on an event. */
uint8_t *tc_sg_call_classes(const tc_trace *t) {
    uint32_t max = 0;
    for (size_t i = 0; i < t->n_launches; i++) if (t->launches[i].name != TC_NONE && t->launches[i].name > max) max = t->launches[i].name;
    uint8_t *cls = malloc((size_t)max + 1);
    if (!cls) return NULL;
    memset(cls, 0xff, (size_t)max + 1);
    for (size_t i = 0; i < t->n_launches; i++) {
        uint32_t n = t->launches[i].name;
        if (n == TC_NONE || cls[n] != 0xff) continue;
        const char *s = tc_trace_str(t, n);
        cls[n] = (uint8_t)tc_host_call_class(s, strlen(s));
        if (cls[n] == TC_CALL_OTHER && strstr(s, "EventRecord")) cls[n] = CALL_EVENT_RECORD;
        if (cls[n] == TC_CALL_OTHER && strstr(s, "StreamWaitEvent")) cls[n] = CALL_STREAM_WAIT;
        if (cls[n] == TC_CALL_OTHER && (strstr(s, "EventQuery") || strstr(s, "StreamQuery"))) cls[n] = CALL_QUERY;
    }
    return cls;
}

bool tc_sg_is_sync_class(int c) { return c == TC_CALL_SYNC || c == TC_CALL_SYNC_COPY; }

bool tc_sg_is_query(const tc_trace *t, const uint8_t *cls, const tc_sg_host_item *it) {
    uint32_t nm = it->mark ? TC_NONE : t->launches[it->idx].name;
    return nm != TC_NONE && cls[nm] == CALL_QUERY;
}

/* Polling runs: two or more query calls in a row on a thread (cudaEventQuery, cudaStreamQuery, their
 * driver and HIP forms). run[i]: for the run's last-returning call, the index of the run's first
 * item; TC_NONE for every other item. NULL out of memory. */
uint32_t *tc_sg_poll_runs(const tc_trace *t, const uint8_t *cls, const tc_sg_host_item *it, size_t n) {
    uint32_t *run = malloc((n ? n : 1) * sizeof *run);
    if (!run) return NULL;
    for (size_t i = 0; i < n; i++) run[i] = TC_NONE;
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        if (tc_sg_is_query(t, cls, &it[i]))
            while (e < n && it[e].thread == it[i].thread && tc_sg_is_query(t, cls, &it[e])) e++;
        if (e - i >= 2) {
            size_t f = i;
            for (size_t k = i + 1; k < e; k++) if (it[k].end > it[f].end) f = k;
            if (f != i) run[f] = (uint32_t)i; /* else the others ran inside the first: no polling */
        }
        i = e;
    }
    return run;
}

/* The index of the CPU step (steps[0, n_cpu), by start) whose span holds ts, SIZE_MAX when none (the
 * latest-starting one, as tc_steps_assign finds it). */
static size_t cpu_step_at(const tc_step_map *steps, size_t n_cpu, int64_t ts) {
    size_t lo = 0, hi = n_cpu;
    while (lo < hi) { size_t mid = lo + (hi - lo) / 2; if (steps->steps[mid].cpu_start_ns <= ts) lo = mid + 1; else hi = mid; }
    if (!lo) return SIZE_MAX;
    const tc_step_events *s = &steps->steps[lo - 1];
    return ts < s->cpu_end_ns || (s->cpu_end_ns == s->cpu_start_ns && ts == s->cpu_start_ns) ? lo - 1 : SIZE_MAX;
}

/* Per CPU step: the last-ending GPU op launched inside its span, when it ends after the span and no
 * later step of the rank starts before it ends (the last step, or one the host waits out before the
 * next): the step ends there ("Replay", step ends). TC_NONE else: a pipelined step, whose GPU work
 * ends inside the next step's span, keeps its CPU span (the CPU span chain is the period). NULL out
 * of memory. */
uint32_t *tc_sg_step_tails(const tc_trace *t, const tc_step_map *steps, size_t n_cpu) {
    uint32_t *tail = malloc((n_cpu ? n_cpu : 1) * sizeof *tail);
    if (!tail) return NULL;
    for (size_t k = 0; k < n_cpu; k++) tail[k] = TC_NONE;
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_launch *l = t->gpu[e].correlation != TC_NONE ? tc_trace_find_launch(t, t->gpu[e].correlation) : NULL;
        size_t k = l ? cpu_step_at(steps, n_cpu, l->ts_ns) : SIZE_MAX;
        if (k != SIZE_MAX && (tail[k] == TC_NONE || gpu_end(&t->gpu[e]) > gpu_end(&t->gpu[tail[k]]))) tail[k] = (uint32_t)e;
    }
    for (size_t k = 0; k < n_cpu; k++) {
        if (tail[k] == TC_NONE) continue;
        int64_t e = gpu_end(&t->gpu[tail[k]]);
        if (e <= steps->steps[k].cpu_end_ns || (k + 1 < n_cpu && steps->steps[k + 1].cpu_start_ns < e)) tail[k] = TC_NONE;
    }
    return tail;
}

/* The calls of t as host items, grouped by thread (a thread's in time order: launches come sorted
 * by correlation, which is nearly so), the CPU step boundaries merged into the run of the thread
 * that runs the loop: the one with the most synchronizing calls (PyTorch's autograd thread, which
 * may launch more, does not wait), then the most calls (the first such thread; the boundaries alone
 * without calls). cls: call classes by name id. *n_out items; NULL out of memory. */
tc_sg_host_item *tc_sg_host_items(const tc_trace *t, const uint8_t *cls, const tc_step_map *steps, size_t n_cpu,
                             size_t *n_out) {
    size_t nl = t->n_launches, nm = 2 * n_cpu, nt = 0;
    tc_sg_host_item *mk = malloc((nm ? nm : 1) * sizeof *mk), *it = malloc((nl + nm + 1) * sizeof *it);
    uint32_t *tix = malloc((nl ? nl : 1) * sizeof *tix);
    size_t *run = NULL, *pos = NULL;
    tc_sg_stream_map m = {0};
    bool ok = mk && it && tix;
    for (size_t i = 0; i < nl && ok; i++) {
        uint32_t *slot = tc_sg_stream_slot(&m, (uint64_t)t->launches[i].thread + 1);
        if (!slot) { ok = false; break; }
        if (*slot == TC_NONE) *slot = (uint32_t)nt++;
        tix[i] = *slot;
    }
    run = ok ? calloc(nt + 1, sizeof *run) : NULL;
    pos = ok ? calloc(nt + 1, sizeof *pos) : NULL; /* first the synchronizing calls of each thread */
    if (!run || !pos) ok = false;
    size_t main = SIZE_MAX;
    if (ok) {
        for (size_t i = 0; i < nl; i++) {
            run[tix[i] + 1]++;
            uint32_t nm_id = t->launches[i].name;
            pos[tix[i]] += nm_id != TC_NONE && tc_sg_is_sync_class(cls[nm_id]);
        }
        for (size_t k = 0; k < nt; k++) {
            if (main == SIZE_MAX || pos[k] > pos[main] || (pos[k] == pos[main] && run[k + 1] > run[main + 1])) main = k;
            run[k + 1] += run[k];
        }
        for (size_t k = 0; k <= nt; k++) run[k] += main != SIZE_MAX && k > main ? nm : 0; /* room for the marks */
        for (size_t k = 0; k < nt; k++) pos[k] = run[k] + (k == main ? nm : 0);       /* after them, at first */
        for (size_t i = 0; i < nl; i++) {
            const tc_launch *l = &t->launches[i];
            it[pos[tix[i]]++] = (tc_sg_host_item){l->thread, (uint32_t)i, l->ts_ns, l->ts_ns + l->dur_ns, 0, 0};
        }
        uint32_t th = main == SIZE_MAX ? TC_NONE : it[run[main] + nm].thread;
        for (size_t k = 0; k < n_cpu; k++) {
            const tc_step_events *s = &steps->steps[k];
            mk[2 * k] = (tc_sg_host_item){th, TC_NONE, s->cpu_start_ns, s->cpu_start_ns, (uint32_t)(1 + 2 * k), 0};
            mk[2 * k + 1] = (tc_sg_host_item){th, TC_NONE, s->cpu_end_ns, s->cpu_end_ns, (uint32_t)(2 + 2 * k), 0};
        }
        tc_sort(mk, nm, sizeof *mk, tc_sg_cmp_host_item);
        for (size_t k = 0; k < nt; k++) {
            size_t from = run[k] + (k == main ? nm : 0), len = run[k + 1] - from, x = 0, y = 0, w = run[k];
            tc_sort(it + from, len, sizeof *it, tc_sg_cmp_host_item);
            if (k != main) continue;
            while (x < len || y < nm) { /* the marks merged in, forward: the write never passes the read */
                const tc_sg_host_item *c = &it[from + x];
                it[w++] = y == nm || (x < len && tc_sg_cmp_host_item(c, &mk[y]) <= 0) ? it[from + x++] : mk[y++];
            }
        }
        if (main == SIZE_MAX) memcpy(it, mk, nm * sizeof *mk);
    }
    free(mk); free(tix); free(run); free(pos); free(m.key); free(m.last);
    if (!ok) { free(it); return NULL; }
    *n_out = main == SIZE_MAX ? nm : nl + nm;
    return it;
}
