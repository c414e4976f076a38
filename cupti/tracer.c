/* tracer.c: libtracecost_cupti.so, the CUPTI tracer injected into a CUDA process.
 *
 * The CUDA driver loads this library when CUDA_INJECTION64_PATH names it and calls
 * InitializeInjection() from cuInit. We register CUPTI activity buffers, enable the activity
 * kinds for kernels, copies, sets, API calls, syncs and NVTX, and a worker thread converts
 * completed buffers to a Kineto-compatible trace file per capture window (convert.h).
 * NVTX_INJECTION64_PATH may name this library too: InitializeInjectionNvtx2 forwards to
 * libcupti's, so NVTX ranges (NCCL's, the program's) become CUPTI marker records.
 *
 * Global state: CUPTI's buffer callbacks and signal handlers carry no user pointer, so the
 * tracer is one static struct `g`. Its rules:
 *   1. Fields set in InitializeInjection before the worker starts are read-only afterwards.
 *   2. g.mu guards the buffer pool, the completed-buffer queue and their counters. It is held
 *      only for a few instructions; no CUPTI call, allocation of output or I/O happens under it,
 *      so a CUPTI callback never waits behind conversion or disk.
 *   3. The worker thread owns the converter, the output file and the capture state; it is the
 *      only caller of cuptiActivityEnable/Disable/FlushAll once it runs.
 *   4. Signal handlers touch only lock-free atomics, sigaction, nanosleep, raise and getpid.
 *   5. Memory is bounded: at most TRACECOST_BUFFERS buffers of TRACECOST_BUFFER_MB; when all
 *      are taken, CUPTI's request is refused (it drops and counts records), never blocked.
 *   6. Any CUPTI or I/O failure prints one line and turns tracing off; the program goes on.
 *   7. A forked child (getpid() != g.pid) never touches the tracer: handlers and atexit return.
 *
 * Capture windows: capture starts at injection, or after TRACECOST_DELAY_S; it stops after
 * TRACECOST_DURATION_S (if set), at exit, on SIGTERM/SIGINT; SIGUSR2 toggles it. Each window is
 * one file DIR/<host>_<pid>[-<k>][.rank<R>].pt.trace.json[.gz] (k >= 2 for later windows),
 * written as <name-without-suffix>.tmp and renamed when complete. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "convert.h"
#include "envutil.h"
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define TC_EXPORT __attribute__((visibility("default")))

#define MAX_BUFS 64
#define DEFAULT_BUFS 8
#define DEFAULT_BUF_MB 8
#define POLL_NS 100000000ull       /* worker wake-up period when idle: 100 ms */
#define FLUSH_PERIOD_NS 1000000000ull /* periodic cuptiActivityFlushAll(0): 1 s */
#define DEFAULT_EXIT_TIMEOUT_NS 30000000000ull /* longest wait for the final flush: 30 s */

#if ATOMIC_INT_LOCK_FREE != 2
#error "signal handlers need lock-free atomic int"
#endif

typedef struct done_buf {
    uint8_t *buf;  /* a pool buffer holding records */
    size_t valid;  /* bytes of records in it */
} done_buf;

static struct tracer {
    /* read-only once the worker runs (rule 1) */
    pid_t pid;                   /* process that was injected */
    char dir[PATH_MAX];          /* absolute output directory */
    char host[128];              /* host name, '/' replaced */
    int gzip;                    /* write .json.gz */
    int verbose;                 /* one line per file written */
    uint64_t delay_ns;           /* capture start after injection, 0 = at once */
    uint64_t duration_ns;        /* window length, 0 = until stopped */
    uint64_t exit_timeout_ns;    /* longest wait for the final flush at exit/signal */
    size_t buf_size;             /* bytes per activity buffer */
    int nbufs;                   /* pool size limit */
    uint32_t cupti_version;
    struct sigaction old_term, old_int; /* handlers we chain to */
    int own_term, own_int, own_usr2;    /* our handler is installed for the signal */

    /* guarded by mu (rule 2) */
    pthread_mutex_t mu;
    pthread_cond_t cv;           /* completed buffer queued, or exit requested */
    uint8_t *free_bufs[MAX_BUFS];
    int nfree;
    int nalloc;                  /* buffers allocated so far, <= nbufs */
    done_buf done[MAX_BUFS];     /* FIFO of completed buffers */
    int done_head, ndone;
    uint64_t dropped;            /* records CUPTI reported dropped, this window */
    uint64_t refused;            /* buffer requests refused, this window */
    int exit_requested;          /* atexit asked the worker to finish */

