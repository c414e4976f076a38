/* parallel.c: multi-threaded parse of one trace's event array (see parallel.h). Two paths:
 * - plain files in Kineto layout (kineto_file_load): the caller finds boundaries with small reads,
 *   queues pieces in a ring, merges finished ones in order and parses when there is nothing to
 *   merge; threads-1 workers parse. Each piece is read by its parser.
 * - everything else: one reader (source -> ring of TC_PAR_BUFFERS buffers, or mapped windows), the
 *   caller (splits buffers into pieces, merges results, feeds the head and tail to the sequential
 *   parser p0) and threads-1 pool workers; the caller parses pieces too. Invariants: the caller
 *   holds at most two buffers (the current one and the previous one while the unparsed carry
 *   starts in it); pieces of one buffer are all parsed and merged, in order, before the next
 *   buffer is split. */
#define _POSIX_C_SOURCE 200809L
#include "parallel.h"
#include "chrome_trace.h"
#include "split.h"
#include "base/util.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIN_PIECE (4u * 1024u)
#define MAX_PIECE (2u * 1024u * 1024u)
#define MAX_PIECES_PER_BUFFER (TC_PAR_WINDOW / MIN_PIECE + 2)

/* ---- reader thread: source -> ring of buffers ---------------------------------------------- */

typedef struct {
    tc_source *src;
    /* plain regular files are mapped window by window instead (no thread, no copy) */
    int fd;                      /* -1: use the thread and buffers */
    uint64_t size;               /* file size, for mapping */
    char *map[TC_PAR_BUFFERS];   /* mapped window of buffer number k at k % N */
    size_t map_len[TC_PAR_BUFFERS];
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *buf[TC_PAR_BUFFERS];
    size_t len[TC_PAR_BUFFERS];
    uint64_t produced, released; /* buffers filled / handed back; ring slot = count % N */
    bool eof, failed, stop;
    uint64_t raw_bytes;          /* source bytes read so far */
} reader;

static void *reader_main(void *arg) {
    reader *r = arg;
    char err[512];
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
    return NULL;
}

/* Buffer number k, or NULL at the end (check r->failed). */
static const char *reader_get(reader *r, uint64_t k, size_t *len) {
    if (r->fd >= 0) {
        uint64_t off = k * (uint64_t)TC_PAR_WINDOW;
        if (off >= r->size) return NULL;
        size_t n = r->size - off < TC_PAR_WINDOW ? (size_t)(r->size - off) : TC_PAR_WINDOW;
        void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, r->fd, (off_t)off);
        if (m == MAP_FAILED) { r->failed = true; return NULL; }
        r->map[k % TC_PAR_BUFFERS] = m;
        r->map_len[k % TC_PAR_BUFFERS] = n;
        r->produced = k + 1;
        r->raw_bytes = off + n;
        *len = n;
        return m;
    }
    pthread_mutex_lock(&r->mu);
    while (r->produced <= k && !r->eof && !r->failed) pthread_cond_wait(&r->cv, &r->mu);
    const char *b = NULL;
    if (r->produced > k) { b = r->buf[k % TC_PAR_BUFFERS]; *len = r->len[k % TC_PAR_BUFFERS]; }
    pthread_mutex_unlock(&r->mu);
    return b;
}

static void reader_release(reader *r) {
    if (r->fd >= 0) {
        size_t slot = (size_t)(r->released++ % TC_PAR_BUFFERS);
        munmap(r->map[slot], r->map_len[slot]);
        r->map[slot] = NULL;
        return;
    }
    pthread_mutex_lock(&r->mu);
    r->released++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void reader_stop(reader *r) {
    for (int i = 0; i < TC_PAR_BUFFERS; i++)
        if (r->map[i]) { munmap(r->map[i], r->map_len[i]); r->map[i] = NULL; }
    if (!r->started) return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    r->started = false;
}

/* ---- pieces and the worker pool ------------------------------------------------------------ */

typedef struct {
    const char *seg[2];
    size_t seg_len[2]; /* the last segment ends with the comma before the next piece */
    tc_trace t;        /* partial trace of this piece */
    tc_ct_parser *p;
    bool ok;
} piece;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    pthread_t *threads;
    int n_threads;
    piece *pieces;
    size_t n_pieces, next, finished;
    bool quit;
} pool;

