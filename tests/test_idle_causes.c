/* test_idle_causes.c: why the GPU waits (docs/definitions.md "Idle causes", "Launch statistics",
 * "Steps"), end to end: each planted cause of tracegen --idle-cause is recovered exactly, per rank
 * and per step; the causes add up exactly to idle_us on every sample and every trace in tests/data;
 * the real traces of tests/data/idle give the shares of an independent implementation; a host-bound
 * verdict names the measured cause and its actions the evidence (the sync call and its op, the
 * DataLoader op, the launch rate); the per-step view and launch statistics; the call lists. */
#include "testutil.h"
#include "analyzer/host_wait.h"
#include <dirent.h>
#include <glob.h>
#include <math.h>
#include <stdbool.h>

static const char *const cause_keys[] = {"gpu_side_us", "sync_us", "data_loading_us", "memory_management_us",
                                         "module_load_us", "launch_overhead_us", "cpu_other_us", "unattributed_us"};
#define N_CAUSES (sizeof cause_keys / sizeof *cause_keys)

/* A JSON µs number ("1234.567") as exact integer ns. */
static long long ns_of(yajl_val v) {
    cr_assert(v && YAJL_IS_NUMBER(v), "expected a number");
    const char *s = v->u.number.r;
    bool neg = *s == '-';
    if (neg) s++;
    long long whole = 0, frac = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++) whole = whole * 10 + (*s - '0');
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9' && digits < 3; s++, digits++) frac = frac * 10 + (*s - '0');
    cr_assert(*s == 0, "not an exact µs value: %s", v->u.number.r);
    for (; digits < 3; digits++) frac *= 10;
    long long ns = whole * 1000 + frac;
    return neg ? -ns : ns;
}

/* The causes of an idle_causes object add up to idle exactly; returns their sum. */
static long long causes_sum(yajl_val causes, const char *what) {
    cr_assert(causes && YAJL_IS_OBJECT(causes), "%s: no idle_causes", what);
    cr_assert_eq(causes->u.object.len, N_CAUSES, "%s: %zu causes", what, causes->u.object.len);
    long long sum = 0;
    for (size_t k = 0; k < N_CAUSES; k++) {
        long long v = ns_of(tu_get(causes, cause_keys[k], NULL));
        cr_assert_geq(v, 0, "%s: %s < 0", what, cause_keys[k]);
        sum += v;
    }
    return sum;
}

/* Every rank, step and the summary of a result: causes add up to idle_us exactly. */
static void expect_causes_add_up(yajl_val o, const char *what) {
    yajl_val ranks = tu_get(o, "ranks", NULL);
    cr_assert(ranks && YAJL_IS_ARRAY(ranks), "%s", what);
    for (size_t r = 0; r < ranks->u.array.len; r++) {
        yajl_val rk = ranks->u.array.values[r];
        cr_assert_eq(causes_sum(tu_get(rk, "idle_causes", NULL), what), ns_of(tu_get(rk, "idle_us", NULL)), "%s: rank %zu",
                     what, r);
        cr_assert_leq(ns_of(tu_get(rk, "idle_after_sync_us", NULL)), ns_of(tu_get(rk, "idle_us", NULL)), "%s", what);
        yajl_val steps = tu_get(rk, "steps", NULL);
        for (size_t s = 0; s < steps->u.array.len; s++) {
            yajl_val st = steps->u.array.values[s];
            cr_assert_eq(causes_sum(tu_get(st, "idle_causes", NULL), what), ns_of(tu_get(st, "idle_us", NULL)),
                         "%s: rank %zu step %zu", what, r, s);
        }
    }
    yajl_val sm = tu_get(o, "summary", NULL);
    cr_assert_eq(causes_sum(tu_get(sm, "idle_causes", NULL), what), ns_of(tu_get(sm, "idle_us", NULL)), "%s: summary", what);
    double shares = 0;
    for (size_t k = 0; k < N_CAUSES; k++) {
        char key[40];
        snprintf(key, sizeof key, "%.*s", (int)strlen(cause_keys[k]) - 3, cause_keys[k]);
        shares += tu_num(tu_get(sm, "idle_cause_shares", key, NULL));
    }
    cr_assert_float_eq(shares, tu_num(tu_get(sm, "shares", "idle", NULL)), 1e-9, "%s: shares", what);
}

