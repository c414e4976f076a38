/* breakdown.c: sums of breakdowns and their shares (see breakdown.h); computing one is analyzer/breakdown.c. */
#include "breakdown.h"

void tc_breakdown_add(tc_breakdown *sum, const tc_breakdown *b) {
    bool split = (sum->gpu_events == 0 ? b->split_known : sum->split_known && b->split_known);
    sum->window_ns += b->window_ns;
    sum->compute_ns += b->compute_ns;
    sum->comm_ns += b->comm_ns;
    sum->overlapped_comm_ns += b->overlapped_comm_ns;
    sum->exposed_comm_ns += b->exposed_comm_ns;
    sum->memory_exposed_ns += b->memory_exposed_ns;
    sum->memory_device_exposed_ns += b->memory_device_exposed_ns;
    sum->memory_host_exposed_ns += b->memory_host_exposed_ns;
    sum->idle_ns += b->idle_ns;
    sum->exposed_wait_ns += b->exposed_wait_ns;
    sum->exposed_transfer_ns += b->exposed_transfer_ns;
    sum->gpu_events += b->gpu_events;
    sum->split_known = split;
}

static double share(int64_t part, int64_t whole) { return whole > 0 ? (double)part / (double)whole : 0; }

tc_shares tc_breakdown_shares(const tc_breakdown *b) {
    int64_t w = b->window_ns;
    return (tc_shares){.compute = share(b->compute_ns, w), .exposed_comm = share(b->exposed_comm_ns, w),
                       .exposed_transfer = share(b->exposed_transfer_ns, w), .exposed_wait = share(b->exposed_wait_ns, w),
                       .memory_exposed = share(b->memory_exposed_ns, w), .idle = share(b->idle_ns, w),
                       .memory_host_exposed = share(b->memory_host_exposed_ns, w),
                       .memory_device_exposed = share(b->memory_device_exposed_ns, w)};
}
