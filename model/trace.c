/* trace.c: lifetime and small queries of the per-input event model (see trace.h). */
#include "trace.h"
#include "base/util.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WARNINGS 100

int tc_trace_init(tc_trace *t, const char *path) {
    memset(t, 0, sizeof *t);
    t->rank = -1;
    t->world_size = -1;
    t->backend = UINT32_MAX;
    t->path = tc_strdup(path ? path : "-");
    t->strings = tc_strtab_new();
    return (t->path && t->strings) ? 0 : -1;
}

void tc_trace_free(tc_trace *t) {
    if (!t) return;
    free(t->path);
    tc_strtab_free(t->strings);
    free(t->gpu);
    free(t->cpu_steps);
    free(t->gpu_steps);
    free(t->launches);
    free(t->colls);
    free(t->ops);
    free(t->devices);
    free(t->launch_slot);
    for (size_t i = 0; i < t->n_warnings; i++) free(t->warnings[i]);
    free(t->warnings);
    memset(t, 0, sizeof *t);
}

void tc_trace_reserve(tc_trace *t, uint64_t json_bytes) {
    size_t n = (size_t)(json_bytes / 512);
    if (n < 65536) return; /* small traces: growing is cheap */
    /* tc_grow asks for huge pages for blocks this big */
    (void)tc_grow((void **)&t->gpu, &t->cap_gpu, n, sizeof *t->gpu);
    (void)tc_grow((void **)&t->ops, &t->cap_ops, n, sizeof *t->ops);
    (void)tc_grow((void **)&t->launches, &t->cap_launches, n, sizeof *t->launches);
}

void tc_trace_warn(tc_trace *t, const char *fmt, ...) {
    if (t->n_warnings >= MAX_WARNINGS) { t->warnings_dropped++; return; }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    tc_vformat(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = tc_strdup(buf);
    if (!s || TC_PUSH(t->warnings, t->n_warnings, t->cap_warnings, s)) free(s);
}

const char *tc_trace_str(const tc_trace *t, uint32_t id) { return tc_strtab_get(t->strings, id); }

const char *tc_trace_device_name(const tc_trace *t, int64_t device) {
    for (size_t i = 0; i < t->n_devices; i++)
        if (t->devices[i].id == device) return tc_trace_str(t, t->devices[i].name);
    return NULL;
}

bool tc_is_comm_kernel_name(const char *name) {
    if (strncmp(name, "nccl", 4) == 0 || strncmp(name, "rccl", 4) == 0) return true;
    return strstr(name, "ncclKernel") != NULL || strstr(name, "ncclDevKernel") != NULL;
}

static int cmp_launch(const void *a, const void *b) {
    const tc_launch *x = a, *y = b;
    if (x->correlation != y->correlation) return x->correlation < y->correlation ? -1 : 1;
    return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

void tc_trace_sort_launches(tc_trace *t) {
    if (t->launch_slot && t->launch_slot_for == t->n_launches) return;
    free(t->launch_slot);
    t->launch_slot = NULL;
    tc_sort(t->launches, t->n_launches, sizeof *t->launches, cmp_launch);
    /* a direct table when ids are dense enough (CUPTI numbers them in order): one probe per lookup
     * instead of a binary search that misses the cache */
    t->launch_slot = tc_dense_index(t->launches, t->n_launches, sizeof *t->launches, offsetof(tc_launch, correlation),
                                    &t->launch_slot_base, &t->launch_slot_n);
    t->launch_slot_for = t->n_launches;
}

const tc_launch *tc_trace_find_launch(const tc_trace *t, uint32_t corr) {
    if (t->launch_slot && t->launch_slot_for == t->n_launches) {
        if (corr < t->launch_slot_base || corr - t->launch_slot_base >= t->launch_slot_n) return NULL;
        uint32_t i = t->launch_slot[corr - t->launch_slot_base];
        return i == TC_NONE ? NULL : &t->launches[i];
    }
    size_t lo = 0, hi = t->n_launches;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->launches[mid].correlation < corr) lo = mid + 1; else hi = mid;
    }
    return (lo < t->n_launches && t->launches[lo].correlation == corr) ? &t->launches[lo] : NULL;
}

uint64_t tc_trace_gpu_events(const tc_trace *t) { return t->n_gpu_parsed ? t->n_gpu_parsed : t->n_gpu; }
