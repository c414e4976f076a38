/* steps.h: assigns each GPU event of a trace to its ProfilerStep. A GPU event belongs to the step
 * whose CPU ProfilerStep span contains its launching runtime call (found by correlation); when the
 * launch is unknown, to the gpu_user_annotation ProfilerStep span that holds its start. */
#ifndef TC_STEPS_H
#define TC_STEPS_H
#include <stdint.h>
#include <stddef.h>
#include "model/trace.h"

typedef struct {
    int64_t number;        /* N of ProfilerStep#N */
    int64_t step_time_ns;  /* CPU span duration (GPU span when no CPU span has this N) */
    int64_t cpu_start_ns, cpu_end_ns; /* CPU span, trace ns; equal when absent */
    int64_t span_start_ns, span_end_ns; /* the step's span: its CPU span, else its GPU span, trace ns */
    uint32_t *events; size_t n_events, cap_events; /* GPU event indices, ascending */
} tc_step_events;

typedef struct {
    tc_step_events *steps; size_t n_steps; /* CPU spans' steps by start, then GPU-only spans' */
    uint64_t unassigned;   /* GPU events in no step */
    uint64_t repeated;     /* spans whose ProfilerStep#N another span of their kind already has:
                            * steps of their own (two profiler sessions in one trace), not merged */
} tc_step_map;

/* Builds the map (sorts t->launches by correlation, and the spans by start). Every CPU span is a
 * step; the k-th GPU span of a number joins the k-th CPU span of that number, else is a step of its
 * own. 0, or -1 out of memory. n_steps == 0 when the trace has no ProfilerStep spans. */
int tc_steps_assign(tc_trace *t, tc_step_map *out);
/* The steps alone, as tc_steps_assign makes them (same order), without their events. */
int tc_steps_spans(tc_trace *t, tc_step_map *out);
/* occ[i]: how many of s[0, i) have s[i]'s number (the k-th ProfilerStep#N of a list is occurrence
 * k). 0, or -1 out of memory. */
int tc_steps_occurrence(const tc_step_span *s, size_t n, size_t *occ);
void tc_step_map_free(tc_step_map *m);
#endif
