/* breakdown.c: interval-union breakdown of a GPU timeline, and its widening to a step window (see
 * breakdown_compute.h). */
#include "model/breakdown.h"
#include "intervals.h"
#include <assert.h>
#include <string.h>

/* The events' window and, when they are all compute kernels in start order, the length of their
 * union in one sweep: nothing else needs the set then, so none is kept (a trace may hold millions
 * of separate kernels). false when a collective or a copy is there or the order is not by start. */
static bool compute_only(const tc_gpu_event *ev, const uint32_t *idx, size_t n, tc_breakdown *out) {
    int64_t first = INT64_MAX, last = INT64_MIN, total = 0, cur_s = 0, cur_e = 0, prev = INT64_MIN;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        const tc_gpu_event *e = &ev[idx ? idx[i] : i];
        int64_t s = e->start_ns, end = e->start_ns + e->dur_ns;
        if (e->kind != TC_GPU_KERNEL || e->is_comm || s < prev) return false;
        prev = s;
        if (s < first) first = s;
        if (end > last) last = end;
        if (end <= s) continue; /* empty: no time (as tc_ivset_normalize drops it) */
        if (open && s <= cur_e) {
            if (end > cur_e) cur_e = end;
            continue;
        }
        if (open) total += cur_e - cur_s;
        cur_s = s, cur_e = end, open = true;
    }
    if (open) total += cur_e - cur_s;
    out->first_ns = first;
    out->last_ns = last;
    out->window_ns = last - first;
    out->gpu_events = n;
    out->compute_ns = total;
    out->idle_ns = out->window_ns - total;
    return true;
}

int tc_breakdown_compute(const tc_gpu_event *ev, const uint32_t *idx, size_t n, const int64_t *wait_ns,
                         tc_breakdown *out) {
    memset(out, 0, sizeof *out);
    out->split_known = wait_ns != NULL;
    if (n == 0 || compute_only(ev, idx, n, out)) return 0;
    tc_ivset comp, comm, mem, heads, tails, dev, busy, tmp;
    tc_ivset *all[] = {&comp, &comm, &mem, &heads, &tails, &dev, &busy, &tmp};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) tc_ivset_init(all[i]);
    int rc = -1;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        size_t k = idx ? idx[i] : i;
        const tc_gpu_event *e = &ev[k];
        int64_t s = e->start_ns, end = e->start_ns + e->dur_ns;
        if (s < first) first = s;
        if (end > last) last = end;
        int r;
        if (e->kind != TC_GPU_KERNEL) r = tc_ivset_add(&mem, s, end) || (!tc_copy_is_host(e->copy) && tc_ivset_add(&dev, s, end));
        else if (!e->is_comm) r = tc_ivset_add(&comp, s, end);
        else {
            r = tc_ivset_add(&comm, s, end);
            if (wait_ns && !r) {
                int64_t w = wait_ns[k];
                if (w < 0) w = 0;
                if (w > e->dur_ns) w = e->dur_ns;
                r = tc_ivset_add(&heads, s, s + w) || tc_ivset_add(&tails, s + w, end);
            }
        }
        if (r) goto done;
    }
    for (size_t i = 0; i < 6; i++) tc_ivset_normalize(all[i]);
    out->first_ns = first;
    out->last_ns = last;
    out->window_ns = last - first;
    out->gpu_events = n;
    out->compute_ns = tc_ivset_length(&comp);
    out->comm_ns = tc_ivset_length(&comm);
    out->overlapped_comm_ns = tc_ivset_intersect_length(&comp, &comm);
    out->exposed_comm_ns = out->comm_ns - out->overlapped_comm_ns;
    /* comp ∪ comm; comp itself when there is no comm (no copy: a trace may hold millions of
     * separate kernels) */
    const tc_ivset *kernels = comm.n ? &busy : &comp;
    if (comm.n && tc_ivset_union(&comp, &comm, &busy)) goto done;
    out->memory_exposed_ns = tc_ivset_subtract_length(&mem, kernels);
    /* device copies are GPU work: where both kinds run, the time is the device's (mem = host ∪ dev) */
    out->memory_device_exposed_ns = tc_ivset_subtract_length(&dev, kernels);
    out->memory_host_exposed_ns = out->memory_exposed_ns - out->memory_device_exposed_ns;
    out->idle_ns = out->window_ns - (out->compute_ns + out->exposed_comm_ns + out->memory_exposed_ns);
    if (wait_ns) {
        /* time moving bytes on any stream is not waiting: heads are measured outside the tails */
        if (tc_ivset_subtract(&tails, &comp, &tmp)) goto done;
        out->exposed_transfer_ns = tc_ivset_length(&tmp);
        if (tc_ivset_union(&comp, &tails, &busy)) goto done;
        out->exposed_wait_ns = tc_ivset_subtract_length(&heads, &busy);
        /* heads ∪ tails is comm, event by event, so |comm − comp| splits exactly */
        assert(out->exposed_wait_ns + out->exposed_transfer_ns == out->exposed_comm_ns);
    }
    assert(out->compute_ns + out->exposed_comm_ns + out->memory_exposed_ns + out->idle_ns == out->window_ns);
    assert(out->memory_host_exposed_ns >= 0 && out->memory_device_exposed_ns <= out->memory_exposed_ns);
    assert(out->overlapped_comm_ns >= 0 && out->overlapped_comm_ns <= out->comm_ns);
    rc = 0;
done:
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) tc_ivset_free(all[i]);
    return rc;
}


void tc_breakdown_widen(const tc_breakdown *b, int64_t start, int64_t end, tc_breakdown *out) {
    assert(start <= end && (!b->gpu_events || (start <= b->first_ns && end >= b->last_ns)));
    *out = *b;
    out->first_ns = start;
    out->last_ns = end;
    out->window_ns = end - start;
    out->idle_ns = out->window_ns - (b->compute_ns + b->exposed_comm_ns + b->memory_exposed_ns);
    assert(out->idle_ns >= b->idle_ns);
    assert(out->compute_ns + out->exposed_comm_ns + out->memory_exposed_ns + out->idle_ns == out->window_ns);
}