static yajl_val analyze_json(const char *dir, const char *input, const char *flags) {
    char *out = NULL;
    int rc = tu_sh(&out, "'%s' analyze -q %s --json %s/out.json %s", tu_bin(), flags, dir, input);
    cr_assert(rc == 0 || rc == 3, "analyze %s: rc %d: %s", input, rc, out);
    free(out);
    char path[512];
    snprintf(path, sizeof path, "%s/out.json", dir);
    return tu_json_file(path);
}

Test(idle_causes, add_up_exactly_on_every_sample_and_test_trace) {
    static const char *const patterns[] = {"samples/*.json.gz", "samples/real/*", "samples/hta-pair/*",
                                           "tests/data/*.json.gz", "tests/data/ref/*", "tests/data/idle/*",
                                           "tests/data/damage/*.json"};
    char *dir = tu_tmpdir();
    size_t traces = 0;
    for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
        glob_t g;
        cr_assert_eq(glob(patterns[p], 0, NULL, &g), 0, "%s", patterns[p]);
        for (size_t i = 0; i < g.gl_pathc; i++) {
            yajl_val o = analyze_json(dir, g.gl_pathv[i], "");
            expect_causes_add_up(o, g.gl_pathv[i]);
            yajl_tree_free(o);
            traces++;
        }
        globfree(&g);
    }
    cr_assert_geq(traces, 20);
    yajl_val o = analyze_json(dir, "samples/", ""); /* a job of four ranks */
    expect_causes_add_up(o, "samples/");
    yajl_tree_free(o);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Generates an idle-cause job and compares every rank and step figure with expected.json. */
