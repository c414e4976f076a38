/* test_e2e.c: build/tracecost end to end: the real traces give their reference breakdown, the
 * bundled samples give their expected figures, generated jobs give back what was planted (waits,
 * transfers, straggler, clock offsets, bandwidth), and the breakdown always adds up. */
#include "testutil.h"
#include "parsers/job_rules.h"
#include <math.h>

typedef struct {
    const char *path;
    double window_us, compute, exposed, overlapped, memory, idle; /* shares in % of the window */
} ref_trace;

/* The reference figures of the public traces (tests/data/README.md), computed by an independent implementation of the definitions */
static const ref_trace refs[] = {
    {"tests/data/ref/alexnet_cuda_sync.json.gz", 12920244.000, 0.082, 0.000, 0.000, 0.430, 99.488},
    {"tests/data/ref/df_index_resolver.json.gz", 1732965.000, 35.807, 20.620, 0.000, 1.313, 42.260},
    {"tests/data/ref/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 8911.887, 1.244, 0.000, 0.000, 0.428, 98.328},
    {"samples/real/nccl_data.json.gz", 660551.006, 17.509, 5.989, 1.108, 0.346, 76.156},
    {"tests/data/ref/ns_resolution.pt.trace.json.gz", 480029.250, 97.530, 0.000, 0.000, 0.894, 1.576},
    {"samples/hta-pair/sampled_rank-0.json.gz", 1222847.000, 17.199, 27.557, 4.842, 0.029, 55.215},
    {"samples/hta-pair/sampled_rank-1.json.gz", 1231186.000, 22.090, 24.653, 6.135, 0.370, 52.887},
    {"tests/data/ref/resnet50_v100_worker0.pt.trace.json.gz", 996477.000, 59.362, 0.000, 0.000, 1.207, 39.431},
    /* its tensor-parallel all-reduce is PyTorch symmetric memory (multimem_all_reduce_kernel): communication */
    {"tests/data/ref/b200_eager_tp8.json.gz", 84487.178, 10.241, 2.535, 0.000, 0.950, 86.274},
    {"tests/data/ref/h100_qwen1.5_0.5b.json.gz", 49652.832, 91.501, 0.000, 0.000, 0.432, 8.067},
};

static double field(yajl_val obj, const char *key) { return tu_num(tu_get(obj, key, NULL)); }

/* compute + exposed comm + memory exposed + idle == window, to the nanosecond (µs with 3 decimals) */
static void assert_adds_up(yajl_val b, const char *what) {
    double sum = field(b, "compute_us") + field(b, "exposed_comm_us") + field(b, "memory_exposed_us") + field(b, "idle_us");
    cr_assert(fabs(sum - field(b, "window_us")) < 0.0015, "%s: %.3f != window %.3f", what, sum, field(b, "window_us"));
    yajl_val w = tu_get(b, "exposed_wait_us", NULL), t = tu_get(b, "exposed_transfer_us", NULL);
    if (w && YAJL_IS_NUMBER(w))
        cr_assert(fabs(YAJL_GET_DOUBLE(w) + tu_num(t) - field(b, "exposed_comm_us")) < 0.0015, "%s: wait+transfer", what);
}

Test(e2e, reference_traces_give_reference_breakdown, .timeout = 120) {
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
        const ref_trace *r = &refs[i];
        char json[512];
        snprintf(json, sizeof json, "%s/out%zu.json", dir, i);
        int rc = tu_sh(NULL, "%s analyze -q --json %s %s", tu_bin(), json, r->path);
        cr_assert_eq(rc, 0, "%s: exit %d", r->path, rc);
        yajl_val doc = tu_json_file(json);
        yajl_val rank = tu_get(doc, "ranks", "#0", NULL);
        double w = field(rank, "window_us");
        cr_assert(fabs(w - r->window_us) <= 1.0, "%s: window %.3f vs %.3f", r->path, w, r->window_us);
        double got[5] = {field(rank, "compute_us"), field(rank, "exposed_comm_us"), field(rank, "overlapped_comm_us"),
                         field(rank, "memory_exposed_us"), field(rank, "idle_us")};
        double want[5] = {r->compute, r->exposed, r->overlapped, r->memory, r->idle};
        for (int k = 0; k < 5; k++)
            cr_assert(fabs(100 * got[k] / w - want[k]) <= 0.1, "%s: figure %d: %.3f%% vs %.3f%%", r->path, k, 100 * got[k] / w, want[k]);
        assert_adds_up(rank, r->path);
        /* a single rank cannot split wait from transfer */
        cr_assert(YAJL_IS_NULL(tu_get(rank, "exposed_wait_us", NULL)));
        cr_assert(YAJL_IS_NULL(tu_get(doc, "summary", "shares", "exposed_wait", NULL)));
        yajl_tree_free(doc);
    }
    free(dir);
}

