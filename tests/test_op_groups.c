/* test_op_groups.c: kernels to ops, modules and the roofline (analyzer/op_groups.h, issue 34) held
 * to a planted three-rank job: a compute-bound GEMM (slower on rank 2), a memory-bound layer norm,
 * a launch-bound chain of tiny adds, a repeated silu > mul pair (a fusion candidate), nn.Module
 * spans, and the mess (µs timestamps, host time before the first kernel, a kernel whose launch was
 * lost, file names with spaces). Figures come from the JSON report. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "testutil.h"
#include "model/ops.h"
#include "model/gpu_catalog.h"

#define GEMM_US 300   /* per kernel, ranks 0 and 1; rank 2 takes 1.5x */
#define NORM_US 60
#define CALLS 4       /* norm + mm pairs per rank */
#define ADDS 20       /* launch-bound chain per rank, 3 µs kernels 15 µs apart */
#define PAIRS 12      /* silu > mul per rank, 2 µs kernels 1 µs apart */
#define ORPHAN_US 7   /* a kernel without its launch: attributed to nothing */

static const char *MM_DIMS = "[[4096, 4096], [4096, 4096]]";
static const char *LN_DIMS = "[[8, 512, 4096], [], [4096], [4096], []]"; /* input, normalized_shape, weight, bias, eps */

static void op(FILE *f, const char *name, long ts, long dur, const char *dims, const char *types) {
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, \"dur\": %ld, "
            "\"args\": {\"External id\": %ld, \"Input Dims\": %s, \"Input type\": %s}},\n", name, ts, dur, ts, dims, types);
}
static void launch(FILE *f, long ts, long corr) {
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
            "\"ts\": %ld, \"dur\": 4, \"args\": {\"correlation\": %ld}},\n", ts, corr);
}
static void kernel(FILE *f, const char *name, long ts, long dur, long corr) {
    if (corr < 0)
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %ld, \"dur\": %ld, "
                "\"args\": {\"stream\": 7}},\n", name, ts, dur);
    else
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %ld, \"dur\": %ld, "
                "\"args\": {\"correlation\": %ld, \"stream\": 7}},\n", name, ts, dur, corr);
}
static void module(FILE *f, const char *name, long ts, long dur) {
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: %s\", \"pid\": 1, \"tid\": 1, "
            "\"ts\": %ld, \"dur\": %ld, \"args\": {\"Python id\": %ld, \"Python parent id\": 1}},\n", name, ts, dur, ts);
}

static void plant_rank(const char *dir, int rank) {
    char path[600];
    snprintf(path, sizeof path, "%s/rank %d (copy).json", dir, rank);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    long gemm = rank == 2 ? GEMM_US * 3 / 2 : GEMM_US;
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 3}, \"traceEvents\": [\n", rank);
    module(f, "Model_0", 0, 100000);
    module(f, "Layer_0", 10, 39000);
    for (long i = 0; i < CALLS; i++) {
        op(f, "aten::native_layer_norm", 100 + i * 1000, 50, LN_DIMS, "[\"c10::BFloat16\", \"\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]");
        launch(f, 110 + i * 1000, 100 + i);
        kernel(f, "ln_kernel", 5000 + i * 2000, NORM_US, 100 + i);
        op(f, "aten::mm", 600 + i * 1000, 50, MM_DIMS, "[\"c10::BFloat16\", \"c10::BFloat16\"]");
        launch(f, 610 + i * 1000, 200 + i);
        kernel(f, "gemm_kernel", 5100 + i * 2000, gemm, 200 + i);
    }
    module(f, "Layer_1", 40000, 19000);
    for (long i = 0; i < ADDS; i++) {
        op(f, "aten::add", 40010 + i * 100, 20, "[[1024], [1024], []]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]");
        launch(f, 40015 + i * 100, 300 + i);
        kernel(f, "add_kernel", 20000 + i * 15, 3, 300 + i);
    }
    for (long i = 0; i < PAIRS; i++) { /* in Model_0 itself */
        op(f, "aten::silu", 60010 + i * 100, 20, "[[256]]", "[\"c10::BFloat16\"]");
        launch(f, 60015 + i * 100, 400 + i);
        kernel(f, "silu_kernel", 30000 + i * 50, 2, 400 + i);
        op(f, "aten::mul", 60050 + i * 100, 20, "[[256], [256]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]");
        launch(f, 60055 + i * 100, 500 + i);
        kernel(f, "mul_kernel", 30003 + i * 50, 2, 500 + i);
    }
    kernel(f, "orphan_kernel", 40000, ORPHAN_US, -1);
    fprintf(f, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 100000, \"s\": \"t\"}\n]}\n");
    fclose(f);
}

