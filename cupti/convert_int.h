/* convert_int.h: private to the converter's files (convert_doc.c: the converter's life, the JSON text
 * and closing a document; convert_events.c: each record kind to its events): the limits, the
 * state of a tc_conv and the output buffer's writers (inline: they run for every field of every
 * event). Not for the tracer or tests: they use convert.h. */
#ifndef TC_CUPTI_CONVERT_INT_H
#define TC_CUPTI_CONVERT_INT_H
#include "convert.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTBUF_SIZE (64 * 1024)
#define MAX_DEVICES 64
#define MAX_CONTEXTS 256
#define EXTCORR_SLOTS 16384 /* direct-mapped correlation -> external id cache (lossy) */
#define MAX_OPEN_MARKERS 4096
#define SEEN_SLOTS 4096     /* (pid, tid) pairs remembered for metadata events per window */
#define NAME_CACHE 2048     /* API names cached per domain, by cbid */

typedef struct device_info {
    uint32_t id;                /* CUDA device ordinal, the pid of GPU events */
    char *name;                 /* owned */
    uint64_t total_mem;         /* bytes */
    uint32_t major, minor;      /* compute capability */
    uint32_t num_sms;
    uint32_t max_threads_per_block;
    uint32_t max_threads_per_sm;
    uint32_t regs_per_block, regs_per_sm;
    uint32_t warp_size;         /* threads */
    uint32_t shmem_per_block;   /* bytes */
    uint32_t shmem_per_sm;      /* bytes */
    uint32_t l2_size;           /* bytes */
} device_info;

typedef struct open_marker {
    uint32_t id;           /* CUPTI marker id, pairs START with END */
    uint64_t start;        /* ns, epoch */
    uint32_t pid, tid;     /* OS ids of the thread that opened it */
    uint32_t color;        /* ARGB from MARKER_DATA, 0 = none */
    int has_color;
    char *name;            /* owned, already renamed for steps */
    char *domain;          /* owned, NULL for the default domain */
} open_marker;

typedef struct extcorr_slot {
    uint32_t corr;         /* CUPTI correlation id (0 = empty) */
    uint64_t ext;          /* external id */
} extcorr_slot;

struct tc_conv {
    tc_conv_config cfg;    /* strings owned (copied) */
    /* document state */
    int open;              /* a document is open */
    int werr;              /* the sink failed; sticky until begin */
    tc_conv_write_fn write;
    void *write_ctx;
    uint64_t base_ns;      /* baseTimeNanoseconds of the open document */
    uint64_t nblocks;      /* event blocks written in this document */
    char *out;             /* OUTBUF_SIZE bytes */
    size_t outlen;
    tc_conv_stats st;
    uint32_t cpu_pid;      /* first process id seen on a CPU record */
    /* kept across windows */
    device_info dev[MAX_DEVICES];
    int ndev;
    struct { uint32_t ctx, dev; } ctxmap[MAX_CONTEXTS];
    int nctx;
    extcorr_slot *extcorr; /* EXTCORR_SLOTS */
    uint64_t step_counter; /* last ProfilerStep number given to a step_range range */
    open_marker *markers;  /* MAX_OPEN_MARKERS */
    int nmarkers;
    char *names[2][NAME_CACHE]; /* stripped API names, by domain and cbid; owned */
    /* per-window sets for metadata, keys (pid << 32 | tid) + 1, 0 = empty */
    uint64_t *gpu_seen;    /* SEEN_SLOTS */
    uint64_t *cpu_seen;    /* SEEN_SLOTS */
};

/* ---------- output buffer ---------- */

static inline void flush_out(tc_conv *c) {
    if (c->outlen && !c->werr && c->write(c->write_ctx, c->out, c->outlen) != 0) c->werr = 1;
    c->outlen = 0;
}

static inline void put(tc_conv *c, const char *s, size_t n) {
    if (c->werr) return;
    while (n > 0) {
        size_t room = OUTBUF_SIZE - c->outlen;
        if (room == 0) {
            flush_out(c);
            if (c->werr) return;
            room = OUTBUF_SIZE;
        }
        size_t k = n < room ? n : room;
        memcpy(c->out + c->outlen, s, k);
        c->outlen += k;
        s += k;
        n -= k;
    }
}

static inline void puts_(tc_conv *c, const char *s) { put(c, s, strlen(s)); }

static inline void put_u64(tc_conv *c, uint64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRIu64, v);
    put(c, b, (size_t)n);
}

static inline void put_i64(tc_conv *c, int64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    put(c, b, (size_t)n);
}

/* Epoch ns -> microseconds relative to the document's base. */
static inline void put_ts(tc_conv *c, uint64_t t) {
    char b[32];
    int64_t d = t >= c->base_ns ? (int64_t)(t - c->base_ns) : -(int64_t)(c->base_ns - t);
    put(c, b, tc_conv_format_us(d, b));
}

static inline void put_dur(tc_conv *c, uint64_t start, uint64_t end) {
    char b[32];
    put(c, b, tc_conv_format_us((int64_t)(end - start), b));
}

static inline int emit_put(void *ctx, const char *data, size_t len) {
    tc_conv *c = ctx;
    put(c, data, len);
    return c->werr;
}

static inline void put_str(tc_conv *c, const char *s) {
    puts_(c, "\"");
    if (s) tc_conv_escape(emit_put, c, s, strlen(s));
    puts_(c, "\"");
}

/* One event block: "\n  {\n" after a comma from the second on (convert.h, invariant 2). */
static inline void block_open(tc_conv *c) {
    puts_(c, c->nblocks ? ",\n  {\n" : "\n  {\n");
    c->nblocks++;
}

static inline void block_close(tc_conv *c) { puts_(c, "\n  }"); }

static inline char *dupstr(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
#endif
