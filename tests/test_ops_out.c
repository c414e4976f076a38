/* test_ops_out.c: the outputs of issue 34 from a hand-filled tc_op_result (tc_job.ops as
 * analyzer/op_groups.c leaves it): a compute-bound job's actions from the op evidence
 * (analyzer/findings.c op_actions: the group losing most against its roofline with its family's
 * advice, then the launch-bound groups or the top fusion candidate, each from 5% of compute time;
 * the generic actions without the evidence), summary.actions[] as data, the terminal's top list of
 * op groups and modules, ops.csv and modules.csv, and the HTML roofline chart and module table. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>
#include "analyzer/findings.h"
#include "reports/actions_json.h"
#include "reports/findings_text.h"
#include "testutil.h"

#define MS 1000000 /* ns */

static tc_op_group *add_group(tc_op_result *o, const char *op, const char *shapes, tc_op_family fam, int64_t gpu_ns,
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
static void fill_ops(tc_op_result *o) {
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
static void make_job(tc_job *j) {
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

static const char *action(const tc_job *j, size_t i, char *buf) {
    cr_assert_lt(i, j->findings.n_actions);
    return tc_action_text(buf, TC_FINDING_TEXT, &j->findings.actions[i], j);
}

static const tc_analyze_options opt = {0};

Test(ops_actions, the_op_evidence_leads_a_compute_bound_job) {
    tc_job j;
    char buf[TC_FINDING_TEXT];
    make_job(&j);
    fill_ops(&j.ops);
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_COMPUTE);
    cr_assert_eq(j.findings.n_actions, 3);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_FUSE_NORM);
    cr_assert_eq(j.findings.actions[0].op, 0);
    cr_assert_eq(j.findings.actions[0].lost_ns, 12420000);
    cr_assert_str_eq(action(&j, 0, buf),
                     "aten::layer_norm [[8, 512, 4096], [4096], [4096]] runs at 31% of the memory roofline over 18% of "
                     "compute time (12.420 ms lost against it): a fused norm kernel (a fused LayerNorm / RMSNorm such as "
                     "Apex's or a Triton one, or torch.compile) reads its input once.");
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_LAUNCH_BOUND_OPS);
    cr_assert_eq(j.findings.actions[1].count, 1);
    cr_assert_str_eq(action(&j, 1, buf),
                     "1 op group is launch-bound (median kernel under 10 µs, 10 launches or more), 8% of compute time, "
                     "most aten::add [[256], [256]]: CUDA graphs (torch.compile mode=\"reduce-overhead\") or fusion "
                     "(torch.compile) for these launch-bound chains.");
    cr_assert_eq(j.findings.actions[2].code, TC_ACTION_MFU_GAP); /* the generic kernel-work action is replaced */
    tc_job_free(&j);
}

Test(ops_actions, advice_by_family_and_the_fusion_candidate) {
    static const struct { tc_op_family fam; tc_action_code code; const char *tail; } cases[] = {
        {TC_OPF_SOFTMAX, TC_ACTION_FUSE_NORM, "a fused softmax kernel"},
        {TC_OPF_GEMM, TC_ACTION_GEMM_SHAPES, "larger or fused GEMMs"},
        {TC_OPF_BMM, TC_ACTION_GEMM_SHAPES, "larger or fused GEMMs"},
        {TC_OPF_CONV, TC_ACTION_GEMM_SHAPES, "larger or fused GEMMs"},
        {TC_OPF_ATTENTION, TC_ACTION_ATTENTION_KERNEL, "a flash or fused attention kernel"},
        {TC_OPF_ELEMENTWISE, TC_ACTION_FUSE_MEMORY_OPS, "fuse it with its neighbours"},
        {TC_OPF_COPY, TC_ACTION_FUSE_MEMORY_OPS, "fuse it with its neighbours"},
    };
    char buf[TC_FINDING_TEXT];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tc_job j;
        make_job(&j);
        fill_ops(&j.ops);
        j.ops.groups[0].family = (uint8_t)cases[c].fam;
        j.ops.groups[2].launch_bound = false; /* then the fusion candidate, 5 ms = 5%: given */
        cr_assert_eq(tc_job_findings(&j, &opt), 0);
        cr_assert_eq(j.findings.n_actions, 3);
        cr_expect_eq(j.findings.actions[0].code, cases[c].code, "family %d", cases[c].fam);
        cr_expect(strstr(action(&j, 0, buf), cases[c].tail), "%s", buf);
        cr_assert_eq(j.findings.actions[1].code, TC_ACTION_FUSE_SEQUENCE);
        cr_expect_str_eq(action(&j, 1, buf),
                         "Fuse the kernel sequence vectorized_elementwise_kernel > reduce_kernel > elementwise_kernel "
                         "(3 kernels back to back, 500 times, 5% of compute time): torch.compile or one custom (Triton) "
                         "kernel runs it as one launch that reads its data once.");
        tc_job_free(&j);
    }
}

