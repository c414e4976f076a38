/* test_outputs.c: outputs never clobber (issue 21): an output that names an input (any spelling: a
 * "./" prefix, a symbolic link, a file found in an input folder, a config file), two outputs on
 * standard output, or one file for two outputs is refused with exit 1 before anything is read or
 * written; every file is written before the terminal summary (a summary cut short by `| head` loses
 * no file); and stderr says what was written and its size, except with -q. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "testutil.h"

/* A scratch folder holding a copy of the bundled 4-rank job in job/. */
static char *job_copy(void) {
    char *d = tu_tmpdir();
    cr_assert_eq(tu_sh(NULL, "mkdir %s/job && cp samples/rank*.pt.trace.json.gz %s/job/", d, d), 0);
    return d;
}

static void rm_rf(char *d) {
    tu_sh(NULL, "rm -rf '%s'", d);
    free(d);
}

static off_t size_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Runs `tracecost ARGS` in folder d; expects exit 1 with needle in its output and no file changed:
 * the ranks' sizes stay those of the samples and no out.* appears. */
static void expect_refused(const char *d, const char *args, const char *needle) {
    char *out = NULL, *bin = realpath(tu_bin(), NULL);
    cr_assert_not_null(bin);
    int rc = tu_sh(&out, "cd %s && %s %s", d, bin, args);
    free(bin);
    cr_expect_eq(rc, 1, "tracecost %s: exit %d, want 1\n%s", args, rc, out);
    cr_expect_not_null(strstr(out, needle), "tracecost %s: expected '%s' in:\n%s", args, needle, out);
    char p[512];
    for (int r = 0; r < 4; r++) {
        snprintf(p, sizeof p, "%s/job/rank%d.pt.trace.json.gz", d, r);
        char s[64];
        snprintf(s, sizeof s, "samples/rank%d.pt.trace.json.gz", r);
        cr_expect_eq(size_of(p), size_of(s), "tracecost %s changed %s", args, p);
    }
    snprintf(p, sizeof p, "%s/out.json", d);
    cr_expect_eq(size_of(p), -1, "tracecost %s wrote out.json", args);
    snprintf(p, sizeof p, "%s/out.html", d);
    cr_expect_eq(size_of(p), -1, "tracecost %s wrote out.html", args);
    free(out);
}

Test(outputs, an_output_that_is_an_input_is_refused_in_any_spelling) {
    char *d = job_copy();
    cr_assert_eq(tu_sh(NULL, "cd %s && ln -s job/rank1.pt.trace.json.gz link.gz && echo 'utilization = 0.9' > c.conf", d), 0);
    expect_refused(d, "analyze --json job/rank0.pt.trace.json.gz job/", "is the input job/rank0.pt.trace.json.gz");
    expect_refused(d, "analyze --html ./job/../job/rank2.pt.trace.json.gz job/", "writing it would destroy that input");
    expect_refused(d, "analyze --json link.gz job/rank1.pt.trace.json.gz job/rank0.pt.trace.json.gz", "--json link.gz is the input");
    expect_refused(d, "analyze --json c.conf --config c.conf job/", "--json c.conf is the input c.conf");
    expect_refused(d, "compare --html job/rank3.pt.trace.json.gz job/ job/", "--html job/rank3.pt.trace.json.gz is the input");
    expect_refused(d, "cost --config ./c.conf --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2 --json c.conf",
                   "--json c.conf is the input ./c.conf");
    rm_rf(d);
}

Test(outputs, two_outputs_on_stdout_or_in_one_file_are_refused) {
    char *d = job_copy();
    expect_refused(d, "analyze --json - --html - job/", "--json and --html both write to standard output");
    expect_refused(d, "compare --json - --html - job/ job/", "both write to standard output");
    expect_refused(d, "analyze --json out.json --html ./out.json job/", "--json out.json and --html ./out.json are the same file");
    expect_refused(d, "analyze --json out.json --html job/../out.json job/", "are the same file");
    expect_refused(d, "compare --json out.json --html out.json job/ job/", "are the same file");
    /* devices may be named twice */
    char *out = NULL;
    cr_expect_eq(tu_sh(&out, "%s analyze -q --json /dev/null --html /dev/null samples/", tu_bin()), 0, "%s", out);
    cr_expect_str_eq(out, "");
    free(out);
    rm_rf(d);
}

