/* test_html.c: the HTML report (issue 6): `analyze --html` on a generated job (structure, charts,
 * nothing fetched, size), hostile trace strings shown as text (kernel, stream, path, warning), the
 * size bound on a 64-rank job and on an adversarial one, the cost section from the job's cost
 * (a result, a reason, left out), the escaper itself, and a headless-Chromium render (DOM + screenshot) where
 * /usr/bin/chromium exists. Set TC_HTML_KEEP=DIR to keep the generated reports and screenshot. */
#include <criterion/criterion.h>
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analyzer/job_cost.h"
#include "cli/cost_options.h"
#include "cli/exitcodes.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "analyzer/analyze.h"
#include "parsers/assemble.h"
#include "base/util.h"
#include "reports/html_report.h"

#define HOSTILE_ESCAPED "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&amp;&quot;&#39;"
#define MAX_REPORT_BYTES (3u * 1024 * 1024)

static const char *bin(const char *env, const char *dflt) {
    const char *v = getenv(env);
    return v && *v ? v : dflt;
}

static char *make_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    char *p = malloc(512);
    cr_assert(p);
    snprintf(p, 512, "%s/tc-html-XXXXXX", base && *base ? base : "/tmp");
    cr_assert(mkdtemp(p), "mkdtemp %s", p);
    return p;
}

static void rm_tmpdir(char *dir) {
    char cmd[700];
    const char *keep = getenv("TC_HTML_KEEP");
    if (keep && *keep) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/*.html '%s'/ 2>/dev/null; cp '%s'/*.png '%s'/ 2>/dev/null; true",
                 keep, dir, keep, dir, keep);
        cr_assert(system(cmd) != -1);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(system(cmd) != -1);
    free(dir);
}

static int run(const char *cmd) {
    int st = system(cmd);
    cr_assert(st != -1, "system(%s)", cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Generates a job into dir/job with tracegen args and writes dir/report.html; returns the HTML. */
static char *gen_and_render(const char *dir, const char *gen_args, size_t *len) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "%s -o '%s/job' %s >/dev/null", bin("TRACEGEN_BIN", "build/tracegen"), dir, gen_args);
    cr_assert_eq(run(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s analyze -q --html '%s/report.html' '%s'/job/rank*.pt.trace.json", bin("TRACECOST_BIN", "build/tracecost"),
             dir, dir);
    cr_assert_eq(run(cmd), 0, "%s", cmd);
    char path[600];
    snprintf(path, sizeof path, "%s/report.html", dir);
    return tu_read_file(path, len);
}

/* Body rows of the table with this id. */
static size_t rows_of(const char *html, const char *id) {
    char open[80];
    snprintf(open, sizeof open, "<table id=\"%s\"", id);
    const char *a = strstr(html, open);
    cr_assert_not_null(a, "%s missing", open);
    const char *b = strstr(a, "<tbody>"), *e = strstr(a, "</table>");
    cr_assert(b && e && b < e);
    size_t n = 0;
    for (const char *p = strstr(b, "<tr>"); p && p < e; p = strstr(p + 1, "<tr>")) n++;
    return n;
}

/* Nothing in the page may point at the network. */
static void assert_self_contained(const char *html) {
    cr_assert_null(strstr(html, "http://"), "the report references http://");
    cr_assert_null(strstr(html, "https://"), "the report references https://");
    cr_assert_null(strstr(html, "src=\"//"), "protocol-relative src");
    cr_assert_null(strstr(html, "href=\"//"), "protocol-relative href");
    cr_assert_null(strstr(html, "@import"), "css @import");
    cr_assert_null(strstr(html, "url("), "css url()");
}

