/* load_job.c: parallel loading of a job's inputs (see load_job.h): each input is one run of a batch on
 * the worker pool (base/pool.h); a lock guards only the progress line's figures. */
#define _POSIX_C_SOURCE 200809L
#include "load_job.h"
#include "diag.h"
#include "parsers/load.h"
#include "exitcodes.h"
#include "inputs.h"
#include "base/pool.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    pthread_mutex_t lock;  /* the progress fields below */
    char *const *paths;
    size_t n, done;
    int threads_per_file; /* parse threads each file gets: the -j budget shared among the files */
    tc_trace *traces;
    tc_load_status *status;
    char (*msg)[600];
    const tc_comm_patterns *comm; /* user comm-kernel patterns, NULL none */
    /* progress */
    bool progress;
    FILE *err;
    uint64_t *raw;        /* per input raw bytes read so far */
    uint64_t total_size;
    double start, last_print;
    bool printed;
    int line_len;         /* widest progress line printed, in columns (to erase it) */
} load_ctx;

typedef struct { load_ctx *c; size_t index; } progress_arg;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int tc_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void on_progress(void *ctx, uint64_t raw, uint64_t size) {
    progress_arg *a = ctx;
    load_ctx *c = a->c;
    (void)size;
    pthread_mutex_lock(&c->lock);
    c->raw[a->index] = raw;
    double t = now_s();
    if (c->progress && t - c->start >= 1.0 && t - c->last_print >= 0.25) {
        uint64_t sum = 0;
        for (size_t i = 0; i < c->n; i++) sum += c->raw[i];
        double mb = (double)sum / 1e6;
        int len = fprintf(c->err, "\rtracecost: read %.1f", mb);
        if (c->total_size) len += fprintf(c->err, " of %.1f", (double)c->total_size / 1e6);
        len += fprintf(c->err, " MB (%.1f MB/s), %zu of %zu files done   ", mb / (t - c->start), c->done, c->n);
        if (len > c->line_len) c->line_len = len;
        fflush(c->err);
        c->last_print = t;
        c->printed = true;
    }
    pthread_mutex_unlock(&c->lock);
}

/* One input: a run of the pool's batch (each index once, any thread). */
static void load_one(void *arg, size_t i, int worker) {
    load_ctx *c = arg;
    (void)worker;
    progress_arg pa = {c, i};
    if (tc_trace_init(&c->traces[i], c->paths[i])) { c->status[i] = TC_LOAD_NO_MEMORY; return; }
    tc_load_trace_options lo = {.threads = c->threads_per_file, .progress = on_progress, .progress_ctx = &pa,
                                .comm = c->comm};
    c->status[i] = tc_load_trace_opts(&c->traces[i], c->paths[i], &lo, c->msg[i], sizeof c->msg[i]);
    if (c->status[i] == TC_LOAD_OK || c->status[i] == TC_LOAD_DAMAGED)
        tc_trace_note_spans(&c->traces[i]); /* for grouping and describing profiler windows (inputs.h) */
    pthread_mutex_lock(&c->lock);
    c->done++;
    pthread_mutex_unlock(&c->lock);
}

