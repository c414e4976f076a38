/* test_replay.c: the step graph's replay (analyzer/replay.h, docs/definitions.md "Replay" and
 * "Critical path"): the identity on every bundled trace with steps (within 1%) and on generated jobs
 * with the mess of real ones (exactly), the what-if re-timing (tc_replay_with), the reference
 * "instant", the MPI skeleton's note, the critical path of a planted straggler, and the ranks'
 * graphs built at once giving the graph built one rank after the other. */
#include "testutil.h"
#include "analyzer/analyze.h"
#include "analyzer/replay.h"
#include "analyzer/step_graph.h"
#include "parsers/assemble.h"
#include "parsers/inputs.h"
#include "reports/json_report.h"
#include <dirent.h>
#include <math.h>
#include <stdbool.h>

/* Loads operand (a folder or a file) as analyze does, the analysis on `jobs` threads; skeleton:
 * mark the traces as MPI skeletons (process 0 of tracecost-mpi) before the analysis. */
static void load_on(tc_job *j, const char *operand, bool skeleton, int jobs) {
    char *ops[1] = {(char *)operand};
    tc_input_list in;
    tc_error e;
    cr_assert_eq(tc_inputs_expand(ops, 1, false, &in, &e), TC_OK, "%s", e.msg);
    tc_job_init(j);
    tc_assemble_options lo = {.jobs = 1};
    tc_notes notes = {0};
    tc_assembly_status rc = tc_job_assemble(j, in.paths, in.from_folder, in.n, &lo, &notes);
    tc_notes_free(&notes);
    cr_assert(rc == TC_ASSEMBLY_OK || rc == TC_ASSEMBLY_DAMAGED, "%s: assembly status %d", operand, (int)rc);
    for (size_t i = 0; skeleton && i < j->n_traces; i++) j->traces[i].n_gpu_parsed = j->traces[i].n_gpu;
    tc_analyze_options ao = {.bound_threshold = 0.15, .jobs = jobs};
    cr_assert_eq(tc_job_analyze(j, &ao), 0, "%s", operand);
    tc_input_list_free(&in);
}

static void load(tc_job *j, const char *operand, bool skeleton) { load_on(j, operand, skeleton, 1); }

static bool job_has_steps(const tc_job *j) {
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].n_steps) return true;
    return false;
}

/* The identity on j: replayed against measured, per step and in the mean, within tol (relative);
 * the measured mean is the summary's step time; re-timing with the measured transfers gives the
 * replayed steps exactly. */
static void expect_identity(const tc_job *j, const char *what, double tol) {
    const tc_replay_summary *rp = &j->summary.replay;
    if (!job_has_steps(j)) {
        cr_expect(!rp->has && rp->note, "%s: no steps, no replay, a note", what);
        return;
    }
    cr_assert(rp->has, "%s: replayed (%s)", what, rp->note ? rp->note : "");
    cr_expect(rp->ops > 0, "%s: ops placed", what);
    if (!rp->step_tails) /* the spans alone; a step whose GPU work runs past its span ends with it */
        cr_expect_eq(rp->measured_step_ns, j->summary.step_time_ns, "%s: measured step %lld, summary %lld", what,
                     (long long)rp->measured_step_ns, (long long)j->summary.step_time_ns);
    else
        cr_expect(rp->measured_step_ns > j->summary.step_time_ns, "%s: measured step %lld, spans %lld", what,
                  (long long)rp->measured_step_ns, (long long)j->summary.step_time_ns);
    cr_expect(rp->identity_error <= tol, "%s: identity error %.6f", what, rp->identity_error);
    double d = (double)llabs(rp->replayed_step_ns - rp->measured_step_ns);
    cr_expect(d <= tol * (double)rp->measured_step_ns, "%s: replayed %lld, measured %lld", what,
              (long long)rp->replayed_step_ns, (long long)rp->measured_step_ns);
    cr_assert(rp->n_steps > 0);
    for (size_t s = 0; s < rp->n_steps; s++)
        cr_expect((double)llabs(rp->step_replayed_ns[s] - rp->step_measured_ns[s]) <= tol * (double)rp->step_measured_ns[s],
                  "%s: step %lld replayed %lld, measured %lld", what, (long long)rp->step_number[s],
                  (long long)rp->step_replayed_ns[s], (long long)rp->step_measured_ns[s]);
    int64_t *tr = malloc((j->n_instances + 1) * sizeof *tr), *per = malloc(rp->n_steps * sizeof *per), step = 0;
    for (size_t i = 0; i < j->n_instances; i++) tr[i] = j->instances[i].transfer_ns;
    cr_assert_eq(tc_replay_with(j, tr, &step, per), 0);
    cr_expect_eq(step, rp->replayed_step_ns, "%s: re-timed with the measured transfers", what);
    for (size_t s = 0; s < rp->n_steps; s++) cr_expect_eq(per[s], rp->step_replayed_ns[s], "%s: step %zu re-timed", what, s);
    cr_expect(rp->has_reference && !strcmp(rp->reference, "instant"), "%s: reference", what);
    cr_expect(rp->reference_step_ns <= rp->replayed_step_ns, "%s: instant reference %lld above replayed %lld", what,
              (long long)rp->reference_step_ns, (long long)rp->replayed_step_ns);
    cr_expect(j->summary.has_critical_path && j->summary.n_cp_steps == rp->n_steps, "%s: a critical path per step", what);
    free(tr);
    free(per);
}