static void expect_planted(const char *cause, const char *gen_flags) {
    char *dir = tu_tmpdir();
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "'%s' -o %s/job --ranks 1 --idle-cause %s %s", tu_gen(), dir, cause, gen_flags), 0, "%s", out);
    free(out);
    char input[512], exp[512];
    snprintf(input, sizeof input, "%s/job", dir);
    snprintf(exp, sizeof exp, "%s/job/expected.json", dir);
    yajl_val e = tu_json_file(exp), o = analyze_json(dir, input, "");
    yajl_val pe = tu_get(e, "per_rank", "#0", NULL), rk = tu_get(o, "ranks", "#0", NULL);
    cr_assert_eq(ns_of(tu_get(rk, "idle_us", NULL)), ns_of(tu_get(pe, "idle_us", NULL)), "%s: idle", cause);
    for (size_t k = 0; k < N_CAUSES; k++)
        cr_assert_eq(ns_of(tu_get(rk, "idle_causes", cause_keys[k], NULL)), ns_of(tu_get(pe, "idle_causes", cause_keys[k], NULL)),
                     "%s: rank %s", cause, cause_keys[k]);
    cr_assert_eq(ns_of(tu_get(rk, "idle_after_sync_us", NULL)), ns_of(tu_get(pe, "idle_after_sync_us", NULL)), "%s", cause);
    yajl_val esteps = tu_get(pe, "steps", NULL), steps = tu_get(rk, "steps", NULL);
    cr_assert_eq(steps->u.array.len, esteps->u.array.len, "%s: steps", cause);
    for (size_t s = 0; s < esteps->u.array.len; s++) {
        yajl_val es = esteps->u.array.values[s], st = steps->u.array.values[s];
        char name[48];
        snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)YAJL_GET_INTEGER(tu_get(es, "step_number", NULL)));
        cr_assert_str_eq(YAJL_GET_STRING(tu_get(st, "name", NULL)), name);
        cr_assert_eq(ns_of(tu_get(st, "idle_us", NULL)), ns_of(tu_get(es, "idle_us", NULL)), "%s %s", cause, name);
        for (size_t k = 0; k < N_CAUSES; k++)
            cr_assert_eq(ns_of(tu_get(st, "idle_causes", cause_keys[k], NULL)), ns_of(tu_get(es, "idle_causes", cause_keys[k], NULL)),
                         "%s %s: %s", cause, name, cause_keys[k]);
        cr_assert_eq(ns_of(tu_get(st, "idle_after_sync_us", NULL)), ns_of(tu_get(es, "idle_after_sync_us", NULL)), "%s %s",
                     cause, name);
    }
    /* every kernel written was launched by a call in the trace, but mixed's one without */
    yajl_val ls = tu_get(rk, "launch_stats", NULL);
    long long kernels = YAJL_GET_INTEGER(tu_get(pe, "kernels", NULL)), steps_n = (long long)esteps->u.array.len;
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "kernels", NULL)), kernels, "%s", cause);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "launched", NULL)), kernels - (strcmp(cause, "mixed") ? 0 : steps_n), "%s", cause);
    /* issue 33: graph launches and the kernels each ran, as planted (0 and null but for graph) */
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "graph_launches", NULL)), YAJL_GET_INTEGER(tu_get(pe, "graph_launches", NULL)), "%s", cause);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "graph_kernels", NULL)), YAJL_GET_INTEGER(tu_get(pe, "graph_kernels", NULL)), "%s", cause);
    yajl_val kpl = tu_get(ls, "kernels_per_graph_launch", NULL), ekpl = tu_get(pe, "kernels_per_graph_launch", NULL);
    cr_assert_eq(YAJL_IS_NULL(kpl), YAJL_IS_NULL(ekpl), "%s: kernels_per_graph_launch", cause);
    if (!YAJL_IS_NULL(ekpl)) {
        cr_assert_eq(YAJL_GET_INTEGER(tu_get(kpl, "min", NULL)), YAJL_GET_INTEGER(tu_get(ekpl, "min", NULL)), "%s", cause);
        cr_assert_eq(YAJL_GET_INTEGER(tu_get(kpl, "max", NULL)), YAJL_GET_INTEGER(tu_get(ekpl, "max", NULL)), "%s", cause);
        cr_assert_eq(tu_num(tu_get(kpl, "mean", NULL)), tu_num(tu_get(ekpl, "mean", NULL)), "%s", cause);
        /* the replay keeps each graph's kernels after their one launch call: the identity holds exactly */
        yajl_val rp = tu_get(o, "summary", "replay", NULL);
        cr_assert(YAJL_IS_TRUE(tu_get(rp, "available", NULL)), "%s: replay", cause);
        cr_assert_eq(tu_num(tu_get(rp, "identity_error", NULL)), 0, "%s: identity", cause);
        cr_assert_eq(YAJL_GET_INTEGER(tu_get(rp, "ops_unplaced", NULL)), 0, "%s: unplaced", cause);
    }
    yajl_tree_free(e);
    yajl_tree_free(o);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(idle_causes, planted_sync_drain_recovered_exactly) { expect_planted("sync", "--steps 3"); }
Test(idle_causes, planted_launch_bound_loop_recovered_exactly) { expect_planted("launch", "--steps 3"); }
Test(idle_causes, planted_data_loader_stall_recovered_exactly) { expect_planted("dataloader", "--steps 3"); }
Test(idle_causes, planted_mixed_causes_recovered_exactly) { expect_planted("mixed", "--steps 4"); }
/* issue 33: graphs of 5, 8 and 12 kernels (one lost by the profiler); the gaps between a graph's kernels
 * while its cudaGraphLaunch still runs are gpu_side, not launch overhead */
Test(idle_causes, planted_graph_launches_recovered_exactly) { expect_planted("graph", "--steps 3"); }
Test(idle_causes, planted_causes_in_epoch_times_and_one_line_layout) {
    expect_planted("mixed", "--steps 2 --time-format epoch --layout oneline --seed 9");
    expect_planted("sync", "--steps 2 --layout indent4 --gzip");
    expect_planted("launch", "--steps 2 --layout indent2sorted"); /* "args" first: the host spans */
}

