/* test_op_cost.c: the cost of one op call from its recorded shapes (model/op_cost.c,
 * tc_op_cost_of): each family's FLOPs and bytes held to values computed by hand from shapes taken
 * from the real traces in tests/data/ref (h100_qwen1.5_0.5b: Qwen1.5-0.5B inference, bf16;
 * mi250_minitoy_train; sampled_rank-0 / resnet50 shapes as recorded there), the unknowns; and the
 * roofline (model/roofline.h) on both sides of the ridge and at it. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "model/ops.h"
#include "model/roofline.h"

/* An op's inputs: for each, its type, then ndims and sizes (ndims -1: a TensorList). */
static tc_op_shapes in(int n, ...) {
    tc_op_shapes s;
    memset(&s, 0, sizeof s);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        snprintf(s.types[i], TC_OP_TEXT, "%s", va_arg(ap, const char *));
        int nd = va_arg(ap, int);
        s.in[i].ndims = (int8_t)nd;
        for (int k = 0; k < nd; k++) s.in[i].d[k] = va_arg(ap, long long);
    }
    va_end(ap);
    s.n_inputs = s.n_types = n;
    return s;
}

static void concrete(tc_op_shapes *s, int i, const char *v) {
    while (s->n_concrete <= i) s->concrete[s->n_concrete++][0] = 0;
    snprintf(s->concrete[i], TC_OP_TEXT, "%s", v);
}

static tc_op_cost cost(const char *name, const tc_op_shapes *s) {
    tc_op_cost c;
    tc_op_cost_of(name, strlen(name), s, &c);
    return c;
}

#define BF "c10::BFloat16"
#define F32 "float"
#define I64 "long int"

static void expect(const tc_op_cost *c, tc_op_family fam, double flops, double bytes) {
    cr_expect_eq(c->family, fam, "family %d, want %d", c->family, fam);
    if (flops >= 0) {
        cr_expect(c->has_flops);
        cr_expect_eq(c->flops, flops, "flops %.0f, want %.0f", c->flops, flops);
    } else {
        cr_expect(!c->has_flops);
    }
    if (bytes >= 0) {
        cr_expect(c->has_bytes);
        cr_expect_eq(c->bytes, bytes, "bytes %.0f, want %.0f", c->bytes, bytes);
    } else {
        cr_expect(!c->has_bytes);
    }
}

/* ---- GEMM ------------------------------------------------------------------------------------ */

Test(op_cost, gemm_from_the_qwen_trace) {
    /* aten::mm [[8944, 1024], [1024, 1024]] bf16: A and B read, C [8944, 1024] written */
    tc_op_shapes s = in(2, BF, 2, 8944LL, 1024LL, BF, 2, 1024LL, 1024LL);
    tc_op_cost c = cost("aten::mm", &s);
    expect(&c, TC_OPF_GEMM, 2.0 * 8944 * 1024 * 1024, (8944.0 * 1024 * 2 + 1024.0 * 1024) * 2);
    cr_expect_eq(c.dtype, TC_DTYPE_BF16);
    /* aten::addmm [[1024], [8944, 1024], [1024, 1024]]: the bias row read too */
    s = in(5, BF, 1, 1024LL, BF, 2, 8944LL, 1024LL, BF, 2, 1024LL, 1024LL, "Scalar", 0, "Scalar", 0);
    c = cost("aten::addmm", &s);
    expect(&c, TC_OPF_GEMM, 2.0 * 8944 * 1024 * 1024, (1024 + 8944.0 * 1024 * 2 + 1024.0 * 1024) * 2);
    /* aten::linear [[16, 559, 1024], [1024, 1024], [1024]]: the same GEMM as the addmm it runs */
    s = in(3, BF, 3, 16LL, 559LL, 1024LL, BF, 2, 1024LL, 1024LL, BF, 1, 1024LL);
    c = cost("aten::linear", &s);
    expect(&c, TC_OPF_GEMM, 2.0 * 8944 * 1024 * 1024, (1024 + 8944.0 * 1024 * 2 + 1024.0 * 1024) * 2);
    /* aten::matmul [[1, 32, 1], [1, 1, 559]] float (rotary frequencies): out [1, 32, 559] */
    s = in(2, F32, 3, 1LL, 32LL, 1LL, F32, 3, 1LL, 1LL, 559LL);
    c = cost("aten::matmul", &s);
    expect(&c, TC_OPF_GEMM, 2.0 * 32 * 559, (32 + 559 + 32.0 * 559) * 4);
    /* aten::bmm, the same shapes: batched GEMM */
    c = cost("aten::bmm", &s);
    expect(&c, TC_OPF_BMM, 2.0 * 32 * 559, (32 + 559 + 32.0 * 559) * 4);
}

