/* parallel.c: multi-threaded parse of one trace's event array (see parallel.h). The threads are
 * one worker pool (base/pool.h) per load; the calling thread owns it and parses too. Two paths:
 * - plain files whose event separator was learned (pattern_file_load, split.h): the caller finds
 *   boundaries with small reads, submits each piece as a pool task, and merges finished ones in
 *   order (while it waits for the next one it parses queued pieces itself); a piece no thread has
 *   begun when its turn comes is taken back and parsed straight into the trace (no merge). Each
 *   piece is read by its parser.
 * - everything else: one reader (source -> ring of TC_PAR_BUFFERS buffers filled by a task spawned
 *   on the pool, or windows of a plain file read by the caller), the caller (splits buffers into
 *   pieces, merges results, feeds the head and tail to the sequential parser p0), and the pool,
 *   which parses the pieces of a buffer as one batch while the caller goes on to the next buffer.
 *   Invariants: at most two batches are alive, and the older is merged (in order, all its pieces)
 *   right after the newer is submitted; the caller holds at most three buffers (the current one,
 *   the previous one while the unparsed carry starts in it, and the one the pending batch's first
 *   piece still reads), handed back oldest first; p0 reads on only once every batch is merged. */
#define _POSIX_C_SOURCE 200809L
#include "parallel.h"
#include "chrome_trace.h"
#include "split.h"
#include "bgzf.h"
#include "gzsplit.h"
#include "base/pool.h"
#include "base/util.h"
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#define MIN_PIECE (4u * 1024u)
#define MAX_PIECE (2u * 1024u * 1024u)
#define MAX_PIECES_PER_BUFFER (TC_PAR_WINDOW / MIN_PIECE + 2)

/* ---- reader: source -> ring of buffers, a task spawned on the pool --------------------------- */

/* A run of BGZF members inflated into a ring buffer: a pool task the caller submits ahead of the
 * buffer it parses, so members inflate on every thread (the pieces' batches queue behind them). */
typedef struct {
    tc_pool_task task; /* first: the pool hands it back to zrun_run */
    int fd;
    bool isal;         /* the source's engine */
    uint64_t from, to; /* compressed offsets of whole members */
    size_t decoded;    /* their decoded bytes (the trailers' lengths) */
    char *out;         /* the ring buffer */
    bool ok;
} zrun;

typedef struct {
    tc_pool_task task;           /* first: the pool hands it back to reader_run */
    tc_source *src;
    /* plain regular files are read window by window instead, by the caller (no thread) */
    int fd;                      /* -1: use the task and buffers */
    uint64_t size;               /* file size when opened */
    char *map[TC_PAR_BUFFERS];   /* window of buffer number k at k % N (malloc'd, read with pread) */
    size_t map_len[TC_PAR_BUFFERS];
    bool started;                /* the task was spawned */
    pthread_mutex_t mu;          /* the ring's state below, shared with the task */
    pthread_cond_t cv;
    char *buf[TC_PAR_BUFFERS];
    size_t len[TC_PAR_BUFFERS];
    uint64_t produced, released; /* buffers filled / handed back; ring slot = count % N */
    bool eof, failed, stop;
    uint64_t raw_bytes;          /* source bytes read so far */
    /* BGZF gzip files: runs of members inflated on the pool (bgzf.h), no reader task */
    int zfd;                     /* -1: not BGZF */
    bool zisal, zbad;            /* zbad: a member start was no BGZF member (or unreadable) */
    tc_pool *pool;
    zrun zrun[TC_PAR_BUFFERS];   /* run k in slot k % N, inflating into buf[k % N] */
    uint64_t zplanned, znext;    /* runs submitted; compressed offset where the next starts */
    uint64_t zdecoded;           /* decoded bytes handed to the caller */
    bool zend;                   /* no run left to submit */
    tc_gzsplit *gzs;             /* other gzip files split at candidates (gzsplit.h), or NULL */
} reader;

static void zrun_run(tc_pool_task *task, size_t index, int worker) {
    zrun *z = (zrun *)task;
    (void)index;
    (void)worker;
    unsigned char *in = malloc(z->to - z->from); /* the compressed run: bounded by a buffer's worth */
    z->ok = in && tc_bgzf_inflate(z->fd, z->from, z->to, in, z->out, z->decoded, z->isal) == 0;
    free(in);
}

/* Submits runs while their ring slots are free (the caller holds at most two buffers). */
static void bgzf_plan(reader *r) {
    while (!r->zend && r->zplanned < r->released + TC_PAR_BUFFERS) {
        uint64_t to;
        size_t decoded;
        int rc = tc_bgzf_span(r->zfd, r->size, r->znext, TC_PAR_BUFFER, &to, &decoded);
        if (rc == 1 && decoded == 0 && to < r->size) rc = -1; /* empty members before an oversized one */
        if (rc <= 0 || decoded == 0) { r->zend = true; r->zbad = rc < 0; break; }
        size_t slot = (size_t)(r->zplanned++ % TC_PAR_BUFFERS);
        zrun *z = &r->zrun[slot];
        memset(z, 0, sizeof *z);
        *z = (zrun){.fd = r->zfd, .isal = r->zisal, .from = r->znext, .to = to, .decoded = decoded, .out = r->buf[slot]};
        tc_pool_submit(r->pool, &z->task, zrun_run, 1);
        r->znext = to;
    }
}

