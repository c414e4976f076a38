/* breakdown.h: the exact split of one GPU timeline (a rank, or one step of it) into compute,
 * exposed communication, exposed memory and idle, from interval unions. Owns nothing.
 * Invariant (tested): compute + exposed_comm + memory_exposed + idle == window, and
 * memory_host_exposed + memory_device_exposed == memory_exposed. */
#ifndef TC_BREAKDOWN_H
#define TC_BREAKDOWN_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "trace.h"

typedef struct {
    int64_t window_ns;           /* first GPU start .. last GPU end */
    int64_t compute_ns;          /* |∪ compute kernels| */
    int64_t comm_ns;             /* |∪ comm kernels| */
    int64_t overlapped_comm_ns;  /* |∪ compute ∩ ∪ comm| */
    int64_t exposed_comm_ns;     /* comm − overlapped */
    int64_t memory_exposed_ns;   /* |∪ memcpy/memset − ∪(compute ∪ comm)| = host + device below */
    int64_t memory_device_exposed_ns; /* |∪ device copies (D2D, peer, memset) − ∪(compute ∪ comm)| */
    int64_t memory_host_exposed_ns;   /* |∪ host copies (H2D, D2H, H2H, unknown) − ∪(compute ∪ comm
                                       * ∪ device copies)| */
    int64_t idle_ns;             /* window − |∪ all GPU activity| */
    int64_t exposed_wait_ns;     /* |∪ wait heads − ∪ compute − ∪ transfer tails|; valid if split_known */
    int64_t exposed_transfer_ns; /* |∪ transfer tails − ∪ compute|; valid if split_known */
    bool split_known;            /* wait/transfer come from cross-rank matching */
    int64_t first_ns, last_ns;   /* window bounds, trace ns */
    uint64_t gpu_events;         /* events counted */
} tc_breakdown;

/* A breakdown's parts as shares 0..1 of its window (transfer/wait valid if split_known). */
typedef struct {
    double compute, exposed_comm, exposed_transfer, exposed_wait, memory_exposed, idle;
    double memory_host_exposed, memory_device_exposed; /* memory_exposed's two parts */
} tc_shares;

/* b's parts as shares of its window (all 0 when the window is empty). */
tc_shares tc_breakdown_shares(const tc_breakdown *b);

/* Adds b into sum (window, every figure; split_known stays true only if both are). */
void tc_breakdown_add(tc_breakdown *sum, const tc_breakdown *b);
#endif
