/* gzsplit.c: speculative split of gzip files at full-flush points and member headers (see
 * gzsplit.h). Runs are pool tasks that inflate a compressed range with a fresh state; the caller
 * (tc_gzsplit_get, in order) accepts them, combines the members' CRC-32s across runs, keeps the
 * last 32 KiB of the open member for a run that must be inflated again with its window, and plans
 * the next runs: each starts at the first candidate at least `stride` compressed bytes after the
 * one before, the stride sized from the highest ratio seen so a run decodes to about
 * TC_GZS_TARGET. Invariants: run q lives in slot q % TC_GZS_RING; a slot is reused only once the
 * caller released its run; g->open says whether the runs taken so far end inside a member. */
#define _POSIX_C_SOURCE 200809L
#include "gzsplit.h"
#include "source.h"
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef TC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define WIN 32768u                  /* deflate's window */
#define FIRST_RATIO16 (64u * 16u)   /* ratio (x16) assumed before a run is done */
#define MIN_STRIDE 1024u
#define SEARCH TC_GZS_CAP           /* compressed bytes searched for the next candidate */
#define SCAN (64u * 1024u)          /* bytes read per step of the search */
#define MIN_SIZE (64u * 1024u)      /* smaller files take the stream */

enum { RUN_OK, RUN_LOOKBACK, RUN_OVERFLOW, RUN_BAD };

/* What one run decoded, by member: the first segment continues the member open at its start (or
 * begins at a header), the last one is the member open at its end. Members wholly inside are
 * checked by the run. */
typedef struct {
    int rc;
    size_t len;                      /* bytes decoded */
    uint32_t head_crc;               /* the first segment's CRC-32 and length */
    size_t head_len;
    bool head_closed;                /* the first segment ends its member: the trailer's values */
    uint32_t trailer_crc, trailer_isize;
    uint32_t tail_crc;               /* head_closed: the member open at the run's end */
    size_t tail_len;
    bool ends_open;                  /* the run ends inside a member (at a block boundary) */
} run_result;

typedef struct {
    tc_pool_task task;               /* first: the pool hands it back to run_task */
    tc_gzsplit *g;
    uint64_t from, to;
    bool at_header, submitted, done;
    unsigned char *dict;             /* WIN bytes: the window before from, in serial mode */
    size_t dict_len;
    char *out;                       /* TC_GZS_CAP bytes */
    run_result res;
} gz_run;

struct tc_gzsplit {
    int fd;
    uint64_t size;
    bool isal;
    tc_pool *pool;
    gz_run run[TC_GZS_RING];
    uint64_t planned, next_from;     /* runs planned; where the next starts */
    bool next_header;                /* it starts at a member header */
    bool end, bad;                   /* no run left to plan; planning found doubt */
    bool serial;                     /* a run was refused: each run waits for the one before */
    uint64_t ratio16;                /* highest decoded/compressed seen, x16 */
    uint32_t mcrc;                   /* the open member's CRC-32 and length so far */
    uint64_t mlen;
    bool open;
    unsigned char win[WIN];          /* the open member's last bytes */
    size_t win_len;
    uint64_t raw, decoded;
};

