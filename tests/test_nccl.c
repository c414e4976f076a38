/* test_nccl.c: NCCL Inspector logs (issue 32, docs/nccl.md): the reader on the hand-made file of
 * tests/data/nccl (every layout and damage it holds), and the join on a planted TP+DP job
 * (tracegen --nccl-inspector): every count and NCCL's busbw held to the plant, through a trace
 * folder and through --nccl; without logs the JSON has no nccl keys. The example profiler plugin's
 * trace: the hand-made older spelling read leniently, and a planted job's plugin traces
 * (tracegen --nccl-plugin-trace) joined, alone and beside Inspector logs; the p2p_perf records of a
 * planted pipeline (tracegen --pp --nccl-inspector) joined to its SendRecv kernels. */
#include "testutil.h"
#include "parsers/nccl_inspector.h"
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#define HAND "tests/data/nccl/example-hostname-pid1639453.log"
#define PLUGIN_HAND "tests/data/nccl/example_profile_12715772615376301750_0.json"
#define PLUGIN_OLD "tests/data/nccl/example_profile-example-host.cluster-3937391.txt"
#define INSPECTOR_V42 "tests/data/nccl/example-host-pid2400117.log"
#define PROM_HAND "tests/data/nccl/nccl_inspector_metrics_GPU-1b2c3d4e-77aa-4a1b-9e2f-5c6d7e8f9a0b.prom"

static uint64_t offset_of(const char *text, const char *needle) {
    const char *p = strstr(text, needle);
    cr_assert_not_null(p, "%s", needle);
    while (p > text && p[-1] != '\n') p--; /* the line's (the object's) start */
    return (uint64_t)(p - text);
}

static bool has_note(const tc_notes *n, const char *part) {
    for (size_t i = 0; i < n->n; i++)
        if (strstr(n->v[i].text, part)) return true;
    return false;
}

Test(nccl, reads_every_layout_and_skips_damage_with_its_offset) {
    tc_nccl_log log;
    tc_notes notes;
    tc_error e;
    memset(&log, 0, sizeof log);
    memset(&notes, 0, sizeof notes);
    cr_assert_eq(tc_nccl_inspector_read(HAND, &log, &notes, &e), TC_OK, "%s", e.msg);
    cr_assert_eq(log.n_files, 1);
    cr_assert_eq(log.n_records, 4, "pretty, compact, verbose, other communicator: %zu", log.n_records);
    cr_assert_eq(log.files[0].skipped, 4);
    cr_assert_str_eq(log.files[0].version, "v4.0");
    cr_assert_str_eq(log.files[0].hostname, "example-hostname");
    cr_assert_eq(log.files[0].pid, 1639453);
    const tc_nccl_record *r = log.records;
    cr_assert_eq(r[0].comm_id, 0x7f8c496ae9f661ULL);
    cr_assert_eq(r[0].rank, 2);
    cr_assert_eq(r[0].n_ranks, 8);
    cr_assert_eq(r[0].nnodes, 1);
    cr_assert_eq(r[0].coll, TC_NCCL_ALLREDUCE);
    cr_assert_eq(r[0].sn, 1407);
    cr_assert_eq(r[0].bytes, 17179869184LL);
    cr_assert_eq(r[0].exec_us, 61974);
    cr_assert_eq(r[0].timing, TC_NCCL_TIMING_KERNEL_GPU);
    cr_assert_eq(r[0].dump_us, 1748030377748202LL);
    cr_assert_eq(r[1].sn, 1408);
    cr_assert_eq(r[2].coll, TC_NCCL_REDUCESCATTER);
    cr_assert_eq(r[2].timing, TC_NCCL_TIMING_KERNEL_CPU);
    cr_assert_eq(r[3].comm_id, 0x1b2c3dULL);
    cr_assert_eq(r[3].n_ranks, 2);
    char *text = tu_read_file(HAND, NULL);
    char want[160];
    snprintf(want, sizeof want, "byte %llu: not an NCCL Inspector record (a number expected)",
             (unsigned long long)offset_of(text, "\"coll_sn\":}"));
    cr_assert(has_note(&notes, want), "%s", want);
    snprintf(want, sizeof want, "byte %llu: text outside a JSON object", (unsigned long long)offset_of(text, "NCCL INFO"));
    cr_assert(has_note(&notes, want), "%s", want);
    cr_assert(has_note(&notes, "(no coll_sn, coll_msg_size_bytes or coll_exec_time_us): record skipped"));
    snprintf(want, sizeof want, "byte %llu: the last record is cut short", (unsigned long long)(strrchr(text, '\n') + 1 - text));
    cr_assert(has_note(&notes, want), "%s", want);
    for (size_t i = 0; i < notes.n; i++) cr_assert_eq(notes.v[i].code, TC_NOTE_DAMAGED);
    free(text);
    tc_notes_free(&notes);
    tc_nccl_log_free(&log);
}

Test(nccl, recognised_by_content) {
    cr_assert(tc_nccl_inspector_sniff("{\n  \"header\": {", strlen("{\n  \"header\": {")));
    cr_assert(tc_nccl_inspector_sniff("{\"header\":{\"id\":\"0x1\"", strlen("{\"header\":{\"id\":\"0x1\"")));
    cr_assert_not(tc_nccl_inspector_sniff("{\"traceEvents\": [", strlen("{\"traceEvents\": [")));
    cr_assert_not(tc_nccl_inspector_sniff("[{\"header\":", strlen("[{\"header\":")));
    tc_nccl_log log;
    tc_notes notes;
    tc_error e;
    memset(&log, 0, sizeof log);
    memset(&notes, 0, sizeof notes);
    cr_assert_eq(tc_nccl_inspector_read("tests/data/small/one_nccl_kernel.json", &log, &notes, &e), TC_ERR_INPUT);
    cr_assert(strstr(e.msg, "not an NCCL Inspector log"), "%s", e.msg);
    cr_assert_eq(log.n_files, 0);
    tc_nccl_log_free(&log);
}