/* Buffer number k of a BGZF file (asked for in order), or NULL at the end (check r->failed). */
static const char *bgzf_get(reader *r, uint64_t k, size_t *len) {
    bgzf_plan(r);
    if (k >= r->zplanned) { r->failed = r->zbad; return NULL; }
    zrun *z = &r->zrun[k % TC_PAR_BUFFERS];
    tc_pool_wait(r->pool, &z->task);
    r->produced = k + 1;
    if (!z->ok) { r->failed = true; return NULL; } /* damage: the sequential parse says where */
    r->raw_bytes = z->to;
    r->zdecoded += z->decoded;
    *len = z->decoded;
    return z->out;
}

/* Run number k of a gzip file split at candidates, or NULL at the end (check r->failed). */
static const char *gzs_get(reader *r, uint64_t k, size_t *len) {
    bool failed;
    const char *b = tc_gzsplit_get(r->gzs, k, r->released, len, &failed);
    if (!b) { r->failed = failed; return NULL; }
    r->produced = k + 1;
    r->raw_bytes = tc_gzsplit_raw_bytes(r->gzs);
    return b;
}

static void reader_run(tc_pool_task *task, size_t index, int worker) {
    reader *r = (reader *)task;
    char err[512];
    (void)index;
    (void)worker;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (!r->stop && r->produced - r->released >= TC_PAR_BUFFERS) pthread_cond_wait(&r->cv, &r->mu);
        bool stop = r->stop;
        size_t slot = (size_t)(r->produced % TC_PAR_BUFFERS);
        pthread_mutex_unlock(&r->mu);
        if (stop) break;
        size_t got = 0;
        bool eof = false, failed = false;
        while (got < TC_PAR_BUFFER) {
            long n = tc_source_read(r->src, r->buf[slot] + got, TC_PAR_BUFFER - got, err, sizeof err);
            if (n < 0) { failed = true; break; }
            if (n == 0) { eof = true; break; }
            got += (size_t)n;
        }
        pthread_mutex_lock(&r->mu);
        r->raw_bytes = tc_source_raw_bytes(r->src);
        if (got > 0 && !failed) { r->len[slot] = got; r->produced++; }
        r->eof = eof;
        r->failed = failed;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (eof || failed) break;
    }
}

/* Buffer number k, or NULL at the end (check r->failed). A window of a plain file is read, not
 * mapped: a file that shrinks while it is parsed (still being written, rotated) must end in a
 * short read (r->failed: the sequential parse then says where it ends), not in SIGBUS. */
static const char *reader_get(reader *r, uint64_t k, size_t *len) {
    if (r->zfd >= 0) return bgzf_get(r, k, len);
    if (r->gzs) return gzs_get(r, k, len);
    if (r->fd >= 0) {
        uint64_t off = k * (uint64_t)TC_PAR_WINDOW;
        if (off >= r->size) return NULL;
        size_t n = r->size - off < TC_PAR_WINDOW ? (size_t)(r->size - off) : TC_PAR_WINDOW;
        char *w = malloc(n);
        if (!w || tc_pread_full(r->fd, w, n, off) != (long)n) { free(w); r->failed = true; return NULL; }
        r->map[k % TC_PAR_BUFFERS] = w;
        r->map_len[k % TC_PAR_BUFFERS] = n;
        r->produced = k + 1;
        r->raw_bytes = off + n;
        *len = n;
        return w;
    }
    pthread_mutex_lock(&r->mu);
    while (r->produced <= k && !r->eof && !r->failed) pthread_cond_wait(&r->cv, &r->mu);
    const char *b = NULL;
    if (r->produced > k) { b = r->buf[k % TC_PAR_BUFFERS]; *len = r->len[k % TC_PAR_BUFFERS]; }
    pthread_mutex_unlock(&r->mu);
    return b;
}