    /* lock-free, shared with signal handlers (rule 4) */
    atomic_uint toggles;         /* SIGUSR2 deliveries */
    atomic_int term_signal;      /* SIGTERM/SIGINT seen: the worker finishes */
    atomic_int accepting;        /* completed buffers are queued for conversion */
    atomic_int worker_running;   /* the worker thread is live and will set finished */
    atomic_int finished;         /* the worker wrote its last file and exits */
    atomic_int disabled;         /* tracing is off for good */

    /* owned by the worker once it runs (rule 3) */
    tc_conv *conv;
    int capturing;               /* activity kinds are enabled and a document is open */
    unsigned window;             /* number of the current/last window */
    uint64_t stop_at;            /* monotonic ns to stop the window, 0 = none */
    uint64_t start_at;           /* monotonic ns to start (delay), 0 = none */
    FILE *f;                     /* plain output, or NULL */
    gzFile gz;                   /* gzip output, or NULL */
    int io_errno;                /* errno of the first failed write */
    char tmp_path[PATH_MAX];     /* file being written */
    pthread_t worker;
} g = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

/* Kinds enabled per window; the first is required, a failure on it disables tracing. */
static const struct {
    CUpti_ActivityKind kind;
    const char *name;
    int optional;                /* NOT_SUPPORTED/INVALID_KIND here only loses this kind */
} kinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", 0},
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", 1},
    {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT", 1},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", 0},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", 1},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", 0},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", 0},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", 0},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", 1},
    {CUPTI_ACTIVITY_KIND_MARKER, "MARKER", 1},
    {CUPTI_ACTIVITY_KIND_MARKER_DATA, "MARKER_DATA", 1},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", 1},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* ---------- small helpers ---------- */

static uint64_t now_ns(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One whole line to stderr with a single write(2), so lines of many ranks do not interleave. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

static const char *cupti_err(CUptiResult r) {
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
    return s;
}

/* Rule 6 for CUPTI: one line, then tracing is off for good. */
static void cupti_failed(const char *what, CUptiResult r) {
    if (atomic_exchange(&g.disabled, 1)) return;
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (cuda) dlclose(cuda);
    say("tracecost: CUPTI %s: %s; tracing disabled%s", what, cupti_err(r),
        cuda ? "" : " (no CUDA driver loaded: no GPU in this process?)");
}

static void io_failed(const char *what, const char *path, int err) {
    if (atomic_exchange(&g.disabled, 1)) return;
    say("tracecost: %s %s: %s; tracing disabled", what, path, strerror(err));
}

static const char *api_name_cb(void *ctx, tc_api_domain dom, uint32_t cbid) {
    (void)ctx;
    const char *name = NULL;
    CUpti_CallbackDomain d =
        dom == TC_API_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    if (cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS) return NULL;
    return name;
}

/* ---------- CUPTI buffer callbacks (any thread; rule 2) ---------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = NULL;
    *size = 0;
    *max_records = 0;
    if (getpid() != g.pid) return;
    pthread_mutex_lock(&g.mu);
    uint8_t *b = NULL;
    if (g.nfree > 0) {
        b = g.free_bufs[--g.nfree];
    } else if (g.nalloc < g.nbufs && atomic_load(&g.accepting)) {
        b = malloc(g.buf_size); /* malloc alignment (16) satisfies CUPTI's 8 */
        if (b) g.nalloc++;
    }
    if (!b) g.refused++;
    pthread_mutex_unlock(&g.mu);
    if (b) {
        *buffer = b;
        *size = g.buf_size;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid) {
    (void)size;
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
    pthread_mutex_lock(&g.mu);
    g.dropped += dropped;
    if (buffer && valid > 0 && atomic_load(&g.accepting) && g.ndone < MAX_BUFS) {
        g.done[(g.done_head + g.ndone) % MAX_BUFS] = (done_buf){buffer, valid};
        g.ndone++;
        pthread_cond_signal(&g.cv);
    } else if (buffer && g.nfree < MAX_BUFS) {
        g.free_bufs[g.nfree++] = buffer;
    }
    pthread_mutex_unlock(&g.mu);
}

