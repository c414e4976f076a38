/* test_pairs.c: the pairs of issue 29 (bench/pairs.sh, bench/tracegen --host pytorch): each kind's
 * two runs differ in step time in the right direction, the planted truth (expected.json's mean step,
 * per-step times and critical path) matches what the analyzer measures on the files, and the host
 * behaves like PyTorch's: launches run ahead of their kernels, bucket all-reduces wait behind an
 * event pair, every step ends in a synchronizing call that lasts until its GPU work is done. */
#include "testutil.h"
#include <math.h>

static const char *const KINDS[] = {"balanced", "straggler", "tpdp",     "spill", "small1m",
                                    "small256k", "onegpu",    "autograd", "lost",  "latency"};
#define NKINDS (sizeof KINDS / sizeof *KINDS)

/* µs with 3 decimals -> ns */
static long long ns_of(yajl_val v) { return llround(tu_num(v) * 1000.0); }

static char *pairs_dir(void) {
    char *dir = tu_tmpdir(), *out = NULL;
    int rc = tu_sh(&out, "bench/pairs.sh '%s' '%s/pairs'", tu_gen(), dir);
    cr_assert_eq(rc, 0, "bench/pairs.sh: %s", out);
    free(out);
    return dir;
}

static yajl_val expected_of(const char *dir, const char *kind, const char *run) {
    char path[4096];
    snprintf(path, sizeof path, "%s/pairs/%s/%s/expected.json", dir, kind, run);
    return tu_json_file(path);
}

/* the planted critical path: shares add up to 1, class times to the step, by_rank to the step */
static void check_cp(yajl_val cp, const char *what) {
    cr_assert(cp && YAJL_IS_OBJECT(cp), "%s: no critical path", what);
    yajl_val sh = tu_get(cp, "shares", NULL), cu = tu_get(cp, "class_us", NULL), br = tu_get(cp, "by_rank", NULL);
    cr_assert(sh && cu && br && sh->u.object.len == 8 && cu->u.object.len == 8, "%s: eight classes", what);
    double s = 0;
    long long cls = 0, ranks = 0;
    for (size_t i = 0; i < 8; i++) {
        s += tu_num(sh->u.object.values[i]);
        cls += ns_of(cu->u.object.values[i]);
    }
    for (size_t i = 0; i < br->u.array.len; i++) ranks += ns_of(tu_get(br->u.array.values[i], "us", NULL));
    long long step = ns_of(tu_get(cp, "step_us", NULL));
    cr_expect(fabs(s - 1) < 1e-5, "%s: shares add up to %f", what, s);
    cr_expect(llabs(cls - step) <= 8, "%s: classes %lld ns, step %lld ns", what, cls, step);
    cr_expect(llabs(ranks - step) <= (long long)br->u.array.len, "%s: by_rank %lld ns, step %lld ns", what, ranks, step);
}

