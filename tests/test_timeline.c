/* test_timeline.c: `tracecost timeline` (issue 21): the merged Chrome trace parses back with
 * tracecost (every GPU event read again) and with Python's json; per rank, the union of its GPU
 * events is analyze's GPU busy time (window - idle) to the ns; the clock offsets are analyze's; a
 * collective kernel holds a wait and a transfer slice adding up to it; the straggler's process is
 * named so; --ranks and --steps cut it down; -o refuses an input; memory stays that of analyze. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* Exact ns of a JSON number written as decimal µs ("1234.567"). */
static int64_t ns_of(yajl_val v) {
    cr_assert(v && YAJL_IS_NUMBER(v), "expected a number");
    const char *s = YAJL_GET_NUMBER(v);
    bool neg = *s == '-';
    if (neg) s++;
    int64_t whole = 0, frac = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') whole = whole * 10 + (*s++ - '0');
    if (*s == '.') for (s++; *s >= '0' && *s <= '9' && digits < 3; digits++) frac = frac * 10 + (*s++ - '0');
    cr_assert(*s == 0, "not exact decimal µs: %s", YAJL_GET_NUMBER(v));
    while (digits++ < 3) frac *= 10;
    return (neg ? -1 : 1) * (whole * 1000 + frac);
}

typedef struct { int64_t a, b; } span;
static int cmp_span(const void *x, const void *y) {
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}

/* |∪ spans| */
static int64_t union_len(span *s, size_t n) {
    qsort(s, n, sizeof *s, cmp_span);
    int64_t total = 0, a = 0, b = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        if (open && s[i].a <= b) { if (s[i].b > b) b = s[i].b; continue; }
        if (open) total += b - a;
        a = s[i].a; b = s[i].b; open = true;
    }
    return open ? total + b - a : total;
}

static const char *str_of(yajl_val o, const char *key) {
    yajl_val v = tu_get(o, key, NULL);
    return v && YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : "";
}

static bool is_gpu(const char *cat) {
    return !strcmp(cat, "kernel") || !strcmp(cat, "gpu_memcpy") || !strcmp(cat, "gpu_memset");
}

/* Holds the timeline at dir/t.json to analyze's dir/a.json. */
static void check_against_analyze(const char *dir) {
    char p[600];
    snprintf(p, sizeof p, "%s/t.json", dir);
    yajl_val tl = tu_json_file(p);
    snprintf(p, sizeof p, "%s/a.json", dir);
    yajl_val an = tu_json_file(p);
    yajl_val ev = tu_get(tl, "traceEvents", NULL), ranks = tu_get(an, "ranks", NULL);
    cr_assert(ev && YAJL_IS_ARRAY(ev));
    size_t n = ev->u.array.len, gpu_total = 0;
    span *s = malloc((n + 1) * sizeof *s);
    for (size_t r = 0; r < ranks->u.array.len; r++) {
        yajl_val jr = ranks->u.array.values[r];
        int64_t rank = (int64_t)tu_num(tu_get(jr, "rank", NULL));
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            yajl_val e = ev->u.array.values[i];
            if (strcmp(str_of(e, "ph"), "X") || (int64_t)tu_num(tu_get(e, "pid", NULL)) != rank || !is_gpu(str_of(e, "cat")))
                continue;
            int64_t ts = ns_of(tu_get(e, "ts", NULL)), dur = ns_of(tu_get(e, "dur", NULL));
            s[k++] = (span){ts, ts + dur};
        }
        gpu_total += k;
        int64_t busy = ns_of(tu_get(jr, "window_us", NULL)) - ns_of(tu_get(jr, "idle_us", NULL));
        cr_expect_eq(union_len(s, k), busy, "rank %lld: GPU time %lld ns in the timeline, %lld in analyze", (long long)rank,
                     (long long)union_len(s, k), (long long)busy);
        /* the clock offsets are analyze's */
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)rank);
        yajl_val off = tu_get(tl, "otherData", "clock_offsets_us", key, NULL), aoff = tu_get(jr, "clock_offset_us", NULL);
        if (aoff && YAJL_IS_NUMBER(aoff)) cr_expect_eq(ns_of(off), ns_of(aoff), "rank %lld's clock offset", (long long)rank);
    }
    /* a collective kernel with its split: wait + transfer slices on its track, adding up to it */
    size_t split = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        yajl_val e = ev->u.array.values[i], w = tu_get(e, "args", "wait_us", NULL);
        if (!w || !YAJL_IS_NUMBER(w)) continue;
        int64_t sum = 0, dur = ns_of(tu_get(e, "dur", NULL));
        for (size_t c = i + 1; c < n && c <= i + 2; c++) {
            yajl_val x = ev->u.array.values[c];
            if (!strncmp(str_of(x, "cat"), "comm_", 5)) sum += ns_of(tu_get(x, "dur", NULL));
        }
        cr_expect_eq(sum, dur, "wait + transfer of event %zu", i);
        cr_expect_eq(ns_of(w) + ns_of(tu_get(e, "args", "transfer_us", NULL)), dur);
        split++;
    }
    cr_expect_gt(split, 0, "no collective kernel split into wait and transfer");
    /* the straggler's process is named so */
    yajl_val sr = tu_get(an, "summary", "straggler_rank", NULL);
    if (sr && YAJL_IS_NUMBER(sr)) {
        bool named = false;
        for (size_t i = 0; i < n; i++) {
            yajl_val e = ev->u.array.values[i];
            if (!strcmp(str_of(e, "name"), "process_name") && tu_num(tu_get(e, "pid", NULL)) == tu_num(sr))
                named = strstr(str_of(tu_get(e, "args", NULL), "name"), "STRAGGLER") != NULL;
        }
        cr_expect(named, "the straggler's process does not say so");
        cr_expect_eq(tu_num(tu_get(tl, "otherData", "straggler_rank", NULL)), tu_num(sr));
    }
    /* tracecost reads the file back: every GPU event again */
    char *out = NULL;
    cr_expect_eq(tu_sh(&out, "%s analyze -q --no-cost --json %s/back.json %s/t.json", tu_bin(), dir, dir), 0, "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/back.json", dir);
    yajl_val back = tu_json_file(p);
    cr_expect_eq((size_t)tu_num(tu_get(back, "inputs", "#0", "gpu_events", NULL)), gpu_total);
    yajl_tree_free(back);
    free(s);
    yajl_tree_free(tl);
    yajl_tree_free(an);
}

