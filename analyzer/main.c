/* main.c: the tracecost command: dispatches subcommands and turns their results into the exit
 * status. The only place that exits. */
#include "commands.h"
#include "cost.h"
#include "gpu_catalog.h"
#include "exitcodes.h"
#include "version.h"
#include "../parsers/source.h"
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
        "\n"
        "Options: --help, --version. 'tracecost COMMAND --help' explains each command.\n"
        "\n"
        "Examples:\n"
        "  tracecost analyze run42/rank3.pt.trace.json.gz\n"
        "  tracecost analyze --json out.json traces/\n",
        TC_VERSION);
}

static int tc_cmd_gpus(int argc, char **argv) {
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("Usage: tracecost gpus [--json]\n\nLists the GPU catalog compiled into tracecost (analyzer/gpus.def):\n"
                   "name patterns matched against deviceProperties names, dense peak FLOP/s per dtype, memory\n"
                   "bandwidth, TDP, rent and purchase prices with their dates, and the source of every figure.\n"
                   "Use an id with 'analyze --gpu ID' when a trace's device is not recognised.\n");
            return TC_EXIT_OK;
        } else { fprintf(stderr, "tracecost gpus: unknown option '%s'\nTry 'tracecost gpus --help'.\n", argv[i]); return TC_EXIT_USAGE; }
    }
    if (json) {
        jw w;
        jw_init(&w, stdout, true);
        tc_gpu_catalog_json(&w);
        return jw_finish(&w) ? TC_EXIT_NOTHING : TC_EXIT_OK;
    }
    tc_gpu_catalog_print(stdout);
    return TC_EXIT_OK;
}

static void version(void) {
    printf("tracecost %s\n", TC_VERSION);
    printf("features: gzip=%s json=yajl\n", tc_source_gzip_engine());
}

int main(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return TC_EXIT_USAGE; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { usage(stdout); return TC_EXIT_OK; }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) { version(); return TC_EXIT_OK; }
    if (!strcmp(cmd, "analyze")) return tc_cmd_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare")) return tc_cmd_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "cost")) return tc_cost_main(argc - 1, argv + 1, stdout, stderr);
    if (!strcmp(cmd, "gpus")) return tc_cmd_gpus(argc - 1, argv + 1);
    fprintf(stderr, "tracecost: unknown command '%s'\nTry 'tracecost --help'.\n", cmd);
    return TC_EXIT_USAGE;
}
