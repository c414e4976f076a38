/* test_mfu.c: MFU from the trace alone. FLOP formulas per operator (flops.c), each GEMM counted
 * once however ops nest, the parser's shape capture (TensorLists, key order, bounds), and end to
 * end on jobs written by bench/tracegen with planted GEMM shapes: MFU within 3% of the planted
 * value, each dtype picking its peak, user FLOPs, unknown GPUs, traces without shapes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>
#include "analyzer/flops.h"
#include "model/trace.h"
#include "parsers/chrome_trace.h"

/* ---- helpers -------------------------------------------------------------------------------- */

static tc_op_shapes shapes(const char *type, int n, ...) { /* n tensors: ndims, then sizes */
    tc_op_shapes s;
    memset(&s, 0, sizeof s);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        int nd = va_arg(ap, int);
        s.in[i].ndims = (int8_t)nd;
        for (int k = 0; k < nd; k++) s.in[i].d[k] = va_arg(ap, long long);
        if (nd > 0) snprintf(s.types[s.n_types++], TC_OP_TEXT, "%s", type);
        else snprintf(s.types[s.n_types++], TC_OP_TEXT, "Scalar");
    }
    va_end(ap);
    s.n_inputs = n;
    return s;
}

static void concrete(tc_op_shapes *s, int i, const char *v) {
    while (s->n_concrete <= i) s->concrete[s->n_concrete++][0] = 0;
    snprintf(s->concrete[i], TC_OP_TEXT, "%s", v);
}

static double fl(const char *name, const tc_op_shapes *s) {
    tc_flop_op op = tc_flop_op_from_name(name, strlen(name));
    cr_assert_neq(op, TC_FOP_NONE, "%s is not a FLOP op", name);
    return tc_flops_of(op, s, NULL);
}

/* ---- FLOP formulas -------------------------------------------------------------------------- */

Test(flops, gemm_family) {
    tc_op_shapes s = shapes("c10::BFloat16", 2, 2, 64LL, 128LL, 2, 128LL, 32LL);
    cr_expect_eq(fl("aten::mm", &s), 2.0 * 64 * 128 * 32);
    s = shapes("float", 5, 1, 32LL, 2, 64LL, 128LL, 2, 128LL, 32LL, 0, 0);
    cr_expect_eq(fl("aten::addmm", &s), 2.0 * 64 * 128 * 32);
    s = shapes("float", 2, 3, 4LL, 64LL, 128LL, 3, 4LL, 128LL, 32LL);
    cr_expect_eq(fl("aten::bmm", &s), 2.0 * 4 * 64 * 128 * 32);
    s = shapes("float", 3, 3, 4LL, 64LL, 32LL, 3, 4LL, 64LL, 128LL, 3, 4LL, 128LL, 32LL);
    cr_expect_eq(fl("aten::baddbmm", &s), 2.0 * 4 * 64 * 128 * 32);
    /* linear: x [B, S, K], w [N, K] */
    s = shapes("c10::BFloat16", 3, 3, 16LL, 559LL, 1024LL, 2, 4096LL, 1024LL, 1, 4096LL);
    cr_expect_eq(fl("aten::linear", &s), 2.0 * 16 * 559 * 1024 * 4096);
    /* matmul broadcasts batch dims and promotes 1-D operands */
    s = shapes("float", 2, 4, 2LL, 3LL, 64LL, 128LL, 2, 128LL, 32LL);
    cr_expect_eq(fl("aten::matmul", &s), 2.0 * 6 * 64 * 128 * 32);
    s = shapes("float", 2, 3, 1LL, 32LL, 1LL, 3, 5LL, 1LL, 559LL);
    cr_expect_eq(fl("aten::matmul", &s), 2.0 * 5 * 32 * 1 * 559);
    s = shapes("float", 2, 1, 128LL, 1, 128LL);
    cr_expect_eq(fl("aten::matmul", &s), 2.0 * 128);
    /* fp8 scaled GEMM */
    s = shapes("c10::Float8_e4m3fn", 4, 2, 256LL, 512LL, 2, 512LL, 1024LL, 0, 0);
    tc_dtype dt;
    cr_expect_eq(tc_flops_of(TC_FOP_SCALED_MM, &s, &dt), 2.0 * 256 * 512 * 1024);
    cr_expect_eq(dt, TC_DTYPE_FP8);
}

