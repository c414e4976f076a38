/* intervals.c: sorted-sweep implementations of the interval algebra (see intervals.h).
 * All operations are O(n + m) on normalized inputs; normalize is O(n log n). The sweeps assert that
 * each input interval they reach is normalized (one compare with its predecessor: O(1)). */
#include "intervals.h"
#include "base/util.h"
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void tc_ivset_init(tc_ivset *s) { memset(s, 0, sizeof *s); }
void tc_ivset_free(tc_ivset *s) { free(s->v); memset(s, 0, sizeof *s); }
void tc_ivset_clear(tc_ivset *s) { s->n = 0; }

int tc_ivset_add(tc_ivset *s, int64_t start, int64_t end) {
    if (end < start) end = start;
    if (s->n > 0 && end > start) {
        /* events come sorted by start: most overlap or touch the last interval; growing it keeps
         * the union and saves memory (a 400 MB trace's compute set shrinks from MBs to KBs) */
        tc_iv *last = &s->v[s->n - 1];
        if (start >= last->start && start <= last->end) {
            if (end > last->end) last->end = end;
            return 0;
        }
    }
    tc_iv iv = {start, end};
    return TC_PUSH(s->v, s->n, s->cap, iv);
}

/* s->v[i] is as in a normalized set: not empty, and after the one before it without touching it. */
static bool normal_at(const tc_ivset *s, size_t i) {
    return s->v[i].start < s->v[i].end && (i == 0 || s->v[i - 1].end < s->v[i].start);
}

static int cmp_iv(const void *a, const void *b) {
    const tc_iv *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

void tc_ivset_normalize(tc_ivset *s) {
    size_t i, sorted = 1;
    for (i = 1; i < s->n; i++)
        if (s->v[i].start < s->v[i - 1].start) { sorted = 0; break; }
    if (!sorted) tc_sort(s->v, s->n, sizeof *s->v, cmp_iv);
    size_t out = 0;
    int64_t prev_start = INT64_MIN;
    for (i = 0; i < s->n; i++) {
        tc_iv iv = s->v[i];
        assert(iv.start >= prev_start); /* sorted above */
        prev_start = iv.start;
        if (iv.end <= iv.start) continue;
        if (out > 0 && iv.start <= s->v[out - 1].end) {
            if (iv.end > s->v[out - 1].end) s->v[out - 1].end = iv.end;
        } else {
            s->v[out++] = iv;
        }
    }
    s->n = out;
}

int64_t tc_ivset_length(const tc_ivset *s) {
    int64_t total = 0;
    for (size_t i = 0; i < s->n; i++) {
        assert(normal_at(s, i));
        total += s->v[i].end - s->v[i].start;
    }
    return total;
}

int tc_ivset_union(const tc_ivset *a, const tc_ivset *b, tc_ivset *out) {
    tc_ivset_clear(out);
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        tc_iv next;
        if (j >= b->n || (i < a->n && a->v[i].start <= b->v[j].start)) { assert(normal_at(a, i)); next = a->v[i++]; }
        else { assert(normal_at(b, j)); next = b->v[j++]; }
        if (out->n > 0 && next.start <= out->v[out->n - 1].end) {
            if (next.end > out->v[out->n - 1].end) out->v[out->n - 1].end = next.end;
        } else if (TC_PUSH(out->v, out->n, out->cap, next)) {
            return -1;
        }
    }
    return 0;
}

int tc_ivset_intersect(const tc_ivset *a, const tc_ivset *b, tc_ivset *out) {
    tc_ivset_clear(out);
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        assert(normal_at(a, i) && normal_at(b, j));
        int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (lo < hi && tc_ivset_add(out, lo, hi)) return -1;
        if (a->v[i].end < b->v[j].end) i++; else j++;
    }
    return 0;
}

int64_t tc_ivset_intersect_length(const tc_ivset *a, const tc_ivset *b) {
    int64_t total = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        assert(normal_at(a, i) && normal_at(b, j));
        int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (lo < hi) total += hi - lo;
        if (a->v[i].end < b->v[j].end) i++; else j++;
    }
    return total;
}

int64_t tc_ivset_subtract_length(const tc_ivset *a, const tc_ivset *b) {
    return tc_ivset_length(a) - tc_ivset_intersect_length(a, b);
}

int tc_ivset_subtract(const tc_ivset *a, const tc_ivset *b, tc_ivset *out) {
    tc_ivset_clear(out);
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        assert(normal_at(a, i));
        int64_t cur = a->v[i].start, end = a->v[i].end;
        while (j < b->n && b->v[j].end <= cur) j++;
        size_t k = j;
        while (k < b->n && b->v[k].start < end) {
            assert(normal_at(b, k));
            if (b->v[k].start > cur && tc_ivset_add(out, cur, b->v[k].start)) return -1;
            if (b->v[k].end > cur) cur = b->v[k].end;
            if (cur >= end) break;
            k++;
        }
        if (cur < end && tc_ivset_add(out, cur, end)) return -1;
    }
    return 0;
}