/* Compares a job's JSON with a tracegen expected.json: every per-rank figure within 1% of the
 * window (the tolerance; the model is exact, so in practice they are equal). */
static void assert_matches_expected(const char *json_path, const char *expected_path) {
    yajl_val doc = tu_json_file(json_path), exp = tu_json_file(expected_path);
    yajl_val per = tu_get(exp, "per_rank", NULL);
    yajl_val ranks = tu_get(doc, "ranks", NULL);
    cr_assert_eq(ranks->u.array.len, per->u.array.len);
    static const char *keys[] = {"compute_us", "comm_us", "overlapped_comm_us", "exposed_comm_us", "memory_exposed_us",
                                 "idle_us", "exposed_wait_us", "exposed_transfer_us"};
    for (size_t r = 0; r < per->u.array.len; r++) {
        yajl_val want = per->u.array.values[r], got = ranks->u.array.values[r];
        cr_assert_eq(field(got, "rank"), field(want, "rank"));
        double w = field(want, "window_us");
        cr_assert(fabs(field(got, "window_us") - w) <= 1.0, "rank %zu window", r);
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            cr_assert(fabs(field(got, keys[k]) - field(want, keys[k])) <= 0.01 * w, "rank %zu %s: %.3f vs %.3f", r, keys[k],
                      field(got, keys[k]), field(want, keys[k]));
        cr_assert(fabs(field(got, "step_time_us") - field(want, "step_time_us")) <= 0.002, "rank %zu step time", r);
        cr_assert(fabs(field(got, "clock_offset_us") - field(want, "clock_offset_us")) <= 0.002, "rank %zu clock offset", r);
        assert_adds_up(got, "rank");
    }
    yajl_val straggler = tu_get(exp, "straggler_rank", NULL);
    yajl_val got_straggler = tu_get(doc, "summary", "straggler_rank", NULL);
    if (YAJL_IS_NUMBER(straggler)) {
        cr_assert(got_straggler && YAJL_IS_NUMBER(got_straggler), "a straggler was planted");
        cr_assert_eq(YAJL_GET_INTEGER(got_straggler), YAJL_GET_INTEGER(straggler));
    } else {
        cr_assert(YAJL_IS_NULL(got_straggler), "no straggler was planted");
    }
    double bw = field(exp, "busbw_GBps");
    double got_bw = tu_num(tu_get(doc, "summary", "fabric_busbw_GBps", NULL));
    cr_assert(fabs(got_bw - bw) <= 0.03 * bw, "fabric busbw %.3f vs planted %.3f", got_bw, bw);
    yajl_tree_free(doc);
    yajl_tree_free(exp);
}

Test(e2e, bundled_sample_job_gives_expected_figures) {
    char *dir = tu_tmpdir();
    char json[512], *out = NULL;
    snprintf(json, sizeof json, "%s/samples.json", dir);
    int rc = tu_sh(&out, "%s analyze --json %s samples/", tu_bin(), json);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "Verdict: network-bound"), "%s", out);
    assert_matches_expected(json, "samples/expected/job4.json");
    yajl_val doc = tu_json_file(json);
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(doc, "summary", "verdict", NULL)), "network-bound");
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(doc, "schema", NULL)), "tracecost/1");
    yajl_tree_free(doc);
    free(out);
    free(dir);
}

typedef struct {
    const char *opts;   /* tracegen options */
    const char *verdict;
} planted_job;

static const planted_job jobs[] = {
    {"--ranks 4 --straggler 2 --straggler-delay-us 6000 --clock-offset-us 5000", "straggler-bound"},
    {"--ranks 8 --busbw-GBps 5 --clock-offset-us 8000 --overlap 0.25", "network-bound"},
    {"--ranks 4 --busbw-GBps 200 --overlap 1 --idle-us 2000", "compute-bound"},
    {"--ranks 4 --idle-us 12000 --busbw-GBps 200", "host-bound"},
    {"--ranks 3 --no-seq --straggler 1 --straggler-delay-us 5000 --clock-offset-us 4000", "straggler-bound"},
    {"--ranks 4 --no-pg --busbw-GBps 8 --layout oneline --time-format epoch --metadata-after", "network-bound"},
    {"--ranks 2 --no-coll-args --busbw-GBps 8 --layout indent4", NULL},
    {"--ranks 4 --straggler 1 --straggler-delay-us 6000 --time-format epoch --layout indent2sorted", "straggler-bound"},
};

