/* test_compare.c: `tracecost compare` (issue 12) on generated pairs: a slow and a fast fabric (the
 * conclusion names the fast side and exposed transfer, with figures equal to each side's analyze
 * JSON), different workloads flagged, saved results comparing exactly as the traces, per-side
 * prices, usage errors and the HTML report's escaping; the terminal output fits 100 columns and
 * shows hostile trace strings cleaned (issue 11). A run's summary built from an analyzed job equals,
 * field by field, the one read back from its saved JSON (issue 16), and the reader of saved
 * results refuses what is not one. A TP+DP run priced by `analyze --json` and by `compare` (traces
 * or saved result, with a fabric, a catalog GPU or a price) gives the same cost (issue 27). */
#include "testutil.h"
#include "analyzer/analyze.h"
#include "analyzer/compare.h"
#include "analyzer/job_run.h"
#include "base/jsontext.h"
#include "cli/exitcodes.h"
#include "parsers/assemble.h"
#include "parsers/inputs.h"
#include "parsers/result_json.h"
#include "reports/findings_text.h"
#include "reports/json_report.h"
#include "reports/termtext.h"
#include <math.h>
#include <stdbool.h>
#include <sys/stat.h>

static const char *jstr(yajl_val v) {
    cr_assert(v && YAJL_IS_STRING(v), "expected a string");
    return v->u.string;
}

static double num_at(yajl_val doc, const char *a, const char *b, const char *c) {
    return tu_num(tu_get(doc, a, b, c, NULL));
}

/* Generates a 4-rank job into DIR/NAME with extra tracegen flags. */
static void gen(const char *dir, const char *name, const char *flags) {
    int rc = tu_sh(NULL, "%s -o %s/%s --seed 1 --overlap 0 %s", tu_gen(), dir, name, flags);
    cr_assert_eq(rc, 0, "tracegen %s failed", flags);
}

static yajl_val analyze(const char *dir, const char *name) {
    char out[512];
    snprintf(out, sizeof out, "%s/%s.json", dir, name);
    cr_assert_eq(tu_sh(NULL, "%s analyze -q --price-per-gpu-hour 2 --json %s %s/%s", tu_bin(), out, dir, name), 0);
    return tu_json_file(out);
}

static yajl_val compare(const char *dir, const char *out, const char *args) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, out);
    int rc = tu_sh(NULL, "%s compare -q --json %s %s", tu_bin(), path, args);
    cr_assert_eq(rc, 0, "compare %s: exit %d", args, rc);
    return tu_json_file(path);
}

Test(compare, fast_fabric_is_cheaper_because_of_exposed_transfer, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "slow", "--busbw-GBps 5");
    gen(dir, "fast", "--busbw-GBps 50");
    yajl_val ja = analyze(dir, "slow"), jb = analyze(dir, "fast");
    char args[1024];
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/slow %s/fast", dir, dir);
    yajl_val c = compare(dir, "c.json", args);

    cr_assert(YAJL_IS_TRUE(tu_get(c, "same_workload", NULL)));
    cr_assert_str_eq(jstr(tu_get(c, "cheaper", NULL)), "B");
    cr_assert_str_eq(jstr(tu_get(c, "reason", NULL)), "exposed_transfer");
    /* figures are exactly those of each side's analyze JSON */
    double sa = num_at(ja, "summary", "step_time_us", NULL), sb = num_at(jb, "summary", "step_time_us", NULL);
    cr_assert_eq(num_at(c, "metrics", "step_time_us", "a"), sa);
    cr_assert_eq(num_at(c, "metrics", "step_time_us", "b"), sb);
    double ta = tu_num(tu_get(ja, "summary", "shares", "exposed_transfer", NULL));
    double tb = tu_num(tu_get(jb, "summary", "shares", "exposed_transfer", NULL));
    cr_assert_eq(num_at(c, "metrics", "share_exposed_transfer", "a"), ta);
    cr_assert_eq(num_at(c, "metrics", "share_exposed_transfer", "b"), tb);
    cr_assert_eq(num_at(c, "metrics", "fabric_busbw_GBps", "a"), 5);
    cr_assert_eq(num_at(c, "metrics", "fabric_busbw_GBps", "b"), 50);
    /* cost per step = P x N x step s / 3600, P = 2, N = 4 */
    double ca = 2 * 4 * sa / 1e6 / 3600, cb = 2 * 4 * sb / 1e6 / 3600;
    cr_assert(fabs(num_at(c, "metrics", "cost_per_step", "a") / ca - 1) < 1e-9);
    cr_assert(fabs(num_at(c, "metrics", "cost_per_step", "b") / cb - 1) < 1e-9);
    double pct = (ca - cb) / ca * 100;
    cr_assert(fabs(tu_num(tu_get(c, "cheaper_pct", NULL)) - pct) < 1e-6);
    /* cost per effective GPU-hour = P x T / T_ref, the replayed step over the step replayed on the
     * reference (issue 29: before, P / (1 - exposed transfer share), NVLink inside the node included) */
    double ta_rep = tu_num(tu_get(ja, "summary", "replay", "replayed_step_us", NULL));
    double ta_ref = tu_num(tu_get(ja, "summary", "replay", "reference_step_us", NULL));
    cr_assert(fabs(num_at(c, "metrics", "cost_per_effective_gpu_hour", "a") - 2 * ta_rep / ta_ref) < 1e-6);
    /* monthly difference at the default volume: A's month, 730 h x 3600 / step */
    double w = 730.0 * 3600 / (sa / 1e6);
    cr_assert(fabs(tu_num(tu_get(c, "work_steps_per_month", NULL)) / w - 1) < 1e-9);
    cr_assert(fabs(tu_num(tu_get(c, "monthly_difference", NULL)) / (w * (cb - ca)) - 1) < 1e-6);
    /* the conclusion's sentence with those figures */
    char want[256];
    snprintf(want, sizeof want, "B is %.1f%% cheaper per step: its exposed transfer share is %.1f%% against %.1f%%",
             pct, tb * 100, ta * 100);
    const char *concl = jstr(tu_get(c, "conclusion", NULL));
    cr_assert(strstr(concl, want), "conclusion '%s' lacks '%s'", concl, want);
    /* the collective got faster, 10x */
    cr_assert_str_eq(jstr(tu_get(c, "collectives", "#0", "change", NULL)), "faster");
    cr_assert(fabs(tu_num(tu_get(c, "collectives", "#0", "busbw_GBps", "ratio", NULL)) - 10) < 1e-6);

    /* swapped, A is the cheaper one */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/fast %s/slow", dir, dir);
    yajl_val s = compare(dir, "s.json", args);
    cr_assert_str_eq(jstr(tu_get(s, "cheaper", NULL)), "A");
    cr_assert(strstr(jstr(tu_get(s, "conclusion", NULL)), "A is "));

    /* the terminal text says the same */
    char *out = NULL;
    snprintf(args, sizeof args, "%s compare --price-per-gpu-hour 2 %s/slow %s/fast 2>/dev/null", tu_bin(), dir, dir);
    cr_assert_eq(tu_sh(&out, "%s", args), 0);
    cr_assert(strstr(out, "Conclusion: B is "), "%s", out);
    cr_assert(!strstr(out, "NOT THE SAME WORKLOAD"));
    free(out);
    yajl_tree_free(ja); yajl_tree_free(jb); yajl_tree_free(c); yajl_tree_free(s);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* every metric and the conclusion are identical from traces and from the saved results */
