/* convert.c: CUPTI activity records -> Kineto Chrome-trace JSON (see convert.h for the
 * contract). Output is formatted into a 64 KiB buffer handed to the sink when full; all times
 * are integer nanoseconds until they are printed. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "convert.h"
#include "base/utf8.h"
#include <assert.h>
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

const char *tc_conv_status_str(tc_conv_status s) {
    switch (s) {
    case TC_CONV_OK: return "ok";
    case TC_CONV_ERR_NOMEM: return "out of memory";
    case TC_CONV_ERR_WRITE: return "write failed";
    case TC_CONV_ERR_STATE: return "converter used outside an open document";
    }
    return "unknown status";
}

/* ---------- output buffer ---------- */

static void flush_out(tc_conv *c) {
    if (c->outlen && !c->werr && c->write(c->write_ctx, c->out, c->outlen) != 0) c->werr = 1;
    c->outlen = 0;
}

static void put(tc_conv *c, const char *s, size_t n) {
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

static void puts_(tc_conv *c, const char *s) { put(c, s, strlen(s)); }

static void put_u64(tc_conv *c, uint64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRIu64, v);
    put(c, b, (size_t)n);
}

static void put_i64(tc_conv *c, int64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    put(c, b, (size_t)n);
}

/* `lead` then "x, y, z" (a kernel's grid or block). */
static void put_dims(tc_conv *c, const char *lead, int64_t x, int64_t y, int64_t z) {
    puts_(c, lead);
    put_i64(c, x);
    puts_(c, ", ");
    put_i64(c, y);
    puts_(c, ", ");
    put_i64(c, z);
}

size_t tc_conv_format_us(int64_t ns, char *buf) {
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    int n = snprintf(buf, 32, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", mag / 1000,
                     (unsigned)(mag % 1000));
    return (size_t)n;
}

/* Epoch ns -> microseconds relative to the document's base. */
static void put_ts(tc_conv *c, uint64_t t) {
    char b[32];
    int64_t d = t >= c->base_ns ? (int64_t)(t - c->base_ns) : -(int64_t)(c->base_ns - t);
    put(c, b, tc_conv_format_us(d, b));
}

static void put_dur(tc_conv *c, uint64_t start, uint64_t end) {
    char b[32];
    put(c, b, tc_conv_format_us((int64_t)(end - start), b));
}

/* Escapes into a caller buffer in runs; emit(ctx, data, len) receives the pieces. */
typedef int (*emit_fn)(void *ctx, const char *data, size_t len);

static int escape_to(emit_fn emit, void *ctx, const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0; /* [run, i) is a pending run of bytes that need no escaping */
    int rc = 0;
    while (i < len && rc == 0) {
        unsigned ch = s[i];
        const char *rep = NULL;
        char ubuf[8];
        size_t adv = 1;
        if (ch == '"') rep = "\\\"";
        else if (ch == '\\') rep = "\\\\";
        else if (ch < 0x20 || ch == 0x7F) {
            switch (ch) {
            case '\n': rep = "\\n"; break;
            case '\t': rep = "\\t"; break;
            case '\r': rep = "\\r"; break;
            case '\b': rep = "\\b"; break;
            case '\f': rep = "\\f"; break;
            default: snprintf(ubuf, sizeof ubuf, "\\u%04x", ch); rep = ubuf; break;
            }
        } else if (ch >= 0x80) {
            adv = tc_utf8_seq(s + i, len - i, NULL);
            if (adv == 0) { rep = "\xEF\xBF\xBD"; adv = 1; }
        }
        if (rep) {
            if (i > run) rc = emit(ctx, str + run, i - run);
            if (rc == 0) rc = emit(ctx, rep, strlen(rep));
            i += adv;
            run = i;
        } else {
            i += adv;
        }
    }
    if (rc == 0 && i > run) rc = emit(ctx, str + run, i - run);
    return rc;
}

int tc_conv_escape(tc_conv_write_fn write, void *ctx, const char *s, size_t len) {
    return escape_to(write, ctx, s, len);
}

static int emit_put(void *ctx, const char *data, size_t len) {
    tc_conv *c = ctx;
    put(c, data, len);
    return c->werr;
}

static void put_str(tc_conv *c, const char *s) {
    puts_(c, "\"");
    if (s) escape_to(emit_put, c, s, strlen(s));
    puts_(c, "\"");
}

/* ---------- small tables ---------- */