static yajl_val planted(void) {
    char *dir = tu_tmpdir();
    for (int r = 0; r < 3; r++) plant_rank(dir, r);
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze --gpu h100-sxm --json '%s/out.json' '%s/rank 0 (copy).json' '%s/rank 1 (copy).json' "
                   "'%s/rank 2 (copy).json'", tu_bin(), dir, dir, dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char p[600];
    snprintf(p, sizeof p, "%s/out.json", dir);
    yajl_val v = tu_json_file(p);
    cr_assert_not_null(v);
    free(dir);
    return v;
}

/* a and b agree to the 10 significant digits the JSON writes */
static void near(double a, double b) { cr_assert(fabs(a - b) <= 1e-9 * fabs(b) + 1e-12, "%.12g vs %.12g", a, b); }

static yajl_val group_named(yajl_val root, const char *op) {
    yajl_val ops = tu_get(root, "ops", NULL);
    cr_assert(ops && YAJL_IS_ARRAY(ops));
    for (size_t i = 0; i < ops->u.array.len; i++)
        if (strcmp(tu_str(tu_get(ops->u.array.values[i], "op", NULL)), op) == 0) return ops->u.array.values[i];
    cr_assert_fail("no group %s", op);
    return NULL;
}

static double cost_of(const char *name, const char *dims, int n_in, tc_dtype dt, bool bytes) {
    /* the planted per-call cost: the formulas are ops-cost's (tests/test_op_cost.c); here they are
     * summed over the calls the plant made */
    tc_op_shapes s;
    memset(&s, 0, sizeof s);
    (void)dims;
    if (strcmp(name, "aten::mm") == 0) {
        s.n_inputs = 2;
        for (int i = 0; i < 2; i++) { s.in[i].ndims = 2; s.in[i].d[0] = s.in[i].d[1] = 4096; }
    } else {
        s.n_inputs = n_in;
        s.in[0].ndims = 3; s.in[0].d[0] = 8; s.in[0].d[1] = 512; s.in[0].d[2] = 4096;
        s.in[2].ndims = 1; s.in[2].d[0] = 4096;
        s.in[3].ndims = 1; s.in[3].d[0] = 4096;
    }
    s.n_types = s.n_inputs;
    for (int i = 0; i < s.n_inputs; i++)
        snprintf(s.types[i], TC_OP_TEXT, "%s", i == 4 ? "Scalar" : i == 1 && n_in == 5 ? "" : "c10::BFloat16");
    tc_op_cost c;
    tc_op_cost_of(name, strlen(name), &s, &c);
    cr_assert_eq(c.dtype, dt);
    cr_assert(bytes ? c.has_bytes : c.has_flops);
    return bytes ? c.bytes : c.flops;
}

Test(op_groups, gemm_is_compute_bound_at_the_planted_share) {
    yajl_val v = planted();
    yajl_val g = group_named(v, "aten::mm");
    cr_assert_str_eq(tu_str(tu_get(g, "shapes", NULL)), MM_DIMS);
    cr_assert_str_eq(tu_str(tu_get(g, "dtype", NULL)), "bf16");
    cr_assert_eq(tu_num(tu_get(g, "count", NULL)), 3 * CALLS);
    double us = 2 * CALLS * GEMM_US + CALLS * GEMM_US * 3 / 2;
    cr_assert_float_eq(tu_num(tu_get(g, "gpu_time_us", NULL)), us, 1e-9);
    double flops = 2.0 * 4096 * 4096 * 4096 * 3 * CALLS, bytes = 3.0 * 4096 * 4096 * 2 * 3 * CALLS; /* A, B read; C written */
    near(tu_num(tu_get(g, "flops", NULL)), flops);
    near(tu_num(tu_get(g, "bytes", NULL)), bytes);
    near(cost_of("aten::mm", MM_DIMS, 2, TC_DTYPE_BF16, false) * 3 * CALLS, flops);
    cr_assert_str_eq(tu_str(tu_get(g, "class", NULL)), "compute-bound");
    double peak = tc_gpu_peak_flops(tc_gpu_find_by_id("h100-sxm"), TC_DTYPE_BF16, NULL);
    double share = flops / (us * 1e-6) / peak;
    near(tu_num(tu_get(g, "share_of_attainable", NULL)), share);
    cr_assert_float_eq(tu_num(tu_get(g, "lost_us", NULL)), us * (1 - share), 2e-3);
    cr_assert(!YAJL_IS_TRUE(tu_get(g, "launch_bound", NULL)));
    cr_assert_eq(tu_num(tu_get(g, "differing_rank", NULL)), 2); /* its GEMMs run 1.5x as long */
    cr_assert(YAJL_IS_NULL(tu_get(g, "parent", NULL))); /* it runs in no other cpu_op */
    yajl_tree_free(v);
}