Test(e2e, planted_multi_rank_jobs_are_recovered, .timeout = 180) {
    for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
        char *dir = tu_tmpdir(), *out = NULL;
        int rc = tu_sh(&out, "%s -o %s/job %s", tu_gen(), dir, jobs[i].opts);
        cr_assert_eq(rc, 0, "tracegen %s: %s", jobs[i].opts, out);
        free(out);
        rc = tu_sh(&out, "%s analyze -q --json %s/out.json %s/job/rank*.json", tu_bin(), dir, dir);
        cr_assert_eq(rc, 0, "%s: exit %d: %s", jobs[i].opts, rc, out);
        char json[512], exp[512];
        snprintf(json, sizeof json, "%s/out.json", dir);
        snprintf(exp, sizeof exp, "%s/job/expected.json", dir);
        if (strstr(jobs[i].opts, "--no-coll-args") == NULL) assert_matches_expected(json, exp);
        yajl_val doc = tu_json_file(json);
        if (jobs[i].verdict)
            cr_assert_str_eq(YAJL_GET_STRING(tu_get(doc, "summary", "verdict", NULL)), jobs[i].verdict, "%s", jobs[i].opts);
        yajl_tree_free(doc);
        free(out);
        tu_sh(NULL, "rm -rf %s", dir);
        free(dir);
    }
}

Test(e2e, clock_offsets_do_not_change_waits_or_transfers) {
    char *dir = tu_tmpdir();
    cr_assert_eq(tu_sh(NULL, "%s -o %s/a --ranks 4 --straggler 1 --seed 7 && %s -o %s/b --ranks 4 --straggler 1 --seed 7 "
                       "--clock-offset-us 9000", tu_gen(), dir, tu_gen(), dir), 0);
    cr_assert_eq(tu_sh(NULL, "%s analyze -q --json %s/a.json %s/a/rank*.json && %s analyze -q --json %s/b.json %s/b/rank*.json",
                       tu_bin(), dir, dir, tu_bin(), dir, dir), 0);
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/a.json", dir);
    snprintf(pb, sizeof pb, "%s/b.json", dir);
    yajl_val a = tu_json_file(pa), b = tu_json_file(pb);
    for (int r = 0; r < 4; r++) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", r % 100);
        yajl_val ra = tu_get(a, "ranks", idx, NULL), rb = tu_get(b, "ranks", idx, NULL);
        cr_assert_eq(field(ra, "exposed_wait_us"), field(rb, "exposed_wait_us"));
        cr_assert_eq(field(ra, "exposed_transfer_us"), field(rb, "exposed_transfer_us"));
    }
    yajl_tree_free(a);
    yajl_tree_free(b);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(e2e, stdin_input) {
    char *out = NULL;
    int rc = tu_sh(&out, "zcat samples/real/nccl_data.json.gz | %s analyze --json - -", tu_bin());
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "\"schema\": \"tracecost/1\""));
    cr_assert(strstr(out, "\"path\": \"-\""));
    free(out);
}

Test(e2e, real_pair_is_matched_and_explained) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze samples/hta-pair", tu_bin());
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "world_size 128"), "the output explains that 126 ranks are missing: %s", out);
    cr_assert(strstr(out, "matched by order"), "the output explains how kernels were matched: %s", out);
    free(out);
}