/* Hands back the oldest buffer the caller holds. */
static void reader_release(reader *r) {
    if (r->fd >= 0) {
        assert(r->released < r->produced);
        size_t slot = (size_t)(r->released++ % TC_PAR_BUFFERS);
        free(r->map[slot]);
        r->map[slot] = NULL;
        return;
    }
    pthread_mutex_lock(&r->mu);
    assert(r->released < r->produced);
    r->released++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Source bytes read so far (progress). */
static uint64_t reader_raw_bytes(reader *r) {
    if (r->fd >= 0) return r->raw_bytes;
    pthread_mutex_lock(&r->mu);
    uint64_t raw = r->raw_bytes;
    pthread_mutex_unlock(&r->mu);
    return raw;
}

static void reader_stop(reader *r, tc_pool *pool) {
    for (int i = 0; i < TC_PAR_BUFFERS; i++)
        if (r->map[i]) { free(r->map[i]); r->map[i] = NULL; }
    for (uint64_t q = r->produced; r->zfd >= 0 && q < r->zplanned; q++) /* runs submitted, not taken */
        tc_pool_wait(pool, &r->zrun[q % TC_PAR_BUFFERS].task);
    r->zplanned = r->produced;
    tc_gzsplit_close(r->gzs); /* waits for its runs in flight */
    r->gzs = NULL;
    if (!r->started) return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    tc_pool_wait(pool, &r->task);
    r->started = false;
}

/* ---- pieces of a buffer, parsed as one batch on the pool ------------------------------------- */

typedef struct {
    const char *seg[2];
    size_t seg_len[2]; /* the last segment ends with the comma before the next piece */
    tc_trace t;        /* partial trace of this piece */
    tc_ct_parser *p;
    const tc_comm_patterns *comm; /* the user's comm-kernel patterns (tc_read_options) */
    bool ok;
} piece;

static void parse_piece(piece *c) {
    c->ok = false;
    c->p = NULL;
    if (tc_trace_init(&c->t, NULL)) return;
    int last = c->seg_len[1] ? 1 : 0;
    size_t trimmed = tc_split_trim_comma(c->seg[last], c->seg_len[last]);
    if (trimmed == TC_SPLIT_NONE) return;
    c->p = tc_ct_parser_new_events(&c->t);
    if (!c->p) return;
    tc_ct_parser_set_comm(c->p, c->comm);
    if (tc_ct_parser_feed(c->p, "[", 1)) return;
    if (last == 1 && tc_ct_parser_feed(c->p, c->seg[0], c->seg_len[0])) return;
    if (tc_ct_parser_feed(c->p, c->seg[last], trimmed)) return;
    if (tc_ct_parser_feed(c->p, "]", 1)) return;
    if (tc_ct_parser_finish(c->p)) return;
    c->ok = true;
}

/* A buffer's pieces, one task of the pool: submitted, then left to the pool while the caller goes
 * on to the next buffer, and merged once that one's batch is submitted, so the pool's threads
 * parse while the caller splits, inflates and merges (a wait per buffer left them idle there:
 * docs/performance.md, "gzip on every core"). */
typedef struct {
    tc_pool_task task; /* first: the pool hands it back to batch_run */
    piece *pieces;
    size_t n;
    size_t releases;   /* buffers handed back once it is merged: the carry's, which its first piece reads */
    bool pending;      /* submitted, not yet merged */
} batch;

static void batch_run(tc_pool_task *task, size_t i, int worker) {
    (void)worker;
    parse_piece(&((batch *)task)->pieces[i]);
}

/* ---- merging a piece's partial trace into the main one ------------------------------------- */

/* Appends a piece's partial trace src (parsed by src_p) to t (tc_trace_append: its ids are those a
 * sequential parse gives) and hands src_p's parse state to p0. */
static int merge_partial(tc_trace *t, tc_ct_parser *p0, const tc_trace *src, const tc_ct_parser *src_p,
                         uint32_t **remap, size_t *remap_cap) {
    if (tc_trace_append(t, src, remap, remap_cap)) return -1;
    tc_ct_parser_absorb(p0, src_p);
    return 0;
}

static void free_pieces(piece *pieces, size_t n) {
    for (size_t i = 0; i < n; i++) {
        tc_ct_parser_free(pieces[i].p);
        tc_trace_free(&pieces[i].t);
    }
}

/* ---- plain files with a learned separator: each piece read by the thread that parses it -----
 * Reading a piece in small slices right before parsing them keeps the bytes yajl reads in that
 * core's cache; parsing from a mapped window or a shared 2 MB buffer made yajl a quarter slower
 * (docs/performance.md). The calling thread finds boundaries with small reads at
 * `gap` strides and submits each piece as a pool task; it merges finished pieces in order, and
 * while it waits for the next one it parses queued pieces. When the next one in order is still
 * queued (every other thread busy: with several files, each thread with its own), it takes it back
 * and parses it into the file's trace itself, as a sequential parse would: no partial trace, no
 * second copy of its records. At most FILE_INFLIGHT_PER_THREAD pieces per thread are queued or
 * parsed but not yet merged. */

#define FILE_SLICE (64u * 1024u)  /* bytes read and fed per step: stays in L2 */
#define FILE_SCAN (4u * 1024u)    /* bytes read per step when looking for a boundary (events are ~300 B) */
#define FILE_HEAD_MAX (16u * 1024u * 1024u) /* metadata before traceEvents we read to find it */
#define FILE_INFLIGHT_PER_THREAD 4

typedef struct kf_load kf_load;

typedef struct {
    tc_pool_task task; /* first: the pool hands it back to parse_fpiece_run */
    kf_load *k;
    uint64_t from, to; /* file offsets: the piece's events, from after the '[' or a boundary's
                        * '{' to just after the '}' that starts the next boundary's separator */
    tc_trace t;
    tc_ct_parser *p;
    bool ok;
} fpiece;

struct kf_load {
    int fd;
    uint64_t size;        /* the file's, bytes */
    tc_pool *pool;
    char **slices;        /* per thread, by the pool's worker number: a FILE_SLICE buffer made by
                           * that thread on its first piece */
    char *own;            /* the file's thread's FILE_SLICE buffer: pieces it parses into t, the tail */
    fpiece *ring;         /* ring[q % cap] for merged <= q < queued: submitted, not yet merged */
    size_t cap;
    uint64_t queued, merged;
    tc_trace *t;
    tc_ct_parser *p0;     /* the document's sequential parser: head, tail, and absorbed pieces */
    const tc_comm_patterns *comm; /* the user's comm-kernel patterns, for p0 and every piece */
    tc_split_pattern pat; /* the separator between events */
    uint32_t *remap;
    size_t remap_cap;
    tc_par_info *info;
};

/* Feeds the file's bytes [from, to) to p as "[" + them + "]", in FILE_SLICE reads through slice,
 * and finishes it. True when it all parsed. */
static bool feed_file_events(int fd, tc_ct_parser *p, uint64_t from, uint64_t to, char *slice) {
    if (tc_ct_parser_feed(p, "[", 1)) return false;
    for (uint64_t off = from; off < to;) {
        size_t want = to - off < FILE_SLICE ? (size_t)(to - off) : FILE_SLICE;
        long n = tc_pread_full(fd, slice, want, off);
        if (n != (long)want) return false; /* the file shrank or failed under us */
        if (tc_ct_parser_feed(p, slice, want)) return false;
        off += want;
    }
    return tc_ct_parser_feed(p, "]", 1) == 0 && tc_ct_parser_finish(p) == 0;
}

static void parse_fpiece(int fd, fpiece *c, char *slice) {
    c->ok = false;
    c->p = NULL;
    if (tc_trace_init(&c->t, NULL)) return;
    c->p = tc_ct_parser_new_events(&c->t);
    if (!c->p) return;
    tc_ct_parser_set_comm(c->p, c->k->comm);
    c->ok = feed_file_events(fd, c->p, c->from, c->to, slice);
}

/* The pool task of one piece; slices[worker] is touched by that thread only. */
static void parse_fpiece_run(tc_pool_task *task, size_t index, int worker) {
    fpiece *c = (fpiece *)task;
    char **slice = &c->k->slices[worker];
    (void)index;
    if (!*slice) *slice = malloc(FILE_SLICE);
    if (*slice) parse_fpiece(c->k->fd, c, *slice);
    else c->ok = false;
}

/* File offset of the '{' of the next separator matching pat at or after `from`; TC_SPLIT_NONE at
 * the end of the file or on a read error (*failed). */
static uint64_t next_file_boundary(int fd, char *scan, const tc_split_pattern *pat, uint64_t from, bool *failed) {
    size_t overlap = pat->len - 1; /* a match across two reads */
    for (uint64_t off = from;;) {
        long n = tc_pread_full(fd, scan, FILE_SCAN, off);
        if (n < 0) { *failed = true; return TC_SPLIT_NONE; }
        size_t b = tc_split_next(pat, scan, (size_t)n, 0);
        if (b != TC_SPLIT_NONE) return off + b;
        if ((size_t)n < FILE_SCAN) return TC_SPLIT_NONE;
        off += FILE_SCAN - overlap;
    }
}

/* Reads the head (the metadata before the events array) into head[0, cap) until the array's '['
 * and the separator after its first element are seen. True when they are (*body: where its events
 * start; *pat: the separator). */
static bool kf_read_head(int fd, char *head, size_t cap, size_t *body, tc_split_pattern *pat) {
    size_t len = 0;
    tc_split_find f = TC_SPLIT_NEED_MORE;
    while (f == TC_SPLIT_NEED_MORE && len < cap) {
        /* 64 KiB (the array's start and its first boundaries), then doubling: the head is scanned
         * from its start after each read */
        size_t step = len > FILE_SLICE ? len : FILE_SLICE;
        size_t want = cap - len < step ? cap - len : step;
        long n = tc_pread_full(fd, head + len, want, len);
        if (n <= 0) return false;
        len += (size_t)n;
        f = tc_split_find_events(head, len, body);
        if (f == TC_SPLIT_FOUND) f = tc_split_learn(head, len, *body, pat);
    }
    return f == TC_SPLIT_FOUND;
}

/* Piece c, taken back from the pool before any thread began it, parsed by the file's thread
 * straight into the file's trace: every piece before it is merged, so its strings get the ids and
 * its records the places a sequential parse gives them, and nothing is copied again. (Its op keys
 * may repeat earlier pieces' ones, as a piece's own do: tc_trace_merge_op_keys.) 0, or -1 (why set). */
static int kf_parse_direct(kf_load *k, const fpiece *c) {
    tc_ct_parser *p = tc_ct_parser_new_events(k->t);
    if (!p) { k->info->why = "out of memory"; return -1; }
    tc_ct_parser_set_comm(p, k->comm);
    bool ok = feed_file_events(k->fd, p, c->from, c->to, k->own);
    if (ok) tc_ct_parser_absorb(k->p0, p);
    else k->info->why = "a piece did not parse";
    tc_ct_parser_free(p);
    if (!ok) return -1;
    k->info->pieces++;
    k->info->pieces_direct++;
    return 0;
}

/* The oldest unmerged piece into t: parsed there when no thread has begun it, else waited for
 * (running queued pieces meanwhile), merged and its records freed. -1 on failure (why set). */
static int kf_merge_next(kf_load *k) {
    assert(k->merged < k->queued);
    fpiece *c = &k->ring[k->merged++ % k->cap];
    if (tc_pool_take_back(k->pool, &c->task)) return kf_parse_direct(k, c);
    tc_pool_wait(k->pool, &c->task);
    bool ok = c->ok && merge_partial(k->t, k->p0, &c->t, c->p, &k->remap, &k->remap_cap) == 0;
    if (!c->ok) k->info->why = "a piece did not parse";
    else if (!ok) k->info->why = "out of memory";
    tc_ct_parser_free(c->p);
    tc_trace_free(&c->t);
    c->p = NULL;
    if (!ok) return -1;
    k->info->pieces++;
    return 0;
}

/* Queues pieces at boundaries from *next_from on while the ring has room, merging them in order;
 * returns once every piece up to the last boundary is merged, *next_from where the tail starts.
 * -1 on failure (why set; pieces may be left in flight: kf_drain). */
static int kf_pieces(kf_load *k, uint64_t *next_from, size_t gap, char *scan, tc_progress_fn progress,
                     void *progress_ctx) {
    bool producing = true;
    for (;;) {
        if (producing && k->queued - k->merged < k->cap) {
            bool failed = false;
            uint64_t b = next_file_boundary(k->fd, scan, &k->pat, *next_from + gap, &failed);
            if (failed) { k->info->why = "read error"; return -1; }
            if (b == TC_SPLIT_NONE) { producing = false; continue; }
            fpiece *c = &k->ring[k->queued++ % k->cap];
            memset(c, 0, sizeof *c);
            c->k = k;
            c->from = *next_from;
            c->to = b - k->pat.brace + 1; /* just after the separator's '}' */
            tc_pool_submit(k->pool, &c->task, parse_fpiece_run, 1);
            *next_from = b;
            continue;
        }
        if (k->merged == k->queued) return 0; /* and not producing: the ring had room */
        uint64_t done_to = k->ring[k->merged % k->cap].to;
        if (kf_merge_next(k)) return -1;
        if (progress) progress(progress_ctx, done_to, k->size);
    }
}

/* Waits for the pieces a failure left in flight (takes back those not begun) and frees them. */
static void kf_drain(kf_load *k) {
    for (; k->merged < k->queued; k->merged++) {
        fpiece *c = &k->ring[k->merged % k->cap];
        if (!tc_pool_take_back(k->pool, &c->task)) tc_pool_wait(k->pool, &c->task);
        tc_ct_parser_free(c->p);
        tc_trace_free(&c->t);
    }
}

/* The tail: the last events, the array's end and any metadata after it, fed to p0 from `from`. */
static int kf_tail(kf_load *k, uint64_t from) {
    char *slice = k->own;
    for (uint64_t off = from; off < k->size;) {
        size_t want = k->size - off < FILE_SLICE ? (size_t)(k->size - off) : FILE_SLICE;
        long n = tc_pread_full(k->fd, slice, want, off);
        if (n != (long)want) { k->info->why = "read error"; return -1; }
        if (tc_ct_parser_feed(k->p0, slice, want)) { k->info->why = "tail did not parse"; return -1; }
        k->info->tail_bytes += want;
        off += want;
    }
    if (tc_ct_parser_finish(k->p0)) { k->info->why = "document incomplete"; return -1; }
    k->info->raw_bytes = k->info->decoded_bytes = k->size;
    return 0;
}

/* Head, pieces and tail of a file whose head was found; 0, or -1 on failure (why set). */
static int kf_parse(kf_load *k, const char *head, size_t body, size_t gap, char *scan, tc_progress_fn progress,
                    void *progress_ctx) {
    k->info->mode = TC_PAR_MODE_PATTERN;
    k->p0 = tc_ct_parser_new(k->t);
    if (!k->p0) { k->info->why = "out of memory"; return -1; }
    tc_ct_parser_set_comm(k->p0, k->comm);
    if (tc_ct_parser_feed(k->p0, head, body)) { k->info->why = "head did not parse"; return -1; }
    tc_trace_reserve(k->t, k->size);
    k->ring = calloc(k->cap, sizeof *k->ring);
    if (!k->ring) { k->info->why = "out of memory"; return -1; }
    uint64_t next_from = body; /* where the next piece starts */
    int rc = kf_pieces(k, &next_from, gap, scan, progress, progress_ctx);
    kf_drain(k);
    return rc ? rc : kf_tail(k, next_from);
}

typedef enum { KF_OK, KF_FALLBACK, KF_NO_PATTERN } kf_status;

/* The plain-file path, on pool (the caller parses too). KF_NO_PATTERN: nothing was done (t
 * untouched), use the general path. */
static kf_status pattern_file_load(tc_trace *t, tc_pool *pool, int fd, uint64_t size, size_t gap,
                                  const tc_comm_patterns *comm, tc_progress_fn progress, void *progress_ctx,
                                  tc_par_info *info) {
    int threads = tc_pool_threads(pool) + 1;
    kf_load k = {.fd = fd, .size = size, .pool = pool, .t = t, .comm = comm, .info = info};
    k.cap = (size_t)threads * FILE_INFLIGHT_PER_THREAD;
    k.slices = calloc((size_t)threads, sizeof *k.slices);
    size_t head_cap = size < FILE_HEAD_MAX ? (size_t)size : FILE_HEAD_MAX, body = 0;
    char *head = malloc(head_cap), *scan = malloc(FILE_SCAN);
    kf_status status = KF_NO_PATTERN;
    if (head && scan && k.slices && (k.own = malloc(FILE_SLICE)) && kf_read_head(fd, head, head_cap, &body, &k.pat))
        status = kf_parse(&k, head, body, gap, scan, progress, progress_ctx) ? KF_FALLBACK : KF_OK;
    assert(k.merged == k.queued); /* no piece left in flight */
    for (int i = 0; k.slices && i < threads; i++) free(k.slices[i]);
    free(k.slices);
    free(k.own);
    free(k.ring);
    tc_ct_parser_free(k.p0);
    free(k.remap);
    free(head);
    free(scan);
    return status;
}

/* ---- the caller's loop ------------------------------------------------------------------------ */

typedef struct {
    tc_trace *t;
    tc_ct_parser *p0;
    const tc_comm_patterns *comm; /* the user's comm-kernel patterns, for p0 and every piece */
    reader r;
    tc_pool *pool;         /* the pieces' (and BGZF runs') pool */
    tc_pool *rpool;        /* the reader task's: pool, or beside a shared pool one of its own */
    batch batch[2];        /* batch number q in batch[q % 2]: the last one submitted may be pending */
    uint64_t batches;      /* submitted so far */
    size_t *bounds;
    uint32_t *remap;
    size_t remap_cap;
    tc_par_info *info;
    size_t gap;            /* bytes between boundaries looked for */
    /* the walk over buffers */
    uint64_t k;            /* number of the current buffer */
    const char *cur, *prev;
    size_t len, prev_len;
    tc_split_pattern pat;  /* the separator between events (TC_PAR_MODE_PATTERN) */
    tc_scan scan;          /* structural scan state, across buffers */
    int64_t last;          /* last boundary, relative to cur */
    size_t carry_off;      /* unparsed data starts here, in prev when prev != NULL */
    size_t scan_from;      /* structural scan resumes here in cur */
    bool tail;             /* from the carry on, everything goes to p0 */
} par_ctx;

/* Waits for batch b when it is pending; false when it was not. */
static bool batch_wait(par_ctx *x, batch *b) {
    if (!b->pending) return false;
    tc_pool_wait(x->pool, &b->task);
    b->pending = false;
    return true;
}

/* Waits for batch b when it is pending, merges its pieces in order, frees them and hands back the
 * buffers it held. -1 on failure (why set). */
static int batch_merge(par_ctx *x, batch *b) {
    if (!batch_wait(x, b)) return 0;
    int rc = 0;
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        if (!b->pieces[i].ok) { x->info->why = "a piece did not parse"; rc = -1; }
        else if (merge_partial(x->t, x->p0, &b->pieces[i].t, b->pieces[i].p, &x->remap, &x->remap_cap)) {
            x->info->why = "out of memory";
            rc = -1;
        }
    }
    x->info->pieces += b->n;
    free_pieces(b->pieces, b->n);
    for (; b->releases > 0; b->releases--) reader_release(&x->r);
    return rc;
}