Test(compare, saved_results_compare_like_traces, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "slow", "--busbw-GBps 5");
    gen(dir, "fast", "--busbw-GBps 50 --straggler 2");
    yajl_tree_free(analyze(dir, "slow"));
    yajl_tree_free(analyze(dir, "fast"));
    char args[1024];
    snprintf(args, sizeof args, "%s/slow %s/fast", dir, dir);
    yajl_val t = compare(dir, "t.json", args);
    /* saved with --price-per-gpu-hour 2: the saved price carries over, so pass it for the traces */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/slow %s/fast", dir, dir);
    yajl_tree_free(t);
    t = compare(dir, "t.json", args);
    snprintf(args, sizeof args, "%s/slow.json %s/fast.json", dir, dir);
    yajl_val j = compare(dir, "j.json", args);
    cr_assert_str_eq(jstr(tu_get(j, "a", "source", NULL)), "saved result");
    cr_assert_str_eq(jstr(tu_get(t, "a", "source", NULL)), "traces");
    yajl_val mt = tu_get(t, "metrics", NULL), mj = tu_get(j, "metrics", NULL);
    cr_assert(mt && YAJL_IS_OBJECT(mt) && mt->u.object.len > 10);
    for (size_t i = 0; i < mt->u.object.len; i++) {
        const char *k = mt->u.object.keys[i];
        for (const char *const *side = (const char *const[]){"a", "b", "diff", "ratio", NULL}; *side; side++) {
            yajl_val x = tu_get(mt, k, *side, NULL), y = tu_get(mj, k, *side, NULL);
            if (!x) continue;
            if (YAJL_IS_NUMBER(x)) cr_assert(y && YAJL_IS_NUMBER(y) && YAJL_GET_DOUBLE(x) == YAJL_GET_DOUBLE(y), "%s.%s differs", k, *side);
            else if (YAJL_IS_STRING(x)) cr_assert_str_eq(jstr(x), jstr(y));
            else cr_assert(y && x->type == y->type, "%s.%s differs", k, *side);
        }
    }
    cr_assert_str_eq(jstr(tu_get(t, "conclusion", NULL)), jstr(tu_get(j, "conclusion", NULL)));
    cr_assert_eq(tu_num(tu_get(t, "monthly_difference", NULL)), tu_num(tu_get(j, "monthly_difference", NULL)));
    cr_assert_eq(tu_num(tu_get(j, "metrics", "straggler_rank", "b", NULL)), 2);
    /* a trace folder against a saved result works too */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 %s/slow %s/fast.json", dir, dir);
    yajl_val m = compare(dir, "m.json", args);
    cr_assert_str_eq(jstr(tu_get(t, "conclusion", NULL)), jstr(tu_get(m, "conclusion", NULL)));
    yajl_tree_free(t); yajl_tree_free(j); yajl_tree_free(m);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(compare, different_workloads_are_flagged, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "a", "");
    gen(dir, "b", "--bucket-mib 10");
    gen(dir, "c", "--ranks 8");
    char args[1024];
    snprintf(args, sizeof args, "%s/a %s/b", dir, dir);
    yajl_val c = compare(dir, "ab.json", args);
    cr_assert(YAJL_IS_FALSE(tu_get(c, "same_workload", NULL)));
    yajl_val d = tu_get(c, "workload_differences", NULL);
    cr_assert(d && YAJL_IS_ARRAY(d) && d->u.array.len == 2, "want only-in-A and only-in-B rows");
    cr_assert(strstr(jstr(d->u.array.values[0]), "only in A"));
    cr_assert(strstr(jstr(tu_get(c, "conclusion", NULL)), "not the same workload"));
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s compare %s 2>/dev/null", tu_bin(), args), 0);
    cr_assert(!strncmp(out, "NOT THE SAME WORKLOAD", 21), "first line: %.80s", out);
    free(out);
    /* the same job compared with itself is the same workload */
    snprintf(args, sizeof args, "%s/a %s/a", dir, dir);
    yajl_val s = compare(dir, "aa.json", args);
    cr_assert(YAJL_IS_TRUE(tu_get(s, "same_workload", NULL)));
    cr_assert_str_eq(jstr(tu_get(s, "cheaper", NULL)), "same");
    /* different sizes */
    snprintf(args, sizeof args, "%s/a %s/c", dir, dir);
    yajl_val z = compare(dir, "ac.json", args);
    cr_assert(YAJL_IS_FALSE(tu_get(z, "same_workload", NULL)));
    cr_assert(strstr(jstr(tu_get(z, "workload_differences", "#0", NULL)), "A runs on 4 GPUs, B on 8"));
    cr_assert_eq(num_at(z, "metrics", "gpus", "b"), 8);
    yajl_tree_free(c); yajl_tree_free(s); yajl_tree_free(z);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(compare, b_flags_override_and_inherit, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "a", "");
    char args[1024];
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 --utilization 0.5 --b-price-per-gpu-hour=1 %s/a %s/a", dir, dir);
    yajl_val c = compare(dir, "c.json", args);
    cr_assert_eq(num_at(c, "metrics", "price_per_gpu_hour", "a"), 2);
    cr_assert_eq(num_at(c, "metrics", "price_per_gpu_hour", "b"), 1);
    cr_assert_eq(tu_num(tu_get(c, "b", "cost", "inputs", "utilization", "value", NULL)), 0.5); /* inherited */
    cr_assert_str_eq(jstr(tu_get(c, "cheaper", NULL)), "B");
    cr_assert_str_eq(jstr(tu_get(c, "reason", NULL)), "gpu_price");
    cr_assert(strstr(jstr(tu_get(c, "conclusion", NULL)), "B is 50.0% cheaper per step: its GPUs cost $1.00 per GPU-hour against $2.00"));
    /* --work-steps-per-month W: monthly difference = W x (cost per step B - A) */
    snprintf(args, sizeof args, "--price-per-gpu-hour 2 --b-price-per-gpu-hour 1 --work-steps-per-month 1e6 %s/a %s/a", dir, dir);
    yajl_val w = compare(dir, "w.json", args);
    double d = num_at(w, "metrics", "cost_per_step", "b") - num_at(w, "metrics", "cost_per_step", "a");
    cr_assert(fabs(tu_num(tu_get(w, "monthly_difference", NULL)) / (1e6 * d) - 1) < 1e-9);
    cr_assert_str_eq(jstr(tu_get(w, "work_steps_per_month_source", NULL)), "flag");
    yajl_tree_free(c); yajl_tree_free(w);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(compare, usage_errors) {
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s compare only-one", tu_bin()), 1);
    cr_assert(strstr(out, "need two runs"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare --price-per-gpu-huor 2 a b", tu_bin()), 1);
    cr_assert(strstr(out, "did you mean --price-per-gpu-hour"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare --b-pue 0.5 a b", tu_bin()), 1);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare --help", tu_bin()), 0);
    cr_assert(strstr(out, "--b-FLAG"));
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare /nonexistent/x /nonexistent/y", tu_bin()), 2);
    free(out);
}

Test(compare, html_report_escapes_labels, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "'a<b>&c'", "");
    char args[1024], html[512];
    snprintf(html, sizeof html, "%s/r.html", dir);
    snprintf(args, sizeof args, "%s compare -q --html %s \"%s/a<b>&c\" \"%s/a<b>&c\" 2>/dev/null", tu_bin(), html, dir, dir);
    cr_assert_eq(tu_sh(NULL, "%s", args), 0);
    char *page = NULL;
    cr_assert_eq(tu_sh(&page, "cat %s", html), 0);
    cr_assert(!strncmp(page, "<!DOCTYPE html>", 15));
    cr_assert(strstr(page, "a&lt;b&gt;&amp;c"));
    cr_assert(!strstr(page, "a<b>"));
    cr_assert(strstr(page, "cost per step"));
    cr_assert(strstr(page, "</html>"));
    free(page);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---- terminal output: width and hostile strings (issue 11) --------------------------------- */

/* Expects no byte that could steer a terminal: C0 controls other than newline (ESC, BEL, BS, CR),
 * DEL, and the UTF-8 C1 controls (U+0080..U+009F, U+009B is CSI). */
static void expect_no_controls(const char *what, const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        bool bad = (*p < 0x20 && *p != '\n') || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
        cr_expect(!bad, "%s: control byte 0x%02x at offset %zu", what, *p, (size_t)(p - (const unsigned char *)text));
        if (bad) return;
    }
}

Test(compare, text_fits_100_columns_on_the_samples, .timeout = 120) {
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s compare samples/ samples/hta-pair 2>/dev/null", tu_bin()), 0);
    tu_expect_width(out, 100);
    expect_no_controls("compare samples", out);
    /* the long SendRecv kernel names go whole on a line of their own in the table, the row's figures
     * under them; the group is the stream alone */
    cr_expect(strstr(out, "\nncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)\n"
                          "                          stream 84 "), "%s", out);
    cr_expect(strstr(out, "ncclWork*) of\n    unknown size (stream 84) only in B"), "%s", out);
    cr_expect(!strstr(out, "-1"), "an unknown size printed as -1:\n%s", out);
    /* the conclusion's first line continues after the label and still fits: 4 GPUs against 128 with
     * no FLOPs on B, so no common unit of work and no cheaper side */
    cr_expect(strstr(out, "\nConclusion: No cheaper side: "), "%s", out);
    /* the sizes stay null in JSON */
    char *dir = tu_tmpdir();
    yajl_val c = compare(dir, "c.json", "samples/ samples/hta-pair");
    yajl_val cs = tu_get(c, "collectives", NULL);
    cr_assert(cs && YAJL_IS_ARRAY(cs) && cs->u.array.len == 3);
    cr_expect(YAJL_IS_NULL(tu_get(c, "collectives", "#1", "bytes", NULL)));
    cr_expect(strstr(jstr(tu_get(c, "workload_differences", "#2", NULL)), "of unknown size"));
    yajl_tree_free(c);
    free(out);
    /* coloured on a terminal (bold labels): the same widths */
    cr_assert_eq(tu_sh(&out, "SHELL=/bin/sh script -qec \"%s compare samples/ samples/hta-pair 2>/dev/null\" /dev/null </dev/null",
                       tu_bin()), 0);
    cr_expect(strstr(out, "\033[1mConclusion:\033[0m No cheaper side"), "no colour under a pty:\n%s", out);
    tu_expect_width(out, 100);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Numbers right-aligned: every metric row ends its A, B, B - A and B / A cells at the header's
 * columns (25 + 16, + 16, + 15, + 8), and the straggler and verdict rows end their A and B cells at
 * the same columns ("straggler-bound" included). */
static void expect_aligned_rows(const char *out) {
    const char *l = strstr(out, "\nstep time");
    cr_assert(l, "%s", out);
    for (; l; l = strchr(l + 1, '\n')) {
        const char *e = strchr(l + 1, '\n');
        cr_assert(e);
        bool last = !strncmp(l + 1, "verdict", 7), words = last || !strncmp(l + 1, "straggler", 9);
        if (!words) cr_expect_eq(e - l - 1, 80, "row not 80 columns: %.*s", (int)(e - l - 1), l + 1);
        else cr_expect_eq(e - l - 1, 57, "row not 57 columns: %.*s", (int)(e - l - 1), l + 1);
        for (int col = 41; col <= (words ? 57 : 72); col += col < 57 ? 16 : 15)
            cr_expect(l[1 + col - 1] != ' ' && (col == 72 || l[1 + col] == ' ' || l + 1 + col == e),
                      "cell not ending at %d: %.*s", col, (int)(e - l - 1), l + 1);
        if (last) break;
    }
    cr_expect(l, "no verdict row:\n%s", out);
}

Test(compare, text_fits_100_columns_on_a_generated_pair, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "a", "--busbw-GBps 5");
    gen(dir, "b", "--ranks 8 --bucket-mib 10 --straggler 2");
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s compare --price-per-gpu-hour 2 --b-price-per-gpu-hour 1.5 %s/a %s/b 2>/dev/null",
                       tu_bin(), dir, dir), 0);
    cr_expect(!strncmp(out, "NOT THE SAME WORKLOAD", 21), "%s", out);
    cr_expect(strstr(out, "B costs "), "no monthly line:\n%s", out);
    tu_expect_width(out, 100);
    expect_no_controls("compare generated", out);
    expect_aligned_rows(out);
    free(out);
    /* the same at 80 and 120 columns: the table is 80 wide, the collectives table fits the width */
    for (int w = 80; w <= 120; w += 40) {
        cr_assert_eq(tu_sh(&out, "COLUMNS=%d %s compare --price-per-gpu-hour 2 --b-price-per-gpu-hour 1.5 %s/a %s/b 2>/dev/null",
                           w, tu_bin(), dir, dir), 0);
        tu_expect_width(out, (size_t)w);
        expect_aligned_rows(out);
        free(out);
    }
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* One rank of a two-rank job whose device, kernel, collective and process-group names carry ESC
 * sequences, BEL, CR, BS and a C1 CSI (U+009B; the cleaner shows its two bytes as "??"); the allreduce has `nelems` elements so two runs
 * with different sizes list the collective as a workload difference and as table rows. */
