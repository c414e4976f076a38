/* replay.c: the replay of the job's step graph (replay.h; docs/definitions.md "Replay"): the graph
 * built once (step_graph_job.c; the ranks' parts at once, step_graph_rank.c) and kept in the job,
 * re-timed unchanged (the identity: every rank's replayed steps against its measured ones), on the
 * reference "instant" (inter-node transfer taking no time), and with any transfer times the what-if
 * gives (tc_replay_with); the critical paths come from the unchanged replay (critical_path.c). The
 * ranks' graphs and the paths use every thread, and the reference's re-timing runs beside the
 * identity's (each is one serial pass over the graph). */
#include "replay.h"
#include "critical_path.h"
#include "step_graph.h"
#include "base/pool.h"
#include "base/status.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static void graph_free(struct tc_step_graph *g) { tc_step_graph_free(g); }

/* The rounded mean sum / n (n > 0), as a rank's step_time_ns is taken. */
static int64_t rounded_mean(int64_t sum, int64_t n) { return sum / n + (sum % n >= n - n / 2); }

/* Each step's replayed time (g->steps order) from node times; a step without boundary nodes keeps
 * its measured time. */
static void step_times(const tc_step_graph *g, const int64_t *start, const int64_t *end, int64_t *out) {
    for (size_t k = 0; k < g->n_steps; k++) {
        const tc_sg_step *s = &g->steps[k];
        out[k] = s->start_node != TC_NONE && s->end_node != TC_NONE ? end[s->end_node] - start[s->start_node]
                                                                     : s->measured_ns;
    }
}

/* The job's mean step from per-step times (g->steps order): the mean over ranks with steps of each
 * rank's rounded mean step (as summary.step_time_ns); per_slot (when not NULL): each step slot's
 * rounded mean over the ranks that have it. */
static int64_t mean_step(const tc_step_graph *g, size_t n_ranks, const int64_t *v, int64_t *per_slot, int64_t *count) {
    int64_t sum = 0, ranks = 0;
    for (size_t r = 0; r < n_ranks; r++) {
        size_t a = g->rank_steps[r], b = g->rank_steps[r + 1];
        if (a == b) continue;
        int64_t s = 0;
        for (size_t k = a; k < b; k++) s += v[k];
        sum += rounded_mean(s, (int64_t)(b - a));
        ranks++;
    }
    if (per_slot) {
        memset(per_slot, 0, g->n_slots * sizeof *per_slot);
        memset(count, 0, g->n_slots * sizeof *count);
        for (size_t k = 0; k < g->n_steps; k++) { per_slot[g->steps[k].slot] += v[k]; count[g->steps[k].slot]++; }
        for (size_t s = 0; s < g->n_slots; s++) per_slot[s] = count[s] ? rounded_mean(per_slot[s], count[s]) : 0;
    }
    return ranks ? sum / ranks : 0;
}

/* The scratch of one re-timing: every node's start and end (g->n each), every step's time
 * (g->n_steps). */
typedef struct {
    int64_t *start, *end, *v;
} retime_scratch;

/* false, with nothing held, when memory is short. */
static bool scratch_new(const tc_step_graph *g, retime_scratch *s) {
    s->start = malloc((g->n ? g->n : 1) * sizeof *s->start);
    s->end = malloc((g->n ? g->n : 1) * sizeof *s->end);
    s->v = malloc((g->n_steps ? g->n_steps : 1) * sizeof *s->v);
    if (s->start && s->end && s->v) return true;
    free(s->start); free(s->end); free(s->v);
    *s = (retime_scratch){0};
    return false;
}

static void scratch_free(retime_scratch *s) { free(s->start); free(s->end); free(s->v); }

/* Re-times g and takes its step times: s->v gets each step's. */
static void replay_steps(const tc_step_graph *g, const int64_t *transfer_ns, retime_scratch *s) {
    tc_step_graph_retime(g, transfer_ns, s->start, s->end);
    step_times(g, s->start, s->end, s->v);
}

