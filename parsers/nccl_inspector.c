/* nccl_inspector.c: the readers of NCCL's own files (nccl_inspector.h): NCCL Inspector JSON logs
 * and the example profiler plugin's traces. Objects are cut from the byte stream by brace depth
 * (strings and escapes followed; a plugin trace's '[' ',' ']' between them passed over), each
 * parsed by a small recursive reader that keeps the members it knows (Inspector: header, metadata,
 * coll_perf, p2p_perf; plugin: a COLL event's args) and skips every other value (verbose event traces,
 * other events, members of later versions); for plugin traces it reads the bare values
 * older versions write (ncclBfloat16, 0x7f...) as tokens. */
#define _POSIX_C_SOURCE 200809L
#include "nccl_inspector.h"
#include "base/util.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- a small JSON reader over one object's text ------------------------------------------------ */

typedef struct {
    const char *s, *end;
    const char *err; /* what is wrong, NULL none */
    bool lenient;    /* a bare value (ncclBfloat16, 0x7f...) is read as a token (plugin traces) */
    bool bare;       /* such a value was read */
} jp;

static void ws(jp *p) {
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static bool fail(jp *p, const char *what) {
    if (!p->err) p->err = what;
    return false;
}

/* A string into out (cap > 0, cut there; NUL-terminated), escapes other than \uXXXX decoded. */
static bool str(jp *p, char *out, size_t cap) {
    size_t n = 0;
    if (p->s >= p->end || *p->s != '"') return fail(p, "a string expected");
    for (p->s++; p->s < p->end && *p->s != '"'; p->s++) {
        char c = *p->s;
        if ((unsigned char)c < 0x20) return fail(p, "a control character inside a string");
        if (c == '\\') {
            if (++p->s >= p->end) break;
            c = *p->s == 'n' ? '\n' : *p->s == 't' ? '\t' : *p->s;
            if (*p->s == 'u') { c = '?'; p->s += p->end - p->s > 4 ? 4 : 0; }
        }
        if (out && n + 1 < cap) out[n++] = c;
    }
    if (p->s >= p->end) return fail(p, "a string without its closing quote");
    p->s++;
    if (out) out[n] = '\0';
    return true;
}

static bool num(jp *p, double *v) {
    char buf[64];
    size_t n = 0;
    while (p->s + n < p->end && n + 1 < sizeof buf && strchr("+-0123456789.eE", p->s[n])) { buf[n] = p->s[n]; n++; }
    if (n == 0) return fail(p, "a number expected");
    buf[n] = '\0';
    char *e;
    errno = 0;
    *v = strtod(buf, &e);
    if (*e || errno == ERANGE) return fail(p, "a number that cannot be read");
    p->s += n;
    return true;
}

static bool skip_value(jp *p, int depth);

/* A quoted string or, leniently, a bare token up to the next ',', '}', ']' or space, into out
 * (p->bare set when the token is no JSON number). */
static bool token(jp *p, char *out, size_t cap) {
    if (p->s < p->end && *p->s == '"') return str(p, out, cap);
    size_t n = 0;
    while (p->s + n < p->end && !strchr(",}] \t\r\n", p->s[n])) n++;
    if (n == 0) return fail(p, "a value expected");
    size_t k = n < cap - 1 ? n : cap - 1;
    memcpy(out, p->s, k);
    out[k] = '\0';
    char *e;
    (void)strtod(out, &e);
    if (*e || k < n) {
        if (!p->lenient) return fail(p, "a number expected");
        p->bare = true;
    }
    p->s += n;
    return true;
}

typedef bool (*member_fn)(jp *p, const char *key, void *ctx);

/* An object, each member's value given to fn (which reads or skips it). */
static bool object(jp *p, member_fn fn, void *ctx, int depth) {
    if (depth > 64) return fail(p, "nested too deep");
    ws(p);
    if (p->s >= p->end || *p->s != '{') return fail(p, "an object expected");
    p->s++;
    ws(p);
    if (p->s < p->end && *p->s == '}') { p->s++; return true; }
    for (;;) {
        char key[64];
        ws(p);
        if (!str(p, key, sizeof key)) return false;
        ws(p);
        if (p->s >= p->end || *p->s != ':') return fail(p, "':' expected after a key");
        p->s++;
        ws(p);
        if (!(fn ? fn(p, key, ctx) : skip_value(p, depth + 1))) return false;
        ws(p);
        if (p->s < p->end && *p->s == ',') { p->s++; continue; }
        if (p->s < p->end && *p->s == '}') { p->s++; return true; }
        return fail(p, "',' or '}' expected after a value");
    }
}

static bool skip_value(jp *p, int depth) {
    if (depth > 64) return fail(p, "nested too deep");
    ws(p);
    if (p->s >= p->end) return fail(p, "a value expected");
    double v;
    switch (*p->s) {
    case '{': return object(p, NULL, NULL, depth);
    case '"': return str(p, NULL, 0);
    case '[':
        p->s++;
        ws(p);
        if (p->s < p->end && *p->s == ']') { p->s++; return true; }
        for (;;) {
            if (!skip_value(p, depth + 1)) return false;
            ws(p);
            if (p->s < p->end && *p->s == ',') { p->s++; continue; }
            if (p->s < p->end && *p->s == ']') { p->s++; return true; }
            return fail(p, "',' or ']' expected in an array");
        }
    default:
        for (const char *lit = "true\0false\0null\0"; *lit; lit += strlen(lit) + 1)
            if ((size_t)(p->end - p->s) >= strlen(lit) && memcmp(p->s, lit, strlen(lit)) == 0) {
                p->s += strlen(lit);
                return true;
            }
        if (p->lenient) { char tok[64]; return token(p, tok, sizeof tok); }
        return num(p, &v);
    }
}

/* ---- one record ----------------------------------------------------------------------------------- */

typedef struct {
    tc_nccl_record r;
    bool has_rank, has_n_ranks, has_coll, has_sn, has_bytes, has_exec, p2p, stats;
    bool has_p2p_kind, has_peer;   /* p2p_perf: "p2p" is Send or Recv; p2p_peer read */
    tc_nccl_p2p q;                 /* p2p_perf's fields (sn, bytes, exec_us, timing, peer, send) */
    char hostname[256], version[16];
    char algo[16], proto[16];  /* coll_perf.coll_algo / coll_proto (v4.2+), "" absent */
    int32_t channels;          /* verbose: the kernel_events entries of event_trace_ts, -1 absent */
    double pid;
    double dropped;            /* dump_stats.coll_dropped_since_last_dump */
} rec_ctx;

static bool int_in(jp *p, double lo, double hi, double *out);

/* An array of objects (each skipped), their count into *n. */
static bool count_objects(jp *p, int32_t *n) {
    ws(p);
    if (p->s >= p->end || *p->s != '[') return fail(p, "an array expected");
    p->s++;
    *n = 0;
    ws(p);
    if (p->s < p->end && *p->s == ']') { p->s++; return true; }
    for (;;) {
        if (!object(p, NULL, NULL, 3)) return false;
        (*n)++;
        ws(p);
        if (p->s < p->end && *p->s == ',') { p->s++; continue; }
        if (p->s < p->end && *p->s == ']') { p->s++; return true; }
        return fail(p, "',' or ']' expected in an array");
    }
}

/* Verbose records' event_trace_ts: its kernel_events, one per channel the kernel ran on. */
static bool trace_ts_member(jp *p, const char *key, void *ctx) {
    rec_ctx *c = ctx;
    if (strcmp(key, "kernel_events") == 0) return count_objects(p, &c->channels);
    return skip_value(p, 3); /* coll_start_ts, coll_stop_ts */
}

static bool stats_member(jp *p, const char *key, void *ctx) {
    rec_ctx *c = ctx;
    if (strcmp(key, "coll_dropped_since_last_dump") == 0) return int_in(p, 0, 9e18, &c->dropped);
    return skip_value(p, 2);
}

/* An integral number in [lo, hi] into *out. */
static bool int_in(jp *p, double lo, double hi, double *out) {
    if (!num(p, out)) return false;
    if (*out < lo || *out > hi || *out != (double)(int64_t)*out) return fail(p, "a number out of range");
    return true;
}

static bool header_member(jp *p, const char *key, void *ctx) {
    rec_ctx *c = ctx;
    double v;
    if (strcmp(key, "id") == 0) {
        char id[40];
        if (!str(p, id, sizeof id)) return false;
        char *e;
        c->r.comm_id = strtoull(id, &e, 16);
        return *e == '\0' ? true : fail(p, "header.id is no hex number");
    }
    if (strcmp(key, "rank") == 0) { c->has_rank = int_in(p, 0, INT32_MAX, &v); c->r.rank = (int32_t)v; return c->has_rank; }
    if (strcmp(key, "n_ranks") == 0) { c->has_n_ranks = int_in(p, 1, INT32_MAX, &v); c->r.n_ranks = (int32_t)v; return c->has_n_ranks; }
    if (strcmp(key, "nnodes") == 0) { if (!int_in(p, 0, UINT16_MAX, &v)) return false; c->r.nnodes = (uint16_t)v; return true; }
    return skip_value(p, 2); /* comm_name and later members */
}

static bool metadata_member(jp *p, const char *key, void *ctx) {
    rec_ctx *c = ctx;
    if (strcmp(key, "hostname") == 0) return str(p, c->hostname, sizeof c->hostname);
    if (strcmp(key, "inspector_output_format_version") == 0) return str(p, c->version, sizeof c->version);
    if (strcmp(key, "pid") == 0) return int_in(p, 0, 9e15, &c->pid);
    if (strcmp(key, "dump_timestamp_us") == 0) {
        double v;
        if (!int_in(p, 0, 9e15, &v)) return false;
        c->r.dump_us = (int64_t)v;
        return true;
    }
    return skip_value(p, 2); /* git_rev, rec_mechanism */
}

/* coll_timing_source / p2p_timing_source: kernel_gpu, kernel_cpu, collective_cpu (tc_nccl_timing). */
static bool timing_source(jp *p, uint8_t *out) {
    char src[32];
    if (!str(p, src, sizeof src)) return false;
    *out = (uint8_t)(strcmp(src, "kernel_gpu") == 0 ? TC_NCCL_TIMING_KERNEL_GPU
                     : strcmp(src, "kernel_cpu") == 0 ? TC_NCCL_TIMING_KERNEL_CPU
                     : strcmp(src, "collective_cpu") == 0 ? TC_NCCL_TIMING_COLLECTIVE_CPU
                                                           : TC_NCCL_TIMING_UNKNOWN);
    return true;
}

static bool coll_member(jp *p, const char *key, void *ctx) {
    rec_ctx *c = ctx;
    double v;
    if (strcmp(key, "coll") == 0) {
        char name[48];
        if (!str(p, name, sizeof name)) return false;
        c->r.coll = (uint8_t)tc_nccl_coll_of(name);
        return c->has_coll = true;
    }
    if (strcmp(key, "coll_timing_source") == 0) return timing_source(p, &c->r.timing);
    if (strcmp(key, "coll_sn") == 0) { c->has_sn = int_in(p, 0, 9e18, &v); c->r.sn = (int64_t)v; return c->has_sn; }
    if (strcmp(key, "coll_msg_size_bytes") == 0) { c->has_bytes = int_in(p, 0, 9e18, &v); c->r.bytes = (int64_t)v; return c->has_bytes; }
    if (strcmp(key, "coll_exec_time_us") == 0) {
        if (!num(p, &c->r.exec_us)) return false;
        return (c->has_exec = c->r.exec_us >= 0) ? true : fail(p, "a negative coll_exec_time_us");
    }
    double bw;
    if (strcmp(key, "coll_busbw_gbs") == 0 || strcmp(key, "coll_algobw_gbs") == 0) return num(p, &bw); /* recomputed */
    if (strcmp(key, "coll_algo") == 0) return str(p, c->algo, sizeof c->algo);
    if (strcmp(key, "coll_proto") == 0) return str(p, c->proto, sizeof c->proto);
    if (strcmp(key, "event_trace_ts") == 0) return object(p, trace_ts_member, ctx, 2);
    return skip_value(p, 2); /* event_trace_sn, later members */
}

/* p2p_perf (inspector_json.cc inspectorCompletedP2p): p2p ("Send", "Recv"), p2p_sn, p2p_peer,
 * p2p_msg_size_bytes, p2p_exec_time_us, p2p_timing_source; the bandwidths are recomputed. */
static bool p2p_member(jp *p, const char *key, void *ctx) {
    rec_ctx *c = ctx;
    double v;
    if (strcmp(key, "p2p") == 0) {
        char name[16];
        if (!str(p, name, sizeof name)) return false;
        c->q.send = strcmp(name, "Send") == 0;
        c->has_p2p_kind = c->q.send || strcmp(name, "Recv") == 0;
        return true;
    }
    if (strcmp(key, "p2p_sn") == 0) { c->has_sn = int_in(p, 0, 9e18, &v); c->q.sn = (int64_t)v; return c->has_sn; }
    if (strcmp(key, "p2p_peer") == 0) { c->has_peer = int_in(p, 0, INT32_MAX, &v); c->q.peer = (int32_t)v; return c->has_peer; }
    if (strcmp(key, "p2p_msg_size_bytes") == 0) { c->has_bytes = int_in(p, 0, 9e18, &v); c->q.bytes = (int64_t)v; return c->has_bytes; }
    if (strcmp(key, "p2p_exec_time_us") == 0) {
        if (!num(p, &c->q.exec_us)) return false;
        return (c->has_exec = c->q.exec_us >= 0) ? true : fail(p, "a negative p2p_exec_time_us");
    }
    if (strcmp(key, "p2p_timing_source") == 0) return timing_source(p, &c->q.timing);
    return skip_value(p, 2); /* p2p_algobw_gbs, p2p_busbw_gbs, the verbose event traces */
}

static bool top_member(jp *p, const char *key, void *ctx) {
    rec_ctx *c = ctx;
    if (strcmp(key, "header") == 0) return object(p, header_member, ctx, 1);
    if (strcmp(key, "metadata") == 0) return object(p, metadata_member, ctx, 1);
    if (strcmp(key, "coll_perf") == 0) return object(p, coll_member, ctx, 1);
    if (strcmp(key, "p2p_perf") == 0) { c->p2p = true; return object(p, p2p_member, ctx, 1); }
    if (strcmp(key, "dump_stats") == 0) { c->stats = true; return object(p, stats_member, ctx, 1); }
    return skip_value(p, 1);
}


/* ---- one event of the example profiler plugin's trace ------------------------------------------ */

typedef struct {
    char name[48], cat[24], ph[4], algo[16], proto[16], dtype[32];
    double pid, ts;
    uint64_t seq, hash, count;
    double id;
    int32_t rank, channels;
    bool has_seq, has_hash, has_rank, has_count;
} plug_ctx;

/* An unsigned decimal integer (CommHash needs all 64 bits: no double). */
static bool u64(jp *p, uint64_t *out, bool *has) {
    char tok[32], *e;
    if (!token(p, tok, sizeof tok)) return false;
    errno = 0;
    *out = strtoull(tok, &e, 10);
    if (*e || !tok[0] || tok[0] == '-' || errno == ERANGE) return fail(p, "an unsigned integer expected");
    return *has = true;
}

static bool args_member(jp *p, const char *key, void *ctx) {
    plug_ctx *c = ctx;
    double v;
    if (strcmp(key, "SeqNum") == 0) return u64(p, &c->seq, &c->has_seq);
    if (strcmp(key, "CommHash") == 0) return u64(p, &c->hash, &c->has_hash);
    if (strcmp(key, "Count") == 0) return u64(p, &c->count, &c->has_count);
    if (strcmp(key, "Rank") == 0) { c->has_rank = int_in(p, 0, INT32_MAX, &v); c->rank = (int32_t)v; return c->has_rank; }
    if (strcmp(key, "nChannels") == 0 || strcmp(key, "nMaxChannels") == 0) {
        if (!int_in(p, 0, INT32_MAX, &v)) return false;
        c->channels = (int32_t)v;
        return true;
    }
    if (strcmp(key, "Datatype") == 0) return token(p, c->dtype, sizeof c->dtype);
    if (strcmp(key, "Algorithm") == 0) return token(p, c->algo, sizeof c->algo);
    if (strcmp(key, "Protocol") == 0) return token(p, c->proto, sizeof c->proto);
    return skip_value(p, 3);
}

static bool event_member(jp *p, const char *key, void *ctx) {
    plug_ctx *c = ctx;
    if (strcmp(key, "name") == 0) return token(p, c->name, sizeof c->name);
    if (strcmp(key, "cat") == 0) return token(p, c->cat, sizeof c->cat);
    if (strcmp(key, "ph") == 0) return token(p, c->ph, sizeof c->ph);
    if (strcmp(key, "pid") == 0) return int_in(p, 0, 9e15, &c->pid);
    if (strcmp(key, "ts") == 0) return num(p, &c->ts);
    if (strcmp(key, "id") == 0) return num(p, &c->id);
    if (strcmp(key, "args") == 0) return object(p, args_member, ctx, 2);
    return skip_value(p, 1);
}

/* The size in bytes of an ncclDataType_t, by name ("ncclBfloat16") or by its number (older
 * versions), 0 unknown. */
static int64_t dtype_size(const char *d) {
    static const struct { const char *name; int64_t size; } names[] = {
        {"ncclInt8", 1}, {"ncclChar", 1}, {"ncclUint8", 1}, {"ncclInt32", 4}, {"ncclInt", 4}, {"ncclUint32", 4},
        {"ncclInt64", 8}, {"ncclUint64", 8}, {"ncclFloat16", 2}, {"ncclHalf", 2}, {"ncclFloat32", 4},
        {"ncclFloat", 4}, {"ncclFloat64", 8}, {"ncclDouble", 8}, {"ncclBfloat16", 2}, {"ncclFloat8e4m3", 1},
        {"ncclFloat8e5m2", 1}};
    static const int64_t by_number[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1}; /* ncclInt8 = 0 ... ncclFloat8e5m2 = 11 */
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(d, names[i].name) == 0) return names[i].size;
    char *e;
    long k = strtol(d, &e, 10);
    return d[0] && !*e && k >= 0 && k < (long)(sizeof by_number / sizeof *by_number) ? by_number[k] : 0;
}