Test(flops, mismatched_or_missing_shapes_are_unknown) {
    tc_op_shapes s = shapes("float", 2, 2, 64LL, 100LL, 2, 128LL, 32LL); /* K differs */
    cr_expect_eq(fl("aten::mm", &s), -1);
    s = shapes("float", 1, 2, 64LL, 128LL);
    cr_expect_eq(fl("aten::mm", &s), -1);
    s = shapes("float", 2, 2, 64LL, 128LL, 2, 128LL, 32LL);
    s.in[1].ndims = -1; /* a TensorList or too many dims */
    cr_expect_eq(fl("aten::mm", &s), -1);
    cr_expect_eq(tc_flop_op_from_name("aten::mul", 9), TC_FOP_NONE);
    cr_expect_eq(tc_flop_op_from_name("aten::mmm", 9), TC_FOP_NONE);
}

Test(flops, convolution_forward_needs_stride_and_padding) {
    /* ResNet-50 conv1: [32,3,224,224] * [64,3,7,7], stride 2, padding 3 -> [32,64,112,112] */
    tc_op_shapes s = shapes("float", 9, 4, 32LL, 3LL, 224LL, 224LL, 4, 64LL, 3LL, 7LL, 7LL, 0, 0, 0, 0, 0, 0, 0);
    double expect = 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7;
    cr_expect_eq(fl("aten::convolution", &s), -1, "no Concrete Inputs: unknown");
    concrete(&s, 3, "[2, 2]");
    concrete(&s, 4, "[3, 3]");
    concrete(&s, 5, "[1, 1]");
    concrete(&s, 6, "False");
    concrete(&s, 8, "1");
    cr_expect_eq(fl("aten::convolution", &s), expect);
    /* cudnn_convolution: (input, weight, padding, stride, dilation, groups) */
    tc_op_shapes c = shapes("float", 6, 4, 32LL, 3LL, 224LL, 224LL, 4, 64LL, 3LL, 7LL, 7LL, 0, 0, 0, 0);
    concrete(&c, 2, "[3, 3]");
    concrete(&c, 3, "[2, 2]");
    concrete(&c, 4, "[1, 1]");
    cr_expect_eq(fl("aten::cudnn_convolution", &c), expect);
    /* transposed: every input pixel meets every tap, no stride needed */
    concrete(&s, 6, "True");
    tc_op_shapes t = s;
    t.in[1].d[0] = 3; t.in[1].d[1] = 64; /* weight [Cin, Cout/g, k, k] */
    cr_expect_eq(fl("aten::convolution", &t), 2.0 * 32 * 3 * 224 * 224 * 64 * 7 * 7);
}

Test(flops, convolution_backward_uses_grad_output_and_output_mask) {
    /* convolution_backward(grad_out [32,2048,7,7], input [32,512,7,7], weight [2048,512,1,1], ...) */
    tc_op_shapes s = shapes("float", 3, 4, 32LL, 2048LL, 7LL, 7LL, 4, 32LL, 512LL, 7LL, 7LL, 4, 2048LL, 512LL, 1LL, 1LL);
    double fwd = 2.0 * 32 * 2048 * 49 * 512;
    cr_expect_eq(fl("aten::convolution_backward", &s), 2 * fwd, "mask absent: grad input and grad weight");
    concrete(&s, 10, "[False, True, True]");
    cr_expect_eq(fl("aten::convolution_backward", &s), fwd, "first layer: no grad input");
    /* cudnn_convolution_backward(input, grad_out, weight, ...) */
    tc_op_shapes c = shapes("float", 3, 4, 32LL, 512LL, 7LL, 7LL, 4, 32LL, 2048LL, 7LL, 7LL, 4, 2048LL, 512LL, 1LL, 1LL);
    cr_expect_eq(fl("aten::cudnn_convolution_backward", &c), 2 * fwd);
}

