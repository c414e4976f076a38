/* test_names.c: memory per distinct name (issue 30 item 11, docs/performance.md "Distinct names"):
 * the string table's own accounting per 43-byte name, its contents through rehashes (in id order
 * and in the order of the new slots), long lengths and sealing; a one-trace job's top-kernel rows cut to the
 * 20 longest exactly as the full rows rank them; the every-name kernel table left out unless asked
 * (--csv). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyzer/analyze.h"
#include "analyzer/analyze_phases.h"
#include "analyzer/mfu.h"
#include "model/job.h"
#include "model/strtab.h"

#define NAME_FMT "void at::native::kernel_%07zu<float>(int)" /* 43 bytes, as tests/hostile/gen.sh */

Test(names, strtab_bytes_per_name) {
    const size_t n = 300000;
    tc_strtab *t = tc_strtab_new();
    cr_assert(t);
    char s[64];
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(s, sizeof s, NAME_FMT, i);
        cr_assert_eq(len, 43);
        cr_assert_eq(tc_strtab_intern(t, s, (size_t)len), (uint32_t)i);
    }
    /* the table's own count: 74-87 bytes a name before (16-byte entries, a slot array at load 1/2),
     * about 70 now (the bytes + 2, 8 per id, 5 per slot at load up to 3/4) */
    double per_name = (double)tc_strtab_bytes(t) / (double)n;
    cr_assert_leq(per_name, 75.0, "%.1f bytes per 43-byte name", per_name);
    for (size_t i = 0; i < n; i += 997) {
        int len = snprintf(s, sizeof s, NAME_FMT, i);
        cr_assert_eq(tc_strtab_find(t, s, (size_t)len), (uint32_t)i);
        cr_assert_eq(tc_strtab_intern(t, s, (size_t)len), (uint32_t)i);
        cr_assert_eq(tc_strtab_len(t, (uint32_t)i), 43);
        cr_assert_str_eq(tc_strtab_get(t, (uint32_t)i), s);
    }
    cr_assert_eq(tc_strtab_find(t, "void", 4), TC_NONE);
    cr_assert_eq(tc_strtab_count(t), n);
    tc_strtab_free(t);
}

Test(names, strtab_long_and_odd_strings) {
    tc_strtab *t = tc_strtab_new();
    cr_assert(t);
    static const size_t lens[] = {0, 1, 254, 255, 256, 65535, 70000, 3u << 20};
    char *big = malloc((3u << 20) + 1);
    cr_assert(big);
    for (size_t i = 0; i < (3u << 20); i++) big[i] = (char)('a' + i % 23);
    big[100] = '\0'; /* an embedded NUL survives */
    uint32_t ids[sizeof lens / sizeof *lens];
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) ids[k] = tc_strtab_intern(t, big, lens[k]);
    for (int i = 0; i < 5000; i++) { /* a rehash by new slots (4096 strings on) */
        char s[32];
        int len = snprintf(s, sizeof s, "k%d", i);
        cr_assert_neq(tc_strtab_intern(t, s, (size_t)len), TC_NONE);
    }
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
        cr_assert_eq(ids[k], (uint32_t)k);
        cr_assert_eq(tc_strtab_len(t, ids[k]), lens[k]);
        cr_assert_eq(memcmp(tc_strtab_get(t, ids[k]), big, lens[k]), 0);
        cr_assert_eq(tc_strtab_get(t, ids[k])[lens[k]], '\0');
        cr_assert_eq(tc_strtab_intern(t, big, lens[k]), ids[k]);
    }
    cr_assert_eq(tc_strtab_len(t, TC_NONE), 0);
    cr_assert_str_eq(tc_strtab_get(t, TC_NONE), "");
    free(big);
    tc_strtab_free(t);
}

/* A sealed table (a parsed trace's: its index dropped) keeps every id, text and length; a find
 * compares every string, and the next intern builds the index again, for a name it holds (the
 * same id) or a new one (the next id), small tables and large (rebuilt by new slots), and merges. */
