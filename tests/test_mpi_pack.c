/* test_mpi_pack.c: the encodings the MPI build ships between processes (cli/mpi/mpi_pack.h),
 * tested without MPI: a real trace survives pack/unpack unchanged (every array of
 * model/trace_arrays.def), a cut message is refused, a skeleton keeps the comm kernels and their
 * collective arguments with every string id naming the same text, the size-balanced file
 * assignment, a rank's results, and a field added to model/rank_result.def crossing without a
 * change to the encoding (the one walker of the field tables). */
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
    free(back.groups);
    tc_buf_free(&b);
    tc_rank_extra_free(&y);
    tc_trace_free(&t);
    tc_trace_free(&v);
}

/* A rank result grown by one string and one array, declared from the rows of model/rank_result.def
 * as tc_rank_result is, with its field table made by the same macros as mpi_pack.c's; and the
 * same struct's table without the two new fields (a walker that ignored them). */
#define TC_RR_GROWN(...) __VA_ARGS__ TC_RR_STRING(new_name) TC_RR_ARRAY(int64_t, new_values, n_new_values)
#define TC_RR_RANK(type, fields) typedef struct { TC_RR_GROWN(fields) } grown_rank_result;
#include "model/rank_result_decl.h"
#include "model/rank_result.def"
typedef grown_rank_result blind_rank_result;

#define TC_RR_PART TC_FIELDS_OF
#define TC_RR_RANK(type, fields) TC_FIELDS_OF(grown_rank_result, TC_RR_GROWN(fields)) TC_FIELDS_OF(blind_rank_result, fields)
#include "cli/mpi/rank_result_rows.h"
#include "model/rank_result.def"

static const int64_t new_values[3] = {7, -1, INT64_MAX};

/* The new fields arrived: the text, pointing into t's strings, and a copy of the array. */
static bool new_fields_crossed(const grown_rank_result *g, const tc_trace *t) {
    if (!g->new_name || strcmp(g->new_name, "a field added to the list") != 0) return false;
    uint32_t id = tc_strtab_find(t->strings, g->new_name, strlen(g->new_name));
    if (id == TC_NONE || tc_strtab_get(t->strings, id) != g->new_name) return false;
    return g->n_new_values == 3 && g->new_values != new_values &&
           memcmp(g->new_values, new_values, sizeof new_values) == 0;
}

Test(mpi_pack, a_field_added_to_rank_result_def_crosses) {
    const tc_fields *grown = tc_fields_of_grown_rank_result(), *blind = tc_fields_of_blind_rank_result();
    cr_assert_eq(grown->n, blind->n + 2);
    tc_trace t, u, v;
    cr_assert_eq(tc_trace_init(&t, "a"), 0);
    cr_assert_eq(tc_trace_init(&u, "b"), 0);
    cr_assert_eq(tc_trace_init(&v, "c"), 0);
    grown_rank_result g, back, lost;
    memset(&g, 0, sizeof g);
    g.rank = 3;
    g.input = 5;
    g.device = tc_trace_str(&t, tc_strtab_intern(t.strings, "NVIDIA H100", 11));
    g.gpu = tc_gpu_at(0);
    g.host_ops[1].name = tc_trace_str(&t, tc_strtab_intern(t.strings, "aten::item", 10));
    g.evidence.drain_op = g.host_ops[1].name;
    g.new_name = tc_trace_str(&t, tc_strtab_intern(t.strings, "a field added to the list", 25));
    g.new_values = (int64_t *)new_values;
    g.n_new_values = 3;
    tc_buf b;
    memset(&b, 0, sizeof b);
    tc_fields_pack(&b, grown, &g);
    memset(&back, 0, sizeof back);
    back.input = 9; /* KEPT: the receiver's own */
    tc_fields_unpack(&b, grown, &back, &u);
    cr_assert(!b.bad);
    cr_assert_eq(b.off, b.n);
    cr_assert(new_fields_crossed(&back, &u), "the new string and array cross pack -> unpack");
    cr_assert_eq(back.rank, 3);
    cr_assert_eq(back.input, 9);
    cr_assert_eq(back.gpu, tc_gpu_at(0));
    cr_assert_str_eq(back.device, "NVIDIA H100");
    cr_assert_str_eq(back.host_ops[1].name, "aten::item");
    cr_assert_str_eq(back.evidence.drain_op, "aten::item");
    cr_assert_null(back.host_ops[0].name);
    /* rehome: the names move to the trace that replaces u (u freed after) */
    cr_assert_eq(tc_fields_rehome(grown, &back, &v), 0);
    tc_trace_free(&u);
    cr_assert(new_fields_crossed(&back, &v), "the new string is rehomed");
    cr_assert_str_eq(back.device, "NVIDIA H100");
    /* the check sees a walker that ignores a field: the blind table leaves both behind */
    tc_buf c;
    memset(&c, 0, sizeof c);
    tc_fields_pack(&c, blind, &g);
    memset(&lost, 0, sizeof lost);
    cr_assert_eq(tc_trace_init(&u, "d"), 0);
    tc_fields_unpack(&c, blind, &lost, &u);
    cr_assert(!c.bad);
    cr_assert_not(new_fields_crossed(&lost, &u));
    cr_assert_str_eq(lost.device, "NVIDIA H100");
    free(back.new_values); free(back.steps); free(back.groups);
    free(lost.steps); free(lost.groups);
    tc_buf_free(&b);
    tc_buf_free(&c);
    tc_trace_free(&t);
    tc_trace_free(&u);
    tc_trace_free(&v);
}