Test(flops, attention_forward_and_backward) {
    /* sdpa / _scaled_dot_product_flash_attention: [B, H, L, E] */
    tc_op_shapes s = shapes("c10::BFloat16", 3, 4, 16LL, 16LL, 559LL, 64LL, 4, 16LL, 16LL, 559LL, 64LL, 4, 16LL, 16LL, 559LL, 64LL);
    double fwd = 4.0 * 16 * 16 * 559 * 559 * 64;
    cr_expect_eq(fl("aten::scaled_dot_product_attention", &s), fwd);
    cr_expect_eq(fl("aten::_scaled_dot_product_flash_attention", &s), fwd);
    cr_expect_eq(fl("aten::_scaled_dot_product_efficient_attention", &s), fwd);
    /* _flash_attention_forward: [B, L, H, E] */
    tc_op_shapes b = shapes("c10::BFloat16", 3, 4, 16LL, 559LL, 16LL, 64LL, 4, 16LL, 559LL, 16LL, 64LL, 4, 16LL, 559LL, 16LL, 64LL);
    cr_expect_eq(fl("aten::_flash_attention_forward", &b), fwd);
    /* backward: grad_out first; 2.5x the forward when E == Ev (scores recomputed) */
    tc_op_shapes g = shapes("c10::BFloat16", 4, 4, 2LL, 8LL, 1024LL, 128LL, 4, 2LL, 8LL, 1024LL, 128LL, 4, 2LL, 8LL,
                            1024LL, 128LL, 4, 2LL, 8LL, 1024LL, 128LL);
    cr_expect_eq(fl("aten::_scaled_dot_product_flash_attention_backward", &g), 2.5 * 4.0 * 2 * 8 * 1024 * 1024 * 128);
    /* grouped-query attention: k, v have fewer heads; q's heads count */
    tc_op_shapes q = shapes("c10::BFloat16", 3, 4, 1LL, 2048LL, 32LL, 128LL, 4, 1LL, 2048LL, 8LL, 128LL, 4, 1LL, 2048LL, 8LL, 128LL);
    cr_expect_eq(fl("aten::_flash_attention_forward", &q), 4.0 * 32 * 2048 * 2048 * 128);
    /* varlen (packed [T, H, E]): the sequence lengths are not in the shapes */
    tc_op_shapes v = shapes("c10::BFloat16", 3, 3, 4096LL, 16LL, 64LL, 3, 4096LL, 16LL, 64LL, 3, 4096LL, 16LL, 64LL);
    cr_expect_eq(fl("aten::_flash_attention_forward", &v), -1);
}

Test(flops, dtype_is_the_first_tensor_type) {
    tc_op_shapes s = shapes("c10::Half", 2, 2, 8LL, 8LL, 2, 8LL, 8LL);
    tc_dtype dt;
    tc_flops_of(TC_FOP_MM, &s, &dt);
    cr_expect_eq(dt, TC_DTYPE_FP16);
    s = shapes("double", 2, 2, 8LL, 8LL, 2, 8LL, 8LL);
    tc_flops_of(TC_FOP_MM, &s, &dt);
    cr_expect_eq(dt, TC_DTYPE_UNKNOWN);
    /* addmm of a scalar-first spelling: "Scalar" and "" are skipped */
    s = shapes("float", 5, 0, 2, 8LL, 8LL, 2, 8LL, 8LL, 0, 0);
    snprintf(s.types[0], TC_OP_TEXT, "%s", "");
    tc_flops_of(TC_FOP_ADDMM, &s, &dt);
    cr_expect_eq(dt, TC_DTYPE_FP32);
}

/* ---- nesting: each GEMM counted once -------------------------------------------------------- */