static char *dupstr(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static const device_info *find_device(const tc_conv *c, uint32_t id) {
    for (int i = 0; i < c->ndev; i++)
        if (c->dev[i].id == id) return &c->dev[i];
    return NULL;
}

static void learn_context(tc_conv *c, uint32_t ctx, uint32_t dev) {
    for (int i = 0; i < c->nctx; i++)
        if (c->ctxmap[i].ctx == ctx) { c->ctxmap[i].dev = dev; return; }
    if (c->nctx < MAX_CONTEXTS) {
        c->ctxmap[c->nctx].ctx = ctx;
        c->ctxmap[c->nctx].dev = dev;
        c->nctx++;
    }
}

/* Device of a context, or -1 when no record has tied them yet. */
static int64_t context_device(const tc_conv *c, uint32_t ctx) {
    for (int i = 0; i < c->nctx; i++)
        if (c->ctxmap[i].ctx == ctx) return c->ctxmap[i].dev;
    return -1;
}

static void extcorr_put(tc_conv *c, uint32_t corr, uint64_t ext) {
    extcorr_slot *s = &c->extcorr[corr % EXTCORR_SLOTS];
    s->corr = corr;
    s->ext = ext;
}

/* External id for a correlation id; 0 when unknown. */
static uint64_t extcorr_get(const tc_conv *c, uint32_t corr) {
    if (corr == 0) return 0;
    const extcorr_slot *s = &c->extcorr[corr % EXTCORR_SLOTS];
    return s->corr == corr ? s->ext : 0;
}

/* Inserts (pid, tid) in a per-window set; silently stops growing when 3/4 full. */
static void seen_add(uint64_t *set, uint32_t pid, uint32_t tid) {
    uint64_t key = (((uint64_t)pid << 32) | tid) + 1;
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 52) % SEEN_SLOTS, used = 0;
    for (size_t probes = 0; probes < SEEN_SLOTS; probes++, i = (i + 1) % SEEN_SLOTS) {
        if (set[i] == key) return;
        if (set[i] == 0) break;
        used++;
    }
    if (used > SEEN_SLOTS * 3 / 4) return;
    if (set[i] == 0) set[i] = key;
}

/* ---------- API names ---------- */

/* Copies name without a trailing "_v<digits>" (cuptiGetCallbackName's version suffix). */
static char *strip_version(const char *name) {
    size_t n = strlen(name);
    size_t k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') k--;
    if (k < n && k >= 2 && name[k - 1] == 'v' && name[k - 2] == '_') n = k - 2;
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, name, n);
    d[n] = 0;
    return d;
}

/* Stripped API name for (domain, cbid); writes a fallback into tmp (>= 48 bytes) when unknown. */
static const char *api_name(tc_conv *c, tc_api_domain dom, uint32_t cbid, char *tmp) {
    if (cbid < NAME_CACHE && c->names[dom][cbid]) return c->names[dom][cbid];
    const char *raw = c->cfg.api_name ? c->cfg.api_name(c->cfg.api_name_ctx, dom, cbid) : NULL;
    if (!raw || !*raw) {
        snprintf(tmp, 48, "%s#%" PRIu32, dom == TC_API_RUNTIME ? "cuda_runtime" : "cuda_driver",
                 cbid);
        return tmp;
    }
    char *s = strip_version(raw);
    if (!s) {
        snprintf(tmp, 48, "%.47s", raw);
        return tmp;
    }
    if (cbid < NAME_CACHE) {
        c->names[dom][cbid] = s;
        return s;
    }
    snprintf(tmp, 48, "%.47s", s);
    free(s);
    return tmp;
}

static int name_matches(const char *name, const char *entry) {
    size_t n = strlen(entry);
    return strncmp(name, entry, n) == 0 && (name[n] == 0 || name[n] == '_');
}

int tc_conv_api_is_noise(const char *name) {
    /* Calls that launch no GPU work and only bloat traces (Kineto drops a similar list). */
    static const char *const noise[] = {
        "cudaGetDevice", "cudaSetDevice", "cudaGetLastError", "cudaPeekAtLastError",
        "cudaGetDeviceCount", "cudaDeviceGetAttribute", "cudaGetDeviceProperties",
        "cudaStreamIsCapturing", "cudaStreamGetCaptureInfo", "cudaPointerGetAttributes",
        "cudaFuncGetAttributes", "cudaDriverGetVersion", "cudaRuntimeGetVersion",
        "cudaThreadExchangeStreamCaptureMode", "cudaGetDriverEntryPoint",
        "cudaDeviceGetStreamPriorityRange", "cudaGetExportTable", "cudaGetFuncBySymbol",
        "cudaStreamGetPriority", "cudaStreamGetFlags", "cudaStreamGetDevice",
        "cuCtxGetCurrent", "cuCtxSetCurrent", "cuCtxGetDevice", "cuCtxPushCurrent",
        "cuCtxPopCurrent", "cuDeviceGet", "cuDeviceGetAttribute", "cuDeviceGetCount",
        "cuDevicePrimaryCtxGetState", "cuGetProcAddress", "cuPointerGetAttribute",
        "cuPointerGetAttributes", "cuStreamGetCaptureInfo", "cuStreamIsCapturing",
        "cuFuncGetAttribute", "cuGetErrorString", "cuGetErrorName", "cuDriverGetVersion",
        "cuCtxGetStreamPriorityRange", "cuThreadExchangeStreamCaptureMode",
        "cuKernelGetAttribute", "cuStreamGetCtx", "cuStreamGetId", "cuCtxGetId",
        "cuStreamGetFlags", "cuStreamGetPriority", "cuCtxGetApiVersion", "cuCtxGetFlags",
        /* completion polling (e.g. the NCCL watchdog thread): many calls, no work */
        "cudaEventQuery", "cudaStreamQuery", "cuEventQuery", "cuStreamQuery",
        NULL,
    };
    if (!name) return 0;
    for (const char *const *p = noise; *p; p++)
        if (name_matches(name, *p)) return 1;
    return 0;
}

