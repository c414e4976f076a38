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
    c->status[i] = tc_load_trace_mt(&c->traces[i], c->paths[i], c->threads_per_file, on_progress, &pa, c->msg[i],
                                    sizeof c->msg[i]);
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

/* The job's time budget: the sum of its traces' (model/trace.h, time_sum_ns) bounds every sum of
 * times over its ranks, so it must fit an int64. False (message printed) when it does not. */
static bool times_fit_together(const tc_job *j, FILE *err) {
    int64_t sum = 0;
    size_t most = 0;
    for (size_t i = 0; i < j->n_traces; i++) {
        if (j->traces[i].time_sum_ns > j->traces[most].time_sum_ns) most = i;
        if (__builtin_add_overflow(sum, j->traces[i].time_sum_ns, &sum)) {
            tc_diag(err, "tracecost: the GPU times of the %zu inputs add up past 2^63 ns (292 years): they cannot be "
                    "summed (%s alone: %.0f s)\n", j->n_traces, j->traces[most].path, (double)j->traces[most].time_sum_ns / 1e9);
            return false;
        }
    }
    return true;
}

int tc_job_load_collect(tc_job *j, char *const *paths, tc_loaded_files *lf, const tc_load_options *opt) {
    FILE *err = opt->err ? opt->err : stderr;
    size_t n = lf->n;
    /* report in input order, keep the usable traces */
    int rc = TC_EXIT_OK;
    size_t kept = 0;
    j->traces = calloc(n ? n : 1, sizeof *j->traces);
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
            tc_diag(err, "tracecost: %s: no GPU activity (no kernel, gpu_memcpy or gpu_memset events among %llu events)\n",
                    paths[i], (unsigned long long)t->events_total);
            keep = false;
            rc = TC_EXIT_DAMAGED;
        }
        if (keep && j->traces) j->traces[kept++] = *t;
        else tc_trace_free(t);
    }
    j->n_traces = kept;
    free(lf->traces); free(lf->status); free(lf->msg);
    memset(lf, 0, sizeof *lf);
    if (kept == 0) {
        if (n > 1) fprintf(err, "tracecost: nothing to analyze: none of the %zu inputs holds usable GPU activity\n", n);
        return TC_EXIT_NOTHING;
    }
    if (!times_fit_together(j, err)) return TC_EXIT_NOTHING;
    char msg[1200];
    if (tc_inputs_assign_ranks(j->traces, j->n_traces, msg, sizeof msg)) {
        tc_diag(err, "tracecost: %s\n", msg);
        return TC_EXIT_USAGE;
    }
    return rc;
}

int tc_job_load(tc_job *j, char *const *paths, size_t n, const tc_load_options *opt) {
    tc_loaded_files lf;
    if (tc_job_parse_files(paths, n, opt, &lf)) return TC_EXIT_NOTHING;
    return tc_job_load_collect(j, paths, &lf, opt);
}
