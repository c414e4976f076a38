/* cmd_compare.c: `tracecost compare A B`: loads or reads each side (a trace folder/file, or a saved
 * `analyze --json` result), runs each side's cost model with its own flags (B inherits A's unless
 * given as --b-FLAG), compares, and writes the terminal report, --json and --html. */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "analyzer/compare.h"
#include "analyzer/job_run.h"
#include "analyzer/fabric_replay.h"
#include "cost_options.h"
#include "diag.h"
#include "exitcodes.h"
#include "output.h"
#include "model/job.h"
#include "analyzer/analyze.h"
#include "load_job.h"
#include "opts.h"
#include "parsers/result_json.h"
#include "reports/compare_report.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void compare_usage(FILE *f) {
    fprintf(f,
        "Usage: tracecost compare [options] [cost flags for A] [--b-FLAG V for B] A B\n"
        "\n"
        "Compares two runs side by side: step time, throughput per GPU, MFU, every share of the\n"
        "breakdown, fabric bus bandwidth, collectives that got slower or faster, straggler, verdict,\n"
        "and cost per step and per effective GPU-hour with each side's prices. A and B are each a trace\n"
        "folder or file (analyzed here) or a saved 'tracecost analyze --json' result (tracecost/1).\n"
        "\n"
        "Options:\n");
    tc_opts_help(f, &tc_opts_compare);
    fprintf(f,
        "\n"
        "Examples:\n"
        "  tracecost compare runs/ib-50/ runs/ib-400/\n"
        "  tracecost compare --price-per-gpu-hour 2.5 --b-price-per-gpu-hour 3.1 old.json new/\n"
        "\n"
        "Exit codes: 0 compared, 1 usage error, 2 a side could not be read, 3 compared with damaged input,\n"
        "4 an output could not be written.\n");
}

typedef struct { const char *name, *value; } kv;

/* Reads one side into s: a saved result with its reader, else the traces (in: the operand
 * expanded), loaded and analyzed with the node and fabric flags (fabric: --gpus-per-node, 0 the
 * default rule, which for a saved result replaces the saved node count; --fabric, --nic-gbps), and
 * the fabric what-if replayed on the side's cost inputs (cost: its target), as analyze does.
 * Returns an exit code (OK, DAMAGED, NOTHING, USAGE). */
static int load_side(const char *operand, const tc_cli_inputs *in, long jobs, bool quiet,
                     const tc_analyze_options *fabric, const tc_comm_patterns *comm, const tc_cost_inputs *cost,
                     tc_run_summary *s) {
    int64_t gpus_per_node = fabric->gpus_per_node;
    tc_error e;
    tc_error_clear(&e);
    if (tc_result_json_is_saved(operand)) {
        if (tc_result_json_read(s, operand, &e) != TC_OK) {
            tc_diag(stderr, "tracecost compare: %s\n", e.msg);
            return TC_EXIT_NOTHING;
        }
        tc_run_summary_set_gpus_per_node(s, gpus_per_node);
        return TC_EXIT_OK;
    }
    if (in->error.code != TC_OK) return tc_cli_inputs_report(in, stderr, "tracecost compare");
    tc_job j;
    tc_job_init(&j);
    int notes_rc = tc_cli_inputs_report(in, stderr, "tracecost compare");
    tc_load_options lopt = {.jobs = (int)jobs, .progress = !quiet && isatty(fileno(stderr)), .err = stderr,
                            .comm = comm, .window = 0};
    tc_analyze_options aopt = {.bound_threshold = 0.15, .jobs = (int)jobs, .gpus_per_node = gpus_per_node,
                               .fabric = fabric->fabric, .nic_gbps = fabric->nic_gbps};
    int rc = tc_job_load(&j, &in->list, &lopt);
    if (rc == TC_EXIT_OK) rc = notes_rc; /* a folder entry left out is an input not used */
    if ((rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) && j.n_windows > 1 && !quiet)
        tc_diag(stderr, "tracecost compare: note: %s holds %zu profiler windows: comparing the most recent (window %zu)\n",
                operand, j.n_windows, j.window);
    if (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) {
        if (tc_job_analyze(&j, &aopt) || tc_fabric_replay(&j, cost) ||
            tc_run_summary_from_job(s, &j, operand, TC_RUN_AS_SAVED, &e) != TC_OK) {
            tc_diag(stderr, "tracecost compare: %s: out of memory during analysis\n", operand);
            rc = TC_EXIT_NOTHING;
        }
    }
    tc_job_free(&j);
    return rc;
}