Test(pairs, slow_run_slower_and_truth_matches_the_analysis, .timeout = 240) {
    char *dir = pairs_dir();
    for (size_t k = 0; k < NKINDS; k++) {
        long long step[2], ref[2];
        double inter[2];
        for (int run = 0; run < 2; run++) {
            const char *rn = run ? "fast" : "slow";
            yajl_val e = expected_of(dir, KINDS[k], rn);
            cr_expect_str_eq(tu_str(tu_get(e, "mode", NULL)), "pytorch-host");
            cr_expect_eq(tu_num(tu_get(e, "fabric", "inter_node_GBps", NULL)), run ? 50 : 12.5);
            if (!strcmp(KINDS[k], "latency")) /* the one kind whose runs differ in latency too */
                cr_expect_eq(tu_num(tu_get(e, "fabric", "inter_node_latency_us", NULL)), run ? 15 : 60);
            step[run] = ns_of(tu_get(e, "mean_step_time_us", NULL));
            ref[run] = ns_of(tu_get(e, "reference_instant_step_time_us", NULL));
            cr_expect_lt(ref[run], step[run], "%s %s: an instant network is faster", KINDS[k], rn);
            /* per-step times average to the mean; the critical path is as long as the step */
            yajl_val st = tu_get(e, "step_times_us", NULL), cps = tu_get(e, "critical_path_steps", NULL);
            cr_assert(st && cps && st->u.array.len == 4 && cps->u.array.len == 4, "%s %s: four steps", KINDS[k], rn);
            long long sum = 0;
            for (size_t s = 0; s < 4; s++) {
                sum += ns_of(st->u.array.values[s]);
                check_cp(cps->u.array.values[s], KINDS[k]);
                cr_expect_eq(ns_of(tu_get(cps->u.array.values[s], "step_us", NULL)), ns_of(st->u.array.values[s]),
                             "%s %s step %zu: path length = step time", KINDS[k], rn, s);
            }
            cr_expect(llabs(sum / 4 - step[run]) <= 1, "%s %s: mean of the steps", KINDS[k], rn);
            yajl_val cp = tu_get(e, "critical_path", NULL);
            check_cp(cp, KINDS[k]);
            /* each group's planted time model follows its scope: the fabric across nodes, NVLink inside one */
            yajl_val pgs = tu_get(e, "process_groups", NULL);
            for (size_t g = 0; pgs && g < pgs->u.array.len; g++) {
                yajl_val pg = pgs->u.array.values[g];
                int inter = !strcmp(tu_str(tu_get(pg, "scope", NULL)), "inter-node");
                cr_expect_eq(tu_num(tu_get(pg, "model", "beta_GBps", NULL)),
                             inter ? tu_num(tu_get(e, "fabric", "inter_node_GBps", NULL)) : 360, "%s %s group %zu", KINDS[k], rn, g);
                cr_expect_eq(tu_num(tu_get(pg, "model", "alpha_us", NULL)),
                             tu_num(tu_get(e, "fabric", inter ? "inter_node_latency_us" : "intra_node_latency_us", NULL)));
            }
            inter[run] = tu_num(tu_get(cp, "shares", "transfer_inter_node", NULL));
            if (!strcmp(KINDS[k], "straggler")) {
                cr_expect_eq(tu_num(tu_get(cp, "compute_rank", NULL)), tu_num(tu_get(e, "straggler_rank", NULL)));
                cr_expect_geq(tu_num(tu_get(cp, "compute_rank_share", NULL)), 0.8, "straggler holds the path's compute");
            }
            if (!strcmp(KINDS[k], "tpdp"))
                cr_expect_gt(tu_num(tu_get(cp, "shares", "transfer_intra_node", NULL)), 0.1, "TP on the path");
            /* the analyzer measures the planted step */
            char json[4096], *out = NULL;
            snprintf(json, sizeof json, "%s/%s_%s.json", dir, KINDS[k], rn);
            int rc = tu_sh(&out, "%s analyze -q --json '%s' '%s/pairs/%s/%s'", tu_bin(), json, dir, KINDS[k], rn);
            cr_assert_eq(rc, 0, "analyze %s %s: %s", KINDS[k], rn, out);
            free(out);
            yajl_val a = tu_json_file(json);
            cr_expect(llabs(ns_of(tu_get(a, "summary", "step_time_us", NULL)) - step[run]) <= 1,
                      "%s %s: analyzed step %.3f us, planted %.3f us", KINDS[k], rn,
                      tu_num(tu_get(a, "summary", "step_time_us", NULL)), step[run] / 1e3);
            /* and each rank's planted compute, exposed communication and idle */
            yajl_val pr = tu_get(e, "per_rank", NULL), ar = tu_get(a, "ranks", NULL);
            cr_assert(pr && ar && pr->u.array.len == ar->u.array.len, "%s %s: ranks", KINDS[k], rn);
            static const char *const figs[] = {"compute_us", "exposed_comm_us", "idle_us", "window_us"};
            for (size_t r = 0; r < pr->u.array.len; r++)
                for (size_t f = 0; f < 4; f++)
                    cr_expect(llabs(ns_of(tu_get(pr->u.array.values[r], figs[f], NULL)) -
                                    ns_of(tu_get(ar->u.array.values[r], figs[f], NULL))) <= 1,
                              "%s %s rank %zu: %s", KINDS[k], rn, r, figs[f]);
            yajl_tree_free(a);
            yajl_tree_free(e);
        }
        cr_expect_gt(step[0], step[1] + step[1] / 100, "%s: the slow fabric's step %lld ns, the fast one's %lld ns",
                     KINDS[k], step[0], step[1]);
        cr_expect_gt(inter[0], inter[1], "%s: more inter-node transfer on the slow run's path", KINDS[k]);
        cr_expect_eq(ref[0], ref[1], "%s: one job, one instant-network reference", KINDS[k]);
    }
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* ---- the host: what the calls of one rank's trace say */
typedef struct { double ts, end; long long corr; const char *name; long long tid; } call;

static int cmp_ts(const void *a, const void *b) {
    double x = ((const call *)a)->ts, y = ((const call *)b)->ts;
    return (x > y) - (x < y);
}

static int is_sync(const char *n) {
    return !strcmp(n, "cudaStreamSynchronize") || !strcmp(n, "cudaDeviceSynchronize");
}

static void check_host(const char *dir, const char *kind, int rank, int sync_events, int threads) {
    char path[4096];
    snprintf(path, sizeof path, "%s/pairs/%s/slow/rank%d.pt.trace.json", dir, kind, rank);
    yajl_val t = tu_json_file(path), ev = tu_get(t, "traceEvents", NULL);
    size_t n = ev->u.array.len, nc = 0, ng = 0, ns = 0;
    call *calls = calloc(n, sizeof *calls), *gpu = calloc(n, sizeof *gpu), *steps = calloc(n, sizeof *steps);
    cr_assert(calls && gpu && steps);
    size_t waits = 0, nccl = 0;
    for (size_t i = 0; i < n; i++) {
        yajl_val e = ev->u.array.values[i], cat = tu_get(e, "cat", NULL);
        if (!cat || !YAJL_IS_STRING(cat)) continue;
        yajl_val ts = tu_get(e, "ts", NULL), dur = tu_get(e, "dur", NULL), corr = tu_get(e, "args", "correlation", NULL);
        yajl_val tid = tu_get(e, "tid", NULL);
        call c = {ts ? tu_num(ts) : 0, ts && dur ? tu_num(ts) + tu_num(dur) : 0, corr ? (long long)tu_num(corr) : -1,
                  tu_str(tu_get(e, "name", NULL)), tid && YAJL_IS_NUMBER(tid) ? (long long)tu_num(tid) : -1};
        if (!strcmp(cat->u.string, "cuda_runtime")) {
            calls[nc++] = c;
            waits += !strcmp(c.name, "cudaStreamWaitEvent");
        } else if (!strcmp(cat->u.string, "kernel") || !strcmp(cat->u.string, "gpu_memcpy")) {
            gpu[ng++] = c;
            nccl += !strncmp(c.name, "ncclDevKernel", 13);
        } else if (!strcmp(cat->u.string, "user_annotation") && !strncmp(c.name, "ProfilerStep#", 13)) {
            steps[ns++] = c;
        }
    }
    cr_assert(ng > 0 && ns == 4, "%s: GPU events and four steps", kind);
    size_t ntid = 0;
    long long tids[4];
    for (size_t c = 0; c < nc; c++) {
        size_t q = 0;
        while (q < ntid && tids[q] != calls[c].tid) q++;
        if (q == ntid && ntid < 4) tids[ntid++] = calls[c].tid;
    }
    cr_expect_eq(ntid, (size_t)threads, "%s: runtime calls on %d CPU thread(s)", kind, threads);
    cr_expect_geq(waits, nccl, "%s: every all-reduce waits behind an event (%zu waits, %zu NCCL kernels)", kind, waits, nccl);
    /* with cuda_sync events, each event wait names an earlier cudaEventRecord */
    size_t named = 0;
    for (size_t i = 0; i < n; i++) {
        yajl_val e = ev->u.array.values[i], rc = tu_get(e, "args", "wait_on_cuda_event_record_corr_id", NULL);
        if (!rc) continue;
        int found = 0;
        for (size_t c = 0; c < nc && !found; c++)
            found = calls[c].corr == (long long)tu_num(rc) && !strcmp(calls[c].name, "cudaEventRecord") &&
                    calls[c].end <= tu_num(tu_get(e, "ts", NULL));
        cr_expect(found, "%s: a Stream Wait Event on an unknown or later record %lld", kind, (long long)tu_num(rc));
        named++;
    }
    if (sync_events) cr_expect_eq(named, waits, "%s: one cuda_sync event per cudaStreamWaitEvent", kind);
    else cr_expect_eq(named, 0, "%s: no cuda_sync events unless asked", kind);
    /* every op starts after its launch call's end plus the launch latency; most run far behind it */
    double *lead = calloc(ng, sizeof *lead);
    size_t nl = 0, quick = 0;
    for (size_t g = 0; g < ng; g++)
        for (size_t c = 0; c < nc; c++)
            if (calls[c].corr == gpu[g].corr) {
                lead[nl] = gpu[g].ts - calls[c].end;
                cr_expect_geq(lead[nl], 3 - 1e-6, "%s: %s starts %.3f us after its launch returns", kind, gpu[g].name, lead[nl]);
                quick += lead[nl] <= 10;
                nl++;
                break;
            }
    cr_expect_eq(nl, ng, "%s: every GPU op has its launch call", kind);
    double sum = 0;
    for (size_t i = 0; i < nl; i++) sum += lead[i];
    cr_expect_gt(sum / nl, 1000, "%s: the CPU runs ahead (mean lead %.1f us)", kind, sum / nl);
    cr_expect_geq(quick, 4, "%s: the first op of each step waits for the host (%zu within 10 us)", kind, quick);
    /* each step's last runtime call synchronizes and returns after the step's GPU work ends */
    qsort(calls, nc, sizeof *calls, cmp_ts);
    for (size_t s = 0; s < ns; s++) {
        const call *last = NULL;
        for (size_t c = 0; c < nc; c++)
            if (calls[c].ts >= steps[s].ts && calls[c].end <= steps[s].end) last = &calls[c];
        cr_assert(last, "%s step %zu: runtime calls", kind, s);
        cr_expect(is_sync(last->name), "%s step %zu ends in %s", kind, s, last->name);
        double gend = 0;
        for (size_t g = 0; g < ng; g++)
            if (gpu[g].ts >= steps[s].ts && gpu[g].ts < steps[s].end && gpu[g].end > gend) gend = gpu[g].end;
        cr_expect_geq(last->end, gend, "%s step %zu: the sync returns after the GPU is done", kind, s);
        cr_expect_gt(last->end - last->ts, 1000, "%s step %zu: the host waits in the sync", kind, s);
        cr_expect_lt(last->end - gend, 20, "%s step %zu: and returns soon after", kind, s);
    }
    free(lead);
    free(calls);
    free(gpu);
    free(steps);
    yajl_tree_free(t);
}

Test(pairs, host_runs_ahead_and_waits_like_pytorch, .timeout = 240) {
    char *dir = pairs_dir();
    check_host(dir, "balanced", 3, 0, 1);
    check_host(dir, "tpdp", 6, 1, 1);
    check_host(dir, "straggler", 5, 0, 1);
    check_host(dir, "small256k", 2, 1, 1);
    check_host(dir, "autograd", 4, 0, 2);
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}