Test(nccl, reads_the_old_plugin_spelling_leniently) {
    tc_nccl_log log;
    memset(&log, 0, sizeof log);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_error e;
    cr_assert_eq(tc_nccl_inspector_read(PLUGIN_HAND, &log, &notes, &e), TC_OK, "%s", e.msg);
    cr_assert_eq(log.n_files, 1);
    cr_assert(log.files[0].plugin);
    cr_assert(log.files[0].lenient, "unquoted ncclBfloat16 and bare 0x pointers are not JSON");
    cr_assert_eq(log.files[0].pid, 3937375);
    cr_assert_eq(log.files[0].skipped, 1, "the COLL event without CommHash");
    cr_assert_eq(notes.n, 1);
    cr_assert(strstr(notes.v[0].text, "byte ") && strstr(notes.v[0].text, "without SeqNum, CommHash"), "%s", notes.v[0].text);
    cr_assert_eq(log.n_records, 2);
    const tc_nccl_record *r = log.records;
    cr_assert_eq(r[0].comm_id, 12715772615376301750ULL, "all 64 bits of CommHash");
    cr_assert_eq(r[0].sn, 7);
    cr_assert_eq(r[0].coll, TC_NCCL_ALLREDUCE);
    cr_assert_eq(r[0].bytes, 268435456LL * 2, "Count x ncclBfloat16");
    cr_assert_eq(r[0].dump_us, 1804052, "the COLL event's ts");
    cr_assert(r[0].plugin);
    cr_assert_eq(r[1].coll, TC_NCCL_ALLGATHER);
    cr_assert_eq(r[1].sn, 3);
    cr_assert_eq(r[1].bytes, 1048576LL * 4, "Datatype 7 = ncclFloat32 (per rank until the join knows the size)");
    cr_assert_eq(log.n_mixes, 2);
    const tc_nccl_mix *m0 = &log.mixes[r[0].mix], *m1 = &log.mixes[r[1].mix];
    cr_assert_str_eq(m0->algorithm, "RING");
    cr_assert_str_eq(m0->protocol, "SIMPLE");
    cr_assert_eq(m0->channels, 16, "nMaxChannels");
    cr_assert_str_eq(m1->protocol, "LL128");
    cr_assert_eq(m1->channels, 4);
    /* its one NET step state under the AllReduce: SendGpuWait 8 µs, the step not ended */
    cr_assert_eq(log.n_proxies, 1);
    cr_assert_eq(log.proxies[0].sn, 7);
    cr_assert_eq(log.proxies[0].comm_id, 12715772615376301750ULL);
    cr_assert_eq(log.proxies[0].steps, 0);
    cr_assert_float_eq(log.proxies[0].ns[TC_NCCL_PX_GPU], 8000, 1e-6);
    tc_notes_free(&notes);
    tc_nccl_log_free(&log);
    /* recognised by content: the plugin's array, not a Kineto trace nor an Inspector log */
    cr_assert(tc_nccl_plugin_sniff("[\n{\"name\": \"Group API\", \"cat\": \"GROUP_API\", \"ph\": \"b\"}", strlen("[\n{\"name\": \"Group API\", \"cat\": \"GROUP_API\", \"ph\": \"b\"}")));
    cr_assert_not(tc_nccl_plugin_sniff("{\"traceEvents\": [", strlen("{\"traceEvents\": [")));
    cr_assert_not(tc_nccl_plugin_sniff("[{\"name\": \"aten::mm\", \"cat\": \"cpu_op\"}", strlen("[{\"name\": \"aten::mm\", \"cat\": \"cpu_op\"}")));
    cr_assert_not(tc_nccl_inspector_sniff("[\n{\"name\": \"Group API\", \"cat\": \"GROUP_API\"}", strlen("[\n{\"name\": \"Group API\", \"cat\": \"GROUP_API\"}")));
}

/* ---- the planted job ------------------------------------------------------------------------- */

static yajl_val at(yajl_val v, const char *a, const char *b) {
    const char *p[] = {a, b, NULL};
    return yajl_tree_get(v, p, yajl_t_any);
}

static const char *planted(void) {
    static char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/nccl-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --ranks 8 --tp 4 --steps 4 --gpus-per-node 4 --nccl-inspector", dir,
                       tu_gen(), dir), 0);
    return dir;
}

static bool same_str(yajl_val a, yajl_val b);

/* A group's inspector_mix rows (format v4.2) against the planted ones, in any order (channels null
 * on the records that are not verbose). */
static void check_inspector_mix(const char *name, yajl_val got, yajl_val want) {
    if (!YAJL_IS_ARRAY(want) || !want->u.array.len) {
        cr_assert(!got || (YAJL_IS_ARRAY(got) && !got->u.array.len), "group %s: no choice planted", name);
        return;
    }
    cr_assert(YAJL_IS_ARRAY(got) && got->u.array.len == want->u.array.len, "group %s: inspector_mix rows", name);
    for (size_t k = 0; k < want->u.array.len; k++) {
        yajl_val x = want->u.array.values[k];
        bool found = false;
        for (size_t q = 0; q < got->u.array.len && !found; q++) {
            yajl_val y = got->u.array.values[q], xc = at(x, "channels", NULL), yc = at(y, "channels", NULL);
            found = same_str(at(y, "algorithm", NULL), at(x, "algorithm", NULL)) &&
                    same_str(at(y, "protocol", NULL), at(x, "protocol", NULL)) &&
                    (YAJL_IS_NULL(xc) ? YAJL_IS_NULL(yc) : YAJL_IS_INTEGER(yc) && YAJL_GET_INTEGER(yc) == YAJL_GET_INTEGER(xc)) &&
                    YAJL_GET_INTEGER(at(y, "records", NULL)) == YAJL_GET_INTEGER(at(x, "records", NULL));
        }
        cr_assert(found, "group %s: planted inspector_mix row %zu not reported", name, k);
    }
}

