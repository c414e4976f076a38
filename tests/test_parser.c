/* test_parser.c: the streaming Chrome-trace parser on the shapes real traces take: timestamp
 * formats, metadata order, bare arrays, string pid/tid, old categories, huge numbers, every
 * NCCL/RCCL kernel-name generation, gzip detection by magic bytes, chunk boundaries. */
#include "testutil.h"
#include "model/comm_kernels.h"
#include "model/trace.h"
#include "parsers/chrome_trace.h"
#include "parsers/load.h"
#include <zlib.h>

/* Parses doc whole (chunk 0) or in chunks; returns the rc, the events skipped before yajl and
 * the error offset (on failure). */
static int parse_counting_skips(const char *doc, tc_trace *t, size_t chunk, uint64_t *fast, uint64_t *err_at) {
    cr_assert_eq(tc_trace_init(t, "test"), 0);
    tc_ct_parser *p = tc_ct_parser_new(t);
    size_t n = strlen(doc), step = chunk ? chunk : n;
    int rc = 0;
    for (size_t off = 0; off < n && rc == 0; off += step)
        rc = tc_ct_parser_feed(p, doc + off, off + step > n ? n - off : step);
    if (rc == 0) rc = tc_ct_parser_finish(p);
    *fast = tc_ct_parser_fast_skipped(p);
    *err_at = rc ? tc_ct_parser_error_offset(p) : 0;
    tc_ct_parser_free(p);
    return rc;
}

/* Parses doc fed in chunks of `chunk` bytes (0 = all at once); returns finish's rc. */
static int parse_doc(const char *doc, tc_trace *t, size_t chunk) {
    uint64_t fast, err_at;
    return parse_counting_skips(doc, t, chunk, &fast, &err_at);
}

#define KERNEL(ts, dur) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":" ts ",\"dur\":" dur "}"

Test(parser, integer_epoch_microseconds) {
    tc_trace t;
    cr_assert_eq(parse_doc("{\"traceEvents\":[" KERNEL("1682725898236567", "68") "]}", &t, 0), 0);
    cr_assert_eq(t.n_gpu, 1);
    cr_assert_eq(t.gpu[0].start_ns, 1682725898236567000LL);
    cr_assert_eq(t.gpu[0].dur_ns, 68000);
    tc_trace_free(&t);
}

Test(parser, relative_fractional_microseconds_keep_nanoseconds) {
    tc_trace t;
    cr_assert_eq(parse_doc("{\"baseTimeNanoseconds\":1711964646000000000,\"traceEvents\":[" KERNEL("4458676983543.183", "41.407") "]}", &t, 0), 0);
    cr_assert_eq(t.gpu[0].start_ns, 4458676983543183LL);
    cr_assert_eq(t.gpu[0].dur_ns, 41407);
    cr_assert(t.has_base);
    cr_assert_eq(t.base_ns, 1711964646000000000LL);
    tc_trace_free(&t);
}

Test(parser, epoch_with_fraction_is_exact_where_doubles_are_not) {
    tc_trace t;
    /* 1712195495519689.047 µs cannot be held exactly by a double */
    cr_assert_eq(parse_doc("[" KERNEL("1712195495519689.047", "6.7655") "]", &t, 0), 0);
    cr_assert_eq(t.gpu[0].start_ns, 1712195495519689047LL);
    cr_assert_eq(t.gpu[0].dur_ns, 6766); /* rounded to the nearest ns */
    tc_trace_free(&t);
}

Test(parser, exponent_and_string_numbers) {
    tc_trace t;
    cr_assert_eq(parse_doc("[" KERNEL("1.5e3", "\"2.5\"") "]", &t, 0), 0);
    cr_assert_eq(t.gpu[0].start_ns, 1500000);
    cr_assert_eq(t.gpu[0].dur_ns, 2500);
    tc_trace_free(&t);
}

Test(parser, metadata_before_or_after_events) {
    const char *before = "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}],"
                         "\"distributedInfo\":{\"rank\":3,\"world_size\":8},\"traceEvents\":[" KERNEL("10", "5") "]}";
    const char *after = "{\"traceEvents\":[" KERNEL("10", "5") "],\"deviceProperties\":[{\"id\":0,\"name\":"
                        "\"NVIDIA H100 80GB HBM3\"}],\"distributedInfo\":{\"rank\":3,\"world_size\":8},\"INFO\":[1]}";
    const char *docs[] = {before, after};
    for (int i = 0; i < 2; i++) {
        tc_trace t;
        cr_assert_eq(parse_doc(docs[i], &t, 0), 0);
        cr_assert_eq(t.rank, 3);
        cr_assert_eq(t.world_size, 8);
        cr_assert_eq(t.n_devices, 1);
        cr_assert_str_eq(tc_trace_device_name(&t, 0), "NVIDIA H100 80GB HBM3");
        cr_assert_eq(t.n_gpu, 1);
        tc_trace_free(&t);
    }
}

Test(parser, bare_top_level_array) {
    tc_trace t;
    cr_assert_eq(parse_doc("[" KERNEL("1", "2") "," KERNEL("5", "1") "]", &t, 0), 0);
    cr_assert_eq(t.n_gpu, 2);
    cr_assert_eq(t.events_total, 2);
    tc_trace_free(&t);
}