int tc_replay_with(const tc_job *j, const int64_t *transfer_ns, int64_t *step_ns, int64_t *per_step_ns) {
    const tc_step_graph *g = j->graph;
    if (!g) return 1;
    retime_scratch s;
    int64_t *count = malloc((g->n_slots ? g->n_slots : 1) * sizeof *count);
    int rc = -1;
    if (scratch_new(g, &s)) {
        if (count) {
            replay_steps(g, transfer_ns, &s);
            *step_ns = mean_step(g, j->n_ranks, s.v, per_step_ns, count);
            rc = 0;
        }
        scratch_free(&s);
    }
    free(count);
    return rc;
}

/* A replay that did not happen: has false and why. 0, or -1 out of memory. */
static int no_replay(tc_replay_summary *rp, const char *why) {
    rp->has = false;
    rp->note = tc_strdup(why);
    return rp->note ? 0 : -1;
}

/* The identity: measured and replayed steps (means and per step) and the largest relative error. */
static int fill_identity(tc_job *j, const tc_step_graph *g, const int64_t *replayed) {
    tc_replay_summary *rp = &j->summary.replay;
    int64_t *measured = malloc((g->n_steps ? g->n_steps : 1) * sizeof *measured);
    int64_t *count = malloc((g->n_slots ? g->n_slots : 1) * sizeof *count);
    rp->step_number = malloc((g->n_slots ? g->n_slots : 1) * sizeof *rp->step_number);
    rp->step_measured_ns = malloc((g->n_slots ? g->n_slots : 1) * sizeof *rp->step_measured_ns);
    rp->step_replayed_ns = malloc((g->n_slots ? g->n_slots : 1) * sizeof *rp->step_replayed_ns);
    int rc = -1;
    if (!measured || !count || !rp->step_number || !rp->step_measured_ns || !rp->step_replayed_ns) goto out;
    rp->n_steps = g->n_slots;
    memcpy(rp->step_number, g->slot_number, g->n_slots * sizeof *rp->step_number);
    for (size_t k = 0; k < g->n_steps; k++) {
        measured[k] = g->steps[k].measured_ns;
        if (measured[k] <= 0) continue;
        int64_t d = replayed[k] - measured[k];
        double err = (double)(d < 0 ? -d : d) / (double)measured[k];
        if (err > rp->identity_error) rp->identity_error = err;
    }
    rp->measured_step_ns = mean_step(g, j->n_ranks, measured, rp->step_measured_ns, count);
    rp->replayed_step_ns = mean_step(g, j->n_ranks, replayed, rp->step_replayed_ns, count);
    rc = 0;
out:
    free(measured);
    free(count);
    return rc;
}

/* The reference "instant": every inter-node (or unknown-scope) instance with no transfer time. Its
 * re-timing needs only the graph, so with a pool it runs beside the identity's and the critical
 * paths (own scratch: start, end, v), and its figures are set once it is done. */
typedef struct {
    tc_pool_task task;        /* first: the task pointer is the struct's */
    const tc_job *j;
    const tc_step_graph *g;
    retime_scratch s;
    bool done;                /* s.v holds the step times (false: out of memory) */
} reference_run;

static void reference_retime(reference_run *r) {
    const tc_job *j = r->j;
    int64_t *tr = malloc((j->n_instances ? j->n_instances : 1) * sizeof *tr);
    if (!tr) return;
    for (size_t i = 0; i < j->n_instances; i++)
        tr[i] = j->inst_groups[j->instances[i].group].scope == TC_SCOPE_INTRA ? j->instances[i].transfer_ns : 0;
    replay_steps(r->g, tr, &r->s);
    free(tr);
    r->done = true;
}

static void reference_task(tc_pool_task *task, size_t i, int worker) {
    (void)i; (void)worker;
    reference_retime((reference_run *)task);
}

/* The reference's figures from its step times (r->s.v). 0, or -1 when it could not run (memory). */
static int fill_reference(tc_job *j, const tc_step_graph *g, const reference_run *r) {
    tc_replay_summary *rp = &j->summary.replay;
    if (!r->done) return -1;
    rp->reference_step_ns = mean_step(g, j->n_ranks, r->s.v, NULL, NULL);
    rp->has_reference = true;
    memcpy(rp->reference, "instant", sizeof "instant");
    return 0;
}