Test(html, analyze_html_structure_and_hostile_name) {
    char *dir = make_tmpdir();
    size_t len;
    char *html = gen_and_render(dir, "--ranks 4 --hostile-name --straggler 2 --clock-offset-us 40", &len);
    cr_assert_lt(len, MAX_REPORT_BYTES);
    cr_assert(!strncmp(html, "<!DOCTYPE html>", 15));
    cr_assert_not_null(strstr(html, "</html>\n"), "document not complete");
    /* the verdict as a headline, with why and the figures */
    cr_assert_not_null(strstr(html, "<h1 id=\"verdict-title\">Straggler-bound</h1>"));
    cr_assert_not_null(strstr(html, "mostly waiting for slower ranks"));
    cr_assert_not_null(strstr(html, "rank 2 causes"));
    /* the straggler's wait per waiting rank, the sum in GPU-ms, and the rule as the code words it */
    cr_assert_not_null(strstr(html, "each of the other 3 ranks waits "));
    cr_assert_not_null(strstr(html, " GPU-ms in total)"));
    cr_assert_not_null(strstr(html, "<p class=\"note\" id=\"straggler-rule\">At each matched collective where one "
                                    "rank alone arrives last"));
    cr_assert_null(strstr(html, "id=\"verdict-basis\""), "a complete job says nothing of partial data");
    /* key numbers */
    const char *cards[] = {"kn-step", "kn-mfu", "kn-ratio", "kn-effective", "kn-money"};
    for (size_t i = 0; i < 5; i++) {
        char id[40];
        snprintf(id, sizeof id, "id=\"%s\"", cards[i]);
        cr_assert_not_null(strstr(html, id), "%s missing", id);
    }
    /* charts and tables */
    cr_assert_not_null(strstr(html, "<svg id=\"rank-bars\""));
    cr_assert_not_null(strstr(html, "<svg id=\"timeline-chart\""));
    cr_assert_not_null(strstr(html, "<svg id=\"straggler-chart\""));
    cr_assert_not_null(strstr(html, "<table id=\"rank-table\""));
    cr_assert_not_null(strstr(html, "<table id=\"coll-table\""));
    cr_assert_not_null(strstr(html, "<table id=\"kernel-table\""));
    cr_assert_not_null(strstr(html, "Rank 2 is the straggler."));
    cr_assert_not_null(strstr(html, "ProfilerStep#"), "timeline names its step");
    cr_assert_geq(count(html, "class=\"c-wait\""), 3, "wait segments drawn");
    /* colours are labelled in text */
    cr_assert_not_null(strstr(html, "<span class=\"sw c-wait\"></span>exposed wait"));
    /* the H100's catalog prices give a cost section from analyze with no cost flags */
    cr_assert_null(strstr(html, "id=\"cost-missing\""));
    cr_assert_not_null(strstr(html, "breakeven"), "cost chart with its breakeven marker");
    assert_self_contained(html);
    /* the hostile kernel name is shown escaped, never as markup */
    cr_assert_not_null(strstr(html, HOSTILE_ESCAPED), "escaped hostile name missing");
    cr_assert_null(strstr(html, "<script>alert"));
    cr_assert_null(strstr(html, "<img"));
    cr_assert_null(strstr(html, "onerror=alert(2)>"));
    cr_assert_eq(count(html, "<script"), 1, "only the report's own script");
    cr_assert_eq(count(html, "</script>"), 1);
    free(html);
    rm_tmpdir(dir);
}

Test(html, size_bound_64_ranks) {
    char *dir = make_tmpdir();
    size_t len;
    char *html = gen_and_render(dir, "--ranks 64 --steps 2 --straggler 5 --clock-offset-us 50", &len);
    cr_assert_leq(len, MAX_REPORT_BYTES, "64-rank report is %zu bytes", len);
    cr_assert_not_null(strstr(html, "<svg id=\"timeline-chart\""));
    /* tables stay exact: every rank has its row and its bar */
    cr_assert_eq(rows_of(html, "rank-table"), 64);
    cr_assert_eq(count(html, "data-tip=\"rank 63 - compute:"), 2, "its bar in the wide and in the narrow drawing");
    free(html);
    rm_tmpdir(dir);
}

