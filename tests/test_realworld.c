/* test_realworld.c: what real jobs do that clean samples do not (issue 17), end to end with
 * build/tracecost and build/tracegen: a kernel lost from one rank or a rank cut short, with and
 * without collective args, on point-to-point kernels too (the figures are those of the intact job
 * for the instances that remain, and a warning says what was aligned); communication that is not
 * NCCL (DeepEP, symmetric memory, vLLM, user patterns); ROCm devices; mixed jobs; several profiler
 * windows per rank; events before the profiler's base time. */
#include "testutil.h"
#include <math.h>

static double field(yajl_val obj, const char *key) { return tu_num(tu_get(obj, key, NULL)); }

/* Runs tracegen with opts into DIR/job and analyzes it into DIR/out.json; returns the JSON. */
static yajl_val gen_and_analyze(const char *dir, const char *opts, const char *analyze_opts) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s -o %s/job %s", tu_gen(), dir, opts);
    cr_assert_eq(rc, 0, "tracegen %s: %s", opts, out);
    free(out);
    rc = tu_sh(&out, "%s analyze -q --json %s/out.json %s %s/job", tu_bin(), dir, analyze_opts ? analyze_opts : "", dir);
    cr_assert(rc == 0 || rc == 3, "%s: exit %d: %s", opts, rc, out);
    free(out);
    char json[512];
    snprintf(json, sizeof json, "%s/out.json", dir);
    return tu_json_file(json);
}

static yajl_val expected_of(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/job/expected.json", dir);
    return tu_json_file(path);
}

/* Every per-rank figure of the analysis equals the planted one to the ns (µs with 3 decimals),
 * clock offsets included. */
static void assert_exact(yajl_val doc, yajl_val exp, const char *what) {
    static const char *keys[] = {"window_us", "compute_us", "comm_us", "overlapped_comm_us", "exposed_comm_us",
                                 "memory_exposed_us", "idle_us", "exposed_wait_us", "exposed_transfer_us",
                                 "clock_offset_us"};
    yajl_val per = tu_get(exp, "per_rank", NULL), ranks = tu_get(doc, "ranks", NULL);
    cr_assert_eq(ranks->u.array.len, per->u.array.len, "%s: ranks", what);
    for (size_t r = 0; r < per->u.array.len; r++) {
        yajl_val want = per->u.array.values[r], got = ranks->u.array.values[r];
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            cr_expect(fabs(field(got, keys[k]) - field(want, keys[k])) < 0.0015, "%s: rank %zu %s: %.3f, planted %.3f", what,
                      r, keys[k], field(got, keys[k]), field(want, keys[k]));
    }
}

/* The matched instances keep the intact job's waits: Σ of the collectives' wait totals = Σ of the
 * ranks' planted waits over matched instances. */
static void assert_matched_waits(yajl_val doc, yajl_val exp, const char *what) {
    double got = 0, want = 0;
    yajl_val colls = tu_get(doc, "collectives", NULL), per = tu_get(exp, "per_rank", NULL);
    for (size_t i = 0; i < colls->u.array.len; i++) got += field(colls->u.array.values[i], "wait_us_total");
    for (size_t r = 0; r < per->u.array.len; r++) want += field(per->u.array.values[r], "matched_wait_us");
    cr_expect(fabs(got - want) < 0.01, "%s: matched waits %.3f, planted %.3f", what, got, want);
}

static bool warned(yajl_val doc, const char *text) {
    yajl_val w = tu_get(doc, "warnings", NULL);
    for (size_t i = 0; w && i < w->u.array.len; i++) {
        const char *s = YAJL_GET_STRING(w->u.array.values[i]);
        if (s && strstr(s, text)) return true;
    }
    return false;
}

/* ---- 1. lost kernels and cut-off ranks --------------------------------------------------------- */

typedef struct {
    const char *opts;     /* tracegen options of the damaged job */
    const char *warning;  /* a part of the warning that says what was aligned (NULL: none expected) */
} damaged_job;