Test(ops_actions, without_enough_evidence_the_generic_actions_stay) {
    tc_job j;
    make_job(&j); /* no ops at all */
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.findings.n_actions, 2);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_KERNEL_WORK);
    tc_job_free(&j);
    make_job(&j); /* every loss under 5% of compute time: 4.99 ms of 100 */
    fill_ops(&j.ops);
    for (size_t g = 0; g < j.ops.n_groups; g++) { j.ops.groups[g].lost_ns = 4990000; j.ops.groups[g].launch_bound = false; }
    j.ops.fusions[0].gpu_ns = 4990000;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.findings.n_actions, 2);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_KERNEL_WORK);
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_MFU_GAP);
    tc_job_free(&j);
    make_job(&j); /* another verdict: the op evidence does not speak */
    fill_ops(&j.ops);
    j.summary.share_idle = 0.4;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_HOST);
    for (size_t i = 0; i < j.findings.n_actions; i++) cr_expect_lt(j.findings.actions[i].code, TC_ACTION_FUSE_NORM);
    tc_job_free(&j);
}

/* summary.actions[] of the job, parsed. */
static yajl_val actions_json(const tc_job *j) {
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    cr_assert(f);
    jw w;
    jw_init(&w, f, false);
    jw_object_begin(&w);
    tc_actions_json(&w, j);
    jw_object_end(&w);
    cr_assert_eq(jw_finish(&w), 0);
    fclose(f);
    char err[256];
    yajl_val v = yajl_tree_parse(mem, err, sizeof err);
    cr_assert_not_null(v, "%s: %s", err, mem);
    free(mem);
    const char *path[] = {"actions", NULL};
    yajl_val a = yajl_tree_get(v, path, yajl_t_array);
    cr_assert_not_null(a);
    return v;
}

static yajl_val field(yajl_val obj, const char *key) {
    const char *path[] = {key, NULL};
    return yajl_tree_get(obj, path, yajl_t_any);
}

Test(ops_actions, summary_actions_as_data) {
    tc_job j;
    char buf[TC_FINDING_TEXT];
    make_job(&j);
    fill_ops(&j.ops);
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    yajl_val root = actions_json(&j);
    yajl_val arr = field(root, "actions");
    cr_assert_eq(arr->u.array.len, 3);
    yajl_val a0 = arr->u.array.values[0], a1 = arr->u.array.values[1], a2 = arr->u.array.values[2];
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "code")), "fuse_norm");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "text")), action(&j, 0, buf));
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "op")), "aten::layer_norm");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "shapes")), "[[8, 512, 4096], [4096], [4096]]");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "family")), "norm");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "class")), "memory-bound");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a0, "share_of_attainable")), 0.31, 1e-9);
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a0, "share_of_compute")), 0.18, 1e-9);
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a0, "lost_us")), 12420, 1e-9);
    cr_expect_str_eq(YAJL_GET_STRING(field(a1, "code")), "launch_bound_ops");
    cr_expect_eq(YAJL_GET_INTEGER(field(a1, "groups")), 1);
    cr_expect_str_eq(YAJL_GET_STRING(field(a1, "op")), "aten::add");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a1, "share_of_compute")), 0.08, 1e-9);
    cr_expect_str_eq(YAJL_GET_STRING(field(a2, "code")), "mfu_gap");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a2, "mfu")), 0.412, 1e-9);
    yajl_tree_free(root);
    tc_job_free(&j);
}

Test(ops_actions, every_code_has_its_own_key) {
    for (int a = 0; a < TC_ACTION_CODES; a++) {
        const char *k = tc_action_key((tc_action_code)a);
        cr_expect_str_neq(k, "?", "code %d", a);
        for (const char *p = k; *p; p++) cr_expect(*p == '_' || (*p >= 'a' && *p <= 'z'), "%s", k);
        for (int b = 0; b < a; b++) cr_expect_str_neq(k, tc_action_key((tc_action_code)b));
    }
    cr_expect_str_eq(tc_action_key((tc_action_code)TC_ACTION_CODES), "?");
}
