/* gzsplit.h: a gzip file that is not BGZF inflated in runs on several threads, where the file
 * says it is safe: runs start at speculative split points (candidates), full-flush points (an
 * empty stored block `00 00 ff ff` on a byte boundary, as `pigz --independent` and zlib's
 * Z_FULL_FLUSH write) and gzip member headers after the first member. Each run is inflated with a
 * fresh raw-inflate state, which refuses any distance that reaches before its start, and must end
 * exactly at the next run's start on a block boundary (a member's end for a header); the caller
 * takes runs in order and accepts one only when its start is what the run before it ended on, and
 * checks every member's CRC-32 (combined over the runs) and length. So an accepted run's bytes are
 * exactly the one stream's. A file whose first split point is refused (pigz's default dependent
 * blocks end in the same sync-flush bytes) is not split: the one stream reads it. A refusal later
 * on (a distance before the run's start) is inflated again with the 32 KiB before it, and from then
 * on each run is inflated once the one before it is known. Any other doubt (damage, a cut, a run
 * that decodes to more than its buffer, no split point for too long) makes the caller fall back to
 * the sequential parse, whose stream says what and where. Memory: TC_GZS_RING output buffers of
 * at most TC_GZS_CAP bytes, touched as far as written, and one compressed run per thread. */
#ifndef TC_GZSPLIT_H
#define TC_GZSPLIT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/pool.h"

#define TC_GZS_RING 8                  /* runs in flight or held: the caller's ring */
#define TC_GZS_TARGET (2u * 1024u * 1024u) /* decoded bytes aimed at per run */
#define TC_GZS_CAP (4u * 1024u * 1024u)    /* a run's output buffer: a run that decodes to more falls back */

typedef struct tc_gzsplit tc_gzsplit;

/* A split reader for the gzip file at fd (size bytes), inflating with ISA-L when isal (and built
 * with it), else zlib; NULL when the file does not split at its first candidate (or has none
 * soon enough, or is small): the one stream reads it. Its first check inflates one run here. */
tc_gzsplit *tc_gzsplit_open(int fd, uint64_t size, bool isal);
/* Runs are inflated on pool from now on (submitted as ring slots free up). */
void tc_gzsplit_start(tc_gzsplit *g, tc_pool *pool);
/* Decoded run number k (asked for in order; `released`: runs the caller handed back, so at most
 * TC_GZS_RING are held or in flight), its length in *len; NULL at the end or on doubt (*failed). */
const char *tc_gzsplit_get(tc_gzsplit *g, uint64_t k, uint64_t released, size_t *len, bool *failed);
uint64_t tc_gzsplit_raw_bytes(const tc_gzsplit *g);     /* compressed bytes of the runs taken */
uint64_t tc_gzsplit_decoded_bytes(const tc_gzsplit *g); /* their decoded bytes */
/* Waits for the runs in flight and frees g (NULL: no-op). */
void tc_gzsplit_close(tc_gzsplit *g);

/* The deflate run inflater, exposed for tests: inflates in[0, n) (compressed offsets from..; a
 * member header first when at_header) with a fresh state (dict[0, dict_len): the 32 KiB before
 * from, or none) into out[0, cap). 0 when it ended exactly at n on a block boundary or after a
 * member's trailer (*len: bytes decoded), 1 when a distance reached before from (and no dict), 2
 * when the output passed cap, 3 on any other doubt. */
int tc_gzsplit_inflate(const unsigned char *in, size_t n, bool at_header, const unsigned char *dict, size_t dict_len,
                       char *out, size_t cap, bool isal, size_t *len);
#endif