/* Python's json reads it too, and its per-rank GPU time (floats) is analyze's within 0.01 µs. */
static void check_with_python(const char *dir) {
    char *out = NULL;
    int rc = tu_sh(&out,
        "python3 - %s/t.json %s/a.json <<'EOF'\n"
        "import json, sys\n"
        "t = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))\n"
        "for r in a['ranks']:\n"
        "    s = sorted((e['ts'], e['ts'] + e['dur']) for e in t['traceEvents'] if e['ph'] == 'X'\n"
        "               and e['pid'] == r['rank'] and e['cat'] in ('kernel', 'gpu_memcpy', 'gpu_memset'))\n"
        "    busy, end = 0.0, None\n"
        "    for x, y in s:\n"
        "        if end is None or x > end: busy += y - x; end = y\n"
        "        elif y > end: busy += y - end; end = y\n"
        "    want = r['window_us'] - r['idle_us']\n"
        "    assert abs(busy - want) < 0.01, (r['rank'], busy, want)\n"
        "print('python ok')\n"
        "EOF\n", dir, dir);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect_not_null(strstr(out, "python ok"), "%s", out);
    free(out);
}

static void timeline_of(const char *dir, const char *inputs, const char *flags) {
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze -q --no-cost %s --json %s/a.json %s && %s timeline -q %s -o %s/t.json %s", tu_bin(), flags,
                       dir, inputs, tu_bin(), flags, dir, inputs), 0, "%s", out);
    free(out);
}

