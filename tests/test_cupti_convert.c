/* test_cupti_convert.c: the CUPTI record -> Kineto JSON converter, without a GPU.
 * Synthetic CUDA 13 activity records (real struct types) are converted into memory or a file
 * and parsed back with yajl: categories, pid/tid, exact "{int}.{3 digits}" timestamps,
 * durations, args, ac2g flows, NVTX step pairing, escaping, error paths. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti/convert.h"
#include "cupti/test/synthetic.h"
#include "cupti/test/records.h"
#include "cupti/test/tjson.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------- helpers ---------- */

static const char *table_names(void *ctx, tc_api_domain dom, uint32_t cbid) {
    (void)ctx;
    if (dom == TC_API_RUNTIME && cbid == 211) return "cudaLaunchKernel_v7000";
    if (dom == TC_API_RUNTIME && cbid == 17) return "cudaGetDevice_v3020";
    if (dom == TC_API_DRIVER && cbid == 307) return "cuLaunchKernel";
    return NULL;
}

static tc_conv *new_conv(const char *step_range, int keep_all) {
    tc_conv_config cfg = {.api_name = table_names, .step_range = step_range, .pid = 99,
                          .keep_all_api = keep_all};
    tc_conv *c = NULL;
    cr_assert_eq(tc_conv_new(&cfg, &c), TC_CONV_OK);
    return c;
}

static const tc_conv_finish_info NO_INFO = {.rank = -1, .world_size = -1, .local_rank = -1,
                                            .window = 1};

static yajl_val parse_or_fail(const char *text) {
    char err[512] = "";
    yajl_val root = yajl_tree_parse(text, err, sizeof err);
    cr_assert_not_null(root, "invalid JSON: %s\n--- text ---\n%.2000s", err, text);
    return root;
}

static CUpti_ActivityKernel10 kernel_rec(const char *name, uint64_t start, uint64_t end,
                                         uint32_t corr) {
    CUpti_ActivityKernel10 k = tc_rec_kernel(name, start, end, 1, 3, 13, corr);
    k.blockX = 32;
    return k;
}

static CUpti_ActivityMarker2 marker_rec(uint32_t id, CUpti_ActivityFlag flag, uint64_t ts,
                                        const char *name) {
    return tc_rec_marker(id, flag, ts, name, 500, 501);
}

#define REC(x) ((const CUpti_Activity *)&(x))

/* ---------- the planted synthetic trace ---------- */

static yajl_val synth_root;
static tj_buf synth_text;

static void synth_setup(void) {
    memset(&synth_text, 0, sizeof synth_text);
    cr_assert_eq(tc_cupti_synthetic_emit(tj_write, &synth_text, 3, 8), TC_CONV_OK);
    synth_root = parse_or_fail(synth_text.data);
}

static void synth_teardown(void) {
    yajl_tree_free(synth_root);
    tj_buf_free(&synth_text);
}

TestSuite(synthetic, .init = synth_setup, .fini = synth_teardown);

Test(synthetic, categories_and_counts) {
    cr_expect_eq(tj_count(synth_root, "X", "kernel"), TC_SYNTH_KERNELS);
    cr_expect_eq(tj_count(synth_root, "X", "gpu_memcpy") + tj_count(synth_root, "X", "gpu_memset"),
                 TC_SYNTH_MEM_EVENTS);
    cr_expect_eq(tj_count(synth_root, "X", "gpu_memset"), 1);
    cr_expect_eq(tj_count(synth_root, "X", "cuda_sync"), 1);
    /* 5 launches, 2 memcpy, 1 memset, 1 sync; the cudaGetDevice is dropped as noise */
    cr_expect_eq(tj_count(synth_root, "X", "cuda_runtime"), 9);
    cr_expect_null(tj_find(synth_root, "X", "cudaGetDevice", 0));
    cr_expect_eq(tj_count(synth_root, "X", "user_annotation"), 3);
    cr_expect_eq(tj_count(synth_root, "s", "ac2g"), 9);
    cr_expect_eq(tj_count(synth_root, "f", "ac2g"), 9);
}