/* Calls whose correlation id also appears on GPU work or a sync record: they start an ac2g flow. */
static int api_starts_flow(const char *name) {
    static const char *const prefixes[] = {
        "cudaLaunch", "cuLaunch", "__cudaLaunch", "cudaMemcpy", "cudaMemset", "cuMemcpy",
        "cuMemset", "cudaGraphLaunch", "cuGraphLaunch", "cudaStreamSynchronize",
        "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent",
        "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cuStreamWaitEvent",
        NULL,
    };
    for (const char *const *p = prefixes; *p; p++)
        if (strncmp(name, *p, strlen(*p)) == 0) return 1;
    return 0;
}

/* ---------- life cycle ---------- */

tc_conv_status tc_conv_new(const tc_conv_config *cfg, tc_conv **out) {
    *out = NULL;
    tc_conv *c = calloc(1, sizeof *c);
    if (!c) return TC_CONV_ERR_NOMEM;
    c->cfg = *cfg;
    c->cfg.step_range = NULL;
    c->cfg.process_name = NULL;
    c->out = malloc(OUTBUF_SIZE);
    c->extcorr = calloc(EXTCORR_SLOTS, sizeof *c->extcorr);
    c->markers = calloc(MAX_OPEN_MARKERS, sizeof *c->markers);
    c->gpu_seen = calloc(SEEN_SLOTS, sizeof *c->gpu_seen);
    c->cpu_seen = calloc(SEEN_SLOTS, sizeof *c->cpu_seen);
    if (cfg->step_range && *cfg->step_range) c->cfg.step_range = dupstr(cfg->step_range);
    if (cfg->process_name) c->cfg.process_name = dupstr(cfg->process_name);
    if (!c->out || !c->extcorr || !c->markers || !c->gpu_seen || !c->cpu_seen ||
        (cfg->step_range && *cfg->step_range && !c->cfg.step_range) ||
        (cfg->process_name && !c->cfg.process_name)) {
        tc_conv_free(c);
        return TC_CONV_ERR_NOMEM;
    }
    *out = c;
    return TC_CONV_OK;
}

static void drop_markers(tc_conv *c) {
    for (int i = 0; i < c->nmarkers; i++) {
        free(c->markers[i].name);
        free(c->markers[i].domain);
    }
    c->nmarkers = 0;
}

void tc_conv_free(tc_conv *c) {
    if (!c) return;
    if (c->markers) drop_markers(c);
    for (int i = 0; i < c->ndev; i++) free(c->dev[i].name);
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < NAME_CACHE; i++) free(c->names[d][i]);
    free((char *)c->cfg.step_range);
    free((char *)c->cfg.process_name);
    free(c->out);
    free(c->extcorr);
    free(c->markers);
    free(c->gpu_seen);
    free(c->cpu_seen);
    free(c);
}

int tc_conv_is_open(const tc_conv *c) { return c->open; }

void tc_conv_get_stats(const tc_conv *c, tc_conv_stats *out) { *out = c->st; }

tc_conv_status tc_conv_begin(tc_conv *c, tc_conv_write_fn write, void *write_ctx,
                             uint64_t base_ns) {
    if (c->open) return TC_CONV_ERR_STATE;
    assert(write != NULL);
    c->open = 1;
    c->werr = 0;
    c->write = write;
    c->write_ctx = write_ctx;
    c->base_ns = base_ns;
    c->nblocks = 0;
    c->outlen = 0;
    memset(&c->st, 0, sizeof c->st);
    memset(c->gpu_seen, 0, SEEN_SLOTS * sizeof *c->gpu_seen);
    memset(c->cpu_seen, 0, SEEN_SLOTS * sizeof *c->cpu_seen);
    puts_(c, "{\n  \"schemaVersion\": 1,\n  \"displayTimeUnit\": \"ms\",\n"
             "  \"baseTimeNanoseconds\": ");
    put_u64(c, base_ns);
    puts_(c, ",\n  \"traceEvents\": [");
    return c->werr ? TC_CONV_ERR_WRITE : TC_CONV_OK;
}

void tc_conv_abort(tc_conv *c) {
    c->open = 0;
    c->outlen = 0;
    drop_markers(c);
}

/* ---------- events ---------- */

static void block_open(tc_conv *c) {
    puts_(c, c->nblocks ? ",\n  {\n" : "\n  {\n");
    c->nblocks++;
}

static void block_close(tc_conv *c) { puts_(c, "\n  }"); }