Test(op_groups, norm_is_memory_bound_at_the_planted_share) {
    yajl_val v = planted();
    yajl_val g = group_named(v, "aten::native_layer_norm");
    cr_assert_eq(tu_num(tu_get(g, "count", NULL)), 3 * CALLS);
    double us = 3.0 * CALLS * NORM_US;
    cr_assert_float_eq(tu_num(tu_get(g, "gpu_time_us", NULL)), us, 1e-9);
    double bytes = cost_of("aten::native_layer_norm", LN_DIMS, 5, TC_DTYPE_BF16, true) * 3 * CALLS;
    double flops = cost_of("aten::native_layer_norm", LN_DIMS, 5, TC_DTYPE_BF16, false) * 3 * CALLS;
    near(tu_num(tu_get(g, "bytes", NULL)), bytes);
    near(tu_num(tu_get(g, "flops", NULL)), flops);
    cr_assert_str_eq(tu_str(tu_get(g, "class", NULL)), "memory-bound");
    double bw = tc_gpu_find_by_id("h100-sxm")->mem_bandwidth_GBps * 1e9;
    near(tu_num(tu_get(g, "share_of_attainable", NULL)), bytes / (us * 1e-6) / bw);
    cr_assert(YAJL_IS_NULL(tu_get(g, "differing_rank", NULL)));
    yajl_tree_free(v);
}

Test(op_groups, tiny_kernels_are_launch_bound_and_the_pair_a_fusion_candidate) {
    yajl_val v = planted();
    yajl_val add = group_named(v, "aten::add");
    cr_assert_eq(tu_num(tu_get(add, "kernels", NULL)), 3 * ADDS);
    cr_assert_float_eq(tu_num(tu_get(add, "median_kernel_us", NULL)), 3, 1e-9);
    cr_assert(YAJL_IS_TRUE(tu_get(add, "launch_bound", NULL)));
    cr_assert(YAJL_IS_TRUE(tu_get(group_named(v, "aten::silu"), "launch_bound", NULL)));
    yajl_val f = tu_get(v, "op_attribution", "fusion_candidates", NULL);
    cr_assert_eq(f->u.array.len, 1); /* the adds start 12 µs apart: not back to back */
    cr_assert_str_eq(tu_str(tu_get(f, "#0", "kernels", NULL)), "silu_kernel > mul_kernel");
    cr_assert_eq(tu_num(tu_get(f, "#0", "occurrences", NULL)), 3 * PAIRS);
    cr_assert_float_eq(tu_num(tu_get(f, "#0", "gpu_time_us", NULL)), 3 * PAIRS * 4, 1e-9);
    yajl_tree_free(v);
}

Test(op_groups, modules_sum_to_the_compute_time) {
    yajl_val v = planted();
    double compute = tu_num(tu_get(v, "op_attribution", "compute_us", NULL));
    double gemm = 2 * CALLS * GEMM_US + CALLS * GEMM_US * 3 / 2, layer0 = gemm + 3 * CALLS * NORM_US;
    double layer1 = 3 * ADDS * 3, model_self = 3 * PAIRS * 4, orphan = 3 * ORPHAN_US;
    cr_assert_float_eq(compute, layer0 + layer1 + model_self + orphan, 1e-9);
    cr_assert_float_eq(tu_num(tu_get(v, "op_attribution", "unattributed_us", NULL)), orphan, 1e-9);
    cr_assert_str_eq(tu_str(tu_get(v, "op_attribution", "module_source", NULL)), "nn.Module");
    yajl_val m = tu_get(v, "modules", NULL);
    cr_assert(YAJL_IS_ARRAY(m));
    double self_sum = 0;
    int seen = 0;
    for (size_t i = 0; i < m->u.array.len; i++) {
        yajl_val row = m->u.array.values[i];
        const char *p = YAJL_IS_NULL(tu_get(row, "path", NULL)) ? NULL : tu_str(tu_get(row, "path", NULL));
        double self = tu_num(tu_get(row, "self_us", NULL)), total = tu_num(tu_get(row, "total_us", NULL));
        self_sum += self;
        if (!p) { cr_assert_float_eq(self, orphan, 1e-9); seen |= 1; }
        else if (!strcmp(p, "Model_0")) { cr_assert_float_eq(self, model_self, 1e-9); cr_assert_float_eq(total, compute - orphan, 1e-9); seen |= 2; }
        else if (!strcmp(p, "Model_0/Layer_0")) { cr_assert_float_eq(self, layer0, 1e-9); seen |= 4; }
        else if (!strcmp(p, "Model_0/Layer_1")) { cr_assert_float_eq(total, layer1, 1e-9); seen |= 8; }
        else cr_assert_fail("unplanted module %s", p);
    }
    cr_assert_eq(seen, 15);
    cr_assert_float_eq(self_sum, compute, 1e-6);
    yajl_tree_free(v);
}