int tc_job_parse_files(char *const *paths, size_t n, const tc_load_options *opt, tc_loaded_files *out) {
    FILE *err = opt->err ? opt->err : stderr;
    /* Few files (up to two per thread): one at a time, each parsed in pieces on every thread, which
     * keeps all cores busy to the end even when one runs slower. Many files: one thread per file,
     * files handed out as threads free up (no merging of pieces). */
    int budget = opt->jobs > 0 ? opt->jobs : tc_cpu_count();
    if (budget < 1) budget = 1;
    int threads = n <= 2 * (size_t)budget ? 1 : budget;
    load_ctx c;
    memset(&c, 0, sizeof c);
    c.paths = paths;
    c.n = n;
    c.threads_per_file = budget / threads;
    c.traces = calloc(n ? n : 1, sizeof *c.traces);
    c.status = calloc(n ? n : 1, sizeof *c.status);
    c.msg = calloc(n ? n : 1, sizeof *c.msg);
    c.raw = calloc(n ? n : 1, sizeof *c.raw);
    c.comm = opt->comm;
    c.progress = opt->progress;
    c.err = err;
    c.start = c.last_print = now_s();
    tc_pool *pool = c.traces && c.status && c.msg && c.raw ? tc_pool_new(threads - 1) : NULL; /* this thread works too */
    if (!pool) {
        fprintf(err, "tracecost: out of memory\n");
        free(c.traces); free(c.status); free(c.msg); free(c.raw);
        return -1;
    }
    for (size_t i = 0; i < n; i++) { /* stat, never open: a FIFO or pipe can be read only once */
        struct stat st;
        if (strcmp(paths[i], "-") && stat(paths[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            c.total_size += (uint64_t)st.st_size;
    }
    pthread_mutex_init(&c.lock, NULL);
    tc_pool_for(pool, n, load_one, &c);
    tc_pool_free(pool);
    pthread_mutex_destroy(&c.lock);
    if (c.printed) fprintf(err, "\r%*s\r", c.line_len, "");
    free(c.raw);
    out->traces = c.traces;
    out->status = c.status;
    out->msg = c.msg;
    out->n = n;
    return 0;
}

/* The time budget of the kept inputs: the sum of their traces' (model/trace.h, time_sum_ns) bounds
 * every sum of times over the ranks, so it must fit an int64. False (message printed) when not. */
static bool times_fit_together(const tc_trace *traces, size_t n, FILE *err) {
    int64_t sum = 0;
    size_t most = 0;
    for (size_t i = 0; i < n; i++) {
        if (traces[i].time_sum_ns > traces[most].time_sum_ns) most = i;
        if (__builtin_add_overflow(sum, traces[i].time_sum_ns, &sum)) {
            tc_diag(err, "tracecost: the GPU times of the %zu inputs add up past 2^63 ns (292 years): they cannot be "
                    "summed (%s alone: %.0f s)\n", n, traces[most].path, (double)traces[most].time_sum_ns / 1e9);
            return false;
        }
    }
    return true;
}

/* The usable inputs of lf (input order), every input's problem reported: traces move to *kept
 * (lf's arrays freed). Returns TC_EXIT_OK, TC_EXIT_DAMAGED or TC_EXIT_NOTHING. */
static int keep_usable(char *const *paths, tc_loaded_files *lf, const tc_load_options *opt, tc_trace **kept,
                       size_t *n_kept) {
    FILE *err = opt->err ? opt->err : stderr;
    size_t n = lf->n;
    int rc = TC_EXIT_OK;
    *n_kept = 0;
    *kept = calloc(n ? n : 1, sizeof **kept);
    for (size_t i = 0; i < n; i++) {
        tc_trace *t = &lf->traces[i];
        bool keep = false;
        switch (lf->status[i]) {
        case TC_LOAD_OK: keep = true; break;
        case TC_LOAD_DAMAGED:
            tc_diag(err, "tracecost: warning: %s (analyzing what was read)\n", lf->msg[i]);
            keep = true;
            rc = TC_EXIT_DAMAGED;
            break;
        default:
            tc_diag(err, "tracecost: %s\n", lf->msg[i]);
            rc = TC_EXIT_DAMAGED;
            break;
        }
        if (keep && t->events_total == 0 && opt->from_folder && opt->from_folder[i] && lf->status[i] == TC_LOAD_OK) {
            tc_diag(err, "tracecost: note: %s: not a trace (no trace events), skipped\n", paths[i]);
            tc_trace_free(t);
            continue;
        }
        if (keep && t->time_sum_ns < 0) {
            tc_diag(err, "tracecost: %s: its GPU times add up past 2^63 ns (292 years): they are not real times; "
                    "left out\n", paths[i]);
            keep = false;
            rc = TC_EXIT_DAMAGED;
        }
        if (keep && tc_trace_gpu_events(t) == 0) {
            tc_diag(err, "tracecost: %s: no GPU activity (no kernel, gpu_memcpy or gpu_memset events among %llu events)%s\n",
                    paths[i], (unsigned long long)t->events_total,
                    t->events_total ? "; a CPU-only trace? profile the GPU too: torch.profiler.profile(activities="
                                      "[ProfilerActivity.CPU, ProfilerActivity.CUDA])" : "");
            keep = false;
            rc = TC_EXIT_DAMAGED;
        }
        if (keep && *kept) (*kept)[(*n_kept)++] = *t;
        else tc_trace_free(t);
    }
    free(lf->traces); free(lf->status); free(lf->msg);
    memset(lf, 0, sizeof *lf);
    if (*n_kept == 0) {
        if (n > 1) fprintf(err, "tracecost: nothing to analyze: none of the %zu inputs holds usable GPU activity\n", n);
        return TC_EXIT_NOTHING;
    }
    return rc;
}

/* The usable inputs, checked to be one job, ranked, grouped into profiler windows (inputs.h) and
 * described (info: one per window). */
typedef struct {
    tc_trace *traces; size_t n;
    size_t *window_of;            /* per trace: its window, 0-based, oldest first */
    size_t n_windows;
    tc_window_info *info;         /* per window */
} grouped_inputs;

static void grouped_free(grouped_inputs *g) {
    for (size_t i = 0; g->traces && i < g->n; i++) tc_trace_free(&g->traces[i]);
    free(g->traces); free(g->window_of); free(g->info);
    memset(g, 0, sizeof *g);
}

static void describe_windows(grouped_inputs *g) {
    for (size_t i = 0; i < g->n; i++) {
        const tc_trace *t = &g->traces[i];
        tc_window_info *w = &g->info[g->window_of[i]];
        bool new_rank = true;
        for (size_t k = 0; k < i; k++) new_rank &= !(g->window_of[k] == g->window_of[i] && g->traces[k].rank == t->rank);
        w->files++;
        w->ranks += new_rank;
        if (t->has_steps) {
            if (!w->has_steps || t->first_step < w->first_step) w->first_step = t->first_step;
            if (!w->has_steps || t->last_step > w->last_step) w->last_step = t->last_step;
            w->has_steps = true;
        }
        int64_t start, end;
        if (tc_trace_epoch_span(t, &start, &end) && (!w->has_start || start < w->start_ns)) {
            w->start_ns = start;
            w->has_start = true;
        }
    }
}

static int group_inputs(char *const *paths, tc_loaded_files *lf, const tc_load_options *opt, grouped_inputs *g) {
    FILE *err = opt->err ? opt->err : stderr;
    memset(g, 0, sizeof *g);
    int rc = keep_usable(paths, lf, opt, &g->traces, &g->n);
    if (rc == TC_EXIT_NOTHING) return rc;
    if (!times_fit_together(g->traces, g->n, err)) return TC_EXIT_NOTHING;
    char msg[1200];
    if (tc_inputs_check_job(g->traces, g->n, msg, sizeof msg)) {
        tc_diag(err, "tracecost: %s\n", msg);
        return TC_EXIT_USAGE;
    }
    tc_inputs_assign_ranks(g->traces, g->n);
    g->window_of = calloc(g->n, sizeof *g->window_of);
    long nw = g->window_of ? tc_inputs_windows(g->traces, g->n, g->window_of, msg, sizeof msg) : -1;
    if (nw < 0) {
        tc_diag(err, "tracecost: %s\n", g->window_of ? msg : "out of memory");
        return g->window_of ? TC_EXIT_USAGE : TC_EXIT_NOTHING;
    }
    g->n_windows = (size_t)nw;
    g->info = calloc(g->n_windows, sizeof *g->info);
    if (!g->info) { fprintf(err, "tracecost: out of memory\n"); return TC_EXIT_NOTHING; }
    describe_windows(g);
    return rc;
}

#define HOURS_APART_NS (INT64_C(3600) * 1000000000) /* inputs an hour apart or more get a warning */

/* Window w of g into j: its traces move there (input order), the windows' description is copied,
 * and a warning when its inputs start an hour or more apart on the epoch clock. 0, or -1 out of
 * memory. */
static int window_job(tc_job *j, grouped_inputs *g, size_t w) {
    j->traces = calloc(g->n ? g->n : 1, sizeof *j->traces);
    if (!j->traces) return -1;
    const tc_trace *first = NULL, *last = NULL;
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->window_of[i] != w) continue;
        tc_trace *t = &j->traces[j->n_traces++];
        *t = g->traces[i];
        memset(&g->traces[i], 0, sizeof g->traces[i]); /* moved */
        int64_t start, end;
        if (!tc_trace_epoch_span(t, &start, &end)) continue;
        if (!first || start < lo) { first = t; lo = start; }
        if (!last || start > hi) { last = t; hi = start; }
    }
    if (g->n_windows > 1) {
        j->windows = malloc(g->n_windows * sizeof *j->windows);
        if (!j->windows) return -1;
        memcpy(j->windows, g->info, g->n_windows * sizeof *j->windows);
        j->n_windows = g->n_windows;
        j->window = w + 1;
    }
    if (first && hi - lo >= HOURS_APART_NS)
        tc_job_warn(j, "%s (rank %lld) and %s (rank %lld) start %.1f hours apart: are they one run of one job? The waits, "
                    "clock offsets and the straggler assume so", first->path, (long long)first->rank, last->path,
                    (long long)last->rank, (double)(hi - lo) / 3.6e12);
    return 0;
}

int tc_job_load_collect(tc_job *j, char *const *paths, tc_loaded_files *lf, const tc_load_options *opt) {
    FILE *err = opt->err ? opt->err : stderr;
    grouped_inputs g;
    int rc = group_inputs(paths, lf, opt, &g);
    if (rc != TC_EXIT_OK && rc != TC_EXIT_DAMAGED) { grouped_free(&g); return rc; }
    size_t w = g.n_windows - 1; /* the most recent, unless --window K */
    if (opt->window > 0 && (size_t)opt->window > g.n_windows) {
        fprintf(err, "tracecost: --window %ld: the inputs hold %zu profiler window%s\n", opt->window, g.n_windows,
                g.n_windows == 1 ? "" : "s");
        grouped_free(&g);
        return TC_EXIT_USAGE;
    }
    if (opt->window > 0) w = (size_t)opt->window - 1;
    if (window_job(j, &g, w)) { fprintf(err, "tracecost: out of memory\n"); rc = TC_EXIT_NOTHING; }
    grouped_free(&g);
    return rc;
}

int tc_job_load_collect_all(tc_job **jobs, size_t *n_jobs, char *const *paths, tc_loaded_files *lf,
                            const tc_load_options *opt) {
    grouped_inputs g;
    *jobs = NULL;
    *n_jobs = 0;
    int rc = group_inputs(paths, lf, opt, &g);
    if (rc != TC_EXIT_OK && rc != TC_EXIT_DAMAGED) { grouped_free(&g); return rc; }
    *jobs = calloc(g.n_windows, sizeof **jobs);
    for (size_t w = 0; *jobs && w < g.n_windows; w++) {
        tc_job_init(&(*jobs)[w]);
        (*n_jobs)++;
        if (window_job(&(*jobs)[w], &g, w)) break;
    }
    if (!*jobs || *n_jobs < g.n_windows || (*jobs)[g.n_windows - 1].n_traces == 0) {
        fprintf(opt->err ? opt->err : stderr, "tracecost: out of memory\n");
        rc = TC_EXIT_NOTHING;
    }
    grouped_free(&g);
    return rc;
}

int tc_job_load(tc_job *j, char *const *paths, size_t n, const tc_load_options *opt) {
    tc_loaded_files lf;
    if (tc_job_parse_files(paths, n, opt, &lf)) return TC_EXIT_NOTHING;
    return tc_job_load_collect(j, paths, &lf, opt);
}

int tc_job_load_all(tc_job **jobs, size_t *n_jobs, char *const *paths, size_t n, const tc_load_options *opt) {
    tc_loaded_files lf;
    *jobs = NULL;
    *n_jobs = 0;
    if (tc_job_parse_files(paths, n, opt, &lf)) return TC_EXIT_NOTHING;
    return tc_job_load_collect_all(jobs, n_jobs, paths, &lf, opt);
}