/* "    "ph": "X", "cat": CAT, "name": NAME, "pid": P, "tid": T,\n    "ts": .., "dur": ..," */
static void x_head(tc_conv *c, const char *cat, const char *name, int64_t pid, int64_t tid,
                   uint64_t start, uint64_t end) {
    block_open(c);
    puts_(c, "    \"ph\": \"X\", \"cat\": \"");
    puts_(c, cat);
    puts_(c, "\", \"name\": ");
    put_str(c, name);
    puts_(c, ", \"pid\": ");
    put_i64(c, pid);
    puts_(c, ", \"tid\": ");
    put_i64(c, tid);
    puts_(c, ",\n    \"ts\": ");
    put_ts(c, start);
    puts_(c, ", \"dur\": ");
    put_dur(c, start, end);
    c->st.events++;
}

static void flow(tc_conv *c, char ph, uint32_t id, int64_t pid, int64_t tid, uint64_t ts) {
    block_open(c);
    puts_(c, ph == 's' ? "    \"ph\": \"s\", \"id\": " : "    \"ph\": \"f\", \"id\": ");
    put_u64(c, id);
    puts_(c, ", \"pid\": ");
    put_i64(c, pid);
    puts_(c, ", \"tid\": ");
    put_i64(c, tid);
    puts_(c, ", \"ts\": ");
    put_ts(c, ts);
    puts_(c, ph == 's' ? ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\""
                       : ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"");
    block_close(c);
}

static void arg_ext(tc_conv *c, uint32_t corr) {
    uint64_t ext = extcorr_get(c, corr);
    if (ext) {
        puts_(c, "\"External id\": ");
        put_u64(c, ext);
        puts_(c, ", ");
    }
}

/* Common GPU args: device, context, stream, correlation. */
static void gpu_args(tc_conv *c, uint32_t dev, uint32_t ctx, uint32_t stream, uint32_t corr) {
    puts_(c, ",\n    \"args\": {\n      ");
    arg_ext(c, corr);
    puts_(c, "\"device\": ");
    put_u64(c, dev);
    puts_(c, ", \"context\": ");
    put_u64(c, ctx);
    puts_(c, ", \"stream\": ");
    put_u64(c, stream);
    puts_(c, ", \"correlation\": ");
    put_u64(c, corr);
}

/* Writes num/den with 6 decimals, integer math only (den > 0). */
static void put_ratio6(tc_conv *c, uint64_t num, uint64_t den) {
    uint64_t whole = num / den, rem = num % den;
    uint64_t frac = den <= UINT64_MAX / 1000000u ? rem * 1000000u / den : rem / (den / 1000000u);
    char b[48];
    int n = snprintf(b, sizeof b, "%" PRIu64 ".%06" PRIu64, whole, frac);
    put(c, b, (size_t)n);
}

