/* test_nccl_alone.c: NCCL Inspector logs without a PyTorch trace (issue 32 item 4, docs/nccl.md
 * "Logs alone"): `tracecost analyze LOGS/` exits 0 with `nccl.communicators[]` and
 * `nccl.stragglers[]`, held to the hand-made logs of tests/data/nccl/alone (their README gives every
 * figure by hand) and to a planted job (tracegen --nccl-inspector --nccl-exec-with-wait
 * --straggler R: its nccl_alone_expected.json), its logs renamed oddly beside a .log that is no
 * Inspector log; a folder with neither traces nor NCCL logs still fails. */
#include "testutil.h"
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#define ALONE "tests/data/nccl/alone"

static yajl_val comm_of(yajl_val doc, const char *id) {
    yajl_val cs = tu_get(doc, "nccl", "communicators", NULL);
    cr_assert(YAJL_IS_ARRAY(cs));
    for (size_t i = 0; i < cs->u.array.len; i++)
        if (!strcmp(tu_str(tu_get(cs->u.array.values[i], "id", NULL)), id)) return cs->u.array.values[i];
    cr_assert_fail("no communicator %s", id);
    return NULL;
}

static void near(double got, double want, const char *what) {
    cr_assert(fabs(got - want) <= 1e-9 * fabs(want), "%s: %.12g, want %.12g", what, got, want);
}

static int64_t num_i(yajl_val v, const char *key) { return (int64_t)tu_num(tu_get(v, key, NULL)); }