Test(op_cost, gemm_with_unusable_shapes_is_unknown) {
    tc_op_shapes s = in(2, BF, 2, 64LL, 100LL, BF, 2, 128LL, 32LL); /* K differs */
    tc_op_cost c = cost("aten::mm", &s);
    expect(&c, TC_OPF_GEMM, -1, -1);
}

/* ---- elementwise ----------------------------------------------------------------------------- */

Test(op_cost, elementwise_broadcasts) {
    /* aten::mul [[16, 16, 559, 64], [1, 1, 559, 64]] bf16 (rotary embedding): out = the first */
    tc_op_shapes s = in(2, BF, 4, 16LL, 16LL, 559LL, 64LL, BF, 4, 1LL, 1LL, 559LL, 64LL);
    tc_op_cost c = cost("aten::mul", &s);
    double n = 16.0 * 16 * 559 * 64;
    expect(&c, TC_OPF_ELEMENTWISE, n, (n + 559 * 64) * 2 + n * 2);
    /* aten::mul [[1024], [16, 559, 1024]] bf16 (RMSNorm weight): the smaller is the first */
    s = in(2, BF, 1, 1024LL, BF, 3, 16LL, 559LL, 1024LL);
    c = cost("aten::mul", &s);
    n = 16.0 * 559 * 1024;
    expect(&c, TC_OPF_ELEMENTWISE, n, (1024 + n) * 2 + n * 2);
    /* aten::mul [[16, 559, 1024], [16, 559, 1]] float */
    s = in(2, F32, 3, 16LL, 559LL, 1024LL, F32, 3, 16LL, 559LL, 1LL);
    c = cost("aten::mul", &s);
    expect(&c, TC_OPF_ELEMENTWISE, n, (n + 8944) * 4 + n * 4);
    /* aten::add [[16, 559, 1], [], []] float, double, Scalar: eps as a wrapped 0-dim double,
     * which is read (8 bytes) but does not promote the output */
    s = in(3, F32, 3, 16LL, 559LL, 1LL, "double", 0, "Scalar", 0);
    c = cost("aten::add", &s);
    expect(&c, TC_OPF_ELEMENTWISE, 8944, 8944.0 * 4 + 8 + 8944.0 * 4);
    /* shapes that do not broadcast */
    s = in(2, F32, 2, 3LL, 4LL, F32, 2, 5LL, 4LL);
    c = cost("aten::add", &s);
    expect(&c, TC_OPF_ELEMENTWISE, -1, -1);
}

Test(op_cost, elementwise_unary_inplace_and_compare) {
    /* aten::silu [[16, 559, 2816]] bf16 */
    tc_op_shapes s = in(1, BF, 3, 16LL, 559LL, 2816LL);
    tc_op_cost c = cost("aten::silu", &s);
    double n = 16.0 * 559 * 2816;
    expect(&c, TC_OPF_ELEMENTWISE, n, 2 * n * 2);
    /* aten::add_ [[128, 128], [128, 128], []] float (mi250 optimizer step): self read and written */
    s = in(3, F32, 2, 128LL, 128LL, F32, 2, 128LL, 128LL, "Scalar", 0);
    c = cost("aten::add_", &s);
    expect(&c, TC_OPF_ELEMENTWISE, 16384, 3 * 16384.0 * 4);
    /* aten::eq [[16, 559], []] long int, Scalar: a bool output */
    s = in(2, I64, 2, 16LL, 559LL, "Scalar", 0);
    c = cost("aten::eq", &s);
    expect(&c, TC_OPF_ELEMENTWISE, 8944, 8944.0 * 8 + 8944);
    cr_expect_eq(c.dtype, TC_DTYPE_UNKNOWN);
    /* fill_ and zero_ write self and read nothing else */
    s = in(2, BF, 2, 8944LL, 1024LL, "Scalar", 0);
    c = cost("aten::fill_", &s);
    expect(&c, TC_OPF_ELEMENTWISE, -1, 8944.0 * 1024 * 2);
}