Test(parser, string_pid_tid_and_old_categories) {
    tc_trace t;
    cr_assert_eq(parse_doc("[{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"a\",\"pid\":\"1\",\"tid\":\"stream 7\",\"ts\":1,\"dur\":2},"
                           "{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"m\",\"pid\":\"Spans\",\"tid\":3,\"ts\":1,\"dur\":2},"
                           "{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"s\",\"pid\":0,\"tid\":3,\"ts\":1,\"dur\":2},"
                           "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":4294967295,\"ts\":1,\"dur\":9}]",
                           &t, 0), 0);
    cr_assert_eq(t.n_gpu, 3, "cuda_sync is a wait, never GPU work");
    cr_assert_eq(t.gpu[0].kind, TC_GPU_KERNEL);
    cr_assert_eq(t.gpu[0].device, 1);
    cr_assert_str_eq(tc_trace_str(&t, t.gpu[0].stream), "stream 7");
    cr_assert_eq(t.gpu[1].kind, TC_GPU_MEMCPY);
    cr_assert_eq(t.gpu[1].device, -1);
    cr_assert_eq(t.gpu[2].kind, TC_GPU_MEMSET);
    tc_trace_free(&t);
}

Test(parser, uint64_values_and_unknown_keys) {
    tc_trace t;
    cr_assert_eq(parse_doc("{\"x\":{\"y\":[1,2,{\"z\":null}]},\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
                           "\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2,\"args\":{\"Comms Id\":18446744073709551615,"
                           "\"correlation\":42,\"grid\":[1,1,1],\"warps per SM\":\"inf\",\"nested\":{\"a\":[[]]}}}]}", &t, 0), 0);
    cr_assert_eq(t.n_gpu, 1);
    cr_assert_eq(t.gpu[0].correlation, 42);
    tc_trace_free(&t);
}

Test(parser, collective_args_on_kernels) {
    tc_trace t;
    cr_assert_eq(parse_doc("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"some_kernel\",\"pid\":0,\"tid\":20,\"ts\":1,\"dur\":2,"
                           "\"args\":{\"Collective name\":\"allreduce\",\"In msg nelems\":6637568,\"Out msg nelems\":6637568,"
                           "\"Group size\":2,\"dtype\":\"Float\",\"Process Group Name\":\"0\",\"Process Group Description\":"
                           "\"default_pg\",\"Seq\":17}}]", &t, 0), 0);
    cr_assert_eq(t.gpu[0].is_comm, TC_COMM_ARGS, "a Collective name arg makes a comm kernel whatever its name");
    cr_assert_neq(t.gpu[0].coll, TC_NONE);
    tc_coll_args *c = &t.colls[t.gpu[0].coll];
    cr_assert_str_eq(tc_trace_str(&t, c->coll_name), "allreduce");
    cr_assert_eq(c->in_nelems, 6637568);
    cr_assert_eq(c->group_size, 2);
    cr_assert_eq(c->seq, 17);
    cr_assert_str_eq(tc_trace_str(&t, c->pg_name), "0");
    tc_trace_free(&t);
}

/* distributedInfo.pg_config: one entry per group, ranks as an array (written back as "[0, 1]") or as
 * the string on-demand traces write; what is not a list of ranks counts as absent; any chunking. */
Test(parser, pg_config_entries) {
    const char *doc = "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":1,\"world_size\":4,\"pg_count\":4,"
                      "\"pg_config\":[{\"pg_name\":\"0\",\"pg_desc\":\"default_pg\",\"backend_config\":\"cuda:nccl\","
                      "\"pg_size\":4,\"ranks\":[]},{\"pg_name\":\"2\",\"pg_desc\":\"TP\",\"pg_size\":2,\"ranks\":[0,1]},"
                      "{\"pg_name\":\"5\",\"pg_size\":2,\"ranks\":\"[1, 3]\"},{\"pg_name\":\"7\",\"pg_size\":2,"
                      "\"ranks\":[1,[3]]},{\"pg_desc\":\"no name\"}],\"nccl_version\":\"2.21.5\"},\"traceEvents\":[]}";
    for (size_t chunk = 0; chunk <= 31; chunk++) {
        tc_trace t;
        cr_assert_eq(parse_doc(doc, &t, chunk), 0, "chunk %zu", chunk);
        cr_assert_eq(t.rank, 1);
        cr_assert_eq(t.n_pgs, 4, "chunk %zu: the entry without a name is dropped", chunk);
        cr_assert_str_eq(tc_trace_str(&t, t.pgs[0].name), "0");
        cr_assert_str_eq(tc_trace_str(&t, t.pgs[0].desc), "default_pg");
        cr_assert_eq(t.pgs[0].size, 4);
        cr_assert_str_eq(tc_trace_str(&t, t.pgs[0].ranks), "[]");
        cr_assert_str_eq(tc_trace_str(&t, t.pgs[1].ranks), "[0, 1]");
        cr_assert_eq(t.pgs[2].desc, TC_NONE);
        cr_assert_str_eq(tc_trace_str(&t, t.pgs[2].ranks), "[1, 3]");
        cr_assert_eq(t.pgs[3].ranks, TC_NONE, "a list inside the ranks is not ranks");
        cr_assert_eq(t.pgs[3].pad, 0);
        tc_trace_free(&t);
    }
}

Test(parser, profiler_steps_and_launches) {
    tc_trace t;
    cr_assert_eq(parse_doc("[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#551\",\"pid\":9,\"tid\":9,\"ts\":100,\"dur\":50},"
                           "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#551\",\"pid\":0,\"tid\":7,\"ts\":110,\"dur\":60},"
                           "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":9,\"ts\":101,\"dur\":3,"
                           "\"args\":{\"correlation\":5}}]", &t, 0), 0);
    cr_assert_eq(t.n_cpu_steps, 1);
    cr_assert_eq(t.cpu_steps[0].number, 551);
    cr_assert_eq(t.n_gpu_steps, 1);
    cr_assert_eq(t.n_launches, 1);
    cr_assert_eq(t.launches[0].correlation, 5);
    cr_assert_eq(t.launches[0].ts_ns, 101000);
    tc_trace_free(&t);
}

