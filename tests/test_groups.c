/* test_groups.c: process groups end to end (issue 19, analyzer/groups.h): build/tracecost on
 * tracegen's multi-dimensional jobs gives back the planted per-group figures of expected.json
 * process_groups[] (TP+DP, FSDP, TP+FSDP with a straggler and clock offsets, hosts from handler
 * file names, classic jobs); the "Done when" on a 2-node x 4-GPU TP+DP job (DP groups
 * inter-node and named in the verdict, --fabric eth-100g rated 12.5 GB/s, TP on NVLink 4 at 450,
 * the what-if moving only the inter-node groups' time); the saturated / tune wording; groups joined
 * from pg_config and collective arguments; the ranks text; and the options' errors. */
#include "testutil.h"
#include "analyzer/groups.h"
#include "model/group_ranks.h"
#include <math.h>

static double field(yajl_val obj, const char *key) { return tu_num(tu_get(obj, key, NULL)); }

/* analyze ARGS DIR/NAME/ with --json DIR/NAME.json; the terminal text in *text, unwrapped unless
 * args start with "raw:" (which is not passed on). */
static yajl_val analyze(const char *dir, const char *name, const char *args, char **text) {
    bool raw = !strncmp(args, "raw:", 4);
    if (raw) args += 4;
    char json[600];
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    char *out = NULL;
    int rc = tu_sh(&out, "SOURCE_DATE_EPOCH=1764547200 %s analyze --json %s %s %s/%s/ 2>/dev/null", tu_bin(), json, args,
                   dir, name);
    cr_assert_eq(rc, 0, "analyze %s: exit %d\n%s", args, rc, out);
    if (text) *text = raw ? out : tu_unwrap(out); else free(out);
    return tu_json_file(json);
}

/* Every key of expected.json's process_groups[] (tracegen, bench/TRACEGEN.md) in the JSON's: the same
 * groups in the same order, names, descriptions, ranks, sizes, nodes and scopes exactly, times to the
 * ns (the model is exact), bus bandwidth to 1e-6. */
static void assert_groups_match(yajl_val doc, yajl_val exp, const char *what) {
    yajl_val got = tu_get(doc, "process_groups", NULL), want = tu_get(exp, "process_groups", NULL);
    cr_assert(got && YAJL_IS_ARRAY(got) && want && YAJL_IS_ARRAY(want), "%s: process_groups", what);
    cr_assert_eq(got->u.array.len, want->u.array.len, "%s: %zu groups, planted %zu", what, got->u.array.len,
                 want->u.array.len);
    static const char *const strs[] = {"name", "desc", "scope"};
    static const char *const ints[] = {"size", "ranks_present", "nodes"};
    static const char *const times[] = {"comm_us", "exposed_comm_us", "exposed_transfer_us", "exposed_wait_us"};
    for (size_t i = 0; i < want->u.array.len; i++) {
        yajl_val g = got->u.array.values[i], w = want->u.array.values[i];
        const char *name = tu_str(tu_get(w, "name", NULL));
        for (size_t k = 0; k < 3; k++) {
            yajl_val a = tu_get(g, strs[k], NULL), b = tu_get(w, strs[k], NULL);
            if (YAJL_IS_NULL(b)) cr_expect(YAJL_IS_NULL(a), "%s group %s: %s", what, name, strs[k]);
            else cr_expect_str_eq(tu_str(a), tu_str(b), "%s group %s: %s", what, name, strs[k]);
        }
        for (size_t k = 0; k < 3; k++)
            cr_expect_eq(field(g, ints[k]), field(w, ints[k]), "%s group %s: %s", what, name, ints[k]);
        yajl_val rg = tu_get(g, "ranks", NULL), rw = tu_get(w, "ranks", NULL);
        cr_assert_eq(rg->u.array.len, rw->u.array.len, "%s group %s: ranks", what, name);
        for (size_t r = 0; r < rw->u.array.len; r++)
            cr_expect_eq(tu_num(rg->u.array.values[r]), tu_num(rw->u.array.values[r]), "%s group %s: ranks", what, name);
        for (size_t k = 0; k < 4; k++) {
            yajl_val a = tu_get(g, times[k], NULL), b = tu_get(w, times[k], NULL);
            if (YAJL_IS_NULL(b)) { cr_expect(YAJL_IS_NULL(a), "%s group %s: %s", what, name, times[k]); continue; }
            cr_expect(fabs(tu_num(a) - tu_num(b)) <= 0.0005, "%s group %s: %s %.3f, planted %.3f", what, name, times[k],
                      tu_num(a), tu_num(b));
        }
        yajl_val a = tu_get(g, "busbw_GBps", NULL), b = tu_get(w, "busbw_GBps", NULL);
        if (YAJL_IS_NULL(b)) cr_expect(YAJL_IS_NULL(a), "%s group %s: busbw", what, name);
        else cr_expect(fabs(tu_num(a) - tu_num(b)) <= 1e-6 * tu_num(b), "%s group %s: busbw %.6f, planted %.6f", what,
                       name, tu_num(a), tu_num(b));
        cr_expect(YAJL_IS_FALSE(tu_get(g, "partial", NULL)), "%s group %s: every rank is there", what, name);
    }
}

