/* read_options.h: what the loader (load.h), the readers (reader.h) and the parallel parse
 * (parallel.h) share, so that none includes another for it: the options a reading is begun with
 * and the progress callback. */
#ifndef TC_READ_OPTIONS_H
#define TC_READ_OPTIONS_H
#include <stdint.h>
#include "base/pool.h"
#include "model/comm_kernels.h"

typedef struct {
    const tc_comm_patterns *comm; /* the user's --comm-kernel patterns its kernels are classified with
                                   * besides the catalog (tc_comm_classify); NULL: none */
    tc_pool *pool;                /* the parallel parse's pieces go to this shared pool's queue when
                                   * the file needs no reader thread (NULL: it makes its own) */
} tc_read_options;

/* Called after each chunk with the raw bytes read so far and the file size (0 unknown). */
typedef void (*tc_progress_fn)(void *ctx, uint64_t raw_bytes, uint64_t file_size);
#endif
