/* util.c: growable arrays and small shared helpers (see util.h). */
#include "util.h"
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <string.h>

#define BIG_BLOCK ((size_t)4 << 20) /* blocks this big get huge pages */
#define HUGE_PAGE ((size_t)2 << 20)

/* A new block of `bytes` (>= BIG_BLOCK, a whole number of huge pages) that starts on a huge-page
 * boundary, with huge pages asked for before anything touches it. malloc's own big blocks start
 * 16 bytes into a 4 KiB-aligned mapping: writing its header there maps the first page in 4 KiB,
 * and Linux then maps the whole first 2 MiB in 4 KiB pages (511 more faults of ~15 us per array
 * on the VMs we measured). Aligned, the header lies in the page before the block. NULL when
 * memory is short. Free with free(); realloc keeps it working (without the alignment). */
static void *big_block(size_t bytes) {
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes)) return NULL;
    tc_advise_huge_pages(p, bytes);
    return p;
}

/* bytes rounded up to a whole number of huge pages (unchanged when that would overflow) */
static size_t huge_pages_of(size_t bytes) {
    return bytes > SIZE_MAX - HUGE_PAGE ? bytes : (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

int tc_grow(void **ptr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return -1;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem) return -1;
    size_t bytes = ncap * elem, old = *cap * elem;
    void *p;
    if (elem && bytes >= BIG_BLOCK && old < BIG_BLOCK) {
        /* first big size: a block of its own on a huge-page boundary (the rest of its last huge
         * page is capacity too); what the small one held moves over, as realloc would move it */
        bytes = huge_pages_of(bytes);
        ncap = bytes / elem;
        if (!(p = big_block(bytes))) return -1;
        if (*ptr) memcpy(p, *ptr, old);
        free(*ptr);
    } else {
        if (!(p = realloc(*ptr, bytes))) return -1;
        if (bytes >= BIG_BLOCK) tc_advise_huge_pages(p, bytes); /* the part not yet touched */
    }
    *ptr = p;
    *cap = ncap;
    return 0;
}

char *tc_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void tc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    if (n < 2 || !base) return;
    /* traces are mostly written in order: skip the sort when the data already is */
    const char *b = base;
    size_t i = 1;
    while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0) i++;
    if (i < n) qsort(base, n, size, cmp);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* LSD radix sort, a byte per pass, of keys with the sign bit flipped (so unsigned order is signed
 * order): one pass counts every byte position, and a position where all keys share the byte is not
 * moved (launch delays and durations leave the top three bytes alone). Linear, whatever the data:
 * hostile input cannot make it quadratic. Short arrays, and no memory for the copy, go to tc_sort. */
void tc_sort_i64(int64_t *v, size_t n) {
    if (n < 256) { tc_sort(v, n, sizeof *v, cmp_i64); return; }
    size_t i = 1;
    while (i < n && v[i - 1] <= v[i]) i++;
    if (i == n) return; /* already in order, as tc_sort would find */
    uint64_t *tmp = malloc(n * sizeof *tmp);
    size_t(*count)[256] = calloc(8, sizeof *count);
    if (!tmp || !count) {
        free(tmp);
        free(count);
        tc_sort(v, n, sizeof *v, cmp_i64);
        return;
    }
    const uint64_t flip = UINT64_C(1) << 63;
    uint64_t *src = (uint64_t *)(void *)v, *dst = tmp;
    for (i = 0; i < n; i++) {
        uint64_t k = src[i] ^ flip;
        for (int d = 0; d < 8; d++) count[d][(k >> (8 * d)) & 0xff]++;
    }
    for (int d = 0; d < 8; d++) {
        size_t *c = count[d];
        uint64_t first = ((src[0] ^ flip) >> (8 * d)) & 0xff;
        if (c[first] == n) continue; /* every key has this byte: the pass would move nothing */
        size_t sum = 0;
        for (int b = 0; b < 256; b++) { size_t k = c[b]; c[b] = sum; sum += k; }
        for (i = 0; i < n; i++) dst[c[((src[i] ^ flip) >> (8 * d)) & 0xff]++] = src[i];
        uint64_t *x = src; src = dst; dst = x;
    }
    if (src != (uint64_t *)(void *)v) memcpy(v, src, n * sizeof *v);
    free(tmp);
    free(count);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tc_median(const double *v, size_t n) {
    if (n == 0) return 0;
    double *c = malloc(n * sizeof *c);
    if (!c) return v[0];
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = (n % 2) ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

uint32_t *tc_dense_index(const void *items, size_t n, size_t stride, size_t key_offset, uint32_t *base, size_t *span) {
    if (n == 0 || n >= TC_NONE) return NULL;
    const char *b = items;
    uint32_t lo, hi;
    memcpy(&lo, b + key_offset, sizeof lo);
    memcpy(&hi, b + (n - 1) * stride + key_offset, sizeof hi);
    size_t range = (size_t)(hi - lo) + 1;
    if (hi < lo || range > 4 * n + 4096) return NULL;
    uint32_t *table = tc_big_alloc(range, sizeof *table, false);
    if (!table) return NULL;
    for (size_t i = 0; i < range; i++) table[i] = TC_NONE;
    for (size_t i = n; i-- > 0;) { /* backwards: the first item of each id wins */
        uint32_t id;
        memcpy(&id, b + i * stride + key_offset, sizeof id);
        table[id - lo] = (uint32_t)i;
    }
    *base = lo;
    *span = range;
    return table;
}

void tc_advise_huge_pages(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* every page of the block, not only its 2 MiB-aligned part: a big malloc block is a mapping of
     * its own, and advice on part of it splits it in two, after which realloc cannot move it with
     * mremap (EFAULT) and copies it instead: twice the memory for a moment (a 5 million event
     * array: 167 MB more) and every page written again */
    uintptr_t page = 4096, from = (uintptr_t)p & ~(page - 1), to = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
    if (to > from) (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p; (void)bytes;
#endif
}

void tc_prefault(void *p, size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels answer EINVAL, which is fine */
#endif
    uintptr_t page = 4096, from = ((uintptr_t)p + page - 1) & ~(page - 1), to = ((uintptr_t)p + bytes) & ~(page - 1);
    if (to > from) (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
    (void)p; (void)bytes;
#endif
}

void *tc_big_alloc(size_t n, size_t elem, bool zeroed) {
    if (n == 0 || elem == 0) n = elem = 1;
    if (n > SIZE_MAX / elem) return NULL;
    size_t bytes = n * elem;
    if (bytes < BIG_BLOCK) return zeroed ? calloc(n, elem) : malloc(bytes);
    void *p = big_block(huge_pages_of(bytes)); /* huge pages asked for before anything touches them */
    if (!p) return NULL;
    tc_prefault(p, bytes);
    if (zeroed) memset(p, 0, bytes); /* the block may be reused heap memory */
    return p;
}

/* H. Hinnant's days_from_civil / civil_from_days (public domain algorithms). */
int64_t tc_days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void tc_civil_from_days(int64_t days, int64_t *y, int *m, int *d) {
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t doe = days - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}