Test(html, escape_function) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    cr_assert(f);
    const char in[] = "a<b>&\"'c\x01\x7f\t\n\xc3\xa9\xff\xe2\x82" "z";
    tc_html_escape(f, in, sizeof in - 1, 0);
    fputc('|', f);
    tc_html_escape(f, "\xc3\xa9\xc3\xa9\xc3\xa9", 6, 3); /* cut at a character boundary */
    fputc('|', f);
    tc_html_escape(f, "<<<<", 4, 2);
    fputc('|', f);
    tc_html_escape(f, "\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf", 9, 0); /* surrogate, > U+10FFFF, overlong */
    fclose(f);
    cr_assert_str_eq(buf, "a&lt;b&gt;&amp;&quot;&#39;c\xef\xbf\xbd\xef\xbf\xbd\t\n\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"
                          "|\xc3\xa9\xe2\x80\xa6|&lt;&lt;\xe2\x80\xa6|"
                          "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    free(buf);
}

/* A job built in memory: `ranks` ranks, `streams` streams each, `per_stream` kernels of 10 us
 * every 150 us (with up to 600 per stream each is its own pixel column of the timeline's 740 px, so
 * only adaptive merging bounds the output),
 * with hostile paths, stream names, kernel names and warnings. */
static void build_hostile_job(tc_job *j, size_t ranks, size_t streams, size_t per_stream) {
    tc_job_init(j);
    j->traces = calloc(ranks, sizeof *j->traces);
    cr_assert(j->traces);
    char name[400];
    for (size_t r = 0; r < ranks; r++) {
        tc_trace *t = &j->traces[j->n_traces];
        snprintf(name, sizeof name, "run/<b onmouseover=alert(4)>rank%zu'\".json", r);
        cr_assert_eq(tc_trace_init(t, name), 0);
        j->n_traces++;
        t->rank = (int64_t)r;
        tc_trace_warn(t, "odd event <script>alert(3)</script> skipped");
        for (size_t s = 0; s < streams; s++) {
            snprintf(name, sizeof name, "%zu<svg onload=alert(5)>", s);
            uint32_t stream = tc_strtab_intern(t->strings, name, strlen(name));
            for (size_t e = 0; e < per_stream; e++) {
                int len = snprintf(name, sizeof name, "void gemm<\"</script><script>alert(6)</script>\", %zu>(float const*, float*) ", e % 50);
                while (len < 300) name[len++] = 'x';
                name[len] = '\0';
                tc_gpu_event g;
                memset(&g, 0, sizeof g);
                g.start_ns = 1000000 + (int64_t)e * 150000 + (int64_t)s * 7;
                g.dur_ns = 10000;
                g.name = tc_strtab_intern(t->strings, name, (size_t)len);
                g.stream = stream;
                g.correlation = TC_NONE;
                g.coll = TC_NONE;
                g.kind = TC_GPU_KERNEL;
                cr_assert_eq(TC_PUSH(t->gpu, t->n_gpu, t->cap_gpu, g), 0);
            }
        }
    }
    tc_analyze_options opt = {.bound_threshold = 0.15, .jobs = 1};
    cr_assert_eq(tc_job_analyze(j, &opt), 0);
}

static char *render(const tc_job *j, size_t *len) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    cr_assert(f);
    cr_assert_eq(tc_html_report_write(f, j), 0);
    cr_assert_eq(fclose(f), 0);
    *len = n;
    return buf;
}