static uint32_t le32(const unsigned char *p) {
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The length of the complete gzip header at h[0, n), by the rules the stream applies (source.c),
 * or 0 when it is none or does not end in n. */
static size_t header_len(const unsigned char *h, size_t n) {
    if (n < 10 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || (h[3] & 0xe0)) return 0;
    unsigned flags = h[3];
    size_t at = 10;
    if (flags & 0x04) {
        if (n < at + 2) return 0;
        at += 2 + (h[at] | (size_t)h[at + 1] << 8);
    }
    for (unsigned f = 0x08; f <= 0x10; f <<= 1) /* name, comment: up to a NUL */
        if (flags & f) {
            const unsigned char *nul = at < n ? memchr(h + at, 0, n - at) : NULL;
            if (!nul) return 0;
            at = (size_t)(nul - h) + 1;
        }
    if (flags & 0x02) {
        if (n < at + 2 || (h[at] | (unsigned)h[at + 1] << 8) != (crc32(0, h, (uInt)at) & 0xffff)) return 0;
        at += 2;
    }
    return at <= n ? at : 0;
}

/* ---- one raw deflate stream with a fresh state, either engine --------------------------------- */

typedef struct {
    bool isal;
    z_stream z;
    bool z_ready;
#ifdef TC_HAVE_ISAL
    struct inflate_state *st;
#endif
} engine;

static int engine_init(engine *e, bool isal) {
    memset(e, 0, sizeof *e);
#ifdef TC_HAVE_ISAL
    if (isal) {
        e->isal = true;
        e->st = malloc(sizeof *e->st); /* heap: the state is large */
        if (!e->st) return -1;
        isal_inflate_init(e->st);
        return 0;
    }
#else
    (void)isal;
#endif
    if (inflateInit2(&e->z, -MAX_WBITS) != Z_OK) return -1;
    e->z_ready = true;
    return 0;
}

static void engine_end(engine *e) {
    if (e->z_ready) inflateEnd(&e->z);
#ifdef TC_HAVE_ISAL
    free(e->st);
#endif
}

/* Inflates the raw deflate data at in[*at, n) into out[*put, cap): 1 at the stream's end (*at
 * after its last byte), 0 when the input ended at a block boundary with no bit left over, else
 * -RUN_LOOKBACK, -RUN_OVERFLOW or -RUN_BAD. */
static int deflate_part(engine *e, const unsigned char *in, size_t n, size_t *at, char *out, size_t cap, size_t *put,
                        const unsigned char *dict, size_t dict_len) {
#ifdef TC_HAVE_ISAL
    if (e->isal) {
        struct inflate_state *st = e->st;
        isal_inflate_reset(st);
        st->crc_flag = ISAL_DEFLATE;
        if (dict_len && isal_inflate_set_dict(st, (uint8_t *)dict, (uint32_t)dict_len) != ISAL_DECOMP_OK) return -RUN_BAD;
        st->next_in = (uint8_t *)in + *at;
        st->avail_in = (uint32_t)(n - *at);
        st->next_out = (uint8_t *)out + *put;
        st->avail_out = (uint32_t)(cap - *put);
        int r = isal_inflate(st);
        *put = cap - st->avail_out;
        *at = n - st->avail_in;
        if (r == ISAL_INVALID_LOOKBACK) return -RUN_LOOKBACK;
        if (r < 0) return -RUN_BAD;
        if (st->block_state == ISAL_BLOCK_FINISH) { /* raw: the whole bytes it read ahead are not handed back */
            *at -= (size_t)st->read_in_length / 8;
            return 1;
        }
        if (st->avail_out == 0) return -RUN_OVERFLOW;
        return st->avail_in == 0 && st->block_state == ISAL_BLOCK_NEW_HDR && st->read_in_length == 0 ? 0 : -RUN_BAD;
    }
#endif
    z_stream *z = &e->z;
    if (inflateReset(z) != Z_OK) return -RUN_BAD;
    if (dict_len && inflateSetDictionary(z, dict, (uInt)dict_len) != Z_OK) return -RUN_BAD;
    z->next_in = (unsigned char *)in + *at;
    z->avail_in = (uInt)(n - *at);
    z->next_out = (unsigned char *)out + *put;
    z->avail_out = (uInt)(cap - *put);
    int r = inflate(z, Z_NO_FLUSH);
    *put = cap - z->avail_out;
    *at = n - z->avail_in;
    if (r == Z_STREAM_END) return 1;
    if (r == Z_DATA_ERROR && z->msg && strcmp(z->msg, "invalid distance too far back") == 0) return -RUN_LOOKBACK;
    if (r != Z_OK && r != Z_BUF_ERROR) return -RUN_BAD;
    if (z->avail_out == 0) return -RUN_OVERFLOW;
    /* data_type: bits left in the last byte, +128 between blocks */
    return z->avail_in == 0 && (z->data_type & 128) && (z->data_type & 7) == 0 ? 0 : -RUN_BAD;
}

/* The members' segments of one run in[0, n), decoded into out[0, cap) (see run_result). */
static void run_exec(engine *e, const unsigned char *in, size_t n, bool at_header, const unsigned char *dict,
                     size_t dict_len, char *out, size_t cap, run_result *res) {
    memset(res, 0, sizeof *res);
    size_t at = 0, put = 0;
    bool header = at_header, first = true;
    for (;;) {
        if (header) {
            size_t h = header_len(in + at, n - at);
            if (!h) { res->rc = RUN_BAD; return; }
            at += h;
        }
        size_t seg = put;
        int r = deflate_part(e, in, n, &at, out, cap, &put, first && !at_header ? dict : NULL, dict_len);
        if (r < 0) { res->rc = -r; return; }
        uint32_t crc = (uint32_t)crc32(0, (const unsigned char *)out + seg, (uInt)(put - seg));
        size_t len = put - seg;
        if (r == 0) { /* the run ends inside this member */
            if (first) { res->head_crc = crc; res->head_len = len; }
            else { res->tail_crc = crc; res->tail_len = len; }
            res->ends_open = true;
            break;
        }
        if (n - at < 8) { res->rc = RUN_BAD; return; }
        uint32_t tcrc = le32(in + at), tisize = le32(in + at + 4);
        at += 8;
        if (first) {
            res->head_crc = crc;
            res->head_len = len;
            res->head_closed = true;
            res->trailer_crc = tcrc;
            res->trailer_isize = tisize;
        } else if (crc != tcrc || (uint32_t)len != tisize) { res->rc = RUN_BAD; return; }
        first = false;
        while (at < n && in[at] == 0) at++; /* zero padding after a member, as the stream skips it */
        if (at == n) break;
        header = true;
    }
    res->len = put;
    res->rc = RUN_OK;
}

int tc_gzsplit_inflate(const unsigned char *in, size_t n, bool at_header, const unsigned char *dict, size_t dict_len,
                       char *out, size_t cap, bool isal, size_t *len) {
    engine e;
    if (engine_init(&e, isal)) return RUN_BAD;
    run_result res;
    run_exec(&e, in, n, at_header, dict, dict_len, out, cap, &res);
    engine_end(&e);
    *len = res.len;
    return res.rc;
}

/* Reads run u's compressed bytes and inflates them (dict: its window, or none). */
static void run_do(tc_gzsplit *g, gz_run *u, const unsigned char *dict, size_t dict_len) {
    size_t n = (size_t)(u->to - u->from);
    unsigned char *in = malloc(n ? n : 1);
    engine e;
    memset(&u->res, 0, sizeof u->res);
    u->res.rc = RUN_BAD;
    if (!u->out) u->out = malloc(TC_GZS_CAP);
    if (in && u->out && tc_pread_full(g->fd, in, n, u->from) == (long)n && engine_init(&e, g->isal) == 0) {
        run_exec(&e, in, n, u->at_header, dict, dict_len, u->out, TC_GZS_CAP, &u->res);
        engine_end(&e);
    }
    free(in);
}

static void run_task(tc_pool_task *task, size_t index, int worker) {
    gz_run *u = (gz_run *)task;
    (void)index;
    (void)worker;
    run_do(u->g, u, u->dict, u->dict_len);
}

/* ---- candidates --------------------------------------------------------------------------------- */

/* A full-flush point ends at b + 4 (b: the `00 00 ff ff` of an empty stored block, whose header
 * bits and zero padding leave the byte before it below 32) or a member header starts at b. */
static bool flush_at(const unsigned char *p, size_t b) { return b >= 1 && p[b - 1] < 32 && p[b] == 0 && p[b + 1] == 0 && p[b + 2] == 0xff && p[b + 3] == 0xff; }
static bool header_at(const unsigned char *p, size_t b) {
    return p[b] == 0x1f && p[b + 1] == 0x8b && p[b + 2] == 8 && !(p[b + 3] & 0xe0) && (p[b + 8] == 0 || p[b + 8] == 2 || p[b + 8] == 4) &&
           (p[b + 9] <= 13 || p[b + 9] == 255);
}

/* The first candidate at or after `from`: 1 (*at, *header), 0 when the file ends first, -1 when
 * none lies within SEARCH bytes (or a read fails). */
static int next_candidate(const tc_gzsplit *g, uint64_t from, uint64_t *at, bool *header) {
    unsigned char buf[SCAN];
    for (uint64_t off = from - 1; off < g->size && off < from + SEARCH;) { /* from - 1: the byte before */
        long got = tc_pread_full(g->fd, buf, SCAN, off);
        if (got < 0) return -1;
        size_t n = (size_t)got;
        for (size_t b = 0; b + 10 <= n; b++) {
            if (buf[b] != 0 && buf[b] != 0x1f) continue;
            if (off + b + 4 >= from && flush_at(buf, b)) { *at = off + b + 4; *header = false; return 1; }
            if (off + b >= from && header_at(buf, b)) { *at = off + b; *header = true; return 1; }
        }
        if (n < SCAN) return 0;
        off += SCAN - 10;
    }
    return from + SEARCH > g->size ? 0 : -1;
}

/* ---- planning and taking runs -------------------------------------------------------------------- */

/* Plans the next run into its slot (not submitted); false when none is left (g->end, g->bad). */
static bool plan_one(tc_gzsplit *g) {
    if (g->end || g->next_from >= g->size) { g->end = true; return false; }
    /* half the target: the next candidate may lie up to one flush interval further on */
    uint64_t stride = (uint64_t)TC_GZS_TARGET * 8 / g->ratio16, to;
    if (stride < MIN_STRIDE) stride = MIN_STRIDE;
    bool header = false;
    int c = next_candidate(g, g->next_from + stride, &to, &header);
    if (c < 0) { g->end = g->bad = true; return false; }
    if (c == 0) to = g->size;
    gz_run *u = &g->run[g->planned % TC_GZS_RING];
    char *out = u->out;
    unsigned char *dict = u->dict;
    memset(u, 0, sizeof *u);
    *u = (gz_run){.g = g, .from = g->next_from, .to = to, .at_header = g->next_header, .out = out, .dict = dict};
    g->planned++;
    g->next_from = to;
    g->next_header = header;
    if (c == 0) g->end = true;
    return true;
}

static void submit(tc_gzsplit *g, gz_run *u) {
    u->submitted = true;
    tc_pool_submit(g->pool, &u->task, run_task, 1);
}

/* Plans (and, speculating, submits) runs while their slots are free. */
static void plan(tc_gzsplit *g, uint64_t released) {
    while (g->planned < released + TC_GZS_RING && plan_one(g))
        if (!g->serial && g->pool) submit(g, &g->run[(g->planned - 1) % TC_GZS_RING]);
}

tc_gzsplit *tc_gzsplit_open(int fd, uint64_t size, bool isal) {
    unsigned char h[512];
    long got = size >= MIN_SIZE ? tc_pread_full(fd, h, sizeof h, 0) : -1;
    if (got < 0 || !header_len(h, (size_t)got)) return NULL;
    tc_gzsplit *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    *g = (tc_gzsplit){.fd = fd, .size = size, .isal = isal, .next_header = true, .ratio16 = FIRST_RATIO16};
    /* runs 0 and 1 planned; run 1, the first that starts at a candidate, inflated here */
    if (!plan_one(g) || !plan_one(g)) { tc_gzsplit_close(g); return NULL; }
    gz_run *u = &g->run[1];
    run_do(g, u, NULL, 0);
    if (u->res.rc != RUN_OK) { tc_gzsplit_close(g); return NULL; }
    u->done = true;
    return g;
}

void tc_gzsplit_start(tc_gzsplit *g, tc_pool *pool) {
    g->pool = pool;
    submit(g, &g->run[0]);
    plan(g, 0);
}

/* Serial mode: run u (the one before it taken) goes to the pool with the window it continues
 * (none when it starts at a member header); false on doubt. */
static bool submit_with_window(tc_gzsplit *g, gz_run *u) {
    if (u->at_header == g->open) return false;
    if (!u->at_header) {
        if (!u->dict) u->dict = malloc(WIN);
        if (!u->dict) return false;
        memcpy(u->dict, g->win, g->win_len);
        u->dict_len = g->win_len;
    }
    submit(g, u);
    return true;
}

/* Takes run u's result into the members' state: false on doubt. */
static bool accept_run(tc_gzsplit *g, gz_run *u) {
    run_result *s = &u->res;
    if (s->rc != RUN_OK || u->at_header == g->open) return false;
    if (u->at_header) { g->mcrc = 0; g->mlen = 0; g->win_len = 0; }
    g->mcrc = (uint32_t)crc32_combine(g->mcrc, s->head_crc, (z_off_t)s->head_len);
    g->mlen += s->head_len;
    if (s->head_closed) {
        if (g->mcrc != s->trailer_crc || (uint32_t)g->mlen != s->trailer_isize) return false;
        g->mcrc = s->tail_crc;
        g->mlen = s->tail_len;
        g->win_len = 0;
    }
    g->open = s->ends_open;
    /* the window: the last WIN bytes of the open member */
    size_t mine = s->head_closed ? s->tail_len : s->len;
    if (mine >= WIN) {
        memcpy(g->win, u->out + s->len - WIN, WIN);
        g->win_len = WIN;
    } else {
        size_t keep = g->win_len + mine > WIN ? WIN - mine : g->win_len;
        memmove(g->win, g->win + g->win_len - keep, keep);
        memcpy(g->win + keep, u->out + s->len - mine, mine);
        g->win_len = keep + mine;
    }
    uint64_t r16 = (uint64_t)s->len * 16 / (u->to - u->from + 1);
    if (r16 > g->ratio16) g->ratio16 = r16;
    g->raw = u->to;
    g->decoded += s->len;
    return true;
}

const char *tc_gzsplit_get(tc_gzsplit *g, uint64_t k, uint64_t released, size_t *len, bool *failed) {
    plan(g, released);
    *failed = false;
    if (k >= g->planned) { *failed = g->bad || g->open; return NULL; }
    gz_run *u = &g->run[k % TC_GZS_RING];
    if (!u->submitted && !u->done) { /* serial mode, planned before the window was known */
        if (!submit_with_window(g, u)) { *failed = true; return NULL; }
    }
    if (u->submitted) tc_pool_wait(g->pool, &u->task);
    u->submitted = false;
    if (u->res.rc == RUN_LOOKBACK && !u->at_header && g->open && !u->dict_len) {
        /* refused: the run reaches into the window before it; from now on each run gets it */
        g->serial = true;
        run_do(g, u, g->win, g->win_len);
    }
    u->done = true;
    if (!accept_run(g, u)) { *failed = true; return NULL; }
    plan(g, released);
    gz_run *next = &g->run[(k + 1) % TC_GZS_RING];
    if (g->serial && k + 1 < g->planned && !next->submitted && !next->done && !submit_with_window(g, next)) {
        *failed = true;
        return NULL;
    }
    *len = u->res.len;
    return u->out;
}

uint64_t tc_gzsplit_raw_bytes(const tc_gzsplit *g) { return g->raw; }
uint64_t tc_gzsplit_decoded_bytes(const tc_gzsplit *g) { return g->decoded; }

void tc_gzsplit_close(tc_gzsplit *g) {
    if (!g) return;
    for (int i = 0; i < TC_GZS_RING; i++) {
        if (g->run[i].submitted) tc_pool_wait(g->pool, &g->run[i].task);
        free(g->run[i].out);
        free(g->run[i].dict);
    }
    free(g);
}