/* Every process group's nccl against nccl_expected.json; the job's sums and records outside the window too. */
static void check_against_plant(const char *dir, yajl_val res) {
    char path[512];
    snprintf(path, sizeof path, "%s/nccl_expected.json", dir);
    yajl_val want = tu_json_file(path);
    yajl_val groups = at(res, "process_groups", NULL), wg = at(want, "groups", NULL);
    cr_assert(YAJL_IS_ARRAY(groups) && YAJL_IS_OBJECT(wg));
    int64_t joined = 0, below = 0, dropped = 0, cpu = 0;
    size_t checked = 0;
    for (size_t i = 0; i < groups->u.array.len; i++) {
        yajl_val g = groups->u.array.values[i];
        const char *name = YAJL_GET_STRING(at(g, "name", NULL));
        yajl_val w = at(wg, name, NULL), n = at(g, "nccl", NULL);
        cr_assert_not_null(w, "group %s not planted", name);
        cr_assert(YAJL_IS_OBJECT(n), "group %s has no nccl object", name);
        int64_t wj = YAJL_GET_INTEGER(at(w, "joined", NULL)), wb = YAJL_GET_INTEGER(at(w, "below_min_size", NULL)),
                wd = YAJL_GET_INTEGER(at(w, "dropped", NULL)), wc = YAJL_GET_INTEGER(at(w, "cpu_timed", NULL));
        yajl_val un = at(n, "unjoined", NULL);
        cr_assert_eq(YAJL_GET_INTEGER(at(n, "inspector_joined", NULL)), wj, "group %s joined", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "below_min_size", NULL)), wb, "group %s below", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "dropped", NULL)), wd, "group %s dropped", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "cpu_timed", NULL)), wc, "group %s cpu_timed", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "size_mismatch", NULL)), 0);
        joined += wj; below += wb; dropped += wd; cpu += wc;
        check_inspector_mix(name, at(n, "inspector_mix", NULL), at(w, "inspector_mix", NULL));
        yajl_val wbw = at(w, "busbw_GBps", NULL), bw = at(n, "busbw_GBps", NULL);
        if (YAJL_IS_NULL(wbw)) cr_assert(YAJL_IS_NULL(bw), "group %s busbw", name);
        else {
            double x = YAJL_GET_DOUBLE(bw), y = YAJL_GET_DOUBLE(wbw);
            cr_assert(fabs(x - y) <= 1e-9 * y, "group %s NCCL busbw %.12g, planted %.12g", name, x, y);
            cr_assert(YAJL_IS_NUMBER(at(n, "trace_busbw_GBps", NULL)), "the trace's busbw beside it");
            cr_assert(YAJL_IS_STRING(at(n, "communicator_id", NULL)));
        }
        checked++;
    }
    cr_assert_gt(checked, 4);
    cr_assert_gt(joined, 100);
    cr_assert_gt(below, 0);
    cr_assert_gt(dropped, 0);
    cr_assert_gt(cpu, 0);
    yajl_val sn = at(at(res, "summary", NULL), "nccl", NULL);
    cr_assert(YAJL_IS_OBJECT(sn));
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "inspector_joined", NULL)), joined);
    cr_assert_eq(YAJL_GET_INTEGER(at(at(sn, "unjoined", NULL), "dropped", NULL)), dropped);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "inspector_files", NULL)), 8);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "records_unplaced", NULL)), 0);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "records_outside_trace", NULL)),
                 YAJL_GET_INTEGER(at(want, "records_outside_trace", NULL)));
    yajl_val ring = at(sn, "inspector_ring_dropped", NULL);
    if (ring) cr_assert_eq(YAJL_GET_INTEGER(ring), dropped, "v4.2: NCCL's own count of the records its ring dropped");
    yajl_tree_free(want);
}