Test(html, size_bound_adversarial_timeline) {
    tc_job j;
    build_hostile_job(&j, 64, 12, 600);
    size_t len;
    char *html = render(&j, &len);
    cr_assert_leq(len, MAX_REPORT_BYTES, "adversarial report is %zu bytes", len);
    /* merging widened past one pixel, and lanes were capped */
    cr_assert_null(strstr(html, "Events narrower than 1 pixel are merged"), "adaptive merging did not engage");
    cr_assert_not_null(strstr(html, "the 8 busiest of its 12 streams are drawn"));
    cr_assert_eq(rows_of(html, "rank-table"), 64);
    cr_assert_eq(rows_of(html, "kernel-table"), 20); /* the terminal's top compute kernels */
    /* every hostile string came out as text */
    cr_assert_eq(count(html, "<script"), 1);
    cr_assert_null(strstr(html, "<b onmouseover"));
    cr_assert_null(strstr(html, "<svg onload"));
    cr_assert_not_null(strstr(html, "&lt;b onmouseover=alert(4)&gt;rank0&#39;&quot;.json"));
    cr_assert_not_null(strstr(html, "odd event &lt;script&gt;alert(3)&lt;/script&gt; skipped"));
    cr_assert_not_null(strstr(html, "stream 0&lt;svg onload=alert(5)&gt;</text>"), "lane label");
    cr_assert_not_null(strstr(html, "void gemm&lt;&quot;&lt;/script&gt;&lt;script&gt;alert(6)"));
    assert_self_contained(html);
    free(html);
    tc_job_free(&j);
}

/* Loads a generated job through the library, as analyze does. */
static void load_generated(tc_job *j, const char *dir, const char *gen_args, int ranks) {
    char cmd[1000];
    snprintf(cmd, sizeof cmd, "%s -o '%s/job' %s >/dev/null", bin("TRACEGEN_BIN", "build/tracegen"), dir, gen_args);
    cr_assert_eq(run(cmd), 0, "%s", cmd);
    char **paths = calloc((size_t)ranks, sizeof *paths);
    cr_assert(paths);
    for (int r = 0; r < ranks; r++) {
        paths[r] = malloc(600);
        cr_assert(paths[r]);
        snprintf(paths[r], 600, "%s/job/rank%d.pt.trace.json", dir, r);
    }
    tc_job_init(j);
    tc_assemble_options lo = {.jobs = 1};
    tc_notes notes = {0};
    cr_assert_eq(tc_job_assemble(j, paths, NULL, (size_t)ranks, &lo, &notes), TC_ASSEMBLY_OK);
    tc_notes_free(&notes);
    tc_analyze_options ao = {.bound_threshold = 0.15, .jobs = 1};
    cr_assert_eq(tc_job_analyze(j, &ao), 0);
    for (int r = 0; r < ranks; r++) free(paths[r]);
    free(paths);
}

/* The job priced with the planted inputs, as analyze prices it (analyzer/job_cost.h). */
static void cost_for(tc_job *j) {
    tc_cost_inputs in;
    char err[300];
    tc_cost_inputs_defaults(&in);
    const char *opts[][2] = {{"price-per-gpu-hour", "2.50"}, {"purchase-per-gpu", "30000"}, {"fabric-cost", "120000"},
                             {"fabric-target-GBps", "400"}, {"fabric-upgrade-cost", "200000"}};
    for (size_t i = 0; i < 5; i++) cr_assert_eq(tc_cost_parse_option(&in, opts[i][0], opts[i][1], err, sizeof err), 0, "%s", err);
    tc_error e;
    tc_error_clear(&e);
    cr_assert_eq(tc_job_price(j, &in, true, &e), TC_OK, "%s", e.msg);
    cr_assert(j->cost.computed);
}

