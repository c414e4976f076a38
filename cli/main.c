/* main.c: the tracecost command: dispatches subcommands and turns their results into the exit
 * status. The only place that exits. */
#include "commands.h"
#include "diag.h"
#include "cupti/record.h"
#include "exitcodes.h"
#include "opts.h"
#include "output.h"
#include "base/version.h"
#include "parsers/source.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
        "tracecost %s: where a multi-GPU training job's step time goes, and what it costs.\n"
        "\n"
        "Usage: tracecost COMMAND [options] ...\n"
        "\n"
        "Commands:\n",
        TC_VERSION);
    tc_opts_help(f, &tc_opts_top);
    fputs("\nOptions: ", f);
    const char *sep = "";
    for (size_t i = 0; i < tc_opts_top.n_rows; i++) { /* -h, --help; -V, --version */
        const tc_opt *r = &tc_opts_top.rows[i];
        char label[64];
        if (!r->short_name) continue;
        tc_opt_label(r, label, sizeof label);
        fprintf(f, "%s%s", sep, label);
        sep = "; ";
    }
    fputs(" (with the build's features).\n"
        "'tracecost COMMAND --help' or 'tracecost help COMMAND' explains each command;\n"
        "'man tracecost' has the definitions, exit codes and environment variables.\n"
        "\n"
        "Examples:\n"
        "  tracecost analyze run42/rank3.pt.trace.json.gz\n"
        "  tracecost analyze --json out.json traces/\n", f);
}

/* TC_HAVE_CUPTI and TC_HAVE_MPI come from the Makefile (only for this file): whether the CUPTI
 * tracer library was built next to this binary, and whether MPI support was compiled in. */
#ifndef TC_HAVE_CUPTI
#define TC_HAVE_CUPTI 0
#endif
#ifndef TC_HAVE_MPI
#define TC_HAVE_MPI 0
#endif

static void version(void) {
    printf("tracecost %s\n", TC_VERSION);
    printf("features: gzip=%s json=yajl cupti=%s mpi=%s\n", tc_source_gzip_engine(), TC_HAVE_CUPTI ? "yes" : "no",
           TC_HAVE_MPI ? "yes" : "no");
}

/* The subcommands this build has, by their rows in tc_opts_top (help, dispatch and suggestions
 * read that table). */
typedef struct {
    tc_opt_id id;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} command;

static int cmd_record(int argc, char **argv) { return tc_record_main(argc, argv, stderr); }

static const command commands[] = {
    {TC_OPT_CMD_ANALYZE, tc_cmd_analyze},
    {TC_OPT_CMD_COMPARE, tc_cmd_compare},
    {TC_OPT_CMD_COST, tc_cmd_cost},
    {TC_OPT_CMD_TIMELINE, tc_cmd_timeline},
    {TC_OPT_CMD_GPUS, tc_cmd_gpus},
    {TC_OPT_CMD_RECORD, cmd_record},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* The command of a row of tc_opts_top; NULL for an option, help, version or no row. */
static const command *find_command(const tc_opt *row) {
    for (size_t i = 0; row && i < N_COMMANDS; i++)
        if (row->id == commands[i].id) return &commands[i];
    return NULL;
}

/* Unknown command or top-level option: name the closest known one when there is one. */
static int unknown(const char *what) {
    const char *close = tc_opts_suggest(&tc_opts_top, what);
    if (what[0] == '-') tc_diag(stderr, "tracecost: unknown option '%s'", what);
    else tc_diag(stderr, "tracecost: unknown command '%s'", what);
    if (close) fprintf(stderr, " (did you mean '%s'?)", close);
    fprintf(stderr, "\nTry 'tracecost --help'.\n");
    return TC_EXIT_USAGE;
}

static int dispatch(int argc, char **argv);

/* Every command's exit code, with a failed write to stdout (disk full, >/dev/full) turned into
 * TC_EXIT_OUTPUT unless the command already failed for another reason. */
int main(int argc, char **argv) {
    int rc = dispatch(argc, argv);
    if (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) {
        int out = tc_output_finish_stdout();
        if (out != TC_EXIT_OK) rc = out;
    }
    return rc;
}

static int dispatch(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return TC_EXIT_USAGE; }
    const tc_opt *row = tc_opts_find(&tc_opts_top, argv[1]);
    if (row && row->id == TC_OPT_HELP) { usage(stdout); return TC_EXIT_OK; }
    if (row && row->id == TC_OPT_VERSION) { version(); return TC_EXIT_OK; }
    if (row && row->id == TC_OPT_CMD_HELP) {
        if (argc < 3) { usage(stdout); return TC_EXIT_OK; }
        const command *c = find_command(tc_opts_find(&tc_opts_top, argv[2]));
        if (!c) return unknown(argv[2]);
        char *help_argv[] = {argv[2], "--help", NULL};
        return c->run(2, help_argv);
    }
    const command *c = find_command(row);
    if (c) return c->run(argc - 1, argv + 1);
    return unknown(argv[1]);
}