static uint64_t sat_mul(uint64_t a, uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

static int valid_span(tc_conv *c, uint64_t start, uint64_t end) {
    if (start == 0 || end < start) {
        c->st.incomplete++;
        return 0;
    }
    return 1;
}

static int is_nccl_name(const char *name) {
    return name && (strncmp(name, "nccl", 4) == 0 || strncmp(name, "rccl", 4) == 0 ||
                    strstr(name, "ncclKernel") || strstr(name, "ncclDevKernel"));
}

static void on_kernel(tc_conv *c, const CUpti_ActivityKernel10 *k) {
    uint64_t start = k->start, end = k->end;
    if (!valid_span(c, start, end)) return;
    const char *name = k->name ? k->name : "(unnamed kernel)";
    if (is_nccl_name(name)) c->st.nccl_seen = 1;
    learn_context(c, k->contextId, k->deviceId);
    seen_add(c->gpu_seen, k->deviceId, k->streamId);
    x_head(c, "kernel", name, k->deviceId, k->streamId, start, end);
    gpu_args(c, k->deviceId, k->contextId, k->streamId, k->correlationId);
    puts_(c, ", \"registers per thread\": ");
    put_u64(c, k->registersPerThread);
    puts_(c, ", \"shared memory\": ");
    put_i64(c, (int64_t)k->staticSharedMemory + (int64_t)k->dynamicSharedMemory);
    uint64_t gx = k->gridX > 0 ? (uint64_t)k->gridX : 0, gy = k->gridY > 0 ? (uint64_t)k->gridY : 0,
             gz = k->gridZ > 0 ? (uint64_t)k->gridZ : 0;
    uint64_t bx = k->blockX > 0 ? (uint64_t)k->blockX : 0, by = k->blockY > 0 ? (uint64_t)k->blockY : 0,
             bz = k->blockZ > 0 ? (uint64_t)k->blockZ : 0;
    const device_info *d = find_device(c, k->deviceId);
    if (d && d->num_sms > 0) {
        uint64_t blocks = sat_mul(sat_mul(gx, gy), gz);
        uint64_t threads = sat_mul(sat_mul(bx, by), bz);
        uint64_t ws = d->warp_size ? d->warp_size : 32;
        uint64_t warps_per_block = (threads + ws - 1) / ws;
        puts_(c, ", \"blocks per SM\": ");
        put_ratio6(c, blocks, d->num_sms);
        puts_(c, ", \"warps per SM\": ");
        put_ratio6(c, sat_mul(blocks, warps_per_block), d->num_sms);
    }
    put_dims(c, ", \"grid\": [", k->gridX, k->gridY, k->gridZ);
    put_dims(c, "], \"block\": [", k->blockX, k->blockY, k->blockZ);
    puts_(c, "]\n    }");
    block_close(c);
    c->st.gpu_events++;
    if (!k->isDeviceLaunched) flow(c, 'f', k->correlationId, k->deviceId, k->streamId, start);
}

static const char *memcpy_kind_str(unsigned k) {
    static const char *const s[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                    "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return k < sizeof s / sizeof s[0] ? s[k] : "Unknown";
}

static const char *memory_kind_str(unsigned k) {
    static const char *const s[] = {"Unknown", "Pageable", "Pinned", "Device",
                                    "Array",   "Managed",  "Device Static", "Managed Static"};
    return k < sizeof s / sizeof s[0] ? s[k] : "Unknown";
}

/* bytes and "memory bandwidth (GB/s)" (bytes per ns), then closes args and the block. */
static void mem_tail(tc_conv *c, uint64_t bytes, uint64_t start, uint64_t end) {
    puts_(c, ",\n      \"bytes\": ");
    put_u64(c, bytes);
    puts_(c, ", \"memory bandwidth (GB/s)\": ");
    if (end > start) put_ratio6(c, bytes, end - start);
    else puts_(c, "\"N/A\"");
    puts_(c, "\n    }");
    block_close(c);
    c->st.gpu_events++;
}

static void on_memcpy(tc_conv *c, uint32_t dev, uint32_t ctx, uint32_t stream, uint32_t corr,
                      unsigned copy_kind, unsigned src_kind, unsigned dst_kind, uint64_t bytes,
                      uint64_t start, uint64_t end, int device_launched) {
    if (!valid_span(c, start, end)) return;
    char name[96];
    snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", memcpy_kind_str(copy_kind),
             memory_kind_str(src_kind), memory_kind_str(dst_kind));
    learn_context(c, ctx, dev);
    seen_add(c->gpu_seen, dev, stream);
    x_head(c, "gpu_memcpy", name, dev, stream, start, end);
    gpu_args(c, dev, ctx, stream, corr);
    mem_tail(c, bytes, start, end);
    if (!device_launched) flow(c, 'f', corr, dev, stream, start);
}

static void on_memset(tc_conv *c, const CUpti_ActivityMemset4 *m) {
    if (!valid_span(c, m->start, m->end)) return;
    char name[64];
    snprintf(name, sizeof name, "Memset (%s)", memory_kind_str(m->memoryKind));
    learn_context(c, m->contextId, m->deviceId);
    seen_add(c->gpu_seen, m->deviceId, m->streamId);
    x_head(c, "gpu_memset", name, m->deviceId, m->streamId, m->start, m->end);
    gpu_args(c, m->deviceId, m->contextId, m->streamId, m->correlationId);
    mem_tail(c, m->bytes, m->start, m->end);
    if (!m->isDeviceLaunched) flow(c, 'f', m->correlationId, m->deviceId, m->streamId, m->start);
}

static void on_api(tc_conv *c, const CUpti_ActivityAPI *a, tc_api_domain dom) {
    char tmp[48];
    if (!valid_span(c, a->start, a->end)) return;
    const char *name = api_name(c, dom, a->cbid, tmp);
    if (!c->cfg.keep_all_api && tc_conv_api_is_noise(name)) {
        c->st.noise_api++;
        return;
    }
    uint32_t pid = a->processId ? a->processId : c->cfg.pid;
    if (!c->cpu_pid) c->cpu_pid = pid;
    seen_add(c->cpu_seen, pid, a->threadId);
    x_head(c, dom == TC_API_RUNTIME ? "cuda_runtime" : "cuda_driver", name, pid, a->threadId,
           a->start, a->end);
    puts_(c, ",\n    \"args\": {\n      ");
    arg_ext(c, a->correlationId);
    puts_(c, "\"cbid\": ");
    put_u64(c, a->cbid);
    puts_(c, ", \"correlation\": ");
    put_u64(c, a->correlationId);
    puts_(c, "\n    }");
    block_close(c);
    if (api_starts_flow(name)) flow(c, 's', a->correlationId, pid, a->threadId, a->start);
}

static void on_sync(tc_conv *c, const CUpti_ActivitySynchronization2 *s) {
    if (!valid_span(c, s->start, s->end)) return;
    const char *name;
    switch (s->type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: name = "Event Sync"; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: name = "Stream Wait Event"; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: name = "Stream Sync"; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: name = "Context Sync"; break;
    default: name = "Unknown Sync"; break;
    }
    int64_t dev = context_device(c, s->contextId);
    /* Like Kineto: the stream row of the device; "no stream" (context sync) is tid -1. */
    int64_t tid = s->streamId == UINT32_MAX ? -1 : (int64_t)s->streamId;
    int64_t pid = dev >= 0 ? dev : 0;
    x_head(c, "cuda_sync", name, pid, tid, s->start, s->end);
    puts_(c, ",\n    \"args\": {\n      ");
    arg_ext(c, s->correlationId);
    puts_(c, "\"cuda_sync_kind\": \"");
    puts_(c, name);
    puts_(c, "\", \"stream\": ");
    put_u64(c, s->streamId);
    puts_(c, ", \"correlation\": ");
    put_u64(c, s->correlationId);
    puts_(c, ", \"device\": ");
    put_i64(c, dev);
    puts_(c, ", \"context\": ");
    put_u64(c, s->contextId);
    puts_(c, "\n    }");
    block_close(c);
    flow(c, 'f', s->correlationId, pid, tid, s->start);
}

static void on_device(tc_conv *c, const CUpti_ActivityDevice5 *d) {
    device_info *di = NULL;
    for (int i = 0; i < c->ndev; i++)
        if (c->dev[i].id == d->id) di = &c->dev[i];
    if (!di) {
        if (c->ndev >= MAX_DEVICES) return;
        di = &c->dev[c->ndev++];
        memset(di, 0, sizeof *di);
    }
    char *name = dupstr(d->name ? d->name : "");
    if (name) {
        free(di->name);
        di->name = name;
    }
    di->id = d->id;
    di->total_mem = d->globalMemorySize;
    di->major = d->computeCapabilityMajor;
    di->minor = d->computeCapabilityMinor;
    di->num_sms = d->numMultiprocessors;
    di->max_threads_per_block = d->maxThreadsPerBlock;
    di->max_threads_per_sm = d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp;
    di->regs_per_block = d->maxRegistersPerBlock;
    di->regs_per_sm = d->maxRegistersPerMultiprocessor;
    di->warp_size = d->numThreadsPerWarp;
    di->shmem_per_block = d->maxSharedMemoryPerBlock;
    di->shmem_per_sm = d->maxSharedMemoryPerMultiprocessor;
    di->l2_size = d->l2CacheSize;
}

static open_marker *find_marker(tc_conv *c, uint32_t id) {
    for (int i = c->nmarkers - 1; i >= 0; i--)
        if (c->markers[i].id == id) return &c->markers[i];
    return NULL;
}

static void marker_ids(const tc_conv *c, const CUpti_ActivityMarker2 *m, uint32_t *pid,
                       uint32_t *tid) {
    *pid = c->cfg.pid;
    *tid = 0;
    if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
        m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        if (m->objectId.pt.processId) *pid = m->objectId.pt.processId;
        *tid = m->objectId.pt.threadId;
    }
}

