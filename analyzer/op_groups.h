/* op_groups.h: where the compute time goes (issue 34; fills tc_job.ops, model/op_groups.h). Per
 * rank (tc_op_parts_rank, in the per-rank phase): every compute kernel to the op that launched it
 * (correlation -> launch -> the innermost enclosing cpu_op of the launch's thread) and to the
 * innermost nn.Module span enclosing that launch; sums per (op, shapes, dtype), per module path,
 * and the repeated short kernel sequences of each stream (fusion candidates). Per job
 * (tc_op_groups_finish): the ranks' parts summed, each group against the roofline of the job's
 * GPU, the module totals, MFU by op family. Pure: no printing. Definitions: docs/definitions.md
 * "Ops and the roofline". The parts own their strings, so an MPI message can carry them. */
#ifndef TC_ANALYZER_OP_GROUPS_H
#define TC_ANALYZER_OP_GROUPS_H
#include "model/job.h"

#define TC_LAUNCH_BOUND_NS 10000   /* a launch-bound group's median kernel is under this */
#define TC_LAUNCH_BOUND_KERNELS 10 /* ... with at least this many kernels */
#define TC_FUSION_SHORT_NS 10000   /* a fusion candidate's kernels are each shorter than this */
#define TC_FUSION_GAP_NS 10000     /* ... and start less than this after the previous one ends */
#define TC_FUSION_MAX_LEN 8        /* kernels in a sequence: 2 to this many */
#define TC_FUSION_MIN_RUNS 10      /* a candidate repeats at least this often in the job */
#define TC_FUSION_ROWS 20          /* candidates reported, by GPU time */

/* One (op, shapes, dtype) group of one rank. */
typedef struct {
    char *op, *shapes;        /* owned; shapes NULL: the op carried no Input Dims */
    int8_t dtype;             /* tc_dtype */
    uint8_t family;           /* tc_op_family */
    bool has_flops, has_bytes;
    double flops, bytes;      /* Σ over its calls */
    int64_t count, kernels, gpu_ns;
    int64_t *durs;            /* the kernels' durations (kernels of them), owned */
} tc_op_part_group;

typedef struct {
    char *path;               /* owned; NULL: outside every module */
    int64_t self_ns;
} tc_op_part_module;

/* How many of a group's calls ran inside one parent op (the cpu_op enclosing the call). */
typedef struct {
    uint64_t group;           /* index into tc_op_parts.groups */
    char *op;                 /* the parent's name, owned; NULL: the call ran in no other cpu_op */
    int64_t calls;
} tc_op_part_parent;

typedef struct {
    bool has;                 /* the trace has CPU ops */
    bool has_modules;         /* ... and module spans (module_source) */
    uint8_t module_source;    /* tc_module_source of this rank's view */
    tc_op_part_group *groups; size_t n_groups, cap_groups;
    tc_op_part_module *modules; size_t n_modules, cap_modules;
    tc_fusion_row *fusions; size_t n_fusions, cap_fusions; /* occurrences >= 2 in this rank */
    tc_op_part_parent *parents; size_t n_parents, cap_parents; /* per (group, parent) */
    int64_t compute_ns, attributed_ns, unknown_shapes_ns;
} tc_op_parts;

/* One trace's parts into a zeroed out. Sorts t->modules in place and t->host when it is not sorted
 * yet (host_wait.h's order); t's launches must be sorted (tc_trace_sort_launches). 0, or -1 out of
 * memory (out then freed). */
int tc_op_parts_rank(tc_trace *t, tc_op_parts *out);
void tc_op_parts_free(tc_op_parts *p);
/* j->ops from the ranks' parts (*parts[r] for j->ranks[r]), after MFU (rr->gpu, peak, window). 0,
 * or -1 out of memory. */
int tc_op_groups_finish(tc_job *j, const tc_op_parts *const *parts);
#endif