Test(parser, chunk_boundaries_do_not_matter) {
    const char *doc = "{\"schemaVersion\":1,\"traceEvents\":[" KERNEL("1682725898236567.125", "68.5") ","
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\",\"pid\":0,"
                      "\"tid\":\"20\",\"ts\":1682725898236600,\"dur\":12.25,\"args\":{\"correlation\":77}}],"
                      "\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\"}],\"baseTimeNanoseconds\":5}";
    tc_trace ref;
    cr_assert_eq(parse_doc(doc, &ref, 0), 0);
    for (size_t chunk = 1; chunk <= 31; chunk++) {
        tc_trace t;
        cr_assert_eq(parse_doc(doc, &t, chunk), 0, "chunk %zu", chunk);
        cr_assert_eq(t.n_gpu, ref.n_gpu);
        for (size_t i = 0; i < t.n_gpu; i++) {
            cr_assert_eq(t.gpu[i].start_ns, ref.gpu[i].start_ns);
            cr_assert_eq(t.gpu[i].dur_ns, ref.gpu[i].dur_ns);
            cr_assert_eq(t.gpu[i].is_comm, ref.gpu[i].is_comm);
            cr_assert_eq(t.gpu[i].correlation, ref.gpu[i].correlation);
            cr_assert_str_eq(tc_trace_str(&t, t.gpu[i].name), tc_trace_str(&ref, ref.gpu[i].name));
        }
        cr_assert_eq(t.base_ns, 5);
        cr_assert_str_eq(tc_trace_device_name(&t, 0), "NVIDIA A100-SXM4-80GB");
        tc_trace_free(&t);
    }
    tc_trace_free(&ref);
}

#define FLOW(ph, id) "{\n    \"ph\": \"" ph "\", \"id\": " id ", \"pid\": 1, \"tid\": 1, \"ts\": 5.500,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }"

Test(parser, events_skipped_before_yajl_change_nothing) {
    /* Whole, events that only count are skipped before yajl; fed a byte at a time no event is
     * ever whole in a chunk, so yajl reads them all. Both must give the same trace. */
    const char *doc =
        "{\"traceEvents\": [\n  " FLOW("s", "1") ",\n  " KERNEL("10", "2") ",\n  " FLOW("f", "1") ",\n  "
        FLOW("s", "2") ",\n  " FLOW("i", "3") ",\n  "
        /* skipped: nested args, literals, ops and annotations that are neither FLOP ops nor steps (but
         * for the two cpu_ops with Input Dims below, which keep an op key: not skipped) */
        "{\"ph\": \"C\", \"name\": \"mem\", \"ts\": 1, \"args\": {\"v\": [1, {\"w\": []}, \"x\"], \"e\": {}}},\n  "
        "{\"ph\": \"i\", \"s\": \"t\", \"ts\": 1e3, \"flag\": true, \"none\": null},\n  "
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\", \"pid\": 1, \"tid\": 1, \"ts\": 5.5, \"dur\": 1,\n"
        "    \"args\": {\"External id\": 9, \"Input Dims\": [[2, 3], []], \"Input type\": [\"float\", \"\"]}},\n  "
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(12): step\", \"ts\": 5, \"dur\": 9},\n  "
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"forward\", \"ts\": 5, \"dur\": 9},\n  "
        /* skipped too: keys in another order (sorted: "args" first, "ph" late), one key per line */
        "{\"cat\": \"ac2g\", \"ph\": \"f\", \"ts\": 1},\n  "
        "{\"args\": {\"External id\": 11, \"Input Dims\": [[2, 3]]}, \"cat\": \"cpu_op\", \"dur\": 2, \"name\": \"aten::relu\", "
        "\"ph\": \"X\", \"pid\": 1, \"tid\": \"2\", \"ts\": 8},\n  "
        "{\n    \"bp\": \"e\",\n    \"cat\": \"ac2g\",\n    \"id\": 2,\n    \"ph\": \"f\",\n    \"ts\": 5\n  },\n  "
        /* skipped once its "ph" says it is only counted: a pid or tid that a host span could not
         * use does not matter then */
        "{\"ph\": \"i\", \"pid\": [1], \"tid\": true, \"ts\": 2},\n  "
        /* not skipped: an escape, a last "ph" of "X" on a kernel, a FLOP op, a step, a complete event
         * without a usable "dur" (negative), a GPU annotation, a string "dur"; sorted keys: a
         * kernel and a FLOP op */
        "{\"ph\": \"s\", \"name\": \"a\\\"b\", \"ts\": 1},\n  "
        "{\"ph\": \"s\", \"cat\": \"kernel\", \"name\": \"late\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 3, \"ph\": \"X\"},\n  "
        "{\"ph\": \"s\", \"pid\": {\"a\": 1}, \"ts\": 1, \"ph\": \"f\"},\n  "
        "{\"args\": {\"correlation\": 5}, \"cat\": \"kernel\", \"dur\": 2, \"name\": \"sorted_k\", \"ph\": \"X\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 30},\n  "
        "{\"args\": {\"External id\": 12, \"Input Dims\": [[2, 3], [3, 4]], \"Input type\": [\"float\", \"float\"]}, "
        "\"cat\": \"cpu_op\", \"dur\": 1, \"name\": \"aten::mm\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 9},\n  "
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 6, \"dur\": 1,\n"
        "    \"args\": {\"External id\": 10, \"Input Dims\": [[2, 3], [3, 4]], \"Input type\": [\"float\", \"float\"]}},\n  "
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 100},\n  "
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\", \"ts\": 5, \"dur\": -1},\n  "
        "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"nccl\", \"ts\": 5, \"dur\": 9},\n  "
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\", \"ts\": 5, \"dur\": \"1\"},\n  "
        FLOW("f", "2") "\n]}";
    tc_trace whole, bytewise;
    uint64_t fast = 0, fast1 = 0, at = 0;
    cr_assert_eq(parse_counting_skips(doc, &whole, 0, &fast, &at), 0);
    cr_assert_eq(parse_counting_skips(doc, &bytewise, 1, &fast1, &at), 0);
    cr_assert_eq(fast, 11, "%llu skipped", (unsigned long long)fast); /* not the two cpu_ops with Input Dims: op keys */
    cr_assert_eq(fast1, 0);
    cr_assert_eq(whole.events_total, 25);
    cr_assert_eq(bytewise.events_total, 25);
    cr_assert_eq(whole.events_skipped, 1, "the negative dur");
    cr_assert_eq(bytewise.events_skipped, 1);
    cr_assert_eq(whole.n_gpu, 3, "the event whose last \"ph\" is \"X\" is a kernel");
    cr_assert_eq(bytewise.n_gpu, 3);
    cr_assert_str_eq(tc_trace_str(&whole, whole.gpu[1].name), "late");
    cr_assert_eq(whole.gpu[1].start_ns, bytewise.gpu[1].start_ns);
    cr_assert_str_eq(tc_trace_str(&whole, whole.gpu[2].name), "sorted_k");
    cr_assert_eq(whole.gpu[2].correlation, 5);
    cr_assert_eq(whole.n_ops, 2, "the FLOP ops");
    cr_assert_eq(bytewise.n_ops, 2);
    cr_assert_eq(whole.ops[0].flops, bytewise.ops[0].flops);
    cr_assert_eq(whole.n_cpu_steps, 1, "the step");
    cr_assert_eq(bytewise.n_cpu_steps, 1);
    cr_assert_eq(whole.n_gpu_steps, 0);
    /* host spans: aten::add_, forward, aten::relu, aten::mm twice and the aten::add_ with a string
     * "dur" (a usable number), the same records (and string ids) both ways */
    cr_assert_eq(whole.n_host, 6, "%zu", whole.n_host);
    cr_assert_eq(bytewise.n_host, 6);
    for (size_t i = 0; i < whole.n_host; i++)
        cr_assert_eq(memcmp(&whole.host[i], &bytewise.host[i], sizeof whole.host[i]), 0, "host[%zu]", i);
    cr_assert_str_eq(tc_trace_str(&whole, whole.host[1].name), "forward");
    cr_assert_eq(whole.host[1].kind, TC_HOST_ANNOTATION);
    cr_assert_eq(whole.host[0].kind, TC_HOST_CPU_OP);
    cr_assert_eq(whole.host[0].ts_ns, 5500);
    cr_assert_eq(whole.host[0].dur_ns, 1000);
    cr_assert_neq(whole.host[0].thread, whole.host[1].thread, "no pid/tid vs 1/1");
    tc_trace_free(&whole);
    tc_trace_free(&bytewise);
}

