/* analyze.c: runs the analyses of a job in order: sort events, match collectives (waits), per-rank
 * and per-step breakdowns, summary shares, then the findings (straggler, verdict, actions:
 * findings.c). See analyze.h. */
#include "analyze.h"
#include "base/numfmt.h"
#include "analyze_phases.h"
#include "breakdown_compute.h"
#include "all_to_all.h"
#include "collectives.h"
#include "comm_model.h"
#include "findings.h"
#include "flops.h"
#include "groups.h"
#include "host_wait.h"
#include "intervals.h"
#include "model/job.h"
#include "mfu.h"
#include "nodes.h"
#include "pipeline.h"
#include "replay.h"
#include "step_stats.h"
#include "steps.h"
#include "base/pool.h"
#include "base/util.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int cmp_event(const void *a, const void *b) {
    const tc_gpu_event *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    if (x->dur_ns != y->dur_ns) return x->dur_ns < y->dur_ns ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->correlation != y->correlation) return x->correlation < y->correlation ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static int cmp_rank(const void *a, const void *b) {
    const tc_rank_result *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

typedef struct { int64_t id; size_t at; } device_key;

static int cmp_device_key(const void *a, const void *b) {
    const device_key *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* Per entry of t->devices[]: the GPU events whose device is its id, in O((E + D) log D) (a trace
 * may list 100 000 devices). 0, or -1 out of memory. */
static int events_per_device(const tc_trace *t, size_t *count) {
    size_t nd = t->n_devices;
    device_key *k = malloc((nd ? nd : 1) * sizeof *k);
    size_t *hits = calloc(nd ? nd : 1, sizeof *hits); /* by position in k */
    if (!k || !hits) { free(k); free(hits); return -1; }
    for (size_t d = 0; d < nd; d++) k[d] = (device_key){t->devices[d].id, d};
    tc_sort(k, nd, sizeof *k, cmp_device_key);
    for (size_t e = 0; e < t->n_gpu; e++) {
        size_t lo = 0, hi = nd; /* the first key with this id */
        while (lo < hi) { size_t mid = lo + (hi - lo) / 2; if (k[mid].id < t->gpu[e].device) lo = mid + 1; else hi = mid; }
        if (lo < nd && k[lo].id == t->gpu[e].device) hits[lo]++;
    }
    for (size_t a = 0, b; a < nd; a = b) /* entries with one id share its first key's count */
        for (b = a; b < nd && k[b].id == k[a].id; b++) count[k[b].at] = hits[a];
    free(k);
    free(hits);
    return 0;
}

/* The rank's device name (docs/definitions.md, "device"): the named listed device with the most
 * GPU events; when no GPU event's device is a listed id (ROCm traces give the HSA agent id, e.g.
 * 2 or 9, while deviceProperties lists id 0), the name every named listed device shares (one
 * listed device is the device). *out NULL when neither holds. 0, or -1 out of memory. */
static int main_device(const tc_trace *t, const char **out) {
    const char *best = NULL, *shared = NULL;
    size_t best_n = 0;
    bool one_name = true;
    size_t *count = malloc((t->n_devices ? t->n_devices : 1) * sizeof *count);
    if (!count || events_per_device(t, count)) { free(count); return -1; }
    for (size_t d = 0; d < t->n_devices; d++) {
        const char *name = tc_trace_str(t, t->devices[d].name);
        if (!*name) continue; /* no name, or "" (vLLM writes empty names) */
        if (!shared) shared = name;
        else if (strcmp(shared, name) != 0) one_name = false;
        if (count[d] > best_n) { best_n = count[d]; best = name; }
    }
    free(count);
    *out = best ? best : one_name ? shared : NULL;
    return 0;
}

static double share(int64_t part, int64_t whole) { return whole > 0 ? (double)part / (double)whole : 0; }

/* |∪ unmatched comm kernels − ∪ compute| (unmatched kernels carry wait -1). */
static int unmatched_exposed(const tc_trace *t, const int64_t *wait_ns, int64_t *out) {
    tc_ivset um, comp;
    tc_ivset_init(&um);
    tc_ivset_init(&comp);
    int rc = 0;
    for (size_t e = 0; e < t->n_gpu && !rc; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (g->kind != TC_GPU_KERNEL) continue;
        if (!g->is_comm) rc = tc_ivset_add(&comp, g->start_ns, g->start_ns + g->dur_ns);
        else if (wait_ns[e] < 0) rc = tc_ivset_add(&um, g->start_ns, g->start_ns + g->dur_ns);
    }
    tc_ivset_normalize(&um);
    tc_ivset_normalize(&comp);
    *out = rc ? 0 : tc_ivset_subtract_length(&um, &comp);
    tc_ivset_free(&um);
    tc_ivset_free(&comp);
    return rc;
}

/* The rank's step window (docs/definitions.md "Step window"): its GPU window stretched to the
 * first step span's start and the last one's end; the stretch is idle, split into the lead (before
 * the first GPU event) and the tail (after the last). */
static void step_window(tc_rank_result *rr, const tc_step_map *m, bool has_gpu) {
    int64_t s = INT64_MAX, e = INT64_MIN;
    for (size_t k = 0; k < m->n_steps; k++) {
        if (m->steps[k].span_start_ns < s) s = m->steps[k].span_start_ns;
        if (m->steps[k].span_end_ns > e) e = m->steps[k].span_end_ns;
    }
    if (has_gpu && rr->b.first_ns < s) s = rr->b.first_ns;
    if (has_gpu && rr->b.last_ns > e) e = rr->b.last_ns;
    rr->has_step_window = true;
    tc_breakdown_widen(&rr->b, s, e, &rr->step_b);
    rr->step_shares = tc_breakdown_shares(&rr->step_b);
    rr->before_first_kernel_ns = has_gpu ? rr->b.first_ns - s : e - s;
    rr->after_last_kernel_ns = has_gpu ? e - rr->b.last_ns : 0;
}

/* One step's span: its ProfilerStep span stretched to hold its own GPU events (the same rule as
 * the rank's step window, over the step's events). */
static void step_span(tc_step_result *sr, const tc_step_events *se) {
    int64_t s = se->span_start_ns, e = se->span_end_ns;
    bool has_gpu = sr->b.gpu_events > 0;
    if (has_gpu && sr->b.first_ns < s) s = sr->b.first_ns;
    if (has_gpu && sr->b.last_ns > e) e = sr->b.last_ns;
    tc_breakdown_widen(&sr->b, s, e, &sr->step_b);
    sr->before_first_kernel_ns = has_gpu ? sr->b.first_ns - s : e - s;
    sr->after_last_kernel_ns = has_gpu ? e - sr->b.last_ns : 0;
}

/* Traces without baseTimeNanoseconds hold epoch µs when their times are past 2000-01-01. */
#define EPOCH_2000_NS INT64_C(946684800000000000)

static int rank_analyze(tc_job *j, tc_rank_result *rr) {
    tc_trace *t = &j->traces[rr->input];
    if (t->n_gpu) { /* events are sorted: the first starts first */
        int64_t first = t->gpu[0].start_ns, base = t->has_base ? t->base_ns : 0;
        bool fits = first >= 0 ? base <= INT64_MAX - first : base >= INT64_MIN - first;
        rr->start_epoch_ns = fits ? base + first : 0;
        rr->has_start_epoch = rr->start_epoch_ns >= EPOCH_2000_NS; /* else relative times */
    }
    if (tc_breakdown_compute(t->gpu, NULL, t->n_gpu, rr->wait_ns, &rr->b)) return -1;
    rr->has_ratio = rr->b.compute_ns > 0;
    rr->comm_compute_ratio = rr->has_ratio ? (double)rr->b.comm_ns / (double)rr->b.compute_ns : 0;
    tc_step_map m;
    if (tc_steps_assign(t, &m)) return -1;
    rr->unassigned_events = m.unassigned;
    rr->steps_total = m.n_steps;
    if (m.n_steps) {
        rr->steps = calloc(m.n_steps, sizeof *rr->steps);
        if (!rr->steps) { tc_step_map_free(&m); return -1; }
        int64_t sum = 0;
        for (size_t s = 0; s < m.n_steps; s++) {
            tc_step_result *sr = &rr->steps[rr->n_steps++];
            sr->number = m.steps[s].number;
            sr->step_time_ns = m.steps[s].step_time_ns;
            sum += sr->step_time_ns;
            if (tc_breakdown_compute(t->gpu, m.steps[s].events, m.steps[s].n_events, rr->wait_ns, &sr->b)) {
                tc_step_map_free(&m);
                return -1;
            }
            sr->has_ratio = sr->b.compute_ns > 0;
            sr->comm_compute_ratio = sr->has_ratio ? (double)sr->b.comm_ns / (double)sr->b.compute_ns : 0;
            step_span(sr, &m.steps[s]);
        }
        rr->has_step_time = true;
        step_window(rr, &m, t->n_gpu > 0);
        int64_t n = (int64_t)rr->n_steps; /* rounded mean, (sum + n/2) / n without passing INT64_MAX */
        rr->step_time_ns = sum / n + (sum % n >= n - n / 2);
        if (m.repeated)
            tc_trace_warn(t, "%llu ProfilerStep spans repeat the number of an earlier one (two profiler sessions in "
                          "one trace?): each is a step of its own", (unsigned long long)m.repeated);
        if (m.unassigned)
            tc_trace_warn(t, "%llu GPU events fall in no ProfilerStep (outside the profiled steps); they count in the "
                          "rank's totals but in no step", (unsigned long long)m.unassigned);
    }
    int rc = tc_host_wait_rank(t, rr, &m) || tc_step_stats_rank(rr) ? -1 : 0;
    tc_step_map_free(&m);
    return rc;
}

void tc_rank_extra_free(tc_rank_extra *x) {
    tc_kernel_parts_free(&x->kernels);
    tc_kernel_aggs_free(&x->gpu_kernels);
    tc_op_parts_free(&x->ops);
}

int tc_job_prepare(tc_job *j, bool sort_events) {
    j->n_ranks = 0;
    j->ranks = calloc(j->n_traces ? j->n_traces : 1, sizeof *j->ranks);
    if (!j->ranks) return -1;
    for (size_t i = 0; i < j->n_traces; i++) {
        tc_trace *t = &j->traces[i];
        if (sort_events) tc_sort(t->gpu, t->n_gpu, sizeof *t->gpu, cmp_event);
        tc_rank_result *rr = &j->ranks[j->n_ranks++];
        rr->rank = t->rank;
        rr->input = i;
        rr->device = NULL;
        if (sort_events && main_device(t, &rr->device)) return -1;
    }
    tc_sort(j->ranks, j->n_ranks, sizeof *j->ranks, cmp_rank);
    return 0;
}

double tc_job_user_flops(const tc_job *j, const tc_analyze_options *opt) {
    int64_t world = (int64_t)j->n_ranks;
    for (size_t i = 0; i < j->n_traces; i++)
        if (j->traces[i].world_size > world) world = j->traces[i].world_size;
    return tc_mfu_user_flops(opt, world);
}

/* The per-rank phase as two tasks that may run at once. A: sort the launches (then B may read
 * them) and the host spans (then B may read those), breakdowns, steps and idle causes (then B may
 * read rr->steps), unmatched-exposed time and process groups. B: op nesting, then (launches
 * sorted) the top-kernel rows and GPU kernel aggregates, (host spans sorted) the op parts, and
 * (steps done) MFU. A waits for nothing and signals each step B waits for, on failure too. `wait`
 * blocks until the named step of A is done (NULL: run in order: B's head, A, B's tail). */
typedef enum { STEP_LAUNCHES_SORTED, STEP_HOST_SORTED, STEP_STEPS_DONE, STEP_COUNT } rank_step;
typedef struct rank_sync rank_sync;
static void step_done(rank_sync *s, size_t r, rank_step step);
static void step_wait(rank_sync *s, size_t r, rank_step step);

static int task_a(tc_job *j, size_t r, rank_sync *sync) {
    tc_rank_result *rr = &j->ranks[r];
    tc_trace *t = &j->traces[rr->input];
    tc_trace_sort_launches(t);
    if (sync) step_done(sync, r, STEP_LAUNCHES_SORTED);
    tc_host_sort_spans(t); /* host_wait's order, which the op parts read too */
    if (sync) step_done(sync, r, STEP_HOST_SORTED);
    int rc = rank_analyze(j, rr);
    if (sync) step_done(sync, r, STEP_STEPS_DONE); /* also on failure: B must not wait forever */
    if (!rc && rr->wait_ns && rr->unmatched_comm) rc = unmatched_exposed(t, rr->wait_ns, &rr->unmatched_exposed_ns);
    return rc ? rc : tc_groups_rank(j, rr);
}

/* B up to the kernel tables (head) or from the op parts on (tail). */
static int task_b(tc_job *j, size_t r, const tc_analyze_options *opt, double user_flops, tc_rank_extra *x, bool tail,
                  rank_sync *sync) {
    tc_rank_result *rr = &j->ranks[r];
    tc_trace *t = &j->traces[rr->input];
    if (tail) {
        if (sync) step_wait(sync, r, STEP_HOST_SORTED);
        int rc = tc_op_parts_rank(t, &x->ops);
        if (sync) step_wait(sync, r, STEP_STEPS_DONE);
        rc = rc ? rc : tc_mfu_rank(j, rr, opt, user_flops, &x->mfu);
        tc_trace_free_ops(t); /* MFU was their last reader: the other ranks' phases peak without them */
        return rc;
    }
    if (tc_flops_resolve_nesting(t)) return -1;
    if (sync) step_wait(sync, r, STEP_LAUNCHES_SORTED);
    if (opt->kernel_table && tc_kernel_aggs_trace(t, &x->gpu_kernels)) return -1;
    return tc_kernel_parts_trace(t, x->kernel_rows_keep, &x->kernels);
}

static int rank_task(tc_job *j, size_t r, const tc_analyze_options *opt, double user_flops, tc_rank_extra *x,
                     bool is_b, rank_sync *sync) {
    if (!is_b) return task_a(j, r, sync);
    return task_b(j, r, opt, user_flops, x, false, sync) || task_b(j, r, opt, user_flops, x, true, sync) ? -1 : 0;
}

int tc_job_rank_phase(tc_job *j, size_t r, const tc_analyze_options *opt, double user_flops, tc_rank_extra *x) {
    /* B's head first (its top-kernel rows sort the launches themselves), then A, then B's tail
     * (the op parts read the host spans A sorted, MFU the steps A made and the nesting B resolved) */
    if (task_b(j, r, opt, user_flops, x, false, NULL) || task_a(j, r, NULL)) return -1;
    return task_b(j, r, opt, user_flops, x, true, NULL);
}

/* ---- the per-rank phases of a job on the worker pool --------------------------------------------
 * One batch of 2 * n_ranks runs, taken in index order by groups of g ranks (twice the threads),
 * the ranks biggest first (events to read: the longest task goes first, so the last to end is a
 * short one): A(0) .. A(g-1), B(0) .. B(g-1), A(g) .. in that order, so the ranks' A tasks (the
 * longer ones, which B tasks wait for) start together and no thread waits for a B's A while
 * another A could run; a group at a time keeps what B frees (a rank's ops) from piling up over
 * many ranks. Only a B task waits, for steps of its rank's A, which was taken before it and waits
 * for nothing, so with two threads or more nothing waits forever. Results go to each rank's own rr
 * and x: the same as one thread. */
struct rank_sync {
    tc_job *j;
    size_t group;       /* ranks per group of the batch's order (twice the threads) */
    const size_t *order; /* the ranks, biggest first */
    const tc_analyze_options *opt;
    double user_flops;
    tc_rank_extra *x;
    tc_latch *steps;    /* steps[STEP_COUNT * r + step] reaches 0 when that rank_step of rank r is done */
    atomic_bool failed;
};

static void step_done(rank_sync *s, size_t r, rank_step step) { tc_latch_count_down(&s->steps[STEP_COUNT * r + step]); }
static void step_wait(rank_sync *s, size_t r, rank_step step) { tc_latch_wait(&s->steps[STEP_COUNT * r + step]); }

/* Task `task` of the batch: its group's A tasks, then their B tasks (the last group may be smaller). */
static void rank_run(void *arg, size_t task, int worker) {
    rank_sync *k = arg;
    (void)worker;
    size_t first = task / (2 * k->group) * k->group, left = k->j->n_ranks - first;
    size_t m = left < k->group ? left : k->group, o = task - 2 * first;
    size_t r = k->order[first + (o < m ? o : o - m)];
    if (rank_task(k->j, r, k->opt, k->user_flops, &k->x[r], o >= m, k)) atomic_store(&k->failed, true);
}

typedef struct { size_t events, r; } rank_work;

static int cmp_rank_work(const void *a, const void *b) { /* most events first, then rank order */
    const rank_work *x = a, *y = b;
    if (x->events != y->events) return x->events > y->events ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

/* The ranks, biggest first (*order, n_ranks of them; NULL out of memory). */
static size_t *ranks_by_work(const tc_job *j) {
    rank_work *w = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof *w);
    size_t *order = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof *order);
    if (w && order) {
        for (size_t r = 0; r < j->n_ranks; r++) {
            const tc_trace *t = &j->traces[j->ranks[r].input];
            w[r] = (rank_work){t->n_gpu + t->n_launches + t->n_host, r};
        }
        tc_sort(w, j->n_ranks, sizeof *w, cmp_rank_work);
        for (size_t r = 0; r < j->n_ranks; r++) order[r] = w[r].r;
    } else {
        free(order);
        order = NULL;
    }
    free(w);
    return order;
}

static int rank_phases(tc_job *j, const tc_analyze_options *opt, double user_flops, tc_rank_extra *x) {
    size_t threads = opt->jobs > 0 ? (size_t)opt->jobs : (size_t)tc_cpu_count();
    if (threads > 2 * j->n_ranks) threads = 2 * j->n_ranks;
    tc_pool *pool = threads >= 2 ? tc_pool_new((int)threads - 1) : NULL; /* this thread works too */
    rank_sync k = {.j = j, .group = 2 * threads, .opt = opt, .user_flops = user_flops, .x = x};
    k.steps = pool ? calloc(STEP_COUNT * j->n_ranks, sizeof *k.steps) : NULL;
    size_t *order = pool ? ranks_by_work(j) : NULL;
    k.order = order;
    if (!k.steps || !order || tc_pool_threads(pool) < 1) { /* one thread (A waits for B: it needs a second) */
        free(k.steps);
        free(order);
        tc_pool_free(pool);
        for (size_t r = 0; r < j->n_ranks; r++)
            if (tc_job_rank_phase(j, r, opt, user_flops, &x[r])) return -1;
        return 0;
    }
    atomic_init(&k.failed, false);
    for (size_t i = 0; i < STEP_COUNT * j->n_ranks; i++) tc_latch_init(&k.steps[i], 1);
    tc_pool_for(pool, 2 * j->n_ranks, rank_run, &k);
    tc_pool_free(pool);
    for (size_t i = 0; i < STEP_COUNT * j->n_ranks; i++) tc_latch_destroy(&k.steps[i]);
    free(k.steps);
    free(order);
    return atomic_load(&k.failed) ? -1 : 0;
}

/* The ranks' GPU kernel rows merged in input order into j->kernel_aggs, in report order. */
static int merge_kernel_aggs(tc_job *j, const tc_rank_extra *x) {
    size_t *rank_of = malloc((j->n_traces ? j->n_traces : 1) * sizeof *rank_of);
    if (!rank_of) return -1;
    for (size_t i = 0; i < j->n_traces; i++) rank_of[i] = SIZE_MAX;
    for (size_t r = 0; r < j->n_ranks; r++) rank_of[j->ranks[r].input] = r;
    tc_kernel_aggs all;
    memset(&all, 0, sizeof all);
    /* the names stay where they are when every rank's rows borrow them from j's traces (an MPI run
     * unpacks its rows: then they are copied) */
    all.borrowed = true;
    for (size_t r = 0; r < j->n_ranks; r++) all.borrowed &= x[r].gpu_kernels.borrowed;
    int rc = 0;
    bool one = j->n_ranks == 1 && x[0].gpu_kernels.borrowed;
    if (one) { /* one trace's rows are unique: a copy, no index */
        const tc_kernel_aggs *p = &x[0].gpu_kernels;
        all.rows = malloc((p->n ? p->n : 1) * sizeof *all.rows);
        if (!all.rows) rc = -1;
        else memcpy(all.rows, p->rows, p->n * sizeof *all.rows);
        all.n = all.cap = rc ? 0 : p->n;
    }
    for (size_t i = 0; i < j->n_traces && !rc && !one; i++) {
        if (rank_of[i] == SIZE_MAX) continue;
        const tc_kernel_aggs *p = &x[rank_of[i]].gpu_kernels;
        for (size_t k = 0; k < p->n && !rc; k++) rc = tc_kernel_aggs_add(&all, &p->rows[k]);
    }
    free(rank_of);
    if (rc) { tc_kernel_aggs_free(&all); return -1; }
    tc_kernel_aggs_sort(&all);
    j->kernel_aggs = all.rows;
    j->n_kernel_aggs = all.n;
    j->kernel_agg_names_borrowed = all.borrowed;
    return 0;
}

/* The comm kernels of every rank counted by library (the ranks' traces keep every comm kernel, MPI
 * skeletons too). */
static void count_comm_libraries(tc_job *j) {
    tc_summary *sm = &j->summary;
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_trace *t = &j->traces[j->ranks[r].input];
        for (size_t e = 0; e < t->n_gpu; e++) {
            uint8_t lib = t->gpu[e].is_comm;
            if (!lib || lib >= TC_COMM_LIB_COUNT) continue;
            sm->comm_kernels[lib]++;
            sm->comm_kernel_ns[lib] += t->gpu[e].dur_ns;
        }
    }
}