static void write_hostile_rank(const char *path, int rank, long nelems) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fprintf(f, "{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\n"
               "\"deviceProperties\":[{\"id\":0,\"name\":\"EVIL\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m GPU\"}],\n"
               "\"traceEvents\":[\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\\u001b[31mred\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":100,\"args\":{}},\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce\\u001b[2J\\r\\b\\u009b1m_with_a_long_tail_of_template_arguments\","
               "\"pid\":0,\"tid\":9,\"ts\":100,\"dur\":%d,\"args\":{\"Collective name\":\"all\\u001breduce\\u0007\","
               "\"Process Group Name\":\"0\\u001b[1m\\u009b2J\",\"In msg nelems\":%ld,\"Out msg nelems\":%ld,\"Group size\":2,"
               "\"dtype\":\"Float\"}},\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\\u001b[31mred\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":100,\"args\":{}}\n"
               "]}\n", rank, rank ? 150 : 250, nelems, nelems, rank ? 250 : 350);
    fclose(f);
}

Test(compare, hostile_names_cannot_emit_escapes, .timeout = 120) {
    char *dir = tu_tmpdir();
    char a[512], b[512], p[600];
    snprintf(a, sizeof a, "%s/run\033[31mA\a", dir); /* the operand (label) is hostile too */
    snprintf(b, sizeof b, "%s/runB", dir);
    cr_assert_eq(mkdir(a, 0755), 0);
    cr_assert_eq(mkdir(b, 0755), 0);
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/rank%d.json", a, r);
        write_hostile_rank(p, r, 1048576);
        snprintf(p, sizeof p, "%s/rank%d.json", b, r);
        write_hostile_rank(p, r, 2097152);
    }
    char *out = NULL;
    int rc = tu_sh(&out, "%s compare --price-per-gpu-hour 2 '%s' '%s' 2>/dev/null", tu_bin(), a, b);
    cr_expect(rc == 0 || rc == 3, "rc %d:\n%s", rc, out);
    cr_expect(strstr(out, "NOT THE SAME WORKLOAD"), "%s", out);
    cr_expect(strstr(out, "EVIL?]0;owned??[2J??31m GPU"), "device name not shown cleaned:\n%s", out);
    cr_expect(strstr(out, "run?[31mA?"), "label not shown cleaned:\n%s", out);
    cr_expect(strstr(out, "only in A"), "%s", out);
    expect_no_controls("compare hostile", out);
    tu_expect_width(out, 100);
    free(out);
    /* a saved result whose verdict is hostile */
    snprintf(p, sizeof p, "%s/a.json", dir);
    cr_assert_eq(tu_sh(NULL, "%s analyze -q --json %s '%s' && sed -i 's/\"verdict\": \"/\"verdict\": \"\\\\u001b[2J\\\\u009b/' %s",
                       tu_bin(), p, a, p), 0);
    rc = tu_sh(&out, "%s compare --price-per-gpu-hour 2 %s '%s' 2>/dev/null", tu_bin(), p, b);
    cr_expect(rc == 0 || rc == 3, "rc %d:\n%s", rc, out);
    cr_expect(strstr(out, "\nverdict "), "%s", out);
    cr_expect(strstr(out, "??[2J"), "saved verdict not shown cleaned:\n%s", out);
    expect_no_controls("compare hostile saved", out);
    tu_expect_width(out, 100);
    free(out);
    /* the HTML report: escaped, no raw control bytes */
    rc = tu_sh(NULL, "%s compare -q --price-per-gpu-hour 2 --html %s/r.html '%s' '%s' 2>/dev/null", tu_bin(), dir, a, b);
    cr_expect(rc == 0 || rc == 3, "rc %d", rc);
    cr_assert_eq(tu_sh(&out, "cat %s/r.html", dir), 0);
    expect_no_controls("compare HTML", out);
    cr_expect(strstr(out, "reduce\xef\xbf\xbd"), "no collective in the HTML");
    cr_expect(strstr(out, "<td>pg 0\xef\xbf\xbd[1m\xef\xbf\xbd" "2J"), "process group not escaped: ESC and the C1 CSI become U+FFFD");
    free(out);
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

