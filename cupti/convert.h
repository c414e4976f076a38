/* convert.h: CUPTI activity records -> Kineto-compatible Chrome-trace JSON (convert_doc.c: the
 * converter's life and documents; convert_events.c: records to events; convert_int.h: private).
 *
 * Uses only the record TYPES of CUDA 13's cupti_activity.h, never a libcupti symbol, so it
 * builds and is tested without a GPU and without linking libcupti. API names come from a
 * caller-supplied lookup (the tracer passes cuptiGetCallbackName; tests pass a table).
 *
 * One tc_conv lives for the whole traced process; each capture window is one JSON document:
 *   tc_conv_begin(sink, base) -> tc_conv_record()* -> tc_conv_finish(info)   (or tc_conv_abort)
 * Invariants:
 *   1. Between begin and finish/abort the document is "open"; tc_conv_record outside it is
 *      TC_CONV_ERR_STATE and writes nothing.
 *   2. Every event is one multi-line block starting with "\n  {\n" (after a comma from the 2nd
 *      event on), like Kineto's writer. ts/dur are microseconds written "{int}.{3 digits}"
 *      relative to baseTimeNanoseconds, from integer nanoseconds only.
 *   3. Strings are escaped so that any byte sequence gives valid JSON: quotes, backslashes and
 *      control characters are escaped; invalid UTF-8 becomes U+FFFD.
 *   4. After a sink failure nothing more is written and every call returns TC_CONV_ERR_WRITE
 *      until the next begin.
 * Kept across windows: device properties, context->device map, external correlations, the
 * ProfilerStep counter. Reset per window: statistics, open NVTX ranges, streams/threads seen.
 *
 * Ownership: tc_conv_new copies the strings of its config; the caller keeps its sink context.
 * tc_conv_free(NULL) is a no-op. Not thread-safe: one thread drives a tc_conv at a time. */
#ifndef TC_CUPTI_CONVERT_H
#define TC_CUPTI_CONVERT_H
#include <cupti_activity.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tc_conv tc_conv; /* opaque */

typedef enum tc_conv_status {
    TC_CONV_OK = 0,
    TC_CONV_ERR_NOMEM,  /* an allocation failed; the record was skipped */
    TC_CONV_ERR_WRITE,  /* the sink reported a failure (sticky until the next begin) */
    TC_CONV_ERR_STATE,  /* misuse: record/finish without begin, begin twice */
} tc_conv_status;

const char *tc_conv_status_str(tc_conv_status s);

/* Output sink: receives chunks of JSON text in order. Returns 0 when all len bytes were
 * written, nonzero on failure. */
typedef int (*tc_conv_write_fn)(void *ctx, const char *data, size_t len);

typedef enum tc_api_domain { TC_API_RUNTIME = 0, TC_API_DRIVER = 1 } tc_api_domain;

/* Name of a runtime or driver API callback id ("cudaLaunchKernel_v7000"), or NULL when unknown.
 * The string must stay valid until the call returns to the converter. A trailing "_v<digits>"
 * version suffix is stripped by the converter. */
typedef const char *(*tc_api_name_fn)(void *ctx, tc_api_domain domain, uint32_t cbid);

typedef struct tc_conv_config {
    tc_api_name_fn api_name;  /* may be NULL: API events are named "cuda_runtime#<cbid>" */
    void *api_name_ctx;       /* passed to api_name */
    const char *step_range;   /* NVTX range name renamed "ProfilerStep#<k>", k = 1, 2, ...; or NULL */
    const char *process_name; /* shown on the CPU process row, or NULL */
    uint32_t pid;             /* OS pid used when a record carries none */
    int keep_all_api;         /* nonzero: keep the low-value calls tc_conv_api_is_noise() names */
} tc_conv_config;

/* What only the caller knows at the end of a window (read late: launchers set ranks late). */
typedef struct tc_conv_finish_info {
    int rank;                 /* distributedInfo.rank, -1: omitted */
    int world_size;           /* distributedInfo.world_size, -1: omitted */
    int local_rank;           /* distributedInfo.local_rank, -1: omitted */
    const char *trace_name;   /* traceName (the final file name), or NULL */
    uint32_t cupti_version;   /* cupti_version, 0: omitted */
    unsigned window;          /* capture window number, 1-based */
    uint64_t dropped_records; /* records CUPTI dropped in this window (no buffer space) */
    uint64_t refused_buffers; /* buffer requests refused because the pool was empty */
} tc_conv_finish_info;

/* Per-window counters, reset by tc_conv_begin. */
typedef struct tc_conv_stats {
    uint64_t records;           /* records passed to tc_conv_record */
    uint64_t events;            /* complete/instant events written (not flows, not metadata) */
    uint64_t gpu_events;        /* kernel, gpu_memcpy, gpu_memset events written */
    uint64_t incomplete;        /* records skipped: zero or inverted timestamps */
    uint64_t unknown_kind;      /* records of kinds the converter does not translate */
    uint64_t noise_api;         /* API records dropped as low-value */
    uint64_t unmatched_markers; /* NVTX range ends without a start, or starts open at finish */
    uint64_t marker_overflow;   /* range starts dropped: too many open ranges */
    int nccl_seen;              /* an NCCL kernel or an NVTX "NCCL" domain range was seen */
} tc_conv_stats;

tc_conv_status tc_conv_new(const tc_conv_config *cfg, tc_conv **out);
void tc_conv_free(tc_conv *c);

/* Opens a document: writes the header ("schemaVersion", "baseTimeNanoseconds", the opening of
 * "traceEvents"). base_ns is the epoch time all ts are relative to. */
tc_conv_status tc_conv_begin(tc_conv *c, tc_conv_write_fn write, void *write_ctx,
                             uint64_t base_ns);

/* Translates one record into zero or more events. Unknown kinds are counted and skipped
 * (TC_CONV_OK). Records of kind DEVICE and CONTEXT only update state. */
tc_conv_status tc_conv_record(tc_conv *c, const CUpti_Activity *rec);

/* Closes the document: metadata events, "deviceProperties", "distributedInfo", "traceName",
 * a "tracecost" object with the counters; flushes the sink. Ranges still open are dropped and
 * counted as unmatched. */
tc_conv_status tc_conv_finish(tc_conv *c, const tc_conv_finish_info *info);

/* Ends the window without writing more (after a write error, or to discard it). */
void tc_conv_abort(tc_conv *c);

/* 1 while a document is open. */
int tc_conv_is_open(const tc_conv *c);

void tc_conv_get_stats(const tc_conv *c, tc_conv_stats *out);

/* 1 when the (suffix-stripped) API name is a low-value call dropped by default (cudaGetDevice,
 * cudaGetLastError, cuCtxGetCurrent, ...). The tracer also uses it to disable those callback
 * ids at the source. */
int tc_conv_api_is_noise(const char *name);

/* Formats ns nanoseconds as microseconds "[-]{int}.{3 digits}" into buf (>= 32 bytes);
 * returns the length. */
size_t tc_conv_format_us(int64_t ns, char *buf);

/* Appends s (len bytes) JSON-escaped (no quotes) through write; returns write's status. */
int tc_conv_escape(tc_conv_write_fn write, void *ctx, const char *s, size_t len);

#endif
