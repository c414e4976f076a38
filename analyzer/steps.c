/* steps.c: ProfilerStep assignment (see steps.h). Binary searches over sorted launches and spans. */
#include "steps.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static int cmp_span(const void *a, const void *b) {
    const tc_step_span *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return (x->number > y->number) - (x->number < y->number);
}

/* Index of the span (sorted by start) containing ts, or -1. Spans of one thread do not overlap;
 * when several contain ts the latest-starting one wins. */
static long find_span(const tc_step_span *s, size_t n, int64_t ts) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].start_ns <= ts) lo = mid + 1; else hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        if (ts < s[i].start_ns + s[i].dur_ns || (s[i].dur_ns == 0 && ts == s[i].start_ns)) return (long)i;
        if (lo - i > 4) break; /* nested steps are not a thing; do not scan far back */
    }
    return -1;
}

/* Index of step `number`, or -1. *hint (the last index found) is tried first: spans and events
 * mostly come in step order, which keeps this O(1) instead of O(steps) per call. */
static long step_index(const tc_step_map *m, int64_t number, size_t *hint) {
    for (size_t d = 0; d < 2; d++) {
        size_t i = *hint + d;
        if (i < m->n_steps && m->steps[i].number == number) { *hint = i; return (long)i; }
    }
    for (size_t i = 0; i < m->n_steps; i++)
        if (m->steps[i].number == number) { *hint = i; return (long)i; }
    return -1;
}

static int add_step(tc_step_map *m, size_t *cap, size_t *hint, int64_t number, int64_t dur, int64_t start, bool cpu) {
    long k = step_index(m, number, hint);
    if (k >= 0) {
        if (cpu && m->steps[k].cpu_end_ns == m->steps[k].cpu_start_ns) {
            m->steps[k].step_time_ns = dur;
            m->steps[k].cpu_start_ns = start;
            m->steps[k].cpu_end_ns = start + dur;
        }
        return 0;
    }
    tc_step_events s;
    memset(&s, 0, sizeof s);
    s.number = number;
    s.step_time_ns = dur;
    s.cpu_start_ns = s.cpu_end_ns = start;
    if (cpu) s.cpu_end_ns = start + dur;
    return TC_PUSH(m->steps, m->n_steps, *cap, s);
}

int tc_steps_assign(tc_trace *t, tc_step_map *out) {
    memset(out, 0, sizeof *out);
    if (t->n_cpu_steps == 0 && t->n_gpu_steps == 0) return 0;
    tc_trace_sort_launches(t);
    tc_sort(t->cpu_steps, t->n_cpu_steps, sizeof *t->cpu_steps, cmp_span);
    tc_sort(t->gpu_steps, t->n_gpu_steps, sizeof *t->gpu_steps, cmp_span);
    size_t cap = 0, hint = 0;
    for (size_t i = 0; i < t->n_cpu_steps; i++)
        if (add_step(out, &cap, &hint, t->cpu_steps[i].number, t->cpu_steps[i].dur_ns, t->cpu_steps[i].start_ns, true)) return -1;
    for (size_t i = 0; i < t->n_gpu_steps; i++)
        if (add_step(out, &cap, &hint, t->gpu_steps[i].number, t->gpu_steps[i].dur_ns, t->gpu_steps[i].start_ns, false)) return -1;
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        long span = -1;
        int64_t number = 0;
        if (g->correlation != TC_NONE && t->n_cpu_steps) {
            const tc_launch *l = tc_trace_find_launch(t, g->correlation);
            if (l) span = find_span(t->cpu_steps, t->n_cpu_steps, l->ts_ns);
            if (span >= 0) number = t->cpu_steps[span].number;
        }
        if (span < 0 && t->n_gpu_steps) {
            span = find_span(t->gpu_steps, t->n_gpu_steps, g->start_ns);
            if (span >= 0) number = t->gpu_steps[span].number;
        }
        long k = span >= 0 ? step_index(out, number, &hint) : -1;
        if (k < 0) { out->unassigned++; continue; }
        tc_step_events *s = &out->steps[k];
        if (TC_PUSH(s->events, s->n_events, s->cap_events, (uint32_t)e)) return -1;
    }
    return 0;
}

void tc_step_map_free(tc_step_map *m) {
    for (size_t i = 0; i < m->n_steps; i++) free(m->steps[i].events);
    free(m->steps);
    memset(m, 0, sizeof *m);
}