Test(nccl, planted_job_from_the_trace_folder, .timeout = 120) {
    const char *dir = planted();
    char args[600];
    snprintf(args, sizeof args, "'%s'", dir); /* the folder: its *.log are the Inspector logs */
    yajl_val res = tu_analyze_json(args, 0);
    check_against_plant(dir, res);
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(nccl, planted_job_with_the_nccl_option, .timeout = 120) {
    const char *dir = planted();
    char args[900];
    cr_assert_eq(tu_sh(NULL, "mkdir -p '%s/logs' && mv '%s'/*.log '%s/logs/'", dir, dir, dir), 0);
    snprintf(args, sizeof args, "'%s'/rank*.pt.trace.json --nccl '%s/logs'", dir, dir);
    yajl_val res = tu_analyze_json(args, 0);
    check_against_plant(dir, res);
    yajl_tree_free(res);
    /* without the logs: no nccl keys at all (the outputs of jobs without NCCL files do not change) */
    snprintf(args, sizeof args, "'%s'/rank*.pt.trace.json", dir);
    res = tu_analyze_json(args, 0);
    cr_assert_null(at(at(res, "summary", NULL), "nccl", NULL));
    yajl_val groups = at(res, "process_groups", NULL);
    for (size_t i = 0; i < groups->u.array.len; i++) cr_assert_null(at(groups->u.array.values[i], "nccl", NULL));
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* The hand-made trace in the format before NCCL 2.27 (-hostname-tid.txt; its README): GROUP events
 * around each COLL, nMaxChannels, a Datatype's number, ProxyOp "Send"/"Recv" with their state objects,
 * the older step states; a step whose last "e" is lost; a P2P's step counted apart. */
Test(nccl, reads_the_plugin_format_before_2_27) {
    tc_nccl_log log;
    memset(&log, 0, sizeof log);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_error e;
    cr_assert(tc_nccl_file_sniff(PLUGIN_OLD), "recognised by content");
    cr_assert_eq(tc_nccl_inspector_read(PLUGIN_OLD, &log, &notes, &e), TC_OK, "%s", e.msg);
    cr_assert_eq(notes.n, 0);
    cr_assert(log.files[0].plugin);
    cr_assert_not(log.files[0].lenient, "this format is JSON");
    cr_assert_eq(log.n_records, 2);
    cr_assert_eq(log.records[0].rank, 1);
    cr_assert_eq(log.records[0].bytes, 268435456LL * 2);
    cr_assert_eq(log.records[1].bytes, 1048576LL * 4, "Datatype 7");
    cr_assert_eq(log.mixes[log.records[0].mix].channels, 16, "nMaxChannels");
    cr_assert_eq(log.n_proxies, 1, "the AllReduce's steps; the AllGather has none");
    const tc_nccl_proxy *px = &log.proxies[0];
    cr_assert_eq(px->steps, 2, "send step 0 and the receive step; send step 1 lost its SendWait end");
    cr_assert_float_eq(px->ns[TC_NCCL_PX_GPU], 15000, 1e-3, "SendGpuWait 5 + 3, RecvGpuWait 7 µs");
    cr_assert_float_eq(px->ns[TC_NCCL_PX_PEER], 0, 1e-9, "no peer state before 2.27");
    cr_assert_float_eq(px->ns[TC_NCCL_PX_NET], 28000, 1e-3, "SendWait 10, RecvWait 18 µs");
    cr_assert_float_eq(px->ns[TC_NCCL_PX_OTHER], 5000, 1e-3, "SendBufferWait 2 + 1, RecvBufferWait 1, RecvFlushWait 1 µs");
    cr_assert_eq(log.proxy_steps_p2p, 1, "the Send P2P's step");
    tc_notes_free(&notes);
    tc_nccl_log_free(&log);
}

/* The hand-made v4.2 log (its README): dump_stats read (not damage), coll_algo / coll_proto kept as
 * the record's mix, the verbose record's channels from its kernel_events, the p2p record read with
 * its fields (peer, size, exec time, sequence number). */
Test(nccl, reads_inspector_v4_2) {
    tc_nccl_log log;
    memset(&log, 0, sizeof log);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_error e;
    cr_assert_eq(tc_nccl_inspector_read(INSPECTOR_V42, &log, &notes, &e), TC_OK, "%s", e.msg);
    cr_assert_eq(log.files[0].skipped, 0, "dump_stats is no damage");
    cr_assert_eq(log.files[0].dump_stats, 1);
    cr_assert_eq(log.files[0].ring_dropped, 3);
    cr_assert_str_eq(log.files[0].version, "v4.2");
    cr_assert_eq(log.n_records, 2);
    const tc_nccl_mix *a = &log.mixes[log.records[0].mix], *b = &log.mixes[log.records[1].mix];
    cr_assert_str_eq(a->algorithm, "RING");
    cr_assert_str_eq(a->protocol, "LL128");
    cr_assert_eq(a->channels, -1, "the default form does not say the channels");
    cr_assert_str_eq(b->protocol, "SIMPLE");
    cr_assert_eq(b->channels, 2, "the verbose form's kernel_events");
    cr_assert_eq(notes.n, 0);
    cr_assert_eq(log.n_p2ps, 1);
    const tc_nccl_p2p *q = &log.p2ps[0];
    cr_assert(q->send && q->peer == 2 && q->sn == 12 && q->bytes == 1048576 && q->exec_us == 9 && q->rank == 1 &&
              q->n_ranks == 4 && q->comm_id == 0x5a1f00c2d3e4b701ULL && q->timing == TC_NCCL_TIMING_KERNEL_GPU);
    tc_notes_free(&notes);
    tc_nccl_log_free(&log);
    /* the hand-made v4.0 log's records name no algorithm; its verbose one its channel */
    memset(&log, 0, sizeof log);
    memset(&notes, 0, sizeof notes);
    cr_assert_eq(tc_nccl_inspector_read(HAND, &log, &notes, &e), TC_OK, "%s", e.msg);
    for (size_t i = 0; i < log.n_records; i++)
        if (i != 2) cr_assert_eq(log.records[i].mix, TC_NCCL_NO_MIX);
    cr_assert_eq(log.mixes[log.records[2].mix].channels, 1);
    cr_assert_str_eq(log.mixes[log.records[2].mix].algorithm, "");
    tc_notes_free(&notes);
    tc_nccl_log_free(&log);
}

/* The hand-made Prometheus textfile (its README): two collective buckets (each two lines, one row),
 * algo_proto split at its last '_', a quote escaped in a label, a cut line skipped with its offset,
 * the p2p and total lines read past. */
Test(nccl, reads_the_inspector_prometheus_file) {
    tc_nccl_log log;
    memset(&log, 0, sizeof log);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_error e;
    cr_assert(tc_nccl_file_sniff(PROM_HAND), "recognised by content");
    cr_assert_not(tc_nccl_prom_sniff("nccl-inspector is a tool\n", strlen("nccl-inspector is a tool\n")));
    cr_assert_eq(tc_nccl_inspector_read(PROM_HAND, &log, &notes, &e), TC_OK, "%s", e.msg);
    cr_assert(log.files[0].prom);
    cr_assert_eq(log.n_records, 0, "no Inspector or plugin record");
    cr_assert_eq(log.n_proms, 2);
    cr_assert_eq(log.files[0].records, 2);
    cr_assert_eq(log.files[0].prom_other, 4, "the p2p bucket's two lines, the two totals");
    cr_assert_eq(log.files[0].skipped, 1);
    char *text = tu_read_file(PROM_HAND, NULL);
    char want[160];
    snprintf(want, sizeof want, "byte %llu: not an NCCL Inspector Prometheus line (labels that cannot be read)",
             (unsigned long long)offset_of(text, "message_size=\"3-4GB}"));
    cr_assert(notes.n == 1 && strstr(notes.v[0].text, want), "%s", notes.n ? notes.v[0].text : "no note");
    free(text);
    const tc_nccl_prom *a = &log.proms[0], *b = &log.proms[1];
    cr_assert_eq(a->coll, TC_NCCL_ALLREDUCE);
    cr_assert_eq(a->n_ranks, 8);
    cr_assert_eq(a->n_nodes, 1);
    cr_assert_eq(a->device, 3);
    cr_assert_str_eq(a->node, "example-host");
    cr_assert_str_eq(a->comm_name, "unknown");
    cr_assert_eq(a->size_lo, 64LL << 20);
    cr_assert_eq(a->size_hi, 65LL << 20);
    cr_assert_str_eq(a->algorithm, "Ring");
    cr_assert_str_eq(a->protocol, "Simple");
    cr_assert_float_eq(a->busbw_GBps, 361.25, 1e-9);
    cr_assert_float_eq(a->exec_us, 325.5, 1e-9);
    cr_assert_eq(b->coll, TC_NCCL_REDUCESCATTER);
    cr_assert_str_eq(b->comm_name, "dp \"replica\"");
    cr_assert_str_eq(b->algorithm, "CollNetDirect");
    cr_assert_str_eq(b->protocol, "LL128");
    cr_assert_eq(b->size_lo, 1024);
    cr_assert_eq(b->size_hi, 2048);
    cr_assert_float_eq(b->exec_us, 19, 1e-9);
    tc_notes_free(&notes);
    tc_nccl_log_free(&log);
}

/* ---- the planted plugin traces (tracegen --nccl-plugin-trace) -------------------------------------- */

static const char *planted_with(const char *opts) {
    static char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/nccl-plugin-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --ranks 8 --tp 4 --steps 4 --gpus-per-node 4 %s", dir, tu_gen(),
                       dir, opts), 0);
    return dir;
}