/* The batch submitted last, merged: before p0 reads on from the carry. -1 on failure (why set). */
static int par_flush(par_ctx *x) { return x->batches ? batch_merge(x, &x->batch[(x->batches - 1) % 2]) : 0; }

/* After a failure: waits for what is pending (its pieces read the buffers) and frees it. */
static void par_drain(par_ctx *x) {
    for (int q = 0; q < 2; q++)
        if (batch_wait(x, &x->batch[q])) free_pieces(x->batch[q].pieces, x->batch[q].n);
}

/* Submits the pieces between the carry (prev[carry_off..] when prev, else cur[carry_off..]) and
 * bounds[0..n) in cur as the next batch, then merges the one before it. -1 on any failure. */
static int run_pieces(par_ctx *x, size_t n) {
    batch *b = &x->batch[x->batches % 2];
    assert(!b->pending);
    for (size_t i = 0; i < n; i++) {
        piece *c = &b->pieces[i];
        memset(c, 0, sizeof *c);
        c->comm = x->comm;
        size_t from = i == 0 ? (x->prev ? 0 : x->carry_off) : x->bounds[i - 1];
        if (i == 0 && x->prev) {
            c->seg[0] = x->prev + x->carry_off;
            c->seg_len[0] = x->prev_len - x->carry_off;
            c->seg[1] = x->cur;
            c->seg_len[1] = x->bounds[0];
            if (c->seg_len[1] == 0) { c->seg[1] = NULL; } /* cannot happen: a bound is after a comma */
        } else {
            c->seg[0] = x->cur + from;
            c->seg_len[0] = x->bounds[i] - from;
        }
    }
    b->n = n;
    b->releases = 0;
    memset(&b->task, 0, sizeof b->task);
    tc_pool_submit(x->pool, &b->task, batch_run, n);
    b->pending = true;
    x->batches++;
    return x->batches > 1 ? batch_merge(x, &x->batch[(x->batches - 2) % 2]) : 0;
}

