/* convert_events.c: one CUPTI record -> its Kineto events (see convert.h): kernels, copies and sets
 * with their args, runtime and driver API calls with their names and ac2g flows, synchronization,
 * NVTX ranges and instants; and what records teach that later events need (devices, contexts,
 * external correlations, the streams and threads seen). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "convert_int.h"

/* `lead` then "x, y, z" (a kernel's grid or block). */
static void put_dims(tc_conv *c, const char *lead, int64_t x, int64_t y, int64_t z) {
    puts_(c, lead);
    put_i64(c, x);
    puts_(c, ", ");
    put_i64(c, y);
    puts_(c, ", ");
    put_i64(c, z);
}

/* ---------- small tables ---------- */

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

/* ---------- events ---------- */

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

