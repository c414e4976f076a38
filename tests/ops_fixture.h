/* ops_fixture.h: a hand-filled tc_op_result (tc_job.ops as analyzer/op_groups.c leaves it) on a
 * one-rank compute-bound job, for the tests of the issue-34 outputs (test_ops_out.c) and their
 * HTML layout (test_html_layout.c). */
#ifndef TC_TEST_OPS_FIXTURE_H
#define TC_TEST_OPS_FIXTURE_H
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "model/job.h"

#define MS 1000000 /* ns */

static inline tc_op_group *add_group(tc_op_result *o, const char *op, const char *shapes, tc_op_family fam, int64_t gpu_ns,
                              double share, bool compute_bound) {
    o->groups = realloc(o->groups, (o->n_groups + 1) * sizeof *o->groups);
    cr_assert(o->groups);
    tc_op_group *g = &o->groups[o->n_groups++];
    memset(g, 0, sizeof *g);
    g->op = strdup(op);
    g->shapes = shapes ? strdup(shapes) : NULL;
    g->dtype = TC_DTYPE_BF16;
    g->family = (uint8_t)fam;
    g->count = g->kernels = 100;
    g->gpu_ns = gpu_ns;
    g->median_kernel_ns = gpu_ns / 100;
    g->has_roofline = share > 0;
    g->compute_bound = compute_bound;
    g->share_of_attainable = share;
    g->lost_ns = share > 0 ? (int64_t)((double)gpu_ns * (1 - share) + 0.5) : 0;
    g->differing_rank = -1;
    return g;
}

/* 100 ms of compute: a memory-bound layer norm (18 ms at 31% of its roof: 12.42 ms lost), a
 * compute-bound GEMM (60 ms at 90%: 6 ms), a launch-bound chain of adds (8 ms, 2000 kernels at 4 µs,
 * 20%: 6.4 ms), an op without shapes (4 ms); a fusion candidate of 5 ms; three module rows. */
static inline void fill_ops(tc_op_result *o) {
    memset(o, 0, sizeof *o);
    o->has = true;
    o->compute_ns = 100 * MS;
    o->attributed_ns = 90 * MS;
    o->unknown_shapes_ns = 4 * MS;
    tc_op_group *g = add_group(o, "aten::layer_norm", "[[8, 512, 4096], [4096], [4096]]", TC_OPF_NORM, 18 * MS, 0.31, false);
    g->has_flops = g->has_bytes = true;
    g->flops = 8.0 * 512 * 4096 * 8 * 100;
    g->bytes = 2.0 * 8 * 512 * 4096 * 2 * 100;
    g->intensity = g->flops / g->bytes;
    g->achieved_flops = g->flops / 0.018;
    g->achieved_bytes = g->bytes / 0.018;
    g->attainable = 4.8e12;
    g = add_group(o, "aten::mm", "[[4096, 4096], [4096, 4096]]", TC_OPF_GEMM, 60 * MS, 0.9, true);
    g->has_flops = g->has_bytes = true;
    g->flops = 2.0 * 4096 * 4096 * 4096 * 100;
    g->bytes = 3.0 * 4096 * 4096 * 2 * 100;
    g->intensity = g->flops / g->bytes;
    g->achieved_flops = g->flops / 0.06;
    g->achieved_bytes = g->bytes / 0.06;
    g->attainable = 989e12;
    g->differing_rank = 3;
    g = add_group(o, "aten::add", "[[256], [256]]", TC_OPF_ELEMENTWISE, 8 * MS, 0.2, false);
    g->count = g->kernels = 2000;
    g->median_kernel_ns = 4000;
    g->launch_bound = true;
    g->has_flops = g->has_bytes = true;
    g->flops = 256.0 * 2000;
    g->bytes = 256.0 * 3 * 2 * 2000;
    g->intensity = g->flops / g->bytes;
    g->achieved_flops = g->flops / 0.008;
    g->achieved_bytes = g->bytes / 0.008;
    g->attainable = 3.35e12;
    add_group(o, "aten::custom_thing", NULL, TC_OPF_OTHER, 4 * MS, 0, false);
    o->fusions = calloc(1, sizeof *o->fusions);
    o->fusions[0] = (tc_fusion_row){strdup("vectorized_elementwise_kernel > reduce_kernel > elementwise_kernel"), 3, 500,
                                    5 * MS};
    o->n_fusions = 1;
    o->has_modules = true;
    o->modules = calloc(3, sizeof *o->modules);
    o->modules[0] = (tc_module_row){strdup("Model_0"), 10 * MS, 86 * MS};
    o->modules[1] = (tc_module_row){strdup("Model_0/DecoderLayer_0/LayerNorm_0"), 18 * MS, 18 * MS};
    o->modules[2] = (tc_module_row){NULL, 14 * MS, 14 * MS};
    o->n_modules = 3;
}

/* One rank, 95% compute: compute-bound, MFU 41.2%. */
static inline void make_job(tc_job *j) {
    tc_job_init(j);
    j->traces = calloc(1, sizeof *j->traces);
    j->ranks = calloc(1, sizeof *j->ranks);
    cr_assert(j->traces && j->ranks);
    cr_assert_eq(tc_trace_init(&j->traces[j->n_traces++], "run/rank0.pt.trace.json"), 0);
    tc_rank_result *rr = &j->ranks[j->n_ranks++];
    rr->steps_total = 1;
    rr->b.window_ns = 105 * MS;
    rr->b.compute_ns = 100 * MS;
    tc_summary *sm = &j->summary;
    sm->ranks = 1;
    sm->b = rr->b;
    sm->b.gpu_events = 5000;
    sm->share_compute = 0.95;
    sm->share_idle = 0.05;
    sm->has_mfu = true;
    sm->mfu = 0.412;
}

#endif