static void release_buffer(uint8_t *b) {
    pthread_mutex_lock(&g.mu);
    if (g.nfree < MAX_BUFS) g.free_bufs[g.nfree++] = b;
    pthread_mutex_unlock(&g.mu);
}

/* ---------- output file (worker) ---------- */

static int sink_write(void *ctx, const char *data, size_t len) {
    (void)ctx;
    if (g.gz) {
        if (gzwrite(g.gz, data, (unsigned)len) != (int)len) {
            int zerr = 0;
            gzerror(g.gz, &zerr);
            if (!g.io_errno) g.io_errno = zerr == Z_ERRNO && errno ? errno : EIO;
            return -1;
        }
        return 0;
    }
    if (fwrite(data, 1, len, g.f) != len) {
        if (!g.io_errno) g.io_errno = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

/* snprintf that reports truncation: 0 when the whole text fit, -1 otherwise. */
static int fmt_path(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fmt_path(char *out, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

/* Stem "<dir>/<host>_<pid>[-<k>]" of the current window; -1 when the path is too long. */
static int window_stem(char *out, size_t cap) {
    if (g.window <= 1) return fmt_path(out, cap, "%s/%s_%ld", g.dir, g.host, (long)g.pid);
    return fmt_path(out, cap, "%s/%s_%ld-%u", g.dir, g.host, (long)g.pid, g.window);
}

static void close_file(void) {
    if (g.gz) {
        int rc = gzclose(g.gz);
        if (rc != Z_OK && !g.io_errno) g.io_errno = rc == Z_ERRNO && errno ? errno : EIO;
        g.gz = NULL;
    }
    if (g.f) {
        if (fclose(g.f) != 0 && !g.io_errno) g.io_errno = errno ? errno : EIO;
        g.f = NULL;
    }
}

/* Opens the next window's temporary file and document. 0 on success. */
static int document_open(uint64_t start_real_ns) {
    char stem[PATH_MAX];
    g.window++;
    int err = tc_mkdir_p(g.dir);
    if (err) {
        io_failed("cannot create directory", g.dir, err);
        return -1;
    }
    if (window_stem(stem, sizeof stem) != 0 ||
        fmt_path(g.tmp_path, sizeof g.tmp_path, "%s.tmp", stem) != 0) {
        io_failed("cannot create a file in", g.dir, ENAMETOOLONG);
        return -1;
    }
    g.io_errno = 0;
    errno = 0;
    if (g.gzip) {
        g.gz = gzopen(g.tmp_path, "wb1e");
        if (g.gz) gzbuffer(g.gz, 256 * 1024);
    } else {
        g.f = fopen(g.tmp_path, "wbe");
    }
    if (!g.gz && !g.f) {
        io_failed("cannot create", g.tmp_path, errno ? errno : EIO);
        return -1;
    }
    /* base: the window start rounded down to a whole second, like Kineto's */
    uint64_t base = start_real_ns - start_real_ns % 1000000000u;
    tc_conv_status st = tc_conv_begin(g.conv, sink_write, NULL, base);
    if (st != TC_CONV_OK) {
        close_file();
        io_failed("cannot write", g.tmp_path, g.io_errno ? g.io_errno : EIO);
        unlink(g.tmp_path);
        return -1;
    }
    return 0;
}

static void document_discard(void) {
    tc_conv_abort(g.conv);
    close_file();
    unlink(g.tmp_path);
}

/* Finishes the window's document: final name from the rank known now, rename. */
static void document_close(void) {
    if (!tc_conv_is_open(g.conv)) return;
    tc_dist_env dist;
    tc_dist_env_read(&dist);
    char stem[PATH_MAX], rank[32] = "", final[PATH_MAX + 64];
    if (dist.rank >= 0) snprintf(rank, sizeof rank, ".rank%d", dist.rank);
    if (window_stem(stem, sizeof stem) != 0 ||
        fmt_path(final, sizeof final, "%s%s.pt.trace.json%s", stem, rank,
                 g.gzip ? ".gz" : "") != 0) {
        tc_conv_abort(g.conv);
        close_file();
        io_failed("cannot name the trace in", g.dir, ENAMETOOLONG);
        unlink(g.tmp_path);
        return;
    }
    pthread_mutex_lock(&g.mu);
    tc_conv_finish_info info = {
        .rank = dist.rank, .world_size = dist.world_size, .local_rank = dist.local_rank,
        .trace_name = final, .cupti_version = g.cupti_version, .window = g.window,
        .dropped_records = g.dropped, .refused_buffers = g.refused,
    };
    g.dropped = 0;
    g.refused = 0;
    pthread_mutex_unlock(&g.mu);
    tc_conv_status st = tc_conv_finish(g.conv, &info);
    close_file();
    tc_conv_stats stats;
    tc_conv_get_stats(g.conv, &stats);
    if (st != TC_CONV_OK || g.io_errno) {
        io_failed("cannot write", g.tmp_path, g.io_errno ? g.io_errno : EIO);
        unlink(g.tmp_path);
        return;
    }
    if (stats.events == 0) { /* CUDA was initialised but nothing ran in the window */
        unlink(g.tmp_path);
        if (g.verbose) say("tracecost: window %u of pid %ld recorded no events", g.window,
                           (long)g.pid);
        return;
    }
    if (rename(g.tmp_path, final) != 0) {
        io_failed("cannot rename to", final, errno);
        return;
    }
    if (info.dropped_records || info.refused_buffers)
        say("tracecost: %s: %llu activity records dropped (buffer pool full: raise "
            "TRACECOST_BUFFERS or TRACECOST_BUFFER_MB); the trace is incomplete",
            final, (unsigned long long)info.dropped_records);
    else if (g.verbose)
        say("tracecost: wrote %s (%llu events)", final, (unsigned long long)stats.events);
}

/* ---------- capture control (worker, or injection before the worker starts) ---------- */

static void disable_kinds(void) {
    for (size_t i = 0; i < NKINDS; i++) cuptiActivityDisable(kinds[i].kind);
}

/* Enables the kinds; then turns off the low-value API callbacks at the source. */
static int enable_kinds(int keep_all_api) {
    for (size_t i = 0; i < NKINDS; i++) {
        CUptiResult r = cuptiActivityEnable(kinds[i].kind);
        if (r == CUPTI_SUCCESS) continue;
        if (kinds[i].optional && (r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_INVALID_KIND)) {
            if (g.verbose) say("tracecost: CUPTI activity %s not supported here; continuing "
                               "without it", kinds[i].name);
            continue;
        }
        char what[96];
        snprintf(what, sizeof what, "cuptiActivityEnable(%s)", kinds[i].name);
        cupti_failed(what, r);
        disable_kinds();
        return -1;
    }
    if (!keep_all_api) {
        for (uint32_t cb = 0; cb < CUPTI_RUNTIME_TRACE_CBID_SIZE; cb++) {
            const char *n = api_name_cb(NULL, TC_API_RUNTIME, cb);
            if (n && tc_conv_api_is_noise(n)) cuptiActivityEnableRuntimeApi(cb, 0);
        }
        for (uint32_t cb = 0; cb < CUPTI_DRIVER_TRACE_CBID_SIZE; cb++) {
            const char *n = api_name_cb(NULL, TC_API_DRIVER, cb);
            if (n && tc_conv_api_is_noise(n)) cuptiActivityEnableDriverApi(cb, 0);
        }
    }
    return 0;
}

static int keep_all_api(void) {
    const char *v = getenv("TRACECOST_ALL_API");
    return v && strcmp(v, "1") == 0;
}

static void capture_start(void) {
    if (g.capturing || atomic_load(&g.disabled)) return;
    uint64_t start = now_ns(CLOCK_REALTIME);
    if (enable_kinds(keep_all_api()) != 0) return;
    if (document_open(start) != 0) {
        disable_kinds();
        return;
    }
    g.capturing = 1;
    g.start_at = 0;
    g.stop_at = g.duration_ns ? now_ns(CLOCK_MONOTONIC) + g.duration_ns : 0;
}

static void convert_buffer(uint8_t *buf, size_t valid) {
    if (!atomic_load(&g.disabled) && tc_conv_is_open(g.conv)) {
        CUpti_Activity *rec = NULL;
        while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
            tc_conv_status st = tc_conv_record(g.conv, rec);
            if (st == TC_CONV_ERR_WRITE) {
                io_failed("cannot write", g.tmp_path, g.io_errno ? g.io_errno : EIO);
                document_discard();
                break;
            }
        }
    }
    release_buffer(buf);
}

/* Converts every queued buffer. */
static void drain(void) {
    for (;;) {
        pthread_mutex_lock(&g.mu);
        if (g.ndone == 0) {
            pthread_mutex_unlock(&g.mu);
            return;
        }
        done_buf d = g.done[g.done_head];
        g.done_head = (g.done_head + 1) % MAX_BUFS;
        g.ndone--;
        pthread_mutex_unlock(&g.mu);
        convert_buffer(d.buf, d.valid);
    }
}

/* Between windows the pool gives its memory back; buffers CUPTI still holds come back later. */
static void free_idle_buffers(void) {
    pthread_mutex_lock(&g.mu);
    for (int i = 0; i < g.nfree; i++) free(g.free_bufs[i]);
    g.nalloc -= g.nfree;
    g.nfree = 0;
    pthread_mutex_unlock(&g.mu);
}

static void capture_stop(void) {
    if (!g.capturing) return;
    g.capturing = 0;
    g.stop_at = 0;
    disable_kinds();
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t dropped = 0; /* drops after the last completed buffer are only counted here */
    if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS && dropped) {
        pthread_mutex_lock(&g.mu);
        g.dropped += dropped;
        pthread_mutex_unlock(&g.mu);
    }
    drain();
    if (r != CUPTI_SUCCESS) {
        cupti_failed("cuptiActivityFlushAll", r);
        document_discard();
        return;
    }
    if (atomic_load(&g.disabled)) {
        if (tc_conv_is_open(g.conv)) document_discard();
    } else {
        document_close();
    }
    free_idle_buffers();
}

/* ---------- worker thread ---------- */

static void *worker_main(void *arg) {
    (void)arg;
    unsigned toggles_seen = 0;
    uint64_t next_flush = now_ns(CLOCK_MONOTONIC) + FLUSH_PERIOD_NS;
    for (;;) {
        int exiting;
        pthread_mutex_lock(&g.mu);
        if (g.ndone == 0 && !g.exit_requested && !atomic_load(&g.term_signal)) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += (long)POLL_NS;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&g.cv, &g.mu, &ts);
        }
        exiting = g.exit_requested || atomic_load(&g.term_signal);
        pthread_mutex_unlock(&g.mu);

        drain();
        if (exiting) break;
        if (atomic_load(&g.disabled)) {
            if (g.capturing) {
                g.capturing = 0;
                disable_kinds();
            }
            if (tc_conv_is_open(g.conv)) document_discard();
            continue; /* keep recycling buffers until exit */
        }
        uint64_t now = now_ns(CLOCK_MONOTONIC);
        unsigned t = atomic_load(&g.toggles);
        if (t != toggles_seen) {
            unsigned flips = t - toggles_seen;
            toggles_seen = t;
            if (flips % 2) {
                if (g.capturing) capture_stop();
                else capture_start();
            }
        }
        if (g.start_at && now >= g.start_at) capture_start();
        if (g.capturing && g.stop_at && now >= g.stop_at) capture_stop();
        if (g.capturing && now >= next_flush) {
            CUptiResult r = cuptiActivityFlushAll(0);
            if (r != CUPTI_SUCCESS) cupti_failed("cuptiActivityFlushAll", r);
            next_flush = now + FLUSH_PERIOD_NS;
        }
    }
    capture_stop();
    atomic_store(&g.accepting, 0);
    atomic_store(&g.finished, 1);
    return NULL;
}