Test(synthetic, kineto_block_layout) {
    /* every event (array element) is a block starting "\n  {\n" like Kineto's writer */
    yajl_val ev = tj_events(synth_root);
    cr_assert_not_null(ev);
    cr_expect_eq(tj_occurrences(synth_text.data, "\n  {\n"), ev->u.array.len);
    cr_expect(strncmp(synth_text.data, "{\n  \"schemaVersion\": 1,", 23) == 0);
    cr_expect_eq(synth_text.data[synth_text.len - 1], '\n');
}

Test(synthetic, kernel_fields_and_exact_timestamps) {
    yajl_val k = tj_find(synth_root, "X",
                         "void gemm_kernel<float, 128, 128>(float const*, float const*, float*)", 0);
    cr_assert_not_null(k);
    cr_expect_str_eq(tj_str(k, "cat"), "kernel");
    cr_expect_eq(tj_int(k, "pid", -1), 0);
    cr_expect_eq(tj_int(k, "tid", -1), 7);
    cr_expect_str_eq(tj_raw(k, "ts"), "123456.789"); /* T0 - base = 123456789 ns */
    cr_expect_str_eq(tj_raw(k, "dur"), "200.000");
    yajl_val a = tj_key(k, "args");
    cr_assert_not_null(a);
    cr_expect_eq(tj_int(a, "device", -1), 0);
    cr_expect_eq(tj_int(a, "stream", -1), 7);
    cr_expect_eq(tj_int(a, "correlation", -1), 1);
    cr_expect_eq(tj_int(a, "External id", -1), 77);
    cr_expect_eq(tj_int(a, "registers per thread", -1), 96);
    cr_expect_eq(tj_int(a, "shared memory", -1), 16384 + 32768);
    cr_expect_str_eq(tj_raw(a, "blocks per SM"), "4.000000"); /* 528 blocks / 132 SMs */
    cr_expect_str_eq(tj_raw(a, "warps per SM"), "32.000000"); /* 528 * 8 warps / 132 */
    yajl_val grid = tj_key(a, "grid"), block = tj_key(a, "block");
    cr_assert(grid && YAJL_IS_ARRAY(grid) && grid->u.array.len == 3);
    cr_expect_eq(YAJL_GET_INTEGER(grid->u.array.values[0]), 264);
    cr_expect_eq(YAJL_GET_INTEGER(grid->u.array.values[1]), 2);
    cr_assert(block && YAJL_IS_ARRAY(block) && block->u.array.len == 3);
    cr_expect_eq(YAJL_GET_INTEGER(block->u.array.values[0]), 256);
}

Test(synthetic, every_timestamp_has_three_decimals) {
    yajl_val ev = tj_events(synth_root);
    for (size_t i = 0; i < ev->u.array.len; i++) {
        yajl_val e = ev->u.array.values[i];
        const char *keys[] = {"ts", "dur"};
        for (int k = 0; k < 2; k++) {
            const char *r = tj_raw(e, keys[k]);
            if (!r) continue;
            const char *dot = strchr(r, '.');
            cr_assert(dot && strlen(dot + 1) == 3, "%s = %s is not {int}.{3 digits}", keys[k], r);
        }
    }
}

Test(synthetic, memory_events) {
    yajl_val m = tj_find(synth_root, "X", "Memcpy HtoD (Pageable -> Device)", 0);
    cr_assert_not_null(m);
    cr_expect_eq(tj_int(m, "pid", -1), 0);
    cr_expect_eq(tj_int(m, "tid", -1), 7);
    cr_expect_str_eq(tj_raw(m, "dur"), "50.000");
    yajl_val a = tj_key(m, "args");
    cr_expect_eq(tj_int(a, "bytes", -1), 8 << 20);
    /* 8388608 bytes / 50000 ns = 167.77216 GB/s */
    cr_expect_str_eq(tj_raw(a, "memory bandwidth (GB/s)"), "167.772160");
    cr_assert_not_null(tj_find(synth_root, "X", "Memcpy DtoH (Device -> Pinned)", 0));
    yajl_val s = tj_find(synth_root, "X", "Memset (Device)", 0);
    cr_assert_not_null(s);
    cr_expect_str_eq(tj_str(s, "cat"), "gpu_memset");
}

