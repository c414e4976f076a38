/* test_parallel_direct.c: plain-file pieces that the file's own thread parses straight into the
 * file's trace (tc_pool_take_back: no other thread had begun them) give the sequential trace,
 * record for record: every piece so (a pool without threads), the first pieces so and the rest
 * taken by another thread (a pool thread held until a few pieces are merged), with many small
 * pieces and odd piece sizes, in all four layouts; the pool's take-back itself; three files of
 * unequal sizes and layouts give the same JSON with -j 1, 2 and 3. Scratch files go to
 * build/test-direct/. */
#include <criterion/criterion.h>
#include "testutil.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/pool.h"
#include "parsers/load.h"
#include "parsers/parallel.h"
#include "parsers/source.h"

#define TMP "build/test-direct"

static void setup(void) { mkdir("build", 0777); mkdir(TMP, 0777); }

/* ---- the pool's take-back ---------------------------------------------------------------------- */

typedef struct {
    tc_pool_task task; /* first */
    atomic_int ran;
    tc_latch *hold;    /* NULL: returns at once */
    tc_latch *started; /* counted down when the run begins; NULL none */
} held_task;

static void held_run(tc_pool_task *task, size_t i, int worker) {
    held_task *h = (held_task *)task;
    (void)i;
    (void)worker;
    atomic_fetch_add(&h->ran, 1);
    if (h->started) tc_latch_count_down(h->started);
    if (h->hold) tc_latch_wait(h->hold);
}

Test(direct, take_back_only_what_no_thread_began) {
    /* no threads: nothing is ever claimed before the owner waits */
    tc_pool *p = tc_pool_new(0);
    cr_assert_not_null(p);
    held_task a = {0}, b = {0};
    tc_pool_submit(p, &a.task, held_run, 1);
    tc_pool_submit(p, &b.task, held_run, 1);
    cr_assert(tc_pool_take_back(p, &b.task), "the newest task");
    cr_assert(tc_pool_take_back(p, &a.task), "the oldest task");
    cr_assert_not(tc_pool_take_back(p, &a.task), "taken back twice");
    held_task c = {0};
    tc_pool_submit(p, &c.task, held_run, 1);
    tc_pool_wait(p, &c.task);
    cr_assert_not(tc_pool_take_back(p, &c.task), "a task that ran");
    cr_assert_eq(atomic_load(&a.ran) + atomic_load(&b.ran), 0, "a task taken back ran");
    cr_assert_eq(atomic_load(&c.ran), 1);
    tc_pool_free(p); /* nothing pending: the taken-back tasks do not count */
    /* one thread, busy with a held task: the task behind it is taken back, the held one is not */
    p = tc_pool_new(1);
    cr_assert_not_null(p);
    tc_latch hold, started;
    tc_latch_init(&hold, 1);
    tc_latch_init(&started, 1);
    held_task busy = {.hold = &hold, .started = &started}, next = {0};
    tc_pool_submit(p, &busy.task, held_run, 1);
    tc_latch_wait(&started); /* the thread runs it */
    tc_pool_submit(p, &next.task, held_run, 1);
    cr_assert_not(tc_pool_take_back(p, &busy.task), "a task a thread runs");
    cr_assert(tc_pool_take_back(p, &next.task));
    tc_latch_count_down(&hold);
    tc_pool_wait(p, &busy.task);
    cr_assert_eq(atomic_load(&next.ran), 0);
    tc_pool_free(p);
    tc_latch_destroy(&hold);
    tc_latch_destroy(&started);
}

/* ---- pieces parsed into the file's trace -------------------------------------------------------- */

/* Holds the shared pool's one thread until `after` progress calls (pieces merged) have come. */
typedef struct {
    tc_latch *release;
    int calls, after;
} gate;

static void on_progress(void *ctx, uint64_t raw, uint64_t size) {
    gate *g = ctx;
    (void)raw;
    (void)size;
    if (++g->calls == g->after) tc_latch_count_down(g->release);
}

/* Loads path sequentially and with tc_parallel_load on a shared pool of `threads` threads (the
 * test thread its owner), the pool's threads held until `release_after` pieces are merged (0: not
 * held); asserts the same trace, and returns the parse's info. */