static void add(tc_trace *t, const char *name, int64_t ts, int64_t dur, uint64_t tid, const tc_op_shapes *s) {
    tc_flop_op op = tc_flop_op_from_name(name, strlen(name));
    cr_assert_eq(tc_trace_add_shaped_op(t, op, name, strlen(name), ts, dur, tid, -1, s), 0);
}

static double counted_flops(const tc_trace *t, size_t *n_counted) {
    double sum = 0;
    *n_counted = 0;
    for (size_t i = 0; i < t->n_ops; i++)
        if (t->ops[i].counted) { sum += t->ops[i].flops; (*n_counted)++; }
    return sum;
}

Test(flops, nested_ops_count_once) {
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, "nest"), 0);
    tc_op_shapes lin = shapes("c10::BFloat16", 3, 2, 64LL, 128LL, 2, 32LL, 128LL, 1, 32LL);
    tc_op_shapes addmm = shapes("c10::BFloat16", 5, 1, 32LL, 2, 64LL, 128LL, 2, 128LL, 32LL, 0, 0);
    tc_op_shapes mm = shapes("c10::BFloat16", 2, 2, 64LL, 128LL, 2, 128LL, 32LL);
    double g = 2.0 * 64 * 128 * 32;
    /* linear > addmm (added child first: order of events must not matter) */
    add(&t, "aten::addmm", 110, 80, 1, &addmm);
    add(&t, "aten::linear", 100, 100, 1, &lin);
    /* matmul > mm, the wrapper starting at the same time as its child */
    add(&t, "aten::matmul", 300, 50, 1, &mm);
    add(&t, "aten::mm", 300, 40, 1, &mm);
    /* sdpa > flash > _flash_attention_forward (three levels) */
    tc_op_shapes bhle = shapes("c10::BFloat16", 3, 4, 1LL, 2LL, 16LL, 8LL, 4, 1LL, 2LL, 16LL, 8LL, 4, 1LL, 2LL, 16LL, 8LL);
    tc_op_shapes blhe = shapes("c10::BFloat16", 3, 4, 1LL, 16LL, 2LL, 8LL, 4, 1LL, 16LL, 2LL, 8LL, 4, 1LL, 16LL, 2LL, 8LL);
    add(&t, "aten::scaled_dot_product_attention", 500, 100, 1, &bhle);
    add(&t, "aten::_scaled_dot_product_flash_attention", 510, 80, 1, &bhle);
    add(&t, "aten::_flash_attention_forward", 520, 60, 1, &blhe);
    /* an mm on another thread overlapping the linear in time: not nested, counts */
    add(&t, "aten::mm", 120, 10, 2, &mm);
    /* a wrapper whose inner op's FLOPs are unknown: the wrapper counts */
    tc_op_shapes varlen = shapes("c10::BFloat16", 3, 3, 32LL, 2LL, 8LL, 3, 32LL, 2LL, 8LL, 3, 32LL, 2LL, 8LL);
    add(&t, "aten::_scaled_dot_product_flash_attention", 700, 50, 1, &bhle);
    add(&t, "aten::_flash_attention_forward", 710, 30, 1, &varlen);
    cr_assert_eq(tc_flops_resolve_nesting(&t), 0);
    size_t n;
    double attn = 4.0 * 2 * 16 * 16 * 8;
    double sum = counted_flops(&t, &n);
    cr_expect_eq(n, 5, "linear/addmm, matmul/mm, sdpa chain, other thread, varlen wrapper: %zu counted", n);
    cr_expect_eq(sum, 3 * g + 2 * attn, "sum %g", sum);
    for (size_t i = 0; i < t.n_ops; i++) {
        const char *nm = tc_trace_str(&t, t.ops[i].name);
        if (!strcmp(nm, "aten::linear")) {
            cr_expect(!t.ops[i].counted);
            cr_expect_eq(t.ops[i].inner_flops, g, "a wrapper knows its children's FLOPs");
        }
        if (!strcmp(nm, "aten::scaled_dot_product_attention")) cr_expect_eq(t.ops[i].inner_flops, attn);
        if (!strcmp(nm, "aten::_flash_attention_forward") && t.ops[i].flops < 0) cr_expect(t.ops[i].covered);
    }
    tc_trace_free(&t);
}

