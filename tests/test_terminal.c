/* test_terminal.c: the terminal summary fits the terminal (issue 21): COLUMNS, else the terminal's
 * own width, else 100 in a pipe, held to 80..120; at 80 columns no line of any section is longer
 * (the bundled job, a 2-node TP+DP job with its fabric what-if, an idle-cause job, compare, cost);
 * kernel names that share a long start are cut so that their rows differ; every table header says
 * its unit and aggregation; a legend explains the abbreviations; µs, never "us"; MFU once. The
 * labels of issue 31: collective names readable at 80/100/120 columns with the group "stream N",
 * the process-groups n the ranks of a group, singular counts, the no-cost hint once. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reports/termtext.h"
#include "testutil.h"

/* `tracecost ARGS` with COLUMNS=cols (0: unset) and stdout a pipe; its stdout. */
static char *run_at(int cols, const char *args) {
    char *out = NULL, env[32] = "env -u COLUMNS";
    if (cols) snprintf(env, sizeof env, "env COLUMNS=%d", cols);
    int rc = tu_sh(&out, "%s NO_COLOR=1 %s %s 2>/dev/null", env, tu_bin(), args);
    cr_assert(rc == 0 || rc == 3, "tracecost %s: exit %d\n%s", args, rc, out);
    return out;
}

/* The longest line, in columns (a UTF-8 sequence is one). */
static size_t widest(const char *text) {
    size_t best = 0, cols = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') { if (cols > best) best = cols; cols = 0; continue; }
        if (*p != '\r' && (*p & 0xc0) != 0x80) cols++; /* a pseudo-terminal ends lines with CR LF */
    }
    return cols > best ? cols : best;
}