/* Every file of a folder, and the folder's operands listed. */
static void identity_of(const char *path, double tol) {
    tc_job j;
    load(&j, path, false);
    expect_identity(&j, path, tol);
    tc_job_free(&j);
}

Test(replay, identity_on_bundled_traces, .timeout = 240) {
    const char *ops[] = {"samples", "samples/hta-pair", "samples/real/nccl_data.json.gz",
                         "tests/data/sampled_rank-0.json.gz"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) identity_of(ops[i], 0.01);
    const char *dirs[] = {"tests/data/ref", "tests/data/real2"};
    size_t files = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
        DIR *dir = opendir(dirs[d]);
        cr_assert(dir, "%s", dirs[d]);
        for (struct dirent *e; (e = readdir(dir));) {
            if (!strstr(e->d_name, ".json")) continue;
            char p[600];
            snprintf(p, sizeof p, "%s/%s", dirs[d], e->d_name);
            identity_of(p, 0.01);
            files++;
        }
        closedir(dir);
    }
    cr_expect(files >= 8, "the bundled real traces were found (%zu)", files);
}

/* Real single-rank traces whose host waits for the GPU: ns_resolution (HTA's test trace) polls with
 * cudaEventQuery and its last step's GPU work runs 18 ms past the CPU span; resnet50's last step by
 * 0.6 ms. The step ends with its GPU work (the measured step too: the identity stays exact) and the
 * polling runs wait for the GPU, so the path runs through the GPU work (before: no compute on it). */
Test(replay, steps_end_with_their_gpu_work_and_polls_wait, .timeout = 120) {
    tc_job j;
    load(&j, "tests/data/ref/ns_resolution.pt.trace.json.gz", false);
    const tc_replay_summary *rp = &j.summary.replay;
    cr_assert(rp->has);
    cr_expect_eq(rp->step_tails, 1, "the last step ends at its GPU work (%llu)", (unsigned long long)rp->step_tails);
    cr_expect(rp->poll_waits >= 10, "polling runs tied (%llu)", (unsigned long long)rp->poll_waits);
    cr_expect_eq(rp->identity_error, 0.0, "identity %g", rp->identity_error);
    cr_expect(rp->measured_step_ns > j.summary.step_time_ns);
    const tc_critical_path *cp = &j.summary.critical_path;
    cr_assert(j.summary.has_critical_path && cp->step_ns > 0);
    double gpu = (double)(cp->class_ns[TC_CP_COMPUTE] + cp->class_ns[TC_CP_MEMORY]) / (double)cp->step_ns;
    cr_expect(gpu >= 0.5, "the path runs through GPU work: %.3f", gpu);
    tc_job_free(&j);
    load(&j, "tests/data/ref/resnet50_v100_worker0.pt.trace.json.gz", false);
    cr_expect_eq(j.summary.replay.step_tails, 1, "resnet50: only the last step (the others' GPU work ends inside "
                 "the next span)");
    cr_expect_eq(j.summary.replay.identity_error, 0.0);
    tc_job_free(&j);
}

/* Hand-made: three steps with the CPU one step ahead (each step's GPU work ends inside the next
 * step's span: the pipelined steps keep their spans), the last step's work ending 185 µs past its
 * span (a cudaDeviceSynchronize after the span waits for it, as on the real DeepSeek trace), and a
 * run of three cudaEventQuery calls polling for k3 before k4 is launched. */
static const char *const pipelined_trace =
    "{\"traceEvents\": [\n"
