/* fake_cupti.c: a stand-in libcupti.so.13 for tests on machines without a GPU.
 *
 * It implements the CUPTI calls the tracer makes (buffer callbacks, enable/disable, flush,
 * record iteration, names, dropped counts) over the real CUDA 13 record types, and exports
 * fake_cupti_* functions a test program calls to "run" kernels, copies and NVTX ranges. A test
 * program linked against it and then dlopen()ing libtracecost_cupti.so gets this library for
 * the tracer's libcupti.so.13 dependency (same soname, already loaded), so the real tracer runs
 * its whole life cycle: windows, worker thread, signals, files, gzip, renames.
 *
 * Behaviour switches (environment): FAKE_CUPTI_FAIL_ENABLE=1 makes cuptiActivityEnable fail
 * with CUPTI_ERROR_UNKNOWN, as on a machine without a driver; FAKE_CUPTI_SLOW_BUFFER_MS=N makes
 * reading each buffer take N ms longer (a slow consumer, to fill the tracer's pool);
 * FAKE_CUPTI_HANG_FLUSH=1 makes cuptiActivityFlushAll never return (a wedged CUPTI). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fake_cupti.h"
#include "records.h"
#include <cupti.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* recursive: the tracer calls back into CUPTI (dropped counts) from inside the callbacks */
static pthread_mutex_t mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static CUpti_BuffersCallbackRequestFunc req_cb;
static CUpti_BuffersCallbackCompleteFunc done_cb;
static uint8_t *cur;          /* buffer being filled, from req_cb */
static size_t cur_size, cur_used;
static uint64_t enabled;      /* bit per activity kind */
static uint8_t rt_off[1024];  /* runtime cbids disabled with cuptiActivityEnableRuntimeApi */
static size_t dropped;        /* records lost since the last cuptiActivityGetNumDroppedRecords */
static uint64_t dropped_total;
static uint64_t appended_total; /* records placed in a client buffer */
static uint32_t next_corr = 1, next_marker = 1;
static int nvtx_inits;
static int thread_id_system;

#define RT_LAUNCH 211
#define RT_MEMCPY 41
#define RT_SYNC 131
#define RT_GETDEVICE 17

static uint64_t now_real(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t record_size(CUpti_ActivityKind k) {
    switch (k) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    default: return 0;
    }
}

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static void complete_current(void) { /* mu held */
    if (!cur) return;
    uint8_t *b = cur;
    size_t size = cur_size, used = cur_used;
    cur = NULL;
    cur_used = cur_size = 0;
    done_cb(NULL, 0, b, size, used);
}

/* Appends one record of kind k (len bytes at rec) when the kind is enabled. mu held. */
static void append(CUpti_ActivityKind k, const void *rec, size_t len) {
    if (!(enabled & (1ull << k)) || !req_cb) return;
    size_t need = align8(len);
    if (cur && cur_used + need > cur_size) complete_current();
    if (!cur) {
        size_t max = 0;
        req_cb(&cur, &cur_size, &max);
        cur_used = 0;
        if (!cur || cur_size < need) {
            cur = NULL;
            dropped++;
            dropped_total++;
            return;
        }
    }
    memcpy(cur + cur_used, rec, len);
    cur_used += need;
    appended_total++;
}

static void api(uint32_t cbid, uint32_t corr, uint64_t start, uint64_t end) {
    if (cbid < sizeof rt_off && rt_off[cbid]) return;
    CUpti_ActivityAPI a = tc_rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, cbid, corr, start, end, (uint32_t)getpid(),
                                     thread_id_system ? (uint32_t)gettid() : 1);
    append(CUPTI_ACTIVITY_KIND_RUNTIME, &a, sizeof a);
}

static void device_record(void) { /* mu held */
    CUpti_ActivityDevice5 d;
    memset(&d, 0, sizeof d);
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.id = 0;
    d.name = "Fake GPU";
    d.globalMemorySize = 80ull << 30;
    d.numMultiprocessors = 132;
    d.computeCapabilityMajor = 9;
    d.computeCapabilityMinor = 0;
    d.numThreadsPerWarp = 32;
    d.maxWarpsPerMultiprocessor = 64;
    d.maxThreadsPerBlock = 1024;
    append(CUPTI_ACTIVITY_KIND_DEVICE, &d, sizeof d);
}