static const damaged_job damaged[] = {
    /* without collective args: kernels match by stream and order, aligned by their end times */
    {"--ranks 8 --steps 4 --no-coll-args --straggler 3 --clock-offset-us 3000 --drop-kernel 5:6",
     "rank 5 has 15 collective kernels, rank 0 has 16: aligned by end times (clock offset"},
    {"--ranks 8 --steps 4 --no-coll-args --straggler 3 --clock-offset-us 3000 --cut-rank 2 --cut-after-step 2",
     "rank 0's #9-#16 have no partner on rank 2"},
    {"--ranks 4 --steps 3 --no-coll-args --clock-offset-us 9000 --drop-kernel 0:1", "rank 1's #1 has none on rank 0"},
    {"--ranks 8 --steps 3 --buckets 2 --overlap 0 --no-coll-args --drop-kernel 0:2 --drop-kernel 5:5 --straggler 1 "
     "--clock-offset-us 9000", "rank 0's #4 has no partner on rank 5; rank 5's #2 has none on rank 0"},
    {"--ranks 7 --steps 6 --buckets 2 --overlap 0 --seed 847 --no-coll-args --drop-kernel 0:1 --cut-rank 5 --cut-after-step 3",
     "rank 0's #6-#11 have no partner on rank 5"},
    {"--ranks 4 --fsdp --no-coll-args --drop-kernel 2:4", NULL},
    /* process groups without Seq: ordinals per group, aligned the same way */
    {"--ranks 4 --no-seq --drop-kernel 2:9 --straggler 1", "rank 2 has 11 collective kernels"},
    {"--ranks 3 --steps 3 --buckets 3 --overlap 0.25 --seed 556 --no-pg --clock-offset-us 9000 --drop-kernel 1:2 "
     "--drop-kernel 1:8 --drop-kernel 0:9", "rank 0's #2, #8 have no partner on rank 1; rank 1's #7 has none on rank 0"},
    /* with Seq: the lost instance simply stays unmatched */
    {"--ranks 4 --drop-kernel 2:9 --straggler 1", NULL},
    {"--ranks 4 --steps 5 --cut-rank 1 --cut-after-step 2", NULL},
    {"--ranks 8 --tp 2 --no-seq --drop-kernel 3:20 --cut-rank 5 --cut-after-step 2", NULL},
    /* other libraries' kernels, which never carry args */
    {"--ranks 4 --comm-lib deepep --drop-kernel 2:5", "rank 2 has"},
    {"--ranks 4 --comm-lib symm --cut-rank 3 --cut-after-step 2", "have no partner on rank 3"},
};

Test(realworld, lost_kernels_and_cut_ranks_give_the_intact_figures_of_what_remains, .timeout = 240) {
    for (size_t i = 0; i < sizeof damaged / sizeof *damaged; i++) {
        char *dir = tu_tmpdir();
        yajl_val doc = gen_and_analyze(dir, damaged[i].opts, NULL), exp = expected_of(dir);
        assert_exact(doc, exp, damaged[i].opts);
        assert_matched_waits(doc, exp, damaged[i].opts);
        if (damaged[i].warning)
            cr_expect(warned(doc, damaged[i].warning), "%s: no warning with \"%s\"", damaged[i].opts, damaged[i].warning);
        yajl_tree_free(doc);
        yajl_tree_free(exp);
        tu_sh(NULL, "rm -rf %s", dir);
        free(dir);
    }
}

/* The straggler of a damaged job is the intact job's: the alignment pairs no rank's kernels with the
 * wrong instances. */
