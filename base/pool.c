/* pool.c: the worker pool and the latch (see pool.h). Two queues under one lock: spawned tasks
 * (pool threads only) and submitted tasks (anyone); a task leaves its queue when its last run is
 * claimed. Two condition variables: `work` wakes idle threads for new tasks or to quit, `done`
 * wakes the threads waiting for a task when one is done or a new one is queued. */
#define _POSIX_C_SOURCE 200809L
#include "pool.h"
#include <assert.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    tc_pool_task *head, *tail;
} task_queue;

typedef struct {
    tc_pool *pool;
    int index;        /* 1..n; 0 is the owner */
    pthread_t thread;
} worker;

struct tc_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    task_queue spawned;   /* tc_pool_spawn: one run each, pool threads only */
    task_queue queued;    /* tc_pool_submit: runs in order, taken by anyone */
    size_t pending;       /* tasks submitted or spawned and not done */
    bool quit;
    pthread_t owner;
    worker *workers;
    int n_threads;
};

static void queue_push(task_queue *q, tc_pool_task *t) {
    t->next = NULL;
    if (q->tail) q->tail->next = t;
    else q->head = t;
    q->tail = t;
}

/* Takes t, which follows prev (NULL: t is the head), out of q. */
static void queue_remove(task_queue *q, tc_pool_task *prev, tc_pool_task *t) {
    if (prev) prev->next = t->next;
    else q->head = t->next;
    if (q->tail == t) q->tail = prev;
}

/* The next run for a thread (lock held). An idle pool thread (waiting_for NULL, !owner): a spawned
 * task first, else the oldest queued task's next index. A thread waiting for a task: the oldest
 * queued task that does not nest, or waiting_for itself. NULL when there is none. */
static tc_pool_task *take(tc_pool *p, bool owner, const tc_pool_task *waiting_for, size_t *index) {
    bool idle = !owner && !waiting_for;
    task_queue *q = idle && p->spawned.head ? &p->spawned : &p->queued;
    tc_pool_task *prev = NULL, *t = q->head;
    while (t && !idle && t->nests && t != waiting_for) { prev = t; t = t->next; }
    if (!t) return NULL;
    assert(t->claimed < t->count);
    *index = t->claimed++;
    if (t->claimed == t->count) queue_remove(q, prev, t);
    return t;
}

/* Records one finished run of t (lock held). */
static void finish(tc_pool *p, tc_pool_task *t) {
    assert(t->finished < t->claimed && t->claimed <= t->count);
    if (++t->finished < t->count) return;
    assert(p->pending > 0);
    p->pending--;
    pthread_cond_broadcast(&p->done);
}

