/* records.h: CUDA 13 activity records filled the way CUPTI fills them, for the code that plays
 * CUPTI's part in tests: the planted trace (cupti/synthetic.c), the stand-in libcupti
 * (cupti/test/fake_cupti.c) and the converter tests. Each returns a zeroed record with the fields
 * the converter reads; callers set the rest (grid, block, registers, domain...). Header-only, so
 * the stand-in library needs no other object. */
#ifndef TC_CUPTI_TEST_RECORDS_H
#define TC_CUPTI_TEST_RECORDS_H
#include <cupti_activity.h>
#include <stdint.h>
#include <string.h>

/* A runtime (or driver, by kind) API call. */
static inline CUpti_ActivityAPI tc_rec_api(CUpti_ActivityKind kind, uint32_t cbid, uint32_t corr, uint64_t start,
                                           uint64_t end, uint32_t pid, uint32_t tid) {
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.cbid = cbid;
    a.start = start;
    a.end = end;
    a.processId = pid;
    a.threadId = tid;
    a.correlationId = corr;
    return a;
}

/* A kernel of one block of one thread on one-block grid (set grid and block after). */
static inline CUpti_ActivityKernel10 tc_rec_kernel(const char *name, uint64_t start, uint64_t end, uint32_t device,
                                                   uint32_t context, uint32_t stream, uint32_t corr) {
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start;
    k.end = end;
    k.deviceId = device;
    k.contextId = context;
    k.streamId = stream;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = k.blockY = k.blockZ = 1;
    k.correlationId = corr;
    k.name = name;
    return k;
}

/* A copy on device 0. */
static inline CUpti_ActivityMemcpy6 tc_rec_memcpy(uint8_t copy_kind, uint8_t src, uint8_t dst, uint64_t bytes,
                                                  uint64_t start, uint64_t end, uint32_t context, uint32_t stream,
                                                  uint32_t corr) {
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = copy_kind;
    m.srcKind = src;
    m.dstKind = dst;
    m.bytes = bytes;
    m.start = start;
    m.end = end;
    m.deviceId = 0;
    m.contextId = context;
    m.streamId = stream;
    m.correlationId = corr;
    return m;
}

/* An NVTX range start or end, or an instant mark, on one thread. */
static inline CUpti_ActivityMarker2 tc_rec_marker(uint32_t id, CUpti_ActivityFlag flag, uint64_t ts, const char *name,
                                                  uint32_t pid, uint32_t tid) {
    CUpti_ActivityMarker2 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = flag;
    m.timestamp = ts;
    m.id = id;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.processId = pid;
    m.objectId.pt.threadId = tid;
    m.name = name;
    return m;
}
#endif
