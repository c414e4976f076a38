/* test_html_layout.c: the HTML reports read from 400 px up (issue 21): the analyze report of the
 * bundled job, of one rank, of a 2-node TP+DP job, of a real trace and of the SendRecv pair (its
 * collectives grouped by stream, issue 31), of a 64-rank job, and the compare report, each
 * rendered by headless Chromium at 400, 1000 and 1400 px wide (in an iframe of that width: the
 * browser's own window is at least 500 px), checked by tests/data/html_layout_check.js: no
 * horizontal overflow of the page, no chart text cut off, smaller than 10 px, over a bar or over
 * other text, no HTML text clipped; at 1000 px and more no section or table scrolls sideways (at
 * 400 px only wide tables scroll, inside their frames: every chart scales to its container, issue
 * 31). Then every golden HTML (tests/golden/expected/\*.html) at 400 px: no element wider than the
 * page outside a scroll container, every chart wholly inside the page, no text cut by its chart.
 * And the issue-33 sections from hand-filled results (the pipeline's stages, a 70-rank all-to-all
 * heatmap in blocks) at the three widths. Skipped without Chromium. Set TC_HTML_KEEP=DIR to keep the reports and a screenshot of each width. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#include "par_fill.h"
#include "reports/html_report.h"
#include "ops_fixture.h"
#include "analyzer/findings.h"
#include "reports/html_report.h"

static const char *chromium_exe(void) {
    const char *env = getenv("CHROMIUM");
    if (env && *env && access(env, X_OK) == 0) return env;
    return access("/usr/bin/chromium", X_OK) == 0 ? "/usr/bin/chromium" : NULL;
}

/* The check's JSON result for report at width px (from a page in dir), or NULL. Caller frees. */
static char *layout_of(const char *exe, const char *dir, const char *report, int width, const char *shot) {
    char *out = NULL, here[4096];
    cr_assert_not_null(getcwd(here, sizeof here)); /* the tests run from the repository's root */
    int rc = tu_sh(&out,
        "cd %s && sed 's/<meta http-equiv=\"Content-Security-Policy\"[^>]*>//' '%s' > r%d.html && "
        "{ printf '<script>'; cat '%s/tests/data/html_layout_check.js'; printf '</script>'; } >> r%d.html && "
        "printf '<!DOCTYPE html><html><body style=\"margin:0\"><pre id=\"layout-check\"></pre><iframe src=\"r%d.html\" "
        "style=\"border:0;width:%dpx;height:4000px\"></iframe><script>window.addEventListener(\"message\",function(e){"
        "document.getElementById(\"layout-check\").textContent=e.data;});</script></body></html>' > w%d.html && "
        "HOME=%s timeout 120 %s --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars "
        "--no-first-run --disable-background-networking --user-data-dir=%s/profile-%d --window-size=%d,4000 "
        "--virtual-time-budget=5000 %s file://%s/w%d.html 2>/dev/null",
        dir, report, width, here, width, width, width, width, dir, exe, dir, width,
        width + 100, shot ? shot : "--dump-dom", dir, width);
    if (rc != 0 || shot) { free(out); return NULL; }
    char *p = strstr(out, "<pre id=\"layout-check\">");
    char *res = p ? strndup(p + 23, strcspn(p + 23, "<")) : NULL;
    free(out);
    return res;
}

/* Renders report at 400, 1000 and 1400 px and expects a clean layout at each. */
static void expect_clean(const char *exe, const char *dir, const char *report, const char *what) {
    static const int widths[] = {400, 1000, 1400};
    for (size_t i = 0; i < 3; i++) {
        char *res = layout_of(exe, dir, report, widths[i], NULL);
        cr_assert_not_null(res, "%s at %d px: no result from Chromium", what, widths[i]);
        char want[64];
        snprintf(want, sizeof want, "{\"width\":%d,", widths[i]);
        cr_expect(!strncmp(res, want, strlen(want)), "%s: the frame is not %d px wide: %s", what, widths[i], res);
        cr_expect_not_null(strstr(res, "\"problems\":[]"), "%s at %d px: %s", what, widths[i], res);
        if (widths[i] >= 1000) cr_expect_not_null(strstr(res, "\"scrolls\":[]"), "%s at %d px scrolls sideways: %s", what, widths[i], res);
        free(res);
        const char *keep = getenv("TC_HTML_KEEP");
        if (keep && *keep) {
            char shot[800];
            snprintf(shot, sizeof shot, "--screenshot=%s/%s-%d.png", keep, what, widths[i]);
            layout_of(exe, dir, report, widths[i], shot);
        }
    }
}