Test(parser, events_read_without_yajl_give_yajls_records) {
    /* Events that matter (kernels, launches, FLOP ops, steps, copies) are read without yajl when
     * their strings are plain: the parser calls yajl's callbacks itself, token by token. Fed a byte
     * at a time, yajl reads them all. Both must give the same trace, to every record and string. */
    char deep[400] = "", dims[4000] = "";
    for (int i = 0; i < 40; i++) strcat(deep, "[");
    for (int i = 0; i < 40; i++) strcat(deep, "]");
    for (int i = 0; i < 300; i++) strcat(dims, i ? ", [1]" : "[1]");
    char longname[301];
    memset(longname, 'n', 300);
    longname[300] = 0;
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    cr_assert_not_null(f);
    fprintf(f, "{\"traceEvents\": [\n"
               /* read without yajl: */
               "%s,\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\", "
               "\"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 5, \"args\": {\"correlation\": 8, \"Collective name\": \"allreduce\", "
               "\"In msg nelems\": 1048576, \"Out msg nelems\": 1048576, \"Group size\": 2, \"dtype\": \"Float\", "
               "\"Process Group Name\": \"0\", \"Process Group Ranks\": \"[0, 1]\", \"Seq\": 3}},\n"
               "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 6, \"dur\": 1, "
               "\"args\": {\"External id\": 10, \"Input Dims\": [[2, 3], [3, 4], []], \"Input type\": [\"float\", \"float\", \"\"], "
               "\"Concrete Inputs\": [\"\", \"\", \"1\"]}},\n"
               "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": -4.25, "
               "\"dur\": 1.5e1, \"args\": {\"correlation\": 7, \"External id\": 10, \"flag\": true, \"off\": false, \"n\": null, "
               "\"e\": -1.5E+3, \"o\": {}, \"a\": []}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"caf\xc3\xa9_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1e1, \"dur\": 0.5},\n"
               "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 100},\n"
               "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 8, "
               "\"ts\": 40, \"dur\": 2, \"args\": {\"correlation\": 9, \"bytes\": 4096}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"dup\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 2, \"ts\": 50},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": 60, \"dur\": 2},\n"
               /* to yajl: an escape, nesting deeper than the check follows, more tokens than it holds, the last */
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"esc\\\"aped\", \"pid\": 0, \"tid\": 7, \"ts\": 70, \"dur\": 2},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"deep\", \"pid\": 0, \"tid\": 7, \"ts\": 80, \"dur\": 2, \"args\": {\"d\": %s}},\n"
               "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 7, \"dur\": 1, "
               "\"args\": {\"External id\": 11, \"Input Dims\": [%s]}},\n"
               "%s\n]}",
            KERNEL("10", "2"), longname, deep, dims, KERNEL("90", "2"));
    cr_assert_eq(fclose(f), 0);
    tc_trace whole, bytewise;
    cr_assert_eq(tc_trace_init(&whole, "test"), 0);
    cr_assert_eq(tc_trace_init(&bytewise, "test"), 0);
    tc_ct_parser *p = tc_ct_parser_new(&whole), *p1 = tc_ct_parser_new(&bytewise);
    cr_assert_eq(tc_ct_parser_feed(p, doc, len), 0);
    cr_assert_eq(tc_ct_parser_finish(p), 0);
    for (size_t i = 0; i < len; i++) cr_assert_eq(tc_ct_parser_feed(p1, doc + i, 1), 0);
    cr_assert_eq(tc_ct_parser_finish(p1), 0);
    cr_assert_eq(tc_ct_parser_emitted(p), 9, "%llu emitted", (unsigned long long)tc_ct_parser_emitted(p));
    cr_assert_eq(tc_ct_parser_emitted(p1), 0);
    tu_assert_same_trace(&whole, &bytewise, "emitted");
    cr_assert_eq(whole.events_total, 13);
    cr_assert_eq(whole.n_gpu, 9, "%zu", whole.n_gpu);
    cr_assert_eq(whole.n_ops, 2, "both aten::mm");
    cr_assert_eq(whole.n_cpu_steps, 1);
    cr_assert_eq(whole.n_launches, 1);
    cr_assert_eq(whole.launches[0].ts_ns, -4250);
    cr_assert_eq(whole.launches[0].dur_ns, 15000);
    tc_ct_parser_free(p);
    tc_ct_parser_free(p1);
    tc_trace_free(&whole);
    tc_trace_free(&bytewise);
    free(doc);
}

