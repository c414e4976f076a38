/* mpi_pack.h: a growable byte buffer and the flat encodings the MPI build ships between processes
 * (no MPI here, so the encodings are tested in the plain build): a whole compact trace
 * (tc_trace, all arrays and strings) and small scalars/strings. Encodings are host-endian and
 * host-layout: every process of one job runs the same binary on the same architecture. */
#ifndef TC_MPI_PACK_H
#define TC_MPI_PACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/trace.h"
#include "analyzer/analyze_phases.h"

typedef struct {
    unsigned char *p; size_t n, cap; /* bytes written */
    size_t off;                      /* read position */
    bool bad;                        /* a read ran past the end, or out of memory */
} tc_buf;

void tc_buf_free(tc_buf *b);
void tc_buf_put(tc_buf *b, const void *src, size_t len);
void tc_buf_u64(tc_buf *b, uint64_t v);
void tc_buf_i64(tc_buf *b, int64_t v);
void tc_buf_f64(tc_buf *b, double v);
void tc_buf_str(tc_buf *b, const char *s); /* NULL survives as NULL */
bool tc_buf_get(tc_buf *b, void *dst, size_t len);
uint64_t tc_buf_get_u64(tc_buf *b);
int64_t tc_buf_get_i64(tc_buf *b);
double tc_buf_get_f64(tc_buf *b);
char *tc_buf_get_str(tc_buf *b); /* malloc'd copy, NULL when it was NULL (or on error: b->bad) */

/* Appends t entirely; reads it back into an uninitialized t (0, or -1 damaged/out of memory, t
 * then freed). A read-back trace equals the original: same string ids, arrays, counts, warnings. */
void tc_trace_pack(tc_buf *b, const tc_trace *t);
int tc_trace_unpack(tc_buf *b, tc_trace *t);

/* The skeleton of a trace whose events are sorted (tc_job_prepare): metadata (its GPU span too),
 * accounting and warnings, its process groups, and only its comm kernels (in sorted order) with
 * the collective arguments and strings they reference (string ids renumbered). Unpacked, gpu[] holds those kernels and n_gpu_parsed
 * the input's GPU event count. Sizes: docs/mpi.md. 0, or -1 damaged/out of memory (t freed). */
void tc_skeleton_pack(tc_buf *b, const tc_trace *t);
int tc_skeleton_unpack(tc_buf *b, tc_trace *t);

/* A rank's per-rank-phase results: rr (steps, per-group figures, device name, catalog entry, the
 * host ops' and the idle evidence's names; not wait_ns), x (MFU
 * facts, top-kernel partial rows, GPU kernel aggregates), and
 * its trace's warnings. Unpack fills rr (device and names interned into t's strings, wait_ns
 * untouched, input and node kept), x (zeroed first) and replaces t's warnings. 0, or -1. */
void tc_rank_result_pack(tc_buf *b, const tc_rank_result *rr, const tc_rank_extra *x, const tc_trace *t);
int tc_rank_result_unpack(tc_buf *b, tc_rank_result *rr, tc_rank_extra *x, tc_trace *t);
/* Points rr's names (device, host ops, idle evidence) into t's strings, interning them there: for
 * a trace that replaces the one they pointed into (still alive during the call). 0, or -1 out of
 * memory (the names not moved are then NULL). */
int tc_rank_result_rehome(tc_rank_result *rr, tc_trace *t);

/* Which process parses each of n files of the given sizes (bytes): largest first to the least-
 * loaded process (ties: lower file index, lower process), stdin (is_stdin[i], may be NULL) always
 * to process 0. Deterministic. 0, or -1 out of memory. */
int tc_mpi_assign(const uint64_t *sizes, const bool *is_stdin, size_t n, int procs, int *owner);
#endif