/* The index of (algo, proto, channels) in log->mixes, added when new (the last one when full). */
static uint8_t mix_of(tc_nccl_log *log, const char *algo, const char *proto, int32_t channels) {
    for (size_t i = 0; i < log->n_mixes; i++) {
        const tc_nccl_mix *m = &log->mixes[i];
        if (m->channels == channels && !strcmp(m->algorithm, algo) && !strcmp(m->protocol, proto)) return (uint8_t)i;
    }
    if (log->n_mixes == TC_NCCL_MAX_MIXES) return TC_NCCL_MAX_MIXES - 1;
    tc_nccl_mix *m = &log->mixes[log->n_mixes];
    snprintf(m->algorithm, sizeof m->algorithm, "%s", algo);
    snprintf(m->protocol, sizeof m->protocol, "%s", proto);
    m->channels = channels;
    return (uint8_t)log->n_mixes++;
}

/* ---- the file --------------------------------------------------------------------------------- */

typedef struct {
    const char *path;
    tc_nccl_log *log;
    tc_notes *notes;
    size_t file;       /* index into log->files */
    char *obj; size_t n, cap; /* the object being cut */
    uint64_t at;       /* byte offset of the next byte */
    uint64_t obj_at;   /* where the object began */
    int depth; bool in_str, esc, too_long, garbage;
    size_t p2p;        /* p2p_perf records read (log->p2ps) */
    bool plugin;       /* a plugin trace: a JSON array of events, '[' ',' ']' between them */
    /* plugin: the COLL event the PROXY / NET events being read nest in, and the open NET state */
    bool in_coll, open;
    uint64_t cur_hash; int64_t cur_sn; uint8_t cur_coll;
    size_t cur_px;     /* its entry in log->proxies, SIZE_MAX none yet */
    char open_name[48]; double open_id, open_ts;
} reading;

