/* flops.c: the nesting rule that counts each GEMM once (see flops.h); the per-op formulas are
 * model/ops.c. */
#include "flops.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static int cmp_op(const void *a, const void *b) {
    const tc_cpu_op *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->ts_ns != y->ts_ns) return x->ts_ns < y->ts_ns ? -1 : 1;
    if (x->dur_ns != y->dur_ns) return x->dur_ns > y->dur_ns ? -1 : 1; /* the outer one first */
    return (x->op > y->op) - (x->op < y->op);
}

int tc_flops_resolve_nesting(tc_trace *t) {
    size_t n = t->n_ops;
    if (n == 0) return 0;
    tc_sort(t->ops, n, sizeof *t->ops, cmp_op);
    size_t *parent = tc_big_alloc(n, sizeof *parent, false), *stack = tc_big_alloc(n, sizeof *stack, false);
    bool *known_inside = tc_big_alloc(n, sizeof *known_inside, true);
    if (!parent || !stack || !known_inside) { free(parent); free(stack); free(known_inside); return -1; }
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        tc_cpu_op *o = &t->ops[i];
        /* pop the ops that do not contain this one (other thread, or ended before it) */
        while (depth) {
            const tc_cpu_op *p = &t->ops[stack[depth - 1]];
            if (p->tid == o->tid && o->ts_ns >= p->ts_ns && o->ts_ns + o->dur_ns <= p->ts_ns + p->dur_ns) break;
            depth--;
        }
        parent[i] = depth ? stack[depth - 1] : SIZE_MAX;
        stack[depth++] = i;
        o->inner_flops = 0;
    }
    /* an op with known FLOPs makes every op around it a wrapper */
    for (size_t i = 0; i < n; i++) {
        if (t->ops[i].flops < 0) continue;
        for (size_t p = parent[i]; p != SIZE_MAX && !known_inside[p]; p = parent[p]) known_inside[p] = true;
    }
    for (size_t i = 0; i < n; i++) {
        tc_cpu_op *o = &t->ops[i];
        o->counted = o->flops >= 0 && !known_inside[i];
        o->covered = 0;
        if (o->counted)
            for (size_t p = parent[i]; p != SIZE_MAX; p = parent[p]) t->ops[p].inner_flops += o->flops;
    }
    /* an op without FLOPs is covered when a counted op runs around it, or when it wraps other FLOP
     * ops (only the innermost of a chain of unknown ops is reported as left out) */
    for (size_t i = 0; i < n; i++)
        if (parent[i] != SIZE_MAX) t->ops[parent[i]].covered = 1;
    for (size_t i = 0; i < n; i++) {
        if (t->ops[i].flops >= 0) continue;
        for (size_t p = parent[i]; p != SIZE_MAX && !t->ops[i].covered; p = parent[p])
            t->ops[i].covered = t->ops[p].counted;
    }
    free(parent);
    free(stack);
    free(known_inside);
    return 0;
}