Test(parser, record_param_comms_args_are_kept_whole_or_byte_wise) {
    /* record_param_comms keeps its collective args (for kernels without their own); another op
     * with such args is a host span only, whether the check before yajl or yajl reads it (a fuzz
     * find: the check left it out, yajl kept its args) */
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c10d::allreduce_\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 9, "
        "\"args\": {\"External id\": 4, \"Collective name\": \"allreduce\", \"Group size\": 2}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 5, "
        "\"args\": {\"External id\": 5, \"Collective name\": \"allreduce\", \"Group size\": 2, \"Seq\": 1, "
        "\"Process Group Name\": \"0\", \"Process Group Ranks\": \"[0, 1]\"}},\n"
        KERNEL("10", "2") "\n]}";
    tc_trace whole, bytewise;
    uint64_t fast, fast1, at;
    cr_assert_eq(parse_counting_skips(doc, &whole, 0, &fast, &at), 0);
    cr_assert_eq(parse_counting_skips(doc, &bytewise, 1, &fast1, &at), 0);
    cr_assert_eq(fast, 1, "the other op is a host span left out before yajl");
    tu_assert_same_trace(&whole, &bytewise, "record_param_comms");
    cr_assert_eq(whole.n_op_colls, 1);
    cr_assert_eq(whole.op_colls[0].external_id, 5);
    cr_assert_eq(whole.colls[whole.op_colls[0].coll].seq, 1);
    cr_assert_eq(whole.n_host, 2);
    tc_trace_free(&whole);
    tc_trace_free(&bytewise);
}

Test(parser, runtime_calls_and_host_spans_keep_name_duration_and_thread) {
    const char *doc =
        "{\"traceEvents\": [\n  "
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::item\", \"pid\": 7, \"tid\": \"7\", \"ts\": 10, \"dur\": 30},\n  "
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 7, \"tid\": 7, "
        "\"ts\": 12, \"dur\": 25.5, \"args\": {\"correlation\": 41, \"External id\": 3}},\n  "
        "{\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernel\", \"pid\": 7, \"tid\": 8, "
        "\"ts\": 50, \"dur\": 4, \"args\": {\"correlation\": 42}},\n  "
        "{\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"aten::add\", \"pid\": 7, \"tid\": 8, \"ts\": 49, \"dur\": 6},\n  "
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f\", \"pid\": 7, \"tid\": 8, \"ts\": 40, \"dur\": 60}\n]}";
    for (size_t chunk = 0; chunk < 3; chunk++) {
        tc_trace t;
        cr_assert_eq(parse_doc(doc, &t, chunk), 0);
        cr_assert_eq(t.n_launches, 2);
        cr_assert_str_eq(tc_trace_str(&t, t.launches[0].name), "cudaStreamSynchronize");
        cr_assert_eq(t.launches[0].ts_ns, 12000);
        cr_assert_eq(t.launches[0].dur_ns, 25500);
        cr_assert_eq(t.launches[0].external_id, 3);
        cr_assert_str_eq(tc_trace_str(&t, t.launches[1].name), "cuLaunchKernel");
        cr_assert_eq(t.n_host, 2, "the op and the old Operator; no Python function");
        /* one thread: pid 7 tid 7, whether the tid is a number or a string */
        cr_assert_eq(t.host[0].thread, t.launches[0].thread);
        cr_assert_eq(t.host[1].thread, t.launches[1].thread);
        cr_assert_neq(t.host[0].thread, t.host[1].thread);
        cr_assert_str_eq(tc_trace_str(&t, t.host[1].name), "aten::add");
        tc_trace_free(&t);
    }
}

