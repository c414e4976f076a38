/* test_op_mix.c: the op view (issue 34: ops[], modules[], op_attribution) held end to end to
 * planted op-mix jobs (bench/tracegen --op-mix: a memory-bound layer norm, compute-bound addmm and
 * mm GEMMs, a launch-bound chain of tiny adds, a repeated silu > mul pair, nn.Module spans, with
 * the mess: host time before each step's first kernel, ranks that end apart, a lost launch call,
 * µs-rounded epoch timestamps, handler file names, clock offsets, gzip, an H200, a straggler whose
 * GEMMs are slower). Every group's
 * count, time, FLOPs, bytes, intensity, rates, class, share of attainable, lost time and
 * launch-bound flag and differing rank, every module's self and total time, and the fusion candidate equal
 * expected.json, whose figures tracegen computes from its own shapes and durations. */
#include "testutil.h"
#include <math.h>
#include <sys/stat.h>

static char *plant(const char *name, const char *flags) {
    static char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/opmix-%s-%d", name, (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --op-mix %s >/dev/null", dir, tu_gen(), dir, flags), 0);
    return dir;
}

static yajl_val analyze(const char *dir) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze -q --no-cost --json - %s 2>/dev/null", tu_bin(), dir);
    cr_assert_eq(rc, 0, "%s", out);
    char err[256];
    yajl_val v = yajl_tree_parse(out, err, sizeof err);
    cr_assert(v, "not JSON: %s", err);
    free(out);
    return v;
}

static yajl_val expected(const char *dir) {
    char p[300];
    snprintf(p, sizeof p, "%s/expected.json", dir);
    yajl_val v = tu_json_file(p);
    cr_assert_not_null(v);
    return v;
}

/* a µs figure written with three decimals on both sides */
static void same_us(yajl_val got, yajl_val want, const char *what) {
    double g = tu_num(got), w = tu_num(want);
    cr_assert(fabs(g - w) < 0.0005, "%s: %.3f, planted %.3f", what, g, w);
}
/* a figure the report writes with 10 significant digits */
static void same_num(yajl_val got, yajl_val want, const char *what) {
    double g = tu_num(got), w = tu_num(want);
    cr_assert(fabs(g - w) <= 1e-9 * fabs(w), "%s: %.12g, planted %.12g", what, g, w);
}

static yajl_val group_of(yajl_val ops, const char *op, const char *shapes) {
    for (size_t i = 0; i < ops->u.array.len; i++) {
        yajl_val g = ops->u.array.values[i];
        if (!strcmp(tu_str(tu_get(g, "op", NULL)), op) && !strcmp(tu_str(tu_get(g, "shapes", NULL)), shapes)) return g;
    }
    cr_assert_fail("no group %s %s", op, shapes);
    return NULL;
}

static void groups_hold(yajl_val res, yajl_val exp) {
    yajl_val got = tu_get(res, "ops", NULL), want = tu_get(exp, "ops", NULL);
    cr_assert(got && YAJL_IS_ARRAY(got));
    cr_assert_eq(got->u.array.len, want->u.array.len, "only the planted groups: the wrappers and aten::t run no kernel");
    static const char *const nums[] = {"flops", "bytes", "intensity", "achieved_tflops", "achieved_tbps",
                                       "share_of_attainable"};
    for (size_t i = 0; i < want->u.array.len; i++) {
        yajl_val w = want->u.array.values[i];
        const char *op = tu_str(tu_get(w, "op", NULL));
        yajl_val g = group_of(got, op, tu_str(tu_get(w, "shapes", NULL)));
        cr_assert_str_eq(tu_str(tu_get(g, "dtype", NULL)), tu_str(tu_get(w, "dtype", NULL)), "%s dtype", op);
        cr_assert_eq(tu_num(tu_get(g, "count", NULL)), tu_num(tu_get(w, "count", NULL)), "%s count", op);
        cr_assert_eq(tu_num(tu_get(g, "kernels", NULL)), tu_num(tu_get(w, "kernels", NULL)), "%s kernels", op);
        same_us(tu_get(g, "gpu_time_us", NULL), tu_get(w, "gpu_time_us", NULL), op);
        same_us(tu_get(g, "median_kernel_us", NULL), tu_get(w, "median_kernel_us", NULL), op);
        for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
            char what[96];
            snprintf(what, sizeof what, "%s %s", op, nums[k]);
            same_num(tu_get(g, nums[k], NULL), tu_get(w, nums[k], NULL), what);
        }
        cr_assert_str_eq(tu_str(tu_get(g, "class", NULL)), tu_str(tu_get(w, "class", NULL)), "%s class", op);
        /* lost_us is whole ns of gpu × (1 − share) */
        double lg = tu_num(tu_get(g, "lost_us", NULL)), lw = tu_num(tu_get(w, "lost_us", NULL));
        cr_assert(fabs(lg - lw) < 0.0015, "%s lost_us %.3f, planted %.3f", op, lg, lw);
        cr_assert_eq(YAJL_IS_TRUE(tu_get(g, "launch_bound", NULL)), YAJL_IS_TRUE(tu_get(w, "launch_bound", NULL)),
                     "%s launch_bound", op);
        yajl_val dg = tu_get(g, "differing_rank", NULL), dw = tu_get(w, "differing_rank", NULL);
        if (YAJL_IS_NULL(dw)) cr_assert(YAJL_IS_NULL(dg), "%s: no differing rank planted", op);
        else cr_assert_eq(tu_num(dg), tu_num(dw), "%s differing_rank", op);
    }
}