Test(realworld, a_lost_kernel_does_not_move_the_straggler, .timeout = 60) {
    char *dir = tu_tmpdir();
    yajl_val doc = gen_and_analyze(dir, "--ranks 8 --steps 4 --no-coll-args --straggler 3 --straggler-delay-us 6000 "
                                        "--clock-offset-us 5000 --drop-kernel 5:3", NULL);
    yajl_val s = tu_get(doc, "summary", "straggler_rank", NULL);
    cr_assert(s && YAJL_IS_NUMBER(s), "a straggler is named");
    cr_expect_eq(YAJL_GET_INTEGER(s), 3);
    cr_expect_str_eq(YAJL_GET_STRING(tu_get(doc, "summary", "verdict", NULL)), "straggler-bound");
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Point-to-point kernels (SendRecv, no args) whose peers are among the inputs: their ends coincide,
 * so a lost one is found. Rank 1's clock is 5 ms ahead and it lacks the third kernel; rank 0's
 * kernels last 40 + 5k µs longer (it waits), ends every 500 µs. */
Test(realworld, point_to_point_kernels_are_aligned_by_their_ends) {
    char *dir = tu_tmpdir();
    for (int r = 0; r < 2; r++) {
        char path[600], buf[4096];
        size_t n = (size_t)snprintf(buf, sizeof buf, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": [", r);
        bool first = true;
        for (int k = 0; k < 6; k++) {
            if (r == 1 && k == 2) continue;
            long end = 1000 + 500 * k + (r ? 5000 : 0), dur = r ? 60 + 5 * k : 100 + 10 * k;
            n += (size_t)snprintf(buf + n, sizeof buf - n,
                                  "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)\","
                                  "\"pid\":0,\"tid\":84,\"ts\":%ld,\"dur\":%ld}", first ? "" : ",", end - dur, dur);
            first = false;
        }
        snprintf(buf + n, sizeof buf - n, "]}");
        snprintf(path, sizeof path, "%s/p2p_rank%d.json", dir, r);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(buf, f);
        fclose(f);
    }
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze -q --json %s/out.json %s/p2p_rank0.json %s/p2p_rank1.json", tu_bin(), dir, dir, dir), 0,
                 "%s", out);
    free(out);
    char json[512];
    snprintf(json, sizeof json, "%s/out.json", dir);
    yajl_val doc = tu_json_file(json);
    yajl_val r0 = tu_get(doc, "ranks", "#0", NULL), r1 = tu_get(doc, "ranks", "#1", NULL);
    /* matched: k = 0, 1, 3, 4, 5. Rank 0 waits Σ(40 + 5k) = 265 µs; transfers Σ(60 + 5k) = 365 µs plus
     * its unmatched kernel (120 µs) */
    cr_expect(fabs(field(r0, "exposed_wait_us") - 265) < 0.0015, "%.3f", field(r0, "exposed_wait_us"));
    cr_expect(fabs(field(r0, "exposed_transfer_us") - 485) < 0.0015, "%.3f", field(r0, "exposed_transfer_us"));
    cr_expect(fabs(field(r1, "exposed_wait_us")) < 0.0015);
    cr_expect(fabs(field(r1, "exposed_transfer_us") - 365) < 0.0015);
    cr_expect(fabs(field(r1, "clock_offset_us") - 5000) < 0.0015, "%.3f", field(r1, "clock_offset_us"));
    cr_expect(warned(doc, "rank 1 has 5 collective kernels, rank 0 has 6: aligned by end times (clock offset +5.000 ms), 5 pairs "
                          "agree; rank 0's #3 has no partner on rank 1"), "the warning says what was aligned");
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The real pair of 2 of 128 ranks: its SendRecv kernels' peers are mostly not among the inputs, so
 * their ends do not agree; with one lost, they are paired in order, unshifted, and the warning says
 * so and names the kernel left over. */
Test(realworld, point_to_point_kernels_without_agreement_pair_in_order) {
    char *dir = tu_tmpdir(), *out = NULL;
    /* rank 1 without its third SendRecv kernel on stream 84 (the file is one line of events) */
    cr_assert_eq(tu_sh(NULL, "cp samples/hta-pair/sampled_rank-0.json.gz %s/ && gzip -dc samples/hta-pair/sampled_rank-1.json.gz | "
                             "sed 's/{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_SendRecv[^}]*\"ts\": 1682725898298964[^}]*}[^}]*}, //' "
                             "> %s/sampled_rank-1.json && ! grep -q 1682725898298964 %s/sampled_rank-1.json",
                       dir, dir, dir), 0);
    cr_assert_eq(tu_sh(&out, "%s analyze -q --json %s/out.json %s/sampled_rank-0.json.gz %s/sampled_rank-1.json", tu_bin(), dir, dir,
                       dir), 0, "%s", out);
    free(out);
    char json[512];
    snprintf(json, sizeof json, "%s/out.json", dir);
    yajl_val doc = tu_json_file(json);
    cr_expect(warned(doc, "rank 1 has 7 collective kernels, rank 0 has 8: their end times agree under no clock offset, so they were "
                          "paired in order, unshifted; rank 0's #8 has no partner on rank 1"), "the warning says what was done");
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