Test(synthetic, sync_is_on_the_stream_row) {
    yajl_val s = tj_find(synth_root, "X", "Stream Sync", 0);
    cr_assert_not_null(s);
    cr_expect_str_eq(tj_str(s, "cat"), "cuda_sync");
    cr_expect_eq(tj_int(s, "pid", -1), 0); /* device learned from context 1 */
    cr_expect_eq(tj_int(s, "tid", -1), 7);
    cr_expect_str_eq(tj_str(tj_key(s, "args"), "cuda_sync_kind"), "Stream Sync");
}

Test(synthetic, runtime_calls_and_flows) {
    yajl_val r = tj_find(synth_root, "X", "cudaLaunchKernel", 0);
    cr_assert_not_null(r);
    cr_expect_str_eq(tj_str(r, "cat"), "cuda_runtime");
    cr_expect_eq(tj_int(r, "pid", -1), TC_SYNTH_PID);
    cr_expect_eq(tj_int(r, "tid", -1), TC_SYNTH_TID);
    cr_expect_eq(tj_int(tj_key(r, "args"), "cbid", -1), 211);
    cr_expect_eq(tj_int(tj_key(r, "args"), "External id", -1), 77);
    /* every f has an s with the same id; f is on the GPU row at the GPU event's start */
    yajl_val ev = tj_events(synth_root);
    for (size_t i = 0; i < ev->u.array.len; i++) {
        yajl_val f = ev->u.array.values[i];
        const char *ph = tj_str(f, "ph");
        if (!ph || strcmp(ph, "f") != 0) continue;
        cr_expect_str_eq(tj_str(f, "bp"), "e");
        long long id = tj_int(f, "id", -1);
        int found = 0;
        for (size_t j = 0; j < ev->u.array.len; j++) {
            yajl_val s = ev->u.array.values[j];
            const char *p2 = tj_str(s, "ph");
            if (p2 && strcmp(p2, "s") == 0 && tj_int(s, "id", -2) == id) {
                found = 1;
                cr_expect_eq(tj_int(s, "pid", -1), TC_SYNTH_PID);
            }
        }
        cr_expect(found, "flow f id %lld has no s", id);
    }
    yajl_val f1 = NULL;
    for (size_t i = 0; i < ev->u.array.len && !f1; i++) {
        yajl_val e = ev->u.array.values[i];
        if (strcmp(tj_str(e, "ph"), "f") == 0 && tj_int(e, "id", -1) == 1) f1 = e;
    }
    cr_assert_not_null(f1);
    cr_expect_eq(tj_int(f1, "pid", -1), 0);
    cr_expect_eq(tj_int(f1, "tid", -1), 7);
    cr_expect_str_eq(tj_raw(f1, "ts"), "123456.789");
}

Test(synthetic, steps_from_step_range) {
    yajl_val s1 = tj_find(synth_root, "X", "ProfilerStep#1", 0);
    yajl_val s2 = tj_find(synth_root, "X", "ProfilerStep#2", 0);
    cr_assert_not_null(s1);
    cr_assert_not_null(s2);
    cr_expect_str_eq(tj_str(s1, "cat"), "user_annotation");
    cr_expect_str_eq(tj_raw(s1, "ts"), "123456.789");
    cr_expect_str_eq(tj_raw(s1, "dur"), "500.000");
    cr_expect_str_eq(tj_raw(s2, "ts"), "123956.789");
    cr_expect_eq(tj_int(s1, "pid", -1), TC_SYNTH_PID);
    cr_expect_eq(tj_int(s1, "tid", -1), TC_SYNTH_TID);
    cr_expect_null(tj_find(synth_root, "X", "train_step", 0));
    yajl_val n = tj_find(synth_root, "X", "ncclAllReduce", 0);
    cr_assert_not_null(n);
    cr_expect_str_eq(tj_str(tj_key(n, "args"), "domain"), "NCCL");
}