Test(e2e, usage_and_input_errors_have_documented_exit_codes) {
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze", tu_bin()), 1);
    cr_assert(strstr(out, "no input given"));
    free(out);
    cr_assert_eq(tu_sh(&out, "%s analyze --jsn x samples/", tu_bin()), 1);
    cr_assert(strstr(out, "did you mean --json?"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s analyze /nonexistent/trace.json", tu_bin()), 2);
    cr_assert(strstr(out, "/nonexistent/trace.json"));
    free(out);
    /* two files with one rank (a copy: the same file named twice is read once) */
    cr_assert_eq(tu_sh(&out, "d=$(mktemp -d) && cp samples/real/nccl_data.json.gz $d/copy.json.gz && "
                             "%s analyze samples/real/nccl_data.json.gz $d/copy.json.gz; rc=$?; rm -rf $d; exit $rc",
                       tu_bin()), 1);
    cr_assert(strstr(out, "are both rank 0"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s --version", tu_bin()), 0);
    cr_assert(strstr(out, "tracecost 0."));
    free(out);
    cr_assert_eq(tu_sh(&out, "%s analyze --help", tu_bin()), 0);
    cr_assert(strstr(out, "Usage: tracecost analyze"));
    free(out);
}

Test(e2e, rank_from_file_name_when_trace_has_none) {
    char *dir = tu_tmpdir(), *out = NULL;
    const char *doc = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]";
    cr_assert_eq(tu_sh(NULL, "printf '%%s' '%s' > %s/job_rank-5.json && printf '%%s' '%s' > %s/x_rank_2.json", doc, dir, doc, dir), 0);
    cr_assert_eq(tu_sh(&out, "%s analyze --json - %s", tu_bin(), dir), 0, "%s", out);
    cr_assert(strstr(out, "\"rank\": 2"));
    cr_assert(strstr(out, "\"rank\": 5"));
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(e2e, rank_from_file_name_keeps_every_digit) {
    cr_assert_eq(tc_rank_from_name("run/rank1000000000.json"), 1000000000);
    cr_assert_eq(tc_rank_from_name("run/rank1000000001.json"), 1000000001);
    cr_assert_eq(tc_rank_from_name("RANK_9223372036854775807.json"), INT64_MAX);
    cr_assert_eq(tc_rank_from_name("rank9223372036854775808.json"), -1); /* past int64: no rank */
    cr_assert_eq(tc_rank_from_name("rank3_rank99999999999999999999.json"), 3); /* the last one that fits */
}

Test(e2e, cost_from_a_network_bound_job, .timeout = 60) {
    char *dir = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(NULL, "%s -o %s/job --ranks 8 --busbw-GBps 5 --overlap 0.25", tu_gen(), dir), 0);
    int rc = tu_sh(&out, "%s analyze -q --json %s/out.json --price-per-gpu-hour 2 --purchase-per-gpu 30000 %s/job", tu_bin(), dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char json[512];
    snprintf(json, sizeof json, "%s/out.json", dir);
    yajl_val doc = tu_json_file(json);
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(doc, "summary", "verdict", NULL)), "network-bound");
    /* the cost judges the step window (docs/definitions.md "Step window") */
    double s = tu_num(tu_get(doc, "summary", "step_shares", "exposed_transfer", NULL));
    /* effective GPUs N·T_ref/T against a network that moves bytes instantly (issue 29): on one node no
     * transfer is the network's, so all 8; the intra-node transfer is its own loss, below */
    double eff = tu_num(tu_get(doc, "cost", "effective_gpus", NULL));
    cr_assert_str_eq(tu_str(tu_get(doc, "cost", "effective_reference", NULL)), "instant");
    cr_assert(fabs(eff - 8) < 1e-9, "effective GPUs %.4f: one node, no network between nodes", eff);
    double loss = tu_num(tu_get(doc, "cost", "intra_node_comm_loss_per_month", NULL));
    cr_assert(fabs(loss - 8 * 2 * 730 * s) < 0.01, "intra-node comm loss %.2f", loss);
    cr_assert_eq(tu_num(tu_get(doc, "cost", "network_loss_per_month", NULL)), 0, "8 GPUs on one node: no network");
    yajl_tree_free(doc);
    /* bad values are refused with a message and exit 1 */
    cr_assert_eq(tu_sh(&out, "%s analyze -q --price-per-gpu-hour -2 %s/job", tu_bin(), dir), 1);
    cr_assert(strstr(out, "price-per-gpu-hour"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s analyze -q --gpus 0 %s/job", tu_bin(), dir), 1);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s cost --gpus 8 --price-per-gpu-hour 2 --network-efficiency 1.2", tu_bin()), 1);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s cost --gpus 8 --price-per-gpu-hour 2 --network-efficiency 0.6", tu_bin()), 0);
    cr_assert(strstr(out, "4.8") && strstr(out, "$4,672"), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(e2e, results_do_not_depend_on_jobs) {
    char *dir = tu_tmpdir();
    cr_assert_eq(tu_sh(NULL, "%s analyze -q -j1 --json %s/a1.json samples/ && %s analyze -q -j2 --json %s/a2.json samples/ && "
                       "%s analyze -q -j1 --json %s/b1.json samples/hta-pair && %s analyze -q -j2 --json %s/b2.json samples/hta-pair && "
                       "cmp %s/a1.json %s/a2.json && cmp %s/b1.json %s/b2.json", tu_bin(), dir, tu_bin(), dir, tu_bin(), dir,
                       tu_bin(), dir, dir, dir, dir, dir), 0, "-j1 and -j2 outputs differ");
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