/* The class of a NET step-state event's name (tc_nccl_px), -1 not a step state. */
static int px_class(const char *name) {
    static const struct { const char *name; int cls; } states[] = {
        {"SendGpuWait", TC_NCCL_PX_GPU}, {"RecvGpuWait", TC_NCCL_PX_GPU}, {"SendPeerWait", TC_NCCL_PX_PEER},
        {"SendWait", TC_NCCL_PX_NET}, {"RecvWait", TC_NCCL_PX_NET}, {"RecvFlushWait", TC_NCCL_PX_OTHER},
        {"SendBufferWait", TC_NCCL_PX_OTHER}, {"RecvBufferWait", TC_NCCL_PX_OTHER}};
    for (size_t i = 0; i < sizeof states / sizeof *states; i++)
        if (strcmp(name, states[i].name) == 0) return states[i].cls;
    return -1;
}

/* A plugin event other than a COLL's beginning: a COLL or P2P event opens or closes the context of
 * the PROXY / NET events the plugin prints inside it; a NET step state's "b" opens it, its "e"
 * (same name and id, the next NET event) adds its time to the enclosing COLL record's proxy entry.
 * Steps under a P2P event or outside any COLL are counted apart. 0, or -1 out of memory. */
static int proxy_event(reading *rd, const plug_ctx *c) {
    bool b = strcmp(c->ph, "b") == 0, e = strcmp(c->ph, "e") == 0;
    if (strcmp(c->cat, "COLL") == 0 || strcmp(c->cat, "P2P") == 0) {
        if (b || e) { rd->in_coll = false; rd->open = false; }
        return 0;
    }
    if (strcmp(c->cat, "NET") != 0) return 0;
    if (b) {
        snprintf(rd->open_name, sizeof rd->open_name, "%s", c->name);
        rd->open_id = c->id;
        rd->open_ts = c->ts;
        rd->open = true;
        return 0;
    }
    if (!e || !rd->open || strcmp(rd->open_name, c->name) != 0 || rd->open_id != c->id) return 0;
    rd->open = false;
    int cls = px_class(c->name);
    bool last = strcmp(c->name, "SendWait") == 0 || strcmp(c->name, "RecvGpuWait") == 0;
    if (cls < 0 || c->ts < rd->open_ts) return 0;
    if (!rd->in_coll) { rd->log->proxy_steps_p2p += last; return 0; }
    if (rd->cur_px == SIZE_MAX) {
        tc_nccl_proxy px;
        memset(&px, 0, sizeof px);
        px.comm_id = rd->cur_hash;
        px.sn = rd->cur_sn;
        px.coll = rd->cur_coll;
        px.file = (uint16_t)rd->file;
        if (TC_PUSH(rd->log->proxies, rd->log->n_proxies, rd->log->cap_proxies, px)) return -1;
        rd->cur_px = rd->log->n_proxies - 1;
    }
    tc_nccl_proxy *px = &rd->log->proxies[rd->cur_px];
    px->ns[cls] += (c->ts - rd->open_ts) * 1e3;
    px->steps += last;
    return 0;
}