Test(synthetic, top_level_metadata) {
    const char *base[] = {"baseTimeNanoseconds", NULL};
    yajl_val b = yajl_tree_get(synth_root, base, yajl_t_number);
    cr_assert_not_null(b);
    cr_expect_str_eq(b->u.number.r, "1760000000000000000");
    yajl_val dp = tj_key(synth_root, "deviceProperties");
    cr_assert(dp && YAJL_IS_ARRAY(dp) && dp->u.array.len == 1);
    yajl_val d = dp->u.array.values[0];
    cr_expect_eq(tj_int(d, "id", -1), 0);
    cr_expect_str_eq(tj_str(d, "name"), "Synthetic H100");
    cr_expect_eq(tj_int(d, "numSms", -1), 132);
    cr_expect_eq(tj_int(d, "computeMajor", -1), 9);
    cr_expect_eq(tj_int(d, "maxThreadsPerMultiprocessor", -1), 2048);
    cr_expect_eq(tj_int(d, "totalGlobalMem", -1), 85899345920ll);
    yajl_val di = tj_key(synth_root, "distributedInfo");
    cr_assert_not_null(di);
    cr_expect_str_eq(tj_str(di, "backend"), "nccl");
    cr_expect_eq(tj_int(di, "rank", -1), 3);
    cr_expect_eq(tj_int(di, "world_size", -1), 8);
    cr_expect_null(tj_key(di, "local_rank"));
    cr_expect_eq(tj_int(tj_key(synth_root, "tracecost"), "gpu_events", -1),
                 TC_SYNTH_KERNELS + TC_SYNTH_MEM_EVENTS);
    /* metadata rows: GPU 0 process and stream names */
    cr_expect_not_null(tj_find(synth_root, "M", "process_name", 0));
    cr_expect_not_null(tj_find(synth_root, "M", "thread_name", 0));
}

Test(synthetic, written_to_files_plain_and_gzip) {
    char dir[] = "/tmp/tc-cupti-synth-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *names[] = {"synthetic.pt.trace.json", "synthetic.pt.trace.json.gz"};
    for (int i = 0; i < 2; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cr_assert_eq(tc_cupti_write_synthetic_trace(path, 0, 2), 0, "%s", path);
        size_t len = 0;
        char *text = tj_read_file(path, &len);
        cr_assert_not_null(text);
        cr_expect_eq(len, synth_text.len); /* same bytes as the memory version, rank aside */
        yajl_val root = parse_or_fail(text);
        cr_expect_eq(tj_count(root, "X", "kernel"), TC_SYNTH_KERNELS);
        cr_expect_eq(tj_int(tj_key(root, "distributedInfo"), "world_size", -1), 2);
        yajl_tree_free(root);
        free(text);
        unlink(path);
    }
    rmdir(dir);
}

/* ---------- focused converter cases ---------- */

