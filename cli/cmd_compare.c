/* cmd_compare.c: `tracecost compare A B`: loads or reads each side (a trace folder/file, or a saved
 * `analyze --json` result), runs each side's cost model with its own flags (B inherits A's unless
 * given as --b-FLAG), compares, and writes the terminal report, --json and --html. */
#define _POSIX_C_SOURCE 200809L
#include "cliopt.h"
#include "commands.h"
#include "analyzer/compare.h"
#include "cost_options.h"
#include "exitcodes.h"
#include "output.h"
#include "inputs.h"
#include "model/job.h"
#include "load_job.h"
#include "reports/compare_report.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const compare_options[] = {
    "--json", "--html", "--work-steps-per-month", "--jobs", "-j", "--quiet", "-q", "--help", "-h", NULL,
};

static void compare_usage(FILE *f) {
    fprintf(f,
        "Usage: tracecost compare [options] [cost flags for A] [--b-FLAG V for B] A B\n"
        "\n"
        "Compares two runs side by side: step time, throughput per GPU, MFU, every share of the\n"
        "breakdown, fabric bus bandwidth, collectives that got slower or faster, straggler, verdict,\n"
        "and cost per step and per effective GPU-hour with each side's prices. A and B are each a trace\n"
        "folder or file (analyzed here) or a saved 'tracecost analyze --json' result (tracecost/1).\n"
        "\n"
        "Options:\n"
        "  --json FILE                  write the comparison as JSON to FILE, or - for stdout only\n"
        "  --html FILE                  write a self-contained HTML comparison report\n"
        "  --work-steps-per-month W     work volume for the monthly difference (default: the steps A\n"
        "                               runs in a month, 730 h x 3600 x utilization / A's step time)\n"
        "  -j, --jobs N                 threads, as for analyze\n"
        "  -q, --quiet                  print nothing but errors\n"
        "  -h, --help                   this help\n"
        "  cost flags (as for analyze: --price-per-gpu-hour P, --gpu NAME, --utilization U, ...) apply\n"
        "  to A and, unless overridden, to B; --b-FLAG V sets FLAG for B only (--b-price-per-gpu-hour 2).\n"
        "  A saved result keeps the cost inputs it was analyzed with; flags given here override them.\n"
        "\n"
        "Examples:\n"
        "  tracecost compare runs/ib-50/ runs/ib-400/\n"
        "  tracecost compare --price-per-gpu-hour 2.5 --b-price-per-gpu-hour 3.1 old.json new/\n"
        "\n"
        "Exit codes: 0 compared, 1 usage error, 2 a side could not be read, 3 compared with damaged input,\n"
        "4 an output could not be written.\n");
}

typedef struct { const char *name, *value; } kv;

static int usage_error(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "tracecost compare: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nTry 'tracecost compare --help'.\n");
    return TC_EXIT_USAGE;
}

/* Reads one side into s. Returns an exit code (OK, DAMAGED, NOTHING, USAGE). */
static int load_side(const char *operand, long jobs, bool quiet, tc_run_summary *s) {
    char err[1200];
    if (strcmp(operand, "-") && tc_run_is_saved_result(operand)) {
        if (tc_run_summary_from_json_file(s, operand, err, sizeof err)) {
            fprintf(stderr, "tracecost compare: %s\n", err);
            return TC_EXIT_NOTHING;
        }
        return TC_EXIT_OK;
    }
    char *ops[1] = {(char *)operand};
    tc_input_list inputs;
    if (tc_inputs_expand(ops, 1, &inputs, err, sizeof err)) {
        fprintf(stderr, "tracecost compare: %s\n", err);
        return TC_EXIT_NOTHING;
    }
    tc_job j;
    tc_job_init(&j);
    tc_load_options lopt = {(int)jobs, !quiet && isatty(fileno(stderr)), stderr, inputs.from_folder};
    tc_analyze_options aopt = {.bound_threshold = 0.15, .jobs = (int)jobs};
    int rc = tc_job_load(&j, inputs.paths, inputs.n, &lopt);
    if (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) {
        if (tc_job_analyze(&j, &aopt) || tc_run_summary_from_job(s, &j, operand, err, sizeof err)) {
            fprintf(stderr, "tracecost compare: %s: out of memory during analysis\n", operand);
            rc = TC_EXIT_NOTHING;
        }
    }
    tc_job_free(&j);
    tc_input_list_free(&inputs);
    return rc;
}

static int apply_flags(tc_cost_inputs *in, const kv *f, size_t n, const char *side) {
    char err[600];
    for (size_t i = 0; i < n; i++)
        if (tc_cost_parse_option(in, f[i].name, f[i].value, err, sizeof err) != 0) {
            fprintf(stderr, "tracecost compare: %s: %s\n", side, err);
            return -1;
        }
    return 0;
}

static int write_file(const char *path, int (*fn)(FILE *, const tc_comparison *), const tc_comparison *c) {
    FILE *f = tc_output_open("compare", path);
    return f ? tc_output_close("compare", path, f, fn(f, c)) : TC_EXIT_OUTPUT;
}