#define TC_SPAN(n, ts) "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" #n "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts ", \"dur\": 10000},\n"
#define TC_CALL(name, ts, dur, c) "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"correlation\": " #c "}},\n"
#define TC_KERNEL(name, ts, dur, c) "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, \"tid\": 7, \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": " #c "}},\n"
    TC_SPAN(1, 1000) TC_SPAN(2, 11000) TC_SPAN(3, 21000)
    TC_CALL("cudaLaunchKernel", 1100, 10, 1) TC_CALL("cudaLaunchKernel", 1200, 10, 2)
    TC_CALL("cudaLaunchKernel", 11100, 10, 3)
    TC_CALL("cudaEventQuery", 23100, 10, 10) TC_CALL("cudaEventQuery", 23130, 10, 11) TC_CALL("cudaEventQuery", 23150, 10, 12)
    TC_CALL("cudaLaunchKernel", 23170, 10, 4)
    TC_KERNEL("k1", 1150, 8000, 1) TC_KERNEL("k2", 9150, 6000, 2) TC_KERNEL("k3", 15150, 8000, 3)
    TC_KERNEL("k4", 23185, 8000, 4)
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", \"pid\": 1, \"tid\": 1, \"ts\": 31010, \"dur\": 190, \"args\": {\"correlation\": 20}}\n"
#undef TC_SPAN
#undef TC_CALL
#undef TC_KERNEL
    "]}\n";