static void emit_range(tc_conv *c, const open_marker *om, uint64_t end) {
    seen_add(c->cpu_seen, om->pid, om->tid);
    x_head(c, "user_annotation", om->name, om->pid, om->tid, om->start, end);
    if (om->domain || om->has_color) {
        puts_(c, ",\n    \"args\": {\n      ");
        if (om->domain) {
            puts_(c, "\"domain\": ");
            put_str(c, om->domain);
        }
        if (om->has_color) {
            char b[24];
            snprintf(b, sizeof b, "\"0x%08" PRIx32 "\"", om->color);
            puts_(c, om->domain ? ", \"color\": " : "\"color\": ");
            puts_(c, b);
        }
        puts_(c, "\n    }");
    }
    block_close(c);
}

static void on_marker(tc_conv *c, const CUpti_ActivityMarker2 *m) {
    uint32_t pid, tid;
    marker_ids(c, m, &pid, &tid);
    if (m->domain && strcmp(m->domain, "NCCL") == 0) c->st.nccl_seen = 1;
    if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        if (c->nmarkers >= MAX_OPEN_MARKERS) {
            c->st.marker_overflow++;
            return;
        }
        const char *name = m->name ? m->name : "";
        char step[48];
        if (c->cfg.step_range && strcmp(name, c->cfg.step_range) == 0) {
            snprintf(step, sizeof step, "ProfilerStep#%" PRIu64, ++c->step_counter);
            name = step;
        }
        open_marker *om = &c->markers[c->nmarkers];
        memset(om, 0, sizeof *om);
        om->id = m->id;
        om->start = m->timestamp;
        om->pid = pid;
        om->tid = tid;
        om->name = dupstr(name);
        om->domain = m->domain ? dupstr(m->domain) : NULL;
        if (!om->name || (m->domain && !om->domain)) {
            free(om->name);
            free(om->domain);
            c->st.marker_overflow++;
            return;
        }
        c->nmarkers++;
    } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        open_marker *om = find_marker(c, m->id);
        if (!om) {
            c->st.unmatched_markers++;
            return;
        }
        if (m->timestamp >= om->start && om->start != 0) emit_range(c, om, m->timestamp);
        else c->st.incomplete++;
        free(om->name);
        free(om->domain);
        *om = c->markers[--c->nmarkers];
    } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        if (m->timestamp == 0) {
            c->st.incomplete++;
            return;
        }
        seen_add(c->cpu_seen, pid, tid);
        block_open(c);
        puts_(c, "    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": ");
        put_str(c, m->name ? m->name : "");
        puts_(c, ", \"pid\": ");
        put_u64(c, pid);
        puts_(c, ", \"tid\": ");
        put_u64(c, tid);
        puts_(c, ",\n    \"ts\": ");
        put_ts(c, m->timestamp);
        if (m->domain) {
            puts_(c, ",\n    \"args\": {\n      \"domain\": ");
            put_str(c, m->domain);
            puts_(c, "\n    }");
        }
        block_close(c);
        c->st.events++;
    }
}

