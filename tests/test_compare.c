/* test_compare.c: `tracecost compare` (issue 12) on generated pairs: a slow and a fast fabric (the
 * conclusion names the fast side and exposed transfer, with figures equal to each side's analyze
 * JSON), different workloads flagged, saved results comparing exactly as the traces, per-side
 * prices, usage errors and the HTML report's escaping. */
#include "testutil.h"
#include <math.h>

static const char *jstr(yajl_val v) {
    cr_assert(v && YAJL_IS_STRING(v), "expected a string");
    return v->u.string;
}

static double num_at(yajl_val doc, const char *a, const char *b, const char *c) {
    return tu_num(tu_get(doc, a, b, c, NULL));
}

/* Generates a 4-rank job into DIR/NAME with extra tracegen flags. */
static void gen(const char *dir, const char *name, const char *flags) {
    int rc = tu_sh(NULL, "%s -o %s/%s --seed 1 --overlap 0 %s", tu_gen(), dir, name, flags);
    cr_assert_eq(rc, 0, "tracegen %s failed", flags);
}

static yajl_val analyze(const char *dir, const char *name) {
    char out[512];
    snprintf(out, sizeof out, "%s/%s.json", dir, name);
    cr_assert_eq(tu_sh(NULL, "%s analyze -q --price-per-gpu-hour 2 --json %s %s/%s", tu_bin(), out, dir, name), 0);
    return tu_json_file(out);
}

static yajl_val compare(const char *dir, const char *out, const char *args) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, out);
    int rc = tu_sh(NULL, "%s compare -q --json %s %s", tu_bin(), path, args);
    cr_assert_eq(rc, 0, "compare %s: exit %d", args, rc);
    return tu_json_file(path);
}

Test(compare, fast_fabric_is_cheaper_because_of_exposed_transfer, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "slow", "--busbw-GBps 5");
    gen(dir, "fast", "--busbw-GBps 50");
    yajl_val ja = analyze(dir, "slow"), jb = analyze(dir, "fast");
    char args[1024];
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/slow %s/fast", dir, dir);
    yajl_val c = compare(dir, "c.json", args);

    cr_assert(YAJL_IS_TRUE(tu_get(c, "same_workload", NULL)));
    cr_assert_str_eq(jstr(tu_get(c, "cheaper", NULL)), "B");
    cr_assert_str_eq(jstr(tu_get(c, "reason", NULL)), "exposed_transfer");
    /* figures are exactly those of each side's analyze JSON */
    double sa = num_at(ja, "summary", "step_time_us", NULL), sb = num_at(jb, "summary", "step_time_us", NULL);
    cr_assert_eq(num_at(c, "metrics", "step_time_us", "a"), sa);
    cr_assert_eq(num_at(c, "metrics", "step_time_us", "b"), sb);
    double ta = tu_num(tu_get(ja, "summary", "shares", "exposed_transfer", NULL));
    double tb = tu_num(tu_get(jb, "summary", "shares", "exposed_transfer", NULL));
    cr_assert_eq(num_at(c, "metrics", "share_exposed_transfer", "a"), ta);
    cr_assert_eq(num_at(c, "metrics", "share_exposed_transfer", "b"), tb);
    cr_assert_eq(num_at(c, "metrics", "fabric_busbw_GBps", "a"), 5);
    cr_assert_eq(num_at(c, "metrics", "fabric_busbw_GBps", "b"), 50);
    /* cost per step = P x N x step s / 3600, P = 2, N = 4 */
    double ca = 2 * 4 * sa / 1e6 / 3600, cb = 2 * 4 * sb / 1e6 / 3600;
    cr_assert(fabs(num_at(c, "metrics", "cost_per_step", "a") / ca - 1) < 1e-9);
    cr_assert(fabs(num_at(c, "metrics", "cost_per_step", "b") / cb - 1) < 1e-9);
    double pct = (ca - cb) / ca * 100;
    cr_assert(fabs(tu_num(tu_get(c, "cheaper_pct", NULL)) - pct) < 1e-6);
    /* cost per effective GPU-hour = P / (1 - exposed transfer share) */
    cr_assert(fabs(num_at(c, "metrics", "cost_per_effective_gpu_hour", "a") - 2 / (1 - ta)) < 1e-6);
    /* monthly difference at the default volume: A's month, 730 h x 3600 / step */
    double w = 730.0 * 3600 / (sa / 1e6);
    cr_assert(fabs(tu_num(tu_get(c, "work_steps_per_month", NULL)) / w - 1) < 1e-9);
    cr_assert(fabs(tu_num(tu_get(c, "monthly_difference", NULL)) / (w * (cb - ca)) - 1) < 1e-6);
    /* the conclusion's sentence with those figures */
    char want[256];
    snprintf(want, sizeof want, "B is %.1f%% cheaper per step: its exposed transfer share is %.1f%% against %.1f%%",
             pct, tb * 100, ta * 100);
    const char *concl = jstr(tu_get(c, "conclusion", NULL));
    cr_assert(strstr(concl, want), "conclusion '%s' lacks '%s'", concl, want);
    /* the collective got faster, 10x */
    cr_assert_str_eq(jstr(tu_get(c, "collectives", "#0", "change", NULL)), "faster");
    cr_assert(fabs(tu_num(tu_get(c, "collectives", "#0", "busbw_GBps", "ratio", NULL)) - 10) < 1e-6);

    /* swapped, A is the cheaper one */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/fast %s/slow", dir, dir);
    yajl_val s = compare(dir, "s.json", args);
    cr_assert_str_eq(jstr(tu_get(s, "cheaper", NULL)), "A");
    cr_assert(strstr(jstr(tu_get(s, "conclusion", NULL)), "A is "));

    /* the terminal text says the same */
    char *out = NULL;
    snprintf(args, sizeof args, "%s compare --price-per-gpu-hour 2 %s/slow %s/fast 2>/dev/null", tu_bin(), dir, dir);
    cr_assert_eq(tu_sh(&out, "%s", args), 0);
    cr_assert(strstr(out, "Conclusion: B is "), "%s", out);
    cr_assert(!strstr(out, "NOT THE SAME WORKLOAD"));
    free(out);
    yajl_tree_free(ja); yajl_tree_free(jb); yajl_tree_free(c); yajl_tree_free(s);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* every metric and the conclusion are identical from traces and from the saved results */
