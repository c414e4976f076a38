/* test_realworld.c: what real jobs do that clean samples do not (issue 17), end to end with
 * build/tracecost and build/tracegen: a kernel lost from one rank or a rank cut short, with and
 * without collective args, on point-to-point kernels too (the figures are those of the intact job
 * for the instances that remain, and a warning says what was aligned); communication that is not
 * NCCL (DeepEP, symmetric memory, vLLM, user patterns); ROCm devices; mixed jobs; several profiler
 * windows per rank; events before the profiler's base time; ranks that leave a collective a few µs
 * apart, with µs timestamps (issue 28). */
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

/* Every per-rank figure of the analysis equals the planted one to the ns (µs with 3 decimals), and
 * the clock offsets within offset_tol µs (ranks that leave a collective apart show their offset
 * within that spread). */
static void assert_exact_offsets_within(yajl_val doc, yajl_val exp, const char *what, double offset_tol) {
    static const char *keys[] = {"window_us", "compute_us", "comm_us", "overlapped_comm_us", "exposed_comm_us",
                                 "memory_exposed_us", "idle_us", "exposed_wait_us", "exposed_transfer_us",
                                 "clock_offset_us"};
    yajl_val per = tu_get(exp, "per_rank", NULL), ranks = tu_get(doc, "ranks", NULL);
    cr_assert_eq(ranks->u.array.len, per->u.array.len, "%s: ranks", what);
    for (size_t r = 0; r < per->u.array.len; r++) {
        yajl_val want = per->u.array.values[r], got = ranks->u.array.values[r];
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            cr_expect(fabs(field(got, keys[k]) - field(want, keys[k])) < (strcmp(keys[k], "clock_offset_us") ? 0.0015 : offset_tol),
                      "%s: rank %zu %s: %.3f, planted %.3f", what, r, keys[k], field(got, keys[k]), field(want, keys[k]));
    }
}

static void assert_exact(yajl_val doc, yajl_val exp, const char *what) { assert_exact_offsets_within(doc, exp, what, 0.0015); }

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
    /* without collective args on the kernels and without process group or Seq on record_param_comms
     * (whose args a kernel without its own gets): kernels match by stream and order, aligned by
     * their end times */
    {"--ranks 8 --steps 4 --no-coll-args --no-pg --straggler 3 --clock-offset-us 3000 --drop-kernel 5:6",
     "rank 5 has 15 collective kernels, rank 0 has 16: aligned by end times (clock offset"},
    {"--ranks 8 --steps 4 --no-coll-args --no-pg --straggler 3 --clock-offset-us 3000 --cut-rank 2 --cut-after-step 2",
     "rank 0's #9-#16 have no partner on rank 2"},
    {"--ranks 4 --steps 3 --no-coll-args --no-pg --clock-offset-us 9000 --drop-kernel 0:1", "rank 1's #1 has none on rank 0"},
    {"--ranks 8 --steps 3 --buckets 2 --overlap 0 --no-coll-args --no-pg --drop-kernel 0:2 --drop-kernel 5:5 --straggler 1 "
     "--clock-offset-us 9000", "rank 0's #4 has no partner on rank 5; rank 5's #2 has none on rank 0"},
    {"--ranks 7 --steps 6 --buckets 2 --overlap 0 --seed 847 --no-coll-args --no-pg --drop-kernel 0:1 --cut-rank 5 --cut-after-step 3",
     "rank 0's #6-#11 have no partner on rank 5"},
    {"--ranks 4 --fsdp --no-coll-args --drop-kernel 2:4", NULL},
    /* kernels without args, record_param_comms with them (Seq too): the lost instance stays unmatched */
    {"--ranks 8 --steps 4 --no-coll-args --straggler 3 --clock-offset-us 3000 --drop-kernel 5:6", NULL},
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

/* ---- 2. real clocks: ranks leave a collective a few µs apart, timestamps in whole µs ---------------
 * (issue 28) Intact jobs whose ranks end each collective up to 1-3 µs apart (--end-spread-us), with
 * µs timestamps (--time-format epoch) and kernels matched by order (--no-pg): every instance is
 * matched and the planted waits and transfers come out exactly; a lost kernel leaves every other
 * instance matched, the straggler as planted, and makes the basis partial with the count. */

