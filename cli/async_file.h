/* async_file.h: a FILE whose bytes a thread of its own writes to a file descriptor, so that writing
 * a report's tens of MB into the page cache (10-25 ms for 36 MB on the machines we measured, all of
 * it on the thread that calls write) overlaps the rendering instead of following it (issue 35).
 * Owns: two 1 MiB buffers (one filled by the caller, one being written), the writer thread, and
 * the first write error, which the next write or tc_async_finish reports. Used by cli/output.c for
 * regular files only; the descriptor stays the caller's. */
#ifndef TC_ASYNC_FILE_H
#define TC_ASYNC_FILE_H
#include <stdio.h>

typedef struct tc_async_file tc_async_file;

/* A stream writing to fd through a writer thread; NULL (errno set) when none can be made, and
 * always where the C library has no fopencookie (the caller then writes fd itself). *out_a is what
 * tc_async_finish takes. */
FILE *tc_async_open(int fd, tc_async_file **out_a);
/* Closes the stream (its last bytes go to the thread), waits until the thread has written
 * everything and ends it, and frees a; fd stays open. 0, or -1 with errno the first write's or
 * close's error. */
int tc_async_finish(FILE *f, tc_async_file *a);
#endif