int tc_cmd_compare(int argc, char **argv) {
    const char *json_path = NULL, *html_path = NULL, *ops[2] = {NULL, NULL};
    size_t n_ops = 0;
    bool quiet = false;
    long jobs = 0;
    double work = 0;
    kv *fa = calloc((size_t)argc + 1, sizeof *fa), *fb = calloc((size_t)argc + 1, sizeof *fb);
    size_t nfa = 0, nfb = 0;
    int rc = TC_EXIT_OK;
    tc_run_summary sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    if (!fa || !fb) { free(fa); free(fb); return TC_EXIT_NOTHING; }
    tc_opts o;
    tc_opts_init(&o, argc, argv, 1);
    const char *operand;
    int kind;
    while ((kind = tc_opts_next(&o, &operand)) >= 0) {
        if (kind == 0) {
            if (n_ops == 2) { rc = usage_error("too many operands: '%s' (compare takes A and B)%s", operand, ""); goto out; }
            ops[n_ops++] = operand;
            continue;
        }
        const char *name = o.name;
        if (!strcmp(name, "-h") || !strcmp(name, "--help")) { compare_usage(stdout); goto out; }
        else if (!strcmp(name, "-q") || !strcmp(name, "--quiet")) quiet = true;
        else if (!strcmp(name, "--json") || !strcmp(name, "--html")) {
            const char *v = tc_opts_value(&o);
            if (!v) { rc = usage_error("%s needs a file name%s", name, !strcmp(name, "--json") ? " (or - for stdout)" : ""); goto out; }
            if (!strcmp(name, "--json")) json_path = v; else html_path = v;
        } else if (!strcmp(name, "--work-steps-per-month")) {
            const char *v = tc_opts_value(&o);
            if (!tc_parse_double(v, &work) || work <= 0) { rc = usage_error("%s needs a number of steps > 0, not '%s'", name, v ? v : ""); goto out; }
        } else if (!strcmp(name, "-j") || !strcmp(name, "--jobs")) {
            const char *v = tc_opts_value(&o);
            if (!tc_parse_long(v, &jobs) || jobs < 1 || jobs > 1024) { rc = usage_error("%s needs a whole number from 1 to 1024, not '%s'", name, v ? v : ""); goto out; }
        } else if (!strncmp(name, "--", 2)) {
            bool for_b = !strncmp(name, "--b-", 4);
            const char *opt = name + (for_b ? 4 : 2);
            bool known = false;
            for (const char *const *p = tc_cost_option_names(); *p && !known; p++)
                known = !strcasecmp(*p, opt);
            if (!known) {
                const char *close = tc_closest_option(name, compare_options);
                char sugg[96];
                if (!close && tc_cost_suggest_option(opt)) {
                    snprintf(sugg, sizeof sugg, "%s%s", for_b ? "--b-" : "--", tc_cost_suggest_option(opt));
                    close = sugg;
                }
                if (close) rc = usage_error("unknown option '%s' (did you mean %s?)", name, close);
                else rc = usage_error("unknown option '%s'%s", name, "");
                goto out;
            }
            const char *v = tc_opts_value(&o);
            if (!v) { rc = usage_error("%s needs a value%s", name, ""); goto out; }
            /* o.name points into a buffer reused by the next option: keep a copy */
            kv e = {strdup(opt), v};
            if (!e.name) { rc = TC_EXIT_NOTHING; goto out; }
            if (for_b) fb[nfb++] = e; else fa[nfa++] = e;
        } else { rc = usage_error("unknown option '%s'%s", name, ""); goto out; }
    }
    if (n_ops != 2) { rc = usage_error("need two runs to compare: A and B (trace folders or saved --json results)%s%s", "", ""); goto out; }

    /* B inherits A's cost flags; --b-FLAG overrides (the later of two flags wins) */
    tc_cost_inputs in_a, in_b;
    tc_cost_inputs_defaults(&in_a);
    tc_cost_inputs_defaults(&in_b);
    if (apply_flags(&in_a, fa, nfa, "A") || apply_flags(&in_b, fa, nfa, "B") || apply_flags(&in_b, fb, nfb, "B")) { rc = TC_EXIT_USAGE; goto out; }

    int ra = load_side(ops[0], jobs, quiet, &sa);
    if (ra != TC_EXIT_OK && ra != TC_EXIT_DAMAGED) { rc = ra; goto out; }
    int rb = load_side(ops[1], jobs, quiet, &sb);
    if (rb != TC_EXIT_OK && rb != TC_EXIT_DAMAGED) { rc = rb; goto out; }
    char err[600];
    if (tc_run_cost(&sa, &in_a, nfa > 0, err, sizeof err) || tc_run_cost(&sb, &in_b, nfa + nfb > 0, err, sizeof err)) {
        fprintf(stderr, "tracecost compare: %s\n", err);
        rc = TC_EXIT_USAGE;
        goto out;
    }
    tc_comparison c;
    if (tc_compare(&c, &sa, &sb, work)) { fprintf(stderr, "tracecost compare: out of memory\n"); rc = TC_EXIT_NOTHING; goto out; }
    bool json_stdout = json_path && !strcmp(json_path, "-");
    if (!quiet && !json_stdout) tc_compare_text_write(stdout, &c, tc_use_color(stdout));
    if (json_path) rc = write_file(json_path, tc_compare_json_write, &c);
    if (rc == TC_EXIT_OK && html_path) rc = write_file(html_path, tc_compare_html_write, &c);
    tc_comparison_free(&c);
    if (rc == TC_EXIT_OK && (ra == TC_EXIT_DAMAGED || rb == TC_EXIT_DAMAGED)) rc = TC_EXIT_DAMAGED;
out:
    tc_run_summary_free(&sa);
    tc_run_summary_free(&sb);
    for (size_t i = 0; i < nfa; i++) free((char *)fa[i].name);
    for (size_t i = 0; i < nfb; i++) free((char *)fb[i].name);
    free(fa);
    free(fb);
    return rc;
}