static size_t count(const char *text, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

Test(terminal, every_section_fits_80_columns, .timeout = 180) {
    char *dir = tu_tmpdir();
    tu_gen_job(dir, "tpdp", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5 --file-names handler --steps 2 --seed 19");
    tu_gen_job(dir, "idle", "--ranks 1 --steps 3 --idle-cause mixed --seed 7");
    tu_gen_job(dir, "straggler", "--ranks 8 --steps 3 --straggler 3 --seed 2");
    char args[4][600];
    snprintf(args[0], sizeof args[0], "analyze samples/");
    snprintf(args[1], sizeof args[1], "analyze --fabric eth-100g --fabric-target ib-ndr --fabric-upgrade-cost 200000 %s/tpdp/",
             dir);
    snprintf(args[2], sizeof args[2], "analyze %s/idle/", dir);
    snprintf(args[3], sizeof args[3], "compare samples/ %s/tpdp/", dir);
    const char *sections[] = {"Verdict: ", "\nPer rank ", "\nWhy the GPU waits ", "\nSteps ", "\nProcess groups ",
                              "\nCollectives ", "\nTop kernels ", "\nrent or own", "\ninputs\n", "\nActions\n"};
    for (int k = 0; k < 4; k++) {
        char *out = run_at(80, args[k]);
        tu_expect_width(out, 80);
        cr_expect_leq(widest(out), 80, "tracecost %s at 80 columns:\n%s", args[k], out);
        for (size_t s = 0; k < 2 && s < sizeof sections / sizeof sections[0]; s++)
            cr_expect_not_null(strstr(out, sections[s]), "%s: no section '%s'", args[k], sections[s]);
        free(out);
    }
    char *out = run_at(80, "cost --gpu h100-sxm --gpus 64 --network-efficiency 70% --fabric-GBps 50 "
                           "--fabric-target-GBps 400 --fabric-upgrade-cost 500000");
    cr_expect_leq(widest(out), 80, "cost at 80 columns:\n%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(terminal, width_from_columns_the_terminal_or_100) {
    char *out = run_at(0, "analyze samples/");
    cr_expect_leq(widest(out), 100);
    cr_expect_gt(widest(out), 90, "a pipe without COLUMNS is 100 columns wide");
    free(out);
    out = run_at(120, "analyze samples/");
    cr_expect_leq(widest(out), 120);
    cr_expect_gt(widest(out), 100, "COLUMNS=120 is used");
    free(out);
    out = run_at(300, "analyze samples/");
    cr_expect_leq(widest(out), 120, "wider terminals get 120");
    free(out);
    out = run_at(40, "analyze samples/");
    cr_expect_leq(widest(out), 80, "narrower ones get the 80-column layout");
    free(out);
    /* on a terminal of 90 columns (script(1) gives a pseudo-terminal; stty sets its size) */
    char *inner = NULL, *pty = NULL;
    cr_assert(asprintf(&inner, "stty cols 90 rows 50; env -u COLUMNS NO_COLOR=1 %s analyze samples/", tu_bin()) > 0);
    int rc = tu_sh(&pty, "SHELL=/bin/sh script -qec \"%s\" /dev/null </dev/null", inner);
    cr_assert_eq(rc, 0, "%s", pty);
    cr_expect_leq(widest(pty), 90, "%s", pty);
    cr_expect_gt(widest(pty), 80, "the terminal's width is used:\n%s", pty);
    free(pty);
    free(inner);
}

/* Four kernels whose names share their first 70 bytes: at any width their rows differ, and every
 * cut is marked with "…". */
Test(terminal, kernel_names_that_share_a_long_start_stay_apart) {
    char *dir = tu_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/rank0.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"traceEvents\":[\n");
    const char *types[] = {"float", "c10::Half", "c10::BFloat16", "double"};
    for (int k = 0; k < 4; k++)
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::native::elementwise_kernel<128, 4, "
                   "at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<%s> >(at::TensorIteratorBase&, "
                   "at::native::CUDAFunctor_add<%s> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast)\","
                   "\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,\"args\":{}},\n", types[k], types[k], k * 100, 90 - k * 10);
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":500,\"dur\":10,\"args\":{}}\n]}\n");
    fclose(f);
    for (int cols = 80; cols <= 120; cols += 20) {
        char args[600];
        snprintf(args, sizeof args, "analyze --no-cost %s", path);
        char *out = run_at(cols, args);
        const char *t = strstr(out, "\nTop kernels");
        cr_assert_not_null(t, "%s", out);
        char rows[4][600];
        int n = 0;
        for (const char *l = strstr(t, "\nvoid "); l && n < 4; l = strstr(l + 1, "\nvoid ")) {
            size_t len = strcspn(l + 1, "\n");
            snprintf(rows[n++], sizeof rows[0], "%.*s", (int)len, l + 1);
        }
        cr_assert_eq(n, 4, "%s", t);
        for (int a = 0; a < 4; a++) {
            cr_expect_not_null(strstr(rows[a], "\xe2\x80\xa6"), "a cut name without …: %s", rows[a]);
            for (int b = a + 1; b < 4; b++) cr_expect_str_neq(rows[a], rows[b]);
            /* the name cells differ, not only the figures after them */
            cr_expect(strncmp(rows[a], rows[(a + 1) % 4], (size_t)cols - 40) != 0, "%s\n%s", rows[a], rows[(a + 1) % 4]);
        }
        tu_expect_width(out, (size_t)cols);
        free(out);
    }
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

Test(terminal, headers_say_unit_and_aggregation_and_a_legend_explains) {
    char *out = tu_unwrap(run_at(100, "analyze samples/"));
    cr_expect_not_null(strstr(out, " legend: exp = exposed"), "%s", out);
    cr_expect_not_null(strstr(out, "c/c = all communication-kernel time / compute time"), "%s", out);
    cr_expect_not_null(strstr(out, "MFU, HFU = model and hardware FLOPs utilization"), "%s", out);
    /* the collectives' transfer is a median instance, the wait a sum: the headers say so */
    cr_expect_not_null(strstr(out, "µs, med"), "%s", out);
    cr_expect_not_null(strstr(out, "µs, sum"), "%s", out);
    cr_expect_not_null(strstr(out, "ms, sum  launches % comp achieved"), "%s", out);
    cr_expect_not_null(strstr(out, "ms, mean"), "%s", out);
    cr_expect_not_null(strstr(out, "letters: H = 730 hours a month, N = --gpus, P = --price-per-gpu-hour"), "%s", out);
    const char *us[] = {" us ", " us,", " us;", " us)", " us\n"};
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) cr_expect_null(strstr(out, us[i]), "'us' instead of µs:\n%s", out);
    cr_expect_eq(count(out, "MFU 10.4%"), 1, "MFU printed more than once:\n%s", out);
    free(out);
}