static void parse_piece(piece *c) {
    c->ok = false;
    c->p = NULL;
    if (tc_trace_init(&c->t, NULL)) return;
    int last = c->seg_len[1] ? 1 : 0;
    size_t trimmed = tc_split_trim_comma(c->seg[last], c->seg_len[last]);
    if (trimmed == TC_SPLIT_NONE) return;
    c->p = tc_ct_parser_new_events(&c->t);
    if (!c->p) return;
    if (tc_ct_parser_feed(c->p, "[", 1)) return;
    if (last == 1 && tc_ct_parser_feed(c->p, c->seg[0], c->seg_len[0])) return;
    if (tc_ct_parser_feed(c->p, c->seg[last], trimmed)) return;
    if (tc_ct_parser_feed(c->p, "]", 1)) return;
    if (tc_ct_parser_finish(c->p)) return;
    c->ok = true;
}

static void *pool_main(void *arg) {
    pool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        while (!pl->quit && pl->next >= pl->n_pieces) pthread_cond_wait(&pl->work, &pl->mu);
        if (pl->quit) break;
        piece *c = &pl->pieces[pl->next++];
        pthread_mutex_unlock(&pl->mu);
        parse_piece(c);
        pthread_mutex_lock(&pl->mu);
        if (++pl->finished == pl->n_pieces) pthread_cond_signal(&pl->done);
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

/* Parses pieces[0, n) on the pool and the calling thread; returns when all are done. */
static void pool_run(pool *pl, piece *pieces, size_t n) {
    pthread_mutex_lock(&pl->mu);
    pl->pieces = pieces;
    pl->n_pieces = n;
    pl->next = pl->finished = 0;
    pthread_cond_broadcast(&pl->work);
    while (pl->next < pl->n_pieces) {
        piece *c = &pl->pieces[pl->next++];
        pthread_mutex_unlock(&pl->mu);
        parse_piece(c);
        pthread_mutex_lock(&pl->mu);
        pl->finished++;
    }
    while (pl->finished < pl->n_pieces) pthread_cond_wait(&pl->done, &pl->mu);
    pl->pieces = NULL;
    pl->n_pieces = pl->next = pl->finished = 0;
    pthread_mutex_unlock(&pl->mu);
}

static void pool_stop(pool *pl) {
    pthread_mutex_lock(&pl->mu);
    pl->quit = true;
    pthread_cond_broadcast(&pl->work);
    pthread_mutex_unlock(&pl->mu);
    for (int i = 0; i < pl->n_threads; i++) pthread_join(pl->threads[i], NULL);
    free(pl->threads);
    pthread_cond_destroy(&pl->work);
    pthread_cond_destroy(&pl->done);
    pthread_mutex_destroy(&pl->mu);
}

static int pool_start(pool *pl, int workers) {
    memset(pl, 0, sizeof *pl);
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->work, NULL);
    pthread_cond_init(&pl->done, NULL);
    pl->threads = calloc((size_t)(workers > 0 ? workers : 1), sizeof *pl->threads);
    if (!pl->threads) return -1;
    for (int i = 0; i < workers; i++) {
        if (pthread_create(&pl->threads[i], NULL, pool_main, pl)) break;
        pl->n_threads++;
    }
    return 0;
}

/* ---- merging a piece's partial trace into the main one ------------------------------------- */

static int append(void **dst, size_t *len, size_t *cap, const void *src, size_t n, size_t elem) {
    if (n == 0) return 0;
    if (tc_grow(dst, cap, *len + n, elem)) return -1;
    tc_prefault((char *)*dst + *len * elem, n * elem);
    memcpy((char *)*dst + *len * elem, src, n * elem);
    *len += n;
    return 0;
}