static bool same_str(yajl_val a, yajl_val b) {
    if (!YAJL_IS_STRING(a) || !YAJL_IS_STRING(b)) return false;
    const char *x = a->u.string, *y = b->u.string;
    return x && y && strcmp(x, y) == 0;
}

/* A group's proxy figures against the plant: null both, or the steps, time and every share. */
static void check_proxy(const char *name, yajl_val got, yajl_val want) {
    if (!YAJL_IS_OBJECT(want)) { cr_assert(YAJL_IS_NULL(got), "group %s: no proxy steps planted", name); return; }
    cr_assert(YAJL_IS_OBJECT(got), "group %s: proxy steps planted, none reported", name);
    cr_assert_eq(YAJL_GET_INTEGER(at(got, "steps", NULL)), YAJL_GET_INTEGER(at(want, "steps", NULL)), "group %s proxy steps", name);
    double wt = YAJL_GET_DOUBLE(at(want, "time_ns", NULL));
    cr_assert(fabs(YAJL_GET_DOUBLE(at(got, "time_ns", NULL)) - wt) <= 1e-6 * wt, "group %s proxy time_ns", name);
    static const char *const shares[] = {"gpu_wait_share", "peer_wait_share", "net_share", "other_share"};
    for (size_t k = 0; k < 4; k++) {
        yajl_val g = at(got, shares[k], NULL), w = at(want, shares[k], NULL);
        double gv = YAJL_IS_INTEGER(g) ? (double)YAJL_GET_INTEGER(g) : YAJL_GET_DOUBLE(g);
        double wv = YAJL_IS_INTEGER(w) ? (double)YAJL_GET_INTEGER(w) : YAJL_GET_DOUBLE(w);
        cr_assert(fabs(gv - wv) <= 1e-9, "group %s %s: %.12f, planted %.12f", name, shares[k], gv, wv);
    }
}

/* The plugin's figures of every group against nccl_plugin_expected.json: joined, dropped, the mix
 * rows (in any order), the records outside the window and the lenient note of rank 0's files. */