static const char *const spread_jobs[] = {
    "--ranks 8 --steps 1 --buckets 5 --no-pg --time-format epoch --end-spread-us 3 --seed 2 --straggler 2",
    "--ranks 8 --steps 3 --buckets 3 --no-pg --time-format epoch --end-spread-us 1 --seed 6 --clock-offset-us 3000",
    "--ranks 8 --steps 2 --buckets 4 --no-pg --no-coll-args --time-format epoch --end-spread-us 1 --seed 3 --straggler 5",
    "--ranks 8 --steps 3 --buckets 5 --no-pg --no-coll-args --time-format epoch --end-spread-us 2 --seed 5",
    "--ranks 4 --steps 3 --comm-lib deepep --time-format epoch --end-spread-us 3 --seed 4",
};

Test(realworld, ranks_leaving_collectives_apart_match_every_instance, .timeout = 120) {
    for (size_t i = 0; i < sizeof spread_jobs / sizeof *spread_jobs; i++) {
        char *dir = tu_tmpdir();
        yajl_val doc = gen_and_analyze(dir, spread_jobs[i], NULL), exp = expected_of(dir);
        assert_exact_offsets_within(doc, exp, spread_jobs[i], 3.0015);
        assert_matched_waits(doc, exp, spread_jobs[i]);
        cr_expect_str_eq(YAJL_GET_STRING(tu_get(doc, "summary", "basis", NULL)), "complete", "%s", spread_jobs[i]);
        cr_expect_not(warned(doc, "could not be matched"), "%s: an instance left unmatched", spread_jobs[i]);
        cr_expect_eq(YAJL_GET_INTEGER(tu_get(doc, "summary", "unmatched_collectives", NULL)), 0, "%s", spread_jobs[i]);
        yajl_val sp = tu_get(doc, "summary", "collective_end_spread_us", NULL); /* within the planted 1-3 µs */
        cr_expect(sp && YAJL_IS_NUMBER(sp) && YAJL_GET_DOUBLE(sp) <= 3.0005, "%s: end spread", spread_jobs[i]);
        yajl_tree_free(doc);
        yajl_tree_free(exp);
        tu_sh(NULL, "rm -rf %s", dir);
        free(dir);
    }
}

static const struct {
    const char *opts;
    const char *basis; /* summary.basis_summary */
} spread_damaged[] = {
    {"--ranks 8 --steps 3 --no-pg --no-coll-args --time-format epoch --end-spread-us 3 --straggler 2 --drop-kernel 3:5",
     "1 of 12 collectives unmatched, 0% of exposed communication"},
    {"--ranks 8 --steps 3 --no-pg --time-format epoch --end-spread-us 3 --straggler 2 --drop-kernel 0:4",
     "1 of 12 collectives unmatched, 15% of exposed communication"},
    {"--ranks 8 --steps 3 --buckets 2 --overlap 0 --no-pg --no-coll-args --time-format epoch --end-spread-us 2 --straggler 2 "
     "--clock-offset-us 5000 --drop-kernel 6:3", "1 of 6 collectives unmatched, 15% of exposed communication"},
};