static void modules_hold(yajl_val res, yajl_val exp) {
    yajl_val got = tu_get(res, "modules", NULL), want = tu_get(exp, "modules", NULL);
    cr_assert(got && YAJL_IS_ARRAY(got), "a module view");
    cr_assert_eq(got->u.array.len, want->u.array.len);
    double self_sum = 0;
    for (size_t i = 0; i < want->u.array.len; i++) {
        yajl_val w = want->u.array.values[i], wp = tu_get(w, "path", NULL), row = NULL;
        for (size_t k = 0; k < got->u.array.len && !row; k++) {
            yajl_val gp = tu_get(got->u.array.values[k], "path", NULL);
            if (YAJL_IS_NULL(wp) ? YAJL_IS_NULL(gp) : YAJL_IS_STRING(gp) && !strcmp(tu_str(gp), tu_str(wp)))
                row = got->u.array.values[k];
        }
        const char *name = YAJL_IS_NULL(wp) ? "(outside every module)" : tu_str(wp);
        cr_assert(row, "no module row %s", name);
        same_us(tu_get(row, "self_us", NULL), tu_get(w, "self_us", NULL), name);
        same_us(tu_get(row, "total_us", NULL), tu_get(w, "total_us", NULL), name);
        self_sum += tu_num(tu_get(row, "self_us", NULL));
    }
    double compute = tu_num(tu_get(res, "op_attribution", "compute_us", NULL));
    cr_assert(fabs(self_sum - compute) < 0.001 * want->u.array.len, "the module view sums to the compute time");
}

static void attribution_holds(yajl_val res, yajl_val exp) {
    static const char *const keys[] = {"compute_us", "attributed_us", "unattributed_us"};
    for (size_t k = 0; k < 3; k++)
        same_us(tu_get(res, "op_attribution", keys[k], NULL), tu_get(exp, "op_attribution", keys[k], NULL), keys[k]);
    yajl_val got = tu_get(res, "op_attribution", "fusion_candidates", NULL), want = tu_get(exp, "fusion_candidates", NULL);
    cr_assert_eq(got->u.array.len, want->u.array.len, "the planted pair is the only fusion candidate");
    for (size_t i = 0; i < want->u.array.len; i++) {
        yajl_val g = got->u.array.values[i], w = want->u.array.values[i];
        cr_assert_str_eq(tu_str(tu_get(g, "kernels", NULL)), tu_str(tu_get(w, "kernels", NULL)));
        cr_assert_eq(tu_num(tu_get(g, "length", NULL)), tu_num(tu_get(w, "length", NULL)));
        cr_assert_eq(tu_num(tu_get(g, "occurrences", NULL)), tu_num(tu_get(w, "occurrences", NULL)));
        same_us(tu_get(g, "gpu_time_us", NULL), tu_get(w, "gpu_time_us", NULL), "fusion gpu_time_us");
    }
}

