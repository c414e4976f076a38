/* async_file.c: a stream written by a thread of its own (see async_file.h). The caller fills one
 * buffer while the thread writes the other; a full buffer waits only for the one before it. */
#define _GNU_SOURCE /* fopencookie */
#include "async_file.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__GLIBC__)

#define AF_BUF ((size_t)1 << 20)

struct tc_async_file {
    int fd;
    pthread_t thread;
    pthread_mutex_t mu; /* guards everything below but the bytes of the buffer being filled */
    pthread_cond_t cv;
    char *buf[2];
    size_t len[2];
    int fill;           /* the buffer the caller fills */
    bool pending;       /* buffer 1 - fill is the thread's, not yet written */
    bool closing;       /* nothing more will come */
    int err;            /* errno of the first failed write; sticky */
};

/* All of s to a->fd; 0 or an errno. */
static int write_all(int fd, const char *s, size_t n) {
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno ? errno : EIO;
        if (w == 0) return EIO;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *writer(void *arg) {
    tc_async_file *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->pending && !a->closing) pthread_cond_wait(&a->cv, &a->mu);
        if (!a->pending) break; /* closing, all written */
        int k = 1 - a->fill;
        bool skip = a->err != 0; /* after a failure nothing more is written */
        pthread_mutex_unlock(&a->mu);
        int e = skip ? 0 : write_all(a->fd, a->buf[k], a->len[k]);
        pthread_mutex_lock(&a->mu);
        if (e && !a->err) a->err = e;
        a->pending = false;
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* Hands the filled buffer to the thread once it is done with the other; the caller then fills
 * that one. The error so far (0 if none). */
static int hand_over(tc_async_file *a) {
    pthread_mutex_lock(&a->mu);
    while (a->pending) pthread_cond_wait(&a->cv, &a->mu);
    int e = a->err;
    if (!e && a->len[a->fill]) {
        a->pending = true;
        a->fill = 1 - a->fill;
        a->len[a->fill] = 0;
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    return e;
}

static ssize_t cookie_write(void *c, const char *s, size_t n) {
    tc_async_file *a = c;
    size_t done = 0;
    while (done < n) {
        size_t room = AF_BUF - a->len[a->fill];
        if (!room) {
            int e = hand_over(a);
            if (e) { errno = e; return -1; }
            continue;
        }
        size_t k = n - done < room ? n - done : room;
        memcpy(a->buf[a->fill] + a->len[a->fill], s + done, k);
        a->len[a->fill] += k;
        done += k;
    }
    return (ssize_t)n;
}

/* Ends the thread once it has written what it was handed. */
static void stop(tc_async_file *a) {
    pthread_mutex_lock(&a->mu);
    a->closing = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
}

/* fclose's: the last buffer to the thread, then the thread ended. The errors are read by
 * tc_async_finish. */
static int cookie_close(void *c) {
    tc_async_file *a = c;
    (void)hand_over(a); /* its error, if any, is a->err, read after the thread is done */
    stop(a);
    if (a->err) { errno = a->err; return -1; }
    return 0;
}

/* Frees a; locks: its mutex and condition were made. */
static void free_async(tc_async_file *a, bool locks) {
    if (locks) {
        pthread_mutex_destroy(&a->mu);
        pthread_cond_destroy(&a->cv);
    }
    free(a->buf[0]);
    free(a->buf[1]);
    free(a);
}

FILE *tc_async_open(int fd, tc_async_file **out_a) {
    *out_a = NULL;
    tc_async_file *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->fd = fd;
    a->buf[0] = malloc(AF_BUF);
    a->buf[1] = malloc(AF_BUF);
    if (!a->buf[0] || !a->buf[1]) { free_async(a, false); errno = ENOMEM; return NULL; }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    int e = pthread_create(&a->thread, NULL, writer, a);
    if (e) { free_async(a, true); errno = e; return NULL; }
    cookie_io_functions_t io = {.read = NULL, .write = cookie_write, .seek = NULL, .close = cookie_close};
    FILE *f = fopencookie(a, "w", io);
    if (!f) {
        int why = errno;
        stop(a);
        free_async(a, true);
        errno = why;
        return NULL;
    }
    /* stdio's own buffer would only copy the bytes once more: the writes go straight to ours */
    setvbuf(f, NULL, _IONBF, 0);
    *out_a = a;
    return f;
}

int tc_async_finish(FILE *f, tc_async_file *a) {
    errno = 0;
    int rc = fclose(f); /* cookie_close: -1 exactly when a write failed (a->err) */
    int why = a->err ? a->err : errno;
    free_async(a, true);
    if (rc == 0) return 0;
    errno = why ? why : EIO;
    return -1;
}

#else /* no fopencookie: the caller writes the descriptor itself */

FILE *tc_async_open(int fd, tc_async_file **out_a) {
    (void)fd;
    *out_a = NULL;
    errno = ENOSYS;
    return NULL;
}

int tc_async_finish(FILE *f, tc_async_file *a) {
    (void)a;
    return fclose(f) == 0 ? 0 : -1;
}

#endif
