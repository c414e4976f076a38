/* test_pipeline.c: P2P pairing and the pipeline bubble (issue 33 item 1, docs/definitions.md
 * "Pipeline bubble") on planted pipeline jobs (tracegen --pp N --microbatches M: GPipe with blocking
 * send/recv kernels carrying Dst Rank / Src Rank and Seq 1, a slower stage, with the mess of real
 * jobs: end spread, µs-rounded timestamps, host time before the first kernel, handler file names,
 * clock offsets (measured from the transfers), lost P2P kernels (the rest aligned by their ends),
 * two data-parallel pipelines): every stage's and step's window, forward, backward, bubble, P2P
 * wait and transfer and charged wait, the slowest stage and the pair count held to expected.json;
 * --pp N finds the same stages by rank order; the verdict's bubble reason; the text section's width;
 * a job without P2P has no pipeline key. */
#include "testutil.h"
#include <math.h>
#include <sys/stat.h>

static yajl_val analyze(const char *dir, const char *flags) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze -q --no-cost %s --json - %s 2>/dev/null", tu_bin(), flags, dir);
    cr_assert_eq(rc, 0, "%s", out);
    char err[256];
    yajl_val v = yajl_tree_parse(out, err, sizeof err);
    cr_assert(v, "not JSON: %s", err);
    free(out);
    return v;
}

static const char *const FIGURES[] = {"window_us", "forward_us", "backward_us", "bubble_us", "p2p_wait_us",
                                      "p2p_transfer_us", "charged_wait_us"};

/* Every figure of got equals want's to the µs's third decimal (both are written with three). */
static void same_figures(yajl_val got, yajl_val want, const char *what, size_t row) {
    for (size_t i = 0; i < sizeof FIGURES / sizeof *FIGURES; i++) {
        double g = tu_num(tu_get(got, FIGURES[i], NULL)), w = tu_num(tu_get(want, FIGURES[i], NULL));
        cr_assert(fabs(g - w) < 0.0005, "%s %zu: %s %.3f, planted %.3f", what, row, FIGURES[i], g, w);
    }
}

static char *plant(const char *name, const char *flags) {
    static char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/pp-%s-%d", name, (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' %s >/dev/null", dir, tu_gen(), dir, flags), 0);
    return dir;
}

