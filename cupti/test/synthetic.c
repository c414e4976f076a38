/* synthetic.c: builds the planted trace of synthetic.h from real CUDA 13 activity record
 * structs and converts it. Test-only code. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "synthetic.h"
#include "records.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define US 1000ull
#define T(us) (TC_SYNTH_T0_NS + (uint64_t)(us) * US)

enum { CB_MEMCPY_ASYNC = 41, CB_MEMSET_ASYNC = 51, CB_STREAM_SYNC = 131, CB_GET_DEVICE = 17,
       CB_LAUNCH = 211 };

static const char *names(void *ctx, tc_api_domain dom, uint32_t cbid) {
    (void)ctx;
    if (dom != TC_API_RUNTIME) return NULL;
    switch (cbid) {
    case CB_MEMCPY_ASYNC: return "cudaMemcpyAsync_v3020";
    case CB_MEMSET_ASYNC: return "cudaMemsetAsync_v3020";
    case CB_STREAM_SYNC: return "cudaStreamSynchronize_v3020";
    case CB_GET_DEVICE: return "cudaGetDevice_v3020";
    case CB_LAUNCH: return "cudaLaunchKernel_v7000";
    default: return NULL;
    }
}

typedef struct synth {
    tc_conv *c;
    tc_conv_status st; /* first failure */
} synth;

static void feed(synth *s, const void *rec) {
    tc_conv_status st = tc_conv_record(s->c, (const CUpti_Activity *)rec);
    if (s->st == TC_CONV_OK) s->st = st;
}

static void api(synth *s, uint32_t cbid, uint32_t corr, uint64_t start, uint64_t end) {
    CUpti_ActivityAPI a = tc_rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, cbid, corr, start, end, TC_SYNTH_PID, TC_SYNTH_TID);
    feed(s, &a);
}

/* A kernel and its launch 10 µs earlier. */
static void kernel(synth *s, const char *name, uint32_t stream, uint32_t corr, int start_us,
                   int end_us) {
    api(s, CB_LAUNCH, corr, T(start_us) - 10 * US, T(start_us) - 5 * US);
    CUpti_ActivityKernel10 k = tc_rec_kernel(name, T(start_us), T(end_us), 0, 1, stream, corr);
    k.gridX = 264;
    k.gridY = 2;
    k.blockX = 256;
    k.registersPerThread = 96;
    k.staticSharedMemory = 16384;
    k.dynamicSharedMemory = 32768;
    feed(s, &k);
}

static void memcpy_rec(synth *s, uint8_t kind, uint8_t src, uint8_t dst, uint32_t stream,
                       uint32_t corr, int start_us, int end_us, uint64_t bytes) {
    api(s, CB_MEMCPY_ASYNC, corr, T(start_us) - 10 * US, T(start_us) - 5 * US);
    CUpti_ActivityMemcpy6 m = tc_rec_memcpy(kind, src, dst, bytes, T(start_us), T(end_us), 1, stream, corr);
    feed(s, &m);
}

static void marker(synth *s, uint32_t id, CUpti_ActivityFlag flag, uint64_t ts, const char *name,
                   const char *domain) {
    CUpti_ActivityMarker2 m = tc_rec_marker(id, flag, ts, name, TC_SYNTH_PID, TC_SYNTH_TID);
    m.domain = domain;
    feed(s, &m);
}