Test(names, strtab_sealed_keeps_its_strings_and_builds_its_index_again) {
    static const size_t sizes[] = {0, 1, 5, 3000, 40000};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t n = sizes[z];
        tc_strtab *t = tc_strtab_new();
        cr_assert(t);
        char s[64];
        for (size_t i = 0; i < n; i++) {
            int len = snprintf(s, sizeof s, NAME_FMT, i);
            cr_assert_eq(tc_strtab_intern(t, s, (size_t)len), (uint32_t)i);
        }
        size_t before = tc_strtab_bytes(t);
        tc_strtab_seal(t);
        cr_assert_lt(tc_strtab_bytes(t), before, "%zu strings: the index is freed", n);
        cr_assert_eq(tc_strtab_count(t), n);
        for (size_t i = 0; i < n; i += 1 + n / 50) {
            int len = snprintf(s, sizeof s, NAME_FMT, i);
            cr_assert_str_eq(tc_strtab_get(t, (uint32_t)i), s);
            cr_assert_eq(tc_strtab_len(t, (uint32_t)i), 43);
            cr_assert_eq(tc_strtab_find(t, s, (size_t)len), (uint32_t)i);
        }
        cr_assert_eq(tc_strtab_find(t, "void", 4), TC_NONE);
        if (z % 2 == 0 && n) { /* a name it holds: its id, and the index again */
            int len = snprintf(s, sizeof s, NAME_FMT, n / 2);
            cr_assert_eq(tc_strtab_intern(t, s, (size_t)len), (uint32_t)(n / 2));
        }
        cr_assert_eq(tc_strtab_intern(t, "new", 3), (uint32_t)n);
        cr_assert_eq(tc_strtab_intern(t, "new", 3), (uint32_t)n);
        for (size_t i = 0; i < n; i += 1 + n / 50) {
            int len = snprintf(s, sizeof s, NAME_FMT, i);
            cr_assert_eq(tc_strtab_intern(t, s, (size_t)len), (uint32_t)i);
            cr_assert_eq(tc_strtab_find(t, s, (size_t)len), (uint32_t)i);
        }
        tc_strtab *m = tc_strtab_new(); /* a merge into a sealed table */
        cr_assert(m);
        cr_assert_eq(tc_strtab_intern(m, "new", 3), 0);
        cr_assert_eq(tc_strtab_intern(m, "newer", 5), 1);
        uint32_t ids[2];
        tc_strtab_seal(t);
        cr_assert_eq(tc_strtab_intern_all(t, m, ids), 0);
        cr_assert_eq(ids[0], (uint32_t)n);
        cr_assert_eq(ids[1], (uint32_t)n + 1);
        cr_assert_eq(tc_strtab_count(t), n + 2);
        tc_strtab_free(m);
        tc_strtab_free(t);
    }
}

/* A name interned with the hash tc_strtab_prefetch gave (the parser's path for a trace of new
 * kernel names) gets the id tc_strtab_intern gives in a twin table: new names, repeated ones, the
 * empty one, across rehashes, and on a sealed table (nothing fetched, the hash still right). */
Test(names, strtab_prefetched_interns_give_the_same_ids) {
    tc_strtab *a = tc_strtab_new(), *b = tc_strtab_new();
    cr_assert(a && b);
    char s[64];
    for (size_t i = 0; i < 50000; i++) {
        size_t k = i % 7 == 3 ? i / 2 : i; /* some repeat an earlier name */
        int len = i % 1000 == 999 ? 0 : snprintf(s, sizeof s, NAME_FMT, k);
        uint64_t h = tc_strtab_prefetch(a, s, (size_t)len);
        uint32_t x = tc_strtab_intern_with_hash(a, s, (size_t)len, h), y = tc_strtab_intern(b, s, (size_t)len);
        cr_assert_eq(x, y, "name %zu: %u and %u", i, x, y);
        if (i == 30000) { tc_strtab_seal(a); tc_strtab_seal(b); }
    }
    cr_assert_eq(tc_strtab_count(a), tc_strtab_count(b));
    tc_strtab_free(a);
    tc_strtab_free(b);
}