#define APPEND(dst, from)                                                                       \
    append((void **)&t->dst, &t->n_##dst, &t->cap_##dst, src->from, src->n_##from, sizeof *t->dst)

static uint32_t map_id(const uint32_t *remap, uint32_t id) { return id == TC_NONE ? TC_NONE : remap[id]; }

/* Appends a piece's partial trace src (parsed by src_p) to t, re-interning its names in t's table. Interning in id order keeps
 * first-appearance order, so t's ids are those a sequential parse gives. */
static int merge_partial(tc_trace *t, tc_ct_parser *p0, const tc_trace *src, const tc_ct_parser *src_p,
                         uint32_t **remap, size_t *remap_cap) {
    size_t ns = tc_strtab_count(src->strings);
    if (ns > *remap_cap) {
        uint32_t *r = realloc(*remap, ns * sizeof *r);
        if (!r) return -1;
        *remap = r;
        *remap_cap = ns;
    }
    uint32_t *m = *remap;
    for (size_t i = 0; i < ns; i++) {
        m[i] = tc_strtab_intern(t->strings, tc_strtab_get(src->strings, (uint32_t)i),
                                tc_strtab_len(src->strings, (uint32_t)i));
        if (m[i] == TC_NONE) return -1;
    }
    size_t coll_base = t->n_colls, gpu_base = t->n_gpu, ops_base = t->n_ops;
    if (APPEND(gpu, gpu) || APPEND(colls, colls) || APPEND(launches, launches) || APPEND(cpu_steps, cpu_steps) ||
        APPEND(gpu_steps, gpu_steps) || APPEND(ops, ops) || APPEND(devices, devices))
        return -1;
    for (size_t i = gpu_base; i < t->n_gpu; i++) {
        tc_gpu_event *g = &t->gpu[i];
        g->name = map_id(m, g->name);
        g->stream = map_id(m, g->stream);
        if (g->coll != TC_NONE) g->coll += (uint32_t)coll_base;
    }
    for (size_t i = coll_base; i < t->n_colls; i++) {
        tc_coll_args *a = &t->colls[i];
        a->coll_name = map_id(m, a->coll_name);
        a->dtype = map_id(m, a->dtype);
        a->pg_name = map_id(m, a->pg_name);
        a->pg_desc = map_id(m, a->pg_desc);
        a->pg_ranks = map_id(m, a->pg_ranks);
    }
    for (size_t i = ops_base; i < t->n_ops; i++) {
        t->ops[i].name = map_id(m, t->ops[i].name); /* dtype is a tc_dtype value, not a string id */
    }
    for (size_t i = t->n_devices - src->n_devices; i < t->n_devices; i++) t->devices[i].name = map_id(m, t->devices[i].name);
    t->events_total += src->events_total;
    t->events_skipped += src->events_skipped;
    t->ops_with_shapes += src->ops_with_shapes;
    t->ops_without_shapes += src->ops_without_shapes;
    t->warnings_dropped += src->warnings_dropped;
    for (size_t i = 0; i < src->n_warnings; i++) tc_trace_warn(t, "%s", src->warnings[i]);
    tc_ct_parser_absorb(p0, src_p);
    return 0;
}

static void free_pieces(piece *pieces, size_t n) {
    for (size_t i = 0; i < n; i++) {
        tc_ct_parser_free(pieces[i].p);
        tc_trace_free(&pieces[i].t);
    }
}


/* ---- plain files in Kineto layout: each piece read by the thread that parses it --------------
 * Reading a piece in small slices right before parsing them keeps the bytes yajl reads in that
 * core's cache; parsing from a mapped window or a shared 2 MB buffer made yajl a quarter slower
 * (bench/README: "where the time went"). The calling thread finds boundaries with small reads at
 * `gap` strides, merges finished pieces in order and parses pieces when there is nothing to
 * merge; threads-1 workers parse. At most FILE_INFLIGHT_PER_THREAD pieces per thread are queued or
 * parsed but not yet merged. */

#define FILE_SLICE (64u * 1024u)  /* bytes read and fed per step: stays in L2 */
#define FILE_SCAN (4u * 1024u)    /* bytes read per step when looking for a boundary (events are ~300 B) */
#define FILE_HEAD_MAX (16u * 1024u * 1024u) /* metadata before traceEvents we read to find it */
#define FILE_INFLIGHT_PER_THREAD 4

typedef enum { FP_QUEUED, FP_PARSING, FP_DONE } fpiece_state;

typedef struct {
    uint64_t from, to; /* file offsets: the piece's events, from after the '[' or a boundary's
                        * '{' to just after the '}' before the next boundary's comma */
    tc_trace t;
    tc_ct_parser *p;
    fpiece_state state;
    bool ok;
} fpiece;

typedef struct {
    int fd;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    fpiece *ring;
    size_t cap;
    uint64_t queued, claimed, merged; /* pieces put in the ring / taken by a parser / merged */
    bool quit;
    pthread_t *threads;
    int n_threads;
} fpool;

/* Reads exactly n bytes at off (fewer only at the end of the file); -1 on a read error. */
static long pread_full(int fd, char *buf, size_t n, uint64_t off) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (long)got;
}