Test(realworld, a_lost_kernel_on_real_clocks_is_said_and_moves_nothing_else, .timeout = 120) {
    for (size_t i = 0; i < sizeof spread_damaged / sizeof *spread_damaged; i++) {
        const char *opts = spread_damaged[i].opts;
        char *dir = tu_tmpdir();
        yajl_val doc = gen_and_analyze(dir, opts, NULL), exp = expected_of(dir);
        assert_exact_offsets_within(doc, exp, opts, 3.0015);
        assert_matched_waits(doc, exp, opts);
        cr_expect_str_eq(YAJL_GET_STRING(tu_get(doc, "summary", "basis", NULL)), "partial", "%s", opts);
        const char *bs = YAJL_GET_STRING(tu_get(doc, "summary", "basis_summary", NULL));
        cr_expect(bs && strcmp(bs, spread_damaged[i].basis) == 0, "%s: basis_summary \"%s\"", opts, bs ? bs : "(null)");
        yajl_val s = tu_get(doc, "summary", "straggler_rank", NULL);
        cr_expect(s && YAJL_IS_NUMBER(s) && YAJL_GET_INTEGER(s) == 2, "%s: the planted straggler", opts);
        cr_expect_eq(YAJL_GET_INTEGER(tu_get(doc, "summary", "unmatched_collectives", NULL)), 1, "%s", opts);
        yajl_tree_free(doc);
        yajl_tree_free(exp);
        tu_sh(NULL, "rm -rf %s", dir);
        free(dir);
    }
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

/* ---- 2. communication that is not NCCL ----------------------------------------------------------- */

/* A planted job whose gradient collectives are another library's kernels (no collective args):
 * they are communication, matched across ranks by stream and order, and every figure is the
 * planted one; the terminal says where the communication came from. */
Test(realworld, other_libraries_communication_is_communication, .timeout = 120) {
    static const struct { const char *lib, *name; } libs[] = {
        {"deepep", "DeepEP"}, {"symm", "PyTorch symmetric memory"}, {"vllm", "vLLM custom all-reduce"},
    };
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        char *dir = tu_tmpdir(), opts[200], *out = NULL;
        snprintf(opts, sizeof opts, "--ranks 4 --comm-lib %s --straggler 2 --clock-offset-us 2000", libs[i].lib);
        yajl_val doc = gen_and_analyze(dir, opts, NULL), exp = expected_of(dir);
        assert_exact(doc, exp, opts);
        yajl_val lib = tu_get(doc, "summary", "comm_libraries", "#0", NULL);
        cr_assert(lib, "%s: no comm_libraries", opts);
        cr_expect_str_eq(YAJL_GET_STRING(tu_get(lib, "library", NULL)), libs[i].name);
        cr_expect_eq(YAJL_GET_INTEGER(tu_get(lib, "kernels", NULL)), 4 * (long long)field(tu_get(exp, "per_rank", "#0", NULL), "comm_kernels"));
        yajl_val s = tu_get(doc, "summary", "straggler_rank", NULL);
        cr_expect(s && YAJL_IS_NUMBER(s) && YAJL_GET_INTEGER(s) == 2, "%s: the straggler", opts);
        cr_assert_eq(tu_sh(&out, "%s analyze %s/job", tu_bin(), dir), 0);
        cr_expect(strstr(out, "note: communication kernels by library:") && strstr(out, libs[i].name), "%s", out);
        free(out);
        yajl_tree_free(doc);
        yajl_tree_free(exp);
        tu_sh(NULL, "rm -rf %s", dir);
        free(dir);
    }
}

/* --comm-kernel REGEX and the config key comm-kernel make more kernels communication, in every
 * figure; a bad pattern is a usage error naming it. The B200 trace's GEMMs serve as "unknown
 * communication" here: its compute falls by their time. */
