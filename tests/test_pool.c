/* test_pool.c: the worker pool (base/pool.h). Every run of a task happens exactly once and on a
 * valid thread number; results written by index come out in order with 0, 1, 3 and 16 threads,
 * with more threads than runs and with zero runs; single tasks are waited for one by one while the
 * owner helps; a spawned producer runs alongside the owner; the latch orders two threads; runs of
 * a nesting batch submit tasks and wait for them on any thread without deadlock, and no thread
 * waiting inside one takes another. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "base/pool.h"

typedef struct {
    atomic_int *runs;   /* per index: how many times it ran */
    size_t *out;        /* per index: a result written by index */
    int max_worker;     /* the pool's thread count: workers are 0..max_worker */
    atomic_int bad_worker;
} for_ctx;

static void square(void *arg, size_t i, int worker) {
    for_ctx *c = arg;
    atomic_fetch_add(&c->runs[i], 1);
    if (worker < 0 || worker > c->max_worker) atomic_fetch_add(&c->bad_worker, 1);
    c->out[i] = i * i;
}

/* tc_pool_for over n indexes on a pool of `threads`: each index once, results in order. */
static void check_for(int threads, size_t n) {
    tc_pool *p = tc_pool_new(threads);
    cr_assert_not_null(p);
    cr_assert_eq(tc_pool_threads(p), threads);
    for_ctx c = {calloc(n + 1, sizeof *c.runs), calloc(n + 1, sizeof *c.out), threads, 0};
    cr_assert(c.runs && c.out);
    for (int round = 0; round < 3; round++) { /* the same pool serves batch after batch */
        memset(c.out, 0, (n + 1) * sizeof *c.out);
        tc_pool_for(p, n, square, &c);
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(atomic_load(&c.runs[i]), round + 1, "threads %d n %zu: index %zu ran %d times", threads, n, i,
                         atomic_load(&c.runs[i]));
            cr_assert_eq(c.out[i], i * i);
        }
        cr_assert_eq(atomic_load(&c.runs[n]), 0, "an index past the end ran");
    }
    cr_assert_eq(atomic_load(&c.bad_worker), 0);
    tc_pool_free(p);
    free(c.runs);
    free(c.out);
}

Test(pool, every_index_runs_once_in_order) {
    check_for(3, 1000);
    check_for(16, 100);
}

Test(pool, no_threads_runs_everything_in_the_owner) { check_for(0, 50); }
Test(pool, one_thread) { check_for(1, 50); }
Test(pool, more_threads_than_runs) { check_for(8, 3); }
Test(pool, one_run) { check_for(4, 1); }
Test(pool, zero_runs) { check_for(0, 0); check_for(4, 0); }

/* ---- single tasks, waited for in order (the plain-file parse's pattern) ---- */

typedef struct {
    tc_pool_task task; /* first: the run gets it back */
    size_t value, result, index;
    atomic_int runs;
} job;

static void double_it(tc_pool_task *task, size_t i, int worker) {
    (void)worker;
    job *jb = (job *)task;
    jb->index = i; /* checked by the owner: Criterion asserts only in the test's own thread */
    atomic_fetch_add(&jb->runs, 1);
    jb->result = 2 * jb->value;
}

Test(pool, single_tasks_waited_for_in_order) {
    for (int threads = 0; threads <= 3; threads++) {
        tc_pool *p = tc_pool_new(threads);
        cr_assert_not_null(p);
        enum { N = 200, RING = 8 };
        job ring[RING];
        memset(ring, 0, sizeof ring);
        size_t queued = 0, sum = 0;
        for (size_t done = 0; done < N; done++) {
            while (queued < N && queued - done < RING) {
                job *jb = &ring[queued % RING];
                jb->value = queued++;
                atomic_store(&jb->runs, 0);
                tc_pool_submit(p, &jb->task, double_it, 1);
            }
            job *jb = &ring[done % RING];
            tc_pool_wait(p, &jb->task);
            cr_assert_eq(atomic_load(&jb->runs), 1);
            cr_assert_eq(jb->index, 0);
            cr_assert_eq(jb->result, 2 * done);
            sum += jb->result;
        }
        cr_assert_eq(sum, (size_t)N * (N - 1));
        tc_pool_free(p);
    }
}

/* ---- a spawned producer alongside the owner, and the latch ---- */

typedef struct {
    tc_pool_task task;
    tc_latch ready;
    int value;
    int worker;
} producer;

static void produce(tc_pool_task *task, size_t i, int worker) {
    (void)i;
    producer *pr = (producer *)task;
    pr->value = 42;
    pr->worker = worker;
    tc_latch_count_down(&pr->ready);
}