/* Waits (async-signal-safe) until the worker finished, at most g.exit_timeout_ns. */
static int wait_finished(void) {
    struct timespec step = {0, 5000000}; /* 5 ms */
    for (uint64_t waited = 0; !atomic_load(&g.finished); waited += 5000000u) {
        if (waited >= g.exit_timeout_ns) return -1;
        nanosleep(&step, NULL);
    }
    return 0;
}

static void at_exit(void) {
    if (getpid() != g.pid || !atomic_load(&g.worker_running)) return;
    pthread_mutex_lock(&g.mu);
    g.exit_requested = 1;
    pthread_cond_signal(&g.cv);
    pthread_mutex_unlock(&g.mu);
    if (wait_finished() == 0) {
        pthread_join(g.worker, NULL);
        atomic_store(&g.worker_running, 0);
    } else {
        say("tracecost: the final trace flush did not finish in time; %s left incomplete",
            g.tmp_path);
    }
}

/* ---------- signals (rule 4) ---------- */

static void on_toggle(int sig) {
    (void)sig;
    atomic_fetch_add(&g.toggles, 1u);
}

/* SIGTERM/SIGINT: let the worker write the trace, restore the previous handler, re-raise. */
static void on_terminate(int sig) {
    int saved_errno = errno;
    if (getpid() == g.pid && atomic_load(&g.worker_running) && !atomic_load(&g.finished)) {
        atomic_store(&g.term_signal, sig);
        wait_finished();
    }
    sigaction(sig, sig == SIGTERM ? &g.old_term : &g.old_int, NULL);
    errno = saved_errno;
    raise(sig); /* delivered when this handler returns, to the restored handler */
}