Test(parser, broken_event_that_looks_skippable_is_reported_like_any_other) {
    /* "01" is not a JSON number: the flat check refuses the event and yajl reports it */
    const char *doc = "{\"traceEvents\": [\n  " KERNEL("10", "2") ",\n  {\"ph\": \"s\", \"ts\": 01},\n  " KERNEL("20", "2") "]}";
    tc_trace whole, bytewise;
    uint64_t fast = 0, at = 0, at1 = 0;
    cr_assert_neq(parse_counting_skips(doc, &whole, 0, &fast, &at), 0);
    cr_assert_eq(fast, 0);
    cr_assert_neq(parse_counting_skips(doc, &bytewise, 1, &fast, &at1), 0);
    uint64_t bad = (uint64_t)(strstr(doc, "01}") - doc);
    cr_assert(at >= bad && at <= bad + 2, "error at %llu, the bad number at %llu", (unsigned long long)at, (unsigned long long)bad);
    cr_assert(at1 + 2 >= bad && at1 <= bad + 2, "byte-wise: error at %llu", (unsigned long long)at1);
    cr_assert_eq(whole.events_total, bytewise.events_total);
    tc_trace_free(&whole);
    tc_trace_free(&bytewise);
}

static void write_file(const char *path, const char *text, bool gzip) {
    if (gzip) {
        gzFile g = gzopen(path, "wb");
        cr_assert(g);
        gzwrite(g, text, (unsigned)strlen(text));
        gzclose(g);
    } else {
        FILE *f = fopen(path, "wb");
        cr_assert(f);
        fputs(text, f);
        fclose(f);
    }
}

