/* cmd_analyze.c: `tracecost analyze`: load the job, analyze, write the reports. */
#define _POSIX_C_SOURCE 200809L
#include "cost_options.h"
#include "commands.h"
#include "analyzer/job_cost.h"
#include "base/pool.h"
#include "diag.h"
#include "exitcodes.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "analyzer/analyze.h"
#include "load_job.h"
#include "opts.h"
#include "output.h"
#include "analyzer/nccl_join.h"
#include "parsers/nccl_inspector.h"
#include "nccl_alone_cmd.h"
#include "reports/cost_report.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/termtext.h"
#include "reports/text_report.h"
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static void analyze_usage(FILE *f) {
    fprintf(f,
        "Usage: tracecost analyze [options] TRACE|FOLDER|- ...\n"
        "\n"
        "Splits each GPU's time (every input is one rank of the job) into compute, exposed comm (wait vs\n"
        "transfer), memory and idle; names the bottleneck. Inputs: traces (plain, gzip), folders, - (stdin).\n"
        "\n"
        "Options:\n");
    tc_opts_help(f, &tc_opts_analyze);
    fprintf(f,
        "\n"
        "Examples:\n"
        "  tracecost analyze run42/rank3.pt.trace.json.gz\n"
        "  tracecost analyze --price-per-gpu-hour 2 --json out.json --html report.html traces/\n"
        "\n"
        "Exit codes: 0 analyzed, 1 usage error, 2 nothing analyzable, 3 damaged input, 4 output not written.\n");
}

bool tc_use_color(FILE *f) {
    const char *nc = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (nc && *nc) return false;
    if (term && strcmp(term, "dumb") == 0) return false;
    return isatty(fileno(f));
}

tc_term_opts tc_term_for(FILE *f) {
    tc_term_opts o = {tc_use_color(f), TC_TERM_WIDTH};
    const char *env = getenv("COLUMNS");
    long cols = 0;
    struct winsize ws;
    if (env && tc_parse_long(env, &cols) && cols > 0) o.width = cols > INT32_MAX ? INT32_MAX : (int)cols;
    else if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) o.width = ws.ws_col;
    if (o.width < TC_TERM_MIN_WIDTH) o.width = TC_TERM_MIN_WIDTH;
    if (o.width > TC_TERM_MAX_WIDTH) o.width = TC_TERM_MAX_WIDTH;
    return o;
}

/* The plain load-and-analyze step: the operands expanded (in: its failure or notes printed first),
 * loaded on this machine and analyzed: into one (the profiler window lbase->window), or every
 * window into *all (*n_all). */
static int load_analyze_jobs(const tc_cli_inputs *in, const tc_load_options *lbase, const tc_analyze_options *aopt,
                             tc_job *one, tc_job **all, size_t *n_all, bool *report) {
    int notes_rc = tc_cli_inputs_report(in, stderr, "tracecost");
    if (notes_rc == TC_EXIT_NOTHING) return notes_rc;
    int rc = one ? tc_job_load(one, &in->list, lbase) : tc_job_load_all(all, n_all, &in->list, lbase);
    tc_job *jobs = one ? one : *all;
    size_t n = one ? 1 : *n_all;
    if (rc == TC_EXIT_OK) rc = notes_rc; /* a folder entry left out is an input not used */
    if (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) {
        *report = true;
        for (size_t k = 0; k < n && *report; k++)
            if (tc_job_analyze(&jobs[k], aopt)) {
                fprintf(stderr, "tracecost: out of memory during analysis\n");
                rc = TC_EXIT_NOTHING;
                *report = false;
            }
    }
    return rc;
}

static int load_analyze_local(void *ctx, const tc_cli_inputs *in, const tc_load_options *lbase,
                              const tc_analyze_options *aopt, bool need_events, tc_job *j, bool *report) {
    (void)ctx; (void)need_events;
    return load_analyze_jobs(in, lbase, aopt, j, NULL, NULL, report);
}

static int load_analyze_all_local(void *ctx, const tc_cli_inputs *in, const tc_load_options *lbase,
                                  const tc_analyze_options *aopt, tc_job **jobs, size_t *n_jobs, bool *report) {
    (void)ctx;
    return load_analyze_jobs(in, lbase, aopt, NULL, jobs, n_jobs, report);
}