/* The terminal summary of an idle-cause job (the generated trace only) with extra flags. */
static char *summary_of(const char *cause, const char *flags, char **dir_out) {
    char *dir = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(&out, "'%s' -o %s/job --ranks 1 --steps 3 --idle-cause %s", tu_gen(), dir, cause), 0, "%s", out);
    free(out);
    out = NULL;
    int rc = tu_sh(&out, "NO_COLOR=1 '%s' analyze %s --json %s/out.json %s/job/rank0.pt.trace.json", tu_bin(), flags, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    *dir_out = dir;
    return out;
}

static void expect_in(const char *text, const char *want) {
    cr_assert_not_null(strstr(text, want), "missing \"%s\" in:\n%s", want, text);
}

Test(idle_causes, host_bound_verdict_names_the_sync_call_and_its_op) {
    char *dir, *out = summary_of("sync", "--bound-threshold 0.05", &dir);
    expect_in(out, "Verdict: host-bound");
    /* the sync call returns 10 µs after the GPU ran dry: the gaps' time is mostly the host's own
     * work after it, but every gap of the loop began while the host waited in it */
    expect_in(out, "points began while the host waited in cudaStreamSynchronize (called in aten::item)");
    expect_in(out, "Remove the host-device sync that drains the GPU: cudaStreamSynchronize (called in aten::item)");
    tu_expect_width(out, 100);
    char path[512];
    snprintf(path, sizeof path, "%s/out.json", dir);
    yajl_val o = tu_json_file(path);
    yajl_val reasons = tu_get(o, "summary", "verdict_reasons", NULL);
    cr_assert_geq(reasons->u.array.len, 2);
    const char *second = YAJL_IS_STRING(reasons->u.array.values[1]) ? reasons->u.array.values[1]->u.string : "";
    cr_assert_not_null(strstr(second, "waited in cudaStreamSynchronize"), "%s", second);
    /* every gap after an item began inside the sync: idle_after_sync is the whole idle of the loop */
    yajl_val rk = tu_get(o, "ranks", "#0", NULL);
    cr_assert_gt(ns_of(tu_get(rk, "idle_after_sync_us", NULL)), 0);
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(rk, "idle_host_ops", "#0", "name", NULL)), "aten::item");
    yajl_tree_free(o);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

#define DL_NAME "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"