static void parse_fpiece(int fd, fpiece *c, char *slice) {
    c->ok = false;
    c->p = NULL;
    if (tc_trace_init(&c->t, NULL)) return;
    c->p = tc_ct_parser_new_events(&c->t);
    if (!c->p || tc_ct_parser_feed(c->p, "[", 1)) return;
    for (uint64_t off = c->from; off < c->to;) {
        size_t want = c->to - off < FILE_SLICE ? (size_t)(c->to - off) : FILE_SLICE;
        long n = pread_full(fd, slice, want, off);
        if (n != (long)want) return; /* the file shrank or failed under us */
        if (tc_ct_parser_feed(c->p, slice, want)) return;
        off += want;
    }
    if (tc_ct_parser_feed(c->p, "]", 1) || tc_ct_parser_finish(c->p)) return;
    c->ok = true;
}

/* Takes the next queued piece (lock held); NULL when none is waiting. */
static fpiece *fpool_claim(fpool *fp) {
    if (fp->claimed >= fp->queued) return NULL;
    fpiece *c = &fp->ring[fp->claimed++ % fp->cap];
    c->state = FP_PARSING;
    return c;
}

static void *fpool_main(void *arg) {
    fpool *fp = arg;
    char *slice = malloc(FILE_SLICE);
    pthread_mutex_lock(&fp->mu);
    for (;;) {
        fpiece *c = NULL;
        while (!fp->quit && !(c = fpool_claim(fp))) pthread_cond_wait(&fp->cv, &fp->mu);
        if (!c) break;
        pthread_mutex_unlock(&fp->mu);
        if (slice) parse_fpiece(fp->fd, c, slice);
        else c->ok = false;
        pthread_mutex_lock(&fp->mu);
        c->state = FP_DONE;
        pthread_cond_broadcast(&fp->cv);
    }
    pthread_mutex_unlock(&fp->mu);
    free(slice);
    return NULL;
}

/* File offset of the next Kineto boundary's '{' at or after `from`; TC_SPLIT_NONE at the end of
 * the file or on a read error (*failed). */
static uint64_t next_file_boundary(int fd, char *scan, uint64_t from, bool *failed) {
    static const size_t overlap = 6; /* the pattern's length - 1: a match across two reads */
    for (uint64_t off = from;;) {
        long n = pread_full(fd, scan, FILE_SCAN, off);
        if (n < 0) { *failed = true; return TC_SPLIT_NONE; }
        size_t b = tc_split_kineto_next(scan, (size_t)n, 0);
        if (b != TC_SPLIT_NONE) return off + b;
        if ((size_t)n < FILE_SCAN) return TC_SPLIT_NONE;
        off += FILE_SCAN - overlap;
    }
}