/* The job in dir analyzed with flags holds the plant exactly; source is "pattern" or "option". */
static void holds_plant(const char *dir, const char *flags, const char *source, bool slow_is_slowest) {
    char path[300];
    snprintf(path, sizeof path, "%s/expected.json", dir);
    yajl_val exp = tu_json_file(path), want = tu_get(exp, "pipeline", NULL);
    yajl_val res = analyze(dir, flags), p = tu_get(res, "pipeline", NULL);
    cr_assert(p && YAJL_IS_OBJECT(p), "a pipeline key");
    cr_assert_str_eq(tu_str(tu_get(p, "source", NULL)), source);
    cr_assert_eq(tu_num(tu_get(p, "stages_per_pipeline", NULL)), tu_num(tu_get(exp, "pp", NULL)));
    cr_assert_eq(tu_num(tu_get(p, "pipelines", NULL)), tu_num(tu_get(exp, "pipelines", NULL)));
    cr_assert_eq(tu_num(tu_get(p, "slowest_stage", NULL)), tu_num(tu_get(want, "slowest_stage", NULL)));
    if (slow_is_slowest) /* a property of the plant: with the slow stage first, its wait is relayed on */
        cr_assert_eq(tu_num(tu_get(want, "slowest_stage", NULL)), tu_num(tu_get(exp, "slow_stage", NULL)),
                     "the planted slow stage is the one charged most");
    cr_assert_eq(tu_num(tu_get(p, "p2p_pairs", NULL)), tu_num(tu_get(want, "p2p_pairs", NULL)));
    cr_assert_eq(tu_num(tu_get(p, "p2p_unpaired", NULL)), tu_num(tu_get(want, "p2p_unpaired", NULL)));
    cr_assert(fabs(tu_num(tu_get(p, "bubble_us", NULL)) - tu_num(tu_get(want, "bubble_us", NULL))) < 0.0005);
    cr_assert(fabs(tu_num(tu_get(p, "bubble_share", NULL)) - tu_num(tu_get(want, "bubble_share", NULL))) < 1e-6);
    yajl_val gs = tu_get(p, "stages", NULL), ws = tu_get(want, "stages", NULL);
    cr_assert(YAJL_IS_ARRAY(gs) && gs->u.array.len == ws->u.array.len, "every stage");
    for (size_t i = 0; i < gs->u.array.len; i++) {
        yajl_val g = gs->u.array.values[i], w = ws->u.array.values[i];
        cr_assert_eq(tu_num(tu_get(g, "pipeline", NULL)), tu_num(tu_get(w, "pipeline", NULL)), "row %zu", i);
        cr_assert_eq(tu_num(tu_get(g, "stage", NULL)), tu_num(tu_get(w, "stage", NULL)), "row %zu", i);
        cr_assert_eq(tu_num(tu_get(g, "rank", NULL)), tu_num(tu_get(w, "rank", NULL)), "row %zu", i);
        same_figures(g, w, "stage row", i);
        yajl_val gst = tu_get(g, "steps", NULL), wst = tu_get(w, "steps", NULL);
        cr_assert_eq(gst->u.array.len, wst->u.array.len, "row %zu: every step", i);
        for (size_t k = 0; k < gst->u.array.len; k++) {
            cr_assert_eq(tu_num(tu_get(gst->u.array.values[k], "step", NULL)), tu_num(tu_get(wst->u.array.values[k], "step", NULL)));
            same_figures(gst->u.array.values[k], wst->u.array.values[k], "step of row", i);
        }
    }
    yajl_val offs = tu_get(exp, "clock_offset_us", NULL), ranks = tu_get(res, "ranks", NULL);
    bool exact = tu_num(tu_get(exp, "end_spread_us", NULL)) == 0; /* else within the spread */
    for (size_t r = 0; exact && r < offs->u.array.len; r++) /* ranks[] by rank: rank r is row r */
        cr_assert(fabs(tu_num(tu_get(ranks->u.array.values[r], "clock_offset_us", NULL)) - tu_num(offs->u.array.values[r])) < 0.0005,
                  "rank %zu: the clock offset its transfers give", r);
    yajl_tree_free(res);
    yajl_tree_free(exp);
}

