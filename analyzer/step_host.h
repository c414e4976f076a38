/* step_host.h: the host side of the step graph's input, private to the graph's builders
 * (step_graph_rank.c, step_graph_job.c; step_host.c; the rules are docs/definitions.md "Replay"):
 * call classes, host items, polling runs, step tails. */
#ifndef TC_STEP_HOST_H
#define TC_STEP_HOST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/trace.h"
#include "steps.h"

/* A uint64 key (not 0) -> uint32 value, TC_NONE when new: the last GPU event of each (device,
 * stream) so far, the index of each CPU thread. Open addressing. */
typedef struct { uint64_t *key; uint32_t *last; size_t cap, n; } tc_sg_stream_map;
/* The value slot of key (added when new); NULL out of memory. */
uint32_t *tc_sg_stream_slot(tc_sg_stream_map *m, uint64_t key);

/* A call (mark 0, idx its launch) or a step boundary (mark 1 + 2k for step k's start, 2 + 2k its end). */
typedef struct { uint32_t thread; uint32_t idx; int64_t ts, end; uint32_t mark, pad; } tc_sg_host_item;
int tc_sg_cmp_host_item(const void *a, const void *b);

/* Call classes of tc_sg_call_classes beyond tc_call_class. */
enum { CALL_EVENT_RECORD = 100, CALL_STREAM_WAIT = 101, CALL_QUERY = 102 };
/* The class of each call of t by name id (sized by the largest id): its tc_call_class, an event
 * record, a stream's wait on an event, or a query (cudaEventQuery, cudaStreamQuery, ...). NULL out of memory. */
uint8_t *tc_sg_call_classes(const tc_trace *t);
bool tc_sg_is_sync_class(int c);
bool tc_sg_is_query(const tc_trace *t, const uint8_t *cls, const tc_sg_host_item *it);

/* The calls of t as host items, grouped by thread, the n_cpu CPU step boundaries merged into the
 * thread that runs the loop. *n_out items; NULL out of memory. */
tc_sg_host_item *tc_sg_host_items(const tc_trace *t, const uint8_t *cls, const tc_step_map *steps, size_t n_cpu,
                                  size_t *n_out);
/* Polling runs: run[i] is, for a run's last-returning query call, the index of the run's first item;
 * TC_NONE else. NULL out of memory. */
uint32_t *tc_sg_poll_runs(const tc_trace *t, const uint8_t *cls, const tc_sg_host_item *it, size_t n);
/* Per CPU step, the GPU op its end waits for when its GPU work runs past its span (TC_NONE else).
 * NULL out of memory. */
uint32_t *tc_sg_step_tails(const tc_trace *t, const tc_step_map *steps, size_t n_cpu);
#endif