int tc_cmd_load_job(const tc_cli_inputs *in, const tc_load_options *lopt, const tc_analyze_options *aopt, tc_job *j,
                    bool *report) {
    return load_analyze_jobs(in, lopt, aopt, j, NULL, NULL, report);
}

int tc_cmd_analyze(int argc, char **argv) {
    tc_analyze_hooks h = {load_analyze_local, load_analyze_all_local, NULL, true};
    return tc_cmd_analyze_hooked(argc, argv, &h);
}

/* What the command line asks for. */
typedef struct {
    const char *json_path, *html_path;
    const char *csv_dir;      /* --csv DIR: the tables as CSV files (reports/csv_report.h) */
    bool quiet;
    bool force;               /* --force: replace an output file that holds input-like data (output.h) */
    bool recursive;           /* -r, --recursive: folders with their subfolders (parsers/inputs.h) */
    long jobs;
    tc_analyze_options aopt;
    tc_cost_inputs cost_in;
    bool cost_flags;          /* cost options were given */
    bool no_cost;             /* --no-cost */
    tc_comm_patterns *comm;   /* --comm-kernel patterns and the config's comm-kernel keys */
    long window;              /* --window: 0 the most recent, K, or TC_WINDOW_ALL */
    char **operands; size_t n_operands; /* room for argc */
    tc_cli_inputs inputs;     /* the operands expanded, once: checked against the outputs, loaded */
    char **configs; size_t n_configs;   /* --config files read (room for argc): inputs no output may name */
    char **nccl; size_t n_nccl;         /* --nccl DIR|FILE operands (room for argc) */
    long nccl_min_size;                 /* --nccl-min-size BYTES, -1 not given (the Inspector's default) */
} analyze_args;

/* One option o->opt with its value into a. TC_EXIT_OK, -1 after --help (printed), or a usage exit
 * code (the message printed). */
