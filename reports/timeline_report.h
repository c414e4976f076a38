/* timeline_report.h: the job as one Chrome-trace JSON (tracecost timeline), for Perfetto and
 * chrome://tracing: every rank a process on one clock (the reference rank's: each rank's events
 * shifted by its estimated clock offset, analyzer/collectives), one thread per CUDA stream holding
 * its GPU events (Kineto's categories kernel, gpu_memcpy, gpu_memset, so tracecost reads the file
 * back), a communication kernel with its wait and transfer as two nested slices, a thread of
 * ProfilerStep spans, and the straggler's process named and labelled so. Written streaming with
 * jsonw: memory is the job's, nothing more. Times are exact decimal µs from the earliest drawn
 * event (otherData.origin_unix_ns says where that is). Keys in docs/timeline.md. */
#ifndef TC_TIMELINE_REPORT_H
#define TC_TIMELINE_REPORT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "model/job.h"

/* What to draw. */
typedef struct {
    const bool *ranks;       /* per j->ranks index: drawn; NULL draws every rank */
    bool has_steps;          /* only the events of steps first_step..last_step */
    int64_t first_step, last_step; /* N of ProfilerStep#N, inclusive */
} tc_timeline_filter;

/* Writes the timeline of j (analyzed, events kept) to out. A rank without events in the filter
 * is still named (an empty process). Returns 0, or -1 when a write failed. */
int tc_timeline_write(FILE *out, const tc_job *j, const tc_timeline_filter *f);
#endif