typedef struct {
    const char *gen;     /* tracegen options */
    const char *args;    /* analyze options */
} planted;

static const planted jobs[] = {
    {"--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5", "--gpus-per-node 4"},
    {"--ranks 8 --fsdp --gpus-per-node 4 --seed 3", "--gpus-per-node 4"},
    {"--ranks 16 --tp 2 --fsdp --gpus-per-node 4 --straggler 3 --clock-offset-us 3000 --seed 5", "--gpus-per-node 4"},
    {"--ranks 8 --tp 4 --gpus-per-node 4 --file-names handler --time-format epoch --seed 7", ""}, /* hosts from names */
    {"--ranks 8 --tp 2 --gpus-per-node 8 --straggler 1 --seed 11", ""}, /* one node: every group intra-node */
    {"--ranks 4 --straggler 2 --gpus-per-node 8 --seed 13", ""},         /* classic: the world group alone */
    /* no pg_config (PyTorch before 2.2): groups from kernel args alone; a DP group's "Process Group
     * Ranks" is 157 bytes ([0, 4, ..., 124]) and the world's 555: read whole (cut at 127 bytes, the
     * DP groups had no ranks, nodes or scope) */
    {"--ranks 128 --tp 4 --gpus-per-node 8 --steps 2 --no-pg-config --seed 17", "--gpus-per-node 8"},
    /* NCCL kernels without collective arguments: each gets those of the record_param_comms op that
     * launched it (by the launch's External id); before, every group's figures were 0 */
    {"--ranks 8 --tp 4 --gpus-per-node 4 --no-coll-args --seed 19", "--gpus-per-node 4"},
};

Test(groups, planted_groups_are_recovered, .timeout = 240) {
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        char *dir = tu_tmpdir();
        tu_gen_job(dir, "job", jobs[i].gen);
        yajl_val doc = analyze(dir, "job", jobs[i].args, NULL);
        char exp[600];
        snprintf(exp, sizeof exp, "%s/job/expected.json", dir);
        yajl_val want = tu_json_file(exp);
        assert_groups_match(doc, want, jobs[i].gen);
        yajl_tree_free(doc);
        yajl_tree_free(want);
        tu_sh(NULL, "rm -rf %s", dir);
        free(dir);
    }
}

/* The group of `doc` named name. */
static yajl_val group(yajl_val doc, const char *name) {
    yajl_val gs = tu_get(doc, "process_groups", NULL);
    for (size_t i = 0; gs && i < gs->u.array.len; i++)
        if (!strcmp(tu_str(tu_get(gs->u.array.values[i], "name", NULL)), name)) return gs->u.array.values[i];
    cr_assert_fail("no process group %s", name);
    return NULL;
}