Test(compare, saved_results_compare_like_traces, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "slow", "--busbw-GBps 5");
    gen(dir, "fast", "--busbw-GBps 50 --straggler 2");
    yajl_tree_free(analyze(dir, "slow"));
    yajl_tree_free(analyze(dir, "fast"));
    char args[1024];
    snprintf(args, sizeof args, "%s/slow %s/fast", dir, dir);
    yajl_val t = compare(dir, "t.json", args);
    /* saved with --price-per-gpu-hour 2: the saved price carries over, so pass it for the traces */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/slow %s/fast", dir, dir);
    yajl_tree_free(t);
    t = compare(dir, "t.json", args);
    snprintf(args, sizeof args, "%s/slow.json %s/fast.json", dir, dir);
    yajl_val j = compare(dir, "j.json", args);
    cr_assert_str_eq(jstr(tu_get(j, "a", "source", NULL)), "saved result");
    cr_assert_str_eq(jstr(tu_get(t, "a", "source", NULL)), "traces");
    yajl_val mt = tu_get(t, "metrics", NULL), mj = tu_get(j, "metrics", NULL);
    cr_assert(mt && YAJL_IS_OBJECT(mt) && mt->u.object.len > 10);
    for (size_t i = 0; i < mt->u.object.len; i++) {
        const char *k = mt->u.object.keys[i];
        for (const char *const *side = (const char *const[]){"a", "b", "diff", "ratio", NULL}; *side; side++) {
            yajl_val x = tu_get(mt, k, *side, NULL), y = tu_get(mj, k, *side, NULL);
            if (!x) continue;
            if (YAJL_IS_NUMBER(x)) cr_assert(y && YAJL_IS_NUMBER(y) && YAJL_GET_DOUBLE(x) == YAJL_GET_DOUBLE(y), "%s.%s differs", k, *side);
            else if (YAJL_IS_STRING(x)) cr_assert_str_eq(jstr(x), jstr(y));
            else cr_assert(y && x->type == y->type, "%s.%s differs", k, *side);
        }
    }
    cr_assert_str_eq(jstr(tu_get(t, "conclusion", NULL)), jstr(tu_get(j, "conclusion", NULL)));
    cr_assert_eq(tu_num(tu_get(t, "monthly_difference", NULL)), tu_num(tu_get(j, "monthly_difference", NULL)));
    cr_assert_eq(tu_num(tu_get(j, "metrics", "straggler_rank", "b", NULL)), 2);
    /* a trace folder against a saved result works too */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/slow %s/fast.json", dir, dir);
    yajl_val m = compare(dir, "m.json", args);
    cr_assert_str_eq(jstr(tu_get(t, "conclusion", NULL)), jstr(tu_get(m, "conclusion", NULL)));
    yajl_tree_free(t); yajl_tree_free(j); yajl_tree_free(m);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(compare, different_workloads_are_flagged, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "a", "");
    gen(dir, "b", "--bucket-mib 10");
    gen(dir, "c", "--ranks 8");
    char args[1024];
    snprintf(args, sizeof args, "%s/a %s/b", dir, dir);
    yajl_val c = compare(dir, "ab.json", args);
    cr_assert(YAJL_IS_FALSE(tu_get(c, "same_workload", NULL)));
    yajl_val d = tu_get(c, "workload_differences", NULL);
    cr_assert(d && YAJL_IS_ARRAY(d) && d->u.array.len == 2, "want only-in-A and only-in-B rows");
    cr_assert(strstr(jstr(d->u.array.values[0]), "only in A"));
    cr_assert(strstr(jstr(tu_get(c, "conclusion", NULL)), "not the same workload"));
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s compare %s 2>/dev/null", tu_bin(), args), 0);
    cr_assert(!strncmp(out, "NOT THE SAME WORKLOAD", 21), "first line: %.80s", out);
    free(out);
    /* the same job compared with itself is the same workload */
    snprintf(args, sizeof args, "%s/a %s/a", dir, dir);
    yajl_val s = compare(dir, "aa.json", args);
    cr_assert(YAJL_IS_TRUE(tu_get(s, "same_workload", NULL)));
    cr_assert_str_eq(jstr(tu_get(s, "cheaper", NULL)), "same");
    /* different sizes */
    snprintf(args, sizeof args, "%s/a %s/c", dir, dir);
    yajl_val z = compare(dir, "ac.json", args);
    cr_assert(YAJL_IS_FALSE(tu_get(z, "same_workload", NULL)));
    cr_assert(strstr(jstr(tu_get(z, "workload_differences", "#0", NULL)), "A runs on 4 GPUs, B on 8"));
    cr_assert_eq(num_at(z, "metrics", "gpus", "b"), 8);
    yajl_tree_free(c); yajl_tree_free(s); yajl_tree_free(z);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(compare, b_flags_override_and_inherit, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "a", "");
    char args[1024];
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 --utilization 0.5 --b-price-per-gpu-hour=1 %s/a %s/a", dir, dir);
    yajl_val c = compare(dir, "c.json", args);
    cr_assert_eq(num_at(c, "metrics", "price_per_gpu_hour", "a"), 2);
    cr_assert_eq(num_at(c, "metrics", "price_per_gpu_hour", "b"), 1);
    cr_assert_eq(tu_num(tu_get(c, "b", "cost", "inputs", "utilization", "value", NULL)), 0.5); /* inherited */
    cr_assert_str_eq(jstr(tu_get(c, "cheaper", NULL)), "B");
    cr_assert_str_eq(jstr(tu_get(c, "reason", NULL)), "gpu_price");
    cr_assert(strstr(jstr(tu_get(c, "conclusion", NULL)), "B is 50.0% cheaper per step: its GPUs cost $1.00 per GPU-hour against $2.00"));
    /* --work-steps-per-month W: monthly difference = W x (cost per step B - A) */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 --b-price-per-gpu-hour 1 --work-steps-per-month 1e6 %s/a %s/a", dir, dir);
    yajl_val w = compare(dir, "w.json", args);
    double d = num_at(w, "metrics", "cost_per_step", "b") - num_at(w, "metrics", "cost_per_step", "a");
    cr_assert(fabs(tu_num(tu_get(w, "monthly_difference", NULL)) / (1e6 * d) - 1) < 1e-9);
    cr_assert_str_eq(jstr(tu_get(w, "work_steps_per_month_source", NULL)), "flag");
    yajl_tree_free(c); yajl_tree_free(w);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(compare, usage_errors) {
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s compare only-one", tu_bin()), 1);
    cr_assert(strstr(out, "need two runs"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare --price-per-gpu-huor 2 a b", tu_bin()), 1);
    cr_assert(strstr(out, "did you mean --price-per-gpu-hour"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare --b-pue 0.5 a b", tu_bin()), 1);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare --help", tu_bin()), 0);
    cr_assert(strstr(out, "--b-FLAG"));
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare /nonexistent/x /nonexistent/y", tu_bin()), 2);
    free(out);
}

Test(compare, html_report_escapes_labels, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "'a<b>&c'", "");
    char args[1024], html[512];
    snprintf(html, sizeof html, "%s/r.html", dir);
    snprintf(args, sizeof args, "%s compare -q --html %s \"%s/a<b>&c\" \"%s/a<b>&c\" 2>/dev/null", tu_bin(), html, dir, dir);
    cr_assert_eq(tu_sh(NULL, "%s", args), 0);
    char *page = NULL;
    cr_assert_eq(tu_sh(&page, "cat %s", html), 0);
    cr_assert(!strncmp(page, "<!DOCTYPE html>", 15));
    cr_assert(strstr(page, "a&lt;b&gt;&amp;c"));
    cr_assert(!strstr(page, "a<b>"));
    cr_assert(strstr(page, "cost per step"));
    cr_assert(strstr(page, "</html>"));
    free(page);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