Test(op_cost, unknown_ops_and_lists) {
    tc_op_shapes s = in(1, BF, 2, 4LL, 4LL);
    tc_op_cost c = cost("aten::view", &s);
    expect(&c, TC_OPF_OTHER, -1, -1);
    c = cost("fb::rms_norm", &s);
    expect(&c, TC_OPF_OTHER, -1, -1);
    /* aten::cat [[[1, 559, 32], [1, 559, 32]], []]: a TensorList has no single shape */
    s = in(2, "TensorList", -1, "Scalar", 0);
    c = cost("aten::cat", &s);
    expect(&c, TC_OPF_COPY, -1, -1);
    /* a tensor of a type we cannot size */
    s = in(2, "c10::complex<c10::BFloat16>", 2, 4LL, 4LL, F32, 2, 4LL, 4LL);
    c = cost("aten::add", &s);
    expect(&c, TC_OPF_ELEMENTWISE, 16, -1);
}

/* ---- copies ---------------------------------------------------------------------------------- */

Test(op_cost, copies) {
    /* aten::_to_copy [[1, 1, 559], ...] long int -> dtype 6 (float): 8 bytes read, 4 written each */
    tc_op_shapes s = in(7, I64, 3, 1LL, 1LL, 559LL, "Scalar", 0, "", 0, "", 0, "", 0, "Scalar", 0, "", 0);
    concrete(&s, 1, "6");
    tc_op_cost c = cost("aten::_to_copy", &s);
    expect(&c, TC_OPF_COPY, -1, 559.0 * 8 + 559.0 * 4);
    /* _to_copy without a dtype (a device move): the input's dtype; [2] is the layout, not a dtype */
    concrete(&s, 1, "");
    concrete(&s, 2, "0");
    c = cost("aten::_to_copy", &s);
    expect(&c, TC_OPF_COPY, -1, 2 * 559.0 * 8);
    /* to(self, device, dtype 15): a bfloat16 output */
    concrete(&s, 1, "cuda:0");
    concrete(&s, 2, "15");
    c = cost("aten::to", &s);
    expect(&c, TC_OPF_COPY, -1, 559.0 * 8 + 559.0 * 2);
    /* gather(self [32, 1000], 1, index [32, 1]): the 32 gathered elements and the index */
    s = in(4, F32, 2, 32LL, 1000LL, "Scalar", 0, I64, 2, 32LL, 1LL, "Scalar", 0);
    c = cost("aten::gather", &s);
    expect(&c, TC_OPF_COPY, -1, 32.0 * 8 + 2 * 32.0 * 4);
    /* scatter_add_(self [1000], 0, index [32], src [32]): all read, self written */
    s = in(4, F32, 1, 1000LL, "Scalar", 0, I64, 1, 32LL, F32, 1, 32LL);
    c = cost("aten::scatter_add_", &s);
    expect(&c, TC_OPF_COPY, -1, 1000.0 * 4 + 32 * 8 + 32 * 4 + 1000.0 * 4);
    /* aten::copy_ [[1, 1, 559], [1, 1, 559], []] float <- long int: the source read, self written */
    s = in(3, F32, 3, 1LL, 1LL, 559LL, I64, 3, 1LL, 1LL, 559LL, "Scalar", 0);
    c = cost("aten::copy_", &s);
    expect(&c, TC_OPF_COPY, -1, 559.0 * 8 + 559.0 * 4);
    /* aten::clone [[16, 16, 559, 64], []] bf16 */
    s = in(2, BF, 4, 16LL, 16LL, 559LL, 64LL, "Scalar", 0);
    c = cost("aten::clone", &s);
    expect(&c, TC_OPF_COPY, -1, 2 * 16.0 * 16 * 559 * 64 * 2);
}

/* ---- norms, softmax, embedding, reductions ------------------------------------------------- */