/* ---- parser: shapes capture ------------------------------------------------------------------ */

static tc_trace parse_text(const char *json) {
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, "mem"), 0);
    tc_ct_parser *p = tc_ct_parser_new(&t);
    cr_assert_not_null(p);
    /* in small chunks: chunk boundaries must not matter */
    size_t len = strlen(json);
    for (size_t i = 0; i < len; i += 7) cr_assert_eq(tc_ct_parser_feed(p, json + i, len - i < 7 ? len - i : 7), 0);
    cr_assert_eq(tc_ct_parser_finish(p), 0, "%s", tc_ct_parser_error(p));
    tc_ct_parser_free(p);
    return t;
}

Test(flops, parser_keeps_only_flop_ops_with_their_shapes) {
    tc_trace t = parse_text(
        "{\"traceEvents\": ["
        /* args before name, a TensorList input, a 9-dim tensor, Concrete Inputs */
        "{\"args\": {\"Input Dims\": [[[1, 2], [3, 4]], [64, 128], [128, 32]], \"Input type\": [\"TensorList\", "
        "\"c10::BFloat16\", \"c10::BFloat16\"], \"External id\": 7}, \"ph\": \"X\", \"cat\": \"cpu_op\", "
        "\"name\": \"aten::addmm\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 5},"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 20, \"dur\": 5, "
        "\"args\": {\"Input Dims\": [[1,2,3,4,5,6,7,8,9], [9, 9]], \"Input type\": [\"float\", \"float\"]}},"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 1, \"ts\": 30, \"dur\": 5, "
        "\"args\": {\"Input Dims\": [[4, 4], [4, 4]], \"Input type\": [\"float\", \"float\"]}},"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 40, \"dur\": 5}"
        "]}");
    cr_expect_eq(t.n_ops, 2, "aten::mul is not kept, the mm without shapes is only counted");
    cr_expect_eq(t.ops_without_shapes, 1);
    cr_assert_geq(t.n_ops, 2);
    cr_expect_eq(t.ops[0].flops, 2.0 * 64 * 128 * 32, "addmm from inputs 1 and 2; got %g", t.ops[0].flops);
    cr_expect_eq(t.ops[0].dtype, TC_DTYPE_BF16);
    cr_expect_eq(t.ops[0].external_id, 7);
    cr_expect_eq(t.ops[0].ts_ns, 10000);
    cr_expect_eq(t.ops[1].flops, -1, "9 dimensions: unusable");
    tc_trace_free(&t);
}

/* ---- end to end on generated jobs ------------------------------------------------------------ */

static const char *bin(const char *env, const char *dflt) {
    const char *b = getenv(env);
    return b && *b ? b : dflt;
}

/* Runs tracegen into tests/out/mfu-<tag>/ with extra args; returns the folder (static buffer). */
static const char *gen(const char *tag, const char *args) {
    static char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/mfu-%s-%d", tag, (int)getpid());
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && %s -o '%s' %s >/dev/null", dir, bin("TRACEGEN_BIN", "build/tracegen"), dir, args);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return dir;
}

static char *slurp_cmd(const char *cmd, int *status) {
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f, "%s", cmd);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 4096) buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    int st = pclose(f);
    if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

/* `tracecost analyze --json - DIR/rank*.json[.gz] FLAGS` parsed. */
static yajl_val analyze(const char *dir, const char *flags, int *status) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s analyze -q --json - %s/rank*.pt.trace.json* %s 2>/dev/null",
             bin("TRACECOST_BIN", "build/tracecost"), dir, flags);
    char *text = slurp_cmd(cmd, status);
    char err[256];
    yajl_val v = yajl_tree_parse(text, err, sizeof err);
    free(text);
    cr_assert_not_null(v, "%s: %s", cmd, err);
    return v;
}

