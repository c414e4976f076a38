/* test_kernel_aggs.c: GPU kernel aggregates (analyzer/kernel_aggs.h) that the HTML kernels table
 * reads: per-trace sums by (name, kind), merging (any order gives the same rows), report order, and
 * that they survive the MPI rank-result encoding (mpi_pack.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "analyzer/kernel_aggs.h"
#include "cli/mpi/mpi_pack.h"

static void add_ev(tc_trace *t, const char *name, int64_t dur, uint8_t kind, uint8_t comm) {
    tc_gpu_event g;
    memset(&g, 0, sizeof g);
    g.start_ns = (int64_t)t->n_gpu * 1000;
    g.dur_ns = dur;
    g.name = tc_strtab_intern(t->strings, name, strlen(name));
    g.stream = g.name;
    g.correlation = TC_NONE;
    g.coll = TC_NONE;
    g.kind = kind;
    g.is_comm = comm;
    cr_assert_eq(TC_PUSH(t->gpu, t->n_gpu, t->cap_gpu, g), 0);
}

static const tc_kernel_agg *find(const tc_kernel_aggs *a, const char *name, uint8_t kind) {
    for (size_t i = 0; i < a->n; i++)
        if (a->rows[i].kind == kind && a->rows[i].len == strlen(name) && !memcmp(a->rows[i].name, name, a->rows[i].len))
            return &a->rows[i];
    return NULL;
}

static void two_traces(tc_trace *t) {
    cr_assert_eq(tc_trace_init(&t[0], "a"), 0);
    cr_assert_eq(tc_trace_init(&t[1], "b"), 0);
    add_ev(&t[0], "gemm", 10, TC_GPU_KERNEL, 0);
    add_ev(&t[0], "nccl", 7, TC_GPU_KERNEL, 1);
    add_ev(&t[0], "gemm", 30, TC_GPU_KERNEL, 0);
    add_ev(&t[0], "gemm", 5, TC_GPU_MEMCPY, 0); /* same name, other kind: its own row */
    add_ev(&t[1], "nccl", 9, TC_GPU_KERNEL, 1);
    add_ev(&t[1], "gemm", 25, TC_GPU_KERNEL, 0);
    for (int i = 0; i < 200; i++) { /* grows both indexes */
        char nm[32];
        snprintf(nm, sizeof nm, "k%d", i);
        add_ev(&t[i & 1], nm, i, TC_GPU_MEMSET, 0);
    }
}

Test(kernel_aggs, per_trace_and_merged) {
    tc_trace t[2];
    two_traces(t);
    tc_kernel_aggs p0, p1, all, rev;
    cr_assert_eq(tc_kernel_aggs_trace(&t[0], &p0), 0);
    cr_assert_eq(tc_kernel_aggs_trace(&t[1], &p1), 0);
    cr_assert_eq(p0.n, 3 + 100);
    cr_assert_str_eq(p0.rows[0].name, "gemm"); /* first appearance order */
    const tc_kernel_agg *g = find(&p0, "gemm", 0);
    cr_assert(g && g->count == 2 && g->total_ns == 40 && g->max_ns == 30 && g->ranks == 1);
    memset(&all, 0, sizeof all);
    memset(&rev, 0, sizeof rev);
    for (size_t i = 0; i < p0.n; i++) cr_assert_eq(tc_kernel_aggs_add(&all, &p0.rows[i]), 0);
    for (size_t i = 0; i < p1.n; i++) cr_assert_eq(tc_kernel_aggs_add(&all, &p1.rows[i]), 0);
    for (size_t i = p1.n; i-- > 0;) cr_assert_eq(tc_kernel_aggs_add(&rev, &p1.rows[i]), 0);
    for (size_t i = p0.n; i-- > 0;) cr_assert_eq(tc_kernel_aggs_add(&rev, &p0.rows[i]), 0);
    g = find(&all, "gemm", 0);
    cr_assert(g && g->count == 3 && g->total_ns == 65 && g->max_ns == 30 && g->ranks == 2);
    g = find(&all, "gemm", 2);
    cr_assert(g && g->count == 1 && g->total_ns == 5 && g->ranks == 1);
    g = find(&all, "nccl", 1);
    cr_assert(g && g->count == 2 && g->total_ns == 16 && g->max_ns == 9 && g->ranks == 2);
    tc_kernel_aggs_sort(&all);
    tc_kernel_aggs_sort(&rev);
    cr_assert_eq(all.n, 203);
    cr_assert_eq(rev.n, all.n);
    for (size_t i = 0; i < all.n; i++) {
        cr_assert_str_eq(all.rows[i].name, rev.rows[i].name);
        cr_assert_eq(all.rows[i].kind, rev.rows[i].kind);
        cr_assert_eq(all.rows[i].count, rev.rows[i].count);
        if (i) cr_assert(all.rows[i - 1].total_ns >= all.rows[i].total_ns);
    }
    cr_assert_str_eq(all.rows[0].name, "k199"); /* 199 ns > gemm's 65 */
    tc_kernel_aggs_free(&p0); tc_kernel_aggs_free(&p1); tc_kernel_aggs_free(&all); tc_kernel_aggs_free(&rev);
    tc_trace_free(&t[0]); tc_trace_free(&t[1]);
}

Test(kernel_aggs, survive_rank_result_encoding) {
    tc_trace t[2];
    two_traces(t);
    tc_rank_extra x, y;
    memset(&x, 0, sizeof x);
    cr_assert_eq(tc_kernel_aggs_trace(&t[0], &x.gpu_kernels), 0);
    tc_rank_result rr, back;
    memset(&rr, 0, sizeof rr);
    memset(&back, 0, sizeof back);
    tc_buf b;
    memset(&b, 0, sizeof b);
    tc_rank_result_pack(&b, &rr, &x, &t[0]);
    cr_assert(!b.bad);
    cr_assert_eq(tc_rank_result_unpack(&b, &back, &y, &t[1]), 0);
    cr_assert_eq(y.gpu_kernels.n, x.gpu_kernels.n);
    for (size_t i = 0; i < x.gpu_kernels.n; i++) {
        const tc_kernel_agg *p = &x.gpu_kernels.rows[i], *q = &y.gpu_kernels.rows[i];
        cr_assert(p->len == q->len && !memcmp(p->name, q->name, p->len) && p->kind == q->kind && p->count == q->count &&
                  p->total_ns == q->total_ns && p->max_ns == q->max_ns && p->ranks == q->ranks);
    }
    b.n -= 9; /* a cut message is refused */
    b.off = 0;
    tc_rank_extra z;
    cr_assert_neq(tc_rank_result_unpack(&b, &back, &z, &t[1]), 0);
    tc_rank_extra_free(&z);
    free(back.steps);
    tc_buf_free(&b);
    tc_rank_extra_free(&x); tc_rank_extra_free(&y);
    tc_trace_free(&t[0]); tc_trace_free(&t[1]);
}
