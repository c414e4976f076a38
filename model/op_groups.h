/* op_groups.h: where the compute time goes (issue 34) as results: every GPU kernel attributed to the
 * op that launched it (correlation -> launch -> innermost enclosing cpu_op) and to its nn.Module
 * path; per (op, shapes, dtype) group its calls, GPU time, FLOPs and bytes from the shapes, and the
 * roofline (class, share of attainable, time lost against it); launch-bound groups; repeated short
 * kernel sequences (fusion candidates); the module view; MFU split by op family.
 * analyzer/op_groups.h fills it; owned by tc_job (tc_op_result_free); reports only read it. Times
 * are ns, rates per second. Definitions: docs/definitions.md "Ops and the roofline". */
#ifndef TC_OP_GROUPS_H
#define TC_OP_GROUPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gpu_catalog.h"

/* Which formula gives an op's FLOPs and bytes (model/ops.h tc_op_cost_of; docs/definitions.md). */
typedef enum {
    TC_OPF_OTHER = 0, TC_OPF_GEMM, TC_OPF_BMM, TC_OPF_CONV, TC_OPF_ATTENTION, TC_OPF_NORM,
    TC_OPF_SOFTMAX, TC_OPF_ELEMENTWISE, TC_OPF_EMBEDDING, TC_OPF_REDUCTION, TC_OPF_COPY, TC_OPF_COUNT
} tc_op_family;

/* One (op, shapes, dtype) group, summed over the job's ranks. */
typedef struct {
    char *op;                 /* the op's name ("aten::layer_norm"), owned */
    char *shapes;             /* its Input Dims as recorded ("[[8, 512, 4096], [4096], [4096]]"), owned;
                               * NULL when the op carried none (shapes unknown) */
    tc_dtype dtype;           /* of its first tensor input; TC_DTYPE_UNKNOWN none */
    uint8_t family;           /* tc_op_family */
    char *parent;             /* the parent op of most of its calls (the cpu_op enclosing the call;
                               * ties: top level, then the first name in byte order), owned; NULL: top level */
    int64_t count;            /* calls */
    int64_t kernels;          /* GPU kernels attributed to its calls */
    int64_t gpu_ns;           /* Σ those kernels' durations */
    int64_t median_kernel_ns; /* the median of those durations */
    bool has_flops; double flops;   /* Σ over calls; false when the shapes do not give them */
    bool has_bytes; double bytes;   /* Σ over calls: inputs read once + outputs written once */
    bool has_roofline;        /* a rate and the GPU's roof for it are known (catalog: the dtype's peak
                               * and the memory bandwidth) */
    bool compute_bound;       /* class: intensity >= peak / bandwidth (the ridge); else memory-bound */
    double intensity;         /* flops / bytes, FLOP per byte; valid when has_flops and has_bytes */
    double achieved_flops;    /* flops / gpu_ns, FLOP/s; valid when has_flops */
    double achieved_bytes;    /* bytes / gpu_ns, byte/s; valid when has_bytes */
    double attainable;        /* the roof at its intensity, in the unit of its class's rate */
    double share_of_attainable; /* achieved / attainable; valid when has_roofline */
    int64_t lost_ns;          /* gpu_ns × (1 − share_of_attainable), 0 without a roofline */
    bool launch_bound;        /* median kernel under 10 µs with at least 10 kernels */
    int64_t differing_rank;   /* the rank whose GPU time in this group is furthest from the ranks'
                               * median (by more than 10% of it); −1 none or one rank */
} tc_op_group;

/* One nn.Module instance path (or the time outside every module). */
typedef struct {
    char *path;               /* instance names joined by '/', without "nn.Module: " (owned); NULL = outside every module */
    int64_t self_ns;          /* GPU time of kernels whose innermost module is this one */
    int64_t total_ns;         /* ... of kernels inside it at any depth */
} tc_module_row;

/* A repeated short sequence of kernels back to back on one stream (a fusion candidate). */
typedef struct {
    char *kernels;            /* the kernel names joined by " > " (owned) */
    uint32_t length;          /* kernels in the sequence */
    int64_t occurrences;      /* times it ran */
    int64_t gpu_ns;           /* Σ the sequence's kernels' durations over its occurrences */
} tc_fusion_row;

/* Where the module view's paths come from. */
typedef enum {
    TC_MODULES_NONE = 0,            /* no module view */
    TC_MODULES_NN_MODULE = 1,       /* nn.Module python_function events (with_stack / with_modules) */
    TC_MODULES_USER_ANNOTATION = 2  /* no nn.Module events: user_annotation ranges (record_function) */
} tc_module_source;

typedef struct {
    bool has;                 /* the job's traces have CPU ops to attribute kernels to */
    tc_op_group *groups; size_t n_groups, cap_groups;      /* by lost_ns, then gpu_ns, descending */
    bool has_modules;         /* the traces carry nn.Module python_function events or user annotations */
    uint8_t module_source;    /* tc_module_source: nn.Module when any rank's view came from them */
    tc_module_row *modules; size_t n_modules, cap_modules; /* by total_ns descending */
    tc_fusion_row *fusions; size_t n_fusions, cap_fusions; /* by gpu_ns descending */
    int64_t compute_ns;       /* Σ durations of the job's compute kernels (what groups and modules split) */
    int64_t attributed_ns;    /* ... of those attributed to an op */
    int64_t unknown_shapes_ns;/* ... attributed to ops without shapes */
    double family_flops[TC_OPF_COUNT];  /* Σ flops per family (known ones) */
    int64_t family_ns[TC_OPF_COUNT];    /* Σ gpu_ns per family */
    bool has_family_mfu;      /* the GPU's peak is known: family_mfu valid */
    double family_mfu[TC_OPF_COUNT];    /* the family's FLOPs / (job GPU time × peak): its part of MFU */
} tc_op_result;

void tc_op_result_free(tc_op_result *r);
const char *tc_op_family_name(tc_op_family f); /* "gemm", "attention", ...; "other" */
#endif
