/* test_mpi_pack.c: the encodings the MPI build ships between processes (analyzer/mpi_pack.h),
 * tested without MPI: a real trace survives pack/unpack unchanged, a cut message is refused, and
 * the size-balanced file assignment. */
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
    cr_assert_eq(a->n_gpu, b->n_gpu);
    cr_assert(a->n_gpu == 0 || memcmp(a->gpu, b->gpu, a->n_gpu * sizeof *a->gpu) == 0);
    cr_assert_eq(a->n_launches, b->n_launches);
    cr_assert_eq(a->n_ops, b->n_ops);
    cr_assert(a->n_ops == 0 || memcmp(a->ops, b->ops, a->n_ops * sizeof *a->ops) == 0);
    cr_assert_eq(a->n_cpu_steps, b->n_cpu_steps);
    cr_assert_eq(a->n_devices, b->n_devices);
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