/* A plugin event: a COLL event's beginning ("ph": "b") becomes a record, the others are read past. */
static int take_event(reading *rd) {
    plug_ctx c;
    memset(&c, 0, sizeof c);
    c.pid = -1;
    c.channels = -1;
    jp p = {rd->obj, rd->obj + rd->n, NULL, true, false};
    tc_nccl_file *f = &rd->log->files[rd->file];
    bool ok = object(&p, event_member, &c, 0);
    bool coll = ok && strcmp(c.cat, "COLL") == 0 && strcmp(c.ph, "b") == 0;
    int64_t size = coll ? dtype_size(c.dtype) : 1;
    const char *why = !ok ? p.err
                      : coll && !(c.has_seq && c.has_hash && c.has_rank && c.has_count) ? "a COLL event without SeqNum, CommHash, Rank or Count"
                      : !size ? "a COLL event of an unknown Datatype" : NULL;
    if (why) {
        tc_notes_add(rd->notes, TC_NOTE_DAMAGED, rd->path, "%s: byte %llu: not an NCCL profiler plugin event (%s): event skipped",
                     rd->path, (unsigned long long)rd->obj_at, why);
        f->skipped++;
        if (coll) rd->in_coll = false; /* its steps belong to no record */
        return 0;
    }
    f->lenient |= p.bare;
    if (f->pid < 0 && c.pid >= 0) f->pid = (int64_t)c.pid;
    if (!coll) return proxy_event(rd, &c);
    tc_nccl_record r;
    memset(&r, 0, sizeof r);
    r.comm_id = c.hash;
    r.sn = (int64_t)c.seq;
    r.bytes = (int64_t)c.count * size;
    r.rank = c.rank;
    r.dump_us = c.ts >= 0 && c.ts < 9e15 ? (int64_t)llround(c.ts) : 0; /* the event's time, the plugin's clock */
    r.file = (uint16_t)rd->file;
    r.coll = (uint8_t)tc_nccl_coll_of(c.name);
    r.plugin = 1;
    r.mix = mix_of(rd->log, c.algo, c.proto, c.channels);
    if (TC_PUSH(rd->log->records, rd->log->n_records, rd->log->cap_records, r)) return -1;
    rd->in_coll = true;
    rd->open = false;
    rd->cur_hash = r.comm_id;
    rd->cur_sn = r.sn;
    rd->cur_coll = r.coll;
    rd->cur_px = SIZE_MAX;
    f->records++;
    return 0;
}