static void *worker_main(void *arg) {
    worker *w = arg;
    tc_pool *p = w->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        size_t i;
        tc_pool_task *t = take(p, false, NULL, &i);
        if (!t) {
            if (p->quit) break;
            pthread_cond_wait(&p->work, &p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        t->fn(t, i, w->index);
        pthread_mutex_lock(&p->mu);
        finish(p, t);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

tc_pool *tc_pool_new(int threads) {
    tc_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (threads < 0) threads = 0;
    p->workers = calloc((size_t)threads + 1, sizeof *p->workers);
    if (!p->workers) { free(p); return NULL; }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->owner = pthread_self();
    for (int i = 0; i < threads; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        w->index = i + 1;
        if (pthread_create(&w->thread, NULL, worker_main, w)) break;
        p->n_threads++;
    }
    return p;
}

int tc_pool_threads(const tc_pool *p) { return p->n_threads; }

static void enqueue(tc_pool *p, task_queue *q, tc_pool_task *t, tc_pool_fn *fn, size_t count) {
    t->fn = fn;
    t->count = count;
    t->claimed = t->finished = 0;
    t->next = NULL;
    if (count == 0) return;
    pthread_mutex_lock(&p->mu);
    queue_push(q, t);
    p->pending++;
    if (count > 1) pthread_cond_broadcast(&p->work);
    else pthread_cond_signal(&p->work);
    pthread_cond_broadcast(&p->done); /* threads waiting for a task run queued ones meanwhile */
    pthread_mutex_unlock(&p->mu);
}

void tc_pool_submit(tc_pool *p, tc_pool_task *task, tc_pool_fn *fn, size_t count) {
    enqueue(p, &p->queued, task, fn, count);
}

void tc_pool_spawn(tc_pool *p, tc_pool_task *task, tc_pool_fn *fn) {
    assert(p->n_threads >= 1); /* else nothing would ever run it */
    enqueue(p, &p->spawned, task, fn, 1);
}

/* The worker number of the calling thread: 0 the owner, else its pool thread's. */
static int self_index(const tc_pool *p) {
    pthread_t me = pthread_self();
    for (int i = 0; i < p->n_threads; i++)
        if (pthread_equal(me, p->workers[i].thread)) return p->workers[i].index;
    assert(pthread_equal(me, p->owner)); /* only the owner and the pool's threads wait */
    return 0;
}

void tc_pool_wait(tc_pool *p, tc_pool_task *task) {
    int self = self_index(p);
    pthread_mutex_lock(&p->mu);
    while (task->finished < task->count) {
        size_t i;
        tc_pool_task *t = take(p, self == 0, task, &i);
        if (!t) {
            pthread_cond_wait(&p->done, &p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        t->fn(t, i, self);
        pthread_mutex_lock(&p->mu);
        finish(p, t);
    }
    pthread_mutex_unlock(&p->mu);
}

bool tc_pool_take_back(tc_pool *p, tc_pool_task *task) {
    bool back = false;
    pthread_mutex_lock(&p->mu);
    if (task->count > 0 && task->claimed == 0) {
        tc_pool_task *prev = NULL, *t = p->queued.head;
        while (t && t != task) { prev = t; t = t->next; }
        if (t) {
            queue_remove(&p->queued, prev, t);
            t->claimed = t->finished = t->count;
            assert(p->pending > 0);
            p->pending--;
            back = true;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return back;
}

typedef struct {
    tc_pool_task task; /* first: the run gets it back */
    void (*fn)(void *ctx, size_t i, int worker);
    void *ctx;
} for_task;

static void for_run(tc_pool_task *task, size_t i, int worker) {
    for_task *f = (for_task *)task;
    f->fn(f->ctx, i, worker);
}

void tc_pool_for(tc_pool *p, size_t n, void (*fn)(void *ctx, size_t i, int worker), void *ctx) {
    for_task f = {.fn = fn, .ctx = ctx};
    tc_pool_submit(p, &f.task, for_run, n);
    tc_pool_wait(p, &f.task);
}

void tc_pool_for_nesting(tc_pool *p, size_t n, void (*fn)(void *ctx, size_t i, int worker), void *ctx) {
    for_task f = {.fn = fn, .ctx = ctx};
    f.task.nests = true;
    tc_pool_submit(p, &f.task, for_run, n);
    tc_pool_wait(p, &f.task);
}

void tc_pool_free(tc_pool *p) {
    if (!p) return;
    assert(pthread_equal(pthread_self(), p->owner));
    pthread_mutex_lock(&p->mu);
    assert(p->pending == 0 && !p->queued.head && !p->spawned.head);
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_threads; i++) pthread_join(p->workers[i].thread, NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}

/* ---- latch ------------------------------------------------------------------------------------ */

void tc_latch_init(tc_latch *l, size_t count) {
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    l->count = count;
}

void tc_latch_count_down(tc_latch *l) {
    pthread_mutex_lock(&l->mu);
    assert(l->count > 0);
    if (--l->count == 0) pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

void tc_latch_wait(tc_latch *l) {
    pthread_mutex_lock(&l->mu);
    while (l->count > 0) pthread_cond_wait(&l->cv, &l->mu);
    pthread_mutex_unlock(&l->mu);
}

void tc_latch_destroy(tc_latch *l) {
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
}

int tc_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
