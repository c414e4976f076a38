/* op_cost.c: the cost of one call of any PyTorch op from its recorded shapes (ops.h
 * tc_op_cost_of): its family, FLOPs and bytes moved. Bytes are one rule for every op: each tensor
 * input read once plus each output written once; what differs per family is the output (its shape
 * and dtype, from the inputs and Concrete Inputs) and the few inputs an op does not read (the
 * destination of copy_, the whole table of an embedding). GEMM, convolution and attention FLOPs
 * are tc_flops_of's (torch.utils.flop_counter, the MFU's formula); the other families' FLOPs follow
 * TraceLens' perf model conventions. Every formula: docs/definitions.md "Ops and the roofline". */
#include "ops.h"
#include <stdlib.h>
#include <string.h>

/* ---- element sizes ------------------------------------------------------------------------- */

/* Bytes per element of a tensor "Input type" as PyTorch writes it (c10 type names and C type
 * names); 0 for anything that is not a tensor type ("Scalar", "", "ScalarList", "TensorList",
 * old traces' capitalised scalars "Int", "Double", "Bool") or is unknown. */
static int elem_size(const char *t) {
    static const struct { const char *name; int size; } sizes[] = {
        {"float", 4}, {"double", 8}, {"c10::BFloat16", 2}, {"c10::Half", 2}, {"long int", 8},
        {"long", 8}, {"int", 4}, {"short int", 2}, {"short", 2}, {"signed char", 1},
        {"unsigned char", 1}, {"bool", 1}, {"unsigned short", 2}, {"unsigned int", 4},
        {"unsigned long", 8}, {"c10::complex<float>", 8}, {"c10::complex<double>", 16},
        {"c10::complex<c10::Half>", 4}, {"c10::qint8", 1}, {"c10::quint8", 1}, {"c10::qint32", 4},
        {"c10::quint4x2", 1}, {"c10::Float4_e2m1fn_x2", 1},
    };
    if (!t[0] || !strchr("fdlisubc", t[0])) return 0; /* "Scalar", "", "TensorList", "Int" ... at once */
    if (strncmp(t, "c10::Float8_", 12) == 0) return 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].name[0] == t[0] && strcmp(t, sizes[i].name) == 0) return sizes[i].size;
    return 0;
}

/* Bytes per element of a c10::ScalarType code as Concrete Inputs writes a dtype argument ("6" is
 * float, "15" bfloat16); 0 unknown. */
static int scalar_type_size(long long code) {
    static const int sizes[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1};
    return code >= 0 && code < (long long)(sizeof sizes / sizeof sizes[0]) ? sizes[code] : 0;
}

/* ---- inputs --------------------------------------------------------------------------------- */

typedef struct {
    const tc_op_shapes *s;
    bool unusable;  /* an input whose size cannot be known (TensorList, unknown tensor type) */
} io;

static const char *type_of(const tc_op_shapes *s, int i) { return i < s->n_types ? s->types[i] : ""; }

/* Input i as a tensor: its element count into *n and element size into *es; false when it is no
 * tensor (a scalar, None, an int list) or is not there. */
static bool tensor(const tc_op_shapes *s, int i, double *n, int *es) {
    if (i >= s->n_inputs || s->in[i].ndims < 0) return false;
    int e = elem_size(type_of(s, i));
    if (e == 0) return false;
    double p = 1;
    for (int k = 0; k < s->in[i].ndims; k++) {
        if (s->in[i].d[k] < 0) return false;
        p *= (double)s->in[i].d[k];
    }
    *n = p;
    *es = e;
    return true;
}

/* Σ bytes of every tensor input but those in skip (a bit mask of input indices). Marks the call
 * unusable when one input is a list of tensors or a tensor of unknown type. */
static double inputs_read(io *c, unsigned skip) {
    const tc_op_shapes *s = c->s;
    double b = 0;
    for (int i = 0; i < s->n_inputs; i++) {
        if (skip & (1u << i)) continue;
        const char *t = type_of(s, i);
        if (s->in[i].ndims < 0 || !strcmp(t, "TensorList")) { /* GenericList with [] is an int list */
            c->unusable = true;
            continue;
        }
        double n;
        int e;
        if (tensor(s, i, &n, &e)) b += n * (double)e;
        else if (s->in[i].ndims > 0 && t[0] && strcmp(t, "Scalar") && strcmp(t, "ScalarList"))
            c->unusable = true; /* a tensor whose element size we do not know */
    }
    return b;
}

static int ndims(const tc_op_shapes *s, int i) { return i < s->n_inputs ? s->in[i].ndims : -1; }

/* The integer of Concrete Inputs entry i ("6", "-1"); false when absent or not an integer. */
static bool concrete_int(const tc_op_shapes *s, int i, long long *v) {
    if (i >= s->n_concrete || !s->concrete[i][0]) return false;
    char *end;
    *v = strtoll(s->concrete[i], &end, 10);
    return *end == 0 && end != s->concrete[i];
}