static void on_marker_data(tc_conv *c, const CUpti_ActivityMarkerData2 *d) {
    open_marker *om = find_marker(c, d->id);
    if (om && (d->flags & CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB)) {
        om->color = d->color;
        om->has_color = 1;
    }
}

tc_conv_status tc_conv_record(tc_conv *c, const CUpti_Activity *rec) {
    if (!c->open) return TC_CONV_ERR_STATE;
    if (c->werr) return TC_CONV_ERR_WRITE;
    c->st.records++;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        on_kernel(c, (const CUpti_ActivityKernel10 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        on_memcpy(c, m->deviceId, m->contextId, m->streamId, m->correlationId, m->copyKind,
                  m->srcKind, m->dstKind, m->bytes, m->start, m->end, m->isDeviceLaunched);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const CUpti_ActivityMemcpyPtoP4 *m = (const CUpti_ActivityMemcpyPtoP4 *)rec;
        on_memcpy(c, m->deviceId, m->contextId, m->streamId, m->correlationId, m->copyKind,
                  m->srcKind, m->dstKind, m->bytes, m->start, m->end, 0);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET:
        on_memset(c, (const CUpti_ActivityMemset4 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        on_api(c, (const CUpti_ActivityAPI *)rec, TC_API_RUNTIME);
        break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
        on_api(c, (const CUpti_ActivityAPI *)rec, TC_API_DRIVER);
        break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        on_sync(c, (const CUpti_ActivitySynchronization2 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MARKER:
        on_marker(c, (const CUpti_ActivityMarker2 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MARKER_DATA:
        on_marker_data(c, (const CUpti_ActivityMarkerData2 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)rec;
        extcorr_put(c, e->correlationId, e->externalId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE:
        on_device(c, (const CUpti_ActivityDevice5 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
        const CUpti_ActivityContext3 *x = (const CUpti_ActivityContext3 *)rec;
        learn_context(c, x->contextId, x->deviceId);
        break;
    }
    default:
        c->st.unknown_kind++;
        break;
    }
    return c->werr ? TC_CONV_ERR_WRITE : TC_CONV_OK;
}

/* ---------- finish ---------- */

static void meta_event(tc_conv *c, const char *what, uint64_t pid, int64_t tid, const char *key,
                       const char *sval, int64_t ival) {
    block_open(c);
    puts_(c, "    \"name\": \"");
    puts_(c, what);
    puts_(c, "\", \"ph\": \"M\", \"ts\": ");
    put_ts(c, c->base_ns);
    puts_(c, ", \"pid\": ");
    put_u64(c, pid);
    puts_(c, ", \"tid\": ");
    put_i64(c, tid);
    puts_(c, ",\n    \"args\": {\n      \"");
    puts_(c, key);
    puts_(c, "\": ");
    if (sval) put_str(c, sval);
    else put_i64(c, ival);
    puts_(c, "\n    }");
    block_close(c);
}

static void metadata_events(tc_conv *c) {
    char b[64];
    uint32_t devs_named[MAX_DEVICES];
    int ndn = 0;
    for (size_t i = 0; i < SEEN_SLOTS; i++) {
        if (!c->gpu_seen[i]) continue;
        uint64_t key = c->gpu_seen[i] - 1;
        uint32_t dev = (uint32_t)(key >> 32), stream = (uint32_t)key;
        int named = 0;
        for (int k = 0; k < ndn; k++) named |= devs_named[k] == dev;
        if (!named && ndn < MAX_DEVICES) {
            devs_named[ndn++] = dev;
            snprintf(b, sizeof b, "GPU %" PRIu32, dev);
            meta_event(c, "process_name", dev, 0, "name", b, 0);
            meta_event(c, "process_labels", dev, 0, "labels", b, 0);
            meta_event(c, "process_sort_index", dev, 0, "sort_index", NULL, 0x1000000 + dev);
        }
        snprintf(b, sizeof b, "stream %" PRIu32, stream);
        meta_event(c, "thread_name", dev, stream, "name", b, 0);
        meta_event(c, "thread_sort_index", dev, stream, "sort_index", NULL, stream);
    }
    int any_cpu = 0;
    for (size_t i = 0; i < SEEN_SLOTS && !any_cpu; i++) any_cpu = c->cpu_seen[i] != 0;
    uint32_t cpu_pid = c->cpu_pid ? c->cpu_pid : c->cfg.pid;
    if (any_cpu && cpu_pid) {
        meta_event(c, "process_name", cpu_pid, 0, "name",
                   c->cfg.process_name ? c->cfg.process_name : "CPU", 0);
        meta_event(c, "process_labels", cpu_pid, 0, "labels", "CPU", 0);
    }
    for (size_t i = 0; i < SEEN_SLOTS; i++) {
        if (!c->cpu_seen[i]) continue;
        uint64_t key = c->cpu_seen[i] - 1;
        uint32_t pid = (uint32_t)(key >> 32), tid = (uint32_t)key;
        snprintf(b, sizeof b, "thread %" PRIu32, tid);
        meta_event(c, "thread_name", pid, tid, "name", b, 0);
    }
}

static void kv_u64(tc_conv *c, const char *key, uint64_t v, int last) {
    puts_(c, "\"");
    puts_(c, key);
    puts_(c, "\": ");
    put_u64(c, v);
    if (!last) puts_(c, ", ");
}

static void device_properties(tc_conv *c) {
    puts_(c, "  \"deviceProperties\": [");
    for (int i = 0; i < c->ndev; i++) {
        const device_info *d = &c->dev[i];
        puts_(c, i ? ",\n    {\n      " : "\n    {\n      ");
        kv_u64(c, "id", d->id, 0);
        puts_(c, "\"name\": ");
        put_str(c, d->name ? d->name : "");
        puts_(c, ", ");
        kv_u64(c, "totalGlobalMem", d->total_mem, 1);
        puts_(c, ",\n      ");
        kv_u64(c, "computeMajor", d->major, 0);
        kv_u64(c, "computeMinor", d->minor, 1);
        puts_(c, ",\n      ");
        kv_u64(c, "maxThreadsPerBlock", d->max_threads_per_block, 0);
        kv_u64(c, "maxThreadsPerMultiprocessor", d->max_threads_per_sm, 1);
        puts_(c, ",\n      ");
        kv_u64(c, "regsPerBlock", d->regs_per_block, 0);
        kv_u64(c, "regsPerMultiprocessor", d->regs_per_sm, 0);
        kv_u64(c, "warpSize", d->warp_size, 1);
        puts_(c, ",\n      ");
        kv_u64(c, "sharedMemPerBlock", d->shmem_per_block, 0);
        kv_u64(c, "sharedMemPerMultiprocessor", d->shmem_per_sm, 1);
        puts_(c, ",\n      ");
        kv_u64(c, "numSms", d->num_sms, 0);
        kv_u64(c, "l2CacheSize", d->l2_size, 1);
        puts_(c, "\n    }");
    }
    puts_(c, c->ndev ? "\n  ],\n" : "],\n");
}

tc_conv_status tc_conv_finish(tc_conv *c, const tc_conv_finish_info *info) {
    if (!c->open) return TC_CONV_ERR_STATE;
    c->st.unmatched_markers += (uint64_t)c->nmarkers;
    drop_markers(c);
    metadata_events(c);
    puts_(c, "\n  ],\n");
    device_properties(c);
    puts_(c, "  \"distributedInfo\": {\"backend\": ");
    puts_(c, c->st.nccl_seen ? "\"nccl\"" : "null");
    if (info->rank >= 0) {
        puts_(c, ", \"rank\": ");
        put_i64(c, info->rank);
    }
    if (info->world_size >= 0) {
        puts_(c, ", \"world_size\": ");
        put_i64(c, info->world_size);
    }
    if (info->local_rank >= 0) {
        puts_(c, ", \"local_rank\": ");
        put_i64(c, info->local_rank);
    }
    puts_(c, "},\n");
    if (info->cupti_version) {
        puts_(c, "  \"cupti_version\": ");
        put_u64(c, info->cupti_version);
        puts_(c, ",\n");
    }
    if (info->trace_name) {
        puts_(c, "  \"traceName\": ");
        put_str(c, info->trace_name);
        puts_(c, ",\n");
    }
    puts_(c, "  \"tracecost\": {");
    kv_u64(c, "window", info->window, 0);
    kv_u64(c, "records", c->st.records, 0);
    kv_u64(c, "events", c->st.events, 0);
    kv_u64(c, "gpu_events", c->st.gpu_events, 0);
    kv_u64(c, "dropped_records", info->dropped_records, 0);
    kv_u64(c, "refused_buffers", info->refused_buffers, 0);
    kv_u64(c, "incomplete_records", c->st.incomplete, 0);
    kv_u64(c, "unmatched_markers", c->st.unmatched_markers, 0);
    kv_u64(c, "noise_api_dropped", c->st.noise_api, 1);
    puts_(c, "}\n}\n");
    flush_out(c);
    c->open = 0;
    return c->werr ? TC_CONV_ERR_WRITE : TC_CONV_OK;
}
