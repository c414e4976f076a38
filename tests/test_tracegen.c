/* test_tracegen.c: the trace generator's own properties (bench/tracegen, bench/TRACEGEN.md) for the
 * options added for issues 17, 19 and 20: every file it writes is JSON that yajl parses, the same
 * options and seed give byte-identical files, expected.json adds up (compute + exposed comm + memory
 * exposed + idle = window, wait + transfer = exposed comm per rank and per process group, idle causes
 * = idle), and each option shows in the files as documented. Not the analyzer's figures. */
#include "testutil.h"
#include <math.h>
#include <regex.h>
#include <zlib.h>

/* the whole file, gzip or not, NUL-terminated; caller frees */
static char *read_maybe_gz(const char *path) {
    gzFile g = gzopen(path, "rb");
    cr_assert(g, "cannot open %s", path);
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    cr_assert(buf);
    for (;;) {
        if (cap - len < (1 << 16)) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert(buf);
        }
        int n = gzread(g, buf + len, (unsigned)(cap - len - 1));
        cr_assert(n >= 0, "gzread %s", path);
        if (n == 0) break;
        len += (size_t)n;
    }
    gzclose(g);
    buf[len] = 0;
    return buf;
}

static yajl_val parse_trace(const char *path) {
    char *buf = read_maybe_gz(path);
    char err[256];
    yajl_val v = yajl_tree_parse(buf, err, sizeof err);
    free(buf);
    cr_assert(v, "%s is not valid JSON: %s", path, err);
    return v;
}

static const char *str_of(yajl_val v) {
    cr_assert(v && YAJL_IS_STRING(v), "expected a string");
    return v->u.string;
}

/* µs with 3 decimals as written in expected.json -> ns */
static long long ns_of(yajl_val v) { return llround(tu_num(v) * 1000.0); }

/* generates a job into DIR/NAME; returns the folder (malloc'd) */
static char *gen(const char *dir, const char *name, const char *args) {
    char *out = NULL;
    size_t n = strlen(dir) + strlen(name) + 2;
    char *d = malloc(n);
    snprintf(d, n, "%s/%s", dir, name);
    int rc = tu_sh(&out, "%s -o '%s' %s", tu_gen(), d, args);
    cr_assert_eq(rc, 0, "tracegen %s: %s", args, out);
    free(out);
    return d;
}

/* every file of the job parses and has events; expected.json adds up */
static void check_job(const char *d) {
    char path[4096];
    snprintf(path, sizeof path, "%s/expected.json", d);
    yajl_val e = tu_json_file(path);
    yajl_val files = tu_get(e, "files", NULL);
    cr_assert(files && YAJL_IS_ARRAY(files) && files->u.array.len > 0);
    for (size_t i = 0; i < files->u.array.len; i++) {
        snprintf(path, sizeof path, "%s/%s", d, str_of(files->u.array.values[i]));
        yajl_val t = parse_trace(path);
        yajl_val ev = tu_get(t, "traceEvents", NULL);
        cr_assert(ev && YAJL_IS_ARRAY(ev) && ev->u.array.len > 10, "%s: no traceEvents", path);
        yajl_tree_free(t);
    }
    yajl_val ranks = tu_get(e, "per_rank", NULL);
    cr_assert(ranks && YAJL_IS_ARRAY(ranks));
    for (size_t i = 0; i < ranks->u.array.len; i++) {
        yajl_val r = ranks->u.array.values[i];
        long long sum = ns_of(tu_get(r, "compute_us", NULL)) + ns_of(tu_get(r, "exposed_comm_us", NULL)) +
                        ns_of(tu_get(r, "memory_exposed_us", NULL)) + ns_of(tu_get(r, "idle_us", NULL));
        cr_expect_eq(sum, ns_of(tu_get(r, "window_us", NULL)), "%s rank %zu: identity", d, i);
        cr_expect_eq(ns_of(tu_get(r, "exposed_wait_us", NULL)) + ns_of(tu_get(r, "exposed_transfer_us", NULL)),
                     ns_of(tu_get(r, "exposed_comm_us", NULL)), "%s rank %zu: wait + transfer", d, i);
        yajl_val ic = tu_get(r, "idle_causes", NULL);
        if (ic) {
            long long s = 0;
            for (size_t k = 0; k < ic->u.object.len; k++) s += ns_of(ic->u.object.values[k]);
            cr_expect_eq(s, ns_of(tu_get(r, "idle_us", NULL)), "%s rank %zu: idle causes", d, i);
        }
    }
    yajl_val pgs = tu_get(e, "process_groups", NULL);
    for (size_t i = 0; pgs && i < pgs->u.array.len; i++) {
        yajl_val g = pgs->u.array.values[i];
        yajl_val w = tu_get(g, "exposed_wait_us", NULL), x = tu_get(g, "exposed_transfer_us", NULL);
        if (w && YAJL_IS_NUMBER(w))
            cr_expect_eq(ns_of(w) + ns_of(x), ns_of(tu_get(g, "exposed_comm_us", NULL)), "%s group %zu", d, i);
        if (i > 0)
            cr_expect(strcmp(str_of(tu_get(pgs->u.array.values[i - 1], "name", NULL)),
                             str_of(tu_get(g, "name", NULL))) < 0, "groups sorted by name");
    }
    yajl_tree_free(e);
}