static bool concrete_true(const tc_op_shapes *s, int i) {
    return i < s->n_concrete && (!strcmp(s->concrete[i], "True") || !strcmp(s->concrete[i], "true"));
}

/* ---- elementwise: broadcasting --------------------------------------------------------------- */

/* The broadcast shape of every tensor input (right-aligned, a 1 stretches) as its element count,
 * and the output's element size: the widest input of at least one dimension (a 0-dim tensor is a
 * wrapped Python number and does not promote), else input 0's. False when the shapes do not
 * broadcast or no input is a tensor. */
static bool broadcast(const tc_op_shapes *s, double *out_n, int *out_es) {
    int64_t r[TC_OP_MAX_DIMS]; /* r[j]: the j-th dimension from the right */
    int nd = 0, widest = 0, first = 0;
    bool any = false;
    for (int i = 0; i < s->n_inputs; i++) {
        double n;
        int e;
        if (!tensor(s, i, &n, &e)) continue;
        const tc_op_tensor *t = &s->in[i];
        if (!any) first = e;
        any = true;
        if (t->ndims > 0 && e > widest) widest = e;
        for (int j = 0; j < t->ndims; j++) {
            int64_t d = t->d[t->ndims - 1 - j];
            if (j >= nd) { r[j] = d; nd = j + 1; }
            else if (r[j] == 1) r[j] = d;
            else if (d != 1 && d != r[j]) return false;
        }
    }
    if (!any) return false;
    double p = 1;
    for (int j = 0; j < nd; j++) p *= (double)r[j];
    *out_n = p;
    *out_es = widest ? widest : first;
    return true;
}

/* ---- the op table ---------------------------------------------------------------------------- */

typedef enum {
    K_NONE = 0,
    K_EW,        /* elementwise: output = broadcast of the tensor inputs; 1 FLOP per output element */
    K_EW_BOOL,   /* comparison: the same with a bool output */
    K_EW_NOFLOP, /* elementwise without arithmetic (masked_fill, where's selection counts: see doc) */
    K_DROPOUT,   /* native_dropout / dropout: the output and a bool mask, 1 FLOP per element */
    K_FILL,      /* fill_ / zero_ / random fills: self written, not read, no FLOPs */
    K_COPY_,     /* copy_(self, src): src read, self written */
    K_TO,        /* to / _to_copy: input 0 read, written in the dtype of Concrete Inputs[1] */
    K_CLONE,     /* clone / contiguous: input 0 read and written */
    K_CAT,       /* cat / stack: a TensorList: unknown today */
    K_INDEX_SELECT, /* index_select(self, dim, index): index rows of self read and written */
    K_GATHER,    /* gather(self, dim, index): index's elements of self read, index's shape written */
    K_SELF,      /* scatter / index_add / cumsum ...: every input read, self's shape written */
    K_EMBEDDING, /* embedding(weight, indices): the indexed rows read, the output written */
    K_EMBEDDING_BWD, /* embedding_dense_backward(grad, indices, num_weights, ...) */
    K_SOFTMAX,   /* _softmax / softmax / _log_softmax / log_softmax */
    K_SOFTMAX_BWD, /* _softmax_backward_data / _log_softmax_backward_data (grad, output, dim, dtype) */
    K_LAYER_NORM, K_LAYER_NORM_BWD, K_RMS_NORM, K_FUSED_RMS_NORM, K_FUSED_RMS_NORM_BWD,
    K_BATCH_NORM, K_CUDNN_BATCH_NORM_BWD, K_NATIVE_BATCH_NORM_BWD, /* statistics per channel (dim 1) */
    K_REDUCE,    /* sum / mean / amax ...: input 0 reduced over the dims of Concrete Inputs[dim] */
} kind;

typedef struct { const char *name; uint8_t len; uint8_t family; uint8_t kind; int8_t dim_arg; uint8_t flops_per; } op_row;

