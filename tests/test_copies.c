/* test_copies.c: copies by kind and the copy calls that hold the host (issue 28 items 5 and 6),
 * end to end through build/tracecost on the hand-made traces of tests/data/copies (made by its
 * make_traces.py, which says what each plants) and on the real traces: exposed memory splits into
 * host and device copies that add up exactly; device copies are GPU work in the verdict; a long
 * pageable copy call is sync with its own evidence, never module load; runtime calls without a
 * correlation id count as causes. */
#include "testutil.h"
#include "model/trace.h"
#include <glob.h>

#define D2D "tests/data/copies/gpu0-d2d_copies.pt.trace.json"
#define PAGEABLE "tests/data/copies/gpu0-pageable_copy.pt.trace.json"

/* A JSON µs number written with at most 3 decimals, as exact integer ns. */
static long long ns_of(yajl_val v) {
    cr_assert(v && YAJL_IS_NUMBER(v), "expected a number");
    const char *s = v->u.number.r;
    long long whole = 0, frac = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++) whole = whole * 10 + (*s - '0');
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9' && digits < 3; s++, digits++) frac = frac * 10 + (*s - '0');
    cr_assert(*s == 0, "not an exact µs value: %s", v->u.number.r);
    for (; digits < 3; digits++) frac *= 10;
    return whole * 1000 + frac;
}

static long long us_key(yajl_val o, const char *key) { return ns_of(tu_get(o, key, NULL)) / 1000; }

/* Analyzes input into dir/out.json and returns it parsed; *text (when not NULL) gets the terminal
 * output. */
static yajl_val analyze(const char *dir, const char *input, char **text) {
    char *out = NULL;
    int rc = tu_sh(&out, "'%s' analyze -j1 --json %s/out.json %s", tu_bin(), dir, input);
    cr_assert(rc == 0 || rc == 3, "analyze %s: rc %d: %s", input, rc, out);
    if (text) *text = tu_unwrap(out); else free(out);
    char path[512];
    snprintf(path, sizeof path, "%s/out.json", dir);
    return tu_json_file(path);
}

/* memory_host_exposed_us + memory_device_exposed_us = memory_exposed_us, exactly, in o. */
static void expect_split(yajl_val o, const char *what) {
    long long all = ns_of(tu_get(o, "memory_exposed_us", NULL)), host = ns_of(tu_get(o, "memory_host_exposed_us", NULL)),
              dev = ns_of(tu_get(o, "memory_device_exposed_us", NULL));
    cr_assert(host >= 0 && dev >= 0, "%s: %lld %lld", what, host, dev);
    cr_assert_eq(host + dev, all, "%s: host %lld + device %lld != %lld", what, host, dev, all);
}

/* The split adds up for the summary, its shares, every rank and every step. */
static void expect_split_everywhere(yajl_val o, const char *what) {
    yajl_val sm = tu_get(o, "summary", NULL), sh = tu_get(sm, "shares", NULL);
    expect_split(sm, what);
    cr_assert_float_eq(tu_num(tu_get(sh, "memory_host_exposed", NULL)) + tu_num(tu_get(sh, "memory_device_exposed", NULL)),
                       tu_num(tu_get(sh, "memory_exposed", NULL)), 1e-9, "%s: shares", what);
    yajl_val ranks = tu_get(o, "ranks", NULL);
    for (size_t r = 0; r < YAJL_GET_ARRAY(ranks)->len; r++) {
        yajl_val rk = YAJL_GET_ARRAY(ranks)->values[r], steps = tu_get(rk, "steps", NULL);
        expect_split(rk, what);
        for (size_t s = 0; steps && YAJL_IS_ARRAY(steps) && s < YAJL_GET_ARRAY(steps)->len; s++)
            expect_split(YAJL_GET_ARRAY(steps)->values[s], what);
    }
}