static int set_option(const tc_opts *o, analyze_args *a) {
    const char *name = o->word, *v = o->value;
    const tc_opt_table *t = &tc_opts_analyze;
    double x;
    char err[1200];
    switch (o->opt->id) {
    case TC_OPT_HELP: analyze_usage(stdout); return -1;
    case TC_OPT_QUIET: a->quiet = true; return TC_EXIT_OK;
    case TC_OPT_RECURSIVE: a->recursive = true; return TC_EXIT_OK;
    case TC_OPT_FORCE: a->force = true; return TC_EXIT_OK;
    case TC_OPT_JSON: case TC_OPT_HTML:
        if (!v) return tc_opts_error(t, "%s needs a file name (or - for stdout)", name);
        if (o->opt->id == TC_OPT_JSON) a->json_path = v; else a->html_path = v;
        return TC_EXIT_OK;
    case TC_OPT_CSV:
        if (!v || !*v || !strcmp(v, "-"))
            return tc_opts_error(t, "%s needs a folder to write the CSV files into (it is made when missing)", name);
        a->csv_dir = v;
        return TC_EXIT_OK;
    case TC_OPT_JOBS:
        if (!tc_parse_long(v, &a->jobs) || a->jobs < 1 || a->jobs > 1024)
            return tc_opts_error(t, "%s needs a whole number from 1 to 1024, not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    case TC_OPT_BOUND_THRESHOLD:
        if (!tc_parse_double(v, &a->aopt.bound_threshold) || a->aopt.bound_threshold <= 0 || a->aopt.bound_threshold >= 1)
            return tc_opts_error(t, "%s needs a share between 0 and 1 (exclusive), not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    case TC_OPT_GPU:
        if (!v || !tc_gpu_find_by_id(v)) {
            tc_gpu_unknown_text(err, sizeof err, v ? v : "");
            return tc_opts_error(t, "%s: %s", name, err);
        }
        a->aopt.gpu = v;
        tc_cost_parse_option(&a->cost_in, "gpu", v, err, sizeof err); /* prices from the same entry */
        return TC_EXIT_OK;
    case TC_OPT_NO_COST: a->no_cost = true; return TC_EXIT_OK;
    case TC_OPT_NO_REPLAY: a->aopt.no_replay = true; return TC_EXIT_OK;
    case TC_OPT_PP: {
        long pp;
        if (!tc_parse_long(v, &pp) || pp < 2 || pp > 1000000)
            return tc_opts_error(t, "%s needs a whole number of pipeline stages from 2 to 1000000, not '%s'", name, v ? v : "");
        a->aopt.pp = (int)pp;
        return TC_EXIT_OK;
    }
    case TC_OPT_GPUS_PER_NODE: case TC_OPT_FABRIC: case TC_OPT_NIC_GBPS: return tc_fabric_option(o, &a->aopt);
    case TC_OPT_MODEL_FLOPS: case TC_OPT_PARAMS: case TC_OPT_TOKENS:
        if (!tc_parse_count(v, &x) || !(x > 0))
            return tc_opts_error(t, "%s needs a positive number (e.g. 1.2e15, 7B, 32K), not '%s'", name, v ? v : "");
        if (o->opt->id == TC_OPT_MODEL_FLOPS) a->aopt.model_flops_per_step = x;
        else if (o->opt->id == TC_OPT_PARAMS) a->aopt.params = x;
        else a->aopt.tokens_per_step = x;
        return TC_EXIT_OK;
    case TC_OPT_COST_FLAG:
        if (tc_cost_parse_option(&a->cost_in, o->opt->name + 2, v, err, sizeof err) != 0 ||
            (!strcmp(o->opt->name, "--config") && tc_config_comm_kernels(a->comm, v, err, sizeof err) != 0)) {
            tc_diag(stderr, "tracecost analyze: %s\n", err);
            return TC_EXIT_USAGE;
        }
        if (!strcmp(o->opt->name, "--config")) a->configs[a->n_configs++] = (char *)v;
        a->cost_flags = true;
        return TC_EXIT_OK;
    case TC_OPT_WINDOW:
        if (v && !strcmp(v, "all")) a->window = TC_WINDOW_ALL;
        else if (!tc_parse_long(v, &a->window) || a->window < 1)
            return tc_opts_error(t, "%s needs a window number (1 = the oldest) or 'all', not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    case TC_OPT_COMM_KERNEL: return tc_opts_comm_kernel(o, a->comm);
    case TC_OPT_NCCL:
        if (!v || !*v) return tc_opts_error(t, "%s needs a folder of NCCL Inspector logs or one log file", name);
        a->nccl[a->n_nccl++] = (char *)v;
        return TC_EXIT_OK;
    case TC_OPT_NCCL_MIN_SIZE:
        if (!tc_parse_long(v, &a->nccl_min_size) || a->nccl_min_size < 0)
            return tc_opts_error(t, "%s needs a message size in bytes (0 or more), not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    default: return TC_EXIT_OK; /* no other rows in the table */
    }
}

/* Refuses outputs that would destroy an input or each other (output.h): the inputs are the
 * operands as expanded for loading (when they cannot be expanded, loading says why) and the config
 * files; and, unless --force, an output file that holds a trace or other input-like data. TC_EXIT_OK, or the usage exit code after the message. */
static int check_outputs(const analyze_args *a) {
    tc_output_spec outs[3];
    size_t n = 0;
    if (a->json_path) outs[n++] = (tc_output_spec){"--json", a->json_path, NULL};
    if (a->html_path) outs[n++] = (tc_output_spec){"--html", a->html_path, NULL};
    if (a->csv_dir) outs[n++] = (tc_output_spec){"--csv", a->csv_dir, tc_csv_files};
    if (!n) return TC_EXIT_OK;
    char err[1200];
    const tc_input_list *in = &a->inputs.list;
    int rc = tc_output_check(outs, n, in->paths, in->n, err, sizeof err);
    if (rc == 0) rc = tc_output_check(outs, n, a->configs, a->n_configs, err, sizeof err);
    if (rc == 0) rc = tc_output_check_existing(outs, n, a->force, err, sizeof err);
    return rc ? tc_opts_error(&tc_opts_analyze, "%s", err) : TC_EXIT_OK;
}

/* Parses the options and operands into a (operands allocated by the caller) and expands the
 * operands (a->inputs). TC_EXIT_OK; -1 after --help (printed); or a usage exit code (the message
 * printed). */
static int set_option_cb(const tc_opts *o, void *a) { return set_option(o, a); }

static int parse_args(int argc, char **argv, analyze_args *a) {
    const tc_opt_table *t = &tc_opts_analyze;
    tc_opts o;
    tc_opts_init(&o, t, argc, argv, 1);
    int rc = tc_opts_read_all(&o, a->operands, &a->n_operands, set_option_cb, a);
    if (rc != TC_EXIT_OK) return rc;
    if ((a->aopt.params > 0) != (a->aopt.tokens_per_step > 0))
        return tc_opts_error(t, "%s needs %s too", a->aopt.params > 0 ? "--params" : "--tokens-per-step",
                             a->aopt.params > 0 ? "--tokens-per-step" : "--params");
    if ((rc = tc_fabric_options_check(t, &a->aopt)) != TC_EXIT_OK) return rc;
    if (a->aopt.model_flops_per_step > 0 && a->aopt.params > 0)
        return tc_opts_error(t, "give either --model-flops-per-step or --params with --tokens-per-step, not both");
    if (!isfinite(6.0 * a->aopt.params * a->aopt.tokens_per_step))
        return tc_opts_error(t, "--params times --tokens-per-step gives FLOPs (6 N T) past any number: no GPU "
                             "reaches that in a step; check both flags");
    if (a->n_operands == 0 && a->n_nccl == 0)
        return tc_opts_error(t, "no input given: name trace files, a folder, or - for stdin");
    if (a->window == TC_WINDOW_ALL && (a->html_path || a->csv_dir))
        return tc_opts_error(t, "%s shows one profiler window: pick one with --window K (--window all writes the "
                             "terminal summary and --json)", a->html_path ? "--html" : "--csv");
    a->aopt.kernel_table = a->csv_dir != NULL; /* kernels.csv: the only report of every name */
    if (a->n_operands) /* NCCL's own files may stand alone (nccl_alone_cmd.h) */
        tc_inputs_expand_nccl(a->operands, a->n_operands, a->recursive, &a->inputs.list, &a->inputs.error);
    return check_outputs(a);
}

/* The terminal summary of one analyzed job, its cost and actions. */
static void write_text(const tc_job *j) {
    tc_term_opts o = tc_term_for(stdout);
    tc_text_report_write(stdout, j, &o);
    tc_job_cost_print(stdout, &j->cost, &o);
    tc_text_report_actions(stdout, j, &o); /* the summary ends with them */
}

/* --json for the n analyzed jobs: one tracecost/1 document, or with several (--window all) a JSON
 * array of them, oldest window first, on the -j threads. 0, or -1 when a write failed. */
static int write_json(FILE *f, const tc_job *jobs, size_t n, int jobs_opt) {
    int bad = n > 1 && fputs("[\n", f) < 0;
    int threads = jobs_opt > 0 ? jobs_opt : tc_cpu_count();
    for (size_t k = 0; k < n; k++) {
        if (k && fputs(",\n", f) < 0) bad = 1;
        if (tc_json_report_write(f, &jobs[k], threads)) bad = 1;
    }
    if (n > 1 && fputs("]\n", f) < 0) bad = 1;
    return bad ? -1 : 0;
}

/* --csv DIR: the folder (made when missing), then one file per table of the job (csv_report.h).
 * TC_EXIT_OK, or TC_EXIT_OUTPUT after the message. */
static int write_csv(const char *dir, const tc_job *j, bool tell) {
    struct stat st;
    if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tracecost analyze: %s: cannot make the folder: %s\n", dir, strerror(errno));
        return TC_EXIT_OUTPUT;
    }
    int rc = TC_EXIT_OK;
    size_t len = strlen(dir);
    for (int t = 0; t < TC_CSV_TABLES && rc == TC_EXIT_OK; t++) {
        char path[4200];
        snprintf(path, sizeof path, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", tc_csv_files[t]);
        tc_output o;
        rc = tc_output_open(&o, "analyze", path) ? TC_EXIT_OUTPUT
                                                 : tc_output_close(&o, "analyze", tc_csv_write(o.f, j, (tc_csv_table)t), tell);
    }
    return rc;
}

/* The reports of the analyzed jobs (one, or one per profiler window): --json, --html and --csv first (a
 * summary cut short by a closed pipe loses no file), then the terminal summary of each (unless
 * quiet or a report goes to stdout). Returns rc, or the output exit code when one could not be
 * written. */
static int write_reports(const tc_job *jobs, size_t n, const analyze_args *a, int rc) {
    bool json_to_stdout = a->json_path && !strcmp(a->json_path, "-");
    bool html_to_stdout = a->html_path && !strcmp(a->html_path, "-");
    if (a->json_path) {
        tc_output o;
        int w = tc_output_open(&o, "analyze", a->json_path) ? TC_EXIT_OUTPUT
                                                            : tc_output_close(&o, "analyze", write_json(o.f, jobs, n, a->aopt.jobs), !a->quiet);
        if (w != TC_EXIT_OK) rc = w;
    }
    if (a->html_path) { /* --html: the self-contained report (reports/html_report.h); one job */
        tc_output o;
        int w = tc_output_open(&o, "analyze", a->html_path) ? TC_EXIT_OUTPUT
                                                            : tc_output_close(&o, "analyze", tc_html_report_write(o.f, jobs), !a->quiet);
        if (w != TC_EXIT_OK) rc = w;
    }
    if (a->csv_dir) {
        int w = write_csv(a->csv_dir, jobs, !a->quiet);
        if (w != TC_EXIT_OK) rc = w;
    }
    for (size_t k = 0; !a->quiet && !json_to_stdout && !html_to_stdout && k < n; k++) {
        if (n > 1) printf("%s== profiler window %zu of %zu ==\n\n", k ? "\n" : "", jobs[k].window, jobs[k].n_windows);
        write_text(&jobs[k]);
    }
    return rc;
}

/* The NCCL Inspector logs of --nccl and of the trace folders (*.log whose content is one) read into
 * j and joined to its collectives (analyzer/nccl_join.h), the notes printed. Returns rc, or
 * TC_EXIT_DAMAGED when a log could not be used or held damage, TC_EXIT_NOTHING out of memory. */
static int read_nccl(const analyze_args *a, tc_job *j, int rc) {
    const tc_input_list *in = &a->inputs.list;
    if (!a->n_nccl && !in->n_logs) return rc;
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_status st = tc_nccl_read_paths(a->nccl, a->n_nccl, true, &j->nccl.log, &notes);
    tc_status st2 = st == TC_ERR_NOMEM ? st : tc_nccl_read_paths(in->logs, in->n_logs, false, &j->nccl.log, &notes);
    bool damaged = st != TC_OK || st2 != TC_OK;
    for (size_t i = 0; i < notes.n; i++) damaged |= notes.v[i].code == TC_NOTE_DAMAGED;
    tc_print_notes(stderr, &notes);
    tc_notes_free(&notes);
    j->nccl.present = j->nccl.log.n_files > 0;
    if (a->nccl_min_size >= 0) { j->nccl.min_size = a->nccl_min_size; j->nccl.min_size_given = true; }
    if (st == TC_ERR_NOMEM || st2 == TC_ERR_NOMEM || tc_job_nccl_join(j, &a->aopt)) {
        fprintf(stderr, "tracecost: out of memory\n");
        return TC_EXIT_NOTHING;
    }
    return damaged && rc == TC_EXIT_OK ? TC_EXIT_DAMAGED : rc;
}

/* When no trace could be analyzed but the operands hold NCCL logs: how to analyze those alone. */
static void nccl_hint(const tc_input_list *in) {
    for (size_t i = 0; i < in->n_logs; i++)
        if (tc_nccl_file_sniff(in->logs[i])) {
            tc_diag(stderr, "tracecost: %s and the other NCCL logs can be analyzed without a trace: name them alone, or "
                    "pass their folder with --nccl and no trace\n", in->logs[i]);
            return;
        }
}

/* Loads and analyzes what a asks for (hooks), one job or one per window (*jobs, *n), and writes
 * the reports. Returns the exit code. */
static int analyze_and_report(const analyze_args *a, const tc_analyze_hooks *hooks, tc_load_options *lopt) {
    tc_job *jobs = NULL;
    size_t n = 0;
    bool report = false;
    int rc;
    if (a->window == TC_WINDOW_ALL) {
        if (!hooks->load_analyze_all) {
            fprintf(stderr, "tracecost analyze: --window all is not available in this build: analyze one window at a "
                    "time (--window K)\n");
            return TC_EXIT_USAGE;
        }
        rc = hooks->load_analyze_all(hooks->ctx, &a->inputs, lopt, &a->aopt, &jobs, &n, &report);
    } else {
        jobs = calloc(1, sizeof *jobs);
        if (!jobs) return TC_EXIT_NOTHING;
        tc_job_init(jobs);
        n = 1;
        rc = hooks->load_analyze(hooks->ctx, &a->inputs, lopt, &a->aopt, a->html_path != NULL, jobs, &report);
    }
    if (!report && rc == TC_EXIT_NOTHING) nccl_hint(&a->inputs.list);
    for (size_t k = 0; report && k < n; k++) {
        rc = read_nccl(a, &jobs[k], rc);
        if (rc == TC_EXIT_NOTHING) report = false;
    }
    for (size_t k = 0; report && k < n; k++) { /* each window priced from its own figures */
        tc_error e;
        tc_error_clear(&e);
        tc_status st = tc_job_price(&jobs[k], a->no_cost ? NULL : &a->cost_in, a->cost_flags, &e);
        if (st == TC_OK) continue;
        if (st == TC_ERR_NOMEM) fprintf(stderr, "tracecost: out of memory during analysis\n");
        else tc_diag(stderr, "tracecost analyze: %s\n", e.msg);
        rc = st == TC_ERR_NOMEM ? TC_EXIT_NOTHING : TC_EXIT_USAGE;
        report = false;
    }
    if (report) rc = write_reports(jobs, n, a, rc);
    for (size_t k = 0; k < n; k++) tc_job_free(&jobs[k]);
    free(jobs);
    return rc;
}

/* No trace, NCCL logs only (the operands' or --nccl's): their own report (nccl_alone_cmd.h), the
 * expansion's notes first. --html and --csv need a trace. Returns the exit code. */
static int analyze_nccl_alone(const analyze_args *a, const tc_analyze_hooks *hooks) {
    int notes_rc = tc_cli_inputs_report(&a->inputs, stderr, "tracecost");
    if (a->html_path || a->csv_dir)
        return tc_opts_error(&tc_opts_analyze, "%s needs a PyTorch trace: NCCL logs alone give the terminal report and "
                             "--json", a->html_path ? "--html" : "--csv");
    if (!hooks->nccl_alone) {
        fprintf(stderr, "tracecost analyze: NCCL logs without a trace are analyzed by one process: run tracecost analyze\n");
        return TC_EXIT_NOTHING;
    }
    const tc_input_list *in = &a->inputs.list;
    tc_nccl_alone_args na = {a->nccl, a->n_nccl, in->logs, in->n_logs, &a->aopt, a->json_path, a->quiet};
    int rc = tc_nccl_alone_run(&na);
    return rc == TC_EXIT_OK ? notes_rc : rc;
}

int tc_cmd_analyze_hooked(int argc, char **argv, const tc_analyze_hooks *hooks) {
    analyze_args a;
    memset(&a, 0, sizeof a);
    a.aopt.bound_threshold = 0.15;
    a.nccl_min_size = -1;
    tc_cost_inputs_defaults(&a.cost_in);
    tc_cost_set_today(&a.cost_in);
    a.operands = calloc((size_t)argc + 1, sizeof *a.operands);
    a.configs = calloc((size_t)argc + 1, sizeof *a.configs);
    a.nccl = calloc((size_t)argc + 1, sizeof *a.nccl);
    a.comm = tc_comm_patterns_new();
    if (!a.operands || !a.configs || !a.nccl || !a.comm) {
        free(a.operands);
        free(a.configs);
        free(a.nccl);
        tc_comm_patterns_free(a.comm);
        return TC_EXIT_NOTHING;
    }
    int rc = parse_args(argc, argv, &a);
    if (rc != TC_EXIT_OK) {
        tc_cli_inputs_free(&a.inputs);
        free(a.operands);
        free(a.configs);
        free(a.nccl);
        tc_comm_patterns_free(a.comm);
        return rc < 0 ? TC_EXIT_OK : rc; /* -1: --help */
    }
    tc_load_options lopt = {.jobs = (int)a.jobs, .progress = !a.quiet && isatty(fileno(stderr)), .err = stderr,
                            .comm = a.comm, .window = a.window, .recursive = a.recursive};
    a.aopt.jobs = (int)a.jobs;
    rc = a.inputs.error.code == TC_OK && a.inputs.list.n == 0 ? analyze_nccl_alone(&a, hooks)
                                                              : analyze_and_report(&a, hooks, &lopt);
    tc_cli_inputs_free(&a.inputs);
    free(a.operands);
    free(a.configs);
    free(a.nccl);
    tc_comm_patterns_free(a.comm);
    return rc;
}
