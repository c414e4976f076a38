/* test_intervals.c: the interval algebra every figure rests on (outputs stay normalized, lengths
 * match brute-force counts), and the id lookup tables the analyses join events with. */
#include "testutil.h"
#include "analyzer/intervals.h"
#include "model/trace.h"
#include "base/util.h"
#include <stddef.h>

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

/* ---- lookup tables over sorted ids (util.h) and launches by correlation (trace.h) ------------- */

Test(lookup, dense_index_finds_the_first_item_of_each_id) {
    typedef struct { uint64_t pad; uint32_t id; } item;
    item v[] = {{0, 7}, {1, 7}, {2, 9}, {3, 12}};
    uint32_t base = 0;
    size_t span = 0;
    uint32_t *t = tc_dense_index(v, 4, sizeof *v, offsetof(item, id), &base, &span);
    cr_assert_not_null(t);
    cr_assert_eq(base, 7);
    cr_assert_eq(span, 6);
    cr_assert_eq(t[0], 0, "the first of the two 7s");
    cr_assert_eq(t[2], 2);
    cr_assert_eq(t[5], 3);
    cr_assert_eq(t[1], TC_NONE);
    free(t);
    item sparse[] = {{0, 1}, {1, 100000}};
    cr_assert_null(tc_dense_index(sparse, 2, sizeof *sparse, offsetof(item, id), &base, &span), "too sparse: search instead");
}

Test(lookup, launches_by_correlation_with_and_without_a_table) {
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, "x"), 0);
    for (uint32_t i = 0; i < 1000; i++) { /* out of order, one id twice (the earlier ts wins) */
        tc_launch l = {2000 - 2 * i, TC_NONE, (int64_t)i, 0, TC_NONE, TC_NONE};
        cr_assert_eq(TC_PUSH(t.launches, t.n_launches, t.cap_launches, l), 0);
    }
    tc_launch dup = {1000, 5, -1, 0, TC_NONE, TC_NONE};
    cr_assert_eq(TC_PUSH(t.launches, t.n_launches, t.cap_launches, dup), 0);
    tc_trace_sort_launches(&t);
    cr_assert_not_null(t.launch_slot, "dense ids get a table");
    cr_assert_eq(tc_trace_find_launch(&t, 1000)->ts_ns, -1);
    cr_assert_eq(tc_trace_find_launch(&t, 1002)->ts_ns, 499);
    cr_assert_null(tc_trace_find_launch(&t, 1001));
    cr_assert_null(tc_trace_find_launch(&t, 5000));
    cr_assert_null(tc_trace_find_launch(&t, 0));
    /* a launch added later: the stale table is not used, the search is */
    tc_launch late = {7, TC_NONE, 42, 0, TC_NONE, TC_NONE};
    cr_assert_eq(TC_PUSH(t.launches, t.n_launches, t.cap_launches, late), 0);
    tc_trace_sort_launches(&t);
    cr_assert_eq(tc_trace_find_launch(&t, 7)->ts_ns, 42);
    cr_assert_eq(tc_trace_find_launch(&t, 1000)->ts_ns, -1);
    tc_trace_free(&t);
}

Test(intervals, adding_merges_into_the_last_interval_without_changing_the_union) {
    tc_ivset s;
    tc_ivset_init(&s);
    /* sorted by start, overlapping and touching: one interval */
    for (int64_t i = 0; i < 1000; i++) cr_assert_eq(tc_ivset_add(&s, 10 * i, 10 * i + 10 + (i % 3)), 0);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.v[0].start, 0);
    cr_assert_eq(s.v[0].end, 10000);
    /* out of order, nested, empty and disjoint: the normalized union is what it must be */
    const int64_t pairs[][2] = {{20000, 20010}, {15000, 15005}, {20002, 20004}, {20010, 20010}, {20020, 20030}, {20005, 20025}};
    for (size_t i = 0; i < 6; i++) cr_assert_eq(tc_ivset_add(&s, pairs[i][0], pairs[i][1]), 0);
    tc_ivset_normalize(&s);
    cr_assert_eq(s.n, 3);
    cr_assert_eq(tc_ivset_length(&s), 10000 + 5 + 30);
    cr_assert_eq(s.v[2].start, 20000);
    cr_assert_eq(s.v[2].end, 20030);
    tc_ivset_free(&s);
}

/* Random normalized sets: union, intersection and difference are normalized (sorted, not empty,
 * not touching: what the sweeps assert of their inputs) and their lengths match a brute-force
 * coverage count. */
static void random_set(tc_ivset *s, uint64_t *x, int n, int64_t span) {
    tc_ivset_init(s);
    for (int i = 0; i < n; i++) {
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t start = (int64_t)((*x >> 20) % (uint64_t)(span - 20)), len = (int64_t)((*x >> 8) % 12);
        cr_assert_eq(tc_ivset_add(s, start, start + len), 0);
    }
    tc_ivset_normalize(s);
}

static void assert_normalized(const tc_ivset *s, const char *what) {
    for (size_t i = 0; i < s->n; i++) {
        cr_assert_lt(s->v[i].start, s->v[i].end, "%s: interval %zu is empty", what, i);
        if (i) cr_assert_gt(s->v[i].start, s->v[i - 1].end, "%s: intervals %zu and %zu overlap or touch", what, i - 1, i);
    }
}

static int64_t covered(const tc_ivset *s, unsigned char *cover, int64_t span) {
    memset(cover, 0, (size_t)span);
    for (size_t i = 0; i < s->n; i++) memset(cover + s->v[i].start, 1, (size_t)(s->v[i].end - s->v[i].start));
    int64_t n = 0;
    for (int64_t i = 0; i < span; i++) n += cover[i];
    return n;
}

Test(intervals, set_operations_keep_sets_normalized) {
    enum { SPAN = 20000 };
    unsigned char *ca = malloc(SPAN), *cb = malloc(SPAN);
    cr_assert(ca && cb);
    uint64_t x = 777;
    for (int round = 0; round < 20; round++) {
        tc_ivset a, b, out;
        random_set(&a, &x, 200 + 50 * round, SPAN);
        random_set(&b, &x, 1200 - 50 * round, SPAN);
        tc_ivset_init(&out);
        int64_t la = covered(&a, ca, SPAN), lb = covered(&b, cb, SPAN), both = 0;
        for (int i = 0; i < SPAN; i++) both += ca[i] && cb[i];
        assert_normalized(&a, "a");
        cr_assert_eq(tc_ivset_union(&a, &b, &out), 0);
        assert_normalized(&out, "union");
        cr_assert_eq(tc_ivset_length(&out), la + lb - both);
        cr_assert_eq(tc_ivset_intersect(&a, &b, &out), 0);
        assert_normalized(&out, "intersection");
        cr_assert_eq(tc_ivset_length(&out), both);
        cr_assert_eq(tc_ivset_intersect_length(&a, &b), both);
        cr_assert_eq(tc_ivset_subtract(&a, &b, &out), 0);
        assert_normalized(&out, "difference");
        cr_assert_eq(tc_ivset_length(&out), la - both);
        cr_assert_eq(tc_ivset_subtract_length(&a, &b), la - both);
        tc_ivset_free(&a); tc_ivset_free(&b); tc_ivset_free(&out);
    }
    free(ca);
    free(cb);
}