Test(terminal, name_cells_keep_the_difference) {
    const char *names[] = {"void at::native::elementwise_kernel<128, 4, float>(int)",
                           "void at::native::elementwise_kernel<128, 4, double>(int)", "short", "short"};
    char cell[4 * 40 + 1];
    cr_expect_str_eq(tc_term_name_cell(cell, sizeof cell, names[0], names, 4, -30), "void at::n…128, 4, float>(int)");
    cr_expect_str_eq(tc_term_name_cell(cell, sizeof cell, names[1], names, 4, -30), "void at::n…28, 4, double>(int)");
    cr_expect_str_eq(tc_term_name_cell(cell, sizeof cell, names[2], names, 4, -8), "short   ");
    /* a difference inside the cut: the plain cut keeps it */
    const char *early[] = {"alpha_kernel_with_a_long_tail_xxxxxxxxxxxx", "beta_kernel_with_a_long_tail_xxxxxxxxxxxx"};
    cr_expect_str_eq(tc_term_name_cell(cell, sizeof cell, early[0], early, 2, 12), "alpha_kerne…");
    /* the difference in the middle of a long name: head, "…", the part around it, "…" */
    const char *mid[] = {"prefix_prefix_prefix_prefix_A_suffix_suffix_suffix_suffix",
                         "prefix_prefix_prefix_prefix_B_suffix_suffix_suffix_suffix"};
    tc_term_name_cell(cell, sizeof cell, mid[0], mid, 2, -24);
    cr_expect_not_null(strstr(cell, "_A_"), "%s", cell);
    cr_expect_eq(count(cell, "\xe2\x80\xa6"), 2, "%s", cell);
    char items_out[400];
    FILE *m = fmemopen(items_out, sizeof items_out, "w");
    const char *items[] = {"compute 66.1%", "exposed comm 28.7% (transfer 25.0%, wait 3.8%)", "memory 1.0%", "idle 4.2%"};
    tc_term_join(m, items, 4, " | ", 2, 4, 40);
    fclose(m);
    cr_expect_str_eq(items_out, "  compute 66.1%\n    exposed comm 28.7% (transfer 25.0%,\n    wait 3.8%)\n    memory 1.0% | idle 4.2%\n");
}

/* The Collectives section of out (up to its legend), NULL when there is none; owned by out. */
static char *collectives_section(char *out) {
    char *s = strstr(out, "\nCollectives ");
    if (!s) return NULL;
    char *end = strstr(s, "\n  n = ranks in the group");
    if (end) *end = '\0';
    return s;
}

/* Issue 31 item 1: a SendRecv job without process-group args (hta-pair) at 80, 100 and 120
 * columns: the kernel's name is readable (its SendRecv part on a line, never a "…ernel_" cut), the
 * group is "stream N" alone, and every line fits. */
Test(terminal, collective_names_readable_at_80_100_120) {
    static const int widths[] = {80, 100, 120};
    for (size_t w = 0; w < 3; w++) {
        char *out = run_at(widths[w], "analyze samples/hta-pair/");
        cr_expect_leq(widest(out), (size_t)widths[w], "at %d columns:\n%s", widths[w], out);
        char *sec = collectives_section(out);
        cr_assert_not_null(sec, "no Collectives section at %d columns:\n%s", widths[w], out);
        cr_expect_geq(count(sec, "ncclKernel_SendRecv_RING_SIMPLE"), 2, "at %d columns the names are cut:\n%s", widths[w], sec);
        cr_expect_null(strstr(sec, "\xe2\x80\xa6" "ernel_"), "at %d columns a name cut inside:\n%s", widths[w], sec);
        cr_expect_null(strstr(sec, "stre\xe2\x80\xa6"), "at %d columns the group is cut:\n%s", widths[w], sec);
        cr_expect_geq(count(sec, " stream 84 "), 1, "at %d columns no 'stream 84' group:\n%s", widths[w], sec);
        cr_expect_eq(count(sec, "stream 84:"), 0, "at %d columns the group repeats the name:\n%s", widths[w], sec);
        free(out);
    }
}