Test(op_cost, layer_norm_from_the_sampled_trace) {
    /* aten::layer_norm [[2048, 125], [], [125], [125], [], []] float (no Concrete Inputs there):
     * n = 256000, C = 125 (the weight), rows = 2048; y written, mean and rstd as floats */
    tc_op_shapes s = in(6, F32, 2, 2048LL, 125LL, "", 0, F32, 1, 125LL, F32, 1, 125LL, "Scalar", 0, "Scalar", 0);
    tc_op_cost c = cost("aten::layer_norm", &s);
    double n = 256000;
    expect(&c, TC_OPF_NORM, 5 * n + 3 * 2048 + 2 * n, (n + 250) * 4 + n * 4 + 2 * 2048 * 4);
    c = cost("aten::native_layer_norm", &s);
    expect(&c, TC_OPF_NORM, 5 * n + 3 * 2048 + 2 * n, (n + 250) * 4 + n * 4 + 2 * 2048 * 4);
    /* aten::native_layer_norm_backward [[2048, 160], [2048, 160], [], [2048, 1], [2048, 1], [160],
     * [160], []]: grad, input, mean, rstd and weight read (the bias is not), the three grads written */
    s = in(8, F32, 2, 2048LL, 160LL, F32, 2, 2048LL, 160LL, "", 0, F32, 2, 2048LL, 1LL, F32, 2, 2048LL, 1LL,
           F32, 1, 160LL, F32, 1, 160LL, "", 0);
    c = cost("aten::native_layer_norm_backward", &s);
    n = 327680;
    expect(&c, TC_OPF_NORM, 2 * (7 * n + 3 * 2048), (2 * n + 2 * 2048 + 160) * 4 + (n + 2 * 160) * 4);
    /* output_mask [True, False, False]: only grad_input written */
    concrete(&s, 7, "[True, False, False]");
    c = cost("aten::native_layer_norm_backward", &s);
    expect(&c, TC_OPF_NORM, 2 * (7 * n + 3 * 2048), (2 * n + 2 * 2048 + 160) * 4 + n * 4);
    /* a normalized size that does not divide the input: not this layout, unknown */
    s = in(6, F32, 2, 2048LL, 125LL, "", 0, F32, 1, 124LL, F32, 1, 124LL, "Scalar", 0, "Scalar", 0);
    c = cost("aten::layer_norm", &s);
    expect(&c, TC_OPF_NORM, -1, -1);
}

Test(op_cost, rms_norm) {
    /* _fused_rms_norm(x [16, 559, 1024] bf16, [1024], weight [1024]): y and rstd (floats) */
    tc_op_shapes s = in(4, BF, 3, 16LL, 559LL, 1024LL, "", 0, BF, 1, 1024LL, "Scalar", 0);
    concrete(&s, 1, "[1024]");
    tc_op_cost c = cost("aten::_fused_rms_norm", &s);
    double n = 16.0 * 559 * 1024;
    expect(&c, TC_OPF_NORM, 4 * n + 2 * 8944, (n + 1024) * 2 + n * 2 + 8944 * 4);
    /* rms_norm without a weight: C from normalized_shape */
    s = in(4, BF, 3, 16LL, 559LL, 1024LL, "", 0, "", 0, "Scalar", 0);
    concrete(&s, 1, "[1024]");
    c = cost("aten::rms_norm", &s);
    expect(&c, TC_OPF_NORM, 3 * n + 2 * 8944, n * 2 * 2);
}

Test(op_cost, batch_norm_from_the_resnet_trace) {
    /* aten::cudnn_batch_norm [[32, 64, 112, 112], [64] x 4, [], [], []] float, Bool, Double, Double
     * (training not recorded: assumed): per-channel statistics, C = 64 rows of n / 64 */
    tc_op_shapes s = in(8, F32, 4, 32LL, 64LL, 112LL, 112LL, F32, 1, 64LL, F32, 1, 64LL, F32, 1, 64LL, F32, 1, 64LL,
                        "Bool", 0, "Double", 0, "Double", 0);
    tc_op_cost c = cost("aten::cudnn_batch_norm", &s);
    double n = 32.0 * 64 * 112 * 112;
    /* read x and the four vectors; write y, save_mean, save_invstd and the two running stats */
    expect(&c, TC_OPF_NORM, 7 * n + 3 * 64, (n + 4 * 64) * 4 + n * 4 + 4 * 64 * 4);
    /* in eval (training False): normalize with the running statistics, write y */
    concrete(&s, 5, "False");
    c = cost("aten::cudnn_batch_norm", &s);
    expect(&c, TC_OPF_NORM, 4 * n, (n + 4 * 64) * 4 + n * 4);
    /* aten::cudnn_batch_norm_backward [[32, 2048, 7, 7], [32, 2048, 7, 7], [2048] x 5, [], [0]]:
     * the running statistics (inputs 3, 4) are not read */
    s = in(9, F32, 4, 32LL, 2048LL, 7LL, 7LL, F32, 4, 32LL, 2048LL, 7LL, 7LL, F32, 1, 2048LL, F32, 1, 2048LL,
           F32, 1, 2048LL, F32, 1, 2048LL, F32, 1, 2048LL, "Double", 0, "unsigned char", 1, 0LL);
    c = cost("aten::cudnn_batch_norm_backward", &s);
    n = 32.0 * 2048 * 49;
    expect(&c, TC_OPF_NORM, 2 * (7 * n + 3 * 2048), (2 * n + 3 * 2048) * 4 + (n + 2 * 2048) * 4);
}

