/* host_wait.h: why the GPU waits on the host (docs/definitions.md "Idle causes" and "Launch
 * statistics"): each idle gap of a rank and of its steps split by what the thread that launched the
 * work ending the gap was doing (sync, data loading, allocator, module loading, launch overhead,
 * other host work) or GPU side / unattributed; where the host was (the outermost CPU op per gap),
 * the evidence the actions name, and the kernel launch statistics. Reads the trace's GPU events,
 * runtime calls and host spans; writes only the rank's results. */
#ifndef TC_HOST_WAIT_H
#define TC_HOST_WAIT_H
#include "model/job.h"
#include "steps.h"

/* Fills rr->idle, rr->step_idle (with a step window: the lead and tail added, docs/definitions.md
 * "Step window"), rr->host_ops, rr->evidence, rr->launch, rr->has_host_events and each
 * rr->steps[s].idle (m: the step map rr->steps was built from, in the same order). t's GPU events
 * are sorted (tc_job_prepare) and its launches sorted (tc_trace_sort_launches); rr->b and the
 * steps' breakdowns are computed. Sorts t->host (by thread, start, end descending; nothing else
 * reads it). The causes add up to each idle time exactly (asserted). 0, or -1 out of memory. */
int tc_host_wait_rank(tc_trace *t, tc_rank_result *rr, const tc_step_map *m);

/* The job's sums (j->summary.idle, idle_cause_share, evidence, launch, host_event_ranks, and the
 * step window's causes, cause_share, lead and tail in j->summary.step) from the ranks' results. */
void tc_host_wait_job(tc_job *j);
/* The order tc_host_wait_rank sorts t->host in: (thread, start, end descending), then kind, name. */
int tc_host_span_cmp(const void *a, const void *b);
/* Sorts t->host in that order, writing nothing when it already is (so that, once sorted, readers
 * on other threads may share it while an analysis sorts it again). */
void tc_host_sort_spans(tc_trace *t);

/* The cause with the most time (ties: the first in tc_idle_cause order), -1 when no cause has any:
 * what the per-step views show and a host-bound verdict names. */
int tc_idle_top_cause(const tc_idle_causes *k);

/* The class of a runtime or driver call by its name (the lists of docs/definitions.md, hip
 * spellings included; a version suffix _vN and a per-thread suffix _ptsz/_ptds are ignored). */
typedef enum {
    TC_CALL_OTHER,
    TC_CALL_SYNC,         /* synchronizing (cudaStreamSynchronize, ...) */
    TC_CALL_MEMORY,       /* memory management (cudaMalloc, cudaFree, ...) */
    TC_CALL_LAUNCH,       /* kernel launch (cudaLaunchKernel, cuLaunchKernel, ...) */
    TC_CALL_GRAPH_LAUNCH, /* cudaGraphLaunch */
    TC_CALL_COPY,         /* async copy or memset (cudaMemcpyAsync, cudaMemsetAsync, ...): a launch */
    TC_CALL_SYNC_COPY,    /* blocking copy or memset (cudaMemcpy, cuMemcpyHtoD, ...): synchronizing */
    TC_CALL_MODULE        /* module loading (cuModuleLoad*, cuModuleGetFunction, cuLibraryLoad*, ...) */
} tc_call_class;
tc_call_class tc_host_call_class(const char *name, size_t len);
#endif
