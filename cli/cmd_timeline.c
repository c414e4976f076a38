/* cmd_timeline.c: `tracecost timeline -o FILE TRACES...`: load and analyze the job as analyze does,
 * then write every rank's GPU streams on one clock as one Chrome-trace JSON
 * (reports/timeline_report.h), cut down by --ranks and --steps. */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "diag.h"
#include "analyzer/analyze.h"
#include "base/util.h"
#include "exitcodes.h"
#include "load_job.h"
#include "opts.h"
#include "output.h"
#include "reports/timeline_report.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void timeline_usage(FILE *f) {
    fprintf(f,
        "Usage: tracecost timeline -o FILE [options] TRACE|FOLDER|- ...\n"
        "\n"
        "Writes the job as one Chrome-trace JSON for Perfetto (ui.perfetto.dev) or chrome://tracing:\n"
        "every rank a process on one clock (the estimated clock offsets applied), its CUDA streams as\n"
        "threads, each collective kernel split into its wait and its transfer, the ProfilerSteps, the\n"
        "straggler named. Inputs as for analyze.\n"
        "\n"
        "Options:\n");
    tc_opts_help(f, &tc_opts_timeline);
    fprintf(f,
        "\n"
        "Examples:\n"
        "  tracecost timeline -o merged.json traces/run42/\n"
        "  tracecost timeline -o steps.json --ranks 0-3 --steps 5-6 traces/run42/\n"
        "\n"
        "Exit codes: 0 written, 1 usage error, 2 nothing analyzable, 3 damaged input, 4 output not written.\n");
}

typedef struct {
    const char *out;
    const char *ranks;        /* --ranks text, checked against the job once it is loaded */
    bool has_steps;
    int64_t first_step, last_step;
    bool quiet, recursive;
    bool force;             /* --force: replace an output file that holds input-like data (output.h) */
    long jobs, window;
    tc_comm_patterns *comm;
    char **operands; size_t n_operands;
    tc_cli_inputs inputs;     /* the operands expanded, once: checked against -o, loaded */
} timeline_args;

/* "A-B" or "A" into *a, *b (A <= B). */
static bool parse_range(const char *v, int64_t *a, int64_t *b) {
    char buf[64];
    if (!v || !*v || snprintf(buf, sizeof buf, "%s", v) >= (int)sizeof buf) return false;
    char *dash = strchr(buf + 1, '-');
    if (dash) *dash = '\0';
    long x, y;
    if (!tc_parse_long(buf, &x)) return false;
    if (dash ? !tc_parse_long(dash + 1, &y) : (y = x, false)) return false;
    if (y < x) return false;
    *a = x;
    *b = y;
    return true;
}

/* --ranks LIST over the job's ranks into keep[] (per j->ranks index). 0, or -1 with err. */
static int pick_ranks(const char *list, const tc_job *j, bool *keep, char *err, size_t errlen) {
    char *copy = strdup(list), *save = NULL;
    if (!copy) { snprintf(err, errlen, "out of memory"); return -1; }
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        int64_t a, b;
        if (!parse_range(tok, &a, &b)) {
            snprintf(err, errlen, "--ranks: '%.40s' is not a rank or a range A-B (e.g. 0,2,4-7)", tok);
            rc = -1;
            break;
        }
        size_t hit = 0;
        for (size_t k = 0; k < j->n_ranks; k++)
            if (j->ranks[k].rank >= a && j->ranks[k].rank <= b) { keep[k] = true; hit++; }
        if (!hit) {
            snprintf(err, errlen, "--ranks: no rank %.40s among the inputs' %zu ranks (%lld to %lld)", tok, j->n_ranks,
                     j->n_ranks ? (long long)j->ranks[0].rank : 0LL, j->n_ranks ? (long long)j->ranks[j->n_ranks - 1].rank : 0LL);
            rc = -1;
        }
    }
    free(copy);
    return rc;
}

/* The step numbers the kept ranks hold (their ProfilerSteps, CPU or GPU spans, and the analyzer's
 * steps), sorted, each once, into *out. -1 out of memory. */
static int held_steps(const tc_job *j, const bool *keep, int64_t **out, size_t *n) {
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t k = 0; k < j->n_ranks; k++) {
        if (keep && !keep[k]) continue;
        const tc_rank_result *rr = &j->ranks[k];
        const tc_trace *t = &j->traces[rr->input];
        for (size_t s = 0; s < rr->n_steps; s++)
            if (TC_PUSH(*out, *n, cap, rr->steps[s].number)) return -1;
        for (size_t s = 0; s < t->n_cpu_steps; s++)
            if (TC_PUSH(*out, *n, cap, t->cpu_steps[s].number)) return -1;
        for (size_t s = 0; s < t->n_gpu_steps; s++)
            if (TC_PUSH(*out, *n, cap, t->gpu_steps[s].number)) return -1;
    }
    for (size_t a = 1; a < *n; a++) /* insertion sort: a profiler window holds few steps */
        for (size_t b = a; b > 0 && (*out)[b - 1] > (*out)[b]; b--) {
            int64_t x = (*out)[b];
            (*out)[b] = (*out)[b - 1];
            (*out)[b - 1] = x;
        }
    size_t u = 0;
    for (size_t i = 0; i < *n; i++) if (u == 0 || (*out)[u - 1] != (*out)[i]) (*out)[u++] = (*out)[i];
    *n = u;
    return 0;
}