tc_conv_status tc_cupti_synthetic_emit(tc_conv_write_fn write, void *ctx, int rank,
                                       int world_size) {
    tc_conv_config cfg = {
        .api_name = names,
        .step_range = "train_step",
        .process_name = "python3",
        .pid = TC_SYNTH_PID,
    };
    synth s = {NULL, TC_CONV_OK};
    tc_conv_status st = tc_conv_new(&cfg, &s.c);
    if (st != TC_CONV_OK) return st;
    st = tc_conv_begin(s.c, write, ctx, TC_SYNTH_BASE_NS);
    if (st != TC_CONV_OK) {
        tc_conv_free(s.c);
        return st;
    }

    CUpti_ActivityDevice5 d;
    memset(&d, 0, sizeof d);
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.id = 0;
    d.name = "Synthetic H100";
    d.globalMemorySize = 85899345920ull;
    d.numMultiprocessors = 132;
    d.computeCapabilityMajor = 9;
    d.computeCapabilityMinor = 0;
    d.numThreadsPerWarp = 32;
    d.maxWarpsPerMultiprocessor = 64;
    d.maxThreadsPerBlock = 1024;
    d.maxRegistersPerBlock = 65536;
    d.maxRegistersPerMultiprocessor = 65536;
    d.maxSharedMemoryPerBlock = 49152;
    d.maxSharedMemoryPerMultiprocessor = 233472;
    d.l2CacheSize = 52428800;
    feed(&s, &d);

    CUpti_ActivityExternalCorrelation ec;
    memset(&ec, 0, sizeof ec);
    ec.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    ec.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    ec.externalId = 77;
    ec.correlationId = 1;
    feed(&s, &ec);

    marker(&s, 1, CUPTI_ACTIVITY_FLAG_MARKER_START, T(0), "train_step", NULL);
    kernel(&s, "void gemm_kernel<float, 128, 128>(float const*, float const*, float*)", 7, 1, 0,
           200);
    memcpy_rec(&s, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
               CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 21, 2, 50, 100, 4u << 20);
    memcpy_rec(&s, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
               CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 7, 3, 200, 250, 8u << 20);
    api(&s, CB_GET_DEVICE, 4, T(300), T(301)); /* low-value: dropped by the converter */
    kernel(&s, "void relu_kernel<float>(float*, int)", 7, 5, 400, 500);
    marker(&s, 1, CUPTI_ACTIVITY_FLAG_MARKER_END, T(500), NULL, NULL);

    marker(&s, 2, CUPTI_ACTIVITY_FLAG_MARKER_START, T(500), "train_step", NULL);
    kernel(&s, "void gemm_kernel<float, 128, 128>(float const*, float const*, float*)", 7, 6,
           500, 700);
    marker(&s, 3, CUPTI_ACTIVITY_FLAG_MARKER_START, T(540), "ncclAllReduce", "NCCL");
    kernel(&s, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 20, 7,
           550, 650);
    marker(&s, 3, CUPTI_ACTIVITY_FLAG_MARKER_END, T(545), NULL, "NCCL");

    api(&s, CB_MEMSET_ASYNC, 8, T(690), T(695));
    CUpti_ActivityMemset4 ms;
    memset(&ms, 0, sizeof ms);
    ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    ms.bytes = 1u << 20;
    ms.start = T(700);
    ms.end = T(750);
    ms.deviceId = 0;
    ms.contextId = 1;
    ms.streamId = 7;
    ms.correlationId = 8;
    ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    feed(&s, &ms);

    api(&s, CB_STREAM_SYNC, 9, T(755), T(895));
    CUpti_ActivitySynchronization2 sy;
    memset(&sy, 0, sizeof sy);
    sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    sy.start = T(760);
    sy.end = T(890);
    sy.correlationId = 9;
    sy.contextId = 1;
    sy.streamId = 7;
    feed(&s, &sy);

    kernel(&s, "void softmax_kernel<float>(float const*, float*, int)", 7, 10, 900, 1000);
    marker(&s, 2, CUPTI_ACTIVITY_FLAG_MARKER_END, T(1000), NULL, NULL);

    tc_conv_finish_info info = {
        .rank = rank, .world_size = world_size, .local_rank = -1,
        .trace_name = "synthetic.pt.trace.json", .cupti_version = 130001, .window = 1,
    };
    st = tc_conv_finish(s.c, &info);
    if (s.st == TC_CONV_OK) s.st = st;
    tc_conv_free(s.c);
    return s.st;
}

static int file_write(void *ctx, const char *data, size_t len) {
    return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

static int gz_write(void *ctx, const char *data, size_t len) {
    return gzwrite((gzFile)ctx, data, (unsigned)len) == (int)len ? 0 : -1;
}

int tc_cupti_write_synthetic_trace(const char *path, int rank, int world_size) {
    size_t n = strlen(path);
    int rc;
    if (n > 3 && strcmp(path + n - 3, ".gz") == 0) {
        gzFile gz = gzopen(path, "wb");
        if (!gz) return -1;
        rc = tc_cupti_synthetic_emit(gz_write, gz, rank, world_size) == TC_CONV_OK ? 0 : -1;
        if (gzclose(gz) != Z_OK) rc = -1;
    } else {
        FILE *f = fopen(path, "wb");
        if (!f) return -1;
        rc = tc_cupti_synthetic_emit(file_write, f, rank, world_size) == TC_CONV_OK ? 0 : -1;
        if (fclose(f) != 0) rc = -1;
    }
    if (rc != 0 && errno == 0) errno = EIO;
    return rc;
}