Test(html, cost_section) {
    char *dir = make_tmpdir();
    tc_job j;
    load_generated(&j, dir, "--ranks 16 --straggler 3 --busbw-GBps 40 --clock-offset-us 30", 16); /* 2 nodes: the what-if */
    cost_for(&j);
    const tc_cost_result *res = &j.cost.result;
    cr_assert(res->has_breakeven && res->breakeven_months < 36, "planted inputs break even inside the horizon");
    size_t len;
    char *html = render(&j, &len);
    cr_assert_not_null(strstr(html, "<svg id=\"cost-chart\""));
    cr_assert_not_null(strstr(html, "<g id=\"breakeven\">"));
    char be[64];
    snprintf(be, sizeof be, ">breakeven %.1f months</text>", res->breakeven_months);
    cr_assert_not_null(strstr(html, be), "%s", be);
    cr_assert_not_null(strstr(html, "id=\"cost-headline\""));
    cr_assert_not_null(strstr(html, "<p id=\"what-if\">Replayed on a fabric between nodes of 400.0 GB/s"), "the what-if by replay");
    cr_assert_null(strstr(html, "id=\"cost-missing\""));
    cr_assert_eq(count(html, "<polyline"), 4, "own and rent lines, in the wide and in the narrow drawing");
    cr_assert_not_null(strstr(html, "<svg id=\"cost-chart-narrow\" class=\"chart narrow\" viewBox=\"0 0 400 "));
    /* months 0..36 each have a hover point on both lines, in both drawings */
    cr_assert_eq(count(html, "data-tip=\"month "), 2 * 2 * 37);
    char money[80];
    snprintf(money, sizeof money, "network loss</td><td class=\"n\" data-tip=\"%.6f\">", res->network_loss_per_month);
    cr_assert_not_null(strstr(html, money), "exact value in the tooltip: %s", money);
    cr_assert_null(strstr(html, "kn-money\"><div class=\"k\">Money lost / month</div><div class=\"v\">n/a"));
    assert_self_contained(html);
    if (getenv("TC_HTML_KEEP")) {
        char p[600];
        snprintf(p, sizeof p, "%s/report-cost.html", dir);
        FILE *f = fopen(p, "w");
        cr_assert(f);
        fwrite(html, 1, len, f);
        fclose(f);
    }
    free(html);
    /* a reason instead of a result */
    j.cost.computed = false;
    j.cost.missing = TC_COST_NO_MODEL;
    snprintf(j.cost.why, sizeof j.cost.why, "--gpus 0 is not a whole number >= 1");
    html = render(&j, &len);
    cr_assert_not_null(strstr(html, "no cost section: --gpus 0 is not a whole number &gt;= 1<"));
    cr_assert_null(strstr(html, "<svg id=\"cost-chart\""));
    free(html);
    /* --no-cost: no cost section */
    j.cost.missing = TC_COST_LEFT_OUT;
    html = render(&j, &len);
    cr_assert_null(strstr(html, "<section id=\"cost\">"));
    free(html);
    tc_job_free(&j);
    rm_tmpdir(dir);
}

/* One rank: the sections that would be empty (straggler, collectives, process groups) are left out. */
Test(html, one_rank_leaves_empty_sections_out) {
    char *dir = make_tmpdir();
    tc_job j;
    load_generated(&j, dir, "--ranks 1", 1);
    size_t len;
    char *html = render(&j, &len);
    cr_assert_not_null(strstr(html, "not split: one rank"));
    cr_assert_null(strstr(html, "<section id=\"straggler\">"));
    cr_assert_null(strstr(html, "<section id=\"collectives\">"));
    cr_assert_null(strstr(html, "<section id=\"groups\">"));
    cr_assert_not_null(strstr(html, "<svg id=\"timeline-chart\""));
    cr_assert_not_null(strstr(html, "<span class=\"sw c-comm\"></span>exposed comm (not split)"));
    free(html);
    tc_job_free(&j);
    rm_tmpdir(dir);
}

Test(html, empty_job_renders) {
    tc_job j;
    tc_job_init(&j);
    size_t len;
    char *html = render(&j, &len);
    cr_assert_not_null(strstr(html, "<h1 id=\"verdict-title\">No verdict</h1>"));
    cr_assert_not_null(strstr(html, "</html>"));
    free(html);
    tc_job_free(&j);
}

