/* test_all_to_all.c: the all-to-all(v) imbalance (issue 33 item 2, docs/definitions.md "All-to-all
 * imbalance") on planted jobs (tracegen --a2a-hot-rank, with the mess of real jobs: end spread,
 * clock offsets, handler file names): the ratio, the hot rank, the caused wait, every instance's
 * bytes and the pair matrix held to expected.json; a job without all-to-all has no all_to_all key. */
#include "testutil.h"
#include <math.h>
#include <sys/stat.h>

static yajl_val analyze(const char *dir) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze -q --json - %s 2>/dev/null", tu_bin(), dir);
    cr_assert_eq(rc, 0, "%s", out);
    char err[256];
    yajl_val v = yajl_tree_parse(out, err, sizeof err);
    cr_assert(v, "not JSON: %s", err);
    free(out);
    return v;
}

static void same_ints(yajl_val got, yajl_val want, const char *what) {
    cr_assert(YAJL_IS_ARRAY(got) && YAJL_IS_ARRAY(want), "%s", what);
    cr_assert_eq(got->u.array.len, want->u.array.len, "%s", what);
    for (size_t i = 0; i < got->u.array.len; i++)
        cr_assert_eq(YAJL_GET_INTEGER(got->u.array.values[i]), YAJL_GET_INTEGER(want->u.array.values[i]), "%s[%zu]", what, i);
}

static void planted(const char *flags) {
    char dir[256], path[300];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/a2a-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' %s >/dev/null", dir, tu_gen(), dir, flags), 0);
    snprintf(path, sizeof path, "%s/expected.json", dir);
    yajl_val doc = tu_json_file(path), want = tu_get(doc, "all_to_all", NULL);
    yajl_val res = analyze(dir);
    yajl_val groups = tu_get(res, "all_to_all", NULL);
    cr_assert(YAJL_IS_ARRAY(groups) && groups->u.array.len == 1, "one group with all-to-all");
    yajl_val g = groups->u.array.values[0];
    cr_assert_str_eq(tu_str(tu_get(g, "process_group", NULL)), "pg 0 (default_pg)");
    cr_assert_eq(tu_num(tu_get(g, "hot_rank", NULL)), tu_num(tu_get(want, "hot_rank", NULL)));
    double w = tu_num(tu_get(want, "caused_wait_us", NULL)), got = tu_num(tu_get(g, "caused_wait_us", NULL));
    cr_assert(fabs(got - w) <= 1e-6 * w, "caused wait %.6f us, planted %.6f", got, w);
    cr_assert_eq(tu_num(tu_get(g, "unsized_instances", NULL)), 0);
    yajl_val inst = tu_get(g, "instances", NULL);
    cr_assert_eq((double)inst->u.array.len, tu_num(tu_get(want, "instances", NULL)));
    double ratio = tu_num(tu_get(want, "imbalance_ratio", NULL)), sum = 0;
    for (size_t i = 0; i < inst->u.array.len; i++) {
        yajl_val in = inst->u.array.values[i];
        cr_assert(fabs(tu_num(tu_get(in, "imbalance_ratio", NULL)) - ratio) < 1e-9, "instance %zu ratio", i);
        cr_assert_eq(tu_num(tu_get(in, "hot_rank", NULL)), tu_num(tu_get(want, "hot_rank", NULL)));
        same_ints(tu_get(in, "bytes_sent", NULL), tu_get(want, "bytes_sent", NULL), "bytes_sent");
        sum += tu_num(tu_get(in, "caused_wait_us", NULL));
    }
    cr_assert(fabs(sum - w) <= 1e-6 * w, "the instances' waits add up to the group's");
    yajl_val pb = tu_get(g, "pair_bytes", NULL), wpb = tu_get(want, "pair_bytes", NULL);
    cr_assert_eq(pb->u.array.len, wpb->u.array.len);
    for (size_t r = 0; r < pb->u.array.len; r++) same_ints(pb->u.array.values[r], wpb->u.array.values[r], "pair_bytes");
    yajl_tree_free(res);
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(all_to_all, planted_hot_rank_ratio_and_caused_wait, .timeout = 120) {
    planted("--ranks 8 --steps 3 --a2a-hot-rank 5 --a2a-factor 5 --clock-offset-us 3000 --end-spread-us 40 "
            "--file-names handler");
}

Test(all_to_all, planted_in_a_plain_classic_job, .timeout = 120) {
    planted("--ranks 4 --steps 2 --a2a-hot-rank 0 --straggler 2");
}

Test(all_to_all, absent_without_all_to_all, .timeout = 120) {
    char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/a2a-none-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --ranks 2 --steps 2 >/dev/null", dir, tu_gen(), dir), 0);
    yajl_val res = analyze(dir);
    cr_assert_null(tu_get(res, "all_to_all", NULL));
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(all_to_all, network_bound_verdict_names_the_imbalance, .timeout = 120) {
    char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/a2a-verdict-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --ranks 4 --steps 3 --a2a-hot-rank 1 --overlap 0 "
                       "--busbw-GBps 10 >/dev/null", dir, tu_gen(), dir), 0);
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze %s 2>/dev/null", tu_bin(), dir), 0);
    tu_unwrap(out);
    /* F = 4 on 4 ranks: caused 3·(1 − 1/4) = 2.25 transfers of 4 ranks' 4: 56.2% */
    cr_assert(strstr(out, "all-to-all imbalance in pg 0 (default_pg): rank 1 sends up to 2.29x the mean bytes, and the "
                          "others' wait for it is 56.2% of the group's all-to-all time"), "%s", out);
    cr_assert(strstr(out, "all-to-all pg 0 (default_pg): 12 instances sized (0 not), bytes sent max/mean up to 2.29; "
                          "hot rank 1 causes"), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* A split list that is not one whole number per rank splits that rank's bytes evenly; the rest hold. */
Test(all_to_all, bad_split_list_splits_evenly, .timeout = 120) {
    char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/a2a-bad-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --ranks 4 --steps 2 --a2a-hot-rank 2 >/dev/null && "
                       "sed -i 's/\"In split size\": \"\\[1, 2, 3, 4\\]\"/\"In split size\": \"[1, oops]\"/' %s/rank0.pt.trace.json",
                       dir, tu_gen(), dir, dir), 0);
    yajl_val res = analyze(dir);
    yajl_val g = tu_get(res, "all_to_all", "#0", NULL);
    cr_assert_not_null(g);
    cr_assert_eq(tu_num(tu_get(g, "hot_rank", NULL)), 2);
    int64_t sent = YAJL_GET_INTEGER(tu_get(g, "instances", "#0", "bytes_sent", "#0", NULL));
    size_t n = tu_get(g, "instances", NULL)->u.array.len;
    for (int k = 0; k < 4; k++) {
        char col[16];
        snprintf(col, sizeof col, "#%d", k);
        cr_assert_eq(YAJL_GET_INTEGER(tu_get(g, "pair_bytes", "#0", col, NULL)), sent / 4 * (int64_t)n, "rank 0 even");
    }
    /* rank 1 keeps its planted split: k + 1 of 10 rows */
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(g, "pair_bytes", "#1", "#3", NULL)), sent / 10 * 4 * (int64_t)n);
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}
