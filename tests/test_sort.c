/* test_sort.c: tc_sort_i64 (base/util.h), the one int64 sort every analysis uses (medians, p95,
 * step times, group figures). Against qsort on arrays that take each of its paths: short (tc_sort),
 * already sorted (no copy), and the radix passes with negative values, INT64_MIN/MAX, duplicates,
 * keys that differ only in one byte (passes skipped), reversed and random input. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

static int cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t next(uint64_t *s) { /* xorshift64: the same values on every run */
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void check(int64_t *v, size_t n) {
    int64_t *want = malloc((n ? n : 1) * sizeof *want);
    cr_assert_not_null(want);
    memcpy(want, v, n * sizeof *v);
    qsort(want, n, sizeof *want, cmp);
    tc_sort_i64(v, n);
    for (size_t i = 0; i < n; i++) cr_assert_eq(v[i], want[i], "n=%zu: index %zu: %lld, want %lld", n, i, (long long)v[i], (long long)want[i]);
    free(want);
}

Test(sort_i64, matches_qsort_on_every_path) {
    static const size_t sizes[] = {0, 1, 2, 255, 256, 257, 1000, 100000};
    uint64_t s = 88172645463325252ull;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        int64_t *v = malloc((n ? n : 1) * sizeof *v);
        cr_assert_not_null(v);
        for (int shape = 0; shape < 6; shape++) {
            for (size_t i = 0; i < n; i++) {
                uint64_t r = next(&s);
                switch (shape) {
                case 0: v[i] = (int64_t)r; break;                                     /* any value, any sign */
                case 1: v[i] = (int64_t)(r % 2000) - 1000; break;                   /* small, negative too, repeats */
                case 2: v[i] = (int64_t)(i * 7 % 5); break;                         /* few distinct values */
                case 3: v[i] = (int64_t)(n - i) * 1000003; break;                   /* reversed */
                case 4: v[i] = i % 3 == 0 ? INT64_MIN : i % 3 == 1 ? INT64_MAX : 0; break;
                default: v[i] = (int64_t)(0x1234567800000000ull | (r & 0xff00)); break; /* one byte differs */
                }
            }
            check(v, n);
            check(v, n); /* sorted input stays as it is */
        }
        free(v);
    }
}