static int sig_ignored(const struct sigaction *sa) {
    return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_IGN;
}

static int sig_default(const struct sigaction *sa) {
    return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

/* SIGUSR2 is taken only when the program left it alone; SIGTERM/SIGINT are chained unless the
 * program ignores them (then they stay ignored: it asked not to be stopped by them). */
static void install_signals(void) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_toggle;
    if (sigaction(SIGUSR2, NULL, &old) == 0) {
        if (sig_default(&old) || sig_ignored(&old))
            g.own_usr2 = sigaction(SIGUSR2, &sa, NULL) == 0;
        else
            say("tracecost: SIGUSR2 is handled by the program; toggling capture with it is off");
    }
    sa.sa_handler = on_terminate;
    if (sigaction(SIGTERM, NULL, &g.old_term) == 0 && !sig_ignored(&g.old_term))
        g.own_term = sigaction(SIGTERM, &sa, NULL) == 0;
    if (sigaction(SIGINT, NULL, &g.old_int) == 0 && !sig_ignored(&g.old_int))
        g.own_int = sigaction(SIGINT, &sa, NULL) == 0;
}

/* ---------- configuration ---------- */

static int env_seconds(const char *name, uint64_t *ns) {
    const char *v = getenv(name);
    *ns = 0;
    if (!v || !*v) return 0;
    if (tc_parse_seconds_ns(v, ns) != 0) {
        say("tracecost: %s='%s' is not a number of seconds; tracing disabled", name, v);
        return -1;
    }
    return 0;
}