typedef enum { KF_OK, KF_FALLBACK, KF_NOT_KINETO } kf_status;

/* The plain-file path. KF_NOT_KINETO: nothing was done (t untouched), use the general path. */
static kf_status kineto_file_load(tc_trace *t, int fd, uint64_t size, int threads, size_t gap,
                                  tc_progress_fn progress, void *progress_ctx, tc_par_info *info) {
    size_t head_cap = size < FILE_HEAD_MAX ? (size_t)size : FILE_HEAD_MAX;
    char *head = malloc(head_cap), *slice = malloc(FILE_SLICE), *scan = malloc(FILE_SCAN);
    kf_status status = KF_NOT_KINETO;
    fpool fp;
    memset(&fp, 0, sizeof fp);
    tc_ct_parser *p0 = NULL;
    uint32_t *remap = NULL;
    size_t remap_cap = 0;
    bool pool_up = false;
    if (!head || !slice || !scan) goto out;
    /* the head: the metadata before the events array, read until the array's '[' is seen */
    size_t head_len = 0, body = 0;
    tc_split_find f = TC_SPLIT_NEED_MORE;
    while (f == TC_SPLIT_NEED_MORE && head_len < head_cap) {
        /* 64 KiB (the array's start and its first boundaries), then doubling: the head is scanned
         * from its start after each read */
        size_t step = head_len > FILE_SLICE ? head_len : FILE_SLICE;
        size_t want = head_cap - head_len < step ? head_cap - head_len : step;
        long n = pread_full(fd, head + head_len, want, head_len);
        if (n <= 0) goto out;
        head_len += (size_t)n;
        f = tc_split_find_events(head, head_len, &body);
    }
    if (f != TC_SPLIT_FOUND || tc_split_kineto_next(head, head_len, body) == TC_SPLIT_NONE) goto out;

    status = KF_FALLBACK;
    info->mode = TC_PAR_MODE_KINETO;
    p0 = tc_ct_parser_new(t);
    if (!p0) { info->why = "out of memory"; goto out; }
    if (tc_ct_parser_feed(p0, head, body)) { info->why = "head did not parse"; goto out; }
    tc_trace_reserve(t, size);
    fp.fd = fd;
    fp.cap = (size_t)threads * FILE_INFLIGHT_PER_THREAD;
    fp.ring = calloc(fp.cap, sizeof *fp.ring);
    fp.threads = calloc((size_t)threads, sizeof *fp.threads);
    if (!fp.ring || !fp.threads) { info->why = "out of memory"; goto out; }
    pthread_mutex_init(&fp.mu, NULL);
    pthread_cond_init(&fp.cv, NULL);
    pool_up = true;
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&fp.threads[i], NULL, fpool_main, &fp)) break;
        fp.n_threads++;
    }

    uint64_t next_from = body; /* where the next piece starts */
    bool producing = true, failed = false;
    pthread_mutex_lock(&fp.mu);
    for (;;) {
        if (producing && fp.queued - fp.merged < fp.cap) {
            pthread_mutex_unlock(&fp.mu);
            uint64_t b = next_file_boundary(fd, scan, next_from + gap, &failed);
            pthread_mutex_lock(&fp.mu);
            if (failed) break;
            if (b == TC_SPLIT_NONE) { producing = false; continue; }
            fpiece *c = &fp.ring[fp.queued % fp.cap];
            memset(c, 0, sizeof *c);
            c->from = next_from;
            c->to = b - 4; /* just after the '}' of "},\n  {" */
            c->state = FP_QUEUED;
            fp.queued++;
            next_from = b;
            pthread_cond_broadcast(&fp.cv);
            continue;
        }
        if (fp.merged < fp.queued && fp.ring[fp.merged % fp.cap].state == FP_DONE) {
            fpiece *c = &fp.ring[fp.merged % fp.cap];
            pthread_mutex_unlock(&fp.mu);
            bool ok = c->ok && merge_partial(t, p0, &c->t, c->p, &remap, &remap_cap) == 0;
            if (!c->ok) info->why = "a piece did not parse";
            else if (!ok) info->why = "out of memory";
            uint64_t done_to = c->to;
            tc_ct_parser_free(c->p);
            tc_trace_free(&c->t);
            c->p = NULL;
            pthread_mutex_lock(&fp.mu);
            if (!ok) { failed = true; break; }
            fp.merged++;
            info->pieces++;
            pthread_cond_broadcast(&fp.cv);
            if (progress) {
                pthread_mutex_unlock(&fp.mu);
                progress(progress_ctx, done_to, size);
                pthread_mutex_lock(&fp.mu);
            }
            continue;
        }
        fpiece *c = fpool_claim(&fp);
        if (c) {
            pthread_mutex_unlock(&fp.mu);
            parse_fpiece(fd, c, slice);
            pthread_mutex_lock(&fp.mu);
            c->state = FP_DONE;
            continue;
        }
        if (!producing && fp.merged == fp.queued) break;
        pthread_cond_wait(&fp.cv, &fp.mu);
    }
    fp.quit = true;
    pthread_cond_broadcast(&fp.cv);
    pthread_mutex_unlock(&fp.mu);
    if (failed) { if (!info->why) info->why = "read error"; goto out; }
    /* the tail: the last events, the array's end and any metadata after it */
    for (uint64_t off = next_from; off < size;) {
        size_t want = size - off < FILE_SLICE ? (size_t)(size - off) : FILE_SLICE;
        long n = pread_full(fd, slice, want, off);
        if (n != (long)want) { info->why = "read error"; goto out; }
        if (tc_ct_parser_feed(p0, slice, want)) { info->why = "tail did not parse"; goto out; }
        info->tail_bytes += want;
        off += want;
    }
    if (tc_ct_parser_finish(p0)) { info->why = "document incomplete"; goto out; }
    info->raw_bytes = info->decoded_bytes = size;
    status = KF_OK;
