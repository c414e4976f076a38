/* cmd_gpus.c: `tracecost gpus`: lists the GPU catalog (model/gpus.def) as a table, or --json
 * (reports/catalog_report.h writes both). */
#include "cliopt.h"
#include "commands.h"
#include "exitcodes.h"
#include "output.h"
#include "reports/catalog_report.h"
#include <string.h>

static const char *const gpus_options[] = {"--json", "--help", "-h", NULL};

static void gpus_usage(FILE *f) {
    fprintf(f,
        "Usage: tracecost gpus [--json]\n"
        "\n"
        "Lists the GPU catalog compiled into tracecost: per GPU, the names --gpu accepts, the device-name\n"
        "patterns matched against a trace's deviceProperties, dense peak TFLOP/s per dtype (for MFU),\n"
        "memory bandwidth, TDP and dated default prices, each with its source.\n"
        "\n"
        "Options:\n"
        "  --json      write the catalog as JSON to stdout\n"
        "  -h, --help  this help\n");
}

int tc_cmd_gpus(int argc, char **argv) {
    bool json = false;
    tc_opts o;
    tc_opts_init(&o, argc, argv, 1);
    const char *operand;
    int kind;
    while ((kind = tc_opts_next(&o, &operand)) >= 0) {
        if (kind == 0) {
            fprintf(stderr, "tracecost gpus: unexpected argument '%s'\nTry 'tracecost gpus --help'.\n", operand);
            return TC_EXIT_USAGE;
        }
        if (!strcmp(o.name, "-h") || !strcmp(o.name, "--help")) { gpus_usage(stdout); return TC_EXIT_OK; }
        if (!strcmp(o.name, "--json")) { json = true; continue; }
        const char *close = tc_closest_option(o.name, gpus_options);
        fprintf(stderr, "tracecost gpus: unknown option '%s'%s%s%s\nTry 'tracecost gpus --help'.\n", o.name,
                close ? " (did you mean " : "", close ? close : "", close ? "?)" : "");
        return TC_EXIT_USAGE;
    }
    if (json) {
        jw w;
        jw_init(&w, stdout, true);
        tc_gpu_catalog_json(&w);
        if (jw_finish(&w)) return tc_output_close("gpus", "-", stdout, 1);
        fputc('\n', stdout);
    } else {
        tc_gpu_catalog_print(stdout);
    }
    return tc_output_close("gpus", "-", stdout, 0);
}