Test(convert, format_us_is_exact_integer_math) {
    char b[32];
    struct { int64_t ns; const char *want; } cases[] = {
        {0, "0.000"}, {1, "0.001"}, {999, "0.999"}, {1000, "1.000"}, {-1, "-0.001"},
        {1234567, "1234.567"}, {-1234567, "-1234.567"},
        {INT64_MAX, "9223372036854775.807"}, {INT64_MIN, "-9223372036854775.808"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = tc_conv_format_us(cases[i].ns, b);
        cr_expect_str_eq(b, cases[i].want);
        cr_expect_eq(n, strlen(cases[i].want));
    }
}

Test(convert, escaping_gives_valid_json_for_any_bytes) {
    /* every single byte, then hostile sequences */
    for (int c = 1; c < 256; c++) {
        char s[2] = {(char)c, 0};
        tj_buf b = {0};
        tj_write(&b, "[\"", 2);
        cr_assert_eq(tc_conv_escape(tj_write, &b, s, 1), 0);
        tj_write(&b, "\"]", 2);
        yajl_val v = parse_or_fail(b.data);
        yajl_tree_free(v);
        tj_buf_free(&b);
    }
    const char *hostile[] = {
        "q\"uote", "back\\slash", "ctl\x01\x1f\x7f", "\xc3\x28", "\xe2\x82", "\xed\xa0\x80",
        "\xf4\x90\x80\x80", "\xc0\xaf", "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\xff\xfe",
        "tab\tnl\ncr\r", "end\xe2",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        tj_buf b = {0};
        tj_write(&b, "[\"", 2);
        cr_assert_eq(tc_conv_escape(tj_write, &b, hostile[i], strlen(hostile[i])), 0);
        tj_write(&b, "\"]", 2);
        yajl_val v = parse_or_fail(b.data);
        yajl_tree_free(v);
        tj_buf_free(&b);
    }
}

Test(convert, hostile_kernel_name_round_trips) {
    tc_conv *c = new_conv(NULL, 0);
    tj_buf out = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, 1000000000ull), TC_CONV_OK);
    CUpti_ActivityKernel10 k = kernel_rec("k<\"a\\b\">\x01\xff\xc3\xa9", 1000001000ull,
                                          1000002500ull, 5);
    cr_assert_eq(tc_conv_record(c, REC(k)), TC_CONV_OK);
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    yajl_val root = parse_or_fail(out.data);
    yajl_val e = tj_find(root, "X", "k<\"a\\b\">\x01\xef\xbf\xbd\xc3\xa9", 0);
    cr_assert_not_null(e, "%s", out.data);
    cr_expect_str_eq(tj_raw(e, "ts"), "1.000");
    cr_expect_str_eq(tj_raw(e, "dur"), "1.500");
    cr_expect_eq(tj_int(e, "pid", -1), 1);
    cr_expect_eq(tj_int(e, "tid", -1), 13);
    cr_expect_null(tj_key(tj_key(e, "args"), "blocks per SM")); /* no device record */
    yajl_val backend = tj_key(tj_key(root, "distributedInfo"), "backend");
    cr_expect(backend && YAJL_IS_NULL(backend));
    yajl_tree_free(root);
    tj_buf_free(&out);
    tc_conv_free(c);
}