static int env_int(const char *name, int def, int lo, int hi) {
    int v = tc_parse_nonneg_int(getenv(name));
    if (v < 0) return def;
    return v < lo ? lo : v > hi ? hi : v;
}

static int configure(void) {
    g.pid = getpid();
    const char *d = getenv("TRACECOST_OUT_DIR");
    if (!d || !*d) d = "tracecost-traces";
    char cwd[PATH_MAX] = "";
    if (d[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        say("tracecost: cannot read the current directory: %s; tracing disabled",
            strerror(errno));
        return -1;
    }
    if (fmt_path(g.dir, sizeof g.dir, "%s%s%s", cwd, cwd[0] ? "/" : "", d) != 0) {
        say("tracecost: TRACECOST_OUT_DIR is too long; tracing disabled");
        return -1;
    }
    if (gethostname(g.host, sizeof g.host - 1) != 0 || !g.host[0]) snprintf(g.host, sizeof g.host, "host");
    g.host[sizeof g.host - 1] = 0;
    for (char *p = g.host; *p; p++)
        if (*p == '/' || *p == ' ') *p = '_';
    const char *z = getenv("TRACECOST_GZIP");
    g.gzip = z && strcmp(z, "1") == 0;
    const char *v = getenv("TRACECOST_VERBOSE");
    g.verbose = v && strcmp(v, "1") == 0;
    if (env_seconds("TRACECOST_DELAY_S", &g.delay_ns) != 0) return -1;
    if (env_seconds("TRACECOST_DURATION_S", &g.duration_ns) != 0) return -1;
    uint64_t t;
    if (env_seconds("TRACECOST_EXIT_TIMEOUT_S", &t) != 0) return -1;
    g.exit_timeout_ns = t ? t : DEFAULT_EXIT_TIMEOUT_NS;
    g.nbufs = env_int("TRACECOST_BUFFERS", DEFAULT_BUFS, 2, MAX_BUFS);
    g.buf_size = (size_t)env_int("TRACECOST_BUFFER_MB", DEFAULT_BUF_MB, 1, 256) * 1024 * 1024;
    return 0;
}

static char *read_comm(char *buf, size_t cap) {
    FILE *f = fopen("/proc/self/comm", "re");
    if (!f) return NULL;
    char *r = fgets(buf, (int)cap, f);
    fclose(f);
    if (!r) return NULL;
    buf[strcspn(buf, "\n")] = 0;
    return buf;
}

/* ---------- entry points ---------- */

typedef const void *(*tc_nvtx_export_table_fn)(uint32_t export_table_id);
TC_EXPORT int InitializeInjection(void);
TC_EXPORT int InitializeInjectionNvtx2(tc_nvtx_export_table_fn get_export_table);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void initialize(void) {
    if (configure() != 0) {
        atomic_store(&g.disabled, 1);
        return;
    }
    CUptiResult r = cuptiGetVersion(&g.cupti_version);
    if (r != CUPTI_SUCCESS) {
        cupti_failed("cuptiGetVersion", r);
        return;
    }
    char comm[64];
    tc_conv_config cfg = {
        .api_name = api_name_cb,
        .step_range = getenv("TRACECOST_STEP_RANGE"),
        .process_name = read_comm(comm, sizeof comm),
        .pid = (uint32_t)g.pid,
        .keep_all_api = keep_all_api(),
    };
    if (tc_conv_new(&cfg, &g.conv) != TC_CONV_OK) {
        say("tracecost: out of memory; tracing disabled");
        atomic_store(&g.disabled, 1);
        return;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g.cv, &ca);
    pthread_condattr_destroy(&ca);

    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
        cupti_failed("cuptiActivityRegisterCallbacks", r);
        return;
    }
    cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); /* tids = gettid(); optional */

    atomic_store(&g.accepting, 1);
    if (g.delay_ns == 0) {
        capture_start(); /* before the worker exists: no kernel of the first step is missed */
        if (atomic_load(&g.disabled)) {
            atomic_store(&g.accepting, 0);
            return;
        }
    } else {
        g.start_at = now_ns(CLOCK_MONOTONIC) + g.delay_ns;
    }

    /* The worker takes no signals: handlers run on program threads and wait for it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    atomic_store(&g.worker_running, 1);
    int err = pthread_create(&g.worker, NULL, worker_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        atomic_store(&g.worker_running, 0);
        atomic_store(&g.accepting, 0);
        say("tracecost: cannot start the tracer thread: %s; tracing disabled", strerror(err));
        atomic_store(&g.disabled, 1);
        if (g.capturing) {
            g.capturing = 0;
            disable_kinds();
            document_discard();
        }
        return;
    }
    pthread_setname_np(g.worker, "tracecost");
    atexit(at_exit);
    install_signals();
}

/* Called by the CUDA driver (cuInit) when CUDA_INJECTION64_PATH names this library. Always
 * returns 1 (success): a tracer problem must never fail the program's CUDA initialisation. */