static yajl_val expected(const char *dir) {
    char path[300];
    snprintf(path, sizeof path, "%s/expected.json", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char err[256];
    yajl_val v = yajl_tree_parse(buf, err, sizeof err);
    cr_assert_not_null(v, "%s", err);
    return v;
}

static yajl_val get(yajl_val v, const char *a, const char *b) {
    const char *path[] = {a, b, NULL};
    return yajl_tree_get(v, path, yajl_t_any);
}
static double num(yajl_val v) {
    cr_assert(v && YAJL_IS_NUMBER(v), "not a number");
    return YAJL_GET_DOUBLE(v);
}
static yajl_val rank_obj(yajl_val root, size_t i, const char *key) {
    yajl_val arr = get(root, key, NULL);
    cr_assert(arr && YAJL_IS_ARRAY(arr) && arr->u.array.len > i);
    return arr->u.array.values[i];
}

static void expect_mfu_matches(const char *dtype, double peak_tflops) {
    char args[256];
    snprintf(args, sizeof args, "--ranks 2 --steps 3 --dtype %s --gemm 2048,4096,1024 --seed 5", dtype);
    const char *dir = gen(dtype, args);
    yajl_val exp = expected(dir), got = analyze(dir, "", NULL);
    for (size_t r = 0; r < 2; r++) {
        yajl_val er = rank_obj(exp, r, "per_rank"), gr = rank_obj(got, r, "ranks");
        double want = num(get(er, "mfu", NULL)), have = num(get(gr, "mfu", NULL));
        cr_expect(fabs(have - want) <= 0.03 * want, "%s rank %zu: mfu %g, planted %g", dtype, r, have, want);
        cr_expect(fabs(num(get(gr, "flops_per_step", NULL)) - num(get(er, "flops_per_step", NULL))) < 1e3);
        cr_expect(fabs(num(get(gr, "peak_tflops", NULL)) - peak_tflops) < 1e-6, "%s: peak %g, want %g", dtype,
                  num(get(gr, "peak_tflops", NULL)), peak_tflops);
        cr_expect_str_eq(YAJL_GET_STRING(get(gr, "flops_source", NULL)), "shapes");
    }
    yajl_val sm = get(got, "summary", NULL);
    double smfu = num(get(sm, "mfu", NULL)), e0 = num(get(rank_obj(exp, 0, "per_rank"), "mfu", NULL));
    cr_expect(fabs(smfu - e0) <= 0.03 * e0, "%s summary mfu %g vs %g", dtype, smfu, e0);
    cr_expect(YAJL_IS_NULL(get(sm, "mfu_note", NULL)), "no note when all is known");
    double hfu = num(get(sm, "hardware_flops_utilization", NULL));
    cr_expect(hfu > 0 && hfu < smfu * 1.2, "hfu %g", hfu);
    yajl_tree_free(exp);
    yajl_tree_free(got);
}

Test(mfu, planted_bf16_job_within_3_percent) { expect_mfu_matches("bf16", 989.4); }
Test(mfu, fp16_picks_the_fp16_peak) { expect_mfu_matches("fp16", 989.4); }
Test(mfu, fp32_picks_the_fp32_peak) { expect_mfu_matches("fp32", 66.9); }
Test(mfu, fp8_picks_the_fp8_peak) { expect_mfu_matches("fp8", 1978.9); }

Test(mfu, top_kernels_have_achieved_tflops) {
    const char *dir = gen("top", "--ranks 2 --steps 2 --gemm 4096,4096,4096 --layers 4");
    yajl_val got = analyze(dir, "", NULL);
    yajl_val top = get(got, "top_kernels", NULL);
    cr_assert(top && YAJL_IS_ARRAY(top) && top->u.array.len >= 3);
    double share = 0;
    size_t with_tflops = 0;
    for (size_t i = 0; i < top->u.array.len; i++) {
        yajl_val k = top->u.array.values[i];
        share += num(get(k, "share_of_compute", NULL));
        yajl_val tf = get(k, "achieved_tflops", NULL);
        const char *name = YAJL_GET_STRING(get(k, "name", NULL));
        if (strstr(name, "gemm") || strncmp(name, "nvjet", 5) == 0) { /* cuBLAS GEMM kernel names */
            cr_expect(tf && YAJL_IS_NUMBER(tf), "GEMM kernel %s without TFLOP/s", name);
            /* planted: every GEMM 2·4096³ FLOPs; its kernel time is known to tracegen, so the
             * rate must be between 0 and the peak */
            if (tf && YAJL_IS_NUMBER(tf)) { cr_expect(num(tf) > 0 && num(tf) <= 989.4); with_tflops++; }
        } else {
            cr_expect(YAJL_IS_NULL(tf), "%s has no FLOPs", name);
        }
    }
    cr_expect_eq(with_tflops, 3, "forward, grad-input and grad-weight GEMMs");
    cr_expect(fabs(share - 1) < 1e-6, "shares of all compute kernels sum to 1 (%g)", share);
    yajl_tree_free(got);
}

Test(mfu, no_shapes_gives_null_and_the_record_shapes_message) {
    const char *dir = gen("noshapes", "--ranks 2 --steps 2 --no-shapes");
    yajl_val got = analyze(dir, "", NULL);
    yajl_val sm = get(got, "summary", NULL);
    cr_expect(YAJL_IS_NULL(get(sm, "mfu", NULL)));
    cr_expect(YAJL_IS_NULL(get(sm, "flops_source", NULL)));
    cr_expect(YAJL_IS_NULL(get(rank_obj(got, 0, "ranks"), "mfu", NULL)));
    const char *note = YAJL_GET_STRING(get(sm, "mfu_note", NULL));
    cr_assert_not_null(note);
    cr_expect(strstr(note, "record_shapes=True") != NULL, "%s", note);
    cr_expect(strstr(note, "--model-flops-per-step") != NULL, "%s", note);
    yajl_tree_free(got);
}

Test(mfu, user_flops_replace_shapes) {
    const char *dir = gen("user", "--ranks 2 --steps 3 --no-shapes");
    yajl_val exp = expected(dir);
    double step_s = num(get(exp, "step_time_us", NULL)) * 1e-6, peak = 989.4e12;
    /* per GPU */
    yajl_val got = analyze(dir, "--model-flops-per-step 2e12", NULL);
    yajl_val sm = get(got, "summary", NULL);
    double want = 2e12 / peak / step_s;
    cr_expect(fabs(num(get(sm, "mfu", NULL)) - want) <= 0.03 * want, "mfu %g vs %g", num(get(sm, "mfu", NULL)), want);
    cr_expect_str_eq(YAJL_GET_STRING(get(sm, "flops_source", NULL)), "user");
    cr_expect_eq(num(get(sm, "flops_per_step", NULL)), 2e12);
    yajl_tree_free(got);
    /* 6·N·T over the world size (2 ranks) */
    got = analyze(dir, "--params 1e9 --tokens-per-step 1000", NULL);
    sm = get(got, "summary", NULL);
    cr_expect_eq(num(get(sm, "flops_per_step", NULL)), 6.0 * 1e9 * 1000 / 2);
    cr_expect_str_eq(YAJL_GET_STRING(get(sm, "flops_source", NULL)), "user");
    yajl_tree_free(got);
    yajl_tree_free(exp);
}

/* Issue 30: FLOPs per step past the GPU's peak over the step time give no MFU (never above 100%,
 * inf or 300 digits) and a note naming the flag; 6 N T past any double is refused at the flag. */
Test(mfu, flops_past_the_peak_give_null_and_a_note) {
    const char *dir = gen("overpeak", "--ranks 2 --steps 3 --no-shapes");
    static const char *const flags[] = {"--model-flops-per-step 1e308", "--params 999P --tokens-per-step 999P",
                                        "--model-flops-per-step 1e17"};
    static const char *const named[] = {"--model-flops-per-step", "--params with --tokens-per-step", "--model-flops-per-step"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        yajl_val got = analyze(dir, flags[i], NULL);
        yajl_val sm = get(got, "summary", NULL);
        cr_expect(YAJL_IS_NULL(get(sm, "mfu", NULL)), "%s: summary mfu not null", flags[i]);
        cr_expect(YAJL_IS_NULL(get(get(got, "ranks", NULL)->u.array.values[0], "mfu", NULL)), "%s: rank mfu", flags[i]);
        const char *note = YAJL_GET_STRING(get(sm, "mfu_note", NULL));
        cr_assert_not_null(note, "%s: no mfu_note", flags[i]);
        cr_expect(strstr(note, named[i]) && strstr(note, "exceed the GPU's peak"), "%s: %s", flags[i], note);
        yajl_tree_free(got);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s analyze --params 1e300 --tokens-per-step 1e300 %s >/dev/null 2>&1",
             bin("TRACECOST_BIN", "build/tracecost"), dir);
    int st = system(cmd);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "6 N T past any double: exit %d, want 1", WEXITSTATUS(st));
}