/* Issue 31 item 1: JSON and CSV name a group without process-group args "stream N", never with the
 * kernel's name after it. */
Test(labels, stream_group_in_json_and_csv) {
    char *dir = tu_tmpdir(), *out = NULL;
    int rc = tu_sh(&out, "%s analyze --json - --csv %s/csv samples/hta-pair/ 2>/dev/null", tu_bin(), dir);
    cr_assert(rc == 0 || rc == 3, "exit %d", rc);
    cr_expect_not_null(strstr(out, "\"process_group\": \"stream 84\""), "JSON:\n%s", out);
    cr_expect_null(strstr(out, "\"stream 84: "), "JSON repeats the kernel's name:\n%s", out);
    free(out);
    rc = tu_sh(&out, "cat %s/csv/collectives.csv", dir);
    cr_assert_eq(rc, 0);
    cr_expect_not_null(strstr(out, ",stream 84,"), "CSV:\n%s", out);
    cr_expect_null(strstr(out, "stream 84: "), "CSV repeats the kernel's name:\n%s", out);
    free(out);
}

/* Issue 31 item 5: singular counts read singular: one dropped kernel per rank is "1 collective
 * kernel", a one-step job's HTML "Step time over 1 step:". */
Test(labels, singular_counts_read_singular, .timeout = 60) {
    char *dir = tu_tmpdir(), *out = NULL;
    tu_gen_job(dir, "drop", "--ranks 4 --steps 3 --drop-kernel 1:4 --clock-offset-us 2000 --seed 8");
    tu_gen_job(dir, "one", "--ranks 2 --steps 1 --seed 5");
    int rc = tu_sh(&out, "NO_COLOR=1 COLUMNS=120 %s analyze %s/drop/ 2>&1", tu_bin(), dir);
    cr_assert(rc == 0 || rc == 3, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, ": 1 collective kernel could not be matched"), "%s", out);
    cr_expect_null(strstr(out, " 1 collective kernels"), "%s", out);
    free(out);
    rc = tu_sh(&out, "%s analyze --html - %s/one/ 2>/dev/null", tu_bin(), dir);
    cr_assert(rc == 0 || rc == 3, "exit %d", rc);
    cr_expect_not_null(strstr(out, "Step time over 1 step:"), "no singular step line");
    cr_expect_null(strstr(out, "over 1 steps"), "plural for one step");
    free(out);
}

/* Issue 31 item 5: the process-groups table's n is the ranks of the group (4 for the bundled job's
 * default group), and its legend says so. */
Test(labels, process_group_n_is_its_ranks) {
    char *out = run_at(100, "analyze samples/");
    char *sec = strstr(out, "\nProcess groups ");
    cr_assert_not_null(sec, "%s", out);
    char *row = strstr(sec, "\ndefault_pg "), n[16] = "";
    cr_assert_not_null(row, "%s", sec);
    cr_expect_eq(sscanf(row, " %*s %15s", n), 1);
    cr_expect_str_eq(n, "4", "n of the 4-rank default group:\n%s", sec);
    cr_expect_not_null(strstr(sec, "n = ranks in each group"), "%s", sec);
    free(out);
}

/* Issue 31 item 5: a missing price is said once, its hint once. */
Test(labels, no_cost_message_says_its_hint_once) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s analyze --json - samples/hta-pair/ 2>/dev/null", tu_bin());
    cr_assert(rc == 0 || rc == 3, "exit %d", rc);
    char *m = strstr(out, "no cost section:");
    cr_assert_not_null(m, "no cost note");
    cr_expect_leq(count(m, "--gpu NAME"), 1, "%.300s", m);
    free(out);
}
