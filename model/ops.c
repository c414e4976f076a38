/* ops.c: FLOP formulas per operator from recorded shapes and the shaped-op records of a trace (see
 * ops.h). A GEMM of [M,K]x[K,N] is 2·M·K·N FLOPs; bias adds, softmax and scaling are not counted
 * (as torch.utils.flop_counter). Which op counts when ops nest is analyzer/flops.c's rule. */
#include "ops.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

#define OP(text, op) {text, sizeof text - 1, op}
static const struct { const char *name; size_t len; tc_flop_op op; } op_names[] = {
    OP("aten::mm", TC_FOP_MM),
    OP("aten::addmm", TC_FOP_ADDMM),
    OP("aten::bmm", TC_FOP_BMM),
    OP("aten::baddbmm", TC_FOP_BADDBMM),
    OP("aten::matmul", TC_FOP_MATMUL),
    OP("aten::linear", TC_FOP_LINEAR),
    OP("aten::_scaled_mm", TC_FOP_SCALED_MM),
    OP("aten::convolution", TC_FOP_CONV),
    OP("aten::_convolution", TC_FOP_CONV),
    OP("aten::cudnn_convolution", TC_FOP_CUDNN_CONV),
    OP("aten::miopen_convolution", TC_FOP_MIOPEN_CONV),
    OP("aten::cudnn_convolution_transpose", TC_FOP_CONV_TRANSPOSE),
    OP("aten::miopen_convolution_transpose", TC_FOP_CONV_TRANSPOSE),
    OP("aten::convolution_backward", TC_FOP_CONV_BWD),
    OP("aten::cudnn_convolution_backward", TC_FOP_CUDNN_CONV_BWD),
    OP("aten::scaled_dot_product_attention", TC_FOP_SDPA),
    OP("aten::_scaled_dot_product_flash_attention", TC_FOP_SDPA),
    OP("aten::_scaled_dot_product_efficient_attention", TC_FOP_SDPA),
    OP("aten::_scaled_dot_product_cudnn_attention", TC_FOP_SDPA),
    OP("aten::_scaled_dot_product_flash_attention_backward", TC_FOP_SDPA_BWD),
    OP("aten::_scaled_dot_product_efficient_attention_backward", TC_FOP_SDPA_BWD),
    OP("aten::_scaled_dot_product_cudnn_attention_backward", TC_FOP_SDPA_BWD),
    OP("aten::_flash_attention_forward", TC_FOP_ATTN),
    OP("aten::_efficient_attention_forward", TC_FOP_ATTN),
    OP("aten::_flash_attention_backward", TC_FOP_ATTN_BWD),
    OP("aten::_efficient_attention_backward", TC_FOP_ATTN_BWD),
};
#undef OP

tc_flop_op tc_flop_op_from_name(const char *name, size_t len) {
    if (len < 8 || memcmp(name, "aten::", 6) != 0) return TC_FOP_NONE;
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (op_names[i].len == len && memcmp(op_names[i].name, name, len) == 0) return op_names[i].op;
    return TC_FOP_NONE;
}

/* ---- shape helpers ------------------------------------------------------------------------ */

static const tc_op_tensor *input(const tc_op_shapes *s, int i, int ndims_min) {
    if (i >= s->n_inputs || s->in[i].ndims < ndims_min || s->in[i].ndims < 1) return NULL;
    for (int k = 0; k < s->in[i].ndims; k++)
        if (s->in[i].d[k] < 0) return NULL;
    return &s->in[i];
}

static double prod(const tc_op_tensor *t, int from, int to) { /* product of d[from..to) */
    double p = 1;
    for (int k = from; k < to; k++) p *= (double)t->d[k];
    return p;
}

static double gemm(double b, double m, double k, double n) { return 2.0 * b * m * k * n; }