static void check_plugin_plant(const char *dir, yajl_val res, int64_t files, bool lenient_files) {
    char path[512];
    snprintf(path, sizeof path, "%s/nccl_plugin_expected.json", dir);
    yajl_val want = tu_json_file(path);
    yajl_val groups = at(res, "process_groups", NULL), wg = at(want, "groups", NULL);
    int64_t joined = 0, dropped = 0, rows = 0, proxied = 0;
    for (size_t i = 0; i < groups->u.array.len; i++) {
        yajl_val g = groups->u.array.values[i];
        const char *name = YAJL_GET_STRING(at(g, "name", NULL));
        yajl_val w = at(wg, name, NULL), n = at(g, "nccl", NULL);
        cr_assert(YAJL_IS_OBJECT(n), "group %s has no nccl object", name);
        int64_t wj = YAJL_GET_INTEGER(at(w, "joined", NULL)), wd = YAJL_GET_INTEGER(at(w, "dropped", NULL));
        cr_assert_eq(YAJL_GET_INTEGER(at(n, "plugin_joined", NULL)), wj, "group %s plugin_joined", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(at(n, "plugin_unjoined", NULL), "dropped", NULL)), wd, "group %s dropped", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(at(n, "plugin_unjoined", NULL), "size_mismatch", NULL)), 0);
        cr_assert(YAJL_IS_STRING(at(n, "communicator_id", NULL)));
        yajl_val mix = at(n, "mix", NULL), wmix = at(w, "mix", NULL);
        cr_assert(YAJL_IS_ARRAY(mix) && mix->u.array.len == wmix->u.array.len, "group %s: mix rows", name);
        for (size_t k = 0; k < wmix->u.array.len; k++) {
            yajl_val x = wmix->u.array.values[k];
            bool found = false;
            for (size_t q = 0; q < mix->u.array.len && !found; q++) {
                yajl_val y = mix->u.array.values[q];
                found = same_str(at(y, "algorithm", NULL), at(x, "algorithm", NULL)) &&
                        same_str(at(y, "protocol", NULL), at(x, "protocol", NULL)) &&
                        YAJL_GET_INTEGER(at(y, "channels", NULL)) == YAJL_GET_INTEGER(at(x, "channels", NULL)) &&
                        YAJL_GET_INTEGER(at(y, "records", NULL)) == YAJL_GET_INTEGER(at(x, "records", NULL));
            }
            cr_assert(found, "group %s: planted mix row %zu not reported", name, k);
            rows++;
        }
        joined += wj; dropped += wd;
        check_proxy(name, at(n, "proxy", NULL), at(w, "proxy", NULL));
        proxied += YAJL_IS_OBJECT(at(w, "proxy", NULL));
    }
    cr_assert_gt(proxied, 0, "groups across nodes have proxy steps");
    cr_assert_gt(joined, 100);
    cr_assert_gt(dropped, 0);
    cr_assert_gt(rows, (int64_t)groups->u.array.len, "groups with more than one row");
    yajl_val sn = at(at(res, "summary", NULL), "nccl", NULL);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "plugin_files", NULL)), files);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "plugin_records_unplaced", NULL)), 0);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "plugin_records_outside_trace", NULL)),
                 YAJL_GET_INTEGER(at(want, "records_outside_trace", NULL)));
    yajl_val notes = at(sn, "notes", NULL);
    size_t lenient = 0;
    for (size_t i = 0; i < notes->u.array.len; i++)
        lenient += same_str(notes->u.array.values[i], notes->u.array.values[i]) &&
                   strstr(notes->u.array.values[i]->u.string, "not valid JSON (unquoted values): read leniently") != NULL;
    if (lenient_files) cr_assert_gt(lenient, 0, "rank 0's files are in the old spelling");
    else cr_assert_eq(lenient, 0, "the format before 2.27 is valid JSON");
    yajl_tree_free(want);
}