Test(parser, gzip_is_detected_by_magic_not_by_name) {
    char *dir = tu_tmpdir();
    char plain_gz_name[512], gz_plain_name[512];
    snprintf(plain_gz_name, sizeof plain_gz_name, "%s/plain.json.gz", dir);  /* plain text named .gz */
    snprintf(gz_plain_name, sizeof gz_plain_name, "%s/packed.json", dir);    /* gzip named .json */
    const char *doc = "[" KERNEL("1", "2") "," KERNEL("4", "2") "]";
    write_file(plain_gz_name, doc, false);
    write_file(gz_plain_name, doc, true);
    const char *paths[] = {plain_gz_name, gz_plain_name};
    for (int i = 0; i < 2; i++) {
        tc_trace t;
        char msg[512];
        cr_assert_eq(tc_trace_init(&t, paths[i]), 0);
        cr_assert_eq(tc_load_trace(&t, paths[i], NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s: %s", paths[i], msg);
        cr_assert_eq(t.n_gpu, 2);
        tc_trace_free(&t);
    }
    free(dir);
}

Test(parser, event_look_alike_inside_a_string_is_not_an_element) {
    /* found by the fuzzer: after an event, a string that runs past "..., {" makes the next bytes
     * look like an element after a comma; yajl is still inside the string (and reports the string
     * where a ',' belongs). Whole and byte at a time must fail at the same byte with the same count. */
    const char *doc = "{\"traceEvents\": [\n  " KERNEL("10", "2") "\"junk, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                      "\"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1},\n  " KERNEL("20", "2") "]}";
    tc_trace whole, bytewise;
    uint64_t fast = 0, fast1 = 0, at = 0, at1 = 0;
    cr_assert_neq(parse_counting_skips(doc, &whole, 0, &fast, &at), 0);
    cr_assert_neq(parse_counting_skips(doc, &bytewise, 1, &fast1, &at1), 0);
    cr_assert_eq(fast, 0, "nothing is handled before yajl");
    cr_assert_eq(at, at1, "error at %llu whole, %llu byte at a time", (unsigned long long)at, (unsigned long long)at1);
    cr_assert_eq(whole.events_total, bytewise.events_total);
    cr_assert_eq(whole.n_host, bytewise.n_host);
    tc_trace_free(&whole);
    tc_trace_free(&bytewise);
}

/* Parses the file at path into t fed in chunks of `chunk` bytes (0: whole); returns the events
 * handled before yajl, and in *emitted (when not NULL) those read without yajl. */
static uint64_t parse_file_chunked(const char *path, tc_trace *t, size_t chunk, uint64_t *emitted) {
    size_t len;
    char *doc = tu_read_file(path, &len);
    cr_assert_eq(tc_trace_init(t, "layout"), 0);
    tc_ct_parser *p = tc_ct_parser_new(t);
    size_t step = chunk ? chunk : len;
    for (size_t off = 0; off < len; off += step)
        cr_assert_eq(tc_ct_parser_feed(p, doc + off, off + step > len ? len - off : step), 0, "%s", path);
    cr_assert_eq(tc_ct_parser_finish(p), 0, "%s", path);
    uint64_t fast = tc_ct_parser_fast_skipped(p);
    if (emitted) *emitted = tc_ct_parser_emitted(p);
    tc_ct_parser_free(p);
    free(doc);
    return fast;
}

Test(parser, every_layout_parses_the_same_whole_and_a_byte_at_a_time) {
    /* Kineto's layout, one line, indent 4, indent 2 with sorted keys ("args" first): whole, about
     * 40 % of the events are handled before yajl in each, and all but the last of the others are
     * read without yajl (emitted); a byte at a time, none is; in chunks of 4093 bytes, some are.
     * The same records either way. */
    static const char *const layouts[] = {"kineto", "oneline", "indent4", "indent2sorted"};
    char *dir = tu_tmpdir();
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        char path[512];
        tu_gen_layout(dir, layouts[l], path, sizeof path);
        tc_trace whole, bytewise, chunked;
        uint64_t emitted, emitted_bytewise, emitted_chunked;
        uint64_t fast = parse_file_chunked(path, &whole, 0, &emitted);
        cr_assert_eq(parse_file_chunked(path, &bytewise, 1, &emitted_bytewise), 0, "%s", layouts[l]);
        cr_assert_eq(emitted_bytewise, 0, "%s", layouts[l]);
        parse_file_chunked(path, &chunked, 4093, &emitted_chunked);
        cr_assert_gt(emitted_chunked, 0, "%s", layouts[l]);
        cr_assert_gt(fast * 10, whole.events_total * 3, "%s: %llu of %llu events handled before yajl", layouts[l],
                     (unsigned long long)fast, (unsigned long long)whole.events_total);
        cr_assert_gt((fast + emitted) * 100, whole.events_total * 99, "%s: %llu + %llu of %llu events without yajl",
                     layouts[l], (unsigned long long)fast, (unsigned long long)emitted,
                     (unsigned long long)whole.events_total);
        tu_assert_same_trace(&whole, &bytewise, layouts[l]);
        tu_assert_same_trace(&whole, &chunked, layouts[l]);
        tc_trace_free(&whole);
        tc_trace_free(&bytewise);
        tc_trace_free(&chunked);
    }
    cr_assert_eq(tu_sh(NULL, "rm -rf %s", dir), 0);
    free(dir);
}

/* Parses doc (len bytes: it may hold NUL-free control bytes) in chunks of `chunk` (0 = whole):
 * finish's rc (or the feed's), the events read without yajl and the error offset on failure. */
static int parse_len(const char *doc, size_t n, tc_trace *t, size_t chunk, uint64_t *emitted, uint64_t *err_at) {
    cr_assert_eq(tc_trace_init(t, "test"), 0);
    tc_ct_parser *p = tc_ct_parser_new(t);
    size_t step = chunk ? chunk : n;
    int rc = 0;
    for (size_t off = 0; off < n && rc == 0; off += step)
        rc = tc_ct_parser_feed(p, doc + off, off + step > n ? n - off : step);
    if (rc == 0) rc = tc_ct_parser_finish(p);
    *emitted = tc_ct_parser_emitted(p) + tc_ct_parser_fast_skipped(p);
    *err_at = rc ? tc_ct_parser_error_offset(p) : UINT64_MAX;
    tc_ct_parser_free(p);
    return rc;
}

static bool has_warning(const tc_trace *t, const char *part) {
    for (size_t i = 0; i < t->n_warnings; i++)
        if (strstr(t->warnings[i], part)) return true;
    return false;
}

Test(parser, null_after_a_value_makes_the_key_missing_on_every_path) {
    /* the last value wins, and null is no value (docs/damage.md): a kernel whose "dur", "ts" or "ph"
     * ends null is skipped as without it; one whose "cat" ends null is no kernel; a "dur" null
     * then 5 is 5. Whole (read without yajl) and in chunks of 1..31 bytes (yajl): the same. */
    const char *doc =
        "{\"deviceProperties\": [{\"id\": 0, \"id\": null, \"name\": \"H100\"}], \"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,\"dur\":null},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":7,\"ts\":20,\"ts\":null,\"dur\":5},\n"
        "{\"ph\":\"X\",\"ph\":null,\"cat\":\"kernel\",\"name\":\"c\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"cat\":null,\"name\":\"d\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":5},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":5,\"dur\":null},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"e\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":null,\"dur\":5,"
        "\"args\":{\"correlation\":4,\"correlation\":null}},\n"
        KERNEL("60", "1") "\n], \"baseTimeNanoseconds\": 1000, \"baseTimeNanoseconds\": null}";
    tc_trace whole;
    uint64_t emitted, at;
    cr_assert_eq(parse_len(doc, strlen(doc), &whole, 0, &emitted, &at), 0);
    cr_assert_eq(emitted, 6, "all but the last event read without yajl: %llu", (unsigned long long)emitted);
    cr_assert_eq(whole.n_gpu, 2, "e and k: %zu", whole.n_gpu);
    cr_assert_str_eq(tc_trace_str(&whole, whole.gpu[0].name), "e");
    cr_assert_eq(whole.gpu[0].dur_ns, 5000);
    cr_assert_eq(whole.gpu[0].correlation, TC_NONE, "the correlation ends null");
    cr_assert_eq(whole.n_host, 0, "the op whose dur ends null is skipped");
    cr_assert_eq(whole.events_skipped, 4, "%llu", (unsigned long long)whole.events_skipped);
    cr_assert(has_warning(&whole, "skipped 2 complete events without \"dur\""));
    cr_assert(has_warning(&whole, "skipped 1 complete events without \"ts\""));
    cr_assert(has_warning(&whole, "skipped 1 events without \"ph\""));
    cr_assert(!whole.has_base, "the base ends null");
    cr_assert_eq(whole.n_devices, 0, "a device whose id ends null is no device");
    for (size_t chunk = 1; chunk <= 31; chunk++) {
        tc_trace t;
        cr_assert_eq(parse_len(doc, strlen(doc), &t, chunk, &emitted, &at), 0, "chunk %zu", chunk);
        tu_assert_same_trace(&whole, &t, "null keys");
        cr_assert_eq(t.events_skipped, whole.events_skipped, "chunk %zu", chunk);
        tc_trace_free(&t);
    }
    tc_trace_free(&whole);
}