/* ------------------------------------------------------------------ headless Chromium */
static const char *chromium_path(void) {
    const char *env = getenv("CHROMIUM");
    if (env && *env && access(env, X_OK) == 0) return env;
    if (access("/usr/bin/chromium", X_OK) == 0) return "/usr/bin/chromium";
    return NULL;
}

static int chromium(const char *exe, const char *dir, const char *what, const char *url, const char *stdout_to) {
    char cmd[2400];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p profile-%s && HOME='%s' timeout 120 '%s' --headless --no-sandbox --disable-gpu "
             "--disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync "
             "--disable-dev-shm-usage --hide-scrollbars --user-data-dir='%s/profile-%s' %s '%s' >'%s' 2>'%s/chromium-%s.log'",
             dir, what, dir, exe, dir, what,
             !strcmp(what, "dom") ? "--dump-dom" : "--window-size=1280,2400 --screenshot=screenshot.png", url,
             stdout_to, dir, what);
    return run(cmd);
}

Test(html, chromium_renders_report_and_hostile_name_stays_text) {
    const char *exe = chromium_path();
    if (!exe) cr_skip_test("chromium not installed (/usr/bin/chromium): scripts/setup-deps.sh browser installs it");
    char *dir = make_tmpdir();
    char *abs = realpath(dir, NULL);
    cr_assert(abs);
    size_t len;
    char *html = gen_and_render(dir, "--ranks 4 --hostile-name --straggler 2 --clock-offset-us 40", &len);
    char url[700], dom_path[700], png[700];
    snprintf(url, sizeof url, "file://%s/report.html", abs);
    snprintf(dom_path, sizeof dom_path, "%s/dom.html", abs);
    cr_assert_eq(chromium(exe, abs, "dom", url, dom_path), 0, "chromium --dump-dom failed (see %s/chromium-dom.log)", abs);
    char *dom = tu_read_file(dom_path, NULL);
    /* the page's own script ran (CSP nonce works) and built nothing from trace text */
    cr_assert_not_null(strstr(dom, "data-js=\"ready\""), "report script did not run");
    cr_assert_not_null(strstr(dom, "<h1 id=\"verdict-title\">Straggler-bound</h1>"));
    /* the title: the job's name (its folder), the verdict, the ranks, the trace's date, the tool */
    const char *title = strstr(dom, "<title>");
    cr_assert_not_null(title);
    cr_assert_not_null(strstr(title, ": straggler-bound, 4 ranks, 20"), "title changed: %.120s", title);
    cr_assert_not_null(strstr(dom, "<b id=\"job-name\">"), "no job name in the header");
    cr_assert_not_null(strstr(dom, "<svg id=\"rank-bars\""));
    cr_assert_not_null(strstr(dom, "<svg id=\"timeline-chart\""));
    cr_assert_not_null(strstr(dom, "<svg id=\"straggler-chart\""));
    cr_assert_geq(count(dom, "<rect "), 20);
    /* the hostile name is a text node: the serializer escapes its markup, and no element came of it */
    cr_assert_not_null(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&amp;"),
                       "hostile name not shown as text");
    cr_assert_null(strstr(dom, "<img"), "an <img> element was created from trace text");
    cr_assert_eq(count(dom, "<script"), 1, "a script element was created from trace text");
    free(dom);
    snprintf(png, sizeof png, "%s/screenshot.png", abs);
    char out_log[700];
    snprintf(out_log, sizeof out_log, "%s/chromium-shot.out", abs);
    cr_assert_eq(chromium(exe, abs, "shot", url, out_log), 0, "chromium --screenshot failed (see %s/chromium-shot.log)", abs);
    size_t png_len;
    char *img = tu_read_file(png, &png_len);
    cr_assert_geq(png_len, 20000u, "screenshot too small to hold the report: %zu bytes", png_len);
    cr_assert(!memcmp(img, "\x89PNG\r\n\x1a\n", 8), "not a PNG");
    free(img);
    free(html);
    free(abs);
    rm_tmpdir(dir);
}