/* n compute kernels named k0..k(n-1), each name run (i % 3) + 1 times with durations that tie often */
static void add_kernels(tc_trace *t, size_t n) {
    char s[64];
    int64_t ts = 1000;
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r <= i % 3; r++) {
            tc_gpu_event g;
            memset(&g, 0, sizeof g);
            int len = snprintf(s, sizeof s, NAME_FMT, (i * 7919) % n);
            g.name = tc_strtab_intern(t->strings, s, (size_t)len);
            g.stream = tc_strtab_intern(t->strings, "7", 1);
            g.start_ns = ts;
            g.dur_ns = (int64_t)(((i * 31) % 17) * 100 + 100);
            ts += 20000;
            g.correlation = TC_NONE;
            g.coll = TC_NONE;
            g.kind = TC_GPU_KERNEL;
            cr_assert_eq(TC_PUSH(t->gpu, t->n_gpu, t->cap_gpu, g), 0);
        }
}

Test(names, top_kernel_rows_kept_are_the_longest) {
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, "names.json"), 0);
    add_kernels(&t, 5000);
    tc_kernel_parts all, top;
    memset(&all, 0, sizeof all);
    memset(&top, 0, sizeof top);
    cr_assert_eq(tc_kernel_parts_trace(&t, 0, &all), 0);
    cr_assert_eq(tc_kernel_parts_trace(&t, TC_TOP_KERNELS, &top), 0);
    cr_assert_eq(all.n, 5000);
    cr_assert_eq(top.n, TC_TOP_KERNELS);
    cr_assert_leq(top.cap, TC_TOP_KERNELS, "a one-trace job keeps 20 rows, not one per name");
    cr_assert_eq(top.total_ns, all.total_ns);
    /* the 20 longest of the full rows (ties: the first row), in row order */
    size_t k = 0;
    for (size_t r = 0; r < all.n; r++) {
        size_t longer = 0;
        for (size_t q = 0; q < all.n; q++)
            longer += all.rows[q].time_ns > all.rows[r].time_ns || (all.rows[q].time_ns == all.rows[r].time_ns && q < r);
        if (longer >= TC_TOP_KERNELS) continue;
        cr_assert_lt(k, top.n);
        cr_assert_eq(top.rows[k].name, all.rows[r].name);
        cr_assert_eq(top.rows[k].time_ns, all.rows[r].time_ns);
        cr_assert_eq(top.rows[k].count, all.rows[r].count);
        k++;
    }
    cr_assert_eq(k, top.n);
    tc_kernel_parts_free(&all);
    tc_kernel_parts_free(&top);
    tc_trace_free(&t);
}

static void one_trace_job(tc_job *j, size_t n) {
    tc_job_init(j);
    j->traces = calloc(1, sizeof *j->traces);
    cr_assert(j->traces);
    cr_assert_eq(tc_trace_init(&j->traces[0], "names.json"), 0);
    j->n_traces = 1;
    add_kernels(&j->traces[0], n);
}

Test(names, kernel_table_only_when_asked) {
    tc_job a, b;
    one_trace_job(&a, 20000);
    one_trace_job(&b, 20000);
    tc_analyze_options plain = {.bound_threshold = 0.15, .jobs = 1}, csv = plain;
    csv.kernel_table = true;
    cr_assert_eq(tc_job_analyze(&a, &plain), 0);
    cr_assert_eq(tc_job_analyze(&b, &csv), 0);
    cr_assert_eq(a.n_kernel_aggs, 0, "no every-name table without --csv");
    cr_assert_eq(b.n_kernel_aggs, 20000);
    cr_assert_eq(a.n_top_kernels, TC_TOP_KERNELS);
    cr_assert_eq(b.n_top_kernels, TC_TOP_KERNELS);
    for (size_t i = 0; i < a.n_top_kernels; i++) {
        cr_assert_str_eq(a.top_kernels[i].name, b.top_kernels[i].name);
        cr_assert_eq(a.top_kernels[i].time_ns, b.top_kernels[i].time_ns);
        cr_assert_eq(a.top_kernels[i].count, b.top_kernels[i].count);
        /* the kernel table's longest rows are as long as the top kernels (compute only here; ties
         * are ordered by name there, by first appearance here) */
        cr_assert_eq(b.kernel_aggs[i].total_ns, b.top_kernels[i].time_ns);
    }
    tc_job_free(&a);
    tc_job_free(&b);
}
