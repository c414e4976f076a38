/* source.h: byte sources for traces: a file, a gzip file, or stdin ("-"). gzip is detected by
 * its magic bytes (1f 8b), never by the name. Reads in caller-sized chunks: memory does not grow
 * with the input. A gzip stream that ends early or is corrupt stops there and is flagged. */
#ifndef TC_SOURCE_H
#define TC_SOURCE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tc_source tc_source;

typedef enum { TC_SOURCE_PLAIN, TC_SOURCE_GZIP } tc_source_format;

/* Opens path ("-" = stdin). On failure returns NULL and writes a message naming the path to err. */
tc_source *tc_source_open(const char *path, char *err, size_t errlen);
/* Reads up to cap decoded bytes into buf. Returns the count, 0 at the end of the data, or -1 on
 * damage (message in err; the bytes returned before remain valid). */
long tc_source_read(tc_source *s, char *buf, size_t cap, char *err, size_t errlen);
tc_source_format tc_source_format_of(const tc_source *s);
uint64_t tc_source_raw_bytes(const tc_source *s);     /* bytes read from the file so far */
uint64_t tc_source_decoded_bytes(const tc_source *s); /* bytes handed out so far */
/* True when a gzip stream ended before its trailer (file cut short). */
bool tc_source_truncated(const tc_source *s);
/* Total file size when it is a regular file, else 0 (for progress). */
uint64_t tc_source_file_size(const tc_source *s);
/* For a plain (not gzip) regular file: its descriptor, for mmap, and its size in *size; else -1.
 * The descriptor stays owned by the source. */
int tc_source_map_fd(const tc_source *s, uint64_t *size);
/* For a gzip regular file: its descriptor (owned by the source), for reading its members at
 * offsets (bgzf.h), and its size in *size; *isal: whether the source inflates with ISA-L (so the
 * members do too: one engine per run, TRACECOST_GZIP decides). Else -1. */
int tc_source_gzip_fd(const tc_source *s, uint64_t *size, bool *isal);

/* Reads exactly n bytes of fd at off into buf (fewer only at the end of the file), retrying
 * interrupted reads; the bytes read, or -1 on a read error. What the parallel parse and the BGZF
 * member walk read whole windows with. */
long tc_pread_full(int fd, void *buf, size_t n, uint64_t off);
void tc_source_close(tc_source *s); /* NULL is a no-op */
const char *tc_source_gzip_engine(void); /* "zlib" or "isa-l" */
#endif