Test(mfu, unknown_gpu_says_how_to_pass_gpu) {
    const char *dir = gen("unknowngpu", "--ranks 2 --steps 2 --no-shapes --gpu 'Acme Tensor 9000'");
    yajl_val got = analyze(dir, "--model-flops-per-step 1e12", NULL);
    yajl_val sm = get(got, "summary", NULL);
    cr_expect(YAJL_IS_NULL(get(sm, "mfu", NULL)));
    const char *note = YAJL_GET_STRING(get(sm, "mfu_note", NULL));
    cr_assert_not_null(note);
    cr_expect(strstr(note, "Acme Tensor 9000") && strstr(note, "--gpu"), "%s", note);
    yajl_tree_free(got);
    got = analyze(dir, "--model-flops-per-step 1e12 --gpu h100-sxm", NULL);
    sm = get(got, "summary", NULL);
    cr_expect(YAJL_IS_NUMBER(get(sm, "mfu", NULL)), "--gpu overrides detection");
    cr_expect_eq(num(get(sm, "peak_tflops", NULL)), 989.4, "BF16 peak when no op says its dtype");
    yajl_tree_free(got);
}

Test(mfu, bad_flags_are_usage_errors) {
    static const char *const bad[] = {"--gpu nosuchgpu", "--model-flops-per-step -5", "--model-flops-per-step abc",
                                      "--params 1e9", "--tokens-per-step 0", "--params 1 --tokens-per-step 1 --model-flops-per-step 1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s analyze %s tests/nonexistent.json >/dev/null 2>&1", bin("TRACECOST_BIN", "build/tracecost"), bad[i]);
        int st = system(cmd);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "'%s' exit %d, want 1", bad[i], WEXITSTATUS(st));
    }
}

Test(mfu, gpus_command_lists_the_catalog) {
    char cmd[512];
    int status;
    snprintf(cmd, sizeof cmd, "%s gpus", bin("TRACECOST_BIN", "build/tracecost"));
    char *text = slurp_cmd(cmd, &status);
    cr_expect_eq(status, 0);
    cr_expect(strstr(text, "h100-sxm") && strstr(text, "989.4"), "table lists H100 SXM and its BF16 peak");
    free(text);
    snprintf(cmd, sizeof cmd, "%s gpus --json", bin("TRACECOST_BIN", "build/tracecost"));
    text = slurp_cmd(cmd, &status);
    cr_expect_eq(status, 0);
    char err[128];
    yajl_val v = yajl_tree_parse(text, err, sizeof err);
    cr_expect(v && YAJL_IS_ARRAY(v) && v->u.array.len == tc_gpu_count(), "%s", err);
    yajl_tree_free(v);
    free(text);
}
