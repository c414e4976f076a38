/* test_mpi_pack.c: the encodings the MPI build ships between processes (cli/mpi/mpi_pack.h),
 * tested without MPI: a real trace survives pack/unpack unchanged (every array of
 * model/trace_arrays.def), a cut message is refused, a skeleton keeps the comm kernels and their
 * collective arguments with every string id naming the same text, and the size-balanced file
 * assignment. */
#include <criterion/criterion.h>
#include <string.h>
#include "cli/mpi/mpi_pack.h"
#include "parsers/load.h"

#define SAMPLE "tests/data/ref/alexnet_cuda_sync.json.gz"

static void same_trace(const tc_trace *a, const tc_trace *b) {
    cr_assert_str_eq(a->path, b->path);
    cr_assert_eq(a->bytes, b->bytes);
    cr_assert_eq(a->base_ns, b->base_ns);
    cr_assert_eq(a->rank, b->rank);
    cr_assert_eq(a->world_size, b->world_size);
    cr_assert_eq(tc_strtab_count(a->strings), tc_strtab_count(b->strings));
    for (size_t i = 0; i < tc_strtab_count(a->strings); i++)
        cr_assert_str_eq(tc_trace_str(a, (uint32_t)i), tc_trace_str(b, (uint32_t)i));
#define TC_TRACE_ARRAY(field, count, cap, type, reserve)                                           \
    cr_assert_eq(a->count, b->count, #field);                                                      \
    cr_assert(a->count == 0 || memcmp(a->field, b->field, a->count * sizeof(type)) == 0, #field);
#include "model/trace_arrays.def"
    cr_assert_eq(a->events_total, b->events_total);
    cr_assert_eq(a->n_warnings, b->n_warnings);
    for (size_t i = 0; i < a->n_warnings; i++) cr_assert_str_eq(a->warnings[i], b->warnings[i]);
}

Test(mpi_pack, trace_round_trip) {
    tc_trace t, u;
    char msg[600];
    cr_assert_eq(tc_trace_init(&t, SAMPLE), 0);
    cr_assert_eq(tc_load_trace(&t, SAMPLE, NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s", msg);
    cr_assert_gt(t.n_gpu, 0);
    tc_trace_warn(&t, "a warning that must survive");
    tc_buf b;
    memset(&b, 0, sizeof b);
    tc_trace_pack(&b, &t);
    tc_buf_str(&b, NULL);
    tc_buf_f64(&b, 0.1);
    cr_assert(!b.bad);
    cr_assert_eq(tc_trace_unpack(&b, &u), 0);
    same_trace(&t, &u);
    cr_assert_null(tc_buf_get_str(&b));
    cr_assert_eq(tc_buf_get_f64(&b), 0.1);
    cr_assert(!b.bad);
    cr_assert_eq(b.off, b.n);
    /* a message cut short is refused, not read past its end */
    b.off = 0;
    tc_trace v;
    b.n = b.n / 2;
    cr_assert_eq(tc_trace_unpack(&b, &v), -1);
    cr_assert(b.bad);
    tc_trace_free(&t);
    tc_trace_free(&u);
    tc_buf_free(&b);
}

typedef enum {
#define TC_TRACE_RECORD(type, fields) KIND_##type,
#include "model/trace_arrays.def"
} record_kind;

/* Records x of a and y of b (both of type `kind`) are equal in every value field and their string
 * ids name the same texts (trace_arrays.def); indexes are not compared. */
static void same_record(record_kind kind, const tc_trace *a, const void *x, const tc_trace *b, const void *y) {
    switch (kind) {
#define TC_VALUE(f) cr_assert(memcmp(&p->f, &q->f, sizeof p->f) == 0, "%s", #f);
#define TC_STRING_ID(f) cr_assert_str_eq(tc_trace_str(a, p->f), tc_trace_str(b, q->f), "%s", #f);
#define TC_TRACE_RECORD(type, fields)                                                              \
    case KIND_##type: {                                                                            \
        const type *p = x, *q = y;                                                                 \
        fields                                                                                     \
        break;                                                                                     \
    }
#include "model/trace_arrays.def"
    }
}

Test(mpi_pack, skeleton_keeps_comm_kernels_and_their_strings) {
    tc_trace t, s;
    char msg[600];
    const char *path = "samples/rank0.pt.trace.json.gz";
    cr_assert_eq(tc_trace_init(&t, path), 0);
    cr_assert_eq(tc_load_trace(&t, path, NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s", msg);
    cr_assert_gt(t.n_colls, 0);
    tc_buf b;
    memset(&b, 0, sizeof b);
    tc_skeleton_pack(&b, &t);
    cr_assert(!b.bad);
    cr_assert_eq(tc_skeleton_unpack(&b, &s), 0);
    cr_assert_eq(b.off, b.n);
    cr_assert_eq(s.n_gpu_parsed, t.n_gpu);
    cr_assert_lt(tc_strtab_count(s.strings), tc_strtab_count(t.strings), "only the strings the skeleton uses");
    cr_assert_str_eq(tc_trace_str(&s, s.backend), tc_trace_str(&t, t.backend));
    size_t k = 0, with_args = 0;
    for (size_t e = 0; e < t.n_gpu; e++) {
        const tc_gpu_event *g = &t.gpu[e];
        if (!g->is_comm) continue;
        cr_assert_lt(k, s.n_gpu);
        const tc_gpu_event *h = &s.gpu[k++];
        same_record(KIND_tc_gpu_event, &t, g, &s, h);
        cr_assert_eq(h->coll == TC_NONE, g->coll == TC_NONE);
        if (g->coll == TC_NONE) continue;
        same_record(KIND_tc_coll_args, &t, &t.colls[g->coll], &s, &s.colls[h->coll]);
        with_args++;
    }
    cr_assert_eq(k, s.n_gpu);
    cr_assert_eq(with_args, s.n_colls);
    cr_assert_gt(with_args, 0);
    cr_assert_eq(s.n_pgs, t.n_pgs, "the pg_config entries travel (process groups, analyzer/groups.h)");
    cr_assert_gt(t.n_pgs, 0);
    for (size_t i = 0; i < t.n_pgs; i++) same_record(KIND_tc_pg_info, &t, &t.pgs[i], &s, &s.pgs[i]);
    tc_trace_free(&t);
    tc_trace_free(&s);
    tc_buf_free(&b);
}

Test(mpi_pack, assign_balances_by_size) {
    uint64_t sizes[] = {10, 100, 30, 60, 40, 0};
    bool is_stdin[] = {false, false, false, false, false, true};
    int owner[6];
    cr_assert_eq(tc_mpi_assign(sizes, is_stdin, 6, 2, owner), 0);
    /* largest first to the least loaded: 100 p0, 60 p1, 40 p1, 30 p0, 10 p1 -> 130 vs 110 */
    uint64_t load[2] = {0, 0};
    for (int i = 0; i < 6; i++) load[owner[i]] += sizes[i];
    cr_assert_eq(owner[5], 0, "stdin is always parsed by process 0");
    cr_assert_eq(load[0] + load[1], 240);
    cr_assert_eq(load[0], 130);
    cr_assert_eq(load[1], 110);
    /* more processes than files: each file on its own process, the rest idle */
    int own3[2];
    uint64_t two[] = {5, 7};
    cr_assert_eq(tc_mpi_assign(two, NULL, 2, 3, own3), 0);
    cr_assert_eq(own3[1], 0);
    cr_assert_eq(own3[0], 1);
}

Test(mpi_pack, rank_result_keeps_idle_causes_host_ops_and_evidence) {
    tc_trace t, u;
    cr_assert_eq(tc_trace_init(&t, "a"), 0);
    cr_assert_eq(tc_trace_init(&u, "b"), 0);
    uint32_t item = tc_strtab_intern(t.strings, "aten::item", 10), sync = tc_strtab_intern(t.strings, "cudaStreamSynchronize", 21);
    tc_rank_result rr, back;
    memset(&rr, 0, sizeof rr);
    memset(&back, 0, sizeof back);
    rr.idle.ns[TC_IDLE_SYNC] = 7;
    rr.idle.after_sync_ns = 9;
    rr.host_ops[0] = (tc_host_op){tc_trace_str(&t, item), TC_IDLE_CPU_OTHER, 11};
    rr.host_ops[1] = (tc_host_op){NULL, TC_IDLE_LAUNCH_OVERHEAD, 3};
    rr.n_host_ops = 2;
    rr.evidence.drain_call = tc_trace_str(&t, sync);
    rr.evidence.drain_op = tc_trace_str(&t, item);
    rr.evidence.drain_ns = 9;
    rr.launch.kernels = 5;
    tc_step_result st;
    memset(&st, 0, sizeof st);
    st.idle.ns[TC_IDLE_GPU_SIDE] = 4;
    rr.steps = &st;
    rr.n_steps = 1;
    tc_rank_extra x, y;
    memset(&x, 0, sizeof x);
    tc_buf b;
    memset(&b, 0, sizeof b);
    tc_rank_result_pack(&b, &rr, &x, &t);
    cr_assert(!b.bad);
    cr_assert_eq(tc_rank_result_unpack(&b, &back, &y, &u), 0);
    cr_assert_eq(back.idle.ns[TC_IDLE_SYNC], 7);
    cr_assert_eq(back.idle.after_sync_ns, 9);
    cr_assert_eq(back.n_host_ops, 2);
    cr_assert_str_eq(back.host_ops[0].name, "aten::item");
    cr_assert_null(back.host_ops[1].name);
    cr_assert_eq(back.host_ops[0].cause, TC_IDLE_CPU_OTHER);
    cr_assert_str_eq(back.evidence.drain_call, "cudaStreamSynchronize");
    cr_assert_str_eq(back.evidence.drain_op, "aten::item");
    cr_assert_null(back.evidence.sync_call);
    /* the names now live in the receiving trace's strings */
    cr_assert_neq(tc_strtab_find(u.strings, "aten::item", 10), TC_NONE);
    cr_assert_eq(back.launch.kernels, 5);
    cr_assert_eq(back.n_steps, 1);
    cr_assert_eq(back.steps[0].idle.ns[TC_IDLE_GPU_SIDE], 4);
    /* a full trace replacing the skeleton takes the names over (the skeleton is then freed) */
    tc_trace v;
    cr_assert_eq(tc_trace_init(&v, "c"), 0);
    cr_assert_eq(tc_rank_result_rehome(&back, &v), 0);
    tc_trace_free(&u);
    cr_assert_str_eq(back.host_ops[0].name, "aten::item");
    cr_assert_str_eq(back.evidence.drain_call, "cudaStreamSynchronize");
    cr_assert_null(back.host_ops[1].name);
    cr_assert_neq(tc_strtab_find(v.strings, "cudaStreamSynchronize", 21), TC_NONE);
    free(back.steps);
    tc_buf_free(&b);
    tc_rank_extra_free(&y);
    tc_trace_free(&t);
    tc_trace_free(&v);
}