Test(compare, term_cell_cleans_cuts_and_aligns) {
    char buf[64];
    cr_expect_str_eq(tc_term_cell(buf, sizeof buf, "ab", 4), "  ab");
    cr_expect_str_eq(tc_term_cell(buf, sizeof buf, "ab", -4), "ab  ");
    cr_expect_str_eq(tc_term_cell(buf, sizeof buf, "a\033[1mb", -4), "a?[\xe2\x80\xa6");
    cr_expect_str_eq(tc_term_cell(buf, sizeof buf, "\xc3\xa9t\xc3\xa9", 4), " \xc3\xa9t\xc3\xa9"); /* columns, not bytes */
    cr_expect_str_eq(tc_term_cell(buf, sizeof buf, NULL, -2), "? ");
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    fputs("Label: ", m);
    tc_term_wrap_from(m, "one two three four\a five", 7, 2, 20);
    fclose(m);
    cr_expect_str_eq(text, "Label: one two three\n  four? five\n");
    free(text);
}

/* ---- a run from its job equals the run from its saved result (issue 16) ------------------- */

/* Loads and analyzes operand (a trace folder or file) as compare does. */
static void load_analyzed(tc_job *j, const char *operand) {
    char *ops[1] = {(char *)operand};
    tc_input_list in;
    tc_error e;
    cr_assert_eq(tc_inputs_expand(ops, 1, false, &in, &e), TC_OK, "%s", e.msg);
    tc_job_init(j);
    tc_assemble_options lo = {.jobs = 1};
    tc_notes notes = {0};
    tc_assembly_status rc = tc_job_assemble(j, in.paths, in.from_folder, in.n, &lo, &notes);
    tc_notes_free(&notes);
    cr_assert(rc == TC_ASSEMBLY_OK || rc == TC_ASSEMBLY_DAMAGED, "%s: assembly status %d", operand, (int)rc);
    tc_analyze_options ao = {.bound_threshold = 0.15, .jobs = 1};
    cr_assert_eq(tc_job_analyze(j, &ao), 0);
    tc_input_list_free(&in);
}