Test(copies, kind_from_the_copy_name) {
    static const struct { const char *name; tc_gpu_kind kind; tc_copy_kind copy; } cases[] = {
        {"Memcpy HtoD (Pageable -> Device)", TC_GPU_MEMCPY, TC_COPY_HTOD},
        {"Memcpy HtoD (Pinned -> Device)", TC_GPU_MEMCPY, TC_COPY_HTOD},
        {"Memcpy HtoD (Host -> Device)", TC_GPU_MEMCPY, TC_COPY_HTOD}, /* ROCm */
        {"Memcpy DtoH (Device -> Pageable)", TC_GPU_MEMCPY, TC_COPY_DTOH},
        {"Memcpy DtoD (Device -> Device)", TC_GPU_MEMCPY, TC_COPY_DTOD},
        {"Memcpy PtoP (Device -> Device)", TC_GPU_MEMCPY, TC_COPY_PTOP},
        {"Memcpy HtoH (Pinned -> Pageable)", TC_GPU_MEMCPY, TC_COPY_HTOH},
        {"Memcpy AtoD (Array -> Device)", TC_GPU_MEMCPY, TC_COPY_DTOD},
        {"Memcpy HtoA (Pageable -> Array)", TC_GPU_MEMCPY, TC_COPY_HTOD},
        {"Memcpy Unknown (Unknown -> Unknown)", TC_GPU_MEMCPY, TC_COPY_UNKNOWN},
        {"Memcpy", TC_GPU_MEMCPY, TC_COPY_UNKNOWN},
        {"Memcpy HtoDx", TC_GPU_MEMCPY, TC_COPY_UNKNOWN},
        {"Memset (Device)", TC_GPU_MEMSET, TC_COPY_MEMSET},
        {"Memset (Pinned)", TC_GPU_MEMSET, TC_COPY_MEMSET},
        {"ampere_sgemm_128x64_nn", TC_GPU_KERNEL, TC_COPY_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_assert_eq(tc_copy_kind_of(cases[i].kind, cases[i].name, strlen(cases[i].name)), cases[i].copy, "%s",
                     cases[i].name);
    cr_assert(tc_copy_is_host(TC_COPY_HTOD) && tc_copy_is_host(TC_COPY_DTOH) && tc_copy_is_host(TC_COPY_HTOH));
    cr_assert(tc_copy_is_host(TC_COPY_UNKNOWN), "a copy of unknown kind counts as a host copy, as before the split");
    cr_assert(!tc_copy_is_host(TC_COPY_DTOD) && !tc_copy_is_host(TC_COPY_PTOP) && !tc_copy_is_host(TC_COPY_MEMSET));
}

/* 14.3% exposed D2D copies and memsets and 2.9% idle, all of it GPU side: host-bound before issue
 * 28 (idle + all exposed memory was 17.4%); now compute-bound, the device copies named GPU work. */
Test(copies, device_copies_are_gpu_work_not_host_loss, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL;
    yajl_val o = analyze(dir, D2D, &text);
    yajl_val sm = tu_get(o, "summary", NULL);
    cr_assert_str_eq(tu_str(tu_get(sm, "verdict", NULL)), "compute-bound", "%s", text);
    cr_assert_eq(us_key(sm, "window_us"), 27600);
    cr_assert_eq(us_key(sm, "memory_device_exposed_us"), 3 * 1320); /* D2D 1300 + memset 20 per step */
    cr_assert_eq(us_key(sm, "memory_host_exposed_us"), 3 * 10);     /* the pageable H2D; the pinned one is hidden */
    cr_assert_eq(us_key(sm, "idle_us"), 3 * 270);
    cr_assert_eq(us_key(tu_get(sm, "idle_causes", NULL), "gpu_side_us"), 3 * 270);
    expect_split_everywhere(o, D2D);
    yajl_val steps = tu_get(o, "ranks", "#0", "steps", NULL);
    cr_assert_eq(YAJL_GET_ARRAY(steps)->len, 3);
    for (size_t s = 0; s < 3; s++) {
        cr_assert_eq(us_key(YAJL_GET_ARRAY(steps)->values[s], "memory_device_exposed_us"), 1320);
        cr_assert_eq(us_key(YAJL_GET_ARRAY(steps)->values[s], "memory_host_exposed_us"), 10);
    }
    /* the verdict's reasons are over the step window (issue 28 item 1): 13.8% of step time */
    cr_assert(strstr(text, "device copies, 13.8%, are GPU work"), "%s", text);
    cr_assert(strstr(text, "memory 14.5% (host 0.1%, device 14.3%)"), "%s", text);
    cr_assert(!strstr(text, "host-bound"), "%s", text);
    yajl_tree_free(o);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* A 1600 µs pageable cudaMemcpyAsync inside aten::to during which the GPU idles 1075 µs per step:
 * sync held by the copy (module load before issue 28), with its own evidence line and action. A
 * cudaFree and a cudaStreamSynchronize without correlation ids count as memory management and sync
 * (cpu_other before). */
Test(copies, long_pageable_copy_is_sync_with_its_evidence, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL;
    yajl_val o = analyze(dir, PAGEABLE, &text);
    yajl_val sm = tu_get(o, "summary", NULL), k = tu_get(sm, "idle_causes", NULL);
    cr_assert_eq(us_key(k, "module_load_us"), 0, "%s", text);
    cr_assert_eq(us_key(sm, "idle_sync_copy_us"), 3 * 1075);
    cr_assert_eq(us_key(k, "sync_us"), 3 * 1075 + 2 * 10); /* + the bare syncs' last 10 µs between steps */
    cr_assert_eq(us_key(k, "memory_management_us"), 3 * 575); /* the cudaFree while the GPU ran dry */
    cr_assert_eq(us_key(tu_get(o, "ranks", "#0", NULL), "idle_sync_copy_us"), 3 * 1075);
    yajl_val steps = tu_get(o, "ranks", "#0", "steps", NULL);
    for (size_t s = 0; s < YAJL_GET_ARRAY(steps)->len; s++)
        cr_assert_eq(us_key(YAJL_GET_ARRAY(steps)->values[s], "idle_sync_copy_us"), 1075, "step %zu", s);
    expect_split_everywhere(o, PAGEABLE);
    cr_assert(strstr(text, "copy calls holding the host (1 ms or more: pageable memory), most in cudaMemcpyAsync "
                           "(called in aten::to)"), "%s", text);
    cr_assert(strstr(text, "Copy from pinned memory: cudaMemcpyAsync (called in aten::to) holds the host"), "%s", text);
    cr_assert(!strstr(text, "module"), "%s", text);
    yajl_tree_free(o);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The split adds up exactly on every real trace the tests hold, and the job of four ranks. */
Test(copies, memory_split_adds_up_on_real_traces, .timeout = 120) {
    static const char *const patterns[] = {"samples/*.json.gz", "samples/real/*", "tests/data/*.json.gz",
                                           "tests/data/ref/*", "tests/data/idle/*", "tests/data/real2/*"};
    char *dir = tu_tmpdir();
    size_t traces = 0;
    for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
        glob_t g;
        cr_assert_eq(glob(patterns[p], 0, NULL, &g), 0, "%s", patterns[p]);
        for (size_t i = 0; i < g.gl_pathc; i++, traces++) {
            yajl_val o = analyze(dir, g.gl_pathv[i], NULL);
            expect_split_everywhere(o, g.gl_pathv[i]);
            yajl_tree_free(o);
        }
        globfree(&g);
    }
    cr_assert_geq(traces, 15);
    yajl_val o = analyze(dir, "samples/", NULL);
    expect_split_everywhere(o, "samples/");
    yajl_tree_free(o);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* A generated 4-rank job (µs timestamps, clock offsets, host time before the first kernel) whose
 * per-step exposed copy is D2D: 12.6% device copies and 2.6% idle is compute-bound, every rank's
 * exposed memory is device copies exactly as planted; the same job with the copy from pinned host
 * memory is host-bound (those copies are host loss). */
Test(copies, generated_job_with_d2d_copies_is_not_host_bound, .timeout = 120) {
    static const char *const flags = "--ranks 4 --memcpy-us 3300 --idle-us 1000 --time-format epoch --clock-offset-us 3000";
    char *dir = tu_tmpdir(), gen[600], job[600];
    snprintf(gen, sizeof gen, "%s --copy-kind d2d", flags);
    tu_gen_job(dir, "d2d", gen);
    tu_gen_job(dir, "h2d", flags);
    snprintf(job, sizeof job, "%s/d2d/rank*.pt.trace.json", dir);
    yajl_val o = analyze(dir, job, NULL);
    yajl_val sm = tu_get(o, "summary", NULL);
    cr_assert_str_eq(tu_str(tu_get(sm, "verdict", NULL)), "compute-bound");
    cr_assert_eq(ns_of(tu_get(sm, "memory_host_exposed_us", NULL)), 0);
    cr_assert_gt(tu_num(tu_get(sm, "shares", "memory_device_exposed", NULL)), 0.12);
    expect_split_everywhere(o, "d2d job");
    snprintf(job, sizeof job, "%s/d2d/expected.json", dir);
    yajl_val e = tu_json_file(job);
    yajl_val per = tu_get(e, "per_rank", NULL), ranks = tu_get(o, "ranks", NULL);
    cr_assert_eq(YAJL_GET_ARRAY(per)->len, YAJL_GET_ARRAY(ranks)->len);
    for (size_t r = 0; r < YAJL_GET_ARRAY(per)->len; r++)
        cr_assert_eq(ns_of(tu_get(YAJL_GET_ARRAY(ranks)->values[r], "memory_device_exposed_us", NULL)),
                     ns_of(tu_get(YAJL_GET_ARRAY(per)->values[r], "memory_exposed_us", NULL)), "rank %zu", r);
    yajl_tree_free(e);
    yajl_tree_free(o);
    snprintf(job, sizeof job, "%s/h2d/rank*.pt.trace.json", dir);
    o = analyze(dir, job, NULL);
    cr_assert_str_eq(tu_str(tu_get(o, "summary", "verdict", NULL)), "host-bound");
    cr_assert_eq(ns_of(tu_get(o, "summary", "memory_device_exposed_us", NULL)), 0);
    yajl_tree_free(o);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