Test(replay, the_last_step_ends_with_its_gpu_work_pipelined_ones_keep_their_spans, .timeout = 60) {
    char *dir = tu_tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/pipelined.pt.trace.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(pipelined_trace, f);
    fclose(f);
    tc_job j;
    load(&j, path, false);
    const tc_replay_summary *rp = &j.summary.replay;
    cr_assert(rp->has, "%s", rp->note ? rp->note : "");
    cr_expect_eq(rp->step_tails, 1, "only the last step ends at its GPU work (%llu)", (unsigned long long)rp->step_tails);
    cr_expect_eq(rp->poll_waits, 1, "the polling run (%llu)", (unsigned long long)rp->poll_waits);
    cr_expect_eq(rp->identity_error, 0.0, "identity %g", rp->identity_error);
    cr_assert_eq(rp->n_steps, 3);
    cr_expect_eq(rp->step_measured_ns[0], 10000000, "pipelined: the span (%lld)", (long long)rp->step_measured_ns[0]);
    cr_expect_eq(rp->step_measured_ns[1], 10000000, "pipelined: the span (%lld)", (long long)rp->step_measured_ns[1]);
    cr_expect_eq(rp->step_measured_ns[2], 10185000, "the last: to k4's end (%lld)", (long long)rp->step_measured_ns[2]);
    cr_expect_eq(j.summary.step_time_ns, 10000000, "the spans keep their meaning");
    cr_assert(j.summary.n_cp_steps == 3);
    const tc_critical_path *cp = &j.summary.cp_steps[2];
    cr_expect_eq(cp->step_ns, 10185000);
    cr_expect_eq(cp->class_ns[TC_CP_COMPUTE], 10150000, "k3's part in the step and k4: %lld",
                 (long long)cp->class_ns[TC_CP_COMPUTE]);
    cr_expect_eq(cp->class_ns[TC_CP_HOST_SYNC], 10000, "the poll's return after k3: %lld",
                 (long long)cp->class_ns[TC_CP_HOST_SYNC]);
    tc_job_free(&j);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Generated jobs with the mess of real ones: clock offsets, end spread, µs timestamps, host time
 * before the first kernel, a lost kernel, handler file names, no process-group arguments. */
static const char *const generated[] = {
    "--ranks 4 --straggler 2 --clock-offset-us 5000 --end-spread-us 3 --time-format epoch",
    "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5 --clock-offset-us 1000 --seed 3",
    "--ranks 8 --fsdp --gpus-per-node 4 --seed 5 --clock-offset-us 300",
    "--ranks 4 --drop-kernel 1:3 --file-names handler --clock-offset-us 700 --seed 7",
    "--ranks 4 --no-pg --jitter-us 50 --idle-us 5000 --seed 9",
    "--ranks 1 --idle-cause mixed",
};

Test(replay, identity_on_generated_jobs_is_exact, .timeout = 240) {
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof generated / sizeof *generated; i++) {
        char name[32], path[700];
        snprintf(name, sizeof name, "g%zu", i);
        tu_gen_job(dir, name, generated[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        tc_job j;
        load(&j, path, false);
        cr_assert(job_has_steps(&j), "%s: steps", generated[i]);
        expect_identity(&j, generated[i], 0);
        tc_job_free(&j);
    }
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The what-if re-times the kept graph: slower inter-node transfers never shorten the step, no
 * transfer is the reference, intra-node instances alone never change the reference; a job
 * without steps has no graph. */
Test(replay, what_if_retimes_the_graph, .timeout = 120) {
    char *dir = tu_tmpdir(), path[700];
    tu_gen_job(dir, "dp", "--ranks 8 --gpus-per-node 4 --busbw-GBps 12.5 --overlap 0.25 --clock-offset-us 2000 --seed 11");
    snprintf(path, sizeof path, "%s/dp", dir);
    tc_job j;
    load(&j, path, false);
    const tc_replay_summary *rp = &j.summary.replay;
    cr_assert(rp->has && j.n_instances > 0);
    int64_t *tr = malloc(j.n_instances * sizeof *tr), slow = 0, none = 0;
    for (size_t i = 0; i < j.n_instances; i++) tr[i] = 2 * j.instances[i].transfer_ns;
    cr_assert_eq(tc_replay_with(&j, tr, &slow, NULL), 0);
    cr_expect(slow > rp->replayed_step_ns, "twice the transfer: %lld against %lld", (long long)slow,
              (long long)rp->replayed_step_ns);
    memset(tr, 0, j.n_instances * sizeof *tr);
    cr_assert_eq(tc_replay_with(&j, tr, &none, NULL), 0);
    cr_expect_eq(none, rp->reference_step_ns, "no transfer is the instant reference");
    cr_expect(rp->reference_step_ns < rp->replayed_step_ns, "an inter-node job gains on an instant network");
    free(tr);
    tc_job_free(&j);
    tu_gen_job(dir, "one", "--ranks 4 --gpus-per-node 8 --seed 13"); /* one node: intra-node groups only */
    snprintf(path, sizeof path, "%s/one", dir);
    load(&j, path, false);
    cr_expect_eq(j.summary.replay.reference_step_ns, j.summary.replay.replayed_step_ns, "intra-node only");
    tc_job_free(&j);
    load(&j, "tests/data/ref/b200_eager_tp8.json.gz", false); /* no ProfilerStep spans */
    int64_t s = 0;
    cr_expect_eq(tc_replay_with(&j, NULL, &s, NULL), 1, "no graph");
    tc_job_free(&j);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(replay, mpi_skeleton_has_no_replay) {
    tc_job j;
    load(&j, "samples", true);
    cr_expect(!j.summary.replay.has && j.summary.replay.note && strstr(j.summary.replay.note, "single-process"),
              "skeleton: %s", j.summary.replay.note ? j.summary.replay.note : "(no note)");
    cr_expect(!j.graph && !j.summary.has_critical_path);
    tc_job_free(&j);
}

/* p's classes add up to its step; its ranks' time too. */
static void expect_path_adds_up(const tc_critical_path *p) {
    int64_t sum = 0, ranks = 0;
    for (int c = 0; c < TC_CP_CLASSES; c++) { cr_expect(p->class_ns[c] >= 0); sum += p->class_ns[c]; }
    for (size_t r = 0; r < p->n_by_rank; r++) ranks += p->by_rank[r].ns;
    cr_expect_eq(sum, p->step_ns, "step %lld: classes %lld, step %lld", (long long)p->number, (long long)sum,
                 (long long)p->step_ns);
    cr_expect_eq(ranks, p->step_ns, "step %lld: ranks", (long long)p->number);
    for (size_t k = 1; k < p->n_top; k++) cr_expect(p->top[k - 1].ns >= p->top[k].ns);
}

/* A planted straggler: every step's path runs through its compute (>= 80% of the path's compute
 * on its rank, issue 29's bar), each step's path is one rank's replayed step, the sum is theirs. */
Test(replay, critical_path_runs_through_the_straggler, .timeout = 120) {
    const int straggler[] = {5, 2};
    const char *opts[] = {"--ranks 8 --gpus-per-node 4 --straggler 5 --clock-offset-us 3000 --end-spread-us 2 "
                          "--time-format epoch --file-names handler --seed 17",
                          "--ranks 4 --straggler 2 --straggler-delay-us 1500 --jitter-us 300 --drop-kernel 0:2 --seed 19"};
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < 2; i++) {
        char name[16], path[700];
        snprintf(name, sizeof name, "s%zu", i);
        tu_gen_job(dir, name, opts[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        tc_job j;
        load(&j, path, false);
        cr_assert(j.summary.has_critical_path, "%s", opts[i]);
        const tc_critical_path *all = &j.summary.critical_path;
        expect_path_adds_up(all);
        int64_t sum = 0, on = 0, compute = 0;
        for (size_t s = 0; s < j.summary.n_cp_steps; s++) {
            const tc_critical_path *p = &j.summary.cp_steps[s];
            expect_path_adds_up(p);
            sum += p->step_ns;
            bool one_rank = false; /* the path's length is some rank's replayed step */
            for (size_t r = 0; r < j.n_ranks; r++)
                for (size_t k = 0; k < j.ranks[r].n_steps; k++)
                    one_rank |= j.ranks[r].steps[k].number == p->number && j.ranks[r].steps[k].step_time_ns == p->step_ns;
            cr_expect(one_rank, "%s: step %lld's path, %lld ns, is a rank's step", opts[i], (long long)p->number,
                      (long long)p->step_ns);
        }
        cr_expect_eq(sum, all->step_ns, "the sum over steps");
        for (size_t r = 0; r < all->n_by_rank; r++) {
            compute += all->by_rank[r].compute_ns;
            if (all->by_rank[r].rank == straggler[i]) on = all->by_rank[r].compute_ns;
        }
        cr_expect(compute > 0 && (double)on >= 0.8 * (double)compute, "%s: %lld of the path's %lld ns of compute on rank %d",
                  opts[i], (long long)on, (long long)compute, straggler[i]);
        cr_expect_eq(all->by_rank[0].rank, straggler[i], "%s: the straggler holds most of the path", opts[i]);
        tc_job_free(&j);
    }
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---- pairs (tracegen --host pytorch): a PyTorch-like host, the planted truth ------------------ */

static const char *const pair_kinds[][2] = {
    {"straggler", "--ranks 8 --gpus-per-node 4 --buckets 4 --compute-us 20000 --steps 4 --seed 12 --straggler 5 "
                  "--straggler-factor 1.6 --clock-offset-us 3000"},
    {"tpdp", "--ranks 8 --tp 4 --gpus-per-node 4 --buckets 4 --compute-us 20000 --steps 4 --seed 13 --host-sync device "
             "--end-spread-us 3 --cuda-sync-events"},
    {"spill", "--ranks 8 --gpus-per-node 4 --buckets 6 --compute-us 20000 --steps 4 --seed 14 --host-sync stream "
              "--file-names handler"},
    {"onegpu", "--ranks 4 --gpus-per-node 1 --buckets 4 --compute-us 10000 --idle-us 500 --steps 4 --seed 17 "
               "--clock-offset-us 2000"},
    /* backward on the autograd engine's thread: the main thread hands it over and takes it back */
    {"autograd", "--ranks 8 --gpus-per-node 4 --buckets 6 --compute-us 20000 --steps 4 --seed 19 --autograd-thread "
                 "--first-bucket-mib 1"},
    /* one NCCL kernel lost on rank 3: its instance is unmatched on every rank */
    {"lost", "--ranks 8 --gpus-per-node 4 --buckets 8 --compute-us 10000 --idle-us 500 --steps 4 --seed 11 "
             "--time-format epoch --end-spread-us 3 --first-bucket-mib 1 --drop-kernel 3:9"},
};

static int64_t us_ns(yajl_val v) { return (int64_t)llround(tu_num(v) * 1000); }

/* The run's critical paths against the planted ones: every class within 1% of the step, the rank
 * with the most compute on the path the planted one. */
static void expect_planted_paths(const tc_job *j, yajl_val want, const char *what) {
    static const char *const keys[TC_CP_CLASSES] = {"compute", "transfer_intra_node", "transfer_inter_node",
                                                    "host_launch", "host_sync", "host_cpu", "memory", "idle"};
    yajl_val steps = tu_get(want, "critical_path_steps", NULL);
    cr_assert(steps && YAJL_IS_ARRAY(steps) && steps->u.array.len == j->summary.n_cp_steps, "%s: steps", what);
    for (size_t s = 0; s < j->summary.n_cp_steps; s++) {
        const tc_critical_path *p = &j->summary.cp_steps[s];
        yajl_val w = steps->u.array.values[s];
        double step = tu_num(tu_get(w, "step_us", NULL)) * 1000;
        for (int c = 0; c < TC_CP_CLASSES; c++) {
            double planted = tu_num(tu_get(w, "class_us", keys[c], NULL)) * 1000;
            cr_expect(fabs((double)p->class_ns[c] - planted) <= 0.01 * step, "%s step %zu: %s %lld ns, planted %.0f", what,
                      s, keys[c], (long long)p->class_ns[c], planted);
        }
        int64_t best = -1, best_ns = -1;
        for (size_t r = 0; r < p->n_by_rank; r++)
            if (p->by_rank[r].compute_ns > best_ns) { best_ns = p->by_rank[r].compute_ns; best = p->by_rank[r].rank; }
        cr_expect_eq(best, (int64_t)tu_num(tu_get(w, "compute_rank", NULL)), "%s step %zu: the path's compute rank", what, s);
    }
}

/* One run predicts the other: its inter-node instances re-timed with the other fabric (alpha kept,
 * the bytes' time scaled by the bandwidths), the mean step within 1% of the other run's. */
static void expect_prediction(const tc_job *j, yajl_val mine, yajl_val other, const char *what) {
    double alpha = tu_num(tu_get(mine, "fabric", "inter_node_latency_us", NULL)) * 1000;
    double f = tu_num(tu_get(mine, "fabric", "inter_node_GBps", NULL)) / tu_num(tu_get(other, "fabric", "inter_node_GBps", NULL));
    int64_t *tr = malloc((j->n_instances + 1) * sizeof *tr), step = 0;
    for (size_t i = 0; i < j->n_instances; i++) {
        int64_t t = j->instances[i].transfer_ns;
        tr[i] = j->inst_groups[j->instances[i].group].scope == TC_SCOPE_INTRA ? t : (int64_t)llround(alpha + ((double)t - alpha) * f);
    }
    cr_assert_eq(tc_replay_with(j, tr, &step, NULL), 0);
    int64_t want = us_ns(tu_get(other, "mean_step_time_us", NULL));
    cr_expect(llabs(step - want) <= want / 100, "%s: predicted %lld ns, the other run %lld", what, (long long)step, (long long)want);
    free(tr);
}

Test(replay, pairs_give_back_the_planted_truth, .timeout = 300) {
    char *dir = tu_tmpdir();
    for (size_t k = 0; k < sizeof pair_kinds / sizeof *pair_kinds; k++) {
        char path[2][700], flags[600], what[2][64];
        yajl_val truth[2];
        tc_job j[2];
        for (int run = 0; run < 2; run++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%s", pair_kinds[k][0], run ? "fast" : "slow");
            snprintf(what[run], sizeof what[run], "%s", name);
            snprintf(flags, sizeof flags, "%s --inter-GBps %s", pair_kinds[k][1], run ? "50" : "12.5");
            tu_gen_job(dir, name, flags);
            snprintf(path[run], sizeof path[run], "%s/%s", dir, name);
            char exp[1600];
            snprintf(exp, sizeof exp, "%s/expected.json", path[run]);
            truth[run] = tu_json_file(exp);
            load(&j[run], path[run], false);
            expect_identity(&j[run], name, 0);
            int64_t ref = us_ns(tu_get(truth[run], "reference_instant_step_time_us", NULL));
            cr_expect(llabs(j[run].summary.replay.reference_step_ns - ref) <= ref / 500, "%s: instant reference %lld ns, "
                      "planted %lld", name, (long long)j[run].summary.replay.reference_step_ns, (long long)ref);
            expect_planted_paths(&j[run], truth[run], name);
        }
        expect_prediction(&j[0], truth[0], truth[1], what[0]);
        expect_prediction(&j[1], truth[1], truth[0], what[1]);
        for (int run = 0; run < 2; run++) { tc_job_free(&j[run]); yajl_tree_free(truth[run]); }
    }
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ------------------------------------------------------------------ CUDA graphs keep their order */
/* Issue 33 item 3: the kernels one cudaGraphLaunch replays (they carry its correlation id) keep
 * their order in the replay: each starts no earlier than the one before it in its graph ends, as
 * measured, and still when the first kernel of every graph runs 50 µs longer (then the rest of the
 * graph must follow it: kernels hung only from their launch call, as HTA's critical path had them,
 * would stay put and overlap). Returns the kernel pairs checked. */
static size_t expect_graph_order(tc_job *j, const char *what) {
    tc_step_graph *g = j->graph;
    cr_assert_not_null(g, "%s: a step graph", what);
    uint32_t **node_of = calloc(j->n_ranks, sizeof *node_of); /* per rank: GPU event -> node */
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_trace *t = &j->traces[j->ranks[r].input];
        node_of[r] = malloc((t->n_gpu + 1) * sizeof **node_of);
        for (size_t e = 0; e < t->n_gpu; e++) node_of[r][e] = TC_NONE;
    }
    for (size_t v = 0; v < g->n; v++)
        if (g->kind[v] == TC_SG_OP && g->rank[v] != TC_NONE) node_of[g->rank[v]][g->ref[v]] = (uint32_t)v;
    int64_t *start = malloc(g->n * sizeof *start), *end = malloc(g->n * sizeof *end);
    int64_t *start2 = malloc(g->n * sizeof *start2), *end2 = malloc(g->n * sizeof *end2);
    size_t pairs = 0, cap = 64, n = 0, n_first = 0;
    uint32_t (*pair)[2] = malloc(cap * sizeof *pair), *firsts = malloc(cap * sizeof *firsts);
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_trace *t = &j->traces[j->ranks[r].input];
        uint32_t *last = malloc((t->n_launches + 1) * sizeof *last); /* per launch: its graph's last kernel so far */
        for (size_t l = 0; l < t->n_launches; l++) last[l] = TC_NONE;
        for (size_t e = 0; e < t->n_gpu; e++) { /* in start order */
            const tc_gpu_event *ge = &t->gpu[e];
            const tc_launch *l = ge->correlation != TC_NONE ? tc_trace_find_launch(t, ge->correlation) : NULL;
            if (!l || l->name == TC_NONE || strcmp(tc_trace_str(t, l->name), "cudaGraphLaunch")) continue;
            size_t li = (size_t)(l - t->launches);
            uint32_t v = node_of[r][e];
            if (v == TC_NONE) continue;
            if (n == cap) { cap *= 2; pair = realloc(pair, cap * sizeof *pair); firsts = realloc(firsts, cap * sizeof *firsts); }
            if (last[li] != TC_NONE) { pair[n][0] = last[li]; pair[n++][1] = v; }
            else firsts[n_first++] = v;
            last[li] = v;
        }
        free(last);
    }
    tc_step_graph_retime(g, NULL, start, end);
    for (size_t k = 0; k < n_first; k++) g->dur[firsts[k]] += 50000; /* each graph's first kernel 50 µs longer */
    tc_step_graph_retime(g, NULL, start2, end2);
    for (size_t k = 0; k < n_first; k++) g->dur[firsts[k]] -= 50000;
    for (size_t k = 0; k < n; k++) {
        uint32_t a = pair[k][0], b = pair[k][1];
        cr_expect_leq(g->start0[a] + g->dur[a], g->start0[b], "%s: measured, graph kernel %u ends after the next starts", what, a);
        cr_expect_leq(end[a], start[b], "%s: replayed, graph kernel node %u (end %lld) after node %u (start %lld)", what, a,
                      (long long)end[a], b, (long long)start[b]);
        cr_expect_leq(end2[a], start2[b], "%s: the first kernel 50 µs longer, node %u (end %lld) overlaps node %u (start %lld)",
                      what, a, (long long)end2[a], b, (long long)start2[b]);
        pairs++;
    }
    free(pair);
    free(firsts);
    free(start); free(end); free(start2); free(end2);
    for (size_t r = 0; r < j->n_ranks; r++) free(node_of[r]);
    free(node_of);
    return pairs;
}

Test(replay, cuda_graph_kernels_keep_their_order, .timeout = 120) {
    char *dir = tu_tmpdir(), path[700];
    /* three graphs of 5, 8 and 12 kernels a step, one kernel lost; µs timestamps, host time before the first kernel */
    tu_gen_job(dir, "graph", "--ranks 1 --steps 3 --idle-cause graph --time-format epoch --seed 9");
    snprintf(path, sizeof path, "%s/graph", dir);
    tc_job j;
    load(&j, path, false);
    size_t pairs = expect_graph_order(&j, "tracegen --idle-cause graph");
    cr_expect_geq(pairs, 3 * (4 + 7 + 11) - 1, "graph kernel pairs: %zu", pairs);
    tc_job_free(&j);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---------------------------------------------------------------- the ranks' graphs built at once */
/* Issue 35: tc_step_graph_build builds every rank's part as a run of the pool, the ranks with the
 * most nodes first, each into its own window of the edge array, moved down afterwards. The graph
 * must be the one built rank after rank (every array, byte for byte, and every count), and the
 * replay's outputs (identity, reference, critical paths: the whole --json report) the same with
 * -j1 and -j3. */
#define SAME_ARRAY(a, b, n, what, field)                                                                           \
    cr_expect(((n) == 0) || memcmp((a)->field, (b)->field, (n) * sizeof *(a)->field) == 0, "%s: %s differs", what, \
              #field)

static void expect_same_graph(const tc_step_graph *a, const tc_step_graph *b, size_t n_ranks, const char *what) {
    cr_assert_not_null(a, "%s: a graph", what);
    cr_assert_not_null(b, "%s: a graph", what);
    cr_assert_eq(a->n, b->n, "%s: nodes %zu and %zu", what, a->n, b->n);
    cr_assert_eq(a->n_edges, b->n_edges, "%s: edges %zu and %zu", what, a->n_edges, b->n_edges);
    cr_assert_eq(a->n_steps, b->n_steps, "%s: steps", what);
    cr_assert_eq(a->n_slots, b->n_slots, "%s: slots", what);
    cr_assert_eq(a->n_instances, b->n_instances, "%s: instances", what);
    SAME_ARRAY(a, b, a->n, what, start0);
    SAME_ARRAY(a, b, a->n, what, dur);
    SAME_ARRAY(a, b, a->n, what, rank);
    SAME_ARRAY(a, b, a->n, what, ref);
    SAME_ARRAY(a, b, a->n, what, kind);
    SAME_ARRAY(a, b, a->n, what, flags);
    SAME_ARRAY(a, b, a->n + 1, what, first);
    SAME_ARRAY(a, b, a->n_edges, what, edges);
    SAME_ARRAY(a, b, a->n, what, order);
    SAME_ARRAY(a, b, n_ranks, what, shift);
    SAME_ARRAY(a, b, a->n_instances, what, inst_node);
    SAME_ARRAY(a, b, a->n_steps, what, steps);
    SAME_ARRAY(a, b, n_ranks + 1, what, rank_steps);
    SAME_ARRAY(a, b, a->n_slots, what, slot_number);
    uint64_t ca[] = {a->ops, a->ops_unplaced, a->ops_unmatched, a->event_deps, a->inferred_deps, a->sync_calls,
                     a->cycle_breaks, a->step_tails, a->poll_waits};
    uint64_t cb[] = {b->ops, b->ops_unplaced, b->ops_unmatched, b->event_deps, b->inferred_deps, b->sync_calls,
                     b->cycle_breaks, b->step_tails, b->poll_waits};
    for (size_t k = 0; k < sizeof ca / sizeof *ca; k++)
        cr_expect_eq(ca[k], cb[k], "%s: count %zu: %llu and %llu", what, k, (unsigned long long)ca[k], (unsigned long long)cb[k]);
}

/* j's --json report, as analyze writes it on `threads` threads. */
static char *json_of(const tc_job *j, size_t *len, int threads) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    cr_assert_not_null(f);
    cr_assert_eq(tc_json_report_write(f, j, threads), 0);
    cr_assert_eq(fclose(f), 0);
    return buf;
}

Test(replay, ranks_built_at_once_give_the_graph_built_in_order, .timeout = 240) {
    static const char *const jobs[] = {
        "--ranks 4 --straggler 2 --clock-offset-us 5000 --end-spread-us 3 --time-format epoch",
        "--ranks 8 --fsdp --gpus-per-node 4 --seed 5 --clock-offset-us 300",
        "--ranks 3 --drop-kernel 1:3 --no-pg --jitter-us 50 --seed 7",
        "--ranks 8 --gpus-per-node 4 --buckets 6 --compute-us 20000 --steps 4 --seed 19 --autograd-thread "
        "--first-bucket-mib 1 --host pytorch",
        "--ranks 8 --gpus-per-node 4 --buckets 8 --compute-us 10000 --idle-us 500 --steps 4 --seed 11 --drop-kernel 3:9 "
        "--host pytorch --host-sync stream",
        "--ranks 1 --idle-cause mixed",
    };
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
        char name[32], path[700];
        snprintf(name, sizeof name, "p%zu", i);
        tu_gen_job(dir, name, jobs[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        tc_job one, three;
        load_on(&one, path, false, 1);
        load_on(&three, path, false, 3);
        cr_assert(job_has_steps(&one), "%s: steps", jobs[i]);
        expect_same_graph(one.graph, three.graph, one.n_ranks, jobs[i]);
        for (int threads = 0; threads <= 3; threads++) { /* the build alone: rank after rank, then on 2-4 threads */
            tc_pool *pool = threads ? tc_pool_new(threads) : NULL;
            tc_step_graph *g = NULL;
            cr_assert_eq(tc_step_graph_build(&one, pool, &g), 0, "%s", jobs[i]);
            expect_same_graph(one.graph, g, one.n_ranks, jobs[i]);
            tc_step_graph_free(g);
            tc_pool_free(pool);
        }
        size_t la = 0, lb = 0, lc = 0;
        char *a = json_of(&one, &la, 1), *b = json_of(&three, &lb, 3), *c = json_of(&one, &lc, 2);
        cr_expect(la == lb && memcmp(a, b, la) == 0, "%s: the --json report differs between -j1 and -j3", jobs[i]);
        cr_expect(la == lc && memcmp(a, c, la) == 0, "%s: the report written on 2 threads differs", jobs[i]);
        free(c);
        cr_expect(strstr(a, "\"critical_path\"") != NULL, "%s: the report has critical paths", jobs[i]);
        free(a);
        free(b);
        tc_job_free(&one);
        tc_job_free(&three);
    }
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