Test(pool, spawned_task_runs_on_a_pool_thread) {
    tc_pool *p = tc_pool_new(2);
    cr_assert_not_null(p);
    producer pr;
    memset(&pr, 0, sizeof pr);
    tc_latch_init(&pr.ready, 1);
    tc_pool_spawn(p, &pr.task, produce);
    tc_latch_wait(&pr.ready); /* the owner blocks: only a pool thread can release it */
    cr_assert_eq(pr.value, 42);
    tc_pool_wait(p, &pr.task);
    cr_assert(pr.worker >= 1 && pr.worker <= 2, "spawned task ran on worker %d", pr.worker);
    tc_latch_destroy(&pr.ready);
    tc_pool_free(p);
}

Test(pool, latch_counts_down_to_zero) {
    tc_latch l;
    tc_latch_init(&l, 2);
    tc_latch_count_down(&l);
    tc_latch_count_down(&l);
    tc_latch_wait(&l); /* returns at once */
    tc_latch_destroy(&l);
    tc_latch_init(&l, 0);
    tc_latch_wait(&l);
    tc_latch_destroy(&l);
}

Test(pool, free_null_is_a_no_op) { tc_pool_free(NULL); }

/* ---- nesting: runs that submit tasks and wait for them (a file's load and its pieces) ---------- */

#define NEST_RUNS 3
#define NEST_LEAVES 16

typedef struct {
    tc_pool_task task; /* first */
    size_t *out;
    atomic_int *ran_by; /* per worker: leaves it ran */
} leaf;

typedef struct {
    tc_pool *pool;
    size_t out[NEST_RUNS][NEST_LEAVES];
    atomic_int inside[17];  /* per worker: nesting runs it is inside now */
    atomic_int too_deep;    /* a nesting run taken by a thread already inside one */
    atomic_int ran_by[17];
    int max_worker;
    atomic_int bad_worker;
} nest_ctx;

static void leaf_run(tc_pool_task *task, size_t i, int worker) {
    leaf *l = (leaf *)task;
    (void)i;
    atomic_fetch_add(&l->ran_by[worker], 1);
    *l->out = 1; /* the run checks that every leaf wrote its slot */
}

static void nest_run(void *arg, size_t r, int worker) {
    nest_ctx *c = arg;
    if (worker < 0 || worker > c->max_worker) { atomic_fetch_add(&c->bad_worker, 1); return; }
    if (atomic_fetch_add(&c->inside[worker], 1) > 0) atomic_fetch_add(&c->too_deep, 1);
    leaf leaves[NEST_LEAVES];
    memset(leaves, 0, sizeof leaves);
    for (size_t i = 0; i < NEST_LEAVES; i++) {
        leaves[i].out = &c->out[r][i];
        leaves[i].ran_by = c->ran_by;
        tc_pool_submit(c->pool, &leaves[i].task, leaf_run, 1);
    }
    for (size_t i = 0; i < NEST_LEAVES; i++) tc_pool_wait(c->pool, &leaves[i].task);
    atomic_fetch_sub(&c->inside[worker], 1);
}

/* A nesting batch of NEST_RUNS runs, each waiting for its leaves, on `threads` threads: every leaf
 * runs once, no thread waiting inside a run takes another run, and nothing deadlocks. */
static void check_nesting(int threads) {
    nest_ctx *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    c->pool = tc_pool_new(threads);
    c->max_worker = threads;
    cr_assert_not_null(c->pool);
    for (int round = 0; round < 5; round++) {
        memset(c->out, 0, sizeof c->out);
        tc_pool_for_nesting(c->pool, NEST_RUNS, nest_run, c);
        for (size_t r = 0; r < NEST_RUNS; r++)
            for (size_t i = 0; i < NEST_LEAVES; i++)
                cr_assert_neq(c->out[r][i], 0, "threads %d: leaf %zu of run %zu", threads, i, r);
    }
    int leaves = 0;
    for (int w = 0; w <= threads; w++) leaves += atomic_load(&c->ran_by[w]);
    cr_assert_eq(leaves, 5 * NEST_RUNS * NEST_LEAVES);
    cr_assert_eq(atomic_load(&c->too_deep), 0, "threads %d: a waiting thread took another nesting run", threads);
    cr_assert_eq(atomic_load(&c->bad_worker), 0);
    tc_pool_free(c->pool);
    free(c);
}

Test(pool, nesting_runs_share_the_queue_with_their_tasks) {
    check_nesting(0);
    check_nesting(1); /* three runs on two threads */
    check_nesting(2);
    check_nesting(16);
}