Test(idle_causes, host_bound_actions_name_the_data_loader_and_the_launch_rate) {
    char *dir, *out = summary_of("dataloader", "", &dir);
    expect_in(out, "Verdict: host-bound");
    expect_in(out, "points of it waiting for the data loader");
    expect_in(out, "Feed the GPUs faster: they wait for the data loader");
    tu_expect_width(out, 100);
    free(out);
    char path[512];
    snprintf(path, sizeof path, "%s/out.json", dir);
    yajl_val o = tu_json_file(path);
    yajl_val second = tu_get(o, "summary", "verdict_reasons", "#1", NULL);
    cr_assert(second && YAJL_IS_STRING(second));
    cr_assert_not_null(strstr(second->u.string, "waiting for the data loader (" DL_NAME ")"), "%s", second->u.string);
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(o, "ranks", "#0", "idle_host_ops", "#0", "name", NULL)), DL_NAME);
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(o, "ranks", "#0", "idle_host_ops", "#0", "cause", NULL)), "data_loading");
    yajl_tree_free(o);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);

    out = summary_of("launch", "", &dir);
    expect_in(out, "Verdict: host-bound");
    expect_in(out, "points of it waiting for the host to launch the next kernel");
    expect_in(out, "Cut launch overhead");
    expect_in(out, "303 kernels, 99% shorter than 10 µs"); /* 3 steps of 100 adds and the optimizer */
    expect_in(out, "(launch-bound:"); /* the action */
    expect_in(out, "(launch-bound)"); /* the launches line */
    snprintf(path, sizeof path, "%s/out.json", dir);
    o = tu_json_file(path);
    cr_assert(YAJL_IS_TRUE(tu_get(o, "ranks", "#0", "launch_stats", "launch_bound", NULL)));
    cr_assert(YAJL_IS_TRUE(tu_get(o, "summary", "launch_stats", "launch_bound", NULL)));
    yajl_tree_free(o);
    tu_expect_width(out, 100);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(idle_causes, slowest_step_names_the_class_and_cause_that_grew) {
    /* mixed: the first step's gelu launch loads its module (1.5 ms): that step is the slowest */
    char *dir, *out = summary_of("mixed", "", &dir);
    expect_in(out, "Steps (rank 0: 3 steps;");
    expect_in(out, "slow: step 2,");
    expect_in(out, "idle grew");
    expect_in(out, "(module load +");
    char path[512];
    snprintf(path, sizeof path, "%s/out.json", dir);
    yajl_val o = tu_json_file(path), rk = tu_get(o, "ranks", "#0", NULL);
    yajl_val slow = tu_get(rk, "slowest_steps", NULL);
    cr_assert_eq(slow->u.array.len, 1, "only step 2 is above the median");
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(slow, "#0", "step_number", NULL)), 2);
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(slow, "#0", "grew", NULL)), "idle");
    cr_assert_str_eq(YAJL_GET_STRING(tu_get(slow, "#0", "idle_cause", NULL)), "module_load");
    long long min = ns_of(tu_get(rk, "step_time_min_us", NULL)), med = ns_of(tu_get(rk, "step_time_median_us", NULL)),
              max = ns_of(tu_get(rk, "step_time_max_us", NULL));
    cr_assert(min <= med && med < max);
    cr_assert_eq(ns_of(tu_get(slow, "#0", "step_time_us", NULL)), max);
    cr_assert_eq(ns_of(tu_get(slow, "#0", "over_median_us", NULL)), max - med);
    yajl_tree_free(o);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(idle_causes, many_steps_are_folded_in_the_terminal) {
    char *dir = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(&out, "'%s' -o %s/job --ranks 1 --steps 20 --idle-cause launch", tu_gen(), dir), 0, "%s", out);
    free(out);
    out = NULL;
    cr_assert_eq(tu_sh(&out, "NO_COLOR=1 '%s' analyze %s/job/rank0.pt.trace.json", tu_bin(), dir), 0);
    expect_in(out, "... 8 steps folded (every step in --json and --csv)");
    tu_expect_width(out, 100);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The shares of idle of each cause, against the independent implementation (tests/data/README.md:
 * whole percents). */
typedef struct {
    const char *file;
    int pct[N_CAUSES]; /* in cause_keys order; -1 below 0.5% */
} ref_shares;