/* The summary's reader closes the pipe after one line: the JSON is whole all the same. */
Test(outputs, files_are_written_before_the_summary) {
    char *d = tu_tmpdir(), *out = NULL;
    tu_sh(&out, "%s analyze --json %s/a.json --html %s/a.html samples/ | head -1", tu_bin(), d, d);
    char p[512];
    snprintf(p, sizeof p, "%s/a.json", d);
    yajl_val v = tu_json_file(p);
    cr_expect_not_null(tu_get(v, "summary", NULL));
    yajl_tree_free(v);
    snprintf(p, sizeof p, "%s/a.html", d);
    char *html = tu_read_file(p, NULL);
    cr_expect_not_null(strstr(html, "</html>"), "the HTML is cut short");
    free(html);
    free(out);
    rm_rf(d);
}

/* n as stderr tells a size: 12,345. */
static const char *grouped(char bytes[32], size_t n) {
    char digits[32];
    size_t k = 0;
    snprintf(digits, sizeof digits, "%zu", n);
    for (size_t i = 0, len = strlen(digits); i < len; i++) {
        if (i && (len - i) % 3 == 0) bytes[k++] = ',';
        bytes[k++] = digits[i];
    }
    bytes[k] = 0;
    return bytes;
}

Test(outputs, stderr_says_what_was_written_and_its_size) {
    char *d = tu_tmpdir(), *out = NULL, want[600], p[512];
    cr_assert_eq(tu_sh(&out, "%s analyze --json %s/a.json samples/ 2>&1 >/dev/null", tu_bin(), d), 0);
    snprintf(p, sizeof p, "%s/a.json", d);
    char *json = tu_read_file(p, NULL);
    char bytes[32];
    snprintf(want, sizeof want, "tracecost analyze: wrote %s/a.json (%s bytes)\n", d, grouped(bytes, strlen(json)));
    cr_expect_str_eq(out, want);
    free(out);
    free(json);
    cr_assert_eq(tu_sh(&out, "%s analyze -q --json %s/b.json samples/", tu_bin(), d), 0);
    cr_expect_str_eq(out, "", "-q says nothing: %s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2 --json %s/c.json 2>&1 >/dev/null",
                       tu_bin(), d), 0);
    cr_expect(strstr(out, "tracecost cost: wrote ") && strstr(out, "/c.json ("), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s compare --html %s/c.html samples/ samples/hta-pair/ 2>&1 >/dev/null", tu_bin(), d), 0);
    cr_expect(strstr(out, "tracecost compare: wrote ") && strstr(out, "/c.html ("), "%s", out);
    free(out);
    rm_rf(d);
}

/* A forgotten argument (issue 30): `--json *.json.gz` takes the first trace for the output; it is
 * refused (exit 1, the trace untouched) unless --force, and a previous result is replaced. */
Test(outputs, a_trace_taken_for_an_output_is_refused_unless_force) {
    char *d = job_copy();
    expect_refused(d, "analyze --json job/rank0.pt.trace.json.gz job/rank1.pt.trace.json.gz job/rank2.pt.trace.json.gz",
                   "--json job/rank0.pt.trace.json.gz: the file is a trace (gzip): refusing to overwrite it");
    expect_refused(d, "compare --html job/rank0.pt.trace.json.gz job/rank1.pt.trace.json.gz job/rank2.pt.trace.json.gz",
                   "pass --force to replace it");
    expect_refused(d, "timeline -o job/rank0.pt.trace.json.gz job/rank1.pt.trace.json.gz", "the file is a trace (gzip)");
    char *out = NULL, *bin = realpath(tu_bin(), NULL);
    cr_assert_not_null(bin);
    cr_expect_eq(tu_sh(&out, "cd %s && %s analyze -q --json r.json job/ && %s analyze -q --json r.json job/ && "
                       "cp job/rank3.pt.trace.json.gz f.gz && %s analyze -q --force --json f.gz job/", d, bin, bin, bin),
                 0, "%s", out);
    free(out);
    free(bin);
    char p[512];
    snprintf(p, sizeof p, "%s/f.gz", d);
    yajl_val v = tu_json_file(p); /* --force: the trace is replaced by the report */
    cr_expect_not_null(tu_get(v, "summary", NULL));
    yajl_tree_free(v);
    rm_rf(d);
}