Test(convert, markers_pair_nest_and_count_orphans) {
    tc_conv *c = new_conv("iter", 0);
    tj_buf out = {0};
    const uint64_t B = 5000000000ull;
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, B), TC_CONV_OK);
    CUpti_ActivityMarker2 recs[] = {
        marker_rec(1, CUPTI_ACTIVITY_FLAG_MARKER_START, B + 1000, "outer"),
        marker_rec(2, CUPTI_ACTIVITY_FLAG_MARKER_START, B + 2000, "iter"),
        marker_rec(9, CUPTI_ACTIVITY_FLAG_MARKER_END, B + 2500, NULL),  /* orphan end */
        marker_rec(2, CUPTI_ACTIVITY_FLAG_MARKER_END, B + 3000, NULL),
        marker_rec(3, CUPTI_ACTIVITY_FLAG_MARKER_START, B + 3000, "iter"),
        marker_rec(3, CUPTI_ACTIVITY_FLAG_MARKER_END, B + 4000, NULL),
        marker_rec(4, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, B + 4500, "mark"),
        marker_rec(1, CUPTI_ACTIVITY_FLAG_MARKER_END, B + 5000, NULL),
        marker_rec(5, CUPTI_ACTIVITY_FLAG_MARKER_START, B + 6000, "never closed"),
    };
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++)
        cr_assert_eq(tc_conv_record(c, REC(recs[i])), TC_CONV_OK);
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    tc_conv_stats st;
    tc_conv_get_stats(c, &st);
    cr_expect_eq(st.unmatched_markers, 2); /* the orphan end and the unclosed start */
    yajl_val root = parse_or_fail(out.data);
    yajl_val outer = tj_find(root, "X", "outer", 0);
    cr_assert_not_null(outer);
    cr_expect_str_eq(tj_raw(outer, "ts"), "1.000");
    cr_expect_str_eq(tj_raw(outer, "dur"), "4.000");
    cr_expect_eq(tj_int(outer, "pid", -1), 500);
    cr_expect_eq(tj_int(outer, "tid", -1), 501);
    yajl_val s1 = tj_find(root, "X", "ProfilerStep#1", 0);
    yajl_val s2 = tj_find(root, "X", "ProfilerStep#2", 0);
    cr_assert_not_null(s1);
    cr_assert_not_null(s2);
    cr_expect_str_eq(tj_raw(s1, "dur"), "1.000");
    cr_expect_str_eq(tj_raw(s2, "ts"), "3.000");
    yajl_val mark = tj_find(root, "i", "mark", 0);
    cr_assert_not_null(mark);
    cr_expect_str_eq(tj_raw(mark, "ts"), "4.500");
    cr_expect_null(tj_find(root, "X", "never closed", 0));
    yajl_tree_free(root);
    tj_buf_free(&out);

    /* the step counter continues in the next window; open ranges do not */
    tj_buf out2 = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out2, B), TC_CONV_OK);
    CUpti_ActivityMarker2 a = marker_rec(6, CUPTI_ACTIVITY_FLAG_MARKER_START, B + 7000, "iter");
    CUpti_ActivityMarker2 z = marker_rec(6, CUPTI_ACTIVITY_FLAG_MARKER_END, B + 8000, NULL);
    CUpti_ActivityMarker2 late = marker_rec(5, CUPTI_ACTIVITY_FLAG_MARKER_END, B + 9000, NULL);
    tc_conv_record(c, REC(a));
    tc_conv_record(c, REC(z));
    tc_conv_record(c, REC(late));
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    root = parse_or_fail(out2.data);
    cr_expect_not_null(tj_find(root, "X", "ProfilerStep#3", 0));
    tc_conv_get_stats(c, &st);
    cr_expect_eq(st.unmatched_markers, 1);
    yajl_tree_free(root);
    tj_buf_free(&out2);
    tc_conv_free(c);
}

Test(convert, incomplete_and_unknown_records_are_skipped) {
    tc_conv *c = new_conv(NULL, 0);
    tj_buf out = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, 0), TC_CONV_OK);
    CUpti_ActivityKernel10 zero = kernel_rec("z", 0, 0, 1);
    CUpti_ActivityKernel10 inverted = kernel_rec("inv", 2000, 1000, 2);
    CUpti_Activity other = {.kind = CUPTI_ACTIVITY_KIND_OVERHEAD};
    tc_conv_record(c, REC(zero));
    tc_conv_record(c, REC(inverted));
    tc_conv_record(c, &other);
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    tc_conv_stats st;
    tc_conv_get_stats(c, &st);
    cr_expect_eq(st.records, 3);
    cr_expect_eq(st.incomplete, 2);
    cr_expect_eq(st.unknown_kind, 1);
    cr_expect_eq(st.events, 0);
    yajl_val root = parse_or_fail(out.data);
    cr_expect_eq(tj_events(root)->u.array.len, 0);
    yajl_tree_free(root);
    tj_buf_free(&out);
    tc_conv_free(c);
}

Test(convert, api_names_noise_and_driver) {
    tc_conv *c = new_conv(NULL, 0);
    tj_buf out = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, 0), TC_CONV_OK);
    CUpti_ActivityAPI a = tc_rec_api(CUPTI_ACTIVITY_KIND_DRIVER, 307, 40, 10000, 12000, 7, 8);
    cr_assert_eq(tc_conv_record(c, REC(a)), TC_CONV_OK);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = 17; /* cudaGetDevice: noise */
    cr_assert_eq(tc_conv_record(c, REC(a)), TC_CONV_OK);
    a.cbid = 4000; /* no name known */
    cr_assert_eq(tc_conv_record(c, REC(a)), TC_CONV_OK);
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    yajl_val root = parse_or_fail(out.data);
    yajl_val d = tj_find(root, "X", "cuLaunchKernel", 0);
    cr_assert_not_null(d);
    cr_expect_str_eq(tj_str(d, "cat"), "cuda_driver");
    cr_expect_not_null(tj_find(root, "s", "ac2g", 0)); /* a launch starts a flow */
    cr_expect_null(tj_find(root, "X", "cudaGetDevice", 0));
    cr_expect_not_null(tj_find(root, "X", "cuda_runtime#4000", 0));
    yajl_tree_free(root);
    tj_buf_free(&out);
    tc_conv_free(c);

    cr_expect(tc_conv_api_is_noise("cudaGetDevice"));
    cr_expect(tc_conv_api_is_noise("cudaGetDevice_v3020"));
    cr_expect(tc_conv_api_is_noise("cuDeviceGet"));
    cr_expect(!tc_conv_api_is_noise("cuDeviceGetName"));
    cr_expect(!tc_conv_api_is_noise("cudaLaunchKernel"));
    cr_expect(!tc_conv_api_is_noise(NULL));
}