Test(nccl_alone, hand_made_logs_give_the_table_and_the_straggler) {
    yajl_val d = tu_analyze_json("--gpu h100-sxm --fabric ib-ndr " ALONE, 0);
    cr_assert(YAJL_IS_NULL(tu_get(d, "summary", NULL)), "no trace: no summary");
    cr_assert(YAJL_IS_NULL(tu_get(d, "cost", NULL)), "no trace: no cost");
    cr_assert_eq(tu_get(d, "inputs", NULL)->u.array.len, 0);
    cr_assert(YAJL_IS_TRUE(tu_get(d, "nccl", "without_trace", NULL)));
    cr_assert_eq(num_i(tu_get(d, "nccl", NULL), "inspector_records"), 19);
    cr_assert_eq(tu_get(d, "nccl", "communicators", NULL)->u.array.len, 2);
    /* 0xa11ce: 2 ranks on gpu-a and gpu-b (no nnodes: between nodes by hostnames), 9 sizes: bins */
    yajl_val a = comm_of(d, "0xa11ce");
    cr_assert_eq(num_i(a, "n_ranks"), 2);
    cr_assert(YAJL_IS_NULL(tu_get(a, "nnodes", NULL)));
    cr_assert_eq(num_i(a, "ranks_seen"), 2);
    cr_assert_eq(num_i(a, "records"), 17);
    cr_assert_eq(num_i(a, "gpu_timed_records"), 16);
    cr_assert_eq(num_i(a, "cpu_timed_records"), 1);
    near(tu_num(tu_get(a, "busbw_GBps", NULL)), 55050240.0 / 8250 / 1e3, "a busbw");
    cr_assert_str_eq(tu_str(tu_get(a, "scope", NULL)), "inter");
    cr_assert_str_eq(tu_str(tu_get(a, "scope_from", NULL)), "hostnames");
    cr_assert_str_eq(tu_str(tu_get(a, "link", "id", NULL)), "ib-ndr");
    near(tu_num(tu_get(a, "share_of_rated", NULL)), 55050240.0 / 8250 / 1e3 / 50.0, "a share");
    cr_assert_str_eq(tu_str(tu_get(a, "size_rows", NULL)), "power_of_two");
    yajl_val rows = tu_get(a, "sizes", NULL);
    cr_assert_eq(rows->u.array.len, 4);
    static const struct { int64_t lo, records; double bytes, us; } want[] = {
        {1048576, 6, 7864320, 1750}, {2097152, 3, 7340032, 1200}, {4194304, 6, 31457280, 4500}, {8388608, 1, 8388608, 800}};
    for (size_t i = 0; i < 4; i++) {
        yajl_val r = rows->u.array.values[i];
        cr_assert_str_eq(tu_str(tu_get(r, "collective", NULL)), "AllReduce");
        cr_assert_eq(num_i(r, "min_bytes"), want[i].lo);
        cr_assert_eq(num_i(r, "max_bytes"), 2 * want[i].lo - 1);
        cr_assert_eq(num_i(r, "records"), want[i].records);
        near(tu_num(tu_get(r, "busbw_GBps", NULL)), want[i].bytes / want[i].us / 1e3, "row busbw");
    }
    cr_assert_eq(num_i(a, "sequences"), 9);
    cr_assert_eq(num_i(a, "complete_sequences"), 7, "sn 5 CPU-timed on rank 0, sn 9 dropped there");
    cr_assert_eq(num_i(a, "decided_sequences"), 6, "sn 2 a tie");
    cr_assert_eq(num_i(a, "charged_wait_us"), 3000);
    cr_assert_eq(num_i(a, "straggler_rank"), 1);
    /* 0xb0b: rank 0 of 4 on one node: exact sizes, no complete sequence, no straggler */
    yajl_val b = comm_of(d, "0xb0b");
    cr_assert_eq(num_i(b, "nnodes"), 1);
    cr_assert_eq(num_i(b, "ranks_seen"), 1);
    cr_assert_str_eq(tu_str(tu_get(b, "scope", NULL)), "intra");
    cr_assert_str_eq(tu_str(tu_get(b, "scope_from", NULL)), "nnodes");
    cr_assert_str_eq(tu_str(tu_get(b, "link", "id", NULL)), "nvlink4");
    near(tu_num(tu_get(b, "busbw_GBps", NULL)), 2 * 65536 * 0.75 / 20 / 1e3, "b busbw");
    cr_assert_str_eq(tu_str(tu_get(b, "size_rows", NULL)), "exact");
    cr_assert_eq(num_i(b, "complete_sequences"), 0);
    cr_assert(YAJL_IS_NULL(tu_get(b, "straggler_rank", NULL)));
    yajl_val s = tu_get(d, "nccl", "stragglers", NULL);
    cr_assert_eq(s->u.array.len, 1);
    yajl_val s0 = s->u.array.values[0];
    cr_assert_str_eq(tu_str(tu_get(s0, "communicator_id", NULL)), "0xa11ce");
    cr_assert_str_eq(tu_str(tu_get(s0, "hostname", NULL)), "gpu-b");
    cr_assert_eq(num_i(s0, "pid"), 200);
    cr_assert_eq(num_i(s0, "last_arrivals"), 6);
    cr_assert_eq(num_i(s0, "caused_wait_us"), 3000);
    cr_assert(YAJL_IS_ARRAY(tu_get(d, "nccl", "unknown_without_trace", NULL)));
    /* the plugin trace beside them: NCCL's choices on 0xa11ce (CommHash 659918), one record of an unknown id */
    cr_assert_eq(num_i(tu_get(d, "nccl", NULL), "plugin_files"), 1);
    cr_assert_eq(num_i(tu_get(d, "nccl", NULL), "plugin_records"), 4);
    cr_assert_eq(num_i(tu_get(d, "nccl", NULL), "plugin_records_unplaced"), 1);
    cr_assert_eq(num_i(a, "plugin_records"), 3);
    yajl_val mix = tu_get(a, "mix", NULL);
    cr_assert_eq(mix->u.array.len, 2);
    cr_assert_str_eq(tu_str(tu_get(mix, "#0", "algorithm", NULL)), "Ring");
    cr_assert_str_eq(tu_str(tu_get(mix, "#0", "protocol", NULL)), "Simple");
    cr_assert_eq(num_i(tu_get(mix, "#0", NULL), "channels"), 2);
    cr_assert_eq(num_i(tu_get(mix, "#0", NULL), "records"), 2);
    cr_assert_str_eq(tu_str(tu_get(mix, "#1", "algorithm", NULL)), "Tree");
    cr_assert_eq(num_i(tu_get(mix, "#1", NULL), "records"), 1);
    cr_assert_eq(num_i(b, "plugin_records"), 0);
    yajl_tree_free(d);
    /* without --gpu / --fabric the rated links are unknown: null, not guessed */
    d = tu_analyze_json(ALONE, 0);
    cr_assert(YAJL_IS_NULL(tu_get(comm_of(d, "0xa11ce"), "link", NULL)));
    cr_assert(YAJL_IS_NULL(tu_get(comm_of(d, "0xa11ce"), "share_of_rated", NULL)));
    yajl_tree_free(d);
}

