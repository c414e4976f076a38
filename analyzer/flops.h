/* flops.h: which recorded FLOP ops count, so that each GEMM is counted once when ops nest
 * (aten::linear -> aten::addmm). The per-op formulas are model/ops.h. */
#ifndef TC_FLOPS_H
#define TC_FLOPS_H
#include "model/ops.h"
#include "model/trace.h"

/* Marks which ops count (tc_cpu_op.counted): an op with known FLOPs counts unless another op with
 * known FLOPs runs inside it on the same thread (aten::linear around aten::addmm counts once, as
 * the addmm). Fills inner_flops (FLOPs of the counted ops inside each op). Sorts t->ops by thread
 * and start. 0, or -1 out of memory. */
int tc_flops_resolve_nesting(tc_trace *t);
#endif