/* One range "A-B" (or "A") after the others in buf. false when buf is full (it then ends in "..."). */
static bool add_range(char *buf, size_t len, size_t *used, int64_t a, int64_t b) {
    char one[64];
    if (b > a) snprintf(one, sizeof one, "%s%lld-%lld", *used ? ", " : "", (long long)a, (long long)b);
    else snprintf(one, sizeof one, "%s%lld", *used ? ", " : "", (long long)a);
    if (*used + strlen(one) + 6 >= len) { snprintf(buf + *used, len - *used, ", ..."); return false; }
    *used += (size_t)snprintf(buf + *used, len - *used, "%s", one);
    return true;
}

/* The numbers of sorted v[0..n) inside [a, b] as ranges: "2-4, 7"; missing: those of [a, b] not in
 * v instead. "none" when there are none. */
static void step_ranges(char *buf, size_t len, const int64_t *v, size_t n, int64_t a, int64_t b, bool missing) {
    size_t used = 0;
    int64_t cur = a; /* missing: the first number of [a, b] not yet written nor held */
    bool room = true, to_b = false;
    buf[0] = '\0';
    for (size_t i = 0; i < n && room; i++) {
        if (v[i] < a || v[i] > b) continue;
        size_t e = i;
        while (e + 1 < n && v[e + 1] == v[e] + 1 && v[e + 1] <= b) e++;
        if (!missing) room = add_range(buf, len, &used, v[i], v[e]);
        else if (v[i] > cur) room = add_range(buf, len, &used, cur, v[i] - 1);
        if (v[e] == b) { to_b = true; break; }
        cur = v[e] + 1;
        i = e;
    }
    if (missing && room && !to_b) add_range(buf, len, &used, cur, b);
    if (!used) snprintf(buf, len, "none");
}

static bool one_step(const char *ranges) { return !strchr(ranges, ',') && !strchr(ranges + 1, '-'); }

/* --steps A-B against the steps the inputs hold: none of them there is a usage error naming both;
 * some missing: the note that says which (the file holds the others). 0, or the usage exit code. */
static int check_steps(const timeline_args *a, const tc_job *j, const bool *keep) {
    if (!a->has_steps) return 0;
    int64_t *v;
    size_t n;
    if (held_steps(j, keep, &v, &n)) { free(v); return TC_EXIT_NOTHING; }
    size_t hit = 0;
    for (size_t i = 0; i < n; i++) hit += v[i] >= a->first_step && v[i] <= a->last_step;
    char asked[48], held[200], present[200], absent[200];
    if (a->first_step == a->last_step) snprintf(asked, sizeof asked, "%lld", (long long)a->first_step);
    else snprintf(asked, sizeof asked, "%lld-%lld", (long long)a->first_step, (long long)a->last_step);
    step_ranges(held, sizeof held, v, n, INT64_MIN, INT64_MAX, false);
    int rc = 0;
    if (!hit && n)
        rc = tc_opts_error(&tc_opts_timeline, "--steps %s: the inputs hold steps %s%s", asked, held, keep ? " on the ranks kept" : "");
    else if (!hit)
        rc = tc_opts_error(&tc_opts_timeline, "--steps %s: the inputs hold no ProfilerSteps%s", asked, keep ? " on the ranks kept" : "");
    else {
        step_ranges(absent, sizeof absent, v, n, a->first_step, a->last_step, true);
        step_ranges(present, sizeof present, v, n, a->first_step, a->last_step, false);
        if (strcmp(absent, "none"))
            tc_diag(stderr, "tracecost timeline: note: --steps %s: %s %s %s not in the inputs (they hold steps %s%s); the "
                    "file holds %s %s\n", asked, one_step(absent) ? "step" : "steps", absent, one_step(absent) ? "is" : "are",
                    held, keep ? " on the ranks kept" : "", one_step(present) ? "step" : "steps", present);
    }
    free(v);
    return rc;
}