Test(parser, byte_order_mark_is_passed_over_with_a_note) {
    /* RFC 8259 lets a parser ignore a leading UTF-8 BOM: the trace parses as without it, with a
     * note, however the chunks cut the mark; offsets stay those of the input. Two bytes of a mark
     * are an error at byte 0, and a mark after the start is the JSON error it always was. */
    const char *plain = "{\"traceEvents\": [" KERNEL("10", "2") ",\n" KERNEL("20", "2") "]}";
    char doc[512];
    snprintf(doc, sizeof doc, "\xEF\xBB\xBF%s", plain);
    tc_trace ref, t;
    uint64_t emitted, at;
    cr_assert_eq(parse_len(plain, strlen(plain), &t, 0, &emitted, &at), 0);
    cr_assert(!has_warning(&t, "byte order mark"));
    size_t n_gpu = t.n_gpu;
    int64_t start = t.gpu[1].start_ns;
    tc_trace_free(&t);
    cr_assert_eq(parse_len(doc, strlen(doc), &ref, 0, &emitted, &at), 0);
    cr_assert_eq(emitted, 1, "the first event is read without yajl after the mark");
    cr_assert_eq(ref.n_gpu, n_gpu);
    cr_assert_eq(ref.gpu[1].start_ns, start);
    cr_assert_eq(ref.n_warnings, 1);
    for (size_t chunk = 1; chunk <= 31; chunk++) {
        cr_assert_eq(parse_len(doc, strlen(doc), &t, chunk, &emitted, &at), 0, "chunk %zu", chunk);
        tu_assert_same_trace(&ref, &t, "bom");
        cr_assert(has_warning(&t, "skipped a UTF-8 byte order mark"), "chunk %zu", chunk);
        tc_trace_free(&t);
    }
    /* an error after the mark is placed in the input's bytes */
    const char *bad = "\xEF\xBB\xBF{\"traceEvents\": [01]}";
    for (size_t chunk = 0; chunk <= 31; chunk++) {
        cr_assert_neq(parse_len(bad, strlen(bad), &t, chunk, &emitted, &at), 0);
        cr_assert(at >= 20 && at <= 22, "chunk %zu: error at %llu", chunk, (unsigned long long)at);
        tc_trace_free(&t);
    }
    static const char *const broken[] = {"\xEF\xBB{}", "\xEF{}", "\xEF\xBB", " \xEF\xBB\xBF{}"};
    for (size_t b = 0; b < 4; b++)
        for (size_t chunk = 0; chunk <= 31; chunk++) {
            cr_assert_neq(parse_len(broken[b], strlen(broken[b]), &t, chunk, &emitted, &at), 0, "%zu chunk %zu", b, chunk);
            cr_assert_eq(at, b == 3 ? 1 : 0, "%zu chunk %zu: error at %llu", b, chunk, (unsigned long long)at);
            tc_trace_free(&t);
        }
    tc_trace_free(&ref);
}

Test(parser, only_json_whitespace_between_tokens) {
    /* yajl takes \v and \f for whitespace; JSON does not (RFC 8259: space, tab, LF, CR), nor may a
     * string hold them raw: an error at their byte on every path, unless an earlier error stands;
     * \r and \t stay whitespace */
    const char *ok = "{\"traceEvents\":\r\t[" KERNEL("10", "2") ",\r\n\t" KERNEL("20", "2") "]}";
    tc_trace t;
    uint64_t emitted, at;
    cr_assert_eq(parse_len(ok, strlen(ok), &t, 0, &emitted, &at), 0);
    cr_assert_eq(t.n_gpu, 2);
    tc_trace_free(&t);
    const char *const seps[] = {"\v", "\f"};
    for (size_t s = 0; s < 2; s++) {
        char docs[4][512];
        size_t want[4];
        /* between events (an event the scanner reads follows), inside an event, before the
         * document, inside a string */
        want[0] = (size_t)snprintf(docs[0], 512, "{\"traceEvents\": [" KERNEL("10", "2") ",") ;
        snprintf(docs[0] + want[0], 512 - want[0], "%s" KERNEL("20", "2") "," KERNEL("30", "2") "]}", seps[s]);
        want[1] = (size_t)snprintf(docs[1], 512, "{\"traceEvents\": [" KERNEL("10", "2") ", {\"ph\":");
        snprintf(docs[1] + want[1], 512 - want[1], "%s\"X\"}," KERNEL("30", "2") "]}", seps[s]);
        want[2] = 0;
        snprintf(docs[2], 512, "%s{\"traceEvents\": []}", seps[s]);
        want[3] = (size_t)snprintf(docs[3], 512, "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"a");
        snprintf(docs[3] + want[3], 512 - want[3], "%sb\"}]}", seps[s]);
        for (size_t d = 0; d < 4; d++)
            for (size_t chunk = 0; chunk <= 31; chunk++) {
                cr_assert_neq(parse_len(docs[d], strlen(docs[d]), &t, chunk, &emitted, &at), 0, "%zu/%zu chunk %zu", s, d, chunk);
                cr_assert_eq(at, want[d], "%zu/%zu chunk %zu: error at %llu", s, d, chunk, (unsigned long long)at);
                tc_trace_free(&t);
            }
    }
    /* an earlier error is reported first, whatever the chunks */
    const char *both = "{\"traceEvents\": [01,\f]}";
    for (size_t chunk = 0; chunk <= 31; chunk++) {
        cr_assert_neq(parse_len(both, strlen(both), &t, chunk, &emitted, &at), 0);
        cr_assert(at >= 17 && at <= 19, "chunk %zu: error at %llu", chunk, (unsigned long long)at);
        tc_trace_free(&t);
    }
}