/* Buffers, pieces and p0; the reader task started when the source is read by a thread. */
static int par_start(par_ctx *x, int threads) {
    reader *r = &x->r;
    /* at least eight pieces per thread in each buffer: a buffer's pieces are one batch, and the
     * threads wait for its slowest piece (a thread that shares its core with the reader is slow);
     * small pieces even that out (two per thread: 0.93-0.98 s on the 411 MB gzip bench trace,
     * eight: 0.85-0.92 s, the same CPU time) */
    size_t per_buffer = (r->fd >= 0 ? TC_PAR_WINDOW : TC_PAR_BUFFER) / ((size_t)threads * 8);
    if (x->gap > per_buffer) x->gap = per_buffer > MIN_PIECE ? per_buffer : MIN_PIECE;
    for (int q = 0; q < 2; q++) x->batch[q].pieces = calloc(MAX_PIECES_PER_BUFFER, sizeof *x->batch[q].pieces);
    x->bounds = calloc(MAX_PIECES_PER_BUFFER, sizeof *x->bounds);
    x->p0 = tc_ct_parser_new(x->t);
    if (x->p0) tc_ct_parser_set_comm(x->p0, x->comm);
    bool bufs_ok = true;
    for (int i = 0; r->fd < 0 && !r->gzs && i < TC_PAR_BUFFERS; i++)
        if (!(r->buf[i] = malloc(TC_PAR_BUFFER))) bufs_ok = false;
    if (!x->batch[0].pieces || !x->batch[1].pieces || !x->bounds || !x->p0 || !bufs_ok) { x->info->why = "out of memory"; return -1; }
    if (r->fd < 0 && r->zfd < 0 && !r->gzs) {
        if (tc_pool_threads(x->rpool) < 1) { x->info->why = "no thread"; return -1; }
        tc_pool_spawn(x->rpool, &r->task, reader_run);
        r->started = true;
    }
    return 0;
}