/* A p2p_perf record into log->p2ps (one without its fields: skipped with a warning). 0, or -1 out of memory. */
static int take_p2p(reading *rd, rec_ctx *c) {
    tc_nccl_file *f = &rd->log->files[rd->file];
    const char *why = !c->has_rank || !c->has_n_ranks ? "no header.rank or header.n_ranks"
                      : !c->has_p2p_kind || !c->has_peer ? "no p2p Send/Recv or p2p_peer"
                      : !c->has_sn || !c->has_bytes || !c->has_exec ? "no p2p_sn, p2p_msg_size_bytes or p2p_exec_time_us"
                      : c->r.rank >= c->r.n_ranks || c->q.peer >= c->r.n_ranks ? "header.rank or p2p_peer is not below header.n_ranks"
                      : NULL;
    if (why) {
        tc_notes_add(rd->notes, TC_NOTE_DAMAGED, rd->path, "%s: byte %llu: not an NCCL Inspector record (%s): record skipped",
                     rd->path, (unsigned long long)rd->obj_at, why);
        f->skipped++;
        return 0;
    }
    if (!f->hostname && c->hostname[0] && !(f->hostname = tc_strdup(c->hostname))) return -1;
    if (f->pid < 0 && c->pid >= 0) f->pid = (int64_t)c->pid;
    if (!f->version[0]) memcpy(f->version, c->version, sizeof f->version);
    c->q.comm_id = c->r.comm_id;
    c->q.dump_us = c->r.dump_us;
    c->q.rank = c->r.rank;
    c->q.n_ranks = c->r.n_ranks;
    c->q.file = (uint16_t)rd->file;
    if (TC_PUSH(rd->log->p2ps, rd->log->n_p2ps, rd->log->cap_p2ps, c->q)) return -1;
    rd->p2p++;
    return 0;
}