Test(nccl, planted_plugin_traces_from_the_trace_folder, .timeout = 120) {
    const char *dir = planted_with("--nccl-plugin-trace");
    char args[600];
    snprintf(args, sizeof args, "'%s'", dir); /* its *.json plugin traces are told from the traces by content */
    yajl_val res = tu_analyze_json(args, 0);
    int64_t files = 0;
    char *out = NULL;
    tu_sh(&out, "ls '%s' | grep -c '^nccl_profile_.*\\.json$'", dir);
    files = atoll(out);
    free(out);
    cr_assert_gt(files, 8);
    check_plugin_plant(dir, res, files, true);
    cr_assert_eq(YAJL_GET_INTEGER(at(at(at(res, "summary", NULL), "nccl", NULL), "inspector_files", NULL)), 0);
    cr_assert_eq(YAJL_GET_INTEGER(at(at(res, "summary", NULL), "ranks", NULL)), 8, "no plugin file taken for a trace");
    yajl_tree_free(res);
    /* the text report: one line per group naming the mix (no Inspector part without Inspector logs) */
    tu_sh(&out, "%s analyze '%s' 2>/dev/null", tu_bin(), dir);
    cr_assert(strstr(out, "NCCL pg 1 (TP): plugin ") && strstr(out, " joined (") && strstr(out, "Ring/Simple"), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(nccl, planted_plugin_traces_beside_inspector_logs, .timeout = 120) {
    const char *dir = planted_with("--nccl-inspector --nccl-plugin-trace");
    char args[900];
    cr_assert_eq(tu_sh(NULL, "mkdir -p '%s/nccl' && mv '%s'/*.log '%s'/nccl_profile_* '%s/nccl/'", dir, dir, dir, dir), 0);
    snprintf(args, sizeof args, "'%s'/rank*.pt.trace.json --nccl '%s/nccl'", dir, dir);
    yajl_val res = tu_analyze_json(args, 0);
    check_against_plant(dir, res); /* the Inspector's figures as without the plugin */
    cr_assert_str_eq(YAJL_GET_STRING(at(at(at(res, "summary", NULL), "nccl", NULL), "inspector_format_version", NULL)), "v4.0",
                     "the Inspector logs' version, whichever file is read first");
    char *out = NULL;
    tu_sh(&out, "ls '%s/nccl' | grep -c '^nccl_profile_'", dir);
    check_plugin_plant(dir, res, atoll(out), true);
    free(out);
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* Inspector logs of format v4.2 (tracegen --nccl-inspector-v42): every count and busbw as in v4.0,
 * the joined records' algorithm/protocol (rank 1's verbose: with channels) as inspector_mix rows,
 * the dump_stats records' drops equal to the dropped kernels. */
Test(nccl, planted_inspector_v4_2, .timeout = 120) {
    const char *dir = planted_with("--nccl-inspector-v42");
    char args[600];
    snprintf(args, sizeof args, "'%s'", dir);
    yajl_val res = tu_analyze_json(args, 0);
    check_against_plant(dir, res);
    yajl_val sn = at(at(res, "summary", NULL), "nccl", NULL);
    cr_assert_gt(YAJL_GET_INTEGER(at(sn, "inspector_dump_stats", NULL)), 8);
    cr_assert(YAJL_IS_INTEGER(at(sn, "inspector_ring_dropped", NULL)));
    cr_assert_str_eq(YAJL_GET_STRING(at(sn, "inspector_format_version", NULL)), "v4.2");
    size_t rows = 0;
    yajl_val groups = at(res, "process_groups", NULL);
    for (size_t i = 0; i < groups->u.array.len; i++) {
        yajl_val m = at(at(groups->u.array.values[i], "nccl", NULL), "inspector_mix", NULL);
        rows += YAJL_IS_ARRAY(m) ? m->u.array.len : 0;
    }
    cr_assert_gt(rows, groups->u.array.len, "groups with several rows (verbose channels, the second choice)");
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* The plugin's format before NCCL 2.27 (tracegen --nccl-plugin-trace-old): one
 * PREFIX-<hostname>-<tid>.txt per communicator and rank (the hostname with a dot), nMaxChannels, the
 * Datatype's number, GROUP events around each COLL, ProxyOp "Send"/"Recv" with their state objects
 * and the older step states (SendBufferWait ...): told from the traces by content, every figure as
 * planted. */
Test(nccl, planted_plugin_traces_before_2_27, .timeout = 120) {
    const char *dir = planted_with("--nccl-plugin-trace-old");
    char args[600];
    snprintf(args, sizeof args, "'%s'", dir);
    yajl_val res = tu_analyze_json(args, 0);
    char *out = NULL;
    tu_sh(&out, "ls '%s' | grep -c '^nccl_profile-node[0-9]*\\.cluster-[0-9]*\\.txt$'", dir);
    int64_t files = atoll(out);
    free(out);
    cr_assert_gt(files, 8);
    check_plugin_plant(dir, res, files, false);
    cr_assert_eq(YAJL_GET_INTEGER(at(at(res, "summary", NULL), "ranks", NULL)), 8);
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* The Inspector's Prometheus files of the planted job (tracegen --nccl-prometheus --trace-hosts),
 * named by GPU UUID, in the trace folder: each group's buckets, their ranks, NCCL's geometric-mean
 * busbw and mean exec time as planted (from the printed %.6g values); without the traces' hosts
 * the TP groups' rows (two groups alike) are unplaced, not guessed. */
Test(nccl, planted_prometheus_files, .timeout = 120) {
    const char *dir = planted_with("--nccl-prometheus --trace-hosts");
    char args[600];
    snprintf(args, sizeof args, "'%s'", dir);
    yajl_val res = tu_analyze_json(args, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/nccl_prom_expected.json", dir);
    yajl_val want = tu_json_file(path), wg = at(want, "groups", NULL), groups = at(res, "process_groups", NULL);
    int64_t rows = 0, buckets = 0;
    for (size_t i = 0; i < groups->u.array.len; i++) {
        yajl_val g = groups->u.array.values[i];
        const char *name = YAJL_GET_STRING(at(g, "name", NULL));
        yajl_val got = at(at(g, "nccl", NULL), "prometheus", NULL), w = at(wg, name, NULL);
        if (!w->u.array.len && YAJL_IS_NULL(at(g, "nccl", NULL))) continue; /* no bucket: no NCCL figure at all */
        cr_assert(YAJL_IS_ARRAY(got) && got->u.array.len == w->u.array.len, "group %s: Prometheus buckets", name);
        for (size_t k = 0; k < w->u.array.len; k++) {
            yajl_val x = w->u.array.values[k];
            bool found = false;
            for (size_t q = 0; q < got->u.array.len && !found; q++) {
                yajl_val y = got->u.array.values[q];
                found = same_str(at(y, "collective", NULL), at(x, "collective", NULL)) &&
                        same_str(at(y, "algorithm", NULL), at(x, "algorithm", NULL)) &&
                        same_str(at(y, "protocol", NULL), at(x, "protocol", NULL)) &&
                        YAJL_GET_INTEGER(at(y, "message_size_min_bytes", NULL)) == YAJL_GET_INTEGER(at(x, "message_size_min_bytes", NULL));
                if (!found) continue;
                cr_assert_eq(YAJL_GET_INTEGER(at(y, "ranks", NULL)), YAJL_GET_INTEGER(at(x, "ranks", NULL)), "group %s ranks", name);
                double gb = tu_num(at(y, "busbw_GBps", NULL)), wb = tu_num(at(x, "busbw_GBps", NULL));
                double ge = tu_num(at(y, "exec_time_us", NULL)), we = tu_num(at(x, "exec_time_us", NULL));
                cr_assert(fabs(gb - wb) <= 1e-9 * wb, "group %s busbw %.12g, planted %.12g", name, gb, wb);
                cr_assert(fabs(ge - we) <= 1e-9 * we, "group %s exec %.12g, planted %.12g", name, ge, we);
                rows += YAJL_GET_INTEGER(at(x, "ranks", NULL));
            }
            cr_assert(found, "group %s: planted bucket %zu not reported", name, k);
            buckets++;
        }
    }
    cr_assert_gt(buckets, (int64_t)groups->u.array.len, "groups with more than one bucket");
    yajl_val sn = at(at(res, "summary", NULL), "nccl", NULL);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "prometheus_files", NULL)), 8);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "prometheus_rows_joined", NULL)), rows);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "prometheus_rows_unplaced", NULL)), 0);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "inspector_files", NULL)), 0, "a Prometheus file is no Inspector log");
    cr_assert_eq(YAJL_GET_INTEGER(at(at(res, "summary", NULL), "ranks", NULL)), 8);
    yajl_tree_free(res);
    yajl_tree_free(want);
    /* without the traces' hosts: the GPUs' ranks unknown, the two TP groups alike */
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --ranks 8 --tp 4 --steps 4 --gpus-per-node 4 --nccl-prometheus", dir,
                       tu_gen(), dir), 0);
    res = tu_analyze_json(args, 0);
    sn = at(at(res, "summary", NULL), "nccl", NULL);
    cr_assert_gt(YAJL_GET_INTEGER(at(sn, "prometheus_rows_unplaced", NULL)), 0);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "prometheus_rows_joined", NULL)) + YAJL_GET_INTEGER(at(sn, "prometheus_rows_unplaced", NULL)),
                 YAJL_GET_INTEGER(at(sn, "prometheus_rows", NULL)));
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

