/* test_money.c: build/tracecost end to end on "every loss priced" (issue 28 item 3): the headline
 * leads with the verdict's loss class, every class of loss has its money in the text, JSON and HTML
 * and the classes add up to the total lost, and a job on one node (or one GPU) prices the network
 * between nodes at $0 with the reason, while a job on two nodes prices its inter-node groups'
 * exposed transfer. The jobs are tracegen's, with the mess real jobs have: clock offsets across
 * ranks, integer-µs timestamps, host time before the first kernel, a lost kernel, handler file names. */
#include "testutil.h"
#include "reports/textfmt.h"
#include <math.h>

#define RENT_H100 (2.95 * 730) /* $ a GPU-month at the catalog H100 SXM rent, u = 1 */

/* The first line of text holding a '$': the first line of the report that shows money. */
static void first_money_line(const char *text, char *buf, size_t n) {
    const char *d = strchr(text, '$');
    cr_assert_not_null(d, "no money in the report:\n%s", text);
    const char *a = d, *b = strchr(d, '\n');
    while (a > text && a[-1] != '\n') a--;
    size_t len = b ? (size_t)(b - a) : strlen(a);
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), a);
}

/* analyze DIR/NAME with flags: text (stdout), the JSON document and the HTML page. */
static yajl_val analyze(const char *dir, const char *name, const char *flags, char **text, char **html) {
    char *out = NULL;
    int rc = tu_sh(&out, "SOURCE_DATE_EPOCH=1764547200 %s analyze %s --json %s/%s.json --html %s/%s.html %s/%s 2>/dev/null",
                   tu_bin(), flags, dir, name, dir, name, dir, name);
    cr_assert_eq(rc, 0, "analyze %s: exit %d\n%s", name, rc, out);
    *text = out;
    char p[700];
    snprintf(p, sizeof p, "%s/%s.html", dir, name);
    *html = tu_read_file(p, NULL);
    cr_assert_not_null(*html);
    snprintf(p, sizeof p, "%s/%s.json", dir, name);
    return tu_json_file(p);
}

/* Frees what analyze gave and removes the job's folder. */
static void finish(yajl_val doc, char *text, char *html, char *dir) {
    yajl_tree_free(doc);
    free(text);
    free(html);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The shares the money is priced from: the step window's when the job has steps (issue 28 item 1:
 * docs/definitions.md "Step window"), else the GPU window's. */
static yajl_val judged_share(yajl_val doc, const char *key) {
    yajl_val st = tu_get(doc, "summary", "step_shares", NULL);
    return st && !YAJL_IS_NULL(st) ? tu_get(st, key, NULL) : tu_get(doc, "summary", "shares", key, NULL);
}

static double judged_window_us(yajl_val doc) {
    yajl_val st = tu_get(doc, "summary", "step_window_us", NULL);
    return st && !YAJL_IS_NULL(st) ? tu_num(st) : tu_num(tu_get(doc, "summary", "window_us", NULL));
}

static const char *const classes[] = {"inter_node_network", "intra_node_comm", "straggler_wait", "host_idle",
                                      "memory_copies"};

/* Every class's money is rent x its share, the classes add up to the total, the total is every
 * share but compute, and the total is in the text and the HTML key numbers as printed. */
static void expect_classes_add_up(yajl_val doc, const char *text, const char *html, int gpus) {
    yajl_val cost = tu_get(doc, "cost", NULL), per = tu_get(cost, "loss_per_month", NULL);
    double sum = 0, rent = gpus * RENT_H100;
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
        yajl_val v = tu_get(per, classes[i], NULL);
        if (YAJL_IS_NULL(v)) continue;
        double share = tu_num(tu_get(cost, "loss_shares", classes[i], NULL));
        cr_expect(fabs(tu_num(v) - rent * share) < 1e-3, "%s: %.4f vs rent x share %.4f", classes[i], tu_num(v), rent * share);
        sum += tu_num(v);
    }
    double total = tu_num(tu_get(per, "total", NULL));
    cr_expect(fabs(sum - total) < 1e-3, "classes %.4f vs total %.4f", sum, total);
    /* device copies (D2D, peer, memset) are GPU work, as compute (issue 28 item 5): no loss */
    double compute = tu_num(judged_share(doc, "compute")) + tu_num(judged_share(doc, "memory_device_exposed"));
    cr_expect(fabs(total - rent * (1 - compute)) < 1e-3 * rent, "total %.2f vs rent x (1 - compute - device copies) %.2f",
              total, rent * (1 - compute));
    cr_expect(fabs(tu_num(tu_get(cost, "network_loss_per_month", NULL)) - tu_num(tu_get(per, "inter_node_network", NULL))) < 1e-9,
              "network_loss_per_month is the inter-node network's");
    char m[64], want[160];
    tc_fmt_money(m, sizeof m, total, 0);
    char *flat = tu_unwrap(strdup(text));
    snprintf(want, sizeof want, "%s a month in all", m);
    cr_expect(strstr(flat, want), "the headline has the total: %s", want);
    free(flat);
    snprintf(want, sizeof want, "Money lost / month</div><div class=\"v\">%s</div>", m);
    cr_expect(strstr(html, want), "the HTML key number is the total: %s", want);
    const char *rows[] = {"inter-node network loss</td>", "intra-node comm loss</td>", "straggler loss</td>",
                          "host idle loss</td>", "memory copies loss</td>", "all losses</td>"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) cr_expect(strstr(html, rows[i]), "HTML row %s", rows[i]);
    const char *lines[] = {"inter-node network per month", "intra-node comm per month", "straggler wait per month",
                           "host idle per month", "memory copies per month"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) cr_expect(strstr(text, lines[i]), "text row %s", lines[i]);
}