out:
    if (pool_up) {
        pthread_mutex_lock(&fp.mu);
        fp.quit = true;
        pthread_cond_broadcast(&fp.cv);
        pthread_mutex_unlock(&fp.mu);
        for (int i = 0; i < fp.n_threads; i++) pthread_join(fp.threads[i], NULL);
        for (uint64_t k = fp.merged; k < fp.queued; k++) { /* pieces left by a failure */
            fpiece *c = &fp.ring[k % fp.cap];
            tc_ct_parser_free(c->p);
            tc_trace_free(&c->t);
        }
        pthread_cond_destroy(&fp.cv);
        pthread_mutex_destroy(&fp.mu);
    }
    free(fp.ring);
    free(fp.threads);
    tc_ct_parser_free(p0);
    free(remap);
    free(head);
    free(slice);
    free(scan);
    return status;
}

/* ---- the caller's loop ------------------------------------------------------------------------ */

typedef struct {
    tc_trace *t;
    tc_ct_parser *p0;
    reader r;
    pool pl;
    piece *pieces;
    size_t *bounds;
    uint32_t *remap;
    size_t remap_cap;
    tc_par_info *info;
} par_ctx;

/* Parses the pieces between the carry (prev[carry_off..] when prev, else cur[carry_off..]) and
 * bounds[0..n) in cur, and merges them. -1 on any failure. */