/* ---------- the CUPTI API subset ---------- */

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str) {
    *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS"
           : result == CUPTI_ERROR_UNKNOWN ? "CUPTI_ERROR_UNKNOWN"
                                           : "CUPTI_ERROR_FAKE";
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version) {
    *version = 130001;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char **name) {
    *name = NULL;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        switch (cbid) {
        case RT_LAUNCH: *name = "cudaLaunchKernel_v7000"; break;
        case RT_MEMCPY: *name = "cudaMemcpyAsync_v3020"; break;
        case RT_SYNC: *name = "cudaStreamSynchronize_v3020"; break;
        case RT_GETDEVICE: *name = "cudaGetDevice_v3020"; break;
        default: break;
        }
    }
    return *name ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                    CUpti_BuffersCallbackCompleteFunc done) {
    pthread_mutex_lock(&mu);
    req_cb = req;
    done_cb = done;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
    thread_id_system = type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
    const char *f = getenv("FAKE_CUPTI_FAIL_ENABLE");
    if (f && strcmp(f, "1") == 0) return CUPTI_ERROR_UNKNOWN;
    if (kind == CUPTI_ACTIVITY_KIND_MEMCPY2) return CUPTI_ERROR_NOT_SUPPORTED; /* optional kind */
    pthread_mutex_lock(&mu);
    if ((unsigned)kind < 64) enabled |= 1ull << kind;
    if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) memset(rt_off, 0, sizeof rt_off);
    if (kind == CUPTI_ACTIVITY_KIND_DEVICE) device_record();
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
    pthread_mutex_lock(&mu);
    if ((unsigned)kind < 64) enabled &= ~(1ull << kind);
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
    pthread_mutex_lock(&mu);
    if (cbid < sizeof rt_off) rt_off[cbid] = !enable;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
    (void)cbid;
    (void)enable;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
    (void)flag;
    const char *hang = getenv("FAKE_CUPTI_HANG_FLUSH");
    if (hang && strcmp(hang, "1") == 0)
        for (;;) pause();
    pthread_mutex_lock(&mu);
    if (cur && cur_used > 0) complete_current();
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
                                                CUpti_Activity **record) {
    uint8_t *p = *record ? (uint8_t *)*record + align8(record_size((*record)->kind)) : buffer;
    const char *slow = *record ? NULL : getenv("FAKE_CUPTI_SLOW_BUFFER_MS");
    if (slow) {
        long ms = atol(slow);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (p >= buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    CUpti_Activity *r = (CUpti_Activity *)p;
    if (record_size(r->kind) == 0) return CUPTI_ERROR_INVALID_KIND;
    *record = r;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream,
                                                       size_t *out) {
    (void)ctx;
    (void)stream;
    pthread_mutex_lock(&mu);
    *out = dropped;
    dropped = 0;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

int InitializeInjectionNvtx2(const void *get_export_table) {
    (void)get_export_table;
    nvtx_inits++;
    return 1;
}

/* ---------- the test program's side ---------- */

void fake_cupti_kernel(const char *name, uint32_t stream, uint64_t dur_ns) {
    pthread_mutex_lock(&mu);
    uint32_t corr = next_corr++;
    uint64_t t = now_real();
    api(RT_LAUNCH, corr, t, t + 2000);
    /* CUPTI keeps kernel names alive; so do we (tests are short) */
    CUpti_ActivityKernel10 k = tc_rec_kernel(strdup(name), t + 5000, t + 5000 + dur_ns, 0, 1, stream, corr);
    k.blockX = 128;
    k.registersPerThread = 32;
    append(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, &k, sizeof k);
    pthread_mutex_unlock(&mu);
}

void fake_cupti_memcpy(uint64_t bytes, uint64_t dur_ns) {
    pthread_mutex_lock(&mu);
    uint32_t corr = next_corr++;
    uint64_t t = now_real();
    api(RT_MEMCPY, corr, t, t + 2000);
    CUpti_ActivityMemcpy6 m = tc_rec_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                            CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, bytes, t + 5000, t + 5000 + dur_ns, 1, 7,
                                            corr);
    append(CUPTI_ACTIVITY_KIND_MEMCPY, &m, sizeof m);
    pthread_mutex_unlock(&mu);
}

void fake_cupti_noise_api(void) {
    pthread_mutex_lock(&mu);
    uint64_t t = now_real();
    api(RT_GETDEVICE, next_corr++, t, t + 100);
    pthread_mutex_unlock(&mu);
}

static void marker(const char *name, uint32_t id, CUpti_ActivityFlag flag) {
    CUpti_ActivityMarker2 m = tc_rec_marker(id, flag, now_real(), name ? strdup(name) : NULL, (uint32_t)getpid(),
                                            (uint32_t)gettid());
    append(CUPTI_ACTIVITY_KIND_MARKER, &m, sizeof m);
}

uint32_t fake_cupti_range_push(const char *name) {
    pthread_mutex_lock(&mu);
    uint32_t id = next_marker++;
    marker(name, id, CUPTI_ACTIVITY_FLAG_MARKER_START);
    pthread_mutex_unlock(&mu);
    return id;
}

void fake_cupti_range_pop(uint32_t id) {
    pthread_mutex_lock(&mu);
    marker(NULL, id, CUPTI_ACTIVITY_FLAG_MARKER_END);
    pthread_mutex_unlock(&mu);
}

uint64_t fake_cupti_dropped_total(void) {
    pthread_mutex_lock(&mu);
    uint64_t d = dropped_total;
    pthread_mutex_unlock(&mu);
    return d;
}

uint64_t fake_cupti_appended_total(void) {
    pthread_mutex_lock(&mu);
    uint64_t a = appended_total;
    pthread_mutex_unlock(&mu);
    return a;
}

int fake_cupti_nvtx_inits(void) { return nvtx_inits; }