#define R(n, f, k, d, p) {n, sizeof n - 1, f, k, d, p}
static const op_row ops[] = {
    /* elementwise (the in-place `name_` forms are found by stripping the `_`) */
    R("add", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("sub", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("rsub", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("mul", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("div", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("pow", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("neg", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("abs", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("exp", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("log", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("sqrt", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("rsqrt", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("reciprocal", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("sin", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("cos", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("tanh", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("sigmoid", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("relu", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("gelu", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("silu", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("erf", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("clamp", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("clamp_min", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("threshold", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("addcmul", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("addcdiv", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("lerp", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("maximum", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("minimum", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("where", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("gelu_backward", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("silu_backward", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("threshold_backward", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("sigmoid_backward", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("tanh_backward", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("native_dropout_backward", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("masked_fill", TC_OPF_ELEMENTWISE, K_EW_NOFLOP, -1, 0),
    R("log2", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("log1p", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("expm1", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("sign", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("floor", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("ceil", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("round", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("trunc", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("nan_to_num", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("logit", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("hardtanh", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("leaky_relu", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("elu", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("softplus", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("hardswish", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("hardsigmoid", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("mish", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("clamp_max", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("bitwise_and", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("bitwise_or", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("bitwise_xor", TC_OPF_ELEMENTWISE, K_EW, -1, 1), R("bitwise_not", TC_OPF_ELEMENTWISE, K_EW, -1, 1),
    R("logical_and", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1), R("logical_or", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1),
    R("isinf", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1),
    R("eq", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1), R("ne", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1),
    R("lt", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1), R("le", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1),
    R("gt", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1), R("ge", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1),
    R("logical_not", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1), R("isnan", TC_OPF_ELEMENTWISE, K_EW_BOOL, -1, 1),
    R("dropout", TC_OPF_ELEMENTWISE, K_DROPOUT, -1, 1), R("native_dropout", TC_OPF_ELEMENTWISE, K_DROPOUT, -1, 1),
    R("fill_", TC_OPF_ELEMENTWISE, K_FILL, -1, 0), R("zero_", TC_OPF_ELEMENTWISE, K_FILL, -1, 0),
    R("normal_", TC_OPF_ELEMENTWISE, K_FILL, -1, 0), R("uniform_", TC_OPF_ELEMENTWISE, K_FILL, -1, 0),
    /* copies */
    R("copy_", TC_OPF_COPY, K_COPY_, -1, 0), R("to", TC_OPF_COPY, K_TO, -1, 0),
    R("_to_copy", TC_OPF_COPY, K_TO, -1, 0), R("clone", TC_OPF_COPY, K_CLONE, -1, 0),
    R("contiguous", TC_OPF_COPY, K_CLONE, -1, 0), R("cat", TC_OPF_COPY, K_CAT, -1, 0),
    R("stack", TC_OPF_COPY, K_CAT, -1, 0), R("index_select", TC_OPF_COPY, K_INDEX_SELECT, 1, 0),
    R("gather", TC_OPF_COPY, K_GATHER, -1, 0), R("scatter", TC_OPF_COPY, K_SELF, -1, 0),
    R("scatter_add", TC_OPF_COPY, K_SELF, -1, 0), R("index_add", TC_OPF_COPY, K_SELF, -1, 0),
    R("index_copy", TC_OPF_COPY, K_SELF, -1, 0), R("cumsum", TC_OPF_REDUCTION, K_SELF, -1, 1),
    /* embedding */
    R("embedding", TC_OPF_EMBEDDING, K_EMBEDDING, -1, 0),
    R("embedding_dense_backward", TC_OPF_EMBEDDING, K_EMBEDDING_BWD, -1, 1),
    R("embedding_backward", TC_OPF_EMBEDDING, K_EMBEDDING_BWD, -1, 1),
    /* softmax */
    R("_softmax", TC_OPF_SOFTMAX, K_SOFTMAX, 1, 3), R("softmax", TC_OPF_SOFTMAX, K_SOFTMAX, 1, 3),
    R("_log_softmax", TC_OPF_SOFTMAX, K_SOFTMAX, 1, 3), R("log_softmax", TC_OPF_SOFTMAX, K_SOFTMAX, 1, 3),
    R("_softmax_backward_data", TC_OPF_SOFTMAX, K_SOFTMAX_BWD, 2, 6),
    R("_log_softmax_backward_data", TC_OPF_SOFTMAX, K_SOFTMAX_BWD, 2, 6),
    /* norms */
    R("layer_norm", TC_OPF_NORM, K_LAYER_NORM, 1, 0), R("native_layer_norm", TC_OPF_NORM, K_LAYER_NORM, 1, 0),
    R("native_layer_norm_backward", TC_OPF_NORM, K_LAYER_NORM_BWD, 2, 0),
    R("rms_norm", TC_OPF_NORM, K_RMS_NORM, 1, 0), R("_fused_rms_norm", TC_OPF_NORM, K_FUSED_RMS_NORM, 1, 0),
    R("_fused_rms_norm_backward", TC_OPF_NORM, K_FUSED_RMS_NORM_BWD, 2, 0),
    R("batch_norm", TC_OPF_NORM, K_BATCH_NORM, 5, 0), R("_batch_norm_impl_index", TC_OPF_NORM, K_BATCH_NORM, 5, 0),
    R("native_batch_norm", TC_OPF_NORM, K_BATCH_NORM, 5, 0), R("cudnn_batch_norm", TC_OPF_NORM, K_BATCH_NORM, 5, 0),
    R("miopen_batch_norm", TC_OPF_NORM, K_BATCH_NORM, 5, 0),
    R("cudnn_batch_norm_backward", TC_OPF_NORM, K_CUDNN_BATCH_NORM_BWD, -1, 0),
    R("native_batch_norm_backward", TC_OPF_NORM, K_NATIVE_BATCH_NORM_BWD, 7, 0),
    /* reductions: dim_arg is where the dims are; flops_per per input element */
    R("sum", TC_OPF_REDUCTION, K_REDUCE, 1, 1), R("mean", TC_OPF_REDUCTION, K_REDUCE, 1, 1),
    R("amax", TC_OPF_REDUCTION, K_REDUCE, 1, 1), R("amin", TC_OPF_REDUCTION, K_REDUCE, 1, 1),
    R("max", TC_OPF_REDUCTION, K_REDUCE, 1, 1), R("min", TC_OPF_REDUCTION, K_REDUCE, 1, 1),
    R("prod", TC_OPF_REDUCTION, K_REDUCE, 1, 1), R("all", TC_OPF_REDUCTION, K_REDUCE, 1, 1),
    R("any", TC_OPF_REDUCTION, K_REDUCE, 1, 1), R("argmax", TC_OPF_REDUCTION, K_REDUCE, 1, 1),
    R("norm", TC_OPF_REDUCTION, K_REDUCE, 2, 2), R("linalg_vector_norm", TC_OPF_REDUCTION, K_REDUCE, 2, 2),
    R("linalg_norm", TC_OPF_REDUCTION, K_REDUCE, 2, 2),
};
#undef R

static const op_row *find_row(const char *name, size_t len) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].len == len && memcmp(ops[i].name, name, len) == 0) return &ops[i];
    return NULL;
}

/* ---- per kind -------------------------------------------------------------------------------- */

/* What one call moves and computes; has_* false when the shapes do not give it. */
typedef struct { bool has_flops; double flops; bool has_bytes; double bytes; } cost;

static double numel(const tc_op_shapes *s, int i, int *es) { /* 0 with *es = 0 when no tensor */
    double n = 0;
    int e = 0;
    if (!tensor(s, i, &n, &e)) { n = 0; e = 0; }
    if (es) *es = e;
    return n;
}

/* "[True, False, True]" (Concrete Inputs entry i) into want[0..n); false when not recorded. */
static bool bool_list(const tc_op_shapes *s, int i, bool *want, int n) {
    if (i >= s->n_concrete || s->concrete[i][0] != '[') return false;
    const char *p = s->concrete[i] + 1;
    for (int k = 0; k < n; k++) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == 'T' || *p == 't' || *p == '1') want[k] = true;
        else if (*p == 'F' || *p == 'f' || *p == '0') want[k] = false;
        else return false;
        while (*p && *p != ',' && *p != ']') p++;
    }
    return true;
}

/* The product of the integers of Concrete Inputs entry i ("[1024]", "[2, 3]"); 0 unknown. */
static double concrete_prod(const tc_op_shapes *s, int i) {
    int64_t v[TC_OP_MAX_DIMS];
    int n = i < s->n_concrete && s->concrete[i][0] == '[' ? tc_op_concrete_ints(s, i, v, TC_OP_MAX_DIMS) : 0;
    double prod = n ? 1 : 0;
    for (int k = 0; k < n; k++) prod *= v[k] >= 0 ? (double)v[k] : 0;
    return prod;
}

static void elementwise(io *c, const op_row *r, bool inplace, cost *o) {
    const tc_op_shapes *s = c->s;
    double n;
    int es;
    if (!broadcast(s, &n, &es)) return;
    if (inplace) n = numel(s, 0, &es);
    if (r->kind == K_EW_BOOL) es = 1;
    o->has_flops = r->kind != K_EW_NOFLOP;
    o->flops = n * r->flops_per;
    o->bytes = inputs_read(c, 0) + n * es;
    o->has_bytes = true;
}

static void copies(io *c, const op_row *r, cost *o) {
    const tc_op_shapes *s = c->s;
    int es;
    double n = numel(s, 0, &es), read;
    if (es == 0) return;
    int es_out = es;
    switch (r->kind) {
    case K_FILL: read = inputs_read(c, 1u); break;     /* self is written, not read */
    case K_COPY_: read = inputs_read(c, 1u); break;    /* src read, self (the destination) written */
    case K_TO: {
        long long code;
        int e1;
        read = inputs_read(c, ~1u);
        (void)numel(s, 1, &e1);
        bool device = s->n_concrete > 1 && s->concrete[1][0] && !concrete_int(s, 1, &code); /* "cuda:0" */
        if (concrete_int(s, 1, &code) && scalar_type_size(code)) es_out = scalar_type_size(code);
        else if (e1) es_out = e1; /* to(other) */
        else if (device && concrete_int(s, 2, &code) && scalar_type_size(code)) es_out = scalar_type_size(code);
        break;
    }
    case K_DROPOUT:
        read = inputs_read(c, 0);
        o->has_flops = true;
        o->flops = n;
        o->has_bytes = true;
        o->bytes = read + n * es + n; /* the output and its bool mask */
        return;
    default: read = inputs_read(c, ~1u); break;        /* clone / contiguous */
    }
    o->has_bytes = true;
    o->bytes = read + n * es_out;
}

/* index_select(self, dim, index) and embedding(weight, indices): only the indexed rows are read. */
static void gather(io *c, const op_row *r, cost *o) {
    const tc_op_shapes *s = c->s;
    int es, ei;
    double n = numel(s, 0, &es), row, idx;
    if (es == 0 || s->in[0].ndims < 1) return;
    if (r->kind == K_EMBEDDING) {
        idx = numel(s, 1, &ei);
        row = n / (double)s->in[0].d[0];
    } else if (r->kind == K_GATHER) {
        idx = numel(s, 2, &ei);
        row = 1;
    } else {
        long long dim;
        idx = numel(s, 2, &ei);
        if (!concrete_int(s, 1, &dim)) return;
        if (dim < 0) dim += s->in[0].ndims;
        if (dim < 0 || dim >= s->in[0].ndims || s->in[0].d[dim] == 0) return;
        row = n / (double)s->in[0].d[dim];
    }
    if (ei == 0 || s->in[0].d[0] == 0) return;
    o->has_bytes = true;
    o->bytes = idx * ei + 2 * idx * row * es; /* indices + rows read, rows written */
}

/* scatter(self, dim, index, src) / index_add / cumsum: every tensor input read, self's shape
 * written in self's dtype (in-place forms too); flops_per FLOPs per element of self. */
static void same_as_self(io *c, const op_row *r, cost *o) {
    int es;
    double n = numel(c->s, 0, &es);
    if (es == 0) return;
    o->has_flops = r->flops_per > 0;
    o->flops = n * r->flops_per;
    o->has_bytes = true;
    o->bytes = inputs_read(c, 0) + n * es;
}

/* embedding_dense_backward(grad, indices, num_weights, ...): the whole table gradient written. */
static void embedding_bwd(io *c, cost *o) {
    const tc_op_shapes *s = c->s;
    int es;
    double g = numel(s, 0, &es);
    long long v;
    if (es == 0 || s->in[0].ndims < 1) return;
    o->has_flops = true;
    o->flops = g; /* one add per gradient element */
    if (!concrete_int(s, 2, &v) || v < 0) return;
    o->has_bytes = true;
    o->bytes = inputs_read(c, 0) + (double)v * (double)s->in[0].d[s->in[0].ndims - 1] * es;
}

static void softmax(io *c, const op_row *r, cost *o) {
    const tc_op_shapes *s = c->s;
    int es;
    double n = numel(s, 0, &es);
    if (es == 0) return;
    o->has_flops = true;
    o->flops = n * r->flops_per;
    long long code;
    int es_out = es;
    if (r->kind == K_SOFTMAX) {
        if (concrete_true(s, 2)) es_out = 4; /* _softmax(half_to_float=True) */
        else if (concrete_int(s, 2, &code) && scalar_type_size(code)) es_out = scalar_type_size(code);
    }
    /* backward: grad_output and output read (later inputs are dim and dtype, or old traces' self) */
    o->has_bytes = true;
    o->bytes = inputs_read(c, r->kind == K_SOFTMAX_BWD ? ~3u : 0) + n * es_out;
}

/* Layer norm (x at 0, weight at 2, bias at 3) and RMS norm (weight at 2), forward and backward.
 * C: the normalized size (the weight's elements, else Concrete Inputs' normalized_shape, else the
 * rows the saved statistics give), rows = n / C. */
static void norm(io *c, const op_row *r, cost *o) {
    const tc_op_shapes *s = c->s;
    bool bwd = r->kind == K_LAYER_NORM_BWD || r->kind == K_FUSED_RMS_NORM_BWD;
    bool layer = r->kind == K_LAYER_NORM || r->kind == K_LAYER_NORM_BWD;
    int x = bwd ? 1 : 0, iw = bwd ? (layer ? 5 : 4) : 2, ib = layer ? (bwd ? 6 : 3) : -1;
    int istat = bwd ? 3 : -1; /* mean (layer) or rstd (rms) */
    int es, ew = 0, eb = 0, est = 0;
    double n = numel(s, x, &es), w = numel(s, iw, &ew), b = ib >= 0 ? numel(s, ib, &eb) : 0;
    double st = istat >= 0 ? numel(s, istat, &est) : 0;
    double C = ew ? w : eb ? b : concrete_prod(s, r->dim_arg);
    if (C == 0 && est && st > 0) C = n / st;
    if (es == 0 || C <= 0 || n <= 0) return;
    double rows = n / C;
    if (rows != (double)(int64_t)rows) return; /* C does not divide the input: not this layout */
    double f = layer ? 5 * n + 3 * rows : 3 * n + 2 * rows;
    if (ew) f += n;
    if (eb) f += n;
    o->has_flops = true;
    o->flops = bwd ? 2 * f : f;
    int stat_es = es == 8 ? 8 : 4; /* saved statistics are in the accumulation type */
    double wr;
    if (!bwd) {
        wr = n * es;
        if (layer) wr += 2 * rows * stat_es;                   /* mean, rstd */
        else if (r->kind == K_FUSED_RMS_NORM) wr += rows * stat_es; /* rstd */
        o->bytes = inputs_read(c, 0) + wr;
    } else {
        bool want[3] = {true, ew != 0, eb != 0};
        bool_list(s, layer ? 7 : 5, want, layer ? 3 : 2);
        wr = (want[0] ? n * es : 0) + (want[1] ? C * (ew ? ew : es) : 0) + (layer && want[2] ? C * (eb ? eb : es) : 0);
        o->bytes = inputs_read(c, layer ? 1u << 6 : 0) + wr; /* the bias is passed, not read */
    }
    o->has_bytes = true;
}

/* Batch norm: x [N, C, ...] with weight, bias, running_mean, running_var (inputs 1-4) of C; the
 * statistics are per channel. Forward in training (Concrete Inputs[5] True, or not recorded):
 * as a layer norm with C rows of n / C elements, writing y, the saved mean and invstd (floats) and
 * the running statistics it updates; in eval: normalize with the running statistics (2n FLOPs +
 * the affine), writing y. Backward: grad_input, grad_weight, grad_bias from the saved statistics
 * (the running ones are passed, not read); FLOPs 2 × the training forward's. */
static void batch_norm(io *c, const op_row *r, cost *o) {
    const tc_op_shapes *s = c->s;
    bool fwd = r->kind == K_BATCH_NORM, cudnn_bwd = r->kind == K_CUDNN_BATCH_NORM_BWD;
    int x = fwd || cudnn_bwd ? 0 : 1, iw = fwd ? 1 : 2;
    int es, ew = 0, eb = 0, erun = 0;
    double n = numel(s, x, &es);
    (void)numel(s, iw, &ew);
    if (fwd) (void)numel(s, 2, &eb);
    (void)numel(s, 3, &erun);
    if (es == 0 || s->in[x].ndims < 2 || s->in[x].d[1] <= 0) return;
    double C = (double)s->in[x].d[1];
    bool train = !fwd || r->dim_arg >= s->n_concrete || !s->concrete[r->dim_arg][0] || concrete_true(s, r->dim_arg);
    double f = train ? 5 * n + 3 * C : 2 * n;
    o->has_flops = true;
    o->has_bytes = true;
    if (fwd) {
        o->flops = f + (ew ? n : 0) + (eb ? n : 0);
        o->bytes = inputs_read(c, 0) + n * es + (train ? 2 * C * 4 + (erun ? 2 * C * erun : 0) : 0);
        return;
    }
    o->flops = 2 * (f + (ew ? 2 * n : 0)); /* an affine batch norm has a weight and a bias */
    bool want[3] = {true, ew != 0, ew != 0};
    if (!cudnn_bwd) bool_list(s, 9, want, 3);
    int eg = ew ? ew : es;
    double wr = (want[0] ? n * es : 0) + (want[1] ? C * eg : 0) + (want[2] ? C * eg : 0);
    o->bytes = inputs_read(c, 1u << 3 | 1u << 4) + wr; /* the running statistics are not read */
}

/* sum / mean / amax / max(dim) / norm ...: input 0 reduced over the dims of Concrete Inputs
 * entry dim_arg: a list ("[-1]"; "[]" is every dim) or an int followed by a keepdim; an absent
 * argument, "None", "" or an int with nothing after it (sum(self, dtype)) reduce every dim. No
 * Concrete Inputs at all (old traces): the output is unknown. max / min of two tensors are
 * elementwise. */
static bool reduced_dims(const tc_op_shapes *s, int d, double *out) {
    if (d >= s->n_inputs) { *out = 1; return true; }      /* sum(self), max(self) */
    if (s->n_concrete == 0) return false;
    const char *v = d < s->n_concrete ? s->concrete[d] : "";
    long long x;
    if (v[0] != '[') {
        if (!v[0] || !strcmp(v, "None") || s->n_inputs < d + 2 || !concrete_int(s, d, &x)) { *out = 1; return true; }
        v = s->concrete[d];
    }
    int nd = s->in[0].ndims;
    bool seen[TC_OP_MAX_DIMS] = {false};
    int64_t dims[TC_OP_MAX_DIMS];
    int k = strcmp(v, "[]") ? tc_op_concrete_ints(s, d, dims, TC_OP_MAX_DIMS) : 0;
    if (k == 0 && strcmp(v, "[]")) return false; /* not integers */
    for (int j = 0; j < k; j++) {
        int64_t x2 = dims[j] < 0 ? dims[j] + nd : dims[j];
        if (x2 < 0 || x2 >= nd) return false;
        seen[x2] = true;
    }
    double o = 1;
    for (int j = 0; j < nd; j++)
        if (!seen[j] && k > 0) o *= (double)s->in[0].d[j];
    *out = o;
    return true;
}

static bool named(const char *name, size_t len, const char *what) {
    return strlen(what) == len && memcmp(name, what, len) == 0;
}

static void reduction(io *c, const op_row *r, const char *name, size_t len, cost *o) {
    const tc_op_shapes *s = c->s;
    int es, e1;
    double n = numel(s, 0, &es), out;
    if (es == 0) return;
    (void)numel(s, 1, &e1);
    if (e1 && ndims(s, 1) > 0) { /* max(self, other): elementwise */
        static const op_row ew = {"", 0, TC_OPF_ELEMENTWISE, K_EW, -1, 1};
        elementwise(c, &ew, false, o);
        return;
    }
    o->has_flops = true;
    o->flops = n * r->flops_per;
    if (!reduced_dims(s, r->dim_arg, &out)) return;
    int es_out = es;
    bool indices = false; /* max.dim / min.dim also return the indices (int64) */
    if (named(name, len, "argmax")) es_out = 8;
    else if (named(name, len, "any") || named(name, len, "all")) es_out = 1;
    else if ((named(name, len, "max") || named(name, len, "min")) && r->dim_arg < s->n_inputs) indices = true;
    o->has_bytes = true;
    o->bytes = inputs_read(c, 0) + out * es_out + (indices ? out * 8 : 0);
}

/* ---- GEMM, convolution, attention ------------------------------------------------------------ */

static uint8_t flop_family(tc_flop_op op) {
    switch (op) {
    case TC_FOP_BMM: case TC_FOP_BADDBMM: return TC_OPF_BMM;
    case TC_FOP_CONV: case TC_FOP_CUDNN_CONV: case TC_FOP_MIOPEN_CONV: case TC_FOP_CONV_TRANSPOSE:
    case TC_FOP_CONV_BWD: case TC_FOP_CUDNN_CONV_BWD: return TC_OPF_CONV;
    case TC_FOP_SDPA: case TC_FOP_SDPA_BWD: case TC_FOP_ATTN: case TC_FOP_ATTN_BWD: return TC_OPF_ATTENTION;
    default: return TC_OPF_GEMM;
    }
}

static int64_t last_dim(const tc_op_shapes *s, int i) {
    return ndims(s, i) > 0 ? s->in[i].d[s->in[i].ndims - 1] : 0;
}

/* The output of a transposed convolution, x [N, C_in, i...], w [C_in, C_out/groups, k...]:
 * o = (i - 1)·stride - 2·padding + dilation·(k - 1) + output_padding + 1 per spatial dim, N ·
 * C_out · ∏o elements in x's dtype; the Concrete Inputs at the given indices (each "[a, b]" or one
 * value for all dims; dilation and output_padding default to 1 and 0, groups to 1). */
static bool conv_transposed_writes(const tc_op_shapes *s, int i_stride, int i_pad, int i_dil, int i_outpad,
                                   int i_groups, double *w) {
    const tc_op_tensor *x = &s->in[0], *wt = &s->in[1];
    int sp = x->ndims - 2, es;
    (void)numel(s, 0, &es);
    if (sp < 1 || es == 0) return false;
    int64_t v[4][TC_OP_MAX_DIMS];
    long long g = 1;
    const int at[4] = {i_stride, i_pad, i_dil, i_outpad};
    const int64_t dflt[4] = {-1, -1, 1, 0}; /* stride and padding must be recorded */
    for (int a = 0; a < 4; a++) {
        int n = tc_op_concrete_ints(s, at[a], v[a], sp);
        if (n == 0 && dflt[a] < 0) return false;
        for (int k = n; k < sp; k++) v[a][k] = n ? v[a][0] : dflt[a];
    }
    if (concrete_int(s, i_groups, &g) && g <= 0) return false;
    double out = (double)x->d[0] * (double)wt->d[1] * (double)g;
    for (int k = 0; k < sp; k++) {
        int64_t o = (x->d[2 + k] - 1) * v[0][k] - 2 * v[1][k] + v[2][k] * (wt->d[2 + k] - 1) + v[3][k] + 1;
        if (o <= 0) return false;
        out *= (double)o;
    }
    *w = out * es;
    return true;
}

/* The bytes a call writes: the output (or the gradients) whose shape the FLOPs already checked. */
static bool flop_writes(tc_flop_op op, bool miopen, const tc_op_shapes *s, double flops, double *w) {
    int es, e2, e3;
    int64_t k = 0;
    int first = 0; /* the input whose dtype the output has */
    switch (op) {
    case TC_FOP_MM: case TC_FOP_SCALED_MM: k = s->in[0].d[1]; break;
    case TC_FOP_ADDMM: k = s->in[1].d[1]; first = 1; break;
    case TC_FOP_BMM: k = s->in[0].d[2]; break;
    case TC_FOP_BADDBMM: k = s->in[1].d[2]; first = 1; break;
    case TC_FOP_MATMUL: case TC_FOP_LINEAR: k = last_dim(s, 0); break;
    case TC_FOP_CONV: case TC_FOP_CUDNN_CONV: case TC_FOP_MIOPEN_CONV: {
        if (op == TC_FOP_CONV && concrete_true(s, 6)) return conv_transposed_writes(s, 3, 4, 5, 7, 8, w);
        const tc_op_tensor *wt = &s->in[1];
        double per = 2.0 * (double)wt->d[1];
        for (int j = 2; j < wt->ndims; j++) per *= (double)wt->d[j];
        (void)numel(s, 0, &es);
        if (per <= 0 || es == 0) return false;
        *w = flops / per * es; /* output elements = FLOPs / (2 · C_in/groups · ∏kernel) */
        return true;
    }
    case TC_FOP_CONV_BWD: case TC_FOP_CUDNN_CONV_BWD: {
        int ig = op == TC_FOP_CONV_BWD ? 0 : 1, ix = op == TC_FOP_CONV_BWD ? 1 : 0;
        bool want[3] = {true, true, false};
        bool_list(s, 10, want, op == TC_FOP_CONV_BWD ? 3 : 2);
        double nx = numel(s, ix, &es), nw = numel(s, 2, &e2);
        (void)numel(s, ig, &e3);
        if (!es || !e2 || !e3) return false;
        *w = (want[0] ? nx * es : 0) + (want[1] ? nw * e2 : 0) + (want[2] ? (double)s->in[ig].d[1] * e3 : 0);
        return true;
    }
    case TC_FOP_CONV_TRANSPOSE:
        return miopen ? conv_transposed_writes(s, 5, 3, 6, 4, 7, w) : conv_transposed_writes(s, 4, 2, 5, 3, 6, w);
    case TC_FOP_SDPA: case TC_FOP_ATTN: { /* out: q's shape with v's last dim */
        double nq = numel(s, 0, &es);
        if (!es || last_dim(s, 0) <= 0) return false;
        *w = nq / (double)last_dim(s, 0) * (double)last_dim(s, 2) * es;
        return true;
    }
    case TC_FOP_SDPA_BWD: case TC_FOP_ATTN_BWD: { /* grad q, k, v */
        double nq = numel(s, 1, &es), nk = numel(s, 2, &e2), nv = numel(s, 3, &e3);
        if (!es || !e2 || !e3) return false;
        *w = nq * es + nk * e2 + nv * e3;
        return true;
    }
    default: return false;
    }
    (void)numel(s, first, &es);
    long long code;
    if (op == TC_FOP_SCALED_MM && concrete_int(s, 6, &code) && scalar_type_size(code)) es = scalar_type_size(code);
    if (k <= 0 || es == 0) return false;
    *w = flops / (2.0 * (double)k) * es; /* output elements = FLOPs / 2K */
    return true;
}

static void flop_op(tc_flop_op op, bool miopen, io *c, cost *o) {
    double f = tc_flops_of(op, c->s, NULL), w;
    if (f < 0) return;
    o->has_flops = true;
    o->flops = f;
    if (!flop_writes(op, miopen, c->s, f, &w)) return;
    o->bytes = inputs_read(c, 0) + w;
    o->has_bytes = true;
}

/* ---- the entry ------------------------------------------------------------------------------- */

void tc_op_cost_of(const char *name, size_t len, const tc_op_shapes *s, tc_op_cost *out) {
    memset(out, 0, sizeof *out);
    out->family = TC_OPF_OTHER;
    tc_dtype dt;
    (void)tc_flops_of(TC_FOP_NONE, s, &dt); /* the dtype rule of the MFU: first catalog dtype */
    out->dtype = dt;
    io c = {s, false};
    cost o = {false, 0, false, 0};
    tc_flop_op fop = tc_flop_op_from_name(name, len);
    if (fop != TC_FOP_NONE) {
        out->family = flop_family(fop);
        flop_op(fop, len >= 12 && !memcmp(name, "aten::miopen", 12), &c, &o);
    } else {
        if (len <= 6 || memcmp(name, "aten::", 6) != 0) return;
        name += 6;
        len -= 6;
        const op_row *r = find_row(name, len);
        bool inplace = false;
        if (!r && name[len - 1] == '_') { /* add_, mul_ ...: self read and written */
            r = find_row(name, len - 1);
            if (r && r->kind != K_EW && r->kind != K_EW_BOOL && r->kind != K_EW_NOFLOP && r->kind != K_SELF) r = NULL;
            inplace = r != NULL;
        }
        if (!r) return;
        out->family = r->family;
        switch (r->kind) {
        case K_EW: case K_EW_BOOL: case K_EW_NOFLOP: elementwise(&c, r, inplace, &o); break;
        case K_DROPOUT: case K_FILL: case K_COPY_: case K_TO: case K_CLONE: copies(&c, r, &o); break;
        case K_INDEX_SELECT: case K_EMBEDDING: case K_GATHER: gather(&c, r, &o); break;
        case K_SELF: same_as_self(&c, r, &o); break;
        case K_EMBEDDING_BWD: embedding_bwd(&c, &o); break;
        case K_SOFTMAX: case K_SOFTMAX_BWD: softmax(&c, r, &o); break;
        case K_LAYER_NORM: case K_LAYER_NORM_BWD: case K_RMS_NORM: case K_FUSED_RMS_NORM:
        case K_FUSED_RMS_NORM_BWD: norm(&c, r, &o); break;
        case K_BATCH_NORM: case K_CUDNN_BATCH_NORM_BWD: case K_NATIVE_BATCH_NORM_BWD: batch_norm(&c, r, &o); break;
        case K_REDUCE: reduction(&c, r, name, len, &o); break;
        default: break; /* cat / stack: a TensorList has no single shape */
        }
    }
    out->has_flops = o.has_flops;
    out->flops = o.has_flops ? o.flops : 0;
    out->has_bytes = o.has_bytes && !c.unusable;
    out->bytes = out->has_bytes ? o.bytes : 0;
}
