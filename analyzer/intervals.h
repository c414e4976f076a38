/* intervals.h: interval algebra on half-open [start, end) ranges of integer nanoseconds.
 * A tc_ivset is a growable list; after tc_ivset_normalize() it is sorted, disjoint and holds no
 * empty intervals (touching ones are merged). Set operations and lengths take normalized inputs
 * (asserted as they are read) and produce normalized outputs. Every breakdown figure is a length of
 * such sets, never a sum of durations. */
#ifndef TC_INTERVALS_H
#define TC_INTERVALS_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t start; /* ns, inclusive */
    int64_t end;   /* ns, exclusive; end >= start */
} tc_iv;

typedef struct {
    tc_iv *v;
    size_t n, cap;
} tc_ivset;

void tc_ivset_init(tc_ivset *s);
void tc_ivset_free(tc_ivset *s);
void tc_ivset_clear(tc_ivset *s);
/* Adds [start, end) (end < start is clamped to empty): appended, or merged into the last interval
 * when it starts inside it or where it ends (the union is the same). 0, or -1 out of memory. */
int tc_ivset_add(tc_ivset *s, int64_t start, int64_t end);
/* Sorts and merges overlapping or touching intervals; drops empty ones. */
void tc_ivset_normalize(tc_ivset *s);
/* Total covered length of a normalized set, ns. */
int64_t tc_ivset_length(const tc_ivset *s);
/* out = a ∪ b, a ∩ b, a − b (out must be distinct from a and b; its content is replaced). */
int tc_ivset_union(const tc_ivset *a, const tc_ivset *b, tc_ivset *out);
int tc_ivset_intersect(const tc_ivset *a, const tc_ivset *b, tc_ivset *out);
int tc_ivset_subtract(const tc_ivset *a, const tc_ivset *b, tc_ivset *out);
/* |a ∩ b| without building the set. */
int64_t tc_ivset_intersect_length(const tc_ivset *a, const tc_ivset *b);
/* |a − b| = |a| − |a ∩ b|. */
int64_t tc_ivset_subtract_length(const tc_ivset *a, const tc_ivset *b);
#endif
