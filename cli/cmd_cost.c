/* cmd_cost.c: `tracecost cost`, the calculator: the cost model without a trace, from flags and an
 * optional config file; the table on stdout, and/or JSON (--json FILE, or - for JSON only). */
#include "commands.h"
#include "cost_options.h"
#include "diag.h"
#include "exitcodes.h"
#include "opts.h"
#include "output.h"
#include "reports/cost_report.h"
#include <stdlib.h>
#include <string.h>

static void cost_help(FILE *out) {
    fputs("usage: tracecost cost [options]\n"
          "Prices network inefficiency and compares renting GPUs with owning them, from figures\n"
          "you give (tracecost analyze measures e, N and the fabric bandwidth from a trace).\n"
          "Needs --network-efficiency, --gpus, and --price-per-gpu-hour or --gpu.\n\n"
          "options:\n",
          out);
    tc_opts_help(out, &tc_opts_cost);
    fputs("\n"
          "examples:\n"
          "  tracecost cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2\n"
          "  tracecost cost --gpu h100-sxm --gpus 64 --network-efficiency 70% --utilization 0.9 \\\n"
          "      --ops-per-month 20000 --fabric-GBps 50 --fabric-target-GBps 400 \\\n"
          "      --fabric-upgrade-cost 500000\n"
          "  tracecost cost --config cluster.conf --network-efficiency 0.6 --json cost.json\n",
          out);
}

/* Reads the options into in and *json_path, the --config files read into configs (room for argc).
 * Returns -1 for --help (written), else an exit code:
 * TC_EXIT_OK, or TC_EXIT_USAGE with the message on stderr. */
static int parse_args(int argc, char **argv, tc_cost_inputs *in, const char **json_path, char **configs,
                      size_t *n_configs) {
    char msg[600];
    tc_opts o;
    tc_opts_init(&o, &tc_opts_cost, argc, argv, 1);
    tc_opts_kind kind;
    while ((kind = tc_opts_next(&o)) != TC_OPTS_END) {
        if (kind == TC_OPTS_OPERAND) {
            tc_diag(stderr, "tracecost cost: unexpected argument '%s' (the calculator takes only "
                            "options; see tracecost cost --help)\n", o.operand);
            return TC_EXIT_USAGE;
        }
        if (kind == TC_OPTS_UNKNOWN) {
            const char *hint = tc_opts_suggest(&tc_opts_cost, o.word);
            if (hint) tc_diag(stderr, "tracecost cost: unknown option %s (did you mean %s?)\n", o.word, hint);
            else tc_diag(stderr, "tracecost cost: unknown option %s (tracecost cost --help lists them)\n", o.word);
            return TC_EXIT_USAGE;
        }
        if (kind == TC_OPTS_NO_VALUE) {
            tc_diag(stderr, "tracecost cost: %s takes no value\n", o.word);
            return TC_EXIT_USAGE;
        }
        if (o.opt->id == TC_OPT_HELP) {
            cost_help(stdout);
            return -1;
        }
        if (!o.value) {
            tc_diag(stderr, "tracecost cost: %s needs a value\n", o.word);
            return TC_EXIT_USAGE;
        }
        if (o.opt->id == TC_OPT_JSON) { *json_path = o.value; continue; }
        if (!strcmp(o.opt->name, "--config")) configs[(*n_configs)++] = (char *)o.value;
        if (tc_cost_parse_option(in, o.opt->name + 2, o.value, msg, sizeof msg) != 0) {
            tc_diag(stderr, "tracecost cost: %s\n", msg);
            return TC_EXIT_USAGE;
        }
    }
    return TC_EXIT_OK;
}

/* The JSON first (a table cut short by a closed pipe loses no file), then the table on stdout
 * unless JSON goes there; every write checked. */
static int write_outputs(const tc_cost_result *r, const char *json_path) {
    bool json_to_stdout = json_path && strcmp(json_path, "-") == 0;
    if (json_path) {
        tc_output out;
        if (tc_output_open(&out, "cost", json_path)) return TC_EXIT_OUTPUT;
        int rc = tc_output_close(&out, "cost", tc_cost_json_write(out.f, r), true);
        if (rc != TC_EXIT_OK || json_to_stdout) return rc;
    }
    tc_term_opts o = tc_term_for(stdout);
    tc_cost_result_print(stdout, r, &o);
    return tc_output_close_stdout("cost", 0);
}

int tc_cmd_cost(int argc, char **argv) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    tc_cost_set_today(&in);
    const char *json_path = NULL;
    char **configs = calloc((size_t)argc + 1, sizeof *configs);
    size_t n_configs = 0;
    if (!configs) return TC_EXIT_NOTHING;
    int rc = parse_args(argc, argv, &in, &json_path, configs, &n_configs);
    if (rc == TC_EXIT_OK && json_path) { /* no output may overwrite a config file (output.h) */
        tc_output_spec out = {"--json", json_path, NULL};
        char err[1200];
        if (tc_output_check(&out, 1, configs, n_configs, err, sizeof err)) {
            fprintf(stderr, "tracecost cost: %s\n", err);
            rc = TC_EXIT_USAGE;
        }
    }
    free(configs);
    if (rc < 0) return tc_output_close_stdout("cost", 0); /* --help */
    if (rc != TC_EXIT_OK) return rc;
    tc_cost_apply_catalog(&in, NULL);
    tc_cost_result *r = malloc(sizeof *r); /* large: a timeline of up to 601 months */
    if (!r) {
        fprintf(stderr, "tracecost cost: out of memory\n");
        return TC_EXIT_NOTHING;
    }
    char msg[600];
    if (tc_cost_compute(&in, NULL, r, msg, sizeof msg) != 0) {
        tc_diag(stderr, "tracecost cost: %s\n", msg);
        rc = TC_EXIT_USAGE;
    } else {
        rc = write_outputs(r, json_path);
    }
    free(r);
    return rc;
}