static int run_pieces(par_ctx *x, const char *prev, size_t prev_len, const char *cur, size_t carry_off, size_t n) {
    for (size_t i = 0; i < n; i++) {
        piece *c = &x->pieces[i];
        memset(c, 0, sizeof *c);
        size_t from = i == 0 ? (prev ? 0 : carry_off) : x->bounds[i - 1];
        if (i == 0 && prev) {
            c->seg[0] = prev + carry_off;
            c->seg_len[0] = prev_len - carry_off;
            c->seg[1] = cur;
            c->seg_len[1] = x->bounds[0];
            if (c->seg_len[1] == 0) { c->seg[1] = NULL; } /* cannot happen: a bound is after a comma */
        } else {
            c->seg[0] = cur + from;
            c->seg_len[0] = x->bounds[i] - from;
        }
    }
    pool_run(&x->pl, x->pieces, n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!x->pieces[i].ok) { x->info->why = "a piece did not parse"; rc = -1; break; }
        if (merge_partial(x->t, x->p0, &x->pieces[i].t, x->pieces[i].p, &x->remap, &x->remap_cap)) { x->info->why = "out of memory"; rc = -1; }
    }
    x->info->pieces += n;
    free_pieces(x->pieces, n);
    return rc;
}

tc_par_status tc_parallel_load(tc_trace *t, tc_source *src, int threads, uint64_t size_hint,
                               tc_progress_fn progress, void *progress_ctx, tc_par_info *info) {
    tc_par_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    par_ctx x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.info = info;
    tc_par_status status = TC_PAR_FALLBACK;
    bool pool_up = false;
    if (threads < 2) threads = 2;
    size_t gap = size_hint ? (size_t)(size_hint / ((uint64_t)threads * 16)) : MAX_PIECE;
    if (gap < MIN_PIECE) gap = MIN_PIECE;
    if (gap > MAX_PIECE) gap = MAX_PIECE;

    reader *r = &x.r;
    r->src = src;
    r->fd = tc_source_map_fd(src, &r->size);
    if (r->fd >= 0) {
        kf_status ks = kineto_file_load(t, r->fd, r->size, threads, gap, progress, progress_ctx, info);
        if (ks != KF_NOT_KINETO) return ks == KF_OK ? TC_PAR_OK : TC_PAR_FALLBACK;
    }
    /* at least two pieces per thread in each buffer, or the threads wait on each other */
    size_t per_buffer = (r->fd >= 0 ? TC_PAR_WINDOW : TC_PAR_BUFFER) / ((size_t)threads * 2);
    if (gap > per_buffer) gap = per_buffer > MIN_PIECE ? per_buffer : MIN_PIECE;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    x.pieces = calloc(MAX_PIECES_PER_BUFFER, sizeof *x.pieces);
    x.bounds = calloc(MAX_PIECES_PER_BUFFER, sizeof *x.bounds);
    x.p0 = tc_ct_parser_new(t);
    bool bufs_ok = true;
    for (int i = 0; r->fd < 0 && i < TC_PAR_BUFFERS; i++)
        if (!(r->buf[i] = malloc(TC_PAR_BUFFER))) bufs_ok = false;
    if (!x.pieces || !x.bounds || !x.p0 || !bufs_ok) { info->why = "out of memory"; goto out; }
    if (r->fd < 0) {
        if (pthread_create(&r->thread, NULL, reader_main, r)) { info->why = "no thread"; goto out; }
        r->started = true;
    }
    if (pool_start(&x.pl, threads - 1)) { info->why = "no thread"; goto out; }
    pool_up = true;

    uint64_t k = 0;
    size_t len = 0, prev_len = 0;
    const char *cur = reader_get(r, k, &len), *prev = NULL;
    if (!cur) { info->why = "empty or unreadable"; goto out; }
    size_t body;
    tc_split_find f = tc_split_find_events(cur, len, &body);
    if (f != TC_SPLIT_FOUND) { info->why = "no traceEvents array in the first buffer"; goto out; }
    if (tc_ct_parser_feed(x.p0, cur, body)) { info->why = "head did not parse"; goto out; }
    tc_trace_reserve(t, size_hint);
    info->mode = tc_split_kineto_next(cur, len, body) != TC_SPLIT_NONE ? TC_PAR_MODE_KINETO : TC_PAR_MODE_STRUCTURAL;
    tc_scan scan;
    memset(&scan, 0, sizeof scan);
    int64_t last = (int64_t)body;  /* last boundary, relative to cur */
    size_t carry_off = body;       /* unparsed data starts here, in prev when prev != NULL */
    size_t scan_from = body;       /* structural scan resumes here in cur */
    bool tail = false;             /* from the carry on, everything goes to p0 */

    for (;;) {
        if (!tail) {
            size_t n = 0;
            if (info->mode == TC_PAR_MODE_KINETO) {
                size_t carry_len = prev ? prev_len - carry_off : 0;
                size_t from = prev ? (gap > carry_len ? gap - carry_len : 0) : carry_off + gap;
                size_t b;
                while (n < MAX_PIECES_PER_BUFFER && (b = tc_split_kineto_next(cur, len, from)) != TC_SPLIT_NONE) {
                    x.bounds[n++] = b;
                    from = b + gap;
                }
            } else {
                size_t stopped;
                n = tc_scan_run(&scan, cur, len, scan_from, &last, gap, x.bounds, MAX_PIECES_PER_BUFFER, &stopped);
                if (stopped < len && !scan.ended) { info->why = "too many pieces"; goto out; }
                if (scan.ended) tail = true; /* the array's end lies in the carry after the last bound */
            }
            if (n > 0) {
                if (run_pieces(&x, prev, prev_len, cur, carry_off, n)) goto out;
                carry_off = x.bounds[n - 1];
                if (prev) { reader_release(r); prev = NULL; }
            } else if (prev) {
                /* two buffers without a boundary: let the sequential parser take the rest */
                tail = true;
            }
        }
        if (tail) {
            /* feed the carry, and everything after it, to p0 */
            if (prev) {
                if (tc_ct_parser_feed(x.p0, prev + carry_off, prev_len - carry_off)) { info->why = "tail did not parse"; goto out; }
                info->tail_bytes += prev_len - carry_off;
                reader_release(r);
                prev = NULL;
                carry_off = 0;
            }
            if (tc_ct_parser_feed(x.p0, cur + carry_off, len - carry_off)) { info->why = "tail did not parse"; goto out; }
            info->tail_bytes += len - carry_off;
            reader_release(r);
            cur = NULL;
            carry_off = 0;
        }
        if (progress) {
            pthread_mutex_lock(&r->mu);
            uint64_t raw = r->raw_bytes;
            pthread_mutex_unlock(&r->mu);
            if (r->fd >= 0) raw = r->raw_bytes;
            progress(progress_ctx, raw, tc_source_file_size(src));
        }
        /* next buffer */
        size_t nlen = 0;
        const char *next = reader_get(r, ++k, &nlen);
        if (!next) break;
        if (cur) {
            /* the carry moves to prev; a carry in prev only happens when cur had no boundary,
             * and then tail mode took over above */
            prev = cur;
            prev_len = len;
            last -= (int64_t)len;
        }
        cur = next;
        len = nlen;
        scan_from = 0;
    }
    if (r->failed || (r->fd < 0 && tc_source_truncated(src))) { info->why = "source damaged"; goto out; }
    if (r->fd >= 0) info->raw_bytes = info->decoded_bytes = r->size;
    else { info->raw_bytes = tc_source_raw_bytes(src); info->decoded_bytes = tc_source_decoded_bytes(src); }
    /* end of data: what is left of the carry (in cur: the loop did not advance) goes to p0 */
    if (cur) {
        if (tc_ct_parser_feed(x.p0, cur + carry_off, len - carry_off)) { info->why = "tail did not parse"; goto out; }
        info->tail_bytes += len - carry_off;
        reader_release(r);
        cur = NULL;
    }
    if (tc_ct_parser_finish(x.p0)) { info->why = "document incomplete"; goto out; }
    status = TC_PAR_OK;
out:
    if (pool_up) pool_stop(&x.pl);
    reader_stop(r);
    for (int i = 0; i < TC_PAR_BUFFERS; i++) free(r->buf[i]);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    tc_ct_parser_free(x.p0);
    free(x.pieces);
    free(x.bounds);
    free(x.remap);
    return status;
}