static int take_object(reading *rd) {
    rec_ctx c;
    memset(&c, 0, sizeof c);
    c.pid = -1;
    c.channels = -1;
    jp p = {rd->obj, rd->obj + rd->n, NULL, false, false};
    tc_nccl_file *f = &rd->log->files[rd->file];
    bool ok = object(&p, top_member, &c, 0);
    const char *why = !ok ? p.err
                      : (c.p2p || c.stats) && !c.has_coll ? NULL
                      : !c.has_rank || !c.has_n_ranks ? "no header.rank or header.n_ranks"
                      : !c.has_coll ? "no coll_perf"
                      : !c.has_sn || !c.has_bytes || !c.has_exec ? "no coll_sn, coll_msg_size_bytes or coll_exec_time_us"
                      : c.r.rank >= c.r.n_ranks ? "header.rank is not below header.n_ranks" : NULL;
    if (why) {
        tc_notes_add(rd->notes, TC_NOTE_DAMAGED, rd->path, "%s: byte %llu: not an NCCL Inspector record (%s): record skipped",
                     rd->path, (unsigned long long)rd->obj_at, why);
        f->skipped++;
        return 0;
    }
    if (c.p2p && !c.has_coll) return take_p2p(rd, &c);
    if (c.stats && !c.has_coll) { f->dump_stats++; f->ring_dropped += (int64_t)c.dropped; return 0; } /* v4.2's per-dump counts */
    if (!f->hostname && c.hostname[0] && !(f->hostname = tc_strdup(c.hostname))) return -1;
    if (f->pid < 0 && c.pid >= 0) f->pid = (int64_t)c.pid;
    if (!f->version[0]) memcpy(f->version, c.version, sizeof f->version);
    c.r.file = (uint16_t)rd->file;
    /* v4.2+: the algorithm and protocol; the verbose form's channel count (any version) */
    c.r.mix = c.algo[0] || c.proto[0] || c.channels >= 0 ? mix_of(rd->log, c.algo, c.proto, c.channels) : TC_NCCL_NO_MIX;
    if (TC_PUSH(rd->log->records, rd->log->n_records, rd->log->cap_records, c.r)) return -1;
    f->records++;
    return 0;
}