Test(op_cost, softmax_from_the_resnet_trace) {
    /* aten::_log_softmax [[32, 1000], [], []] float, Int, Bool */
    tc_op_shapes s = in(3, F32, 2, 32LL, 1000LL, "Int", 0, "Bool", 0);
    tc_op_cost c = cost("aten::_log_softmax", &s);
    expect(&c, TC_OPF_SOFTMAX, 3 * 32000.0, 2 * 32000.0 * 4);
    /* aten::_log_softmax_backward_data [[32, 1000], [32, 1000], [], [32, 1000]]: grad and output read */
    s = in(4, F32, 2, 32LL, 1000LL, F32, 2, 32LL, 1000LL, "Int", 0, F32, 2, 32LL, 1000LL);
    c = cost("aten::_log_softmax_backward_data", &s);
    expect(&c, TC_OPF_SOFTMAX, 6 * 32000.0, 3 * 32000.0 * 4);
    /* _softmax(half scores, -1, half_to_float=True): the output in floats */
    s = in(3, "c10::Half", 4, 16LL, 16LL, 559LL, 559LL, "Scalar", 0, "Scalar", 0);
    concrete(&s, 1, "-1");
    concrete(&s, 2, "True");
    c = cost("aten::_softmax", &s);
    double n = 16.0 * 16 * 559 * 559;
    expect(&c, TC_OPF_SOFTMAX, 3 * n, n * 2 + n * 4);
}

Test(op_cost, embedding_reads_only_its_rows) {
    /* aten::embedding [[151936, 1024], [16, 559], [], [], []] bf16, long int: 8944 rows of 1024 */
    tc_op_shapes s = in(5, BF, 2, 151936LL, 1024LL, I64, 2, 16LL, 559LL, "Scalar", 0, "Scalar", 0, "Scalar", 0);
    tc_op_cost c = cost("aten::embedding", &s);
    expect(&c, TC_OPF_EMBEDDING, -1, 8944.0 * 8 + 2 * 8944.0 * 1024 * 2);
    cr_expect_eq(c.dtype, TC_DTYPE_BF16);
    /* aten::index_select [[151936, 1024], [], [8944]] with dim 0: the same rows */
    s = in(3, BF, 2, 151936LL, 1024LL, "Scalar", 0, I64, 1, 8944LL);
    concrete(&s, 1, "0");
    c = cost("aten::index_select", &s);
    expect(&c, TC_OPF_COPY, -1, 8944.0 * 8 + 2 * 8944.0 * 1024 * 2);
    /* embedding_dense_backward(grad [16, 559, 1024], indices, 151936, -1, False): the whole table grad */
    s = in(5, BF, 3, 16LL, 559LL, 1024LL, I64, 2, 16LL, 559LL, "Scalar", 0, "Scalar", 0, "Scalar", 0);
    concrete(&s, 2, "151936");
    c = cost("aten::embedding_dense_backward", &s);
    expect(&c, TC_OPF_EMBEDDING, 8944.0 * 1024, 8944.0 * 1024 * 2 + 8944.0 * 8 + 151936.0 * 1024 * 2);
}

Test(op_cost, reductions) {
    /* aten::mean [[16, 559, 1024], [], [], []] float, dim [-1], keepdim True: out [16, 559, 1] */
    tc_op_shapes s = in(4, F32, 3, 16LL, 559LL, 1024LL, "ScalarList", 0, "Scalar", 0, "", 0);
    concrete(&s, 1, "[-1]");
    concrete(&s, 2, "True");
    tc_op_cost c = cost("aten::mean", &s);
    double n = 16.0 * 559 * 1024;
    expect(&c, TC_OPF_REDUCTION, n, n * 4 + 8944.0 * 4);
    /* aten::all [[16, 559]] bool: every dim, a bool */
    s = in(1, "bool", 2, 16LL, 559LL);
    concrete(&s, 0, "");
    c = cost("aten::all", &s);
    expect(&c, TC_OPF_REDUCTION, 8944, 8944 + 1);
    /* aten::linalg_vector_norm [[512, 8192], ...] without Concrete Inputs: dims unknown */
    s = in(5, F32, 2, 512LL, 8192LL, "Scalar", 0, "", 0, "Scalar", 0, "", 0);
    c = cost("aten::linalg_vector_norm", &s);
    expect(&c, TC_OPF_REDUCTION, 2 * 512.0 * 8192, -1);
    /* max.dim(self, 1, False): values and int64 indices */
    s = in(3, F32, 2, 32LL, 1000LL, "Scalar", 0, "Scalar", 0);
    concrete(&s, 1, "1");
    concrete(&s, 2, "False");
    c = cost("aten::max", &s);
    expect(&c, TC_OPF_REDUCTION, 32000, 32000.0 * 4 + 32 * 4 + 32 * 8);
}

