/* mpi_pack.h: a growable byte buffer and the flat encodings the MPI build ships between processes
 * (no MPI here, so the encodings are tested in the plain build): a whole compact trace
 * (tc_trace, all arrays and strings), a trace's skeleton, a rank's results (walked field by field
 * from model/rank_result.def through a field table) and small scalars/strings. Encodings are
 * host-endian and host-layout: every process of one job runs the same binary on the same
 * architecture. */
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

/* One rank's op parts (analyzer/op_groups.h), in its results message; read back into p (0, or -1
 * damaged/out of memory, p then freed). mpi_pack_ops.c. */
void tc_op_parts_pack(tc_buf *b, const tc_op_parts *p);
int tc_op_parts_unpack(tc_buf *b, tc_op_parts *p);

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

/* ---- field tables: a struct's fields, each with what it holds, generated from X-macro rows (the
 * rows of model/rank_result.def, whose kinds these mirror), and the one walker that packs, unpacks
 * and rehomes a struct by its table. */
typedef enum {
    TC_FIELD_VALUE,  /* bytes copied as they are (holds no pointer) */
    TC_FIELD_STRING, /* const char *: text, NULL survives; unpacked and rehomed into a trace's strings */
    TC_FIELD_ARRAY,  /* an owned array of pointer-free records and its size_t count */
    TC_FIELD_GPU,    /* const tc_gpu_spec *: its index in the GPU catalog */
    TC_FIELD_STRUCT, /* n structs in a row with a table of their own */
    TC_FIELD_KEPT    /* not shipped: the receiver's own value stays */
} tc_field_kind;

typedef struct tc_fields tc_fields;
typedef struct {
    tc_field_kind kind;
    const char *name;            /* the member's name */
    size_t offset, size;         /* the member (ARRAY: its pointer; STRUCT: all n structs) */
    size_t count_offset;         /* ARRAY: its size_t count member */
    size_t elem_size;            /* ARRAY: one record; STRUCT: one struct */
    size_t n;                    /* STRUCT: structs in the member (its length when it is an array) */
    const tc_fields *(*of)(void);/* STRUCT: the struct type's table */
} tc_field;
struct tc_fields { const tc_field *at; size_t n; };

/* TC_FIELDS_OF(type, rows...) defines `static const tc_fields *tc_fields_of_<type>(void)`, the table
 * of the rows; a row is a TC_FIELD_ROW_(kind, member, ...) of tc_this_, the type. To make the
 * tables of rank_result.def: #define TC_RR_PART and TC_RR_RANK as TC_FIELDS_OF, include
 * rank_result_rows.h (its field macros as rows), then the .def (cli/mpi/mpi_pack.c,
 * tests/test_mpi_pack.c). */
#define TC_FIELDS_OF(type, ...)                                                                    \
    static const tc_fields *tc_fields_of_##type(void) {                                            \
        typedef type tc_this_;                                                                     \
        static const tc_field at_[] = {__VA_ARGS__};                                               \
        static const tc_fields fs_ = {at_, sizeof at_ / sizeof *at_};                              \
        return &fs_;                                                                               \
    }
#define TC_FIELD_ROW_(kind, f, count_offset, elem_size, n, of)                                       \
    {kind, #f, offsetof(tc_this_, f), sizeof(((tc_this_ *)0)->f), count_offset, elem_size, n, of},

/* Appends the fields of rec (a struct of table fs) in table order. */
void tc_fields_pack(tc_buf *b, const tc_fields *fs, const void *rec);
/* Reads them back into rec: strings interned into t's strings, arrays freed and replaced, KEPT
 * fields untouched. Damage or out of memory sets b->bad (rec then holds what was read). */
void tc_fields_unpack(tc_buf *b, const tc_fields *fs, void *rec, tc_trace *t);
/* Points rec's strings into t's strings, interning them there. 0, or -1 out of memory (the strings
 * not moved are then NULL). */
int tc_fields_rehome(const tc_fields *fs, void *rec, tc_trace *t);

/* A rank's per-rank-phase results: rr (every field of model/rank_result.def but the KEPT ones:
 * steps, per-group figures, names, catalog entry), x (MFU facts, top-kernel partial rows, GPU
 * kernel aggregates), and its trace's warnings. Unpack fills rr (its strings interned into t's
 * strings; wait_ns, input and node kept), x (zeroed first) and replaces t's warnings. 0, or -1. */
void tc_rank_result_pack(tc_buf *b, const tc_rank_result *rr, const tc_rank_extra *x, const tc_trace *t);
int tc_rank_result_unpack(tc_buf *b, tc_rank_result *rr, tc_rank_extra *x, tc_trace *t);
/* Points rr's strings (every TC_RR_STRING of rank_result.def) into t's strings, interning them
 * there: for a trace that replaces the one they pointed into (still alive during the call). 0, or
 * -1 out of memory (the names not moved are then NULL). */
int tc_rank_result_rehome(tc_rank_result *rr, tc_trace *t);

/* Which process parses each of n files of the given sizes (bytes): largest first to the least-
 * loaded process (ties: lower file index, lower process), stdin (is_stdin[i], may be NULL) always
 * to process 0. Deterministic. 0, or -1 out of memory. */
int tc_mpi_assign(const uint64_t *sizes, const bool *is_stdin, size_t n, int procs, int *owner);
#endif
