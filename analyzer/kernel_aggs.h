/* kernel_aggs.h: GPU events grouped by (exact name, kind) for the HTML kernels table: launches,
 * summed and longest duration, ranks it ran on. Computed per trace in the per-rank phase and
 * merged in finish (analyze_phases.h); integers only, so the merge is exact in any order and an
 * MPI run (docs/mpi.md) gets the same table from partial aggregates without the events. */
#ifndef TC_KERNEL_AGGS_H
#define TC_KERNEL_AGGS_H
#include "model/job.h"

/* A growable set of tc_kernel_agg rows (model/kernel_tables.h) keyed by (name bytes, kind). */
typedef struct {
    tc_kernel_agg *rows; size_t n, cap;
    size_t *slot; size_t n_slot; /* open-addressing index: row + 1, 0 empty; n_slot a power of two */
    bool borrowed; /* the rows' names point into strings that outlive the set (a trace's string
                    * table): tc_kernel_aggs_add does not copy them, tc_kernel_aggs_free does not
                    * free them. A name costs no memory of its own then (a trace may hold millions) */
} tc_kernel_aggs;

/* One trace's rows (ranks = 1 each) into an empty (zeroed) out, in order of first appearance in
 * its events; the names are borrowed from t's string table (t must outlive out). 0, or -1 out of
 * memory (out then freed). */
int tc_kernel_aggs_trace(const tc_trace *t, tc_kernel_aggs *out);
/* Adds one row's sums (count, total, ranks; max of the maxima) to the row of its (name, kind),
 * creating it. 0, or -1 out of memory. */
int tc_kernel_aggs_add(tc_kernel_aggs *a, const tc_kernel_agg *row);
/* Sorts the rows in report order: summed duration descending, then name length, bytes, kind. */
void tc_kernel_aggs_sort(tc_kernel_aggs *a);
void tc_kernel_aggs_free(tc_kernel_aggs *a);
#endif
