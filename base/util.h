/* util.h: the few helpers every module shares: growable arrays and checked allocation.
 * Owns nothing; callers own the memory they grow. */
#ifndef TC_UTIL_H
#define TC_UTIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TC_NONE UINT32_MAX /* "no index / no id" for uint32_t ids */

/* Makes room for at least `need` elements of `elem` bytes in *ptr (capacity in *cap, in elements).
 * Grows geometrically. Returns 0, or -1 on overflow/out of memory leaving *ptr untouched. */
int tc_grow(void **ptr, size_t *cap, size_t need, size_t elem);

/* Appends one element; evaluates to 0 or -1 (out of memory). arr/len/cap are lvalues. */
#define TC_PUSH(arr, len, cap, value)                                                        \
    ((len) >= (cap) && tc_grow((void **)&(arr), &(cap), (len) + 1, sizeof *(arr)) ? -1      \
                                                                : ((arr)[(len)++] = (value), 0))

/* strdup that is C11 (no POSIX needed); NULL in -> NULL out. */
char *tc_strdup(const char *s);

/* qsort that accepts n == 0 with a NULL base (qsort itself must not be given NULL). */
/* Asks the kernel to map the whole pages inside [p, p + bytes) for writing in one call: faulting
 * them in one at a time on first write costs several times more on the VMs we measured. Advice
 * only (no effect where unsupported). */
void tc_prefault(void *p, size_t bytes);
/* Asks for transparent huge pages over the 2 MiB-aligned part of [p, p + bytes): on the VMs we
 * measured, 40 MB in 4 KiB pages took 0.12 s to fault in and 3 ms in 2 MiB pages. For big,
 * long-lived arrays only (RSS then grows by 2 MiB steps). Advice only. */
void tc_advise_huge_pages(void *p, size_t bytes);
/* calloc (zeroed) or malloc of n elements for the big arrays of an analysis: from 4 MiB on they
 * get huge pages, mapped in one call (a 4 KiB page costs ~15 us to fault in on the VMs we
 * measured; an analysis of a 400 MB trace faulted in ~14 MB). Free with free(). */
void *tc_big_alloc(size_t n, size_t elem, bool zeroed);
/* A direct lookup table for uint32 ids read at key_offset in n items of `stride` bytes, sorted by
 * id: table[id - *base] is the first item with that id, TC_NONE where none; *span entries.
 * NULL when the ids are too sparse (more than 4n + 4096 values) or memory is short: callers then
 * search the sorted items. */
uint32_t *tc_dense_index(const void *items, size_t n, size_t stride, size_t key_offset, uint32_t *base, size_t *span);
void tc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* Sorts n int64_t values ascending: radix passes (linear) from 256 values on, tc_sort below. */
void tc_sort_i64(int64_t *v, size_t n);

/* Median of n doubles (sorts a copy); 0 when n == 0. */
double tc_median(const double *v, size_t n);

/* Calendar dates (proleptic Gregorian, UTC) to and from days since 1970-01-01: the one conversion
 * used for capture dates and the age of catalog prices (no time zone, no libc time functions). */
int64_t tc_days_from_civil(int64_t y, int m, int d);
void tc_civil_from_days(int64_t days, int64_t *y, int *m, int *d);
#endif