Test(timeline, equals_analyze_and_parses_back, .timeout = 120) {
    char *dir = tu_tmpdir();
    timeline_of(dir, "samples/", "");
    check_against_analyze(dir);
    check_with_python(dir);
    /* 8 ranks, clock offsets and a straggler; then a TP+DP job */
    tu_gen_job(dir, "off", "--ranks 8 --steps 3 --clock-offset-us 5000 --straggler 5 --seed 6");
    char in[600];
    snprintf(in, sizeof in, "%s/off/", dir);
    timeline_of(dir, in, "");
    check_against_analyze(dir);
    check_with_python(dir);
    tu_gen_job(dir, "tpdp", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5 --steps 2 --seed 19");
    snprintf(in, sizeof in, "%s/tpdp/", dir);
    timeline_of(dir, in, "");
    check_against_analyze(dir);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(timeline, ranks_and_steps_cut_it_down) {
    char *dir = tu_tmpdir(), *out = NULL, p[600];
    cr_assert_eq(tu_sh(&out, "%s timeline -q --ranks 1,3 --steps 3-3 -o %s/t.json samples/", tu_bin(), dir), 0, "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/t.json", dir);
    yajl_val tl = tu_json_file(p);
    yajl_val ev = tu_get(tl, "traceEvents", NULL);
    size_t steps = 0;
    for (size_t i = 0; i < ev->u.array.len; i++) {
        yajl_val e = ev->u.array.values[i];
        int pid = (int)tu_num(tu_get(e, "pid", NULL));
        cr_expect(pid == 1 || pid == 3, "rank %d drawn", pid);
        if (!strncmp(str_of(e, "name"), "ProfilerStep#", 13)) {
            cr_expect_str_eq(str_of(e, "name"), "ProfilerStep#3");
            steps++;
        }
    }
    cr_expect_eq(steps, 2);
    yajl_tree_free(tl);
    cr_expect_eq(tu_sh(&out, "%s timeline --ranks 9 -o %s/x.json samples/", tu_bin(), dir), 1);
    cr_expect_not_null(strstr(out, "--ranks: no rank 9 among the inputs' 4 ranks (0 to 3)"), "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s timeline --steps 5-2 -o %s/x.json samples/", tu_bin(), dir), 1);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s timeline -o samples/rank0.pt.trace.json.gz samples/", tu_bin()), 1);
    cr_expect_not_null(strstr(out, "is the input"), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Written streaming: its peak memory is analyze's (the event store), not the output's size. */
Test(timeline, memory_is_that_of_analyze, .timeout = 120) {
    char *dir = tu_tmpdir(), *out = NULL;
    tu_gen_job(dir, "big", "--ranks 2 --steps 200 --seed 3");
    cr_assert_eq(tu_sh(&out, "/usr/bin/time -f 'rss %%M' %s analyze -q -j1 --no-cost %s/big 2>&1 >/dev/null | grep '^rss' && "
                             "/usr/bin/time -f 'rss %%M' %s timeline -q -j1 -o %s/t.json %s/big 2>&1 | grep '^rss'",
                       tu_bin(), dir, tu_bin(), dir, dir), 0, "%s", out);
    long a = 0, t = 0;
    cr_assert_eq(sscanf(out, "rss %ld\nrss %ld", &a, &t), 2, "%s", out);
    char p[600];
    snprintf(p, sizeof p, "%s/t.json", dir);
    size_t len = 0;
    free(tu_read_file(p, &len));
    cr_expect_leq(t, a + a / 5 + 4096, "timeline %ld KiB against analyze's %ld KiB (output %zu KiB)", t, a, len / 1024);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Issue 31 item 4: --steps that the inputs do not hold is a usage error naming the steps asked for
 * and those held, and writes no file; a range partly held writes the steps held and a note naming
 * the missing ones. */
Test(timeline, steps_not_in_the_inputs) {
    char *dir = tu_tmpdir(), *out = NULL, p[600];
    snprintf(p, sizeof p, "%s/t.json", dir);
    cr_expect_eq(tu_sh(&out, "%s timeline -o %s samples/ --steps 99", tu_bin(), p), 1, "%s", out);
    cr_expect_not_null(strstr(out, "--steps 99: the inputs hold steps 2-4"), "%s", out);
    cr_expect_neq(access(p, F_OK), 0, "a file was written for steps the inputs lack");
    free(out);
    cr_expect_eq(tu_sh(&out, "%s timeline --ranks 2 -o %s samples/ --steps 0-1", tu_bin(), p), 1, "%s", out);
    cr_expect_not_null(strstr(out, "--steps 0-1: the inputs hold steps 2-4 on the ranks kept"), "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s timeline -q -o %s samples/ --steps 3-6", tu_bin(), p), 0, "%s", out);
    cr_expect_not_null(strstr(out, "note: --steps 3-6: steps 5-6 are not in the inputs (they hold steps 2-4); the file "
                                   "holds steps 3-4"), "%s", out);
    free(out);
    yajl_val tl = tu_json_file(p);
    yajl_val ev = tu_get(tl, "traceEvents", NULL);
    size_t steps[8] = {0};
    for (size_t i = 0; i < ev->u.array.len; i++) {
        const char *name = str_of(ev->u.array.values[i], "name");
        if (!strncmp(name, "ProfilerStep#", 13) && atoi(name + 13) >= 0 && atoi(name + 13) < 8) steps[atoi(name + 13)]++;
    }
    cr_expect(steps[3] > 0 && steps[4] > 0 && steps[5] == 0, "steps 3 and 4 drawn (%zu, %zu)", steps[3], steps[4]);
    yajl_tree_free(tl);
    cr_expect_eq(tu_sh(&out, "%s timeline -q -o %s samples/ --steps 2-4", tu_bin(), p), 0, "%s", out);
    cr_expect_null(strstr(out, "note:"), "all held: no note: %s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