/* Issue 19's "Done when": a 2-node x 4-GPU TP+DP job. */
Test(groups, done_when_two_nodes_tp_dp, .timeout = 120) {
    char *dir = tu_tmpdir(), *text = NULL;
    tu_gen_job(dir, "job", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5");
    yajl_val doc = analyze(dir, "job", "--gpus-per-node 4 --fabric eth-100g --fabric-target ib-ndr", &text);
    char exp[600];
    snprintf(exp, sizeof exp, "%s/job/expected.json", dir);
    yajl_val want = tu_json_file(exp);
    /* the per-group figures equal the planted ones */
    assert_groups_match(doc, want, "done-when");
    /* DP groups inter-node, on eth-100g at 12.5 GB/s; TP groups on NVLink 4 at 450 */
    static const char *const dp[] = {"3", "4", "5", "6"}, *const tp[] = {"1", "2"};
    double dp_transfer = 0;
    for (size_t k = 0; k < 4; k++) {
        yajl_val g = group(doc, dp[k]);
        cr_expect_str_eq(tu_str(tu_get(g, "desc", NULL)), "DP");
        cr_expect_str_eq(tu_str(tu_get(g, "scope", NULL)), "inter-node");
        cr_expect_str_eq(tu_str(tu_get(g, "link", NULL)), "eth-100g");
        cr_expect_eq(field(g, "rated_busbw_GBps"), 12.5);
        cr_expect(fabs(field(g, "busbw_share_of_rated") - field(g, "busbw_GBps") / 12.5) < 1e-12);
        cr_expect(fabs(field(g, "busbw_share_of_rated") - 1) < 1e-6, "the planted 12.5 GB/s is the whole rated figure");
        dp_transfer += field(g, "exposed_transfer_us");
    }
    for (size_t k = 0; k < 2; k++) {
        yajl_val g = group(doc, tp[k]);
        cr_expect_str_eq(tu_str(tu_get(g, "scope", NULL)), "intra-node");
        cr_expect_str_eq(tu_str(tu_get(g, "link", NULL)), "nvlink4");
        cr_expect_str_eq(tu_str(tu_get(g, "link_name", NULL)), "NVLink 4");
        cr_expect_eq(field(g, "rated_busbw_GBps"), 450);
        cr_expect(fabs(field(g, "busbw_share_of_rated") - 360.0 / 450) < 1e-6);
    }
    /* named in the verdict, against 12.5 GB/s */
    cr_expect_str_eq(tu_str(tu_get(doc, "summary", "verdict", NULL)), "network-bound");
    cr_expect_not_null(strstr(text, "the 4 DP process groups, inter-node over Ethernet 100 Gb/s, carry the most exposed "
                                    "transfer"), "%s", text);
    cr_expect_not_null(strstr(text, "they reach 12.5 GB/s bus bandwidth, 100% of the link's rated 12.5 GB/s: saturated"),
                       "%s", text);
    cr_expect_not_null(strstr(text, "The 4 DP process groups run their Ethernet 100 Gb/s at 100% of its rated bandwidth"),
                       "%s", text);
    yajl_val reasons = tu_get(doc, "summary", "verdict_reasons", NULL);
    bool named = false;
    for (size_t i = 0; i < reasons->u.array.len; i++) named |= strstr(tu_str(reasons->u.array.values[i]), "DP process groups") != NULL;
    cr_expect(named, "the JSON's verdict_reasons name the DP groups");
    /* the what-if moves only the inter-node groups' time: the DP groups and the world all-reduce of one
     * float (inter-node too, 12 us a step); the TP groups' transfer, 14% of GPU time, stays */
    double inter = field(tu_get(doc, "summary", NULL), "inter_node_exposed_transfer_us");
    double world = field(group(doc, "0"), "exposed_transfer_us");
    cr_expect(fabs(inter - (dp_transfer + world)) < 0.002, "inter-node transfer %.3f = DP %.3f + world %.3f", inter,
              dp_transfer, world);
    /* the what-if by replay (issue 29): the inter-node groups' beta moves to ib-ndr's 50 GB/s (12.5 of a
     * rated 12.5: the whole link, so 50), the TP groups inside a node keep theirs */
    yajl_val wi = tu_get(doc, "cost", "what_if", NULL);
    cr_assert(wi && YAJL_IS_OBJECT(wi), "a what-if");
    cr_expect_str_eq(tu_str(tu_get(wi, "method", NULL)), "replay");
    cr_expect(YAJL_IS_TRUE(tu_get(wi, "inter_node_only", NULL)));
    cr_expect_eq(field(wi, "fabric_GBps"), 12.5, "B: the inter-node groups' bus bandwidth, not the blend");
    cr_expect_eq(field(wi, "target_GBps"), 50, "B': ib-ndr's rated figure");
    cr_expect(YAJL_IS_NULL(tu_get(wi, "scaled_transfer_share", NULL)), "nothing scaled");
    double step = field(tu_get(doc, "summary", "replay", NULL), "replayed_step_us");
    double projected = field(tu_get(doc, "summary", "replay", NULL), "projected_step_us");
    cr_expect_eq(field(wi, "projected_step_time_us"), projected, "the replayed step on the target");
    cr_expect(projected < step, "a faster fabric, a shorter step: %.3f vs %.3f", projected, step);
    cr_expect(fabs(field(wi, "monthly_value_recovered") - 8 * 2.95 * 730 * (1 - projected / step)) < 0.01,
              "the GPU-hours the shorter step saves");
    for (size_t k = 0; k < 4; k++) {
        yajl_val g = tu_get(group(doc, dp[k]), "what_if", NULL);
        cr_assert(g && YAJL_IS_OBJECT(g), "DP group %s changes", dp[k]);
        cr_expect(fabs(field(g, "beta_GBps") - 50) < 1e-9);
        cr_expect(field(g, "projected_transfer_us") < field(g, "transfer_us") / 3.9);
    }
    for (size_t k = 0; k < 2; k++) cr_expect(YAJL_IS_NULL(tu_get(group(doc, tp[k]), "what_if", NULL)), "TP keeps its link");
    cr_expect(fabs(field(tu_get(doc, "summary", NULL), "inter_node_busbw_GBps") - 12.5) < 1e-9);
    cr_expect_str_eq(tu_str(tu_get(doc, "summary", "fabric_link", NULL)), "eth-100g");
    /* summary.fabric_busbw_GBps keeps its meaning: the blend over every group */
    cr_expect(field(tu_get(doc, "summary", NULL), "fabric_busbw_GBps") > 50);
    /* --fabric-target-GBps 50 is the same what-if */
    yajl_val doc2 = analyze(dir, "job", "--gpus-per-node 4 --fabric eth-100g --fabric-target-GBps 50", NULL);
    cr_expect_eq(field(tu_get(doc2, "cost", "what_if", NULL), "projected_step_time_us"), field(wi, "projected_step_time_us"));
    yajl_tree_free(doc2);
    yajl_tree_free(doc);
    yajl_tree_free(want);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Below the saturation share the verdict says to look at NCCL and NIC settings before buying; with no
 * fabric named it says what to pass; on one node the what-if has nothing to change. */
Test(groups, saturated_or_tune_or_unknown, .timeout = 120) {
    char *dir = tu_tmpdir(), *text = NULL;
    tu_gen_job(dir, "job", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5");
    yajl_val doc = analyze(dir, "job", "--gpus-per-node 4 --nic-gbps 400", &text);
    cr_expect_not_null(strstr(text, "25% of the link's rated 50 GB/s: look at NCCL and NIC settings before buying"), "%s",
                       text);
    cr_expect_not_null(strstr(text, "Tune before buying: the 4 DP process groups reach 25% of what their NIC 400 Gb/s is "
                                    "rated for"), "%s", text);
    cr_expect_str_eq(tu_str(tu_get(group(doc, "3"), "link", NULL)), "nic");
    yajl_tree_free(doc);
    free(text);
    doc = analyze(dir, "job", "--gpus-per-node 4 --fabric eth-25g", &text);
    cr_expect_not_null(strstr(text, "400% of the link's rated 3.125 GB/s: saturated, and more than the link is rated for"),
                       "%s", text);
    yajl_tree_free(doc);
    free(text);
    doc = analyze(dir, "job", "--gpus-per-node 4", &text);
    cr_expect_not_null(strstr(text, "inter-node, link unknown, carry the most exposed transfer"), "%s", text);
    cr_expect_not_null(strstr(text, "what the fabric between nodes is rated for is unknown (pass --fabric ID or "
                                    "--nic-gbps X)"), "%s", text);
    cr_expect(YAJL_IS_NULL(tu_get(group(doc, "3"), "link", NULL)));
    cr_expect(YAJL_IS_NULL(tu_get(group(doc, "3"), "busbw_share_of_rated", NULL)));
    cr_expect(YAJL_IS_NULL(tu_get(doc, "summary", "fabric_link", NULL)));
    yajl_tree_free(doc);
    free(text);
    /* one node of 8: every group is intra-node and a faster fabric between nodes changes nothing */
    doc = analyze(dir, "job", "--gpus-per-node 8 --fabric-target ib-xdr", &text);
    cr_expect_str_eq(tu_str(tu_get(group(doc, "3"), "scope", NULL)), "intra-node");
    cr_expect(YAJL_IS_NULL(tu_get(doc, "cost", "what_if", NULL)));
    cr_expect_not_null(strstr(text, "what-if skipped: the job runs on one node"), "%s", text);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The terminal and HTML tables: one row per description, scope and link, a bar against the rated
 * figure (not against the job's blend). */
Test(groups, tables_fold_rows_and_bar_against_rated, .timeout = 120) {
    char *dir = tu_tmpdir(), *text = NULL;
    tu_gen_job(dir, "job", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5");
    char html[600];
    snprintf(html, sizeof html, "raw:--gpus-per-node 4 --fabric ib-ndr --html %s/job.html", dir);
    yajl_val doc = analyze(dir, "job", html, &text);
    tu_expect_width(text, 100);
    /* the group column takes what the figures leave of the width (100 when piped); n = groups x ranks */
    cr_expect_not_null(strstr(text, "\ngroup                             n scope link               exp xfer  busbw  rated  "
                                    "used\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\nTP                              2x4 intra NVLink 4              14.4%  360.0  450.0   "
                                    "80% ########..\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\nDP                              4x2 inter IB NDR 400 Gb/s       15.3%   12.5   50.0   "
                                    "25% ###.......\n"), "%s", text);
    snprintf(html, sizeof html, "%s/job.html", dir);
    char *h = tu_read_file(html, NULL);
    cr_expect_not_null(strstr(h, "<table id=\"group-table\""));
    cr_expect_not_null(strstr(h, "<td>3, 4, 5, 6</td><td>inter-node</td><td>IB NDR 400 Gb/s</td>"), "the DP row");
    cr_expect_not_null(strstr(h, "style=\"width:25.0%\"></span></span>25% of rated</td>"), "DP's bar against 50 GB/s");
    cr_expect_null(strstr(h, "of fabric</td>"), "no bar against the job's own blend");
    free(h);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* A trace file of rank `rank` in dir with its distributedInfo (pg_config JSON) and one NCCL kernel per
 * (group name, ranks text) in `kernels` ("" none). */
static void write_trace(const char *dir, int rank, int world, const char *pg_config, const char *kernel_args) {
    char path[600];
    snprintf(path, sizeof path, "%s/rank%d.json", dir, rank);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"distributedInfo\":{\"rank\":%d,\"world_size\":%d,\"pg_config\":[%s]},\"traceEvents\":["
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":100}",
            rank, world, pg_config);
    if (*kernel_args)
        fprintf(f, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\",\"pid\":0,"
                   "\"tid\":20,\"ts\":100,\"dur\":%d,\"args\":{\"Collective name\":\"allreduce\",\"In msg nelems\":1048576,"
                   "\"Out msg nelems\":1048576,\"dtype\":\"Float\",%s}}",
                50 + 10 * rank, kernel_args);
    fprintf(f, "]}");
    fclose(f);
}

/* Real PyTorch lists only a rank's own groups in pg_config and may write ranks: [] for the world
 * group: the table joins what every input says; a truncated ranks text is no ranks. */
Test(groups, joined_from_every_input) {
    char *dir = tu_tmpdir();
    const char *world = "{\"pg_name\":\"0\",\"pg_desc\":\"default_pg\",\"pg_size\":4,\"ranks\":[]}";
    char cfg[400];
    snprintf(cfg, sizeof cfg, "%s,{\"pg_name\":\"7\",\"pg_desc\":\"DP\",\"pg_size\":2,\"ranks\":[0,2]}", world);
    write_trace(dir, 0, 4, cfg, "\"Process Group Name\":\"7\",\"Process Group Ranks\":\"[0, 2]\",\"Group size\":2,\"Seq\":1");
    snprintf(cfg, sizeof cfg, "%s,{\"pg_name\":\"8\",\"pg_size\":2,\"ranks\":\"[1, 3]\"}", world);
    write_trace(dir, 1, 4, cfg, "\"Process Group Name\":\"8\",\"Process Group Description\":\"DP\",\"Group size\":2,\"Seq\":1");
    write_trace(dir, 2, 4, world, "\"Process Group Name\":\"7\",\"Process Group Ranks\":\"[0, 2]\",\"Group size\":2,\"Seq\":1");
    write_trace(dir, 3, 4, "", "\"Process Group Name\":\"9\",\"Process Group Ranks\":\"[3, 1, ...]\",\"Group size\":3,\"Seq\":1");
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze -q --gpus-per-node 2 --json %s/out.json %s/rank*.json", tu_bin(), dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char path[600];
    snprintf(path, sizeof path, "%s/out.json", dir);
    yajl_val doc = tu_json_file(path);
    yajl_val g0 = group(doc, "0"), g7 = group(doc, "7"), g8 = group(doc, "8"), g9 = group(doc, "9");
    cr_expect_eq(tu_get(g0, "ranks", NULL)->u.array.len, 4, "a group as large as the world holds every rank");
    cr_expect_str_eq(tu_str(tu_get(g0, "scope", NULL)), "inter-node");
    cr_expect_eq(field(g0, "nodes"), 2);
    cr_expect_eq(field(g7, "ranks_present"), 2);
    cr_expect_str_eq(tu_str(tu_get(g7, "scope", NULL)), "inter-node");
    cr_expect_eq(field(g7, "comm_us"), 50 + 70, "ranks 0 and 2's kernels");
    cr_expect_eq(field(g7, "exposed_transfer_us"), 100, "transfer = the fastest kernel, on both ranks");
    cr_expect_eq(field(g7, "exposed_wait_us"), 20);
    cr_expect(YAJL_IS_NUMBER(tu_get(g7, "busbw_GBps", NULL)), "4 MiB allreduce: busbw measured");
    cr_expect_str_eq(tu_str(tu_get(g8, "desc", NULL)), "DP", "the description from rank 1's kernel");
    cr_expect_eq(tu_num(tu_get(g8, "ranks", "#1", NULL)), 3, "the ranks from rank 1's pg_config string");
    cr_expect(YAJL_IS_NULL(tu_get(g9, "ranks", NULL)), "\"[3, 1, ...]\" is truncated: no ranks");
    cr_expect(YAJL_IS_NULL(tu_get(g9, "scope", NULL)));
    cr_expect(YAJL_IS_NULL(tu_get(g9, "nodes", NULL)));
    cr_expect_eq(field(g9, "size"), 3);
    cr_expect_eq(field(g9, "ranks_present"), 1, "without ranks: the inputs naming it");
    cr_expect(YAJL_IS_TRUE(tu_get(g9, "partial", NULL)));
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(groups, ranks_text) {
    int64_t *v;
    size_t n;
    cr_assert(tc_parse_group_ranks("[4, 0, 12]", &v, &n));
    cr_assert_eq(n, 3);
    cr_expect(v[0] == 0 && v[1] == 4 && v[2] == 12, "sorted");
    free(v);
    cr_assert(tc_parse_group_ranks(" [7] ", &v, &n));
    cr_expect(n == 1 && v[0] == 7);
    free(v);
    static const char *const bad[] = {"[]", "[0, 1, ...]", "[0,, 1]", "[-1]", "0, 1", "[0, 1", "[1, 1]", "[0] x",
                                      "[99999999999999999999]", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect(!tc_parse_group_ranks(bad[i], &v, &n), "'%s' is not a list of ranks", bad[i]);
        cr_expect_null(v);
    }
    cr_expect(!tc_parse_group_ranks(NULL, &v, &n));
}

/* --fabric names a fabric between nodes; one inside a node, an unknown one, or --fabric with
 * --nic-gbps are usage errors; --fabric-target works in the calculator too. */
Test(groups, fabric_options) {
    char *out = NULL;
    cr_expect_eq(tu_sh(&out, "%s analyze --fabric nvlink4 samples/", tu_bin()), 1);
    cr_expect_not_null(strstr(out, "'nvlink4' is a link inside a node"), "%s", out);
    cr_expect_not_null(strstr(out, "ib-edr, ib-hdr, ib-ndr, ib-xdr, eth-25g, eth-100g, eth-200g, eth-400g, eth-800g"), "%s",
                       out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --fabric ib-qdr samples/", tu_bin()), 1);
    cr_expect_not_null(strstr(out, "not a fabric of the catalog"), "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --fabric ib-ndr --nic-gbps 400 samples/", tu_bin()), 1);
    cr_expect_not_null(strstr(out, "either --fabric or --nic-gbps"), "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --nic-gbps fast samples/", tu_bin()), 1);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s cost --gpus 16 --network-efficiency 0.7 --price-per-gpu-hour 2 --fabric-GBps 10 "
                             "--fabric-target eth-400g --json -", tu_bin()), 0);
    char err[256];
    yajl_val v = yajl_tree_parse(out, err, sizeof err);
    cr_assert_not_null(v, "%s: %s", err, out);
    cr_expect_eq(field(tu_get(v, "cost", "what_if", NULL), "target_GBps"), 50);
    cr_expect(YAJL_IS_FALSE(tu_get(v, "cost", "what_if", "inter_node_only", NULL)), "no trace: all exposed transfer");
    cr_expect_str_eq(tu_str(tu_get(v, "cost", "inputs", "fabric_target_GBps", "source", NULL)),
                     "flag (--fabric-target eth-400g, rated)");
    yajl_tree_free(v);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s cost --gpus 16 --network-efficiency 0.7 --price-per-gpu-hour 2 --fabric-target pcie5",
                       tu_bin()), 1);
    cr_expect_not_null(strstr(out, "--fabric-target: 'pcie5' is a link inside a node"), "%s", out);
    free(out);
}
