/* par_fill.h: hand-filled issue-33 results for the report tests (test_par_outputs.c,
 * test_html_layout.c): a 3-stage pipeline over two steps and an all-to-all group of n ranks, every
 * figure known. Owned by the job (tc_job_free frees them). */
#ifndef TC_TEST_PAR_FILL_H
#define TC_TEST_PAR_FILL_H
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "model/job.h"

/* One pipeline of 3 stages (ranks 0, 1, 2) over steps 5 and 6; stage 2 is the slowest. Per step
 * the window is 10 ms; stage s: forward (2 + s) ms, backward (3 + s) ms, transfer 1 ms, the bubble
 * the rest, P2P wait 0.5 ms, charged wait 0.25 ms x s. */
static inline void tu_fill_pipeline(tc_job *j) {
    tc_pipeline_result *p = &j->pipeline;
    p->present = true;
    p->source = TC_PP_FROM_PATTERN;
    p->n_stages = 3;
    p->n_pipelines = 1;
    p->stages = calloc(3, sizeof *p->stages);
    p->steps = calloc(6, sizeof *p->steps);
    cr_assert(p->stages && p->steps);
    p->n_stages_rows = p->cap_stages = 3;
    p->n_steps = p->cap_steps = 6;
    for (uint32_t s = 0; s < 3; s++) {
        tc_pp_stage *st = &p->stages[s];
        st->pipeline = 0;
        st->stage = s;
        st->rank = s;
        st->steps_first = 2 * s;
        st->n_steps = 2;
        st->total.step = -1;
        for (size_t k = 0; k < 2; k++) {
            tc_pp_figures *f = &p->steps[2 * s + k];
            f->step = 5 + (int64_t)k;
            f->window_ns = 10000000;
            f->forward_ns = (2 + s) * 1000000;
            f->backward_ns = (3 + s) * 1000000;
            f->p2p_transfer_ns = 1000000;
            f->bubble_ns = f->window_ns - f->forward_ns - f->backward_ns - f->p2p_transfer_ns;
            f->p2p_wait_ns = 500000;
            f->charged_wait_ns = 250000 * s;
            st->total.window_ns += f->window_ns;
            st->total.forward_ns += f->forward_ns;
            st->total.backward_ns += f->backward_ns;
            st->total.p2p_transfer_ns += f->p2p_transfer_ns;
            st->total.bubble_ns += f->bubble_ns;
            st->total.p2p_wait_ns += f->p2p_wait_ns;
            st->total.charged_wait_ns += f->charged_wait_ns;
        }
    }
    p->slowest_stage = 2;
    p->slowest_rank = 2;
    p->pairs = 8;
    p->bubble_share = (8.0 + 6.0 + 4.0) / 60.0;
}

/* One group "pg 3 (ep)" of n ranks (10, 11, ...) with two sized instances; rank position `hot`
 * sends 4x the others; pair (r, k) holds 100 r + k + 1 bytes, the hot row 10x. */
static inline void tu_fill_a2a(tc_job *j, uint32_t n, uint32_t hot) {
    j->inst_groups = calloc(1, sizeof *j->inst_groups);
    cr_assert(j->inst_groups);
    j->inst_groups[0].shown = strdup("pg 3 (ep)");
    j->n_inst_groups = j->cap_inst_groups = 1;
    tc_a2a_result *a = &j->a2a;
    a->groups = calloc(1, sizeof *a->groups);
    a->instances = calloc(2, sizeof *a->instances);
    a->bytes = calloc(2 * (size_t)n, sizeof *a->bytes);
    cr_assert(a->groups && a->instances && a->bytes);
    a->n_groups = a->cap_groups = 1;
    a->n_instances = a->cap_instances = 2;
    a->n_bytes = a->cap_bytes = 2 * (size_t)n;
    tc_a2a_group *g = &a->groups[0];
    g->n_ranks = n;
    g->n = 2;
    g->unsized = 1;
    g->ranks = malloc(n * sizeof *g->ranks);
    g->pair_bytes = malloc((size_t)n * n * sizeof *g->pair_bytes);
    cr_assert(g->ranks && g->pair_bytes);
    for (uint32_t r = 0; r < n; r++) {
        g->ranks[r] = 10 + r;
        for (uint32_t k = 0; k < n; k++) g->pair_bytes[r * n + k] = (100 * r + k + 1) * (r == hot ? 10 : 1);
    }
    for (size_t i = 0; i < 2; i++) {
        tc_a2a_instance *ai = &a->instances[i];
        ai->instance = (uint32_t)i;
        ai->hot = hot;
        ai->seq = 7 + (int64_t)i;
        ai->bytes_at = i * n;
        for (uint32_t r = 0; r < n; r++) a->bytes[i * n + r] = r == hot ? 4000 : 1000;
        ai->ratio = 4.0 * n / (3.0 + n);
        ai->caused_wait_ns = (double)(n - 1) * 0.75 * (i ? 2000000 : 1000000);
    }
    g->hot_rank = 10 + hot;
    g->caused_wait_ns = a->instances[0].caused_wait_ns + a->instances[1].caused_wait_ns;
    g->max_ratio = a->instances[0].ratio;
    g->rank_time_ns = 3000000.0 * n;
}

#endif