/* The first buffer: the metadata before the events array goes to p0; the mode is chosen. */
static int par_head(par_ctx *x, uint64_t size_hint) {
    x->cur = reader_get(&x->r, 0, &x->len);
    if (!x->cur) { x->info->why = "empty or unreadable"; return -1; }
    size_t body;
    tc_split_find f = tc_split_find_events(x->cur, x->len, &body);
    if (f != TC_SPLIT_FOUND) { x->info->why = "no traceEvents array in the first buffer"; return -1; }
    if (tc_ct_parser_feed(x->p0, x->cur, body)) { x->info->why = "head did not parse"; return -1; }
    tc_trace_reserve(x->t, size_hint);
    bool learned = tc_split_learn(x->cur, x->len, body, &x->pat) == TC_SPLIT_FOUND;
    x->info->mode = learned ? TC_PAR_MODE_PATTERN : TC_PAR_MODE_STRUCTURAL;
    x->last = (int64_t)body;
    x->carry_off = x->scan_from = body;
    return 0;
}

/* Finds the boundaries in cur and parses the pieces before them; tail mode when the array ends
 * or two buffers held no boundary. -1 on failure (why set). */
static int par_split_buffer(par_ctx *x) {
    size_t n = 0;
    if (x->info->mode == TC_PAR_MODE_PATTERN) {
        size_t carry_len = x->prev ? x->prev_len - x->carry_off : 0;
        size_t from = x->prev ? (x->gap > carry_len ? x->gap - carry_len : 0) : x->carry_off + x->gap;
        size_t b;
        while (n < MAX_PIECES_PER_BUFFER && (b = tc_split_next(&x->pat, x->cur, x->len, from)) != TC_SPLIT_NONE) {
            x->bounds[n++] = b;
            from = b + x->gap;
        }
    } else {
        size_t stopped;
        n = tc_scan_run(&x->scan, x->cur, x->len, x->scan_from, &x->last, x->gap, x->bounds, MAX_PIECES_PER_BUFFER,
                        &stopped);
        if (stopped < x->len && !x->scan.ended) { x->info->why = "too many pieces"; return -1; }
        if (x->scan.ended) x->tail = true; /* the array's end lies in the carry after the last bound */
    }
    if (n > 0) {
        if (run_pieces(x, n)) return -1;
        x->carry_off = x->bounds[n - 1];
        if (x->prev) { x->batch[(x->batches - 1) % 2].releases++; x->prev = NULL; } /* its first piece reads prev */
    } else if (x->prev) {
        /* two buffers without a boundary: let the sequential parser take the rest */
        x->tail = true;
    }
    return 0;
}