Test(html_layout, reports_read_from_400_to_1400_px, .timeout = 300) {
    const char *exe = chromium_exe();
    if (!exe) cr_skip_test("chromium not installed (/usr/bin/chromium): scripts/setup-deps.sh browser installs it");
    char *d = tu_tmpdir(), *out = NULL;
    tu_gen_job(d, "one", "--ranks 1 --steps 4 --seed 3");
    tu_gen_job(d, "tpdp", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5 --file-names handler --steps 2 --seed 19");
    tu_gen_job(d, "s8", "--ranks 8 --steps 3 --straggler 3 --seed 2");
    tu_gen_job(d, "s64", "--ranks 64 --steps 2 --straggler 5 --clock-offset-us 20 --seed 4"); /* rank labels every 8 */
    cr_assert_eq(tu_sh(&out, "%s analyze -q --html %s/samples.html samples/ && %s analyze -q --html %s/one.html %s/one && "
                             "%s analyze -q --fabric eth-100g --fabric-target ib-ndr --fabric-upgrade-cost 200000 --html %s/tpdp.html %s/tpdp && "
                             "%s analyze -q --html %s/real.html samples/real/nccl_data.json.gz && "
                             "%s analyze -q --html %s/pair.html samples/hta-pair/ && "
                             "%s compare -q --html %s/compare.html samples/ %s/s8 && %s analyze -q --html %s/s64.html %s/s64",
                       tu_bin(), d, tu_bin(), d, d, tu_bin(), d, d, tu_bin(), d, tu_bin(), d, tu_bin(), d, d, tu_bin(), d, d),
                 0, "%s", out);
    free(out);
    static const char *const reports[] = {"samples", "one", "tpdp", "real", "pair", "compare", "s64"};
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s.html", d, reports[i]);
        expect_clean(exe, d, p, reports[i]);
    }
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}

/* Every golden case's HTML (what the tool prints today, held byte-exact by tests/golden) read at
 * 400 px: the same check, so a chart, table or label that does not fit a phone fails here whichever
 * input brings it. */
Test(html_layout, every_golden_html_fits_400_px, .timeout = 600) {
    const char *exe = chromium_exe();
    if (!exe) cr_skip_test("chromium not installed (/usr/bin/chromium): scripts/setup-deps.sh browser installs it");
    glob_t g;
    cr_assert_eq(glob("tests/golden/expected/*.html", 0, NULL, &g), 0, "no golden HTML found (run from the repository root)");
    char *d = tu_tmpdir(), here[4096];
    cr_assert_not_null(getcwd(here, sizeof here));
    size_t bad = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", here, g.gl_pathv[i]);
        char *res = layout_of(exe, d, p, 400, NULL);
        if (!res || !strstr(res, "\"problems\":[]") || strncmp(res, "{\"width\":400,", 13)) {
            bad++;
            cr_log_error("%s at 400 px: %s", g.gl_pathv[i], res ? res : "no result from Chromium");
        }
        free(res);
    }
    cr_expect_eq(bad, 0, "%zu of %zu golden HTML reports do not fit a 400 px page (see above)", bad, g.gl_pathc);
    cr_expect_gt(g.gl_pathc, 10, "only %zu golden HTML reports", g.gl_pathc);
    globfree(&g);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}

/* The pipeline section and a 70-rank all-to-all heatmap (blocks of 2 ranks wide, 3 narrow), from
 * hand-filled results (par_fill.h): until a planted pipeline job has a golden case, this is where
 * they are read at 400, 1000 and 1400 px. */
Test(html_layout, pipeline_and_all_to_all_sections_fit, .timeout = 300) {
    const char *exe = chromium_exe();
    if (!exe) cr_skip_test("chromium not installed (/usr/bin/chromium): scripts/setup-deps.sh browser installs it");
    char *d = tu_tmpdir(), p[600];
    tc_job j;
    tc_job_init(&j);
    tu_fill_pipeline(&j);
    tu_fill_a2a(&j, 70, 69);
    snprintf(p, sizeof p, "%s/par.html", d);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    cr_assert_eq(tc_html_report_write(f, &j), 0);
    fclose(f);
    tc_job_free(&j);
    expect_clean(exe, d, p, "par");
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}

/* The ops section (issue 34) of a hand-filled tc_op_result: the roofline chart, wide and narrow, and
 * the op and module tables, at 400, 1000 and 1400 px. */
Test(html_layout, the_ops_section_reads_from_400_to_1400_px, .timeout = 300) {
    const char *exe = chromium_exe();
    if (!exe) cr_skip_test("chromium not installed (/usr/bin/chromium): scripts/setup-deps.sh browser installs it");
    char *d = tu_tmpdir(), p[600];
    tc_job j;
    make_job(&j);
    fill_ops(&j.ops);
    j.ranks[0].gpu = tc_gpu_find_by_id("h100-sxm");
    const tc_analyze_options opt = {0};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    snprintf(p, sizeof p, "%s/ops.html", d);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    cr_assert_eq(tc_html_report_write(f, &j), 0);
    fclose(f);
    tc_job_free(&j);
    expect_clean(exe, d, p, "ops");
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}