static void holds_plant(const char *name, const char *flags) {
    char *dir = plant(name, flags);
    yajl_val exp = expected(dir), res = analyze(dir);
    attribution_holds(res, exp);
    groups_hold(res, exp);
    modules_hold(res, exp);
    yajl_tree_free(res);
    yajl_tree_free(exp);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(op_mix, h100_relative_times, .timeout = 120) { holds_plant("h100", "--ranks 3 --steps 2 --seed 5"); }

Test(op_mix, h200_epoch_handler_names_offsets_gzip, .timeout = 120) {
    holds_plant("h200", "--ranks 4 --steps 3 --seed 9 --gpu 'NVIDIA H200' --time-format epoch --file-names handler "
                        "--clock-offset-us 3000 --jitter-us 500 --gzip");
}

/* a straggler whose GEMMs take 1.7x: the GEMM groups' differing rank, their medians and modules */
Test(op_mix, straggler_gemms_differ, .timeout = 120) {
    holds_plant("strag", "--ranks 5 --steps 2 --seed 11 --straggler 3 --straggler-factor 1.7 --clock-offset-us 800");
}

/* The plant itself has what the brief asks: each class, a launch-bound chain, the lost launch. */
Test(op_mix, the_plant_has_every_kind, .timeout = 60) {
    char *dir = plant("kinds", "--ranks 2 --steps 2");
    yajl_val exp = expected(dir), ops = tu_get(exp, "ops", NULL);
    int compute = 0, memory = 0, launch = 0;
    for (size_t i = 0; i < ops->u.array.len; i++) {
        yajl_val g = ops->u.array.values[i];
        const char *cls = tu_str(tu_get(g, "class", NULL));
        compute += !strcmp(cls, "compute-bound");
        memory += !strcmp(cls, "memory-bound");
        if (YAJL_IS_TRUE(tu_get(g, "launch_bound", NULL))) {
            launch++;
            cr_assert(tu_num(tu_get(g, "median_kernel_us", NULL)) < 10 && tu_num(tu_get(g, "kernels", NULL)) >= 10);
        }
        if (!strcmp(tu_str(tu_get(g, "op", NULL)), "aten::native_layer_norm"))
            cr_assert(tu_num(tu_get(g, "achieved_tbps", NULL)) < 0.5 * tu_num(tu_get(exp, "bandwidth_tbps", NULL)));
    }
    cr_assert(compute >= 2 && memory >= 2 && launch >= 3);
    cr_assert(tu_num(tu_get(exp, "op_attribution", "unattributed_us", NULL)) > 0, "one launch call lost");
    yajl_tree_free(exp);
    /* the ops' args are JSON arrays as PyTorch writes them, not strings */
    char path[300];
    snprintf(path, sizeof path, "%s/rank0.pt.trace.json", dir);
    yajl_val t = tu_json_file(path), ev = tu_get(t, "traceEvents", NULL);
    int seen = 0;
    for (size_t i = 0; ev && i < ev->u.array.len; i++) {
        yajl_val e = ev->u.array.values[i], n = tu_get(e, "name", NULL);
        if (!n || !YAJL_IS_STRING(n) || strcmp(n->u.string, "aten::addmm")) continue;
        yajl_val dims = tu_get(e, "args", "Input Dims", NULL), types = tu_get(e, "args", "Input type", NULL);
        cr_assert(dims && YAJL_IS_ARRAY(dims) && dims->u.array.len == 5 && types && YAJL_IS_ARRAY(types));
        cr_assert(YAJL_IS_ARRAY(tu_get(e, "args", "Concrete Inputs", NULL)));
        seen++;
    }
    cr_assert_eq(seen, 2 * 2, "one addmm per layer and step");
    yajl_tree_free(t);
    /* the same options give the same bytes */
    char *again = NULL;
    cr_assert_eq(tu_sh(NULL, "%s -o '%s-b' --op-mix --ranks 2 --steps 2 >/dev/null", tu_gen(), dir), 0);
    cr_assert_eq(tu_sh(&again, "diff -r '%s' '%s-b'", dir, dir), 0, "%s", again);
    free(again);
    tu_sh(NULL, "rm -rf '%s' '%s-b'", dir, dir);
}
