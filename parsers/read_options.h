/* read_options.h: what the loader (load.h) and the parallel parse (parallel.h) share, so that
 * neither includes the other: the progress callback. */
#ifndef TC_READ_OPTIONS_H
#define TC_READ_OPTIONS_H
#include <stdint.h>

/* Called after each chunk with the raw bytes read so far and the file size (0 unknown). */
typedef void (*tc_progress_fn)(void *ctx, uint64_t raw_bytes, uint64_t file_size);
#endif