/* One option into a. TC_EXIT_OK, -1 after --help, or the usage exit code after the message. */
static int set_option(const tc_opts *o, timeline_args *a) {
    const tc_opt_table *t = &tc_opts_timeline;
    const char *v = o->value, *name = o->word;
    switch (o->opt->id) {
    case TC_OPT_HELP: timeline_usage(stdout); return -1;
    case TC_OPT_QUIET: a->quiet = true; return TC_EXIT_OK;
    case TC_OPT_RECURSIVE: a->recursive = true; return TC_EXIT_OK;
    case TC_OPT_FORCE: a->force = true; return TC_EXIT_OK;
    case TC_OPT_OUTPUT:
        if (!v || !*v) return tc_opts_error(t, "%s needs a file name (or - for stdout)", name);
        a->out = v;
        return TC_EXIT_OK;
    case TC_OPT_RANKS:
        if (!v || !*v) return tc_opts_error(t, "%s needs a list of ranks (e.g. 0,2,4-7)", name);
        a->ranks = v;
        return TC_EXIT_OK;
    case TC_OPT_STEPS:
        if (!parse_range(v, &a->first_step, &a->last_step))
            return tc_opts_error(t, "%s needs a step or a range of steps A-B (e.g. 5-6), not '%s'", name, v ? v : "");
        a->has_steps = true;
        return TC_EXIT_OK;
    case TC_OPT_JOBS:
        if (!tc_parse_long(v, &a->jobs) || a->jobs < 1 || a->jobs > 1024)
            return tc_opts_error(t, "%s needs a whole number from 1 to 1024, not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    case TC_OPT_WINDOW:
        if (!tc_parse_long(v, &a->window) || a->window < 1)
            return tc_opts_error(t, "%s needs a window number (1 = the oldest), not '%s'", name, v ? v : "");
        return TC_EXIT_OK;
    case TC_OPT_COMM_KERNEL: return tc_opts_comm_kernel(o, a->comm);
    default: return TC_EXIT_OK;
    }
}

static int set_option_cb(const tc_opts *o, void *a) { return set_option(o, a); }

static int parse_args(int argc, char **argv, timeline_args *a) {
    const tc_opt_table *t = &tc_opts_timeline;
    tc_opts o;
    tc_opts_init(&o, t, argc, argv, 1);
    int rc = tc_opts_read_all(&o, a->operands, &a->n_operands, set_option_cb, a);
    if (rc != TC_EXIT_OK) return rc;
    if (!a->out) return tc_opts_error(t, "-o FILE is needed: where to write the merged trace (- for stdout)");
    if (a->n_operands == 0) return tc_opts_error(t, "no input given: name trace files, a folder, or - for stdin");
    tc_output_spec out = {"-o", a->out, NULL};
    char err[1200];
    tc_cli_inputs_expand(&a->inputs, a->operands, a->n_operands, a->recursive); /* a failure: loading says why */
    if ((a->inputs.error.code == TC_OK && tc_output_check(&out, 1, a->inputs.list.paths, a->inputs.list.n, err, sizeof err)) ||
        tc_output_check_existing(&out, 1, a->force, err, sizeof err))
        return tc_opts_error(t, "%s", err);
    return TC_EXIT_OK;
}

/* Writes the loaded job's timeline. Returns rc, or the usage / output exit code. */
static int write_timeline(const timeline_args *a, const tc_job *j, int rc) {
    tc_timeline_filter f = {NULL, a->has_steps, a->first_step, a->last_step};
    bool *keep = NULL;
    if (a->ranks) {
        char err[300];
        keep = calloc(j->n_ranks ? j->n_ranks : 1, sizeof *keep);
        if (!keep) return TC_EXIT_NOTHING;
        if (pick_ranks(a->ranks, j, keep, err, sizeof err)) {
            free(keep);
            return tc_opts_error(&tc_opts_timeline, "%s", err);
        }
        f.ranks = keep;
    }
    int bad = check_steps(a, j, keep);
    if (bad) {
        free(keep);
        return bad;
    }
    tc_output out;
    int w = tc_output_open(&out, "timeline", a->out) ? TC_EXIT_OUTPUT
                                                     : tc_output_close(&out, "timeline", tc_timeline_write(out.f, j, &f), !a->quiet);
    free(keep);
    return w != TC_EXIT_OK ? w : rc;
}

int tc_cmd_timeline(int argc, char **argv) {
    timeline_args a;
    memset(&a, 0, sizeof a);
    a.operands = calloc((size_t)argc + 1, sizeof *a.operands);
    a.comm = tc_comm_patterns_new();
    int rc = a.operands && a.comm ? parse_args(argc, argv, &a) : TC_EXIT_NOTHING;
    if (rc == TC_EXIT_OK) {
        tc_load_options lopt = {.jobs = (int)a.jobs, .progress = !a.quiet && isatty(fileno(stderr)), .err = stderr,
                                .comm = a.comm, .window = a.window, .recursive = a.recursive};
        tc_analyze_options aopt = {.bound_threshold = 0.15, .jobs = (int)a.jobs};
        tc_job j;
        tc_job_init(&j);
        bool report = false;
        rc = tc_cmd_load_job(&a.inputs, &lopt, &aopt, &j, &report);
        if (report) rc = write_timeline(&a, &j, rc);
        tc_job_free(&j);
    }
    tc_cli_inputs_free(&a.inputs);
    free(a.operands);
    tc_comm_patterns_free(a.comm);
    return rc < 0 ? TC_EXIT_OK : rc; /* -1: --help */
}
