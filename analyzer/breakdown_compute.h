/* breakdown_compute.h: computes the exact breakdown (model/breakdown.h) of a set of GPU events
 * from interval unions, and widens one to a step window. */
#ifndef TC_BREAKDOWN_COMPUTE_H
#define TC_BREAKDOWN_COMPUTE_H
#include "model/breakdown.h"

/* Splits the events ev[idx[i]] for i < n (all n events when idx is NULL). wait_ns, when not NULL,
 * gives for each event index the wait head of a comm kernel (ns, clamped to its duration); with it
 * the wait/transfer figures are filled and split_known is set. Returns 0, or -1 out of memory. */
int tc_breakdown_compute(const tc_gpu_event *ev, const uint32_t *idx, size_t n, const int64_t *wait_ns,
                         tc_breakdown *out);

/* b over the wider window [start, end) (which holds b's window): the same GPU figures, the extra
 * time idle. The identity holds for it exactly (asserted). */
void tc_breakdown_widen(const tc_breakdown *b, int64_t start, int64_t end, tc_breakdown *out);

#endif