static void garbage_at(reading *rd, uint64_t at) {
    if (rd->garbage) return;
    rd->garbage = true;
    rd->log->files[rd->file].skipped++;
    tc_notes_add(rd->notes, TC_NOTE_DAMAGED, rd->path, "%s: byte %llu: text outside a JSON object: skipped to the next object",
                 rd->path, (unsigned long long)at);
}

/* The next len bytes of the file. 0, or -1 out of memory. */
static int feed(reading *rd, const char *buf, size_t len) {
    for (size_t i = 0; i < len; i++, rd->at++) {
        char ch = buf[i];
        if (rd->depth == 0) {
            if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') continue;
            if (rd->plugin && (ch == '[' || ch == ',' || ch == ']')) continue;
            if (ch != '{') { garbage_at(rd, rd->at); continue; }
            rd->garbage = false;
            rd->obj_at = rd->at;
            rd->n = 0;
            rd->too_long = false;
        }
        if (!rd->too_long) {
            if (rd->n >= TC_NCCL_MAX_OBJECT) rd->too_long = true;
            else if (TC_PUSH(rd->obj, rd->n, rd->cap, ch)) return -1;
        }
        if (rd->in_str) {
            if (rd->esc) rd->esc = false;
            else if (ch == '\\') rd->esc = true;
            else if (ch == '"') rd->in_str = false;
            continue;
        }
        if (ch == '"') rd->in_str = true;
        else if (ch == '{') rd->depth++;
        else if (ch == '}' && --rd->depth == 0) {
            if (rd->too_long) {
                rd->log->files[rd->file].skipped++;
                tc_notes_add(rd->notes, TC_NOTE_DAMAGED, rd->path, "%s: byte %llu: an object longer than %u bytes: record skipped",
                             rd->path, (unsigned long long)rd->obj_at, TC_NCCL_MAX_OBJECT);
            } else if (rd->plugin ? take_event(rd) : take_object(rd)) return -1;
        }
    }
    return 0;
}

static tc_status read_open(reading *rd, FILE *fp, tc_error *e) {
    char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0)
        if (feed(rd, buf, got)) return tc_error_set(e, TC_ERR_NOMEM, "out of memory");
    if (ferror(fp)) return tc_error_set(e, TC_ERR_INPUT, "%s: read error: %s", rd->path, strerror(errno));
    if (rd->depth > 0) {
        rd->log->files[rd->file].skipped++;
        tc_notes_add(rd->notes, TC_NOTE_DAMAGED, rd->path, "%s: byte %llu: the last record is cut short (the file ends at byte %llu): record skipped",
                     rd->path, (unsigned long long)rd->obj_at, (unsigned long long)rd->at);
    }
    return TC_OK;
}

bool tc_nccl_inspector_sniff(const char *head, size_t len) {
    size_t i = 0;
    while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    if (i >= len || head[i++] != '{') return false;
    while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    return len - i >= 8 && memcmp(head + i, "\"header\"", 8) == 0;
}

bool tc_nccl_plugin_sniff(const char *head, size_t len) {
    size_t i = 0;
    while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    if (i >= len || head[i++] != '[') return false;
    while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    if (i >= len || head[i] != '{') return false;
    size_t end = i;
    while (end < len && head[end] != '\n') end++;
    static const char *const cats[] = {"GROUP_API", "COLL_API", "P2P_API", "KERNEL_LAUNCH", "GROUP", "COLL", "P2P",
                                       "PROXY", "NET", "GPU", "NET_IB", "NET_SOCK"};
    for (size_t k = 0; k < sizeof cats / sizeof *cats; k++) {
        char want[40];
        int n = snprintf(want, sizeof want, "\"cat\": \"%s\"", cats[k]);
        for (size_t at = i; at + (size_t)n <= end; at++)
            if (memcmp(head + at, want, (size_t)n) == 0) return true;
    }
    return false;
}

