/* assemble.c: files to a job (see assemble.h): each input is one run of a nesting batch on the
 * worker pool (base/pool.h) whose queue also takes the files' pieces; a lock guards only the
 * progress figures; then the usable traces are kept, checked,
 * ranked, grouped into windows (job_rules.h) and moved into the job. Prints nothing: notes.h. */
#define _POSIX_C_SOURCE 200809L
#include "assemble.h"
#include "base/pool.h"
#include "job_rules.h"
#include <pthread.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
    pthread_mutex_t lock;  /* the progress fields below */
    char *const *paths;
    size_t n, done;
    int threads_per_file; /* parse threads each file gets: the -j budget, on the one pool */
    tc_pool *pool;        /* the one pool: files and their pieces share its queue */
    tc_trace *traces;
    tc_load_status *status;
    char (*msg)[600];
    const tc_comm_patterns *comm; /* user comm-kernel patterns, NULL none */
    /* progress */
    tc_parse_progress_fn progress;
    void *progress_ctx;
    uint64_t *raw;        /* per input raw bytes read so far */
    uint64_t total_size;
    double start;
} load_ctx;

typedef struct { load_ctx *c; size_t index; } progress_arg;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The figures so far (under c->lock). */
static tc_parse_progress progress_now(const load_ctx *c, bool finished) {
    tc_parse_progress p = {0, c->total_size, c->done, c->n, now_s() - c->start, finished};
    for (size_t i = 0; i < c->n; i++) p.read_bytes += c->raw[i];
    return p;
}

static void on_progress(void *ctx, uint64_t raw, uint64_t size) {
    progress_arg *a = ctx;
    load_ctx *c = a->c;
    (void)size;
    pthread_mutex_lock(&c->lock);
    c->raw[a->index] = raw;
    if (c->progress) {
        tc_parse_progress p = progress_now(c, false);
        c->progress(c->progress_ctx, &p);
    }
    pthread_mutex_unlock(&c->lock);
}

/* One file into t: parsed with the user's comm-kernel patterns (tc_load_trace_opts: the parser
 * classifies each kernel by them and the catalog), its spans noted for grouping and describing
 * profiler windows (job_rules.h). The one per-file load step; msg gets the loader's message. */
static tc_load_status load_file(tc_trace *t, const char *path, int threads, tc_pool *pool,
                                const tc_comm_patterns *comm, progress_arg *pa, char *msg, size_t msglen) {
    if (tc_trace_init(t, path)) return TC_LOAD_NO_MEMORY;
    tc_load_trace_options lo = {.threads = threads, .progress = on_progress, .progress_ctx = pa, .comm = comm,
                                .pool = pool};
    tc_load_status st = tc_load_trace_opts(t, path, &lo, msg, msglen);
    if (st == TC_LOAD_OK || st == TC_LOAD_DAMAGED) {
        tc_trace_note_spans(t);
        tc_strtab_seal(t->strings); /* read by id from here on: its index would only hold memory */
    }
    return st;
}

/* One input: a run of the pool's batch (each index once, any thread). */
static void load_one(void *arg, size_t i, int worker) {
    load_ctx *c = arg;
    (void)worker;
    progress_arg pa = {c, i};
    c->status[i] = load_file(&c->traces[i], c->paths[i], c->threads_per_file, c->pool, c->comm, &pa, c->msg[i],
                             sizeof c->msg[i]);
    pthread_mutex_lock(&c->lock);
    c->done++;
    pthread_mutex_unlock(&c->lock);
}