/* Bytes after the last boundary go to the sequential parser p0. */
static int feed_tail(par_ctx *x, const char *p, size_t n) {
    if (tc_ct_parser_feed(x->p0, p, n)) { x->info->why = "tail did not parse"; return -1; }
    x->info->tail_bytes += n;
    return 0;
}

/* Tail mode: the carry, and everything after it in cur, go to p0; cur is released. */
static int par_feed_tail(par_ctx *x) {
    if (par_flush(x)) return -1;
    if (x->prev) {
        if (feed_tail(x, x->prev + x->carry_off, x->prev_len - x->carry_off)) return -1;
        reader_release(&x->r);
        x->prev = NULL;
        x->carry_off = 0;
    }
    if (feed_tail(x, x->cur + x->carry_off, x->len - x->carry_off)) return -1;
    reader_release(&x->r);
    x->cur = NULL;
    x->carry_off = 0;
    return 0;
}

/* Moves to the next buffer; false at the end of the data (cur is then left as it was). */
static bool par_next_buffer(par_ctx *x) {
    size_t nlen = 0;
    const char *next = reader_get(&x->r, ++x->k, &nlen);
    if (!next) return false;
    if (x->cur) {
        /* the carry moves to prev; a carry in prev only happens when cur had no boundary, and then
         * tail mode took over */
        x->prev = x->cur;
        x->prev_len = x->len;
        x->last -= (int64_t)x->len;
    }
    x->cur = next;
    x->len = nlen;
    x->scan_from = 0;
    return true;
}