/* ---- attention and convolution --------------------------------------------------------------- */

Test(op_cost, attention_from_the_qwen_trace) {
    /* aten::_flash_attention_forward [[16, 559, 16, 64]] x 3 bf16: out [16, 559, 16, 64] */
    tc_op_shapes s = in(3, BF, 4, 16LL, 559LL, 16LL, 64LL, BF, 4, 16LL, 559LL, 16LL, 64LL, BF, 4, 16LL, 559LL, 16LL, 64LL);
    tc_op_cost c = cost("aten::_flash_attention_forward", &s);
    double n = 16.0 * 559 * 16 * 64;
    expect(&c, TC_OPF_ATTENTION, 2.0 * 256 * 559 * 559 * 128, 4 * n * 2);
    /* aten::_scaled_dot_product_flash_attention [[16, 16, 559, 64]] x 3: the same */
    s = in(3, BF, 4, 16LL, 16LL, 559LL, 64LL, BF, 4, 16LL, 16LL, 559LL, 64LL, BF, 4, 16LL, 16LL, 559LL, 64LL);
    c = cost("aten::_scaled_dot_product_flash_attention", &s);
    expect(&c, TC_OPF_ATTENTION, 2.0 * 256 * 559 * 559 * 128, 4 * n * 2);
    /* its backward: grad_out, q, k, v, out, logsumexp [16, 16, 559] read; grad q, k, v written */
    s = in(6, BF, 4, 16LL, 16LL, 559LL, 64LL, BF, 4, 16LL, 16LL, 559LL, 64LL, BF, 4, 16LL, 16LL, 559LL, 64LL,
           BF, 4, 16LL, 16LL, 559LL, 64LL, BF, 4, 16LL, 16LL, 559LL, 64LL, F32, 3, 16LL, 16LL, 559LL);
    c = cost("aten::_scaled_dot_product_flash_attention_backward", &s);
    expect(&c, TC_OPF_ATTENTION, 2.0 * 256 * 559 * 559 * 320, 5 * n * 2 + 16.0 * 16 * 559 * 4 + 3 * n * 2);
}

Test(op_cost, convolution_from_the_resnet_shapes) {
    /* aten::cudnn_convolution [[32, 3, 224, 224], [64, 3, 7, 7]] float, padding 3, stride 2:
     * out [32, 64, 112, 112] (the resnet trace has the shapes; its old format lacks the Concrete
     * Inputs, which PyTorch 2 writes) */
    tc_op_shapes s = in(7, F32, 4, 32LL, 3LL, 224LL, 224LL, F32, 4, 64LL, 3LL, 7LL, 7LL, "GenericList", 0,
                        "GenericList", 0, "GenericList", 0, "Int", 0, "Bool", 0);
    concrete(&s, 2, "[3, 3]");
    concrete(&s, 3, "[2, 2]");
    concrete(&s, 4, "[1, 1]");
    tc_op_cost c = cost("aten::cudnn_convolution", &s);
    double out = 32.0 * 64 * 112 * 112;
    expect(&c, TC_OPF_CONV, 2 * out * 3 * 49, (32.0 * 3 * 224 * 224 + 64 * 3 * 49 + out) * 4);
    /* without the Concrete Inputs (as that trace): unknown */
    s.n_concrete = 0;
    c = cost("aten::cudnn_convolution", &s);
    expect(&c, TC_OPF_CONV, -1, -1);
    /* convolution_backward(grad [32, 64, 112, 112], input, weight, ...) with output_mask
     * [False, True, False] (the first layer needs no grad input): only grad_weight written */
    s = in(11, F32, 4, 32LL, 64LL, 112LL, 112LL, F32, 4, 32LL, 3LL, 224LL, 224LL, F32, 4, 64LL, 3LL, 7LL, 7LL,
           "", 0, "", 0, "", 0, "", 0, "Scalar", 0, "", 0, "Scalar", 0, "", 0);
    concrete(&s, 7, "False");
    concrete(&s, 10, "[False, True, False]");
    c = cost("aten::convolution_backward", &s);
    expect(&c, TC_OPF_CONV, 2 * out * 3 * 49, (out + 32.0 * 3 * 224 * 224 + 64 * 3 * 49) * 4 + 64 * 3 * 49 * 4);
}