tc_status tc_nccl_inspector_read(const char *path, tc_nccl_log *log, tc_notes *notes, tc_error *e) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return tc_error_set(e, TC_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    char head[4096];
    size_t hn = fread(head, 1, sizeof head, fp);
    bool plugin = tc_nccl_plugin_sniff(head, hn), prom = !plugin && tc_nccl_prom_sniff(head, hn);
    if (!plugin && !prom && !tc_nccl_inspector_sniff(head, hn)) {
        fclose(fp);
        return tc_error_set(e, TC_ERR_INPUT, "%s: not an NCCL Inspector log (no object beginning with \"header\") nor an "
                            "NCCL profiler plugin trace (no array of its events) nor an Inspector Prometheus file", path);
    }
    if (log->n_files >= UINT16_MAX) { fclose(fp); return tc_error_set(e, TC_ERR_INPUT, "%s: more than %u NCCL logs", path, UINT16_MAX); }
    tc_nccl_file nf;
    memset(&nf, 0, sizeof nf);
    nf.pid = -1;
    nf.plugin = plugin;
    nf.prom = prom;
    if (!(nf.path = tc_strdup(path)) || TC_PUSH(log->files, log->n_files, log->cap_files, nf)) {
        free(nf.path);
        fclose(fp);
        return tc_error_set(e, TC_ERR_NOMEM, "out of memory");
    }
    if (prom) {
        rewind(fp);
        tc_status st = tc_nccl_prom_read(path, fp, log->n_files - 1, log, notes, e);
        fclose(fp);
        return st;
    }
    reading rd = {.path = path, .log = log, .notes = notes, .file = log->n_files - 1, .plugin = plugin};
    tc_status st = feed(&rd, head, hn) ? tc_error_set(e, TC_ERR_NOMEM, "out of memory") : read_open(&rd, fp, e);
    free(rd.obj);
    fclose(fp);
    return st;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Whether path's first bytes are an Inspector log's (false when it cannot be read). */
static bool sniff_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return false;
    char head[4096];
    size_t hn = fread(head, 1, sizeof head, fp);
    fclose(fp);
    return tc_nccl_inspector_sniff(head, hn) || tc_nccl_plugin_sniff(head, hn) || tc_nccl_prom_sniff(head, hn);
}

/* The regular files of dir that are Inspector logs, read in name order. */
static tc_status read_folder(const char *dir, tc_nccl_log *log, tc_notes *notes) {
    DIR *d = opendir(dir);
    if (!d) {
        tc_notes_add(notes, TC_NOTE_NOT_LOADED, dir, "%s: cannot open folder: %s", dir, strerror(errno));
        return TC_ERR_INPUT;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    tc_status st = TC_OK;
    struct dirent *de;
    while (st == TC_OK && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char *p = tc_format_alloc("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
        struct stat sb;
        if (p && (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode) || !sniff_file(p))) { free(p); continue; }
        if (!p || TC_PUSH(names, n, cap, p)) { free(p); st = TC_ERR_NOMEM; }
    }
    closedir(d);
    if (names) tc_sort(names, n, sizeof *names, cmp_str);
    if (st == TC_OK && n == 0) {
        tc_notes_add(notes, TC_NOTE_NOT_LOADED, dir, "%s: folder holds no NCCL Inspector logs", dir);
        st = TC_ERR_INPUT;
    }
    for (size_t i = 0; i < n && st != TC_ERR_NOMEM; i++) {
        tc_error e;
        tc_status s = tc_nccl_inspector_read(names[i], log, notes, &e);
        if (s == TC_ERR_INPUT) { tc_notes_add(notes, TC_NOTE_NOT_LOADED, names[i], "%s", e.msg); st = TC_ERR_INPUT; }
        else if (s != TC_OK) st = s;
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return st;
}

bool tc_nccl_file_sniff(const char *path) { return sniff_file(path); }

tc_status tc_nccl_read_paths(char *const *paths, size_t n, bool required, tc_nccl_log *log, tc_notes *notes) {
    tc_status st = TC_OK;
    for (size_t i = 0; i < n && st != TC_ERR_NOMEM; i++) {
        struct stat sb;
        tc_status s;
        if (required && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)) s = read_folder(paths[i], log, notes);
        else if (!required && !sniff_file(paths[i])) continue; /* a *.log beside the traces that is no Inspector log */
        else {
            tc_error e;
            s = tc_nccl_inspector_read(paths[i], log, notes, &e);
            if (s == TC_ERR_INPUT) tc_notes_add(notes, TC_NOTE_NOT_LOADED, paths[i], "%s", e.msg);
        }
        if (s != TC_OK) st = s;
    }
    return st;
}
