/* fake_cupti.h: the test-side controls of the stand-in libcupti (fake_cupti.c). Each call
 * produces the records real CUPTI would (a runtime API record and the GPU record, or a marker)
 * into the tracer's buffers, timestamped now, when the kind is enabled. Test-only code. */
#ifndef TC_FAKE_CUPTI_H
#define TC_FAKE_CUPTI_H
#include <stdint.h>

void fake_cupti_kernel(const char *name, uint32_t stream, uint64_t dur_ns);
void fake_cupti_memcpy(uint64_t bytes, uint64_t dur_ns);
void fake_cupti_noise_api(void);                 /* a cudaGetDevice runtime record */
uint32_t fake_cupti_range_push(const char *name); /* NVTX range start; returns its id */
void fake_cupti_range_pop(uint32_t id);
uint64_t fake_cupti_appended_total(void);        /* records delivered into tracer buffers */
uint64_t fake_cupti_dropped_total(void);         /* records lost: buffer request refused */
int fake_cupti_nvtx_inits(void);                 /* calls of InitializeInjectionNvtx2 */
#endif