static tc_par_info load_both(const char *path, uint64_t hint, int threads, int release_after) {
    tc_trace seq, par;
    char msg[600], err[512];
    cr_assert_eq(tc_trace_init(&seq, path), 0);
    cr_assert_eq(tc_load_trace(&seq, path, NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s: %s", path, msg);
    cr_assert_eq(tc_trace_init(&par, path), 0);
    tc_pool *pool = tc_pool_new(threads);
    cr_assert_not_null(pool);
    tc_latch release;
    tc_latch_init(&release, 1);
    held_task holds[4] = {0};
    cr_assert_leq(threads, 4);
    for (int i = 0; release_after > 0 && i < threads; i++) {
        holds[i].hold = &release;
        tc_pool_submit(pool, &holds[i].task, held_run, 1);
    }
    gate g = {&release, 0, release_after};
    tc_source *src = tc_source_open(path, err, sizeof err);
    cr_assert_not_null(src, "%s", err);
    tc_read_options opt = {.pool = pool};
    tc_par_info info;
    tc_par_status st = tc_parallel_load(&par, src, threads + 1, hint, &opt, on_progress, &g, &info);
    cr_assert_eq(st, TC_PAR_OK, "%s: fell back (%s)", path, info.why ? info.why : "?");
    cr_assert_gt(info.pieces, 1, "%s", path);
    if (release_after > 0 && g.calls < release_after) tc_latch_count_down(&release); /* fewer pieces */
    for (int i = 0; release_after > 0 && i < threads; i++) tc_pool_wait(pool, &holds[i].task);
    tc_source_close(src);
    par.bytes = info.raw_bytes;
    par.bytes_decoded = info.decoded_bytes;
    tu_assert_same_trace(&seq, &par, path);
    tc_pool_free(pool);
    tc_latch_destroy(&release);
    tc_trace_free(&seq);
    tc_trace_free(&par);
    return info;
}

Test(direct, every_piece_into_the_trace_in_every_layout, .init = setup) {
    static const char *layouts[] = {"kineto", "oneline", "indent4", "indent2sorted"};
    /* size hints: 4 KiB pieces (many small ones), and odd sizes that put boundaries anywhere */
    static const uint64_t hints[] = {1, 64 * 1024 + 4093, 3 * 1000 * 1000 + 7};
    for (int l = 0; l < 4; l++) {
        char path[256];
        cr_assert_eq(tu_sh(NULL, "rm -rf %s/%s && %s -o %s/%s --ranks 2 --steps 12 --op-mix --layout %s >/dev/null",
                           TMP, layouts[l], tu_gen(), TMP, layouts[l], layouts[l]), 0);
        snprintf(path, sizeof path, "%s/%s/rank1.pt.trace.json", TMP, layouts[l]);
        for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
            tc_par_info info = load_both(path, hints[h], 0, 0);
            cr_assert_eq(info.pieces_direct, info.pieces, "%s: %llu of %llu pieces direct", path,
                         (unsigned long long)info.pieces_direct, (unsigned long long)info.pieces);
        }
    }
}

Test(direct, first_pieces_into_the_trace_then_shared, .init = setup) {
    cr_assert_eq(tu_sh(NULL, "rm -rf %s/mixed && %s -o %s/mixed --ranks 1 --steps 30 >/dev/null", TMP, tu_gen(), TMP), 0);
    const char *path = TMP "/mixed/rank0.pt.trace.json";
    for (int threads = 1; threads <= 3; threads += 2)
        for (int after = 1; after <= 7; after += 3) {
            tc_par_info info = load_both(path, 64 * 1024, threads, after);
            /* held until `after` pieces are merged: those were the file's thread's own */
            cr_assert_geq(info.pieces_direct, (uint64_t)after, "threads %d after %d", threads, after);
        }
    /* a thread free from the start (it may begin any piece) */
    load_both(path, 64 * 1024 + 1, 1, 0);
}

/* Three files of unequal sizes (one job's ranks in three layouts), on one queue: -j 1, 2 and 3 give
 * the same JSON. */
Test(direct, three_unequal_files_j1_j2_j3, .init = setup) {
    static const char *layouts[] = {"kineto", "indent4", "oneline"};
    for (int l = 0; l < 3; l++)
        cr_assert_eq(tu_sh(NULL, "rm -rf %s/u%d && %s -o %s/u%d --ranks 3 --steps 20 --straggler 1 --layout %s "
                           ">/dev/null", TMP, l, tu_gen(), TMP, l, layouts[l]), 0);
    const char *tc = tu_bin();
    for (int j = 1; j <= 3; j++)
        cr_assert_eq(tu_sh(NULL, "%s analyze -q -j%d --json %s/u.j%d.json %s/u0/rank0.pt.trace.json "
                           "%s/u1/rank1.pt.trace.json %s/u2/rank2.pt.trace.json 2>%s/u.j%d.err", tc, j, TMP, j, TMP,
                           TMP, TMP, TMP, j), 0, "-j%d", j);
    for (int j = 2; j <= 3; j++) {
        cr_assert_eq(tu_sh(NULL, "cmp -s %s/u.j1.json %s/u.j%d.json", TMP, TMP, j), 0, "-j1 and -j%d JSON differ", j);
        cr_assert_eq(tu_sh(NULL, "cmp -s %s/u.j1.err %s/u.j%d.err", TMP, TMP, j), 0, "-j1 and -j%d messages differ", j);
    }
}