/* the options of issues 17, 19, 20, each in a small job */
static const char *const JOBS[][2] = {
    {"tpdp", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5 --file-names handler"},
    {"fsdp", "--ranks 8 --tp 2 --gpus-per-node 4 --fsdp --straggler 3 --gzip"},
    {"tp1", "--ranks 4 --tp 1 --steps 2 --time-format epoch --layout oneline"},
    {"drop", "--ranks 4 --drop-kernel 2:3 --drop-kernel 0:5 --no-coll-args"},
    {"cut", "--ranks 4 --steps 4 --cut-rank 1 --cut-after-step 2 --no-pg"},
    {"deepep", "--ranks 4 --comm-lib deepep"},
    {"symm", "--ranks 2 --comm-lib symm --layout indent4"},
    {"vllm", "--ranks 2 --comm-lib vllm"},
    {"rocm", "--ranks 4 --rocm-agent-ids"},
    {"windows", "--ranks 2 --steps 2 --windows 3 --clock-offset-us 3000"},
    {"negts", "--ranks 2 --negative-ts"},
    {"idle_sync", "--ranks 1 --idle-cause sync"},
    {"idle_launch", "--ranks 1 --idle-cause launch"},
    {"idle_dl", "--ranks 1 --idle-cause dataloader"},
    {"idle_mixed", "--ranks 1 --idle-cause mixed --steps 2"},
    {"host", "--ranks 8 --tp 2 --gpus-per-node 4 --inter-GBps 12.5 --coll-latency-us 30 --end-spread-us 3 --time-format epoch --cuda-sync-events --first-bucket-mib 1"},
    {"host_drop", "--inter-GBps 12.5 --ranks 4 --gpus-per-node 2 --drop-kernel 1:3 --time-format epoch"},
    {"host_straggler", "--host pytorch --ranks 4 --gpus-per-node 2 --straggler 1 --host-sync stream --clock-offset-us 1000 --gzip --autograd-thread"},
};

Test(tracegen, new_options_write_valid_json_that_adds_up, .timeout = 120) {
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof JOBS / sizeof *JOBS; i++) {
        char *d = gen(dir, JOBS[i][0], JOBS[i][1]);
        check_job(d);
        free(d);
    }
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

Test(tracegen, same_seed_same_bytes, .timeout = 120) {
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof JOBS / sizeof *JOBS; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%s_a", JOBS[i][0]);
        snprintf(b, sizeof b, "%s_b", JOBS[i][0]);
        char *da = gen(dir, a, JOBS[i][1]), *db = gen(dir, b, JOBS[i][1]);
        char *out = NULL;
        cr_expect_eq(tu_sh(&out, "diff -r '%s' '%s'", da, db), 0, "%s differs between runs: %s", JOBS[i][0], out);
        free(out);
        free(da);
        free(db);
    }
    /* another seed gives other files */
    char *d1 = gen(dir, "s1", "--ranks 8 --tp 4 --seed 1"), *d2 = gen(dir, "s2", "--ranks 8 --tp 4 --seed 2");
    cr_expect_neq(tu_sh(NULL, "diff -rq '%s' '%s'", d1, d2), 0);
    free(d1);
    free(d2);
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* one rank's trace of a job, parsed */
static yajl_val trace_of(const char *d, size_t k) {
    char path[4096];
    snprintf(path, sizeof path, "%s/expected.json", d);
    yajl_val e = tu_json_file(path);
    yajl_val f = tu_get(e, "files", NULL);
    cr_assert(k < f->u.array.len);
    snprintf(path, sizeof path, "%s/%s", d, str_of(f->u.array.values[k]));
    yajl_tree_free(e);
    return parse_trace(path);
}

/* counts events of cat whose arg `key` is a number equal to val (val < 0: any number), or, key NULL, all */
static size_t count_events(yajl_val t, const char *cat, const char *key, long long val) {
    yajl_val ev = tu_get(t, "traceEvents", NULL);
    size_t n = 0;
    for (size_t i = 0; i < ev->u.array.len; i++) {
        yajl_val e = ev->u.array.values[i];
        yajl_val c = tu_get(e, "cat", NULL);
        if (!c || !YAJL_IS_STRING(c) || strcmp(c->u.string, cat)) continue;
        if (!key) { n++; continue; }
        yajl_val a = tu_get(e, "args", key, NULL);
        if (a && YAJL_IS_NUMBER(a) && (val < 0 || YAJL_GET_INTEGER(a) == val)) n++;
    }
    return n;
}

Test(tracegen, options_show_in_the_files, .timeout = 120) {
    char *dir = tu_tmpdir();
    /* TP+DP: each rank lists only its own groups; kernels name them */
    char *d = gen(dir, "tpdp", "--ranks 8 --tp 4 --gpus-per-node 4 --file-names handler");
    yajl_val t = trace_of(d, 5);
    yajl_val cfg = tu_get(t, "distributedInfo", "pg_config", NULL);
    cr_assert(cfg && YAJL_IS_ARRAY(cfg));
    cr_expect_eq(cfg->u.array.len, 3, "rank 5: world, its TP group and its DP group");
    cr_expect_str_eq(str_of(tu_get(cfg, "#1", "pg_desc", NULL)), "TP");
    cr_expect_str_eq(str_of(tu_get(cfg, "#2", "pg_desc", NULL)), "DP");
    cr_expect_eq(tu_num(tu_get(cfg, "#2", "ranks", "#0", NULL)), 1);
    cr_expect_eq(tu_num(tu_get(cfg, "#2", "ranks", "#1", NULL)), 5);
    cr_expect_eq(tu_num(tu_get(t, "deviceProperties", "#3", "id", NULL)), 3, "4 GPUs per node");
    yajl_tree_free(t);
    char *out = NULL;
    regex_t re;
    cr_assert_eq(regcomp(&re, "^node[01]_[0-9]+\\.[0-9]+\\.pt\\.trace\\.json$", REG_EXTENDED | REG_NOSUB), 0);
    tu_sh(&out, "ls '%s' | grep -v expected.json", d);
    size_t nfiles = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), nfiles++)
        cr_expect_eq(regexec(&re, line, 0, NULL, 0), 0, "file name %s", line);
    cr_expect_eq(nfiles, 8);
    regfree(&re);
    free(out);
    free(d);

    /* ROCm: kernels carry the agent id, deviceProperties lists only id 0 */
    d = gen(dir, "rocm", "--ranks 2 --rocm-agent-ids");
    t = trace_of(d, 1);
    cr_expect_eq(tu_get(t, "deviceProperties", NULL)->u.array.len, 1);
    cr_expect_str_eq(str_of(tu_get(t, "deviceProperties", "#0", "name", NULL)), "AMD Instinct MI300X");
    cr_expect_eq(count_events(t, "kernel", "device", 3), count_events(t, "kernel", NULL, 0));
    yajl_tree_free(t);
    free(d);

    /* a dropped kernel is one NCCL kernel fewer on that rank */
    d = gen(dir, "drop", "--ranks 2 --drop-kernel 1:2");
    yajl_val t0 = trace_of(d, 0), t1 = trace_of(d, 1);
    cr_expect_eq(count_events(t1, "kernel", "Seq", -1) + 1, count_events(t0, "kernel", "Seq", -1));
    yajl_tree_free(t0);
    yajl_tree_free(t1);
    free(d);

    /* negative ts: three kernels before baseTimeNanoseconds */
    d = gen(dir, "negts", "--ranks 1 --negative-ts");
    char path[4096];
    snprintf(path, sizeof path, "%s/rank0.pt.trace.json", d);
    char *buf = read_maybe_gz(path);
    size_t neg = 0;
    for (char *p = buf; (p = strstr(p, "\"ts\": -")); p++) neg++;
    cr_expect_eq(neg, 3, "three kernels before the base, nothing else: %zu", neg);
    free(buf);
    free(d);

    /* windows: one file per rank and window, named HOST_PID.<ms>, in time order */
    d = gen(dir, "win", "--ranks 2 --steps 1 --windows 3");
    snprintf(path, sizeof path, "%s/expected.json", d);
    yajl_val e = tu_json_file(path);
    yajl_val wins = tu_get(e, "windows", NULL);
    cr_assert(wins && YAJL_IS_ARRAY(wins) && wins->u.array.len == 3);
    for (int r = 0; r < 2; r++) {
        long long prev = -1;
        for (size_t w = 0; w < 3; w++) {
            const char *fn = str_of(tu_get(wins->u.array.values[w], "files", r ? "#1" : "#0", NULL));
            const char *dot = strchr(fn, '.');
            cr_assert(dot, "%s", fn);
            long long ms = atoll(dot + 1);
            cr_expect_gt(ms, prev, "window %zu of rank %d: %s", w + 1, r, fn);
            prev = ms;
            snprintf(path, sizeof path, "%s/%s", d, fn);
            cr_expect_eq(access(path, R_OK), 0, "%s", path);
        }
    }
    yajl_tree_free(e);
    free(d);
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}
