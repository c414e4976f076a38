/* ops.h: FLOPs of one PyTorch operator from its recorded shapes (record_shapes=True), and the
 * compact per-trace record of such operators. Knows no JSON: the parser fills a tc_op_shapes
 * (bounded: TC_OP_MAX_INPUTS inputs of at most TC_OP_MAX_DIMS dimensions) and hands it over with
 * tc_trace_add_shaped_op. Only the FLOP operators listed in ops.c are kept, so memory stays
 * bounded by their number. Formulas follow torch.utils.flop_counter (see docs/mfu.md). */
#ifndef TC_OPS_H
#define TC_OPS_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "gpu_catalog.h"
#include "op_groups.h"
#include "trace.h"

#define TC_OP_MAX_INPUTS 16 /* inputs read per op; later ones are ignored */
#define TC_OP_MAX_DIMS 8    /* dimensions per tensor; more marks the input unusable */
#define TC_OP_TEXT 32       /* bytes kept per Input type / Concrete Inputs entry (NUL included) */

/* The FLOP operators. Wrapper ops (linear, matmul, convolution, sdpa) are listed too: whichever
 * is innermost with known FLOPs counts (tc_flops_resolve_nesting). */
typedef enum {
    TC_FOP_NONE = 0,
    TC_FOP_MM, TC_FOP_ADDMM, TC_FOP_BMM, TC_FOP_BADDBMM, TC_FOP_MATMUL, TC_FOP_LINEAR, TC_FOP_SCALED_MM,
    TC_FOP_CONV,            /* convolution/_convolution: (input, weight, bias, stride, padding, dilation, transposed, ...) */
    TC_FOP_CUDNN_CONV,      /* cudnn_convolution: (input, weight, padding, stride, dilation, groups, ...) */
    TC_FOP_MIOPEN_CONV,     /* miopen_convolution: (input, weight, bias, padding, stride, dilation, ...) */
    TC_FOP_CONV_TRANSPOSE,  /* cudnn/miopen_convolution_transpose: (input, weight, ...) */
    TC_FOP_CONV_BWD,        /* convolution_backward: (grad_out, input, weight, ..., transposed@7, ..., output_mask@10) */
    TC_FOP_CUDNN_CONV_BWD,  /* cudnn_convolution_backward: (input, grad_out, weight, ..., output_mask@10) */
    TC_FOP_SDPA,            /* q, k, v as [..., L, E] (scaled_dot_product_attention, _scaled_dot_product_*_attention) */
    TC_FOP_SDPA_BWD,        /* grad_out, q, k, v as [..., L, E] (_scaled_dot_product_*_attention_backward) */
    TC_FOP_ATTN,            /* q, k, v as [B, L, H, E] (_flash_attention_forward, _efficient_attention_forward) */
    TC_FOP_ATTN_BWD,        /* grad_out, q, k, v as [B, L, H, E] (_flash/_efficient_attention_backward) */
    TC_FOP_COUNT
} tc_flop_op;

/* One input of an op as "Input Dims" wrote it. */
typedef struct {
    int8_t ndims;                  /* dimensions; 0 = scalar/None/empty list; -1 = unusable (nested list, too many dims) */
    int64_t d[TC_OP_MAX_DIMS];     /* sizes, elements */
} tc_op_tensor;

/* Shapes, types and concrete values of one op's inputs. Strings are NUL-terminated, cut to fit. */
typedef struct {
    int n_inputs;                          /* entries of "Input Dims" read (<= TC_OP_MAX_INPUTS) */
    tc_op_tensor in[TC_OP_MAX_INPUTS];
    int n_types;                           /* entries of "Input type" read */
    char types[TC_OP_MAX_INPUTS][TC_OP_TEXT];
    int n_concrete;                        /* entries of "Concrete Inputs" read */
    char concrete[TC_OP_MAX_INPUTS][TC_OP_TEXT];
} tc_op_shapes;

/* The FLOP operator named name[0..len) ("aten::mm"), TC_FOP_NONE for any other name. */
tc_flop_op tc_flop_op_from_name(const char *name, size_t len);

/* FLOPs (multiply and add counted as 2) of op with shapes s; -1 when the shapes do not allow it
 * (missing inputs, unusable dims, a forward convolution without its stride/padding, varlen
 * attention). *dtype (if non-NULL) receives the dtype of the op's first tensor input
 * (TC_DTYPE_UNKNOWN when no Input type maps to a catalog dtype). */
double tc_flops_of(tc_flop_op op, const tc_op_shapes *s, tc_dtype *dtype);

/* Concrete Inputs entry i as integers: "[1, 2]" or "3" into up to cap values of v; the count, 0
 * when absent, empty or not integers. */
int tc_op_concrete_ints(const tc_op_shapes *s, int i, int64_t *v, int cap);

/* FNV-1a of s's Concrete Inputs texts (each entry as kept, cut at TC_OP_TEXT - 1 bytes): what,
 * with the name, shapes and dtype, tells an op key (model/trace.h tc_op_key) from another. */
uint32_t tc_op_concrete_hash(const tc_op_shapes *s);

/* The cost of one call of any op from its shapes (issue 34): its family, FLOPs and bytes moved
 * (inputs read once + outputs written once; each formula in docs/definitions.md "Ops and the
 * roofline"). has_flops / has_bytes false when the shapes do not give the figure; family
 * TC_OPF_OTHER for an op no formula knows. */
typedef struct {
    uint8_t family;       /* tc_op_family */
    bool has_flops; double flops;
    bool has_bytes; double bytes;
    tc_dtype dtype;       /* of the first tensor input, TC_DTYPE_UNKNOWN none */
} tc_op_cost;
void tc_op_cost_of(const char *name, size_t len, const tc_op_shapes *s, tc_op_cost *out);

/* Records one FLOP op of trace t (the parser calls it for cpu_op/Operator complete events whose
 * name maps to a tc_flop_op). tid_key: a hash of the event's pid and tid text (ops nest only within
 * one thread); external_id: "External id" or -1. Copies what it needs; s stays the caller's.
 * 0, or -1 out of memory. */
int tc_trace_add_shaped_op(tc_trace *t, tc_flop_op op, const char *name, size_t name_len, int64_t ts_ns,
                           int64_t dur_ns, uint64_t tid_key, int64_t external_id, const tc_op_shapes *s);

#endif