Test(convert, keep_all_api_keeps_noise) {
    tc_conv *c = new_conv(NULL, 1);
    tj_buf out = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, 0), TC_CONV_OK);
    CUpti_ActivityAPI a = tc_rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, 17, 0, 1, 2, 0, 0);
    cr_assert_eq(tc_conv_record(c, REC(a)), TC_CONV_OK);
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    yajl_val root = parse_or_fail(out.data);
    yajl_val e = tj_find(root, "X", "cudaGetDevice", 0);
    cr_assert_not_null(e);
    cr_expect_eq(tj_int(e, "pid", -1), 99); /* no processId in the record: config pid */
    yajl_tree_free(root);
    tj_buf_free(&out);
    tc_conv_free(c);
}

Test(convert, context_sync_and_unknown_context) {
    tc_conv *c = new_conv(NULL, 0);
    tj_buf out = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, 0), TC_CONV_OK);
    CUpti_ActivityContext3 ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    ctx.contextId = 5;
    ctx.deviceId = 2;
    tc_conv_record(c, REC(ctx));
    CUpti_ActivitySynchronization2 s;
    memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    s.start = 1000;
    s.end = 3000;
    s.contextId = 5;
    s.streamId = UINT32_MAX;
    tc_conv_record(c, REC(s));
    s.contextId = 6; /* never seen */
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
    tc_conv_record(c, REC(s));
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    yajl_val root = parse_or_fail(out.data);
    yajl_val cs = tj_find(root, "X", "Context Sync", 0);
    cr_assert_not_null(cs);
    cr_expect_eq(tj_int(cs, "pid", -9), 2);
    cr_expect_eq(tj_int(cs, "tid", -9), -1);
    cr_expect_eq(tj_int(tj_key(cs, "args"), "stream", -9), 4294967295ll);
    yajl_val es = tj_find(root, "X", "Event Sync", 0);
    cr_assert_not_null(es);
    cr_expect_eq(tj_int(tj_key(es, "args"), "device", -9), -1);
    yajl_tree_free(root);
    tj_buf_free(&out);
    tc_conv_free(c);
}

Test(convert, write_failure_is_sticky_and_state_is_checked) {
    tc_conv *c = new_conv(NULL, 0);
    CUpti_ActivityKernel10 k = kernel_rec("k", 1000, 2000, 1);
    cr_expect_eq(tc_conv_record(c, REC(k)), TC_CONV_ERR_STATE);
    cr_expect_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_ERR_STATE);
    tj_buf out = {.fail_after = 100000};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, 0), TC_CONV_OK);
    cr_expect_eq(tc_conv_begin(c, tj_write, &out, 0), TC_CONV_ERR_STATE);
    tc_conv_status st = TC_CONV_OK;
    for (int i = 0; i < 5000 && st == TC_CONV_OK; i++) st = tc_conv_record(c, REC(k));
    cr_expect_eq(st, TC_CONV_ERR_WRITE);
    cr_expect_eq(tc_conv_record(c, REC(k)), TC_CONV_ERR_WRITE);
    cr_expect_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_ERR_WRITE);
    cr_expect(out.len <= 100000);
    /* a new document starts clean */
    tj_buf ok = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &ok, 0), TC_CONV_OK);
    cr_expect_eq(tc_conv_record(c, REC(k)), TC_CONV_OK);
    cr_expect_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    yajl_val root = parse_or_fail(ok.data);
    yajl_tree_free(root);
    tj_buf_free(&ok);
    tj_buf_free(&out);
    tc_conv_free(c);
    tc_conv_free(NULL);
    cr_expect_str_eq(tc_conv_status_str(TC_CONV_ERR_WRITE), "write failed");
}