/* matmul semantics: 1-D operands are promoted, batch dimensions broadcast. */
static double matmul_flops(const tc_op_tensor *a, const tc_op_tensor *b) {
    if (!a || !b) return -1;
    int na = a->ndims, nb = b->ndims;
    double m = na >= 2 ? (double)a->d[na - 2] : 1, k = (double)a->d[na - 1];
    double n = nb >= 2 ? (double)b->d[nb - 1] : 1;
    double kb = nb >= 2 ? (double)b->d[nb - 2] : (double)b->d[0];
    if (k != kb) return -1;
    double batch = 1;
    int ba = na > 2 ? na - 2 : 0, bb = nb > 2 ? nb - 2 : 0;
    int nbatch = ba > bb ? ba : bb;
    for (int i = 0; i < nbatch; i++) { /* align from the right */
        int ia = ba - nbatch + i, ib = bb - nbatch + i;
        double da = ia >= 0 ? (double)a->d[ia] : 1, db = ib >= 0 ? (double)b->d[ib] : 1;
        batch *= da > db ? da : db;
    }
    return gemm(batch, m, k, n);
}

uint32_t tc_op_concrete_hash(const tc_op_shapes *s) {
    uint32_t h = 2166136261u;
    for (int i = 0; i < s->n_concrete; i++) {
        for (const char *c = s->concrete[i]; *c; c++) { h ^= (unsigned char)*c; h *= 16777619u; }
        h ^= 0xff; /* an entry's end: ["1", ""] is not ["", "1"] */
        h *= 16777619u;
    }
    return h;
}

int tc_op_concrete_ints(const tc_op_shapes *s, int i, int64_t *v, int cap) {
    if (i >= s->n_concrete) return 0;
    const char *p = s->concrete[i];
    int n = 0;
    while (*p && n < cap) {
        while (*p == '[' || *p == ' ' || *p == ',') p++;
        if (!*p || *p == ']') break;
        char *end;
        long long x = strtoll(p, &end, 10);
        if (end == p) return 0;
        v[n++] = x;
        p = end;
    }
    return n;
}

/* "True"/"False" (Concrete Inputs), or dflt when absent or unreadable. */
static bool concrete_bool(const tc_op_shapes *s, int i, bool dflt) {
    if (i >= s->n_concrete) return dflt;
    const char *c = s->concrete[i];
    if (!strcmp(c, "True") || !strcmp(c, "true") || !strcmp(c, "1")) return true;
    if (!strcmp(c, "False") || !strcmp(c, "false") || !strcmp(c, "0")) return false;
    return dflt;
}

/* FLOPs of one forward convolution given its output spatial size product:
 * 2 · N · Cout · prod(out spatial) · (Cin/groups) · prod(kernel). w = [Cout, Cin/g, k...]. */
static double conv_core(double n, const tc_op_tensor *w, double out_spatial) {
    return 2.0 * n * (double)w->d[0] * out_spatial * (double)w->d[1] * prod(w, 2, w->ndims);
}

/* Transposed: w = [Cin, Cout/g, k...]; every input element meets every kernel tap:
 * 2 · N · Cin · prod(in spatial) · (Cout/g) · prod(kernel). */
static double conv_transposed(const tc_op_tensor *x, const tc_op_tensor *w) {
    return 2.0 * (double)x->d[0] * (double)w->d[0] * prod(x, 2, x->ndims) * (double)w->d[1] * prod(w, 2, w->ndims);
}

/* Forward convolution: output spatial sizes need stride/padding/dilation (Concrete Inputs at the
 * given indices); without them the FLOPs are unknown. */
static double conv_forward(const tc_op_shapes *s, int i_pad, int i_stride, int i_dil, int i_transposed) {
    const tc_op_tensor *x = input(s, 0, 3), *w = input(s, 1, 3);
    if (!x || !w || x->ndims != w->ndims) return -1;
    if (i_transposed >= 0 && concrete_bool(s, i_transposed, false)) return conv_transposed(x, w);
    int sp = x->ndims - 2;
    int64_t pad[TC_OP_MAX_DIMS], str[TC_OP_MAX_DIMS], dil[TC_OP_MAX_DIMS];
    int np = tc_op_concrete_ints(s, i_pad, pad, sp), ns = tc_op_concrete_ints(s, i_stride, str, sp),
        nd = tc_op_concrete_ints(s, i_dil, dil, sp);
    if (np == 0 || ns == 0) return -1;
    double out = 1;
    for (int k = 0; k < sp; k++) {
        int64_t p = pad[np == sp ? k : 0], st = str[ns == sp ? k : 0], d = nd ? dil[nd == sp ? k : 0] : 1;
        if (st <= 0 || d <= 0) return -1;
        int64_t o = (x->d[2 + k] + 2 * p - d * (w->d[2 + k] - 1) - 1) / st + 1;
        if (o <= 0) return -1;
        out *= (double)o;
    }
    return conv_core((double)x->d[0], w, out);
}

