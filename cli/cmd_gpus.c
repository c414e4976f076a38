/* cmd_gpus.c: `tracecost gpus`: lists the GPU catalog (model/gpus.def) as a table, or --json
 * (reports/catalog_report.h writes both). */
#include "commands.h"
#include "exitcodes.h"
#include "opts.h"
#include "output.h"
#include "reports/catalog_report.h"
#include <string.h>

static void gpus_usage(FILE *f) {
    fprintf(f,
        "Usage: tracecost gpus [--links] [--json]\n"
        "\n"
        "Lists the GPU catalog compiled into tracecost: per GPU, the names --gpu accepts, the device-name\n"
        "patterns matched against a trace's deviceProperties, dense peak TFLOP/s per dtype (for MFU),\n"
        "memory bandwidth, TDP, dated default prices and its link inside a node, each with its source;\n"
        "then the link catalog: what NVLink, Infinity Fabric, PCIe, InfiniBand and Ethernet are rated to\n"
        "carry per GPU (--fabric, --fabric-target), with sources.\n"
        "\n"
        "Options:\n");
    tc_opts_help(f, &tc_opts_gpus);
}

int tc_cmd_gpus(int argc, char **argv) {
    bool json = false, links = false;
    tc_opts o;
    tc_opts_init(&o, &tc_opts_gpus, argc, argv, 1);
    tc_opts_kind kind;
    while ((kind = tc_opts_next(&o)) != TC_OPTS_END) {
        if (kind == TC_OPTS_OPERAND) return tc_opts_error(&tc_opts_gpus, "unexpected argument '%s'", o.operand);
        if (kind != TC_OPTS_OPTION) return tc_opts_fail(&o);
        if (o.opt->id == TC_OPT_HELP) { gpus_usage(stdout); return TC_EXIT_OK; }
        if (o.opt->id == TC_OPT_JSON) json = true;
        if (o.opt->id == TC_OPT_LINKS) links = true;
    }
    if (json) {
        jw w;
        jw_init(&w, stdout, true);
        if (links) tc_link_catalog_json(&w); else tc_gpu_catalog_json(&w);
        if (jw_finish(&w)) return tc_output_close_stdout("gpus", 1);
        fputc('\n', stdout);
    } else if (links) {
        tc_link_catalog_print(stdout);
    } else {
        tc_gpu_catalog_print(stdout);
    }
    return tc_output_close_stdout("gpus", 0);
}