Test(convert, large_document_streams_through_small_sink_chunks) {
    tc_conv *c = new_conv(NULL, 0);
    tj_buf out = {0};
    cr_assert_eq(tc_conv_begin(c, tj_write, &out, 0), TC_CONV_OK);
    char name[300];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    for (uint32_t i = 1; i <= 3000; i++) {
        CUpti_ActivityKernel10 k = kernel_rec(name, 1000ull * i, 1000ull * i + 500, i);
        cr_assert_eq(tc_conv_record(c, REC(k)), TC_CONV_OK);
    }
    cr_assert_eq(tc_conv_finish(c, &NO_INFO), TC_CONV_OK);
    yajl_val root = parse_or_fail(out.data);
    cr_expect_eq(tj_count(root, "X", "kernel"), 3000);
    cr_expect_eq(tj_count(root, "f", "ac2g"), 3000);
    yajl_tree_free(root);
    tj_buf_free(&out);
    tc_conv_free(c);
}

/* End to end: what the tracer writes, `tracecost analyze` reads back with the planted breakdown. */
Test(cupti_e2e, analyzer_reads_back_the_planted_breakdown) {
    char dir[] = "/tmp/tc-cupti-e2e-XXXXXX";
    cr_assert(mkdtemp(dir));
    char trace[256], json[256], cmd[1024];
    snprintf(trace, sizeof trace, "%s/host_1.rank0.pt.trace.json.gz", dir);
    snprintf(json, sizeof json, "%s/out.json", dir);
    cr_assert_eq(tc_cupti_write_synthetic_trace(trace, 0, 1), 0);
    const char *bin = getenv("TRACECOST_BIN") ? getenv("TRACECOST_BIN") : "build/tracecost";
    snprintf(cmd, sizeof cmd, "%s analyze -q --json %s %s", bin, json, trace);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    FILE *f = fopen(json, "rb");
    cr_assert(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    char err[256];
    yajl_val doc = yajl_tree_parse(buf, err, sizeof err);
    cr_assert(doc, "%s", err);
    const char *rank_path[] = {"ranks", NULL};
    yajl_val ranks = yajl_tree_get(doc, rank_path, yajl_t_array);
    cr_assert(ranks && ranks->u.array.len == 1);
    yajl_val r = ranks->u.array.values[0];
    struct { const char *key; double want; } figs[] = {
        {"window_us", TC_SYNTH_WINDOW_US}, {"compute_us", TC_SYNTH_COMPUTE_US},
        {"exposed_comm_us", TC_SYNTH_COMM_EXPOSED_US}, {"overlapped_comm_us", TC_SYNTH_COMM_OVERLAPPED_US},
        {"memory_exposed_us", TC_SYNTH_MEM_EXPOSED_US}, {"idle_us", TC_SYNTH_IDLE_US},
    };
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) {
        const char *p[] = {figs[i].key, NULL};
        yajl_val v = yajl_tree_get(r, p, yajl_t_number);
        cr_assert(v, "%s missing", figs[i].key);
        cr_assert_float_eq(YAJL_GET_DOUBLE(v), figs[i].want, 1e-6, "%s: %f vs %f", figs[i].key, YAJL_GET_DOUBLE(v), figs[i].want);
    }
    const char *sp[] = {"steps", NULL};
    yajl_val steps = yajl_tree_get(r, sp, yajl_t_array);
    cr_assert(steps && steps->u.array.len == TC_SYNTH_STEPS, "NVTX step ranges become steps");
    yajl_tree_free(doc);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