Test(nccl_alone, text_fits_80_columns_and_says_what_it_cannot_know) {
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "COLUMNS=80 %s analyze %s/gpu-a-pid100.log %s/gpu-b-pid200.log", tu_bin(), ALONE, ALONE), 0,
                 "%s", out);
    tu_expect_width(out, 80);
    tu_unwrap(out);
    cr_assert(strstr(out, "NCCL logs alone (no PyTorch trace): 2 Inspector logs, 19 records, 2 communicators"), "%s", out);
    cr_assert(strstr(out, "AllReduce     1 MiB-2 MiB               6         4.5"), "%s", out);
    cr_assert(strstr(out, "straggler: rank 1 (gpu-b, pid 200) arrived last in 6 of the 6"), "%s", out);
    cr_assert(strstr(out, "exposed and how much hidden behind compute"), "%s", out);
    cr_assert(strstr(out, "rated link unknown"), "%s", out);
    free(out);
}

Test(nccl_alone, refusals_and_damage) {
    char *out = NULL;
    char *dir = tu_tmpdir();
    /* neither traces nor NCCL logs: refused as before */
    cr_assert_eq(tu_sh(&out, "echo 'training started' > %s/train.log && %s analyze %s", dir, tu_bin(), dir), 2);
    cr_assert(strstr(out, "folder holds no traces"), "%s", out);
    free(out);
    /* --html needs a trace */
    cr_assert_eq(tu_sh(&out, "%s analyze --html %s/r.html %s", tu_bin(), dir, ALONE), 1);
    cr_assert(strstr(out, "--html needs a PyTorch trace"), "%s", out);
    free(out);
    /* a damaged log: what could be read is reported, exit 3 */
    yajl_val d = tu_analyze_json("--nccl tests/data/nccl/example-hostname-pid1639453.log", 3);
    cr_assert_eq(tu_get(d, "nccl", "communicators", NULL)->u.array.len, 2);
    yajl_tree_free(d);
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* ---- the planted job -------------------------------------------------------------------------- */

static void check_planted(yajl_val d, yajl_val want) {
    yajl_val wc = tu_get(want, "communicators", NULL);
    cr_assert(YAJL_IS_OBJECT(wc));
    yajl_val cs = tu_get(d, "nccl", "communicators", NULL);
    cr_assert_eq(cs->u.array.len, wc->u.object.len);
    size_t named = 0;
    for (size_t i = 0; i < wc->u.object.len; i++) {
        const char *id = wc->u.object.keys[i];
        yajl_val w = wc->u.object.values[i], c = comm_of(d, id);
        cr_assert_eq(num_i(c, "n_ranks"), num_i(w, "n_ranks"), "%s", id);
        cr_assert_eq(num_i(c, "nnodes"), num_i(w, "nnodes"), "%s", id);
        cr_assert_eq(num_i(c, "records"), num_i(w, "records"), "%s records", id);
        cr_assert_eq(num_i(c, "cpu_timed_records"), num_i(w, "cpu_timed"), "%s cpu", id);
        near(tu_num(tu_get(c, "busbw_GBps", NULL)), tu_num(tu_get(w, "busbw_GBps", NULL)), id);
        cr_assert_eq(num_i(c, "complete_sequences"), num_i(w, "complete"), "%s complete", id);
        cr_assert_eq(num_i(c, "decided_sequences"), num_i(w, "decided"), "%s decided", id);
        yajl_val ws = tu_get(w, "sizes", NULL), rows = tu_get(c, "sizes", NULL);
        cr_assert_eq(rows->u.array.len, ws->u.array.len);
        for (size_t k = 0; k < ws->u.array.len; k++) {
            yajl_val r = rows->u.array.values[k], x = ws->u.array.values[k];
            cr_assert_eq(num_i(r, "min_bytes"), num_i(x, "bytes"));
            cr_assert_eq(num_i(r, "records"), num_i(x, "records"));
            near(tu_num(tu_get(r, "busbw_GBps", NULL)), tu_num(tu_get(x, "busbw_GBps", NULL)), "size row");
        }
        yajl_val planted = tu_get(w, "planted_straggler_rank", NULL), got = tu_get(c, "straggler_rank", NULL);
        int64_t charged = 0;
        for (size_t k = 0; k < tu_get(w, "caused_wait_us", NULL)->u.array.len; k++)
            charged += (int64_t)tu_num(tu_get(w, "caused_wait_us", NULL)->u.array.values[k]);
        cr_assert_eq(num_i(c, "charged_wait_us"), charged, "%s charged", id);
        if (YAJL_IS_NULL(got)) continue;
        cr_assert(!YAJL_IS_NULL(planted), "%s names a straggler the plant has not", id);
        cr_assert_eq((int64_t)tu_num(got), (int64_t)tu_num(planted), "%s straggler", id);
        named++;
        yajl_val s = tu_get(d, "nccl", "stragglers", NULL);
        cr_assert_eq(s->u.array.len, 1);
        yajl_val s0 = s->u.array.values[0];
        cr_assert_str_eq(tu_str(tu_get(s0, "communicator_id", NULL)), id);
        int64_t r = (int64_t)tu_num(planted);
        char key[8];
        snprintf(key, sizeof key, "#%d", (int)r);
        cr_assert_eq(num_i(s0, "last_arrivals"), (int64_t)tu_num(tu_get(w, "last", key, NULL)));
        cr_assert_eq(num_i(s0, "caused_wait_us"), (int64_t)tu_num(tu_get(w, "caused_wait_us", key, NULL)));
        cr_assert_str_eq(tu_str(tu_get(s0, "hostname", NULL)), "node1", "rank 5 runs on node1");
    }
    cr_assert_eq(named, 1, "the DP communicator of the straggler names it");
}

Test(nccl_alone, planted_job_logs_alone, .timeout = 120) {
    char *dir = tu_tmpdir();
    tu_gen_job(dir, "job", "--ranks 8 --tp 4 --steps 4 --gpus-per-node 4 --nccl-inspector --nccl-exec-with-wait --straggler 5");
    /* the logs alone, renamed oddly, beside a .log that is no Inspector log */
    cr_assert_eq(tu_sh(NULL, "mkdir '%s/logs' && i=0 && for f in '%s'/job/*.log; do i=$((i+1)); "
                             "cp \"$f\" \"%s/logs/$(basename \"$f\" .log) (copy $i).log\"; done && "
                             "echo 'epoch 1 loss 2.3' > '%s/logs/train.log'", dir, dir, dir, dir), 0);
    char path[600], args[700];
    snprintf(path, sizeof path, "%s/job/nccl_alone_expected.json", dir);
    yajl_val want = tu_json_file(path);
    snprintf(args, sizeof args, "'%s/logs'", dir);
    yajl_val d = tu_analyze_json(args, 0);
    check_planted(d, want);
    yajl_tree_free(d);
    snprintf(args, sizeof args, "--nccl '%s/logs'", dir); /* the same through --nccl, no operand */
    d = tu_analyze_json(args, 0);
    check_planted(d, want);
    yajl_tree_free(d);
    yajl_tree_free(want);
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* format v4.2 (coll_algo, coll_proto): NCCL's choices per communicator from the Inspector's own
 * records, every record naming one (tracegen --nccl-inspector-v42) */
Test(nccl_alone, v42_logs_alone_give_nccls_choices, .timeout = 120) {
    char *dir = tu_tmpdir();
    tu_gen_job(dir, "job", "--ranks 8 --tp 4 --steps 2 --gpus-per-node 4 --nccl-inspector-v42 --nccl-exec-with-wait");
    char args[600];
    snprintf(args, sizeof args, "'%s'/job/*.log", dir);
    yajl_val d = tu_analyze_json(args, 0);
    yajl_val cs = tu_get(d, "nccl", "communicators", NULL);
    cr_assert_gt(cs->u.array.len, 4);
    for (size_t i = 0; i < cs->u.array.len; i++) {
        yajl_val c = cs->u.array.values[i], mix = tu_get(c, "inspector_mix", NULL);
        cr_assert(YAJL_IS_ARRAY(mix) && mix->u.array.len > 0);
        int64_t sum = 0;
        for (size_t k = 0; k < mix->u.array.len; k++) sum += num_i(mix->u.array.values[k], "records");
        cr_assert_eq(sum, num_i(c, "records"), "every v4.2 record names its algorithm and protocol");
    }
    yajl_tree_free(d);
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}