/* Two aten::_to_copy calls of one (op, shapes, dtype) group that differ only in their Concrete
 * Inputs (the dtype converted to: 15 = bf16, 7 = float64), as PyTorch writes them: each call is
 * priced by its own key, and the group is their sum. Each runs inside an aten::to, its parent. */
Test(op_groups, calls_differing_in_concrete_inputs_have_their_own_cost) {
    char *dir = tu_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/to copy.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "{\"traceEvents\": [\n");
    const char *to[2] = {"15", "7"};
    for (long i = 0; i < 2; i++) {
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::to\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": %ld, \"dur\": 60, \"args\": {\"External id\": %ld}},\n", 995 + i * 100, 10 + i);
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::_to_copy\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": %ld, \"dur\": 40, \"args\": {\"External id\": %ld, \"Input Dims\": [[1024, 1024], [], [], [], [], [], []], "
                "\"Input type\": [\"float\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"], "
                "\"Concrete Inputs\": [\"\", \"%s\", \"\", \"\", \"\", \"False\", \"\"]}},\n", 1000 + i * 100, i + 1, to[i]);
        launch(f, 1010 + i * 100, 10 + i);
        kernel(f, "copy_kernel", 3000 + i * 100, 20, 10 + i);
    }
    fprintf(f, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 9000, \"s\": \"t\"}\n]}\n");
    fclose(f);
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze --gpu h100-sxm --json '%s/out.json' '%s'", tu_bin(), dir, path);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/out.json", dir);
    yajl_val v = tu_json_file(path);
    cr_assert_not_null(v);
    yajl_val g = group_named(v, "aten::_to_copy");
    cr_assert_eq(tu_num(tu_get(g, "count", NULL)), 2);
    cr_assert_str_eq(tu_str(tu_get(g, "dtype", NULL)), "fp32");
    double n = 1024.0 * 1024; /* fp32 read once per call; bf16, then fp64 written */
    near(tu_num(tu_get(g, "bytes", NULL)), (n * 4 + n * 2) + (n * 4 + n * 8));
    cr_assert_str_eq(tu_str(tu_get(g, "parent", NULL)), "aten::to");
    yajl_tree_free(v);
    free(dir);
}

/* No nn.Module events but record_function ranges (user_annotation), inside a ProfilerStep#: the
 * module view's paths are the annotations, nested and joined by '/', the step span not among them. */
Test(op_groups, user_annotations_make_the_module_view_without_nn_modules) {
    char *dir = tu_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/annotated rank.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    const char *ann = "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, \"dur\": %ld, \"args\": {}},\n";
    fprintf(f, "{\"traceEvents\": [\n");
    fprintf(f, ann, "ProfilerStep#3", 900L, 2000L);
    fprintf(f, ann, "train_step", 950L, 1500L);
    fprintf(f, ann, "attn", 990L, 100L);
    op(f, "aten::silu", 1000, 40, "[[256]]", "[\"c10::BFloat16\"]");
    launch(f, 1010, 10);
    kernel(f, "silu_kernel", 3000, 30, 10);
    op(f, "aten::mul", 1200, 40, "[[256], [256]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]");
    launch(f, 1210, 11);
    kernel(f, "mul_kernel", 3100, 20, 11);
    fprintf(f, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 9000, \"s\": \"t\"}\n]}\n");
    fclose(f);
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze --gpu h100-sxm --json '%s/out.json' '%s'", tu_bin(), dir, path);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/out.json", dir);
    yajl_val v = tu_json_file(path);
    cr_assert_not_null(v);
    cr_assert_str_eq(tu_str(tu_get(v, "op_attribution", "module_source", NULL)), "user_annotation");
    yajl_val m = tu_get(v, "modules", NULL);
    cr_assert(m && YAJL_IS_ARRAY(m));
    int seen = 0;
    for (size_t i = 0; i < m->u.array.len; i++) {
        yajl_val row = m->u.array.values[i];
        yajl_val p = tu_get(row, "path", NULL);
        double self = tu_num(tu_get(row, "self_us", NULL)), total = tu_num(tu_get(row, "total_us", NULL));
        if (YAJL_IS_NULL(p)) { cr_assert_float_eq(self, 0, 1e-9); continue; }
        if (!strcmp(tu_str(p), "train_step")) { cr_assert_float_eq(self, 20, 1e-9); cr_assert_float_eq(total, 50, 1e-9); seen |= 1; }
        else if (!strcmp(tu_str(p), "train_step/attn")) { cr_assert_float_eq(self, 30, 1e-9); seen |= 2; }
        else cr_assert_fail("unplanted module %s", tu_str(p));
    }
    cr_assert_eq(seen, 3);
    yajl_tree_free(v);
    free(dir);
}