/* The case: 8 ranks on one node, a straggler, the data loader holding the GPUs idle. The
 * headline leads with idle money, not the network's; the network between nodes costs $0 (one node). */
Test(money, host_bound_job_with_a_straggler_leads_with_idle_money, .timeout = 90) {
    char *dir = tu_tmpdir(), *text, *html;
    tu_gen_job(dir, "job", "--ranks 8 --straggler 3 --idle-us 30000 --clock-offset-us 4000 --time-format epoch "
                           "--file-names handler --jitter-us 150");
    yajl_val doc = analyze(dir, "job", "", &text, &html);
    cr_assert_str_eq(tu_str(tu_get(doc, "summary", "verdict", NULL)), "host-bound");
    char line[400];
    first_money_line(text, line, sizeof line);
    cr_expect(!strncmp(line, "host idle and memory copies cost $", 34), "first money line: %s", line);
    yajl_val cost = tu_get(doc, "cost", NULL);
    cr_expect_str_eq(tu_str(tu_get(cost, "loss_lead", NULL)), "host_idle_and_copies");
    cr_expect_eq(tu_num(tu_get(cost, "network_loss_per_month", NULL)), 0);
    cr_expect(strstr(tu_str(tu_get(cost, "inter_node_network_reason", NULL)), "one node"), "the reason says one node");
    char *flat = tu_unwrap(strdup(text));
    cr_expect(strstr(flat, "the inter-node network $0 (one node"), "the headline gives the reason");
    free(flat);
    double idle = tu_num(judged_share(doc, "idle"));
    double wait = tu_num(judged_share(doc, "exposed_wait"));
    double transfer = tu_num(judged_share(doc, "exposed_transfer"));
    yajl_val per = tu_get(cost, "loss_per_month", NULL);
    cr_expect(fabs(tu_num(tu_get(per, "host_idle", NULL)) - 8 * RENT_H100 * idle) < 1e-3);
    cr_expect(fabs(tu_num(tu_get(per, "straggler_wait", NULL)) - 8 * RENT_H100 * wait) < 1e-3);
    cr_expect(fabs(tu_num(tu_get(cost, "intra_node_comm_loss_per_month", NULL)) - 8 * RENT_H100 * transfer) < 1e-3,
              "all exposed transfer is intra-node");
    cr_expect(tu_num(tu_get(per, "host_idle", NULL)) > tu_num(tu_get(per, "straggler_wait", NULL)), "idle costs most");
    expect_classes_add_up(doc, text, html, 8);
    cr_expect(strstr(html, "against a network that moves bytes instantly"), "N x T_ref / T is labelled with its reference");
    finish(doc, text, html, dir);
}