Test(nccl, damaged_or_foreign_logs_are_reported, .timeout = 120) {
    const char *dir = planted();
    char *out = NULL;
    /* a file named with --nccl that is no Inspector log: a problem, exit 3, the rest analyzed */
    int rc = tu_sh(&out, "%s analyze -q '%s'/rank*.pt.trace.json --nccl tests/data/small/one_nccl_kernel.json", tu_bin(), dir);
    cr_assert_eq(rc, 3, "%s", out);
    cr_assert(strstr(out, "one_nccl_kernel.json: not an NCCL Inspector log"), "%s", out);
    free(out);
    /* the hand-made damaged file: its warnings, exit 3 */
    rc = tu_sh(&out, "%s analyze -q '%s'/rank*.pt.trace.json --nccl " HAND, tu_bin(), dir);
    cr_assert_eq(rc, 3, "%s", out);
    cr_assert(strstr(out, "warning: " HAND ": byte "), "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf '%s'", dir);
}

/* ---- point-to-point: p2p_perf records of a planted pipeline (tracegen --pp --nccl-inspector) ------- */

/* Every pipeline group's nccl.p2p against nccl_p2p_expected.json: joined, dropped, CPU-timed and
 * below the floor exactly, NCCL's P2P busbw (Σ bytes / Σ p2p_exec_time_us) to 1e-9, the trace's
 * beside it within 1% (its wait heads come from clock offsets the analyzer estimates); the records
 * from before the window counted, none unplaced. */
Test(nccl, planted_pipeline_p2p_records, .timeout = 120) {
    static char dir[256];
    mkdir("tests/out", 0755);
    snprintf(dir, sizeof dir, "tests/out/nccl-p2p-%d", (int)getpid());
    cr_assert_eq(tu_sh(NULL, "rm -rf '%s' && %s -o '%s' --pp 4 --ranks 8 --steps 2 --microbatches 4 --pp-slow-stage 2 "
                       "--busbw-GBps 400 --end-spread-us 5 --clock-offset-us 3000 --time-format epoch --file-names handler "
                       "--seed 43 --nccl-inspector", dir, tu_gen(), dir), 0);
    char args[600], path[512];
    snprintf(args, sizeof args, "'%s'", dir);
    yajl_val res = tu_analyze_json(args, 0);
    snprintf(path, sizeof path, "%s/nccl_p2p_expected.json", dir);
    yajl_val want = tu_json_file(path), wg = at(want, "groups", NULL), groups = at(res, "process_groups", NULL);
    int64_t joined = 0, dropped = 0, cpu = 0;
    size_t checked = 0;
    for (size_t i = 0; i < groups->u.array.len; i++) {
        yajl_val g = groups->u.array.values[i];
        const char *name = YAJL_GET_STRING(at(g, "name", NULL));
        yajl_val w = at(wg, name, NULL), p = at(at(g, "nccl", NULL), "p2p", NULL);
        if (!w) { cr_assert_null(p, "group %s has no P2P", name); continue; }
        cr_assert(YAJL_IS_OBJECT(p), "group %s: nccl.p2p", name);
        yajl_val un = at(p, "unjoined", NULL);
        cr_assert_eq(YAJL_GET_INTEGER(at(p, "inspector_joined", NULL)), YAJL_GET_INTEGER(at(w, "joined", NULL)), "group %s joined", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "dropped", NULL)), YAJL_GET_INTEGER(at(w, "dropped", NULL)), "group %s dropped", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "cpu_timed", NULL)), YAJL_GET_INTEGER(at(w, "cpu_timed", NULL)), "group %s cpu", name);
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "below_min_size", NULL)), YAJL_GET_INTEGER(at(w, "below_min_size", NULL)));
        cr_assert_eq(YAJL_GET_INTEGER(at(un, "size_mismatch", NULL)), 0);
        cr_assert_eq(YAJL_GET_INTEGER(at(p, "peer_mismatch", NULL)), 0, "group %s: a record of another peer or direction", name);
        double x = YAJL_GET_DOUBLE(at(p, "busbw_GBps", NULL)), y = YAJL_GET_DOUBLE(at(w, "busbw_GBps", NULL));
        cr_assert(fabs(x - y) <= 1e-9 * y, "group %s NCCL P2P busbw %.12g, planted %.12g", name, x, y);
        x = YAJL_GET_DOUBLE(at(p, "trace_busbw_GBps", NULL)), y = YAJL_GET_DOUBLE(at(w, "trace_busbw_GBps", NULL));
        cr_assert(fabs(x - y) <= 0.01 * y, "group %s trace P2P busbw %.12g, planted %.12g", name, x, y);
        joined += YAJL_GET_INTEGER(at(w, "joined", NULL));
        dropped += YAJL_GET_INTEGER(at(w, "dropped", NULL));
        cpu += YAJL_GET_INTEGER(at(w, "cpu_timed", NULL));
        checked++;
    }
    cr_assert_eq(checked, 2, "both pipelines' groups");
    cr_assert_gt(joined, 100);
    cr_assert_gt(dropped, 0);
    cr_assert_gt(cpu, 0);
    yajl_val sn = at(at(res, "summary", NULL), "nccl", NULL);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "p2p_records_unplaced", NULL)), 0);
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "p2p_records_outside_trace", NULL)),
                 YAJL_GET_INTEGER(at(want, "p2p_records_outside_trace", NULL)));
    cr_assert_eq(YAJL_GET_INTEGER(at(sn, "p2p_records", NULL)), joined + cpu + YAJL_GET_INTEGER(at(want, "p2p_records_outside_trace", NULL)));
    yajl_tree_free(want);
    yajl_tree_free(res);
    tu_sh(NULL, "rm -rf '%s'", dir);
}