Test(op_cost, transposed_convolution) {
    /* convolution(x [1, 16, 8, 8], w [16, 8, 4, 4], None, stride [2, 2], padding [1, 1], dilation
     * [1, 1], transposed True, output_padding [0, 0], groups 1): out [1, 8, 16, 16] */
    tc_op_shapes s = in(9, F32, 4, 1LL, 16LL, 8LL, 8LL, F32, 4, 16LL, 8LL, 4LL, 4LL, "", 0, "ScalarList", 0,
                        "ScalarList", 0, "ScalarList", 0, "Scalar", 0, "ScalarList", 0, "Scalar", 0);
    concrete(&s, 3, "[2, 2]");
    concrete(&s, 4, "[1, 1]");
    concrete(&s, 5, "[1, 1]");
    concrete(&s, 6, "True");
    concrete(&s, 7, "[0, 0]");
    concrete(&s, 8, "1");
    tc_op_cost c = cost("aten::convolution", &s);
    expect(&c, TC_OPF_CONV, 2.0 * 16 * 64 * 8 * 16, (1024 + 16 * 8 * 16 + 2048) * 4.0);
    /* cudnn_convolution_transpose(x, w, padding [1, 1], output_padding [1, 1], stride [2, 2], ...):
     * one more row and column */
    s = in(7, F32, 4, 1LL, 16LL, 8LL, 8LL, F32, 4, 16LL, 8LL, 4LL, 4LL, "ScalarList", 0, "ScalarList", 0,
           "ScalarList", 0, "ScalarList", 0, "Scalar", 0);
    concrete(&s, 2, "[1, 1]");
    concrete(&s, 3, "[1, 1]");
    concrete(&s, 4, "[2, 2]");
    concrete(&s, 5, "[1, 1]");
    concrete(&s, 6, "1");
    c = cost("aten::cudnn_convolution_transpose", &s);
    expect(&c, TC_OPF_CONV, 2.0 * 16 * 64 * 8 * 16, (1024 + 16 * 8 * 16 + 8 * 17 * 17) * 4.0);
    /* without its stride: unknown bytes */
    s.n_concrete = 2;
    c = cost("aten::cudnn_convolution_transpose", &s);
    expect(&c, TC_OPF_CONV, 2.0 * 16 * 64 * 8 * 16, -1);
}

/* ---- the roofline ---------------------------------------------------------------------------- */

/* A made-up GPU: 1000 TFLOP/s bf16, 100 fp32, no fp8 figure; 2000 GB/s: ridge 500 FLOP/byte. */
static tc_gpu_spec gpu(void) {
    tc_gpu_spec g;
    memset(&g, 0, sizeof g);
    g.id = "test";
    g.peak_tflops[TC_DTYPE_FP32] = 100;
    g.peak_tflops[TC_DTYPE_TF32] = 0; /* unsupported: falls back to fp32 */
    g.peak_tflops[TC_DTYPE_BF16] = 1000;
    g.peak_tflops[TC_DTYPE_FP16] = 1000;
    g.peak_tflops[TC_DTYPE_FP8] = TC_GPU_UNSOURCED;
    g.mem_bandwidth_GBps = 2000;
    return g;
}