TC_EXPORT int InitializeInjection(void) {
    pthread_once(&init_once, initialize);
    return 1;
}

static const char nvtx_anchor = 0; /* an address inside this library, for dladdr */

/* Called by NVTX when NVTX_INJECTION64_PATH names this library: hands NVTX to libcupti, the
 * library this one is linked with, so ranges and markers reach CUPTI. 0 (NVTX stays a no-op)
 * when libcupti cannot be found. */
TC_EXPORT int InitializeInjectionNvtx2(tc_nvtx_export_table_fn get_export_table) {
    /* function <-> object pointers go through memcpy (ISO C has no cast between them) */
    CUptiResult (*cupti_fn)(uint32_t *) = cuptiGetVersion;
    void *cupti_addr, *init_addr;
    memcpy(&cupti_addr, &cupti_fn, sizeof cupti_addr);
    Dl_info info;
    if (!dladdr(cupti_addr, &info) || !info.dli_fname) return 0;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return 0;
    init_addr = dlsym(h, "InitializeInjectionNvtx2");
    int (*init)(tc_nvtx_export_table_fn) = NULL;
    memcpy(&init, &init_addr, sizeof init);
    /* never call ourselves (the name is the same in both libraries) */
    Dl_info self, found;
    int ours = !init_addr || !dladdr(&nvtx_anchor, &self) || !dladdr(init_addr, &found) ||
               self.dli_fbase == found.dli_fbase;
    int rc = ours ? 0 : init(get_export_table);
    dlclose(h);
    return rc;
}
