/* cmd_analyze.c: `tracecost analyze`: load the job, analyze, write the reports. */
#define _POSIX_C_SOURCE 200809L
#include "cliopt.h"
#include "commands.h"
#include "exitcodes.h"
#include "inputs.h"
#include "job.h"
#include "load_job.h"
#include "../reports/html_report.h"
#include "../reports/json_report.h"
#include "../reports/text_report.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const analyze_options[] = {
    "--json", "--html", "--jobs", "-j", "--bound-threshold", "--quiet", "-q", "--help", "-h", NULL,
};

static void analyze_usage(FILE *f) {
    fprintf(f,
        "Usage: tracecost analyze [options] TRACE|FOLDER|- ...\n"
        "\n"
        "Analyzes the ranks of one job (every input is one rank): splits each GPU's time into compute,\n"
        "exposed communication (wait for peers vs transfer), exposed memory copies and idle; names the\n"
        "bottleneck. Inputs: Kineto/PyTorch Profiler or tracecost record traces, plain or gzip, a folder\n"
        "(its *.json and *.json.gz files), a glob, or - for standard input.\n"
        "\n"
        "Options:\n"
        "  --json FILE           write the results as JSON (tracecost/1) to FILE, or - for stdout\n"
        "  --html FILE           write a self-contained HTML report (charts, tables) to FILE, or - for stdout\n"
        "  -j, --jobs N          parse N files at a time (default: number of cores)\n"
        "  --bound-threshold X   share of GPU time a loss must reach to name the verdict (default 0.15)\n"
        "  -q, --quiet           print nothing but errors (the JSON is still written)\n"
        "  -h, --help            this help\n"
        "\n"
        "Examples:\n"
        "  tracecost analyze run42/rank3.pt.trace.json.gz\n"
        "  tracecost analyze --json out.json traces/\n"
        "  tracecost analyze --html report.html traces/\n"
        "  cat trace.json | tracecost analyze -\n"
        "\n"
        "Exit codes: 0 analyzed, 1 usage error, 2 nothing analyzable, 3 analyzed with damaged input.\n");
}

bool tc_use_color(FILE *f) {
    const char *nc = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (nc && *nc) return false;
    if (term && strcmp(term, "dumb") == 0) return false;
    return isatty(fileno(f));
}

static int usage_error(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "tracecost analyze: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nTry 'tracecost analyze --help'.\n");
    return TC_EXIT_USAGE;
}

int tc_cmd_analyze(int argc, char **argv) {
    const char *json_path = NULL, *html_path = NULL;
    bool quiet = false;
    long jobs = 0;
    tc_analyze_options aopt = {0.15, 0};
    char **operands = calloc((size_t)argc + 1, sizeof *operands);
    size_t n_operands = 0;
    if (!operands) return TC_EXIT_NOTHING;
    tc_opts o;
    tc_opts_init(&o, argc, argv, 1);
    const char *operand;
    int kind, rc = TC_EXIT_OK;
    while ((kind = tc_opts_next(&o, &operand)) >= 0) {
        if (kind == 0) { operands[n_operands++] = (char *)operand; continue; }
        const char *name = o.name;
        if (!strcmp(name, "-h") || !strcmp(name, "--help")) { analyze_usage(stdout); free(operands); return TC_EXIT_OK; }
        else if (!strcmp(name, "-q") || !strcmp(name, "--quiet")) quiet = true;
        else if (!strcmp(name, "--json")) {
            json_path = tc_opts_value(&o);
            if (!json_path) { rc = usage_error("%s needs a file name (or - for stdout)%s", name, ""); goto out; }
        } else if (!strcmp(name, "--html")) {
            html_path = tc_opts_value(&o);
            if (!html_path) { rc = usage_error("%s needs a file name (or - for stdout)%s", name, ""); goto out; }
        } else if (!strcmp(name, "-j") || !strcmp(name, "--jobs")) {
            const char *v = tc_opts_value(&o);
            if (!tc_parse_long(v, &jobs) || jobs < 1 || jobs > 1024) { rc = usage_error("%s needs a whole number from 1 to 1024, not '%s'", name, v ? v : ""); goto out; }
        } else if (!strncmp(name, "-j", 2) && tc_parse_long(name + 2, &jobs) && jobs >= 1 && jobs <= 1024) {
            /* -j4 */
        } else if (!strcmp(name, "--bound-threshold")) {
            const char *v = tc_opts_value(&o);
            if (!tc_parse_double(v, &aopt.bound_threshold) || aopt.bound_threshold <= 0 || aopt.bound_threshold >= 1) {
                rc = usage_error("%s needs a share between 0 and 1 (exclusive), not '%s'", name, v ? v : "");
                goto out;
            }
        } else {
            const char *close = tc_closest_option(name, analyze_options);
            if (close) rc = usage_error("unknown option '%s' (did you mean %s?)", name, close);
            else rc = usage_error("unknown option '%s'%s", name, "");
            goto out;
        }
    }
    if (n_operands == 0) { rc = usage_error("no input given: name trace files, a folder, or - for stdin%s%s", "", ""); goto out; }

    tc_input_list inputs;
    char err[1200];
    if (tc_inputs_expand(operands, n_operands, &inputs, err, sizeof err)) {
        fprintf(stderr, "tracecost: %s\n", err);
        rc = TC_EXIT_NOTHING;
        goto out;
    }
    tc_job j;
    tc_job_init(&j);
    tc_load_options lopt = {(int)jobs, !quiet && isatty(fileno(stderr)), stderr};
    aopt.jobs = (int)jobs;
    rc = tc_job_load(&j, inputs.paths, inputs.n, &lopt);
    if (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) {
        if (tc_job_analyze(&j, &aopt)) {
            fprintf(stderr, "tracecost: out of memory during analysis\n");
            rc = TC_EXIT_NOTHING;
        } else {
            bool json_to_stdout = json_path && !strcmp(json_path, "-");
            bool html_to_stdout = html_path && !strcmp(html_path, "-");
            if (!quiet && !json_to_stdout && !html_to_stdout) tc_text_report_write(stdout, &j, tc_use_color(stdout));
            if (json_path) {
                FILE *f = json_to_stdout ? stdout : fopen(json_path, "w");
                if (!f) { fprintf(stderr, "tracecost: %s: cannot write: ", json_path); perror(NULL); rc = TC_EXIT_USAGE; }
                else {
                    if (tc_json_report_write(f, &j, NULL, NULL)) { fprintf(stderr, "tracecost: %s: write failed\n", json_path); rc = TC_EXIT_NOTHING; }
                    if (f != stdout && fclose(f)) { fprintf(stderr, "tracecost: %s: write failed\n", json_path); rc = TC_EXIT_NOTHING; }
                }
            }
            if (html_path) { /* --html: the self-contained report (reports/html_report.h) */
                FILE *f = html_to_stdout ? stdout : fopen(html_path, "w");
                if (!f) { fprintf(stderr, "tracecost: %s: cannot write: ", html_path); perror(NULL); rc = TC_EXIT_USAGE; }
                else {
                    if (tc_html_report_write(f, &j, NULL)) { fprintf(stderr, "tracecost: %s: write failed\n", html_path); rc = TC_EXIT_NOTHING; }
                    if (f != stdout && fclose(f)) { fprintf(stderr, "tracecost: %s: write failed\n", html_path); rc = TC_EXIT_NOTHING; }
                }
            }
        }
    }
    tc_job_free(&j);
    tc_input_list_free(&inputs);
out:
    free(operands);
    return rc;
}