static bool same_text(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

#define EXPECT_SAME(field) \
    cr_expect(x->field == y->field, "%s: " #field " %.17g from the job, %.17g saved", what, (double)x->field, (double)y->field)

/* Every field a comparison reads, compared exactly (the label, the source and the carried cost
 * inputs say where a run came from, not what it measured). */
static void expect_same_run(const char *what, const tc_run_summary *x, const tc_run_summary *y) {
    EXPECT_SAME(world_size); EXPECT_SAME(has_step_time); EXPECT_SAME(step_time_us); EXPECT_SAME(split_known);
    EXPECT_SAME(share_compute); EXPECT_SAME(share_exposed_comm); EXPECT_SAME(share_exposed_transfer);
    EXPECT_SAME(share_exposed_wait); EXPECT_SAME(share_memory); EXPECT_SAME(share_idle);
    EXPECT_SAME(has_mfu); EXPECT_SAME(mfu); EXPECT_SAME(has_flops); EXPECT_SAME(flops_per_step);
    EXPECT_SAME(has_busbw); EXPECT_SAME(fabric_busbw_GBps); EXPECT_SAME(has_straggler); EXPECT_SAME(straggler_rank);
    cr_expect(same_text(x->tool_version, y->tool_version), "%s: tool_version", what);
    cr_expect(same_text(x->device, y->device), "%s: device '%s' against '%s'", what, x->device, y->device);
    cr_expect(same_text(x->verdict, y->verdict), "%s: verdict", what);
    EXPECT_SAME(partial); EXPECT_SAME(transfer_upper_bound); EXPECT_SAME(nodes); EXPECT_SAME(gpus_per_node);
    EXPECT_SAME(nodes_assumed); EXPECT_SAME(has_capture_time); EXPECT_SAME(capture_unix_s);
    char bx[TC_FINDING_TEXT], by[TC_FINDING_TEXT];
    tc_basis_list_text(bx, sizeof bx, x->basis, x->n_basis);
    tc_basis_list_text(by, sizeof by, y->basis, y->n_basis);
    cr_expect(!strcmp(bx, by), "%s: basis '%s' against '%s'", what, bx, by);
    EXPECT_SAME(n_basis);
    EXPECT_SAME(window_us); EXPECT_SAME(groups_scoped); EXPECT_SAME(inter_groups);
    EXPECT_SAME(inter_exposed_transfer_us); EXPECT_SAME(has_inter_busbw); EXPECT_SAME(inter_busbw_GBps);
    EXPECT_SAME(has_replay); EXPECT_SAME(replay_measured_step_us); EXPECT_SAME(replay_replayed_step_us);
    EXPECT_SAME(replay_identity_error); EXPECT_SAME(has_replay_reference); EXPECT_SAME(replay_reference_step_us);
    EXPECT_SAME(has_replay_projected); EXPECT_SAME(replay_projected_step_us);
    cr_expect(same_text(x->replay_reference, y->replay_reference), "%s: replay reference", what);
    EXPECT_SAME(n_colls);
    for (size_t i = 0; i < x->n_colls && i < y->n_colls; i++) {
        const tc_cmp_coll *cx = &x->colls[i], *cy = &y->colls[i];
        cr_expect(same_text(cx->name, cy->name), "%s: collective %zu name '%s' against '%s'", what, i, cx->name, cy->name);
        cr_expect(same_text(cx->process_group, cy->process_group), "%s: collective %zu group", what, i);
        cr_expect(cx->bytes == cy->bytes && cx->count == cy->count, "%s: collective %zu size or count", what, i);
        cr_expect(cx->transfer_us_median == cy->transfer_us_median, "%s: collective %zu transfer", what, i);
        cr_expect(cx->has_busbw == cy->has_busbw && cx->busbw_GBps == cy->busbw_GBps, "%s: collective %zu busbw", what, i);
    }
}

/* The run from the job against the run from its JSON, rendered here and saved by `analyze --json`
 * with a price (the saved cost inputs carry the traces' world size, which the summary's rank count
 * lacks when only some ranks were traced; the rendered JSON has no cost, so that is added here). */
static void expect_round_trip(const char *operand, const char *dir) {
    tc_job j;
    load_analyzed(&j, operand);
    tc_run_summary from_job, rendered, saved;
    tc_error e;
    tc_error_clear(&e);
    cr_assert_eq(tc_run_summary_from_job(&from_job, &j, operand, TC_RUN_AS_SAVED, &e), TC_OK, "%s", e.msg);
    cr_expect(!from_job.from_json && !strcmp(from_job.label, operand));
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    cr_assert_eq(tc_json_report_write(m, &j, 1), 0);
    fclose(m);
    cr_assert_eq(tc_result_json_parse(&rendered, text, "rendered", &e), TC_OK, "%s", e.msg);
    for (size_t i = 0; i < j.n_traces; i++)
        if (j.traces[i].world_size > rendered.world_size) rendered.world_size = (int)j.traces[i].world_size;
    char path[600];
    snprintf(path, sizeof path, "%s/saved.json", dir);
    cr_assert_eq(tu_sh(NULL, "%s analyze -q --price-per-gpu-hour 2 --json %s '%s'", tu_bin(), path, operand), 0);
    cr_assert(tc_result_json_is_saved(path));
    cr_assert_eq(tc_result_json_read(&saved, path, &e), TC_OK, "%s", e.msg);
    cr_expect(saved.from_json && !strcmp(saved.label, path));
    expect_same_run("rendered JSON", &from_job, &rendered);
    expect_same_run("saved JSON", &from_job, &saved);
    free(text);
    tc_run_summary_free(&from_job);
    tc_run_summary_free(&rendered);
    tc_run_summary_free(&saved);
    tc_job_free(&j);
}

Test(compare, run_from_job_equals_run_from_saved_json, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "g", "--straggler 2 --busbw-GBps 7.3");
    char job[600];
    snprintf(job, sizeof job, "%s/g", dir);
    expect_round_trip(job, dir);
    expect_round_trip("samples/", dir);
    expect_round_trip("samples/hta-pair", dir);
    snprintf(job, sizeof job, "%s/tpdp", dir); /* process groups of known scope (the inter-node figures) */
    cr_assert_eq(tu_sh(NULL, "%s -o %s --ranks 16 --tp 4 --gpus-per-node 8 --dp-busbw-GBps 12.5", tu_gen(), job), 0);
    expect_round_trip(job, dir);
    /* one rank (no transfer/wait split), and names with bytes that are not UTF-8 (U+FFFD in JSON) */
    snprintf(job, sizeof job, "%s/one", dir);
    cr_assert_eq(tu_sh(NULL, "%s -o %s --ranks 1 --steps 3 --seed 3", tu_gen(), job), 0);
    expect_round_trip(job, dir);
    snprintf(job, sizeof job, "%s/bad.json", dir);
    FILE *f = fopen(job, "w");
    cr_assert(f);
    fputs("{\"deviceProperties\":[{\"id\":0,\"name\":\"GPU\xff X\xc3\"}],\"traceEvents\":[\n"
          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":100,\"args\":{}},\n"
          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce\",\"pid\":0,\"tid\":9,\"ts\":100,\"dur\":333,"
          "\"args\":{\"Collective name\":\"all\xffreduce\",\"Process Group Name\":\"pg\x80\",\"In msg nelems\":1000,"
          "\"Out msg nelems\":1000,\"Group size\":1,\"dtype\":\"Float\"}}]}\n", f);
    fclose(f);
    expect_round_trip(job, dir);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(compare, json_numbers_round_as_written) {
    char buf[64];
    cr_expect_eq(tc_json_double_text(buf, sizeof buf, 0.1234567890123), 11);
    cr_expect_str_eq(buf, "0.123456789");
    cr_expect_eq(tc_json_double_round(0.1234567890123), 0.123456789);
    cr_expect_eq(tc_json_double_round(1.0 / 3), strtod("0.3333333333", NULL));
    tc_json_double_text(buf, sizeof buf, -0.0);
    cr_expect_str_eq(buf, "0");
    cr_expect(!signbit(tc_json_double_round(-0.0)));
    cr_expect(isinf(tc_json_double_round(INFINITY)));
    cr_expect_eq(tc_json_us_from_ns(1234567), strtod("1234.567", NULL));
    cr_expect_eq(tc_json_us_from_ns(-1), -0.001);
    char *t = tc_json_text_dup("a\xff\xc3 \xe2\x82\xac");
    cr_expect_str_eq(t, "a\xef\xbf\xbd\xef\xbf\xbd \xe2\x82\xac");
    free(t);
    cr_expect_null(tc_json_text_dup(NULL));
}

Test(compare, saved_result_reader_refuses_what_is_not_one) {
    tc_run_summary s;
    tc_error e;
    tc_error_clear(&e);
    cr_expect_eq(tc_result_json_parse(&s, "{\"schema\": ", "x.json", &e), TC_ERR_INPUT);
    cr_expect(!strncmp(e.msg, "x.json: not valid JSON", 22), "%s", e.msg);
    cr_expect_eq(tc_result_json_parse(&s, "{\"schema\": \"other/2\", \"summary\": {}}", "y.json", &e), TC_ERR_INPUT);
    cr_expect_str_eq(e.msg, "y.json: not a tracecost result (schema \"other/2\", want \"tracecost/1\")");
    cr_expect_eq(tc_result_json_parse(&s, "{\"schema\": \"tracecost/1\"}", "z.json", &e), TC_ERR_INPUT);
    cr_expect_str_eq(e.msg, "z.json: no \"summary\" object");
    cr_expect_null(s.label);
    /* the smallest result: defaults for everything it lacks */
    cr_assert_eq(tc_result_json_parse(&s, "{\"schema\": \"tracecost/1\", \"summary\": {\"ranks\": 1e300}}", "w.json", &e), TC_OK);
    cr_expect_eq(s.world_size, 1);
    cr_expect_str_eq(s.verdict, "unknown");
    cr_expect(!s.has_step_time && !s.has_straggler && s.n_colls == 0 && s.from_json);
    tc_run_summary_free(&s);
    /* sniffing: the schema key must come first; gzip and folders are traces */
    char *dir = tu_tmpdir();
    char p[600];
    snprintf(p, sizeof p, "%s/a.json", dir);
    cr_assert_eq(tu_sh(NULL, "printf ' \\n{ \"schema\" : \"tracecost/1\", \"x\": 1}' > %s", p), 0);
    cr_expect(tc_result_json_is_saved(p));
    cr_assert_eq(tu_sh(NULL, "printf '{\"x\": 1, \"schema\": \"tracecost/1\"}' > %s", p), 0);
    cr_expect(!tc_result_json_is_saved(p));
    cr_assert_eq(tu_sh(NULL, "printf '{\"schema\": \"tracecost/1\"}' | gzip > %s", p), 0);
    cr_expect(!tc_result_json_is_saved(p));
    cr_expect(!tc_result_json_is_saved(dir));
    cr_expect(!tc_result_json_is_saved("-"));
    cr_expect_eq(tc_result_json_read(&s, "/nonexistent/r.json", &e), TC_ERR_INPUT);
    cr_expect(strstr(e.msg, "/nonexistent/r.json: cannot open"), "%s", e.msg);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Issue 30: a saved result's times and counts are checked as strictly as a trace's (the key named),
 * "schema" is given once, an array of windows is refused, and a JSON error is one line with its
 * byte offset; a rank of both runs without a step time is not "only in A". */
Test(compare, saved_result_reader_checks_every_time_and_count) {
    static const struct { const char *doc, *msg; } bad[] = {
        {"{\"schema\":\"tracecost/1\",\"summary\":{\"step_time_us\":1e-300}}", "summary.step_time_us is 1e-300: shorter than 1 ns"},
        {"{\"schema\":\"tracecost/1\",\"summary\":{},\"ranks\":[{\"step_time_us\":1e999}]}", "ranks[0].step_time_us is 1e999: not a finite number"},
        {"{\"schema\":\"tracecost/1\",\"summary\":{},\"ranks\":[{\"idle_us\":\"7\"}]}", "ranks[0].idle_us is not a number"},
        {"{\"schema\":\"tracecost/1\",\"summary\":{},\"top_kernels\":[{\"name\":\"k\",\"time_us\":-1}]}", "top_kernels[0].time_us is -1: negative"},
        {"{\"schema\":\"tracecost/1\",\"summary\":{},\"top_kernels\":[{\"name\":\"k\",\"count\":1e300}]}", "top_kernels[0].count is 1e300: more than"},
        {"{\"schema\":\"tracecost/1\",\"summary\":{},\"collectives\":[{\"count\":2.5}]}", "collectives[0].count is 2.5: a count is a whole"},
        {"{\"schema\":\"tracecost/1\",\"schema\":\"other/9\",\"summary\":{}}", "\"schema\" is given 2 times"},
        {"[{\"schema\":\"tracecost/1\",\"summary\":{}},{\"schema\":\"tracecost/1\",\"summary\":{}}]", "a result of 2 profiler windows"},
        {"{\"schema\":\"tracecost/1\",\n\"summary\":{\"mfu\": NaN}}", "not valid JSON: byte 43: lexical error: invalid char in json text"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_run_summary s;
        tc_error e;
        tc_error_clear(&e);
        cr_expect_eq(tc_result_json_parse(&s, bad[i].doc, "r.json", &e), TC_ERR_INPUT, "%s: accepted", bad[i].doc);
        cr_expect(strstr(e.msg, bad[i].msg) && !strchr(e.msg, '\n'), "%s: '%s', want '%s'", bad[i].doc, e.msg, bad[i].msg);
    }
    /* null is unknown, not an error; a rank of both runs without a step time is "no step time" */
    tc_run_summary a, b;
    tc_error e;
    tc_error_clear(&e);
    const char *ra = "{\"schema\":\"tracecost/1\",\"summary\":{\"step_time_us\":100},\"ranks\":[{\"rank\":0,\"step_time_us\":100}]}";
    const char *rb = "{\"schema\":\"tracecost/1\",\"summary\":{\"step_time_us\":1e-3},\"ranks\":[{\"rank\":0,\"step_time_us\":null}]}";
    cr_assert_eq(tc_result_json_parse(&a, ra, "a.json", &e), TC_OK, "%s", e.msg);
    cr_assert_eq(tc_result_json_parse(&b, rb, "b.json", &e), TC_OK, "%s", e.msg);
    tc_comparison c;
    tc_cmp_cost none;
    memset(&none, 0, sizeof none);
    cr_assert_eq(tc_compare(&c, &a, &none, &b, &none, 0), TC_OK);
    cr_assert_eq(c.n_ranks, 1);
    cr_expect_eq(c.ranks[0].change, TC_CMP_NO_STEP_TIME);
    cr_expect(c.steps_per_s.has_ratio && isfinite(c.steps_per_s.ratio) && c.step_time_us.has_ratio);
    tc_comparison_free(&c);
    tc_run_summary_free(&a);
    tc_run_summary_free(&b);
}

/* Issue 18: a 4-GPU job against an 8-GPU job doing 4x the FLOPs per step. Per step A is cheaper
 * (half the GPUs), but per PFLOP of model FLOPs B is: the conclusion says B, per PFLOP, and the
 * HTML's mismatch box says the conclusion compares per PFLOP. */
Test(compare, different_work_is_compared_per_pflop, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "four", "--ranks 4");
    gen(dir, "eight", "--ranks 8 --gemm 4096,4096,8192");
    char args[1024];
    snprintf(args, sizeof args, "--html %s/c.html %s/four %s/eight", dir, dir, dir);
    yajl_val c = compare(dir, "c.json", args);
    cr_assert(YAJL_IS_FALSE(tu_get(c, "same_workload", NULL)));
    double fa = num_at(c, "metrics", "model_pflop_per_step", "a"), fb = num_at(c, "metrics", "model_pflop_per_step", "b");
    cr_assert(fabs(fb / fa - 4) < 0.01, "B does 4x the FLOPs per step: %.4g / %.4g", fb, fa);
    double sa = num_at(c, "metrics", "cost_per_step", "a"), sb = num_at(c, "metrics", "cost_per_step", "b");
    cr_assert(sa < sb, "per step A is cheaper: %g vs %g", sa, sb);
    cr_assert_str_eq(jstr(tu_get(c, "work_unit", NULL)), "pflop");
    cr_assert_str_eq(jstr(tu_get(c, "cheaper", NULL)), "B");
    cr_assert_str_eq(jstr(tu_get(c, "cheaper_by", NULL)), "cost_per_pflop");
    cr_assert_str_eq(jstr(tu_get(c, "reason", NULL)), "tflops_per_gpu");
    double pa = num_at(c, "metrics", "cost_per_pflop", "a"), pb = num_at(c, "metrics", "cost_per_pflop", "b");
    cr_assert(fabs(pa - sa / fa) < 1e-12 && fabs(pb - sb / fb) < 1e-12, "cost per PFLOP = cost per step / PFLOP");
    cr_assert(fabs(num_at(c, "cheaper_pct", NULL, NULL) - (pa - pb) / pa * 100) < 1e-6);
    const char *concl = jstr(tu_get(c, "conclusion", NULL));
    cr_assert(!strncmp(concl, "B is ", 5) && strstr(concl, "% cheaper per PFLOP of model FLOPs: its GPUs deliver "), "%s", concl);
    cr_assert(strstr(concl, "so they are compared per PFLOP of model FLOPs, not per step."), "%s", concl);
    char p[600];
    snprintf(p, sizeof p, "%s/c.html", dir);
    char *html = tu_read_file(p, NULL);
    cr_assert(strstr(html, "NOT THE SAME WORKLOAD: per-step figures compare different work; the conclusion compares them "
                           "per PFLOP of model FLOPs<ul>"), "the mismatch box agrees with the conclusion");
    cr_assert(strstr(html, "<p class=\"concl\" id=\"conclusion\">B is "));
    free(html);
    yajl_tree_free(c);
    /* tokens per step given for both (B inherits A's): per million tokens; B's own with --b- */
    snprintf(args, sizeof args, "--tokens-per-step 1e6 --b-tokens-per-step 4e6 %s/four %s/eight", dir, dir);
    c = compare(dir, "t.json", args);
    cr_assert_str_eq(jstr(tu_get(c, "work_unit", NULL)), "million_tokens");
    cr_assert_str_eq(jstr(tu_get(c, "cheaper", NULL)), "B");
    cr_assert(fabs(num_at(c, "metrics", "cost_per_million_tokens", "b") - num_at(c, "metrics", "cost_per_step", "b") / 4) < 1e-12);
    cr_assert_eq(num_at(c, "a", "tokens_per_step", NULL), 1e6);
    yajl_tree_free(c);
    /* the same samples per step on both: per 1,000 samples, which is per step here, so A */
    snprintf(args, sizeof args, "--samples-per-step 512 %s/four %s/eight", dir, dir);
    c = compare(dir, "s.json", args);
    cr_assert_str_eq(jstr(tu_get(c, "work_unit", NULL)), "1000_samples");
    cr_assert_str_eq(jstr(tu_get(c, "cheaper", NULL)), "A");
    yajl_tree_free(c);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Different work and no unit known for both: no side is named, and the conclusion says which input
 * would settle it; the terminal's mismatch title agrees. */
Test(compare, no_common_unit_of_work_names_no_side, .timeout = 120) {
    char *dir = tu_tmpdir();
    gen(dir, "shapes", "--ranks 4");
    gen(dir, "noshapes", "--ranks 8 --no-shapes");
    char args[1024];
    snprintf(args, sizeof args, "%s/shapes %s/noshapes", dir, dir);
    yajl_val c = compare(dir, "c.json", args);
    cr_assert(YAJL_IS_NULL(tu_get(c, "cheaper", NULL)));
    cr_assert(YAJL_IS_NULL(tu_get(c, "work_unit", NULL)));
    cr_assert(YAJL_IS_NULL(tu_get(c, "cheaper_by", NULL)));
    cr_assert(YAJL_IS_NULL(tu_get(c, "monthly_difference", NULL)));
    const char *concl = jstr(tu_get(c, "conclusion", NULL));
    const char *head = "No cheaper side: the runs do different work per step (different job sizes";
    cr_assert(!strncmp(concl, head, strlen(head)), "%s", concl);
    cr_assert(strstr(concl, "model FLOPs are known for A only: pass --tokens-per-step (or --samples-per-step) for both "
                            "runs, or give B as traces recorded with record_shapes=True."), "%s", concl);
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s compare %s 2>/dev/null", tu_bin(), args), 0);
    head = "NOT THE SAME WORKLOAD: per-step figures compare different work, and no common unit of work is known,";
    cr_assert(!strncmp(out, head, strlen(head)), "%.200s", out);
    cr_assert(strstr(out, "monthly difference: n/a (no common unit of work)"), "%s", out);
    free(out);
    /* tokens per step settle it */
    snprintf(args, sizeof args, "--tokens-per-step 65536 %s/shapes %s/noshapes", dir, dir);
    yajl_val t = compare(dir, "t.json", args);
    cr_assert_str_eq(jstr(tu_get(t, "work_unit", NULL)), "million_tokens");
    cr_assert_str_eq(jstr(tu_get(t, "cheaper", NULL)), "A");
    yajl_tree_free(t);
    yajl_tree_free(c);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ---- analyze and compare price one run alike (issue 27) ----------------------------------- */

/* Every key of analyze's cost value x against compare's y: strings, booleans and nulls exactly;
 * numbers to the JSON's 10 digits (a saved result holds the shares the cost rests on at 10
 * digits, so the last printed digit may differ from analyze's, which prices full precision). */
static void expect_same_cost(const char *what, const char *path, yajl_val x, yajl_val y) {
    cr_assert(x && y, "%s: %s missing on a side", what, path);
    if (YAJL_IS_NUMBER(x) && YAJL_IS_NUMBER(y)) {
        double a = YAJL_GET_DOUBLE(x), b = YAJL_GET_DOUBLE(y);
        cr_expect(fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)), "%s: %s is %.17g from analyze, %.17g from compare", what,
                  path, a, b);
    } else if (YAJL_IS_STRING(x) && YAJL_IS_STRING(y))
        cr_expect_str_eq(x->u.string, y->u.string, "%s: %s", what, path);
    else if (YAJL_IS_OBJECT(x) && YAJL_IS_OBJECT(y)) {
        cr_expect_eq(x->u.object.len, y->u.object.len, "%s: %s has %zu keys from analyze, %zu from compare", what, path,
                     x->u.object.len, y->u.object.len);
        for (size_t i = 0; i < x->u.object.len && i < y->u.object.len; i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", path, x->u.object.keys[i]);
            cr_expect_str_eq(x->u.object.keys[i], y->u.object.keys[i], "%s: %s", what, sub);
            expect_same_cost(what, sub, x->u.object.values[i], y->u.object.values[i]);
        }
    } else if (YAJL_IS_ARRAY(x) && YAJL_IS_ARRAY(y)) {
        cr_expect_eq(x->u.array.len, y->u.array.len, "%s: %s length", what, path);
        for (size_t i = 0; i < x->u.array.len && i < y->u.array.len; i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            expect_same_cost(what, sub, x->u.array.values[i], y->u.array.values[i]);
        }
    } else
        cr_expect(x->type == y->type, "%s: %s is of another type from analyze than from compare", what, path);
}

/* A TP+DP job over two nodes priced by `analyze --json` and by `compare` (against itself and
 * against another run, reading the traces or the saved result) gives the same cost, what-if on the
 * inter-node groups included, with and without a fabric, a catalog GPU or a price. */
Test(compare, analyze_and_compare_price_one_run_alike, .timeout = 240) {
    char *dir = tu_tmpdir();
    tu_gen_job(dir, "job", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5");
    tu_gen_job(dir, "other", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 50 --seed 3");
    static const char *const flags[] = {
        "--gpus-per-node 4 --price-per-gpu-hour 2.5",
        "--gpus-per-node 4 --price-per-gpu-hour 2.5 --fabric eth-100g --fabric-target ib-ndr",
        "--gpus-per-node 4 --gpu h100-sxm --fabric eth-100g --fabric-target ib-ndr --fabric-upgrade-cost 250000",
        "--gpus-per-node 4 --gpu h100-sxm --utilization 0.8 --fabric-target-GBps 100",
    };
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        char saved[600], out[600];
        snprintf(saved, sizeof saved, "%s/saved%zu.json", dir, k);
        cr_assert_eq(tu_sh(NULL, "%s analyze -q %s --json %s %s/job", tu_bin(), flags[k], saved, dir), 0, "%s", flags[k]);
        yajl_val a = tu_json_file(saved), cost = tu_get(a, "cost", NULL);
        cr_assert(cost && YAJL_IS_OBJECT(cost), "analyze %s: no cost", flags[k]);
        yajl_val wi = tu_get(cost, "what_if", NULL);
        cr_assert(wi, "analyze %s: no what_if key", flags[k]);
        if (strstr(flags[k], "--fabric-target")) /* the what-if of the inter-node groups alone */
            cr_assert(YAJL_IS_OBJECT(wi) && YAJL_IS_TRUE(tu_get(wi, "inter_node_only", NULL)), "analyze %s", flags[k]);
        const char *sides[][2] = {{"%s/job", "%s/job"}, {"%s/job", "%s/other"}, {"%s/other", "%s/job"}};
        for (size_t s = 0; s < 3; s++)
            for (int from_saved = 0; from_saved < 2; from_saved++) {
                char opa[600], opb[600], what[2000];
                if (from_saved && !strcmp(sides[s][0], "%s/job")) snprintf(opa, sizeof opa, "%s", saved);
                else snprintf(opa, sizeof opa, sides[s][0], dir);
                if (from_saved && !strcmp(sides[s][1], "%s/job")) snprintf(opb, sizeof opb, "%s", saved);
                else snprintf(opb, sizeof opb, sides[s][1], dir);
                snprintf(out, sizeof out, "%s/c%zu_%zu_%d.json", dir, k, s, from_saved);
                int rc = tu_sh(NULL, "%s compare -q %s --json %s %s %s", tu_bin(), flags[k], out, opa, opb);
                cr_assert_eq(rc, 0, "compare %s %s %s: exit %d", flags[k], opa, opb, rc);
                yajl_val c = tu_json_file(out);
                for (int side = 0; side < 2; side++) {
                    if (strcmp(sides[s][side], "%s/job")) continue;
                    snprintf(what, sizeof what, "%s, side %c of compare %s %s", flags[k], side ? 'B' : 'A', opa, opb);
                    expect_same_cost(what, "cost", cost, tu_get(c, side ? "b" : "a", "cost", NULL));
                }
                yajl_tree_free(c);
            }
        yajl_tree_free(a);
    }
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* A saved result's basis_summary is read back into the codes and numbers it was worded from
 * (reports/findings_text.h tc_basis_list_text), so a compared run words it as analyze did. */
Test(compare, saved_basis_reads_back_as_codes) {
    const tc_basis_reason reasons[] = {
        {.code = TC_BASIS_WORLD_SIZE, .count = 2, .of = 128},
        {.code = TC_BASIS_GROUP_RANKS, .count = 3, .present = 4, .size = 8},
        {.code = TC_BASIS_UNMATCHED, .count = 3, .of = 40, .share = 0.126},
        {.code = TC_BASIS_SALVAGED, .count = 1, .of = 4},
        {.code = TC_BASIS_NOT_SPLIT, .count = 1},
    };
    const tc_basis_reason unmatched = {.code = TC_BASIS_NOT_SPLIT, .count = 6};
    for (int k = 0; k < 2; k++) {
        tc_basis_reason rs[TC_MAX_BASIS];
        memcpy(rs, reasons, sizeof reasons);
        if (k) rs[4] = unmatched;
        char words[TC_FINDING_TEXT], doc[2 * TC_FINDING_TEXT], back[TC_FINDING_TEXT];
        tc_basis_list_text(words, sizeof words, rs, TC_MAX_BASIS);
        snprintf(doc, sizeof doc, "{\"schema\":\"tracecost/1\",\"summary\":{\"ranks\":2,\"basis\":\"partial\","
                 "\"basis_summary\":\"%s\",\"shares\":{\"compute\":1,\"exposed_comm\":0,\"memory_exposed\":0,\"idle\":0}}}",
                 words);
        tc_run_summary s;
        tc_error e;
        tc_error_clear(&e);
        cr_assert_eq(tc_result_json_parse(&s, doc, "doc", &e), TC_OK, "%s", e.msg);
        cr_expect_eq(s.n_basis, TC_MAX_BASIS, "%s", words);
        cr_expect_str_eq(tc_basis_list_text(back, sizeof back, s.basis, s.n_basis), words);
        tc_run_summary_free(&s);
    }
    /* a result saved before issue 28 worded unmatched collectives by their share alone */
    tc_run_summary s;
    tc_error e;
    tc_error_clear(&e);
    cr_assert_eq(tc_result_json_parse(&s, "{\"schema\":\"tracecost/1\",\"summary\":{\"ranks\":2,\"basis\":\"partial\","
                 "\"basis_summary\":\"13% of exposed communication unmatched\",\"shares\":{\"compute\":1,"
                 "\"exposed_comm\":0,\"memory_exposed\":0,\"idle\":0}}}", "old", &e), TC_OK, "%s", e.msg);
    cr_expect_eq(s.n_basis, 1);
    cr_expect_eq(s.basis[0].code, TC_BASIS_UNMATCHED);
    cr_expect_float_eq(s.basis[0].share, 0.13, 1e-9);
    tc_run_summary_free(&s);
}