/* Backward convolution: grad_out carries the output size. grad_input and grad_weight cost one
 * forward each (output_mask says which were computed; both when it is not recorded). */
static double conv_backward(const tc_op_shapes *s, int i_grad, int i_input, int i_weight, int i_transposed, int i_mask) {
    const tc_op_tensor *g = input(s, i_grad, 3), *x = input(s, i_input, 3), *w = input(s, i_weight, 3);
    if (!g || !x || !w || g->ndims != w->ndims || x->ndims != w->ndims) return -1;
    double fwd = (i_transposed >= 0 && concrete_bool(s, i_transposed, false))
                     ? conv_transposed(x, w)
                     : conv_core((double)g->d[0], w, prod(g, 2, g->ndims));
    int passes = 2;
    if (i_mask < s->n_concrete && s->concrete[i_mask][0] == '[') {
        const char *m = s->concrete[i_mask];
        bool gi = strncmp(m, "[True", 5) == 0 || strncmp(m, "[true", 5) == 0 || strncmp(m, "[1", 2) == 0;
        const char *c = strchr(m, ',');
        bool gw = true;
        if (c) { c++; while (*c == ' ') c++; gw = *c == 'T' || *c == 't' || *c == '1'; }
        passes = (int)gi + (int)gw;
    }
    return fwd * passes;
}

/* Attention forward: q [.., L, E], k [.., S, E], v [.., S, Ev] -> 2·BH·L·S·E + 2·BH·L·S·Ev.
 * Backward (with the recompute of the scores, as flash attention does): 2·BH·L·S·(3E + 2Ev).
 * bhle: the layout is [B, H, L, E] (or any leading batch dims); else [B, L, H, E]. */
static double attention(const tc_op_shapes *s, int first, bool bhle, bool backward) {
    const tc_op_tensor *q = input(s, first, bhle ? 2 : 4), *k = input(s, first + 1, bhle ? 2 : 4),
                       *v = input(s, first + 2, bhle ? 2 : 4);
    if (!q || !k || !v || k->ndims != q->ndims || v->ndims != q->ndims) return -1;
    int n = q->ndims;
    double bh, L, S, E, Ev;
    if (bhle) {
        bh = prod(q, 0, n - 2); L = (double)q->d[n - 2]; S = (double)k->d[n - 2];
        E = (double)q->d[n - 1]; Ev = (double)v->d[n - 1];
    } else {
        if (n != 4) return -1; /* varlen [T, H, E]: sequence lengths are not in the shapes */
        bh = (double)q->d[0] * (double)q->d[2]; L = (double)q->d[1]; S = (double)k->d[1];
        E = (double)q->d[3]; Ev = (double)v->d[3];
    }
    if ((double)q->d[n - 1] != (double)k->d[n - 1]) return -1;
    return backward ? 2.0 * bh * L * S * (3 * E + 2 * Ev) : 2.0 * bh * L * S * (E + Ev);
}

