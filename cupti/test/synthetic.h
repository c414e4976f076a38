/* synthetic.h: a planted trace made of real CUDA 13 activity records run through the converter,
 * for tests (test-only code; not part of the tracer library or of tracecost).
 *
 * Timeline, device 0, in µs from T0 (TC_SYNTH_T0_NS; ts in the file are T0 - base + offset,
 * base = TC_SYNTH_BASE_NS, so the first kernel's "ts" is 123456.789):
 *   [   0, 200) kernel  gemm (compute)                  stream 7
 *   [  50, 100) memcpy  DtoH, hidden under the gemm      stream 21
 *   [ 200, 250) memcpy  HtoD (exposed)                   stream 7
 *   [ 250, 400) idle
 *   [ 400, 500) kernel  relu (compute)                   stream 7
 *   [ 500, 700) kernel  gemm (compute)                   stream 7
 *   [ 550, 650) kernel  ncclDevKernel_AllReduce (comm, fully overlapped by compute)  stream 20
 *   [ 700, 750) memset  (exposed)                        stream 7
 *   [ 750, 900) idle; a cuda_sync "Stream Sync" [760, 890) sits here: a wait, not GPU work
 *   [ 900,1000) kernel  softmax (compute)                stream 7
 * Whole window 1000 µs: compute 600, exposed comm 0, overlapped comm 100, memory exposed 100,
 * idle 300 (60% / 0% / 10% / 10% / 30%). GPU events: 5 kernels (1 comm), 3 memory events.
 * NVTX ranges (CPU, pid 4242 tid 4243): "train_step" [0, 500) and [500, 1000), renamed
 * ProfilerStep#1 and #2 through TRACECOST_STEP_RANGE semantics; per step: compute 300,
 * memory exposed 50, idle 150; step 2 also has the 100 µs overlapped all-reduce.
 * Plus: cudaLaunchKernel/cudaMemcpyAsync/cudaMemsetAsync/cudaStreamSynchronize runtime events
 * with ac2g flows, one low-value cudaGetDevice (dropped), an NVTX "ncclAllReduce" range in
 * domain NCCL, External id 77 on the first gemm, deviceProperties of one device. */
#ifndef TC_CUPTI_SYNTHETIC_H
#define TC_CUPTI_SYNTHETIC_H
#include "cupti/convert.h"
#include <stdint.h>

#define TC_SYNTH_T0_NS 1760000000123456789ull   /* epoch ns of the first GPU event */
#define TC_SYNTH_BASE_NS 1760000000000000000ull /* baseTimeNanoseconds written */
#define TC_SYNTH_PID 4242u
#define TC_SYNTH_TID 4243u
#define TC_SYNTH_WINDOW_US 1000
#define TC_SYNTH_COMPUTE_US 600
#define TC_SYNTH_COMM_EXPOSED_US 0
#define TC_SYNTH_COMM_OVERLAPPED_US 100
#define TC_SYNTH_MEM_EXPOSED_US 100
#define TC_SYNTH_IDLE_US 300
#define TC_SYNTH_KERNELS 5      /* kernel events, the comm one included */
#define TC_SYNTH_COMM_KERNELS 1
#define TC_SYNTH_MEM_EVENTS 3   /* gpu_memcpy + gpu_memset events */
#define TC_SYNTH_STEPS 2

/* Converts the planted records into one document through write(ctx, ...); distributedInfo gets
 * rank and world_size (-1 omits them). Returns a converter status. */
tc_conv_status tc_cupti_synthetic_emit(tc_conv_write_fn write, void *ctx, int rank,
                                       int world_size);

/* Writes the planted trace to path, gzip-compressed when path ends in ".gz". Returns 0, or -1
 * with errno set. */
int tc_cupti_write_synthetic_trace(const char *path, int rank, int world_size);
#endif
