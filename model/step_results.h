/* step_results.h: the per-step results of a rank (analyzer/analyze.c fills them, breakdowns and
 * idle causes per ProfilerStep) and its step statistics (analyzer/step_stats.c: step times and the
 * slowest steps, with the class of time that grew). */
#ifndef TC_STEP_RESULTS_H
#define TC_STEP_RESULTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "breakdown.h"
#include "idle_causes.h"

/* The class of a step's time that grew most over its median (tc_slow_step). */
typedef enum {
    TC_STEP_COMPUTE, TC_STEP_EXPOSED_COMM, TC_STEP_MEMORY, TC_STEP_IDLE,
    TC_STEP_OUTSIDE,             /* step time outside its GPU window (step time − window) */
    TC_STEP_NONE                 /* no class grew */
} tc_step_class;

typedef struct {
    int64_t number;              /* N of ProfilerStep#N */
    int64_t step_time_ns;        /* its step time */
    int64_t over_median_ns;      /* step time − the median step time (> 0) */
    uint8_t grew;                /* tc_step_class */
    int64_t grew_ns;             /* that class's time − its median over the steps */
    uint8_t idle_cause;          /* grew == TC_STEP_IDLE: the tc_idle_cause that grew most */
    int64_t idle_cause_grew_ns;  /* its time − its median over the steps */
} tc_slow_step;

#define TC_SLOW_STEPS 3

/* Step times of a rank (analyzer/step_stats.c); valid when the rank has steps. */
typedef struct {
    int64_t min_ns, median_ns, max_ns; /* step times; median: the lower median */
    tc_slow_step slowest[TC_SLOW_STEPS]; size_t n_slowest; /* slowest steps above the median, slowest first */
} tc_step_stats;

typedef struct {
    int64_t number;         /* N of ProfilerStep#N */
    tc_breakdown b;         /* over the GPU events assigned to the step */
    bool has_ratio;         /* compute > 0 */
    double comm_compute_ratio; /* comm / compute (unions) of the step; valid if has_ratio */
    int64_t step_time_ns;   /* ProfilerStep span duration (CPU span, else GPU span) */
    double flops;           /* FLOPs of the step's ops (shapes or user); valid if has_mfu */
    double mfu;             /* valid if has_mfu */
    bool has_mfu;
    tc_idle_causes idle;    /* its idle gaps by cause (gaps of its own events, inside its window) */
    /* the step's span (docs/definitions.md "Step window"): its ProfilerStep span stretched to hold its
     * own GPU events, the stretch idle */
    tc_breakdown step_b;    /* b widened to the span: window and idle grow, the GPU figures are b's */
    tc_idle_causes step_idle; /* step_b's idle by cause: idle plus the lead and tail */
    int64_t before_first_kernel_ns, after_last_kernel_ns; /* the lead and tail, ns */
} tc_step_result;
#endif