static double flops_only(tc_flop_op op, const tc_op_shapes *s) {
    const tc_op_tensor *a, *b;
    switch (op) {
    case TC_FOP_MM:
    case TC_FOP_SCALED_MM:
        a = input(s, 0, 2); b = input(s, 1, 2);
        if (!a || !b || a->ndims != 2 || b->ndims != 2 || a->d[1] != b->d[0]) return -1;
        return gemm(1, (double)a->d[0], (double)a->d[1], (double)b->d[1]);
    case TC_FOP_ADDMM:
        a = input(s, 1, 2); b = input(s, 2, 2);
        if (!a || !b || a->ndims != 2 || b->ndims != 2 || a->d[1] != b->d[0]) return -1;
        return gemm(1, (double)a->d[0], (double)a->d[1], (double)b->d[1]);
    case TC_FOP_BMM:
    case TC_FOP_BADDBMM: {
        int i = op == TC_FOP_BMM ? 0 : 1;
        a = input(s, i, 3); b = input(s, i + 1, 3);
        if (!a || !b || a->ndims != 3 || b->ndims != 3 || a->d[0] != b->d[0] || a->d[2] != b->d[1]) return -1;
        return gemm((double)a->d[0], (double)a->d[1], (double)a->d[2], (double)b->d[2]);
    }
    case TC_FOP_MATMUL:
        return matmul_flops(input(s, 0, 1), input(s, 1, 1));
    case TC_FOP_LINEAR:
        a = input(s, 0, 1); b = input(s, 1, 1);
        if (!a || !b || b->ndims > 2 || a->d[a->ndims - 1] != b->d[b->ndims - 1]) return -1;
        return gemm(prod(a, 0, a->ndims - 1), (double)a->d[a->ndims - 1], 1, b->ndims == 2 ? (double)b->d[0] : 1);
    case TC_FOP_CONV: return conv_forward(s, 4, 3, 5, 6);
    case TC_FOP_CUDNN_CONV: return conv_forward(s, 2, 3, 4, -1);
    case TC_FOP_MIOPEN_CONV: return conv_forward(s, 3, 4, 5, -1);
    case TC_FOP_CONV_TRANSPOSE:
        a = input(s, 0, 3); b = input(s, 1, 3);
        if (!a || !b || a->ndims != b->ndims) return -1;
        return conv_transposed(a, b);
    case TC_FOP_CONV_BWD: return conv_backward(s, 0, 1, 2, 7, 10);
    case TC_FOP_CUDNN_CONV_BWD: return conv_backward(s, 1, 0, 2, -1, 10);
    case TC_FOP_SDPA: return attention(s, 0, true, false);
    case TC_FOP_SDPA_BWD: return attention(s, 1, true, true);
    case TC_FOP_ATTN: return attention(s, 0, false, false);
    case TC_FOP_ATTN_BWD: return attention(s, 1, false, true);
    default: return -1;
    }
}

double tc_flops_of(tc_flop_op op, const tc_op_shapes *s, tc_dtype *dtype) {
    if (dtype) {
        *dtype = TC_DTYPE_UNKNOWN;
        /* the first input with a dtype the catalog knows (skips "", "Scalar", "GenericList") */
        for (int i = 0; i < s->n_types; i++) {
            tc_dtype d = tc_dtype_from_torch(s->types[i]);
            if (d != TC_DTYPE_UNKNOWN) { *dtype = d; break; }
        }
    }
    double f = flops_only(op, s);
    return f >= 0 ? f : -1;
}

/* ---- per-trace records ---------------------------------------------------------------------- */

int tc_trace_add_shaped_op(tc_trace *t, tc_flop_op op, const char *name, size_t name_len, int64_t ts_ns,
                           int64_t dur_ns, uint64_t tid_key, int64_t external_id, const tc_op_shapes *s) {
    tc_cpu_op o;
    memset(&o, 0, sizeof o);
    tc_dtype dt;
    o.ts_ns = ts_ns;
    o.dur_ns = dur_ns;
    o.tid = tid_key;
    o.flops = tc_flops_of(op, s, &dt);
    o.dtype = (int8_t)dt;
    o.op = (uint8_t)op;
    o.name = tc_strtab_intern(t->strings, name, name_len);
    o.external_id = (external_id >= 0 && external_id < (int64_t)TC_NONE) ? (uint32_t)external_id : TC_NONE;
    if (o.name == TC_NONE) return -1;
    return TC_PUSH(t->ops, t->n_ops, t->cap_ops, o);
}