/* A lost rank file makes the data partial: the comm classes are bounds, idle is not, the sum holds. */
Test(money, lost_rank_labels_the_comm_classes_as_bounds, .timeout = 90) {
    char *dir = tu_tmpdir(), *text, *html;
    tu_gen_job(dir, "job", "--ranks 8 --straggler 3 --idle-us 30000 --clock-offset-us 3000 --time-format epoch");
    cr_assert_eq(tu_sh(NULL, "rm %s/job/rank7.pt.trace.json", dir), 0);
    yajl_val doc = analyze(dir, "job", "", &text, &html);
    cr_assert_str_eq(tu_str(tu_get(doc, "summary", "basis", NULL)), "partial");
    yajl_val b = tu_get(doc, "cost", "loss_bounds", NULL);
    cr_expect_str_eq(tu_str(tu_get(b, "intra_node_comm", NULL)), "upper bound");
    cr_expect_str_eq(tu_str(tu_get(b, "inter_node_network", NULL)), "exact", "one node: 0 is no bound");
    char *flat = tu_unwrap(strdup(text));
    cr_expect(strstr(flat, "the inter-node network $0 (one node"), "not 'at most $0': %s", flat);
    free(flat);
    cr_expect_str_eq(tu_str(tu_get(b, "straggler_wait", NULL)), "lower bound");
    cr_expect_str_eq(tu_str(tu_get(b, "host_idle", NULL)), "exact");
    char line[400];
    first_money_line(text, line, sizeof line);
    cr_expect(strstr(line, "host idle and memory copies cost $"), "first money line: %s", line);
    expect_classes_add_up(doc, text, html, 8);
    finish(doc, text, html, dir);
}

/* One GPU, idle most of the time: idle money first, the network $0 because there is one GPU. */
Test(money, one_gpu_idle_trace_prices_its_idle_time, .timeout = 90) {
    char *dir = tu_tmpdir(), *text, *html;
    tu_gen_job(dir, "job", "--ranks 1 --idle-us 100000 --time-format epoch");
    yajl_val doc = analyze(dir, "job", "", &text, &html);
    cr_assert_str_eq(tu_str(tu_get(doc, "summary", "verdict", NULL)), "host-bound");
    double idle = tu_num(judged_share(doc, "idle"));
    cr_assert(idle > 0.7, "planted idle %.3f", idle);
    char line[400];
    first_money_line(text, line, sizeof line);
    cr_expect(!strncmp(line, "host idle and memory copies cost $", 34), "first money line: %s", line);
    yajl_val cost = tu_get(doc, "cost", NULL);
    cr_expect(fabs(tu_num(tu_get(cost, "loss_per_month", "host_idle", NULL)) - RENT_H100 * idle) < 1e-3);
    cr_expect(YAJL_IS_NULL(tu_get(cost, "loss_per_month", "straggler_wait", NULL)), "one rank: no straggler");
    cr_expect_eq(tu_num(tu_get(cost, "network_loss_per_month", NULL)), 0);
    cr_expect(strstr(tu_str(tu_get(cost, "inter_node_network_reason", NULL)), "one GPU"));
    expect_classes_add_up(doc, text, html, 1);
    finish(doc, text, html, dir);
}

/* Two nodes of 4, tensor parallel inside a node and data parallel across on a slow fabric: the
 * network-bound headline leads with exposed transfer, split into the inter-node groups' part (the
 * summary's inter_node_exposed_transfer_us over the windows) and the intra-node rest. */
Test(money, two_node_job_prices_the_inter_node_groups, .timeout = 90) {
    char *dir = tu_tmpdir(), *text, *html;
    tu_gen_job(dir, "job", "--ranks 8 --tp 2 --gpus-per-node 4 --dp-busbw-GBps 3 --clock-offset-us 3000");
    yajl_val doc = analyze(dir, "job", "--gpus-per-node 4", &text, &html);
    cr_assert_str_eq(tu_str(tu_get(doc, "summary", "verdict", NULL)), "network-bound");
    char line[400];
    first_money_line(text, line, sizeof line);
    cr_expect(!strncmp(line, "exposed transfer costs $", 24), "first money line: %s", line);
    yajl_val cost = tu_get(doc, "cost", NULL);
    cr_expect_str_eq(tu_str(tu_get(cost, "loss_lead", NULL)), "exposed_transfer");
    double t = tu_num(tu_get(doc, "summary", "inter_node_exposed_transfer_us", NULL)) /
               judged_window_us(doc);
    double s = tu_num(judged_share(doc, "exposed_transfer"));
    cr_assert(t > 0.1 && t < s, "inter-node share %.4f of exposed transfer %.4f", t, s);
    cr_expect(fabs(tu_num(tu_get(cost, "network_loss_per_month", NULL)) - 8 * RENT_H100 * t) < 1e-2);
    cr_expect(fabs(tu_num(tu_get(cost, "intra_node_comm_loss_per_month", NULL)) - 8 * RENT_H100 * (s - t)) < 1e-2);
    cr_expect_str_eq(tu_str(tu_get(cost, "inter_node_network_reason", NULL)), "the inter-node process groups' exposed transfer");
    expect_classes_add_up(doc, text, html, 8);
    finish(doc, text, html, dir);
}