/* What the graph holds, and the note on what it kept as measured. */
static int fill_counts(tc_replay_summary *rp, const tc_step_graph *g) {
    rp->ops = g->ops;
    rp->ops_unplaced = g->ops_unplaced;
    rp->event_deps = g->event_deps;
    rp->inferred_deps = g->inferred_deps;
    rp->sync_calls = g->sync_calls;
    rp->poll_waits = g->poll_waits;
    rp->step_tails = g->step_tails;
    rp->ops_unmatched = g->ops_unmatched;
    if (!g->ops_unplaced && !g->cycle_breaks && !g->ops_unmatched) return 0;
    char unplaced[128] = "", unmatched[160] = "";
    if (g->ops_unplaced)
        tc_format(unplaced, sizeof unplaced, "%llu GPU op%s without a launch call kept at %s measured time",
                  (unsigned long long)g->ops_unplaced, g->ops_unplaced == 1 ? "" : "s", g->ops_unplaced == 1 ? "its" : "their");
    if (g->ops_unmatched)
        tc_format(unmatched, sizeof unmatched, "%s%llu unmatched collective kernel%s keep%s %s measured duration",
                  *unplaced ? "; " : "", (unsigned long long)g->ops_unmatched, g->ops_unmatched == 1 ? "" : "s",
                  g->ops_unmatched == 1 ? "s" : "", g->ops_unmatched == 1 ? "its" : "their");
    rp->note = tc_format_alloc("%s%s%s", unplaced, unmatched,
                               g->cycle_breaks ? "; dependencies that formed a cycle were cut" : "");
    return rp->note ? 0 : -1;
}

static bool skeleton_traces(const tc_job *j) {
    for (size_t i = 0; i < j->n_traces; i++) if (j->traces[i].n_gpu_parsed) return true;
    return false;
}

int tc_job_replay(tc_job *j, int threads) {
    tc_replay_summary *rp = &j->summary.replay;
    if (skeleton_traces(j))
        return no_replay(rp, "the replay needs every rank's events: the single-process build analyzes them (an MPI run "
                             "ships only the communication kernels)");
    if (threads <= 0) threads = tc_cpu_count();
    /* the ranks' graphs are built, and the critical paths walked, on every thread (this one too) */
    tc_pool *pool = threads >= 2 ? tc_pool_new(threads - 1) : NULL;
    tc_step_graph *g = NULL;
    if (tc_step_graph_build(j, pool, &g)) { tc_pool_free(pool); return -1; }
    if (!g) { tc_pool_free(pool); return no_replay(rp, "no ProfilerStep spans: the replay re-times steps"); }
    j->graph = g;
    j->graph_free = graph_free;
    retime_scratch id; /* the identity's */
    int rc = -1;
    if (scratch_new(g, &id)) {
        /* the reference beside the identity when there is a thread for it and memory for its own
         * scratch; else after the paths, in the identity's scratch (the paths read it first) */
        reference_run ref = {.j = j, .g = g};
        bool beside = pool && tc_pool_threads(pool) >= 1 && scratch_new(g, &ref.s);
        if (beside) tc_pool_submit(pool, &ref.task, reference_task, 1);
        replay_steps(g, NULL, &id);
        rc = fill_counts(rp, g) || fill_identity(j, g, id.v) ||
                     tc_critical_paths(j, g, id.start, id.end, g->n_slots >= 2 ? pool : NULL)
                 ? -1 : 0;
        if (beside) tc_pool_wait(pool, &ref.task);
        else if (!rc) { /* after the paths, in the identity's scratch: it re-times start and end */
            ref.s = id;
            reference_retime(&ref);
        }
        if (!rc) rc = fill_reference(j, g, &ref);
        if (beside) scratch_free(&ref.s);
        scratch_free(&id);
        rp->has = rc == 0;
    }
    tc_pool_free(pool);
    return rc;
}
