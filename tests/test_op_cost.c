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
    /* aten::copy_ [[1, 1, 559], [1, 1, 559], []] float <- long int: the source read, self written */
    s = in(3, F32, 3, 1LL, 1LL, 559LL, I64, 3, 1LL, 1LL, 559LL, "Scalar", 0);
    c = cost("aten::copy_", &s);
    expect(&c, TC_OPF_COPY, -1, 559.0 * 8 + 559.0 * 4);
    /* aten::clone [[16, 16, 559, 64], []] bf16 */
    s = in(2, BF, 4, 16LL, 16LL, 559LL, 64LL, "Scalar", 0);
    c = cost("aten::clone", &s);
    expect(&c, TC_OPF_COPY, -1, 2 * 16.0 * 16 * 559 * 64 * 2);
}
