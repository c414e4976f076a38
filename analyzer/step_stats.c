/* step_stats.c: step time min/median/max and the slowest steps (see step_stats.h). Medians are
 * lower medians (the ((n - 1) / 2)-th of the sorted values), so every figure is a step's own. */
#include "step_stats.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

#define CLASSES (TC_STEP_NONE)    /* tc_step_class values that are classes of time */
#define SERIES (CLASSES + TC_IDLE_CAUSES)

/* Series k of step s: the tc_step_class values, then the idle causes. */
static int64_t series(const tc_step_result *st, int k) {
    switch (k) {
    case TC_STEP_COMPUTE: return st->b.compute_ns;
    case TC_STEP_EXPOSED_COMM: return st->b.exposed_comm_ns;
    case TC_STEP_MEMORY: return st->b.memory_exposed_ns;
    case TC_STEP_IDLE: return st->b.idle_ns;
    case TC_STEP_OUTSIDE: return st->step_time_ns - st->b.window_ns;
    default: return st->idle.ns[k - CLASSES];
    }
}

/* The lower median of series k over the steps (v: scratch of n). */
static int64_t series_median(const tc_rank_result *rr, int k, int64_t *v) {
    for (size_t s = 0; s < rr->n_steps; s++) v[s] = k < 0 ? rr->steps[s].step_time_ns : series(&rr->steps[s], k);
    tc_sort_i64(v, rr->n_steps);
    return v[(rr->n_steps - 1) / 2];
}

/* What made step st slow: the class whose time grew most over its median (med[]), and for idle
 * the cause that grew most. */
static void explain(const tc_step_result *st, const int64_t *med, tc_slow_step *out) {
    out->grew = TC_STEP_NONE;
    out->idle_cause = TC_IDLE_CAUSES;
    for (int k = 0; k < CLASSES; k++) {
        int64_t d = series(st, k) - med[k];
        if (d > 0 && (out->grew == TC_STEP_NONE || d > out->grew_ns)) { out->grew = (uint8_t)k; out->grew_ns = d; }
    }
    if (out->grew != TC_STEP_IDLE) return;
    for (int k = 0; k < TC_IDLE_CAUSES; k++) {
        int64_t d = series(st, CLASSES + k) - med[CLASSES + k];
        if (d > 0 && (out->idle_cause == TC_IDLE_CAUSES || d > out->idle_cause_grew_ns)) {
            out->idle_cause = (uint8_t)k;
            out->idle_cause_grew_ns = d;
        }
    }
}

int tc_step_stats_rank(tc_rank_result *rr) {
    tc_step_stats *ss = &rr->step_stats;
    memset(ss, 0, sizeof *ss);
    size_t n = rr->n_steps;
    if (!n) return 0;
    int64_t *v = malloc(n * sizeof *v);
    if (!v) return -1;
    ss->median_ns = series_median(rr, -1, v);
    ss->min_ns = v[0];
    ss->max_ns = v[n - 1];
    int64_t med[SERIES];
    for (int k = 0; k < SERIES; k++) med[k] = series_median(rr, k, v);
    free(v);
    bool taken[TC_SLOW_STEPS] = {false};
    size_t idx[TC_SLOW_STEPS];
    for (size_t k = 0; k < TC_SLOW_STEPS; k++) { /* the slowest above the median, earliest on ties */
        size_t best = SIZE_MAX;
        for (size_t s = 0; s < n; s++) {
            bool used = false;
            for (size_t i = 0; i < k; i++) used |= taken[i] && idx[i] == s;
            if (used || rr->steps[s].step_time_ns <= ss->median_ns) continue;
            if (best == SIZE_MAX || rr->steps[s].step_time_ns > rr->steps[best].step_time_ns) best = s;
        }
        if (best == SIZE_MAX) break;
        taken[k] = true;
        idx[k] = best;
        const tc_step_result *st = &rr->steps[best];
        tc_slow_step *o = &ss->slowest[ss->n_slowest++];
        memset(o, 0, sizeof *o);
        o->number = st->number;
        o->step_time_ns = st->step_time_ns;
        o->over_median_ns = st->step_time_ns - ss->median_ns;
        explain(st, med, o);
    }
    return 0;
}