tc_assembly_status tc_job_parse_files(char *const *paths, size_t n, const tc_assemble_options *opt,
                                      tc_loaded_files *out, tc_notes *notes) {
    memset(out, 0, sizeof *out);
    /* One pool of -j threads (the caller one of them): each file is a run of a nesting batch, and
     * its pieces (plain files, BGZF runs) are tasks in the same queue, so a thread that is done
     * with its file, or waits for a piece of it, parses another file's pieces: three files on two
     * cores keep both busy to the end. A gzip stream's reader is a thread of the file's own. */
    int budget = opt->jobs > 0 ? opt->jobs : tc_cpu_count();
    if (budget < 1) budget = 1;
    int threads = budget;
    load_ctx c;
    memset(&c, 0, sizeof c);
    c.paths = paths;
    c.n = n;
    c.threads_per_file = budget;
    c.traces = calloc(n ? n : 1, sizeof *c.traces);
    c.status = calloc(n ? n : 1, sizeof *c.status);
    c.msg = calloc(n ? n : 1, sizeof *c.msg);
    c.raw = calloc(n ? n : 1, sizeof *c.raw);
    c.comm = opt->comm;
    c.progress = opt->progress;
    c.progress_ctx = opt->progress_ctx;
    c.start = now_s();
    tc_pool *pool = c.traces && c.status && c.msg && c.raw ? tc_pool_new(threads - 1) : NULL; /* this thread works too */
    if (!pool) {
        tc_notes_add(notes, TC_NOTE_NO_MEMORY, NULL, "out of memory");
        free(c.traces); free(c.status); free(c.msg); free(c.raw);
        return TC_ASSEMBLY_NOTHING;
    }
    for (size_t i = 0; i < n; i++) { /* stat, never open: a FIFO or pipe can be read only once */
        struct stat st;
        if (strcmp(paths[i], "-") && stat(paths[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            c.total_size += (uint64_t)st.st_size;
    }
    pthread_mutex_init(&c.lock, NULL);
    c.pool = budget > 1 ? pool : NULL; /* -j 1: every file sequentially, in this thread */
    tc_pool_for_nesting(pool, n, load_one, &c);
    tc_pool_free(pool);
    pthread_mutex_destroy(&c.lock);
#ifdef __GLIBC__
    /* the parse threads' arenas keep the pieces' freed tables (tens of MB with millions of distinct
     * names); the analysis then peaks on top of them: handed back once here */
    malloc_trim(0);
#endif
    if (c.progress) {
        tc_parse_progress p = progress_now(&c, true);
        c.progress(c.progress_ctx, &p);
    }
    free(c.raw);
    out->traces = c.traces;
    out->status = c.status;
    out->msg = c.msg;
    out->n = n;
    return TC_ASSEMBLY_OK;
}

/* The time budget of the kept inputs: the sum of their traces' (model/trace.h, time_sum_ns) bounds
 * every sum of times over the ranks, so it must fit an int64. False (a note) when not. */
static bool times_fit_together(const tc_trace *traces, size_t n, tc_notes *notes) {
    int64_t sum = 0;
    size_t most = 0;
    for (size_t i = 0; i < n; i++) {
        if (traces[i].time_sum_ns > traces[most].time_sum_ns) most = i;
        if (__builtin_add_overflow(sum, traces[i].time_sum_ns, &sum)) {
            tc_notes_add(notes, TC_NOTE_TIMES_TOO_LONG, traces[most].path, "the GPU times of the %zu inputs add up past "
                         "2^63 ns (292 years): they cannot be summed (%s alone: %.0f s)", n, traces[most].path,
                         (double)traces[most].time_sum_ns / 1e9);
            return false;
        }
    }
    return true;
}

/* Whether input i of lf (loaded) is kept; its problem as a note. *damaged when it counts as an
 * input damaged or not used. */
static bool usable(const char *path, const tc_trace *t, tc_load_status st, const char *msg, bool from_folder,
                   tc_notes *notes, bool *damaged) {
    bool keep = false;
    switch (st) {
    case TC_LOAD_OK: keep = true; break;
    case TC_LOAD_DAMAGED:
        tc_notes_add(notes, TC_NOTE_DAMAGED, path, "%s (analyzing what was read)", msg);
        keep = true;
        *damaged = true;
        break;
    default:
        tc_notes_add(notes, TC_NOTE_NOT_LOADED, path, "%s", msg);
        *damaged = true;
        break;
    }
    if (keep && t->events_total == 0 && from_folder && st == TC_LOAD_OK) {
        tc_notes_add(notes, TC_NOTE_NOT_A_TRACE, path, "%s: not a trace (no trace events), skipped", path);
        return false;
    }
    if (keep && t->time_sum_ns < 0) {
        tc_notes_add(notes, TC_NOTE_TIMES_OVERFLOW, path, "%s: its GPU times add up past 2^63 ns (292 years): they are "
                     "not real times; left out", path);
        keep = false;
        *damaged = true;
    }
    if (keep && tc_trace_gpu_events(t) == 0) {
        tc_notes_add(notes, TC_NOTE_NO_GPU, path, "%s: no GPU activity (no kernel, gpu_memcpy or gpu_memset events among "
                     "%llu events)%s", path, (unsigned long long)t->events_total,
                     t->events_total ? "; a CPU-only trace? profile the GPU too: torch.profiler.profile(activities="
                                       "[ProfilerActivity.CPU, ProfilerActivity.CUDA])" : "");
        keep = false;
        *damaged = true;
    }
    return keep;
}

/* The usable inputs of lf (input order), every input's problem noted: traces move to *kept (lf's
 * arrays freed). Returns OK, DAMAGED or NOTHING. */
static tc_assembly_status keep_usable(char *const *paths, const bool *from_folder, tc_loaded_files *lf,
                                      tc_notes *notes, tc_trace **kept, size_t *n_kept) {
    size_t n = lf->n;
    bool damaged = false;
    *n_kept = 0;
    *kept = calloc(n ? n : 1, sizeof **kept);
    for (size_t i = 0; i < n; i++) {
        tc_trace *t = &lf->traces[i];
        bool keep = usable(paths[i], t, lf->status[i], lf->msg[i], from_folder && from_folder[i], notes, &damaged);
        if (keep && *kept) (*kept)[(*n_kept)++] = *t;
        else tc_trace_free(t);
    }
    free(lf->traces); free(lf->status); free(lf->msg);
    memset(lf, 0, sizeof *lf);
    if (*n_kept == 0) {
        if (n > 1)
            tc_notes_add(notes, TC_NOTE_NOTHING, NULL, "nothing to analyze: none of the %zu inputs holds usable GPU "
                         "activity", n);
        return TC_ASSEMBLY_NOTHING;
    }
    return damaged ? TC_ASSEMBLY_DAMAGED : TC_ASSEMBLY_OK;
}

/* The usable inputs, checked to be one job, ranked, grouped into profiler windows (job_rules.h)
 * and described (info: one per window). */
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

/* A job_rules.h refusal as a note: its message names both files, so the note names none. */
static tc_assembly_status refuse(tc_notes *notes, tc_note_code code, const char *msg) {
    tc_notes_add(notes, code, NULL, "%s", msg);
    return TC_ASSEMBLY_REFUSED;
}

static tc_assembly_status group_inputs(char *const *paths, const bool *from_folder, tc_loaded_files *lf,
                                       tc_notes *notes, grouped_inputs *g) {
    memset(g, 0, sizeof *g);
    tc_assembly_status rc = keep_usable(paths, from_folder, lf, notes, &g->traces, &g->n);
    if (rc == TC_ASSEMBLY_NOTHING) return rc;
    if (!times_fit_together(g->traces, g->n, notes)) return TC_ASSEMBLY_NOTHING;
    char msg[1200];
    if (tc_job_check_one(g->traces, g->n, msg, sizeof msg)) return refuse(notes, TC_NOTE_NOT_ONE_JOB, msg);
    tc_job_assign_ranks(g->traces, g->n);
    g->window_of = calloc(g->n, sizeof *g->window_of);
    long nw = g->window_of ? tc_job_windows(g->traces, g->n, g->window_of, msg, sizeof msg) : -1;
    if (nw < 0) {
        if (g->window_of) return refuse(notes, TC_NOTE_RANK_TWICE, msg);
        tc_notes_add(notes, TC_NOTE_NO_MEMORY, NULL, "out of memory");
        return TC_ASSEMBLY_NOTHING;
    }
    g->n_windows = (size_t)nw;
    g->info = calloc(g->n_windows, sizeof *g->info);
    if (!g->info) {
        tc_notes_add(notes, TC_NOTE_NO_MEMORY, NULL, "out of memory");
        return TC_ASSEMBLY_NOTHING;
    }
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

tc_assembly_status tc_job_assemble_parsed(tc_job *j, char *const *paths, const bool *from_folder, tc_loaded_files *lf,
                                          const tc_assemble_options *opt, tc_notes *notes) {
    grouped_inputs g;
    tc_assembly_status rc = group_inputs(paths, from_folder, lf, notes, &g);
    if (rc != TC_ASSEMBLY_OK && rc != TC_ASSEMBLY_DAMAGED) { grouped_free(&g); return rc; }
    size_t w = g.n_windows - 1; /* the most recent, unless window K */
    if (opt->window > 0 && (size_t)opt->window > g.n_windows) {
        tc_notes_add(notes, TC_NOTE_NO_SUCH_WINDOW, NULL, "--window %ld: the inputs hold %zu profiler window%s",
                     opt->window, g.n_windows, g.n_windows == 1 ? "" : "s");
        grouped_free(&g);
        return TC_ASSEMBLY_REFUSED;
    }
    if (opt->window > 0) w = (size_t)opt->window - 1;
    if (window_job(j, &g, w)) {
        tc_notes_add(notes, TC_NOTE_NO_MEMORY, NULL, "out of memory");
        rc = TC_ASSEMBLY_NOTHING;
    }
    grouped_free(&g);
    return rc;
}

tc_assembly_status tc_job_assemble_parsed_all(tc_job **jobs, size_t *n_jobs, char *const *paths,
                                              const bool *from_folder, tc_loaded_files *lf,
                                              const tc_assemble_options *opt, tc_notes *notes) {
    grouped_inputs g;
    (void)opt;
    *jobs = NULL;
    *n_jobs = 0;
    tc_assembly_status rc = group_inputs(paths, from_folder, lf, notes, &g);
    if (rc != TC_ASSEMBLY_OK && rc != TC_ASSEMBLY_DAMAGED) { grouped_free(&g); return rc; }
    *jobs = calloc(g.n_windows, sizeof **jobs);
    for (size_t w = 0; *jobs && w < g.n_windows; w++) {
        tc_job_init(&(*jobs)[w]);
        (*n_jobs)++;
        if (window_job(&(*jobs)[w], &g, w)) break;
    }
    if (!*jobs || *n_jobs < g.n_windows || (*jobs)[g.n_windows - 1].n_traces == 0) {
        tc_notes_add(notes, TC_NOTE_NO_MEMORY, NULL, "out of memory");
        rc = TC_ASSEMBLY_NOTHING;
    }
    grouped_free(&g);
    return rc;
}

tc_assembly_status tc_job_assemble(tc_job *j, char *const *paths, const bool *from_folder, size_t n,
                                   const tc_assemble_options *opt, tc_notes *notes) {
    tc_loaded_files lf;
    if (tc_job_parse_files(paths, n, opt, &lf, notes) != TC_ASSEMBLY_OK) return TC_ASSEMBLY_NOTHING;
    return tc_job_assemble_parsed(j, paths, from_folder, &lf, opt, notes);
}

tc_assembly_status tc_job_assemble_all(tc_job **jobs, size_t *n_jobs, char *const *paths, const bool *from_folder,
                                       size_t n, const tc_assemble_options *opt, tc_notes *notes) {
    tc_loaded_files lf;
    *jobs = NULL;
    *n_jobs = 0;
    if (tc_job_parse_files(paths, n, opt, &lf, notes) != TC_ASSEMBLY_OK) return TC_ASSEMBLY_NOTHING;
    return tc_job_assemble_parsed_all(jobs, n_jobs, paths, from_folder, &lf, opt, notes);
}
