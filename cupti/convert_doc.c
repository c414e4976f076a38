/* convert_doc.c: CUPTI activity records -> Kineto Chrome-trace JSON (see convert.h for the
 * contract): the converter's life (new, begin, abort, free), the JSON text forms
 * (tc_conv_format_us, tc_conv_escape) and closing a document (tc_conv_finish); each record kind
 * becomes its events in convert_events.c. Output is formatted into a 64 KiB buffer handed to the
 * sink when full (convert_int.h); all times are integer nanoseconds until they are printed. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "convert_int.h"
#include "base/utf8.h"
#include <assert.h>

const char *tc_conv_status_str(tc_conv_status s) {
    switch (s) {
    case TC_CONV_OK: return "ok";
    case TC_CONV_ERR_NOMEM: return "out of memory";
    case TC_CONV_ERR_WRITE: return "write failed";
    case TC_CONV_ERR_STATE: return "converter used outside an open document";
    }
    return "unknown status";
}

/* ---------- JSON text ---------- */

size_t tc_conv_format_us(int64_t ns, char *buf) {
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    int n = snprintf(buf, 32, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", mag / 1000,
                     (unsigned)(mag % 1000));
    return (size_t)n;
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