Test(realworld, user_patterns_from_the_flag_and_the_config) {
    char *dir = tu_tmpdir(), *out = NULL;
    const char *trace = "tests/data/ref/b200_eager_tp8.json.gz";
    cr_assert_eq(tu_sh(NULL, "%s analyze -q --json %s/plain.json %s && %s analyze -q --json %s/flag.json --comm-kernel '^bmm_' %s "
                             "&& printf 'comm-kernel = ^bmm_  # the bmm GEMMs\\nprice-per-gpu-hour = 2\\n' > %s/cfg && "
                             "%s analyze -q --json %s/cfg.json --config %s/cfg %s",
                       tu_bin(), dir, trace, tu_bin(), dir, trace, dir, tu_bin(), dir, dir, trace), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/plain.json", dir);
    yajl_val plain = tu_json_file(p);
    snprintf(p, sizeof p, "%s/flag.json", dir);
    yajl_val flag = tu_json_file(p);
    snprintf(p, sizeof p, "%s/cfg.json", dir);
    yajl_val cfg = tu_json_file(p);
    double c0 = field(tu_get(plain, "ranks", "#0", NULL), "compute_us"), c1 = field(tu_get(flag, "ranks", "#0", NULL), "compute_us");
    cr_expect(c1 < c0 - 5000, "the bmm kernels (5.2 ms) left compute: %.3f -> %.3f", c0, c1);
    cr_expect_eq(c1, field(tu_get(cfg, "ranks", "#0", NULL), "compute_us"), "the config key does what the flag does");
    yajl_val libs = tu_get(flag, "summary", "comm_libraries", NULL);
    bool user = false;
    for (size_t i = 0; i < libs->u.array.len; i++) {
        const char *name = YAJL_GET_STRING(tu_get(libs->u.array.values[i], "library", NULL));
        user |= name && !strcmp(name, "--comm-kernel") && YAJL_GET_INTEGER(tu_get(libs->u.array.values[i], "kernels", NULL)) == 72;
    }
    cr_expect(user, "72 bmm kernels counted under --comm-kernel");
    yajl_tree_free(plain);
    yajl_tree_free(flag);
    yajl_tree_free(cfg);
    cr_expect_eq(tu_sh(&out, "%s analyze --comm-kernel '(' %s", tu_bin(), trace), 1);
    cr_expect(strstr(out, "--comm-kernel: '(' is not a valid regular expression"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(NULL, "printf 'comm-kernel = [\\n' > %s/bad", dir), 0);
    cr_expect_eq(tu_sh(&out, "%s analyze --config %s/bad %s", tu_bin(), dir, trace), 1);
    cr_expect(strstr(out, "/bad:1: '[' is not a valid regular expression"), "%s", out);
    free(out);
    /* the cost calculator reads no trace: it skips the key */
    cr_expect_eq(tu_sh(&out, "%s cost --gpus 8 --network-efficiency 0.9 --config %s/cfg", tu_bin(), dir), 0, "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---- 3. AMD devices ------------------------------------------------------------------------------ */

/* A ROCm job: kernels carry the HSA agent id (2 + local rank) while deviceProperties lists only id
 * 0. Every rank gets its device, hence MFU and the catalog's price; RCCL's generic kernels are
 * communication. */
Test(realworld, rocm_agent_ids_resolve_to_the_listed_device, .timeout = 60) {
    char *dir = tu_tmpdir();
    yajl_val doc = gen_and_analyze(dir, "--ranks 4 --rocm-agent-ids", "--price-per-gpu-hour 2.5"), exp = expected_of(dir);
    assert_exact(doc, exp, "--rocm-agent-ids");
    for (int r = 0; r < 4; r++) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", r % 100);
        yajl_val rank = tu_get(doc, "ranks", idx, NULL);
        cr_expect_str_eq(YAJL_GET_STRING(tu_get(rank, "device", NULL)), "AMD Instinct MI300X");
        cr_expect_str_eq(YAJL_GET_STRING(tu_get(rank, "gpu", NULL)), "mi300x");
        double mfu = field(rank, "mfu"), want = field(tu_get(exp, "per_rank", idx, NULL), "mfu");
        cr_expect(fabs(mfu - want) < 1e-5, "rank %d MFU %.9f, planted %.9f", r, mfu, want);
    }
    cr_expect_str_eq(YAJL_GET_STRING(tu_get(doc, "summary", "comm_libraries", "#0", "library", NULL)), "RCCL");
    yajl_tree_free(doc);
    /* without a price flag the catalog's dated price is used */
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze %s/job", tu_bin(), dir), 0);
    cr_expect(strstr(out, "catalog:mi300x (price dated"), "%s", out);
    cr_expect(!strstr(out, "names no device"), "%s", out);
    free(out);
    yajl_tree_free(exp);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The real ROCm trace from SGLang on MI300X (kernels on agent 9, deviceProperties id 0) and the
 * 2021 kernel trace whose devices are under computeProperties; empty names (vLLM) are no name. */
Test(realworld, device_names_of_real_traces) {
    static const struct { const char *trace, *device, *gpu; } cases[] = {
        {"tests/data/real2/sglang_Qwen3-8B_decode.json.gz", "AMD Instinct MI300X", "mi300x"},
        {"tests/data/real2/gpu_metrics_input.json.gz", "Tesla V100-DGXS-32GB", "v100-sxm2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out = NULL;
        cr_assert_eq(tu_sh(&out, "%s analyze -q --json - %s", tu_bin(), cases[i].trace), 0, "%s", cases[i].trace);
        char want[200];
        snprintf(want, sizeof want, "\"device\": \"%s\"", cases[i].device);
        cr_expect(strstr(out, want), "%s: %s", cases[i].trace, want);
        snprintf(want, sizeof want, "\"gpu\": \"%s\"", cases[i].gpu);
        cr_expect(strstr(out, want), "%s: %s", cases[i].trace, want);
        free(out);
    }
    char *dir = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(NULL, "printf '%%s' '{\"deviceProperties\": [{\"id\": 0, \"name\": \"\"}], \"traceEvents\": "
                             "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]}' > %s/empty.json",
                       dir), 0);
    cr_assert_eq(tu_sh(&out, "%s analyze %s/empty.json", tu_bin(), dir), 0);
    cr_expect(strstr(out, "the trace names no device"), "an empty name is no name: %s", out);
    cr_expect(!strstr(out, "device '' is not in the GPU catalog"), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---- 4. two jobs given as one -------------------------------------------------------------------- */

Test(realworld, inputs_of_different_jobs_are_an_error_naming_them, .timeout = 60) {
    char *dir = tu_tmpdir(), *out = NULL;
    /* 4 ranks of a world of 4 and 4 ranks of a world of 8, other clocks */
    cr_assert_eq(tu_sh(NULL, "%s -o %s/a --ranks 4 && %s -o %s/b --ranks 8 --seed 5 --clock-offset-us 3000 && mkdir %s/mixed && "
                             "cp %s/a/rank*.json %s/mixed/ && for r in 4 5 6 7; do cp %s/b/rank$r.pt.trace.json %s/mixed/; done",
                       tu_gen(), dir, tu_gen(), dir, dir, dir, dir, dir, dir), 0);
    cr_expect_eq(tu_sh(&out, "%s analyze %s/mixed", tu_bin(), dir), 1);
    cr_expect(strstr(out, "says world_size 4") && strstr(out, "says 8") && strstr(out, "they are not the ranks of one job"), "%s", out);
    cr_expect(strstr(out, "mixed/rank0.pt.trace.json") && strstr(out, "mixed/rank4.pt.trace.json"), "the files are named: %s", out);
    free(out);
    /* same world size, other process groups: tensor-parallel groups of 2 and of 4 */
    cr_assert_eq(tu_sh(NULL, "%s -o %s/t2 --ranks 4 --tp 2 && %s -o %s/t4 --ranks 4 --tp 4 && mkdir %s/pg && "
                             "cp %s/t2/rank0.pt.trace.json %s/t2/rank1.pt.trace.json %s/pg/ && "
                             "cp %s/t4/rank2.pt.trace.json %s/t4/rank3.pt.trace.json %s/pg/",
                       tu_gen(), dir, tu_gen(), dir, dir, dir, dir, dir, dir, dir, dir), 0);
    cr_expect_eq(tu_sh(&out, "%s analyze %s/pg", tu_bin(), dir), 1);
    cr_expect(strstr(out, "disagree on process group \"0\"") || strstr(out, "disagree on process group \"1\""), "%s", out);
    cr_expect(strstr(out, "ranks [") && strstr(out, "they are not the ranks of one job"), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Traces of one job whose clocks are two hours apart: analyzed, with a warning naming them. */
Test(realworld, inputs_hours_apart_get_a_warning) {
    char *dir = tu_tmpdir(), *out = NULL;
    for (int r = 0; r < 2; r++) {
        char path[600];
        snprintf(path, sizeof path, "%s/rank%d.json", dir, r);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "{\"baseTimeNanoseconds\": %lld, \"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": "
                   "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1.000,\"dur\":2.000}]}",
                1717171717000000000LL + r * 7200000000000LL, r);
        fclose(f);
    }
    cr_assert_eq(tu_sh(&out, "%s analyze -q --json - %s", tu_bin(), dir), 0, "%s", out);
    cr_expect(strstr(out, "rank1.json (rank 1) start 2.0 hours apart: are they one run of one job?"), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---- 5. several profiler windows per rank -------------------------------------------------------- */

Test(realworld, profiler_windows_are_grouped_and_picked, .timeout = 120) {
    char *dir = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s -o %s/job --ranks 4 --windows 3 --steps 2 --straggler 1 --clock-offset-us 2000", tu_gen(), dir), 0,
                 "%s", out);
    free(out);
    char p[512];
    snprintf(p, sizeof p, "%s/job/expected.json", dir);
    yajl_val exp = tu_json_file(p);
    /* default: the most recent window, with the others named */
    cr_assert_eq(tu_sh(&out, "%s analyze %s/job", tu_bin(), dir), 0, "%s", out);
    cr_expect(strstr(out, "profiler windows: 3 in the inputs, oldest first: 1 (steps 2-3, 4 files); 2 (steps 6-7, 4 files); 3"),
              "%s", out);
    cr_expect(strstr(out, "This is window 3 (the most recent;"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s analyze -q --json %s/last.json %s/job", tu_bin(), dir, dir), 0, "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/last.json", dir);
    yajl_val last = tu_json_file(p);
    assert_exact(last, exp, "the most recent window");
    cr_expect_eq(YAJL_GET_INTEGER(tu_get(last, "profiler_windows", "analyzed", NULL)), 3);
    cr_expect_eq(YAJL_GET_INTEGER(tu_get(last, "profiler_windows", "list", "#1", "first_step", NULL)), 6);
    yajl_tree_free(last);
    /* --window all: one result per window, oldest first, each the planted window's figures */
    cr_assert_eq(tu_sh(&out, "%s analyze -q --window all --json %s/all.json %s/job", tu_bin(), dir, dir), 0, "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/all.json", dir);
    yajl_val all = tu_json_file(p);
    yajl_val wins = tu_get(exp, "windows", NULL);
    cr_assert(YAJL_IS_ARRAY(all) && all->u.array.len == 3, "an array of 3 results");
    for (size_t w = 0; w < 3; w++) {
        yajl_val doc = all->u.array.values[w], want = wins->u.array.values[w];
        cr_expect_eq(YAJL_GET_INTEGER(tu_get(doc, "profiler_windows", "analyzed", NULL)), (long long)w + 1);
        assert_exact(doc, want, "a window of --window all");
    }
    yajl_tree_free(all);
    /* --window 1: the oldest */
    cr_assert_eq(tu_sh(&out, "%s analyze -q --window 1 --json %s/first.json %s/job", tu_bin(), dir, dir), 0, "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/first.json", dir);
    yajl_val first = tu_json_file(p);
    assert_exact(first, wins->u.array.values[0], "--window 1");
    yajl_tree_free(first);
    /* the terminal shows each window under its own heading */
    cr_assert_eq(tu_sh(&out, "%s analyze --window all %s/job", tu_bin(), dir), 0);
    cr_expect(strstr(out, "== profiler window 1 of 3 ==") && strstr(out, "== profiler window 3 of 3 =="), "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --window 4 %s/job", tu_bin(), dir), 1);
    cr_expect(strstr(out, "--window 4: the inputs hold 3 profiler windows"), "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --window 0 %s/job", tu_bin(), dir), 1);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --window all --html x.html %s/job", tu_bin(), dir), 1);
    cr_expect(strstr(out, "--html shows one profiler window"), "%s", out);
    free(out);
    /* the same file twice is not a window of its own: it is one input, read once, with a note */
    cr_expect_eq(tu_sh(&out, "f=$(ls %s/job/*.pt.trace.json | head -1); %s analyze $f $f", dir, tu_bin()), 0);
    cr_expect(strstr(out, "is named twice: read once"), "%s", out);
    cr_expect(!strstr(out, "profiler window"), "%s", out);
    free(out);
    yajl_tree_free(exp);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---- 6. events before the profiler's base time --------------------------------------------------- */

Test(realworld, negative_relative_ts_is_kept, .timeout = 60) {
    char *dir = tu_tmpdir();
    yajl_val doc = gen_and_analyze(dir, "--ranks 2 --negative-ts", NULL), exp = expected_of(dir);
    assert_exact(doc, exp, "--negative-ts");
    for (int r = 0; r < 2; r++) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", r % 100);
        cr_expect_eq(field(tu_get(doc, "inputs", idx, NULL), "gpu_events"), field(tu_get(exp, "per_rank", idx, NULL), "gpu_events"),
                     "every GPU event is kept");
        cr_expect_eq(field(tu_get(doc, "inputs", idx, NULL), "skipped_events"), 0);
    }
    yajl_tree_free(doc);
    yajl_tree_free(exp);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