static int apply_flags(tc_cost_inputs *in, const kv *f, size_t n, const char *side) {
    char err[600];
    for (size_t i = 0; i < n; i++)
        if (tc_cost_parse_option(in, f[i].name, f[i].value, err, sizeof err) != 0) {
            tc_diag(stderr, "tracecost compare: %s: %s\n", side, err);
            return -1;
        }
    return 0;
}

static int write_file(const char *path, int (*fn)(FILE *, const tc_comparison *), const tc_comparison *c, bool tell) {
    tc_output o;
    return tc_output_open(&o, "compare", path) ? TC_EXIT_OUTPUT : tc_output_close(&o, "compare", fn(o.f, c), tell);
}

/* What the command line asked for. */
typedef struct {
    const char *json_path, *html_path, *ops[2];
    size_t n_ops;
    bool quiet, help;
    bool force;             /* --force: replace an output file that holds input-like data (output.h) */
    bool recursive;         /* -r, --recursive: a folder side with its subfolders */
    long jobs;
    double work;            /* --work-steps-per-month; 0 = the default */
    tc_analyze_options fabric; /* --gpus-per-node (0 = the default rule), --fabric, --nic-gbps (cost_options.h) */
    double tokens[2], samples[2]; /* work per step of A (and B unless [1] given), of B; 0 = not given */
    kv *fa, *fb;            /* cost flags for A (and B unless overridden), for B only */
    char **configs;         /* --config and --b-config files (room for argc): inputs no output may name */
    size_t n_configs;
    size_t nfa, nfb;
    tc_comm_patterns *comm; /* --comm-kernel and the configs' comm-kernel keys: both runs */
    tc_cli_inputs sides[2]; /* each operand expanded, once: checked against the outputs, loaded */
} compare_args;

/* One option o->opt with its value into a. Returns TC_EXIT_OK (a->help: --help was written), or an
 * exit code after the message. */
