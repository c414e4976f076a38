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

typedef struct { int64_t number; size_t at; } span_key;

static int cmp_span_key(const void *a, const void *b) {
    const span_key *x = a, *y = b;
    if (x->number != y->number) return x->number < y->number ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

int tc_steps_occurrence(const tc_step_span *s, size_t n, size_t *occ) {
    span_key *k = malloc((n ? n : 1) * sizeof *k);
    if (!k) return -1;
    for (size_t i = 0; i < n; i++) k[i] = (span_key){s[i].number, i};
    tc_sort(k, n, sizeof *k, cmp_span_key);
    for (size_t i = 0; i < n; i++) occ[k[i].at] = i > 0 && k[i - 1].number == k[i].number ? occ[k[i - 1].at] + 1 : 0;
    free(k);
    return 0;
}

/* The steps of the spans: one per CPU span; a GPU span joins the CPU step of the same number and
 * occurrence (the k-th GPU ProfilerStep#N goes with the k-th CPU one), else is a step of its own.
 * cpu_step[i], gpu_step[i]: the step index of each span. 0, or -1 out of memory. */
static int make_steps(const tc_trace *t, tc_step_map *m, size_t *cpu_step, size_t *gpu_step, uint64_t *repeated) {
    size_t nc = t->n_cpu_steps, ng = t->n_gpu_steps, cap = 0;
    size_t *cpu_occ = malloc((nc ? nc : 1) * sizeof *cpu_occ), *gpu_occ = malloc((ng ? ng : 1) * sizeof *gpu_occ);
    span_key *by_number = malloc((nc ? nc : 1) * sizeof *by_number); /* CPU spans by (number, occurrence) */
    int rc = -1;
    if (!cpu_occ || !gpu_occ || !by_number || tc_steps_occurrence(t->cpu_steps, nc, cpu_occ) ||
        tc_steps_occurrence(t->gpu_steps, ng, gpu_occ))
        goto out;
    for (size_t i = 0; i < nc; i++) {
        const tc_step_span *sp = &t->cpu_steps[i];
        tc_step_events s;
        memset(&s, 0, sizeof s);
        s.number = sp->number;
        s.step_time_ns = sp->dur_ns;
        s.cpu_start_ns = sp->start_ns;
        s.cpu_end_ns = sp->start_ns + sp->dur_ns;
        s.span_start_ns = s.cpu_start_ns;
        s.span_end_ns = s.cpu_end_ns;
        if (TC_PUSH(m->steps, m->n_steps, cap, s)) goto out;
        cpu_step[i] = m->n_steps - 1;
        by_number[i] = (span_key){sp->number, i};
        *repeated += cpu_occ[i] > 0;
    }
    tc_sort(by_number, nc, sizeof *by_number, cmp_span_key); /* within a number: occurrence order */
    for (size_t i = 0; i < ng; i++) {
        const tc_step_span *sp = &t->gpu_steps[i];
        size_t lo = 0, hi = nc; /* the first CPU span with this number */
        while (lo < hi) { size_t mid = lo + (hi - lo) / 2; if (by_number[mid].number < sp->number) lo = mid + 1; else hi = mid; }
        size_t at = lo + gpu_occ[i];
        if (at < nc && by_number[at].number == sp->number) { gpu_step[i] = cpu_step[by_number[at].at]; continue; }
        tc_step_events s;
        memset(&s, 0, sizeof s);
        s.number = sp->number;
        s.step_time_ns = sp->dur_ns;
        s.cpu_start_ns = s.cpu_end_ns = sp->start_ns;
        s.span_start_ns = sp->start_ns;
        s.span_end_ns = sp->start_ns + sp->dur_ns;
        if (TC_PUSH(m->steps, m->n_steps, cap, s)) goto out;
        gpu_step[i] = m->n_steps - 1;
        if (!nc) *repeated += gpu_occ[i] > 0;
    }
    rc = 0;
out:
    free(cpu_occ);
    free(gpu_occ);
    free(by_number);
    return rc;
}

int tc_steps_assign(tc_trace *t, tc_step_map *out) {
    memset(out, 0, sizeof *out);
    if (t->n_cpu_steps == 0 && t->n_gpu_steps == 0) return 0;
    tc_trace_sort_launches(t);
    tc_sort(t->cpu_steps, t->n_cpu_steps, sizeof *t->cpu_steps, cmp_span);
    tc_sort(t->gpu_steps, t->n_gpu_steps, sizeof *t->gpu_steps, cmp_span);
    size_t *cpu_step = malloc((t->n_cpu_steps ? t->n_cpu_steps : 1) * sizeof *cpu_step);
    size_t *gpu_step = malloc((t->n_gpu_steps ? t->n_gpu_steps : 1) * sizeof *gpu_step);
    int rc = -1;
    if (!cpu_step || !gpu_step || make_steps(t, out, cpu_step, gpu_step, &out->repeated)) goto out;
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        long span = -1;
        size_t k = SIZE_MAX;
        if (g->correlation != TC_NONE && t->n_cpu_steps) {
            const tc_launch *l = tc_trace_find_launch(t, g->correlation);
            if (l) span = find_span(t->cpu_steps, t->n_cpu_steps, l->ts_ns);
            if (span >= 0) k = cpu_step[span];
        }
        if (span < 0 && t->n_gpu_steps) {
            span = find_span(t->gpu_steps, t->n_gpu_steps, g->start_ns);
            if (span >= 0) k = gpu_step[span];
        }
        if (k == SIZE_MAX) { out->unassigned++; continue; }
        tc_step_events *s = &out->steps[k];
        if (TC_PUSH(s->events, s->n_events, s->cap_events, (uint32_t)e)) goto out;
    }
    rc = 0;
out:
    free(cpu_step);
    free(gpu_step);
    return rc;
}

int tc_steps_spans(tc_trace *t, tc_step_map *out) {
    memset(out, 0, sizeof *out);
    if (t->n_cpu_steps == 0 && t->n_gpu_steps == 0) return 0;
    tc_sort(t->cpu_steps, t->n_cpu_steps, sizeof *t->cpu_steps, cmp_span);
    tc_sort(t->gpu_steps, t->n_gpu_steps, sizeof *t->gpu_steps, cmp_span);
    size_t *cpu_step = malloc((t->n_cpu_steps ? t->n_cpu_steps : 1) * sizeof *cpu_step);
    size_t *gpu_step = malloc((t->n_gpu_steps ? t->n_gpu_steps : 1) * sizeof *gpu_step);
    int rc = cpu_step && gpu_step && !make_steps(t, out, cpu_step, gpu_step, &out->repeated) ? 0 : -1;
    free(cpu_step);
    free(gpu_step);
    if (rc) tc_step_map_free(out);
    return rc;
}

void tc_step_map_free(tc_step_map *m) {
    for (size_t i = 0; i < m->n_steps; i++) free(m->steps[i].events);
    free(m->steps);
    memset(m, 0, sizeof *m);
}