Test(idle_causes, real_traces_give_the_independent_shares) {
    static const ref_shares refs[] = {
        {"tests/data/idle/event_sync_trace.json.gz", {2, 3, -1, -1, -1, 46, 49, -1}},
        {"tests/data/idle/inference_rank_1.json.gz", {-1, -1, -1, -1, 87, 2, 10, -1}},
        {"tests/data/idle/graph_execution.json.gz", {100, -1, -1, -1, -1, -1, -1, -1}},
        {"tests/data/real2/gpu_metrics_input.json.gz", {-1, -1, -1, -1, -1, 27, 73, -1}},
        {"tests/data/idle/cudagraph_mwe.json.gz", {-1, -1, -1, 94, -1, 3, 2, -1}},
    };
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
        yajl_val o = analyze_json(dir, refs[i].file, "");
        yajl_val sm = tu_get(o, "summary", NULL);
        double idle = (double)ns_of(tu_get(sm, "idle_us", NULL));
        for (size_t k = 0; k < N_CAUSES; k++) {
            double pct = 100.0 * (double)ns_of(tu_get(sm, "idle_causes", cause_keys[k], NULL)) / idle;
            if (refs[i].pct[k] < 0) cr_assert_lt(pct, 0.5, "%s: %s %.2f%%", refs[i].file, cause_keys[k], pct);
            else cr_assert_lt(fabs(pct - refs[i].pct[k]), 0.5, "%s: %s %.2f%% vs %d%%", refs[i].file, cause_keys[k], pct, refs[i].pct[k]);
        }
        yajl_tree_free(o);
    }
    /* CUDA graphs: 20 graph launches ran 220 of the 285 kernels */
    yajl_val o = analyze_json(dir, "tests/data/idle/cudagraph_mwe.json.gz", "");
    yajl_val ls = tu_get(o, "ranks", "#0", "launch_stats", NULL);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "graph_launches", NULL)), 20);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "graph_kernels", NULL)), 220);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "kernels", NULL)), 285);
    /* issue 33: each replay ran the graph's 11 kernels (Kineto writes them with the launch's correlation) */
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "kernels_per_graph_launch", "min", NULL)), 11);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "kernels_per_graph_launch", "max", NULL)), 11);
    cr_assert_eq(tu_num(tu_get(ls, "kernels_per_graph_launch", "mean", NULL)), 11);
    yajl_tree_free(o);
    /* vLLM decode: one cudaGraphLaunch replays 421 kernels */
    o = analyze_json(dir, "tests/data/idle/graph_execution.json.gz", "");
    ls = tu_get(o, "ranks", "#0", "launch_stats", NULL);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "graph_launches", NULL)), 1);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "kernels_per_graph_launch", "min", NULL)), 421);
    cr_assert_eq(YAJL_GET_INTEGER(tu_get(ls, "kernels_per_graph_launch", "max", NULL)), 421);
    yajl_tree_free(o);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(idle_causes, call_lists) {
    static const struct { const char *name; tc_call_class cls; } cases[] = {
        {"cudaStreamSynchronize", TC_CALL_SYNC}, {"cudaDeviceSynchronize", TC_CALL_SYNC}, {"cudaMemcpy", TC_CALL_SYNC_COPY},
        {"cuMemcpyDtoH_v2", TC_CALL_SYNC_COPY}, {"cuMemcpyHtoD_v2", TC_CALL_SYNC_COPY}, {"cuMemcpyDtoHAsync_v2", TC_CALL_COPY},
        {"hipStreamSynchronize", TC_CALL_SYNC}, {"hipMemcpyWithStream", TC_CALL_SYNC_COPY}, {"hipMemcpy", TC_CALL_SYNC_COPY},
        {"cudaStreamWaitEvent", TC_CALL_OTHER}, {"cudaEventRecord", TC_CALL_OTHER}, {"cudaMalloc", TC_CALL_MEMORY},
        {"cudaMallocAsync", TC_CALL_MEMORY}, {"cudaFreeHost", TC_CALL_MEMORY}, {"cudaHostAlloc", TC_CALL_MEMORY},
        {"cuMemAlloc_v2", TC_CALL_MEMORY}, {"hipMalloc", TC_CALL_MEMORY}, {"hipHostMalloc", TC_CALL_MEMORY},
        {"cudaLaunchKernel", TC_CALL_LAUNCH}, {"cudaLaunchKernel_ptsz_v7000", TC_CALL_LAUNCH},
        {"cudaMemcpyAsync", TC_CALL_COPY}, {"hipMemsetAsync", TC_CALL_COPY}, {"hipExtModuleLaunchKernel", TC_CALL_LAUNCH},
        {"hipMemcpyAsync", TC_CALL_COPY}, {"cuMemcpyHtoDAsync_v2", TC_CALL_COPY}, {"cuModuleLoadData", TC_CALL_MODULE},
        {"cuModuleGetFunction", TC_CALL_MODULE}, {"cuLibraryLoadData", TC_CALL_MODULE}, {"hipModuleLoad", TC_CALL_MODULE},
        {"cuLaunchKernel", TC_CALL_LAUNCH}, {"cudaGraphLaunch", TC_CALL_GRAPH_LAUNCH},
        {"hipGraphLaunch", TC_CALL_GRAPH_LAUNCH}, {"cudaGetDeviceCount", TC_CALL_OTHER}, {"", TC_CALL_OTHER},
        {"hip", TC_CALL_OTHER}, {"_v", TC_CALL_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_assert_eq(tc_host_call_class(cases[i].name, strlen(cases[i].name)), cases[i].cls, "%s", cases[i].name);
}