static int set_option(compare_args *a, const tc_opts *o) {
    const char *name = o->word, *v = o->value;
    const tc_opt_table *t = &tc_opts_compare;
    switch (o->opt->id) {
    case TC_OPT_HELP:
        compare_usage(stdout);
        a->help = true;
        return TC_EXIT_OK;
    case TC_OPT_QUIET: a->quiet = true; return TC_EXIT_OK;
    case TC_OPT_RECURSIVE: a->recursive = true; return TC_EXIT_OK;
    case TC_OPT_FORCE: a->force = true; return TC_EXIT_OK;
    case TC_OPT_JSON: case TC_OPT_HTML:
        if (!v) return tc_opts_error(t, "%s needs a file name%s", name, o->opt->id == TC_OPT_JSON ? " (or - for stdout)" : "");
        if (o->opt->id == TC_OPT_JSON) a->json_path = v; else a->html_path = v;
        return TC_EXIT_OK;
    case TC_OPT_WORK:
        if (!tc_parse_count(v, &a->work) || a->work <= 0)
            return tc_opts_error(t, "%s needs a number of steps > 0 (e.g. 20000, 20K), not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    case TC_OPT_JOBS:
        if (!tc_parse_long(v, &a->jobs) || a->jobs < 1 || a->jobs > 1024) return tc_opts_error(t, "%s needs a whole number from 1 to 1024, not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    case TC_OPT_GPUS_PER_NODE: case TC_OPT_FABRIC: case TC_OPT_NIC_GBPS: return tc_fabric_option(o, &a->fabric);
    case TC_OPT_TOKENS: case TC_OPT_TOKENS_B: case TC_OPT_SAMPLES: case TC_OPT_SAMPLES_B: {
        double x;
        if (!tc_parse_count(v, &x) || !(x > 0) || x > 1e18)
            return tc_opts_error(t, "%s needs a positive number (e.g. 32768, 32K, 1M), not '%s'", name, v ? v : "");
        bool b = o->opt->id == TC_OPT_TOKENS_B || o->opt->id == TC_OPT_SAMPLES_B;
        if (o->opt->id == TC_OPT_TOKENS || o->opt->id == TC_OPT_TOKENS_B) a->tokens[b] = x; else a->samples[b] = x;
        return TC_EXIT_OK;
    }
    case TC_OPT_COMM_KERNEL: return tc_opts_comm_kernel(o, a->comm);
    case TC_OPT_COST_FLAG: case TC_OPT_COST_FLAG_B: /* --FLAG V for both sides, --b-FLAG V for B */
        if (!v) return tc_opts_error(t, "%s needs a value", name);
        if (!strcmp(o->opt->name, "--config") || !strcmp(o->opt->name, "--b-config")) { /* patterns: both runs */
            char err[1400];
            if (tc_config_comm_kernels(a->comm, v, err, sizeof err) != 0) {
                fprintf(stderr, "tracecost compare: %s\n", err);
                return TC_EXIT_USAGE;
            }
        }
        if (!strcmp(o->opt->name, "--config") || !strcmp(o->opt->name, "--b-config")) a->configs[a->n_configs++] = (char *)v;
        if (o->opt->id == TC_OPT_COST_FLAG) a->fa[a->nfa++] = (kv){o->opt->name + 2, v};
        else a->fb[a->nfb++] = (kv){o->opt->name + 4, v};
        return TC_EXIT_OK;
    default: return TC_EXIT_OK; /* no other rows in the table */
    }
}

/* Refuses outputs that would destroy an input (either run's traces or saved result, a config) or
 * each other, or (unless --force) that hold a trace or other input-like data (output.h). TC_EXIT_OK, or the usage exit code after the message. */
static int check_outputs(const compare_args *a) {
    tc_output_spec outs[2];
    size_t n = 0;
    if (a->json_path) outs[n++] = (tc_output_spec){"--json", a->json_path, NULL};
    if (a->html_path) outs[n++] = (tc_output_spec){"--html", a->html_path, NULL};
    char err[1200];
    int rc = n ? tc_output_check(outs, n, a->configs, a->n_configs, err, sizeof err) : 0;
    for (size_t s = 0; s < 2 && n && rc == 0; s++) {
        const tc_cli_inputs *in = &a->sides[s];
        if (in->error.code != TC_OK) continue; /* loading says why */
        rc = tc_output_check(outs, n, in->list.paths, in->list.n, err, sizeof err);
    }
    if (n && rc == 0) rc = tc_output_check_existing(outs, n, a->force, err, sizeof err);
    return rc ? tc_opts_error(&tc_opts_compare, "%s", err) : TC_EXIT_OK;
}

/* Reads argv into a (zeroed first; a->fa and a->fb allocated, freed by args_free). Returns
 * TC_EXIT_OK (a->help: --help was written), or an exit code after the message. */
static int parse_args(compare_args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->fa = calloc((size_t)argc + 1, sizeof *a->fa);
    a->fb = calloc((size_t)argc + 1, sizeof *a->fb);
    a->configs = calloc((size_t)argc + 1, sizeof *a->configs);
    a->comm = tc_comm_patterns_new();
    if (!a->fa || !a->fb || !a->configs || !a->comm) return TC_EXIT_NOTHING;
    const tc_opt_table *t = &tc_opts_compare;
    tc_opts o;
    tc_opts_init(&o, t, argc, argv, 1);
    tc_opts_kind kind;
    while ((kind = tc_opts_next(&o)) != TC_OPTS_END) {
        int rc = TC_EXIT_OK;
        if (kind == TC_OPTS_OPERAND) {
            if (a->n_ops == 2) return tc_opts_error(t, "too many operands: '%s' (compare takes A and B)", o.operand);
            a->ops[a->n_ops++] = o.operand;
        } else if (kind != TC_OPTS_OPTION) return tc_opts_fail(&o);
        else rc = set_option(a, &o);
        if (rc != TC_EXIT_OK || a->help) return rc;
    }
    if (a->n_ops != 2) return tc_opts_error(t, "need two runs to compare: A and B (trace folders or saved --json results)");
    int rc = tc_fabric_options_check(t, &a->fabric);
    if (rc != TC_EXIT_OK) return rc;
    for (size_t s = 0; s < 2; s++) {
        char *ops[1] = {(char *)a->ops[s]};
        tc_cli_inputs_expand(&a->sides[s], ops, 1, a->recursive);
    }
    return check_outputs(a);
}

static void args_free(compare_args *a) {
    free(a->fa);
    free(a->fb);
    free(a->configs);
    tc_comm_patterns_free(a->comm);
    tc_cli_inputs_free(&a->sides[0]);
    tc_cli_inputs_free(&a->sides[1]);
}

/* The work of a step on each side: --tokens-per-step / --samples-per-step for A and, unless the
 * --b- form is given, for B. */
static void set_work(tc_run_summary *sa, tc_run_summary *sb, const compare_args *a) {
    double tb = a->tokens[1] > 0 ? a->tokens[1] : a->tokens[0], sbv = a->samples[1] > 0 ? a->samples[1] : a->samples[0];
    sa->has_tokens = a->tokens[0] > 0;
    sa->tokens_per_step = a->tokens[0];
    sb->has_tokens = tb > 0;
    sb->tokens_per_step = tb;
    sa->has_samples = a->samples[0] > 0;
    sa->samples_per_step = a->samples[0];
    sb->has_samples = sbv > 0;
    sb->samples_per_step = sbv;
}

/* The cost of one side (tc_run_cost). Returns TC_EXIT_OK, or an exit code after the message. */
static int side_cost(tc_cmp_cost *out, const tc_run_summary *s, tc_cost_inputs *in, bool flags_given) {
    tc_error e;
    tc_error_clear(&e);
    tc_status st = tc_run_cost(out, s, in, flags_given, &e);
    if (st == TC_OK) return TC_EXIT_OK;
    tc_diag(stderr, "tracecost compare: %s\n", e.msg);
    return st == TC_ERR_NOMEM ? TC_EXIT_NOTHING : TC_EXIT_USAGE;
}

/* Compares the two loaded sides with their costs and writes the reports. */
static int compare_and_write(const compare_args *a, const tc_run_summary *sa, const tc_cmp_cost *ca,
                             const tc_run_summary *sb, const tc_cmp_cost *cb) {
    tc_comparison c;
    if (tc_compare(&c, sa, ca, sb, cb, a->work) != TC_OK) {
        fprintf(stderr, "tracecost compare: out of memory\n");
        tc_comparison_free(&c);
        return TC_EXIT_NOTHING;
    }
    int rc = TC_EXIT_OK; /* the files first: a summary cut short by a closed pipe loses none */
    bool json_stdout = a->json_path && !strcmp(a->json_path, "-"), html_stdout = a->html_path && !strcmp(a->html_path, "-");
    if (a->json_path) rc = write_file(a->json_path, tc_compare_json_write, &c, !a->quiet);
    if (rc == TC_EXIT_OK && a->html_path) rc = write_file(a->html_path, tc_compare_html_write, &c, !a->quiet);
    tc_term_opts o = tc_term_for(stdout);
    if (!a->quiet && !json_stdout && !html_stdout) tc_compare_text_write(stdout, &c, &o);
    tc_comparison_free(&c);
    return rc;
}

int tc_cmd_compare(int argc, char **argv) {
    compare_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != TC_EXIT_OK || a.help) { args_free(&a); return rc; }
    /* B inherits A's cost flags; --b-FLAG overrides (the later of two flags wins) */
    tc_cost_inputs in_a, in_b;
    tc_cost_inputs_defaults(&in_a);
    tc_cost_inputs_defaults(&in_b);
    tc_cost_set_today(&in_a);
    tc_cost_set_today(&in_b);
    if (apply_flags(&in_a, a.fa, a.nfa, "A") || apply_flags(&in_b, a.fa, a.nfa, "B") || apply_flags(&in_b, a.fb, a.nfb, "B")) {
        args_free(&a);
        return TC_EXIT_USAGE;
    }
    tc_run_summary sa, sb;
    tc_cmp_cost ca, cb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    memset(&ca, 0, sizeof ca);
    memset(&cb, 0, sizeof cb);
    int ra = load_side(a.ops[0], &a.sides[0], a.jobs, a.quiet, &a.fabric, a.comm, &in_a, &sa), rb = TC_EXIT_OK;
    if (ra != TC_EXIT_OK && ra != TC_EXIT_DAMAGED) rc = ra;
    else if ((rb = load_side(a.ops[1], &a.sides[1], a.jobs, a.quiet, &a.fabric, a.comm, &in_b, &sb)) != TC_EXIT_OK &&
             rb != TC_EXIT_DAMAGED)
        rc = rb;
    else {
        set_work(&sa, &sb, &a);
        if ((rc = side_cost(&ca, &sa, &in_a, a.nfa > 0)) == TC_EXIT_OK &&
            (rc = side_cost(&cb, &sb, &in_b, a.nfa + a.nfb > 0)) == TC_EXIT_OK) {
            rc = compare_and_write(&a, &sa, &ca, &sb, &cb);
            if (rc == TC_EXIT_OK && (ra == TC_EXIT_DAMAGED || rb == TC_EXIT_DAMAGED)) rc = TC_EXIT_DAMAGED;
        }
    }
    tc_cmp_cost_free(&ca);
    tc_cmp_cost_free(&cb);
    tc_run_summary_free(&sa);
    tc_run_summary_free(&sb);
    args_free(&a);
    return rc;
}
