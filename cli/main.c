/* main.c: the tracecost command: dispatches subcommands and turns their results into the exit
 * status. The only place that exits. */
#include "cliopt.h"
#include "commands.h"
#include "cupti/record.h"
#include "exitcodes.h"
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
        "Commands:\n"
        "  analyze TRACES...   split GPU time (compute, exposed comm: wait vs transfer, memory, idle),\n"
        "                      name the bottleneck; terminal summary and --json\n"
        "  compare A B         two runs (trace folders or saved --json results) side by side, with\n"
        "                      cost per step and which is cheaper per unit of work\n"
        "  cost [flags]        the cost model without a trace: effective GPUs, money lost, buy vs rent\n"
        "  gpus [--json]       the GPU catalog: peak FLOP/s per dtype, bandwidth, TDP, prices, sources\n"
        "  record -- CMD ...   run a CUDA program under the CUPTI tracer, writing Kineto traces\n"
        "\n"
        "Options: -h, --help; -V, --version (with the build's features).\n"
        "'tracecost COMMAND --help' or 'tracecost help COMMAND' explains each command;\n"
        "'man tracecost' has the definitions, exit codes and environment variables.\n"
        "\n"
        "Examples:\n"
        "  tracecost analyze run42/rank3.pt.trace.json.gz\n"
        "  tracecost analyze --json out.json traces/\n",
        TC_VERSION);
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

/* The subcommands this build has; `help`, dispatch and suggestions all use this table. */
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} command;

static int cmd_record(int argc, char **argv) { return tc_record_main(argc, argv, stderr); }

static const command commands[] = {
    {"analyze", tc_cmd_analyze},
    {"compare", tc_cmd_compare},
    {"cost", tc_cmd_cost},
    {"gpus", tc_cmd_gpus},
    {"record", cmd_record},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const command *find_command(const char *name) {
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(name, commands[i].name)) return &commands[i];
    return NULL;
}

/* Unknown command or top-level option: name the closest known one when there is one. */
static int unknown(const char *what) {
    static const char *const known[] = {"analyze", "compare", "cost", "gpus", "record", "help", "version", "--help", "--version", NULL};
    const char *close = tc_closest_option(what, known);
    for (size_t i = 0; !close && strlen(what) >= 2 && known[i]; i++)
        if (!strncmp(known[i], what, strlen(what))) close = known[i]; /* "an" -> analyze */
    if (what[0] == '-') fprintf(stderr, "tracecost: unknown option '%s'", what);
    else fprintf(stderr, "tracecost: unknown command '%s'", what);
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
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) { usage(stdout); return TC_EXIT_OK; }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) { version(); return TC_EXIT_OK; }
    if (!strcmp(cmd, "help")) {
        if (argc < 3) { usage(stdout); return TC_EXIT_OK; }
        const command *c = find_command(argv[2]);
        if (!c) return unknown(argv[2]);
        char *help_argv[] = {argv[2], "--help", NULL};
        return c->run(2, help_argv);
    }
    const command *c = find_command(cmd);
    if (c) return c->run(argc - 1, argv + 1);
    return unknown(cmd);
}