/* The shares of the summed step windows (a rank without steps counts its GPU window). */
static void step_shares(tc_summary *sm) {
    tc_window_figures *f = &sm->step;
    f->on_steps = true;
    const tc_shares s = tc_breakdown_shares(&f->b);
    f->compute = s.compute;
    f->exposed_comm = s.exposed_comm;
    f->exposed_transfer = s.exposed_transfer;
    f->exposed_wait = s.exposed_wait;
    f->memory_exposed = s.memory_exposed;
    f->memory_host_exposed = s.memory_host_exposed;
    f->memory_device_exposed = s.memory_device_exposed;
    f->idle = s.idle;
}

/* j->ops from the ranks' op parts (op_groups.h). 0, or -1 out of memory. */
static int op_groups(tc_job *j, const tc_rank_extra *x) {
    const tc_op_parts **parts = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof *parts);
    if (!parts) return -1;
    for (size_t r = 0; r < j->n_ranks; r++) parts[r] = &x[r].ops;
    int rc = tc_op_groups_finish(j, parts);
    free(parts);
    return rc;
}

int tc_job_finish(tc_job *j, const tc_analyze_options *opt, const tc_rank_extra *x) {
    tc_summary *sm = &j->summary;
    sm->ranks = j->n_ranks;
    count_comm_libraries(j);
    int64_t step_sum = 0;
    size_t step_ranks = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        tc_rank_result *rr = &j->ranks[r];
        char pc[TC_PCT_LEN];
        if (rr->wait_ns && rr->unmatched_comm)
            tc_job_warn(j, "rank %lld: %llu collective kernel%s could not be matched across ranks; %s exposed time, "
                        "%.3f ms (%s of the window), is counted as transfer", (long long)rr->rank,
                        (unsigned long long)rr->unmatched_comm, rr->unmatched_comm == 1 ? "" : "s",
                        rr->unmatched_comm == 1 ? "its" : "their", (double)rr->unmatched_exposed_ns / 1e6,
                        tc_fmt_pct(pc, sizeof pc, share(rr->unmatched_exposed_ns, rr->b.window_ns), 2));
        rr->last_arrival_share = rr->matched_instances ? rr->last_arrival_credit / (double)rr->matched_instances : 0;
        rr->caused_wait_ns_per_step = rr->caused_wait_ns / (int64_t)(rr->steps_total ? rr->steps_total : 1);
        rr->caused_wait_per_rank_ns_per_step = j->n_ranks > 1 ? rr->caused_wait_ns_per_step / (int64_t)(j->n_ranks - 1) : 0;
        if (rr->has_start_epoch && (!sm->has_capture_time || rr->start_epoch_ns / 1000000000 < sm->capture_unix_s)) {
            sm->has_capture_time = true;
            sm->capture_unix_s = rr->start_epoch_ns / 1000000000;
        }
        tc_breakdown_add(&sm->b, &rr->b);
        sm->step.has |= rr->has_step_window; /* a rank without steps counts its GPU window */
        tc_breakdown_add(&sm->step.b, rr->has_step_window ? &rr->step_b : &rr->b);
        if (rr->has_step_time) { step_sum += rr->step_time_ns; step_ranks++; }
    }
    sm->split_known = j->n_ranks >= 2 && sm->b.split_known;
    const tc_shares gs = tc_breakdown_shares(&sm->b);
    sm->share_compute = gs.compute;
    sm->share_exposed_comm = gs.exposed_comm;
    sm->share_exposed_transfer = gs.exposed_transfer;
    sm->share_exposed_wait = gs.exposed_wait;
    sm->share_memory_exposed = gs.memory_exposed;
    sm->share_memory_host_exposed = gs.memory_host_exposed;
    sm->share_memory_device_exposed = gs.memory_device_exposed;
    sm->share_idle = gs.idle;
    step_shares(sm);
    sm->has_ratio = sm->b.compute_ns > 0;
    sm->comm_compute_ratio = sm->has_ratio ? (double)sm->b.comm_ns / (double)sm->b.compute_ns : 0;
    if (step_ranks) { sm->has_step_time = true; sm->step_time_ns = step_sum / (int64_t)step_ranks; }
    if (tc_mfu_finish(j, opt, tc_job_user_flops(j, opt), x) || op_groups(j, x)) return -1;
    if (tc_groups_finish(j, opt) || tc_comm_model_fit(j) || tc_all_to_all(j) || tc_pipeline(j, opt->pp)) return -1;
    if (opt->kernel_table && merge_kernel_aggs(j, x)) return -1;
    tc_host_wait_job(j);
    /* the last readers of the CPU-side records are done (op nesting, op parts, MFU, idle causes,
     * pipeline): the step graph and the reports read only GPU events, runtime calls and steps, and
     * the graph peaks on top of what stays */
    for (size_t i = 0; i < j->n_traces; i++) tc_trace_free_cpu_ops(&j->traces[i]);
    if (opt->no_replay) { /* the step graph, its replay and the critical paths (replay.h), unless --no-replay */
        tc_replay_summary_free(&sm->replay);
        if (!(sm->replay.note = tc_strdup("--no-replay was given"))) return -1;
    } else if (tc_job_replay(j, opt->jobs)) return -1;
    return tc_job_findings(j, opt);   /* after the replay: the critical-path reason reads it */
}

int tc_job_analyze(tc_job *j, const tc_analyze_options *opt) {
    if (tc_job_prepare(j, true) || tc_job_groups(j, opt) || tc_collectives_match(j) || tc_p2p_pair(j)) return -1;
    tc_rank_extra *x = calloc(j->n_ranks ? j->n_ranks : 1, sizeof *x);
    if (!x) return -1;
    double user = tc_job_user_flops(j, opt);
    if (j->n_ranks == 1) x[0].kernel_rows_keep = TC_TOP_KERNELS; /* its rows are the job's */
    int rc = 0;
    rc = rank_phases(j, opt, user, x);
    if (!rc) rc = tc_job_finish(j, opt, x);
    for (size_t r = 0; r < j->n_ranks; r++) tc_rank_extra_free(&x[r]);
    free(x);
    return rc;
}