/* The "Done when" of issue 33: a 4-stage job, two data-parallel pipelines, with the mess. */
Test(pipeline, planted_four_stages_hold_the_plant, .timeout = 180) {
    const char *dir = plant("four", "--pp 4 --ranks 8 --steps 3 --microbatches 6 --pp-slow-stage 2 --end-spread-us 30 "
                                    "--time-format epoch --file-names handler --drop-kernel 2:3 --drop-kernel 5:30");
    holds_plant(dir, "", "pattern", true);
    holds_plant(dir, "--pp 4", "option", true); /* Megatron's rank order finds the same stages */
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(pipeline, planted_single_pipeline_slow_first_stage, .timeout = 120) {
    const char *dir = plant("one", "--pp 3 --ranks 3 --steps 2 --microbatches 2 --pp-slow-stage 0 --pp-slow-factor 2 "
                                   "--clock-offset-us 4000");
    holds_plant(dir, "", "pattern", false);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* When the bubble is the largest loss the verdict says so; the section fits 80 columns. */
Test(pipeline, bubble_reason_and_text_section, .timeout = 120) {
    const char *dir = plant("reason", "--pp 4 --ranks 4 --steps 2 --microbatches 4 --busbw-GBps 1000");
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "COLUMNS=80 %s analyze --no-cost %s 2>/dev/null", tu_bin(), dir), 0);
    tu_unwrap(out);
    cr_assert(strstr(out, "pipeline bubble ") && strstr(out, "of GPU time: more microbatches or an interleaved schedule"),
              "the bubble reason: %s", out);
    cr_assert(strstr(out, "Pipeline (1 pipeline of 4 stages, stages from the P2P pattern;"), "the section");
    cr_assert(strstr(out, "< slowest stage 1 (rank 1)"), "the slowest stage line");
    free(out);
    out = NULL;
    cr_assert_eq(tu_sh(&out, "COLUMNS=80 %s analyze --no-cost %s 2>/dev/null | sed -n '/^Pipeline/,/without peer args/p'",
                       tu_bin(), dir), 0);
    cr_assert(strlen(out) > 200, "the section: %s", out);
    tu_expect_width(out, 80);
    free(out);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(pipeline, absent_without_p2p, .timeout = 120) {
    const char *dir = plant("none", "--ranks 2 --steps 2");
    yajl_val res = analyze(dir, "");
    cr_assert_null(tu_get(res, "pipeline", NULL));
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* Two hand-written ranks: a send whose Dst Rank is text ("1", as some writers give it) and its recv
 * with a numeric Src Rank, both Seq 1; the figures follow the definitions by hand. */
static void write_rank(const char *dir, int rank, const char *events) {
    char path[320];
    snprintf(path, sizeof path, "%s/rank%d.json", dir, rank);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": [%s]}\n", rank, events);
    fclose(f);
}

#define P2P_ARGS(coll, peer_key, peer) \
    "\"args\": {\"Collective name\": \"" coll "\", \"Process Group Name\": \"1\", \"Process Group Description\": " \
    "\"PP\", \"In msg nelems\": 1024, \"dtype\": \"BFloat16\", \"" peer_key "\": " peer ", \"Seq\": 1}"

Test(pipeline, hand_written_pair, .timeout = 60) {
    char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/pp-hand-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir), 0);
    write_rank(dir, 0,
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_a\", \"pid\": 0, \"tid\": 7, \"ts\": 0, \"dur\": 100},"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv\", \"pid\": 0, \"tid\": 20, \"ts\": 100, "
               "\"dur\": 50, " P2P_ARGS("send", "Dst Rank", "\"1\"") "}");
    write_rank(dir, 1,
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv\", \"pid\": 1, \"tid\": 20, \"ts\": 20, "
               "\"dur\": 130, " P2P_ARGS("recv", "Src Rank", "0") "},"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_b\", \"pid\": 1, \"tid\": 7, \"ts\": 150, \"dur\": 100}");
    yajl_val res = analyze(dir, ""), p = tu_get(res, "pipeline", NULL);
    cr_assert(p, "a pipeline of two stages");
    cr_assert_eq(tu_num(tu_get(p, "p2p_pairs", NULL)), 1);
    cr_assert_eq(tu_num(tu_get(p, "slowest_stage", NULL)), 0, "rank 0 arrived later: its peer's wait is charged to it");
    /* stage, rank, window, forward, backward, bubble, wait, transfer, charged (µs) */
    const double want[2][9] = {{0, 0, 250, 100, 0, 100, 0, 50, 80}, {1, 1, 250, 100, 0, 100, 80, 50, 0}};
    for (size_t i = 0; i < 2; i++) {
        yajl_val s = tu_get(p, "stages", NULL)->u.array.values[i];
        cr_assert_eq(tu_num(tu_get(s, "stage", NULL)), want[i][0]);
        cr_assert_eq(tu_num(tu_get(s, "rank", NULL)), want[i][1]);
        for (size_t k = 0; k < 7; k++)
            cr_assert(fabs(tu_num(tu_get(s, FIGURES[k], NULL)) - want[i][2 + k]) < 1e-9, "stage %zu %s", i, FIGURES[k]);
        yajl_val st = tu_get(s, "steps", "#0", "step", NULL);
        cr_assert(st && YAJL_IS_NULL(st), "no ProfilerStep: one step, null");
    }
    /* the wait is the recv kernel's wait head: exposed wait in the breakdown */
    cr_assert(fabs(tu_num(tu_get(res, "ranks", "#1", "exposed_wait_us", NULL)) - 80) < 1e-9);
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}