/* A write that fails (here: past the file size limit) leaves the old file whole and no temporary
 * file beside it. */
Test(outputs, a_failed_write_leaves_the_old_file_whole) {
    char *d = tu_tmpdir(), *out = NULL, p[512];
    cr_assert_eq(tu_sh(NULL, "%s analyze -q --json %s/o.json samples/", tu_bin(), d), 0);
    snprintf(p, sizeof p, "%s/o.json", d);
    size_t before_len = 0, after_len = 0;
    char *before = tu_read_file(p, &before_len);
    int rc = tu_sh(&out, "trap '' XFSZ; ulimit -f 1; %s analyze -q --json %s/o.json samples/rank0.pt.trace.json.gz", tu_bin(), d);
    cr_expect_eq(rc, 4, "exit %d, want 4: %s", rc, out);
    char *after = tu_read_file(p, &after_len);
    cr_expect(after_len == before_len && !memcmp(before, after, before_len), "o.json changed");
    free(out);
    cr_expect_eq(tu_sh(&out, "ls -A %s", d), 0);
    cr_expect_str_eq(out, "o.json\n", "a temporary file was left behind: %s", out);
    free(out);
    free(before);
    free(after);
    rm_rf(d);
}

/* A file output is written by a thread of its own in 1 MiB buffers (cli/async_file.h): an output
 * of several buffers comes out byte for byte as on stdout, and its size is the one stderr tells. */
Test(outputs, a_file_of_several_buffers_holds_what_stdout_gets) {
    char *d = tu_tmpdir(), *out = NULL, a[512], b[512];
    tu_gen_job(d, "job", "--ranks 2 --steps 150");
    cr_assert_eq(tu_sh(&out, "%s timeline -o %s/t.json %s/job/ && %s timeline -o - %s/job/ > %s/s.json", tu_bin(), d, d,
                       tu_bin(), d, d),
                 0, "%s", out);
    snprintf(a, sizeof a, "%s/t.json", d);
    snprintf(b, sizeof b, "%s/s.json", d);
    size_t len = 0;
    char *text = tu_read_file(a, &len);
    cr_assert(len > 2u << 20, "the timeline is %zu bytes: not several buffers", len);
    cr_expect(tu_same_file(a, b), "the file differs from stdout's bytes");
    char told[64], bytes[32];
    snprintf(told, sizeof told, "t.json (%s bytes)", grouped(bytes, len));
    cr_expect_not_null(strstr(out, told), "stderr does not tell %s: %s", told, out);
    free(text);
    free(out);
    rm_rf(d);
}

/* A write that fails after the first buffers went out (past the file size limit, in the writer
 * thread) is exit 4 naming the file and the reason, the old file whole, no temporary file left. */
Test(outputs, a_write_failing_in_the_writer_thread_is_exit_4) {
    char *d = tu_tmpdir(), *out = NULL, p[512];
    tu_gen_job(d, "job", "--ranks 2 --steps 150");
    cr_assert_eq(tu_sh(&out, "echo old > %s/t.json", d), 0, "%s", out);
    free(out);
    /* dash's ulimit -f counts 512-byte blocks: 1.5 MiB, more than one buffer, less than the file */
    int rc = tu_sh(&out, "trap '' XFSZ; ulimit -f 3072; %s timeline -o %s/t.json %s/job/", tu_bin(), d, d);
    cr_expect_eq(rc, 4, "exit %d, want 4: %s", rc, out);
    cr_expect_not_null(strstr(out, "t.json: write failed: File too large"), "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/t.json", d);
    size_t len = 0;
    char *text = tu_read_file(p, &len);
    cr_expect(text && len == 4 && !memcmp(text, "old\n", 4), "t.json changed");
    free(text);
    cr_expect_eq(tu_sh(&out, "ls -A %s", d), 0);
    cr_expect_str_eq(out, "job\nt.json\n", "a temporary file was left behind: %s", out);
    free(out);
    rm_rf(d);
}