/* After the last buffer: what is left of the carry (in cur: the walk did not advance) goes to p0. */
static int par_finish(par_ctx *x, tc_source *src) {
    reader *r = &x->r;
    if (par_flush(x)) return -1;
    if (r->failed || (r->fd < 0 && r->zfd < 0 && !r->gzs && tc_source_truncated(src))) { x->info->why = "source damaged"; return -1; }
    if (r->zfd >= 0) { x->info->raw_bytes = r->size; x->info->decoded_bytes = r->zdecoded; x->info->gzip_runs = r->produced; }
    else if (r->gzs) {
        x->info->raw_bytes = r->size;
        x->info->decoded_bytes = tc_gzsplit_decoded_bytes(r->gzs);
        x->info->gzip_split = r->produced;
    }
    else if (r->fd >= 0) x->info->raw_bytes = x->info->decoded_bytes = r->size;
    else { x->info->raw_bytes = tc_source_raw_bytes(src); x->info->decoded_bytes = tc_source_decoded_bytes(src); }
    if (x->cur) {
        if (feed_tail(x, x->cur + x->carry_off, x->len - x->carry_off)) return -1;
        reader_release(r);
        x->cur = NULL;
    }
    if (tc_ct_parser_finish(x->p0)) { x->info->why = "document incomplete"; return -1; }
    return 0;
}

/* The general path: every buffer split and its pieces parsed, then the rest. */
static int par_load(par_ctx *x, tc_source *src, int threads, uint64_t size_hint, tc_progress_fn progress,
                    void *progress_ctx) {
    if (par_start(x, threads) || par_head(x, size_hint)) return -1;
    do {
        if (!x->tail && par_split_buffer(x)) return -1;
        if (x->tail && par_feed_tail(x)) return -1;
        if (progress) progress(progress_ctx, reader_raw_bytes(&x->r), tc_source_file_size(src));
    } while (par_next_buffer(x));
    return par_finish(x, src);
}

static tc_par_status load_in_pieces(tc_trace *t, tc_source *src, int threads, uint64_t size_hint, const tc_read_options *opt,
                               tc_progress_fn progress, void *progress_ctx, tc_par_info *info) {
    tc_par_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    if (threads < 2) threads = 2;
    size_t gap = size_hint ? (size_t)(size_hint / ((uint64_t)threads * 16)) : MAX_PIECE;
    if (gap < MIN_PIECE) gap = MIN_PIECE;
    if (gap > MAX_PIECE) gap = MAX_PIECE;
    par_ctx x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.comm = opt ? opt->comm : NULL;
    x.info = info;
    x.gap = gap;
    reader *r = &x.r;
    r->src = src;
    r->fd = tc_source_map_fd(src, &r->size);
    r->zfd = -1;
    uint64_t zsize;
    bool zisal;
    int zfd = r->fd < 0 ? tc_source_gzip_fd(src, &zsize, &zisal) : -1;
    if (zfd >= 0 && tc_bgzf_detect(zfd, zsize)) { r->zfd = zfd; r->size = zsize; r->zisal = zisal; }
    else if (zfd >= 0 && (r->gzs = tc_gzsplit_open(zfd, zsize, zisal))) r->size = zsize;
    /* threads - 1 parse (and inflate BGZF runs) with the caller, on the shared pool when there is
     * one (the other files' pieces in the same queue); a source read by a thread takes one more:
     * beside a shared pool, in a one-thread pool of its own (a spawned reader must not wait for a
     * busy thread of the shared pool) */
    bool reads_in_thread = r->fd < 0 && r->zfd < 0 && !r->gzs;
    tc_pool *shared = opt ? opt->pool : NULL;
    x.pool = shared ? shared : tc_pool_new(threads - 1 + (reads_in_thread ? 1 : 0));
    x.rpool = shared && reads_in_thread ? tc_pool_new(1) : x.pool;
    if (!x.pool || !x.rpool) {
        tc_gzsplit_close(r->gzs);
        if (!shared) tc_pool_free(x.pool);
        info->why = "out of memory";
        return TC_PAR_FALLBACK;
    }
    r->pool = x.pool;
    if (r->gzs) tc_gzsplit_start(r->gzs, x.pool);
    if (r->fd >= 0) {
        kf_status ks = pattern_file_load(t, x.pool, r->fd, r->size, gap, x.comm, progress, progress_ctx, info);
        if (ks != KF_NO_PATTERN) {
            if (!shared) tc_pool_free(x.pool);
            return ks == KF_OK ? TC_PAR_OK : TC_PAR_FALLBACK;
        }
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    tc_par_status status = par_load(&x, src, threads, size_hint, progress, progress_ctx) ? TC_PAR_FALLBACK : TC_PAR_OK;
    par_drain(&x); /* after a failure: a batch's pieces still read the buffers */
    reader_stop(r, x.rpool);
    if (x.rpool != x.pool) tc_pool_free(x.rpool);
    if (!shared) tc_pool_free(x.pool);
    for (int i = 0; i < TC_PAR_BUFFERS; i++) free(r->buf[i]);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    tc_ct_parser_free(x.p0);
    free(x.batch[0].pieces);
    free(x.batch[1].pieces);
    free(x.bounds);
    free(x.remap);
    return status;
}

tc_par_status tc_parallel_load(tc_trace *t, tc_source *src, int threads, uint64_t size_hint, const tc_read_options *opt,
                               tc_progress_fn progress, void *progress_ctx, tc_par_info *info) {
    tc_par_status st = load_in_pieces(t, src, threads, size_hint, opt, progress, progress_ctx, info);
    /* each piece held its own op keys: one of each, as a sequential parse keeps */
    if (st == TC_PAR_OK && tc_trace_merge_op_keys(t)) {
        if (info) info->why = "out of memory";
        return TC_PAR_FALLBACK;
    }
    return st;
}