Test(roofline, both_sides_of_the_ridge_and_at_it) {
    tc_gpu_spec g = gpu();
    tc_roofline r;
    /* at the ridge: 5e11 FLOP over 1e9 bytes in 1 ms -> compute-bound, 5e14 of 1e15 FLOP/s */
    tc_roofline_of(&g, TC_DTYPE_BF16, true, 5e11, true, 1e9, 1e-3, &r);
    cr_assert(r.has);
    cr_expect_eq(r.ridge, 500);
    cr_expect_eq(r.intensity, 500);
    cr_expect(r.compute_bound);
    cr_expect_eq(r.attainable, 1e15);
    cr_expect_eq(r.attainable_flops, 1e15);
    cr_expect_float_eq(r.share, 0.5, 1e-12);
    cr_expect_float_eq(r.lost_s, 0.5e-3, 1e-15);
    cr_expect_null(r.note);
    /* just under it: memory-bound, the roof is intensity x bandwidth */
    tc_roofline_of(&g, TC_DTYPE_BF16, true, 4.99e11, true, 1e9, 1e-3, &r);
    cr_expect(!r.compute_bound);
    cr_expect_float_eq(r.attainable_flops, 499 * 2e12, 1);
    cr_expect_eq(r.attainable, 2e12); /* byte/s */
    cr_expect_float_eq(r.share, 0.5, 1e-12); /* 1e12 of 2e12 byte/s */
    /* a layer norm: 5 FLOP per 8 bytes, far under: memory-bound at 1.6e12 of 2e12 byte/s */
    tc_roofline_of(&g, TC_DTYPE_BF16, true, 5e8, true, 8e8, 0.5e-3, &r);
    cr_expect(!r.compute_bound);
    cr_expect_float_eq(r.achieved_bytes, 1.6e12, 1);
    cr_expect_float_eq(r.share, 0.8, 1e-12);
    cr_expect_float_eq(r.lost_s, 0.1e-3, 1e-15);
    /* far above: a big GEMM, 1000 FLOP/byte, 8e14 FLOP/s of 1e15 */
    tc_roofline_of(&g, TC_DTYPE_BF16, true, 8e11, true, 8e8, 1e-3, &r);
    cr_expect(r.compute_bound);
    cr_expect_float_eq(r.share, 0.8, 1e-12);
    cr_expect_float_eq(r.achieved_flops, 8e14, 1);
}

Test(roofline, one_rate_and_the_fallbacks) {
    tc_gpu_spec g = gpu();
    tc_roofline r;
    /* a copy: bytes only, memory-bound against the bandwidth (FLOPs of 0 are no FLOPs) */
    tc_roofline_of(&g, TC_DTYPE_BF16, true, 0, true, 1e9, 1e-3, &r);
    cr_assert(r.has);
    cr_expect(!r.compute_bound && !r.has_intensity);
    cr_expect_float_eq(r.share, 0.5, 1e-12);
    /* FLOPs only: compute-bound against the peak */
    tc_roofline_of(&g, TC_DTYPE_BF16, true, 2.5e11, false, 0, 1e-3, &r);
    cr_expect(r.has && r.compute_bound);
    cr_expect_float_eq(r.share, 0.25, 1e-12);
    /* tf32 has no figure of its own: the fp32 peak, with the catalog's note */
    tc_roofline_of(&g, TC_DTYPE_TF32, true, 1e11, true, 1e8, 1e-3, &r);
    cr_expect(r.has);
    cr_expect_eq(r.peak_flops, 100e12);
    cr_expect_not_null(r.note);
    /* an unsourced fp8 peak, or an integer op: the memory roof alone */
    tc_roofline_of(&g, TC_DTYPE_FP8, true, 1e11, true, 1e9, 1e-3, &r);
    cr_expect(r.has && !r.compute_bound);
    cr_expect_float_eq(r.share, 0.5, 1e-12);
    cr_expect_not_null(r.note);
    tc_roofline_of(&g, TC_DTYPE_UNKNOWN, true, 1e6, false, 0, 1e-3, &r);
    cr_expect(!r.has);
    /* faster than the roof (the formulas undercount what caches serve): share above 1, no loss */
    tc_roofline_of(&g, TC_DTYPE_BF16, false, 0, true, 4e9, 1e-3, &r);
    cr_expect_float_eq(r.share, 2, 1e-12);
    cr_expect_eq(r.lost_s, 0);
    /* no roofline: unknown GPU, no time, nothing known */
    tc_roofline_of(NULL, TC_DTYPE_BF16, true, 1e9, true, 1e9, 1e-3, &r);
    cr_expect(!r.has);
    cr_expect_not_null(r.note);
    tc_roofline_of(&g, TC_DTYPE_BF16, true, 1e9, true, 1e9, 0, &r);
    cr_expect(!r.has);
    tc_roofline_of(&g, TC_DTYPE_BF16, false, 0, false, 0, 1e-3, &r);
    cr_expect(!r.has);
}

Test(roofline, a_catalog_gpu) {
    const tc_gpu_spec *h = tc_gpu_find_by_id("h100-sxm");
    cr_assert_not_null(h);
    tc_roofline r;
    tc_roofline_of(h, TC_DTYPE_BF16, true, 1e9, true, 1e9, 1e-3, &r);
    cr_expect(r.has && !r.compute_bound);
    cr_expect_float_eq(r.ridge, h->peak_tflops[TC_DTYPE_BF16] * 1e12 / (h->mem_bandwidth_GBps * 1e9), 1e-9);
    cr_expect_float_eq(r.share, 1e12 / (h->mem_bandwidth_GBps * 1e9), 1e-12);
}
