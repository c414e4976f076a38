/* pool.h: the one worker pool, and a latch. A tc_pool is a fixed set of threads started once; the
 * thread that made it (its owner) submits tasks, and while it waits for one it runs queued tasks
 * itself, so a pool of N threads works on N + 1 tasks at a time and a pool of 0 threads runs
 * everything in the owner, in order. A task is a struct the caller owns (embed tc_pool_task as its
 * first member to find the rest from the task pointer) run as `count` indexed runs fn(task, i,
 * worker): one for a single job, n for a batch. Queued tasks are taken oldest first, and a batch's
 * runs in index order, so results written by index come out the same whatever the thread count.
 * A producer that must run alongside the owner (a reader filling buffers the owner consumes) is
 * spawned: it runs on a pool thread only, never in the owner.
 * A run may itself submit tasks and wait for them (a file's load whose pieces share the pool with
 * the other files': tc_pool_for_nesting); while it waits it runs queued tasks that do not wait
 * themselves (never a spawned one, never a nesting batch's run), so waits never deadlock and never
 * nest more than one deep.
 * Invariants: only the owner and the runs of tasks submit and wait, only the owner frees; a task
 * is done when all its runs have finished; the pool is freed with no task pending. The pool's lock is taken once per run, never
 * per event: a run is a piece of work (a file, a piece of a trace, a rank). */
#ifndef TC_POOL_H
#define TC_POOL_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct tc_pool tc_pool;
typedef struct tc_pool_task tc_pool_task;

/* One run of a task: index i in [0, count), on thread `worker`: 0 the owner, 1..tc_pool_threads()
 * the pool's threads (an index into per-thread scratch of threads + 1 entries). */
typedef void tc_pool_fn(tc_pool_task *task, size_t i, int worker);

/* Set by tc_pool_submit/tc_pool_spawn, read by the pool under its lock: callers do not touch it
 * between submitting the task and its wait returning. */
struct tc_pool_task {
    tc_pool_fn *fn;
    size_t count;          /* runs to do */
    size_t claimed;        /* runs handed to a thread */
    size_t finished;       /* runs done; the task is done when finished == count */
    tc_pool_task *next;    /* queue link */
    bool nests;            /* its runs submit and wait: set before submitting (tc_pool_for_nesting);
                            * false in a zeroed task */
};

/* A pool of `threads` threads (0 is allowed: the owner runs everything), owned by the calling
 * thread. Fewer start when the system refuses one (tc_pool_threads says how many). NULL only when
 * memory is short. */
tc_pool *tc_pool_new(int threads);
int tc_pool_threads(const tc_pool *p);
/* Queues task for `count` runs of fn (count 0: done at once). */
void tc_pool_submit(tc_pool *p, tc_pool_task *task, tc_pool_fn *fn, size_t count);
/* Runs task once (index 0) on a pool thread, ahead of queued tasks and never in the owner: for a
 * producer the owner consumes from. The pool must have a thread (tc_pool_threads() >= 1). */
void tc_pool_spawn(tc_pool *p, tc_pool_task *task, tc_pool_fn *fn);
/* Returns when task is done; meanwhile the caller runs queued tasks (oldest first): task's runs,
 * or others that do not nest. */
void tc_pool_wait(tc_pool *p, tc_pool_task *task);
/* Takes a submitted task back when no thread has claimed a run of it yet, for the caller to do the
 * work itself (a file's next piece, parsed straight into the file's trace by the thread that would
 * otherwise wait for it): true when taken back (the pool forgets it; do not wait for it), false when
 * a run is claimed or done (wait for it as usual). */
bool tc_pool_take_back(tc_pool *p, tc_pool_task *task);
/* fn(ctx, i, worker) for every i in [0, n) on the pool's threads and the owner; returns when all
 * are done. */
void tc_pool_for(tc_pool *p, size_t n, void (*fn)(void *ctx, size_t i, int worker), void *ctx);
/* As tc_pool_for, for runs that submit tasks to p and wait for them: those runs are taken by idle
 * threads and by the caller only, so every thread waiting inside one works on the tasks they
 * submitted (theirs or another run's) and no thread idles while any is queued. */
void tc_pool_for_nesting(tc_pool *p, size_t n, void (*fn)(void *ctx, size_t i, int worker), void *ctx);
/* Stops and joins the threads; every task must be done. NULL is a no-op. */
void tc_pool_free(tc_pool *p);
/* The number of cores online (at least 1): the thread budget when none is given. */
int tc_cpu_count(void);

/* A count that threads wait on until it reaches 0 (a step another thread must finish first). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t count;
} tc_latch;

void tc_latch_init(tc_latch *l, size_t count);
/* One less; wakes the waiters when it reaches 0. Counting below 0 is a bug (asserted). */
void tc_latch_count_down(tc_latch *l);
/* Returns once the count is 0. */
void tc_latch_wait(tc_latch *l);
void tc_latch_destroy(tc_latch *l);
#endif
