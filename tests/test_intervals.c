/* test_intervals.c: the interval algebra every figure rests on. */
#include "testutil.h"
#include "../analyzer/intervals.h"

static void set_of(tc_ivset *s, const int64_t *pairs, size_t n) {
    tc_ivset_init(s);
    for (size_t i = 0; i < n; i++) cr_assert_eq(tc_ivset_add(s, pairs[2 * i], pairs[2 * i + 1]), 0);
    tc_ivset_normalize(s);
}

Test(intervals, touching_intervals_merge) {
    tc_ivset s;
    int64_t p[] = {0, 10, 10, 20, 20, 25};
    set_of(&s, p, 3);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(tc_ivset_length(&s), 25);
    tc_ivset_free(&s);
}

Test(intervals, nested_and_overlapping) {
    tc_ivset s;
    int64_t p[] = {0, 100, 10, 20, 50, 150, 30, 40};
    set_of(&s, p, 4);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(tc_ivset_length(&s), 150);
    tc_ivset_free(&s);
}

Test(intervals, zero_length_and_inverted_add_nothing) {
    tc_ivset s;
    int64_t p[] = {5, 5, 9, 3, 10, 12};
    set_of(&s, p, 3);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(tc_ivset_length(&s), 2);
    tc_ivset_free(&s);
}

Test(intervals, unsorted_input) {
    tc_ivset s;
    int64_t p[] = {50, 60, 0, 10, 30, 40, 5, 35};
    set_of(&s, p, 4);
    cr_assert_eq(s.n, 2);
    cr_assert_eq(s.v[0].start, 0);
    cr_assert_eq(s.v[0].end, 40);
    cr_assert_eq(tc_ivset_length(&s), 50);
    tc_ivset_free(&s);
}

Test(intervals, set_operations) {
    tc_ivset a, b, out;
    int64_t pa[] = {0, 10, 20, 30, 40, 50};
    int64_t pb[] = {5, 25, 45, 60};
    set_of(&a, pa, 3);
    set_of(&b, pb, 2);
    tc_ivset_init(&out);
    cr_assert_eq(tc_ivset_intersect(&a, &b, &out), 0);
    cr_assert_eq(tc_ivset_length(&out), 5 + 5 + 5);
    cr_assert_eq(tc_ivset_intersect_length(&a, &b), 15);
    cr_assert_eq(tc_ivset_subtract(&a, &b, &out), 0);
    cr_assert_eq(tc_ivset_length(&out), 30 - 15);
    cr_assert_eq(tc_ivset_subtract_length(&a, &b), 15);
    cr_assert_eq(tc_ivset_union(&a, &b, &out), 0);
    cr_assert_eq(tc_ivset_length(&out), 30 + 35 - 15);
    cr_assert_eq(out.n, 2); /* [0,30) and [40,60) */
    tc_ivset_free(&a); tc_ivset_free(&b); tc_ivset_free(&out);
}

Test(intervals, subtract_with_hole_inside) {
    tc_ivset a, b, out;
    int64_t pa[] = {0, 100};
    int64_t pb[] = {10, 20, 30, 40, 90, 200};
    set_of(&a, pa, 1);
    set_of(&b, pb, 3);
    tc_ivset_init(&out);
    cr_assert_eq(tc_ivset_subtract(&a, &b, &out), 0);
    cr_assert_eq(out.n, 3);
    cr_assert_eq(tc_ivset_length(&out), 10 + 10 + 50);
    tc_ivset_free(&a); tc_ivset_free(&b); tc_ivset_free(&out);
}

/* Union length of a million random intervals equals a brute-force coverage count. */
Test(intervals, huge_counts_match_brute_force) {
    enum { N = 1000000, SPAN = 4000000 };
    tc_ivset s;
    tc_ivset_init(&s);
    unsigned char *cover = calloc(SPAN, 1);
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t start = (int64_t)((x >> 20) % (SPAN - 100));
        int64_t len = (int64_t)((x >> 8) % 6);
        cr_assert_eq(tc_ivset_add(&s, start, start + len), 0);
        memset(cover + start, 1, (size_t)len);
    }
    tc_ivset_normalize(&s);
    int64_t brute = 0;
    for (int i = 0; i < SPAN; i++) brute += cover[i];
    cr_assert_eq(tc_ivset_length(&s), brute);
    for (size_t i = 1; i < s.n; i++) cr_assert_gt(s.v[i].start, s.v[i - 1].end, "normalized sets are disjoint and not touching");
    free(cover);
    tc_ivset_free(&s);
}
