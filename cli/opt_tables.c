/* opt_tables.c: every command's options as data (opts.h): in --help order, with the help text each
 * --help prints (pre-wrapped where it takes two lines). The cost flags are the rows of
 * model/cost_inputs.def and record's those of cupti/record.h; tests/test_options.c holds the
 * completions, the man page and docs/cli.md to these tables. */
#include "opts.h"
#include "cupti/record.h"

#define N(rows) (sizeof rows / sizeof rows[0])

/* The top level: the commands (tracecost --help lists them), help, version and the two options. */
static const tc_opt top_rows[] = {
    {TC_OPT_CMD_ANALYZE, NULL, "analyze", "TRACES...",
     "split GPU time (compute, exposed comm: wait vs transfer, memory, idle),\n"
     "name the bottleneck; terminal summary and --json", 0},
    {TC_OPT_CMD_COMPARE, NULL, "compare", "A B",
     "two runs (trace folders or saved --json results) side by side, with\n"
     "cost per step and which is cheaper per unit of work", 0},
    {TC_OPT_CMD_COST, NULL, "cost", "[flags]",
     "the cost model without a trace: effective GPUs, money lost, buy vs rent", 0},
    {TC_OPT_CMD_TIMELINE, NULL, "timeline", "-o FILE",
     "every rank's GPU streams on one clock, as one Chrome trace (Perfetto)", 0},
    {TC_OPT_CMD_GPUS, NULL, "gpus", "[--json]",
     "the GPU catalog: peak FLOP/s per dtype, bandwidth, TDP, prices, sources", 0},
    {TC_OPT_CMD_RECORD, NULL, "record", "-- CMD ...",
     "run a CUDA program under the CUPTI tracer, writing Kineto traces", 0},
    /* named in the overview's text and its Options line */
    {TC_OPT_CMD_HELP, NULL, "help", "[COMMAND]", "the overview, or COMMAND's help", TC_OPT_UNLISTED},
    {TC_OPT_VERSION, NULL, "version", NULL, "the same as --version", TC_OPT_UNLISTED},
    {TC_OPT_HELP, "-h", "--help", NULL, "this overview", TC_OPT_UNLISTED},
    {TC_OPT_VERSION, "-V", "--version", NULL, "the version and the build's features", TC_OPT_UNLISTED},
};
const tc_opt_table tc_opts_top = {NULL, top_rows, N(top_rows), 22};

/* A cost flag: one row per input of model/cost_inputs.def (TC_COST_INPUT below), named PREFIX
 * ("--", "--b-") and the input's name; --help shows its unit in a column of its own. */
#define COST_ROW(ID, PREFIX, FLAGS, name, unit, help) \
    {ID, NULL, PREFIX name, unit, help, TC_OPT_UNIT | TC_OPT_ANYCASE | (FLAGS)},

static const tc_opt analyze_rows[] = {
    {TC_OPT_JSON, NULL, "--json", "FILE", "write the results as JSON (tracecost/1) to FILE, or - for stdout", 0},
    {TC_OPT_HTML, NULL, "--html", "FILE",
     "write one HTML file (inline charts and tables) to FILE, or - for stdout", 0},
    {TC_OPT_CSV, NULL, "--csv", "DIR", "write the tables as CSV files (ranks.csv, steps.csv, ...) into DIR", 0},
    {TC_OPT_FORCE, NULL, "--force", NULL, "replace an output file that holds a trace", 0},
    {TC_OPT_JOBS, "-j", "--jobs", "N", "threads (default: number of cores; a few files each on all of them)", 0},
    {TC_OPT_BOUND_THRESHOLD, NULL, "--bound-threshold", "X",
     "share of GPU time a loss must reach to name the verdict (default 0.15)", 0},
    {TC_OPT_GPU, NULL, "--gpu", "NAME",
     "GPU for peak FLOP/s, overriding deviceProperties (tracecost gpus lists them)",
     TC_OPT_ANYCASE | TC_OPT_COST},
    {TC_OPT_MODEL_FLOPS, NULL, "--model-flops-per-step", "F",
     "model FLOPs per GPU per step for MFU, instead of the traced shapes", 0},
    {TC_OPT_PARAMS, NULL, "--params", "N", NULL, 0},
    {TC_OPT_TOKENS, NULL, "--tokens-per-step", "T",
     "the same as 6*N*T / world size (training: forward + backward)", 0},
    {TC_OPT_GPUS_PER_NODE, NULL, "--gpus-per-node", "G",
     "rank r is on node r / G (default: hosts in trace file names, else 8)", 0},
    {TC_OPT_FABRIC, NULL, "--fabric", "ID", NULL, 0},
    {TC_OPT_NIC_GBPS, NULL, "--nic-gbps", "X", "the fabric between nodes (tracecost gpus lists them), or each NIC's Gb/s", 0},
    {TC_OPT_NO_COST, NULL, "--no-cost", NULL, NULL, 0},
    {TC_OPT_NO_REPLAY, NULL, "--no-replay", NULL, NULL, 0},
    {TC_OPT_PP, NULL, "--pp", "N", "leave out the cost section or the replay; pipeline of N stages", 0},
    {TC_OPT_COMM_KERNEL, NULL, "--comm-kernel", "REGEX",
     "also count kernels matching REGEX as communication (repeatable)", 0},
    {TC_OPT_WINDOW, NULL, "--window", "K|all", NULL, 0},
    {TC_OPT_NCCL, NULL, "--nccl", "DIR|FILE", "profiler window K (1 = oldest) or all; NCCL Inspector logs", 0},
    {TC_OPT_RECURSIVE, "-r", "--recursive", NULL, "read the traces in the folders' subfolders too", 0},
    {TC_OPT_QUIET, "-q", "--quiet", NULL, "print nothing but errors (the JSON is still written)", 0},
    {TC_OPT_HELP, "-h", "--help", NULL, "this help", 0},
    {TC_OPT_TEXT, NULL, NULL, NULL,
     "cost options: those of 'tracecost cost --help' (prices default to the GPU's catalog entry)", 0},
    {TC_OPT_COST_FLAG, NULL, "--config", "FILE", "'key = value' lines",
     TC_OPT_ANYCASE | TC_OPT_COST | TC_OPT_UNLISTED},
    {TC_OPT_COST_FLAG, NULL, "--fabric-target", "ID", "what-if: a catalog fabric between nodes",
     TC_OPT_ANYCASE | TC_OPT_COST | TC_OPT_UNLISTED},
#define TC_COST_INPUT(field, name, kind, unit, letter, help) \
    COST_ROW(TC_OPT_COST_FLAG, "--", TC_OPT_COST | TC_OPT_UNLISTED, name, unit, help)
#include "model/cost_inputs.def"
#undef TC_COST_INPUT
};
const tc_opt_table tc_opts_analyze = {"analyze", analyze_rows, N(analyze_rows), 24};

static const tc_opt compare_rows[] = {
    {TC_OPT_JSON, NULL, "--json", "FILE", "write the comparison as JSON to FILE, or - for stdout only", 0},
    {TC_OPT_HTML, NULL, "--html", "FILE", "write a self-contained HTML comparison report", 0},
    {TC_OPT_FORCE, NULL, "--force", NULL, "replace an output file that holds a trace", 0},
    {TC_OPT_WORK, NULL, "--work-steps-per-month", "W",
     "work volume for the monthly difference (default: the steps A\n"
     "runs in a month, 730 h x 3600 x utilization / A's step time)", 0},
    {TC_OPT_TOKENS, NULL, "--tokens-per-step", "T",
     "tokens a step of the job processes, for A and (unless given\n"
     "with --b-tokens-per-step) B: compare cost per million tokens", 0},
    {TC_OPT_TOKENS_B, NULL, "--b-tokens-per-step", "T", "tokens per step of B", 0},
    {TC_OPT_SAMPLES, NULL, "--samples-per-step", "S",
     "samples a step of the job processes, for A and (unless given\n"
     "with --b-samples-per-step) B: compare cost per 1,000 samples", 0},
    {TC_OPT_SAMPLES_B, NULL, "--b-samples-per-step", "S", "samples per step of B", 0},
    {TC_OPT_GPUS_PER_NODE, NULL, "--gpus-per-node", "G", "GPUs per node of both runs, as for analyze", 0},
    /* the fabric between nodes of a side analyzed from traces, as for analyze */
    {TC_OPT_FABRIC, NULL, "--fabric", "ID", "the fabric between nodes of both runs, as for analyze", 0},
    {TC_OPT_NIC_GBPS, NULL, "--nic-gbps", "X", "each NIC's Gb/s on both runs, as for analyze", 0},
    {TC_OPT_JOBS, "-j", "--jobs", "N", "threads, as for analyze", 0},
    {TC_OPT_COMM_KERNEL, NULL, "--comm-kernel", "REGEX",
     "also count kernels matching REGEX as communication, on both runs\n(repeatable, as for analyze)", 0},
    {TC_OPT_RECURSIVE, "-r", "--recursive", NULL, "read the traces in the folders' subfolders too", 0},
    {TC_OPT_QUIET, "-q", "--quiet", NULL, "print nothing but errors", 0},
    {TC_OPT_HELP, "-h", "--help", NULL, "this help", 0},
    {TC_OPT_TEXT, NULL, NULL, NULL,
     "cost flags (as for analyze: --price-per-gpu-hour P, --gpu NAME, --utilization U, ...) apply\n"
     "to A and, unless overridden, to B; --b-FLAG V sets FLAG for B only (--b-price-per-gpu-hour 2).\n"
     "A saved result keeps the cost inputs it was analyzed with; flags given here override them.", 0},
    {TC_OPT_COST_FLAG, NULL, "--gpu", "NAME", "catalog GPU", TC_OPT_ANYCASE | TC_OPT_COST | TC_OPT_UNLISTED},
    {TC_OPT_COST_FLAG, NULL, "--config", "FILE", "'key = value' lines",
     TC_OPT_ANYCASE | TC_OPT_COST | TC_OPT_UNLISTED},
    {TC_OPT_COST_FLAG, NULL, "--fabric-target", "ID", "what-if: a catalog fabric between nodes",
     TC_OPT_ANYCASE | TC_OPT_COST | TC_OPT_UNLISTED},
#define TC_COST_INPUT(field, name, kind, unit, letter, help) \
    COST_ROW(TC_OPT_COST_FLAG, "--", TC_OPT_COST | TC_OPT_UNLISTED, name, unit, help)
#include "model/cost_inputs.def"
#undef TC_COST_INPUT
    {TC_OPT_COST_FLAG_B, NULL, "--b-gpu", "NAME", "catalog GPU of B",
     TC_OPT_ANYCASE | TC_OPT_COST_B | TC_OPT_UNLISTED},
    {TC_OPT_COST_FLAG_B, NULL, "--b-config", "FILE", "'key = value' lines for B",
     TC_OPT_ANYCASE | TC_OPT_COST_B | TC_OPT_UNLISTED},
    {TC_OPT_COST_FLAG_B, NULL, "--b-fabric-target", "ID", "what-if fabric of B",
     TC_OPT_ANYCASE | TC_OPT_COST_B | TC_OPT_UNLISTED},
#define TC_COST_INPUT(field, name, kind, unit, letter, help) \
    COST_ROW(TC_OPT_COST_FLAG_B, "--b-", TC_OPT_COST_B | TC_OPT_UNLISTED, name, unit, help)
#include "model/cost_inputs.def"
#undef TC_COST_INPUT
};
const tc_opt_table tc_opts_compare = {"compare", compare_rows, N(compare_rows), 31};

static const tc_opt cost_rows[] = {
#define TC_COST_INPUT(field, name, kind, unit, letter, help) COST_ROW(TC_OPT_COST_FLAG, "--", TC_OPT_COST, name, unit, help)
#include "model/cost_inputs.def"
#undef TC_COST_INPUT
    {TC_OPT_COST_FLAG, NULL, "--fabric-target", "ID",
     "what-if: a catalog fabric's rated bandwidth (tracecost gpus)",
     TC_OPT_ANYCASE | TC_OPT_COST},
    {TC_OPT_COST_FLAG, NULL, "--gpu", "NAME", "catalog GPU for default prices and power (tracecost gpus)",
     TC_OPT_ANYCASE | TC_OPT_COST},
    {TC_OPT_COST_FLAG, NULL, "--config", "FILE", "'key = value' lines, same names; flags win over it",
     TC_OPT_ANYCASE | TC_OPT_COST},
    {TC_OPT_JSON, NULL, "--json", "FILE|-", "also write JSON to FILE; '-' writes only JSON to stdout", 0},
    {TC_OPT_HELP, "-h", "--help", NULL, "this text", 0},
};
const tc_opt_table tc_opts_cost = {"cost", cost_rows, N(cost_rows), 29};

static const tc_opt timeline_rows[] = {
    {TC_OPT_OUTPUT, "-o", "--output", "FILE", "write the merged Chrome-trace JSON to FILE, or - for stdout", 0},
    {TC_OPT_FORCE, NULL, "--force", NULL, "replace an output file that holds a trace", 0},
    {TC_OPT_RANKS, NULL, "--ranks", "LIST", "only these ranks: 0,2,4-7 (default: every rank)", 0},
    {TC_OPT_STEPS, NULL, "--steps", "A-B", "only the events of ProfilerStep#A to #B (or one step: A)", 0},
    {TC_OPT_JOBS, "-j", "--jobs", "N", "threads, as for analyze", 0},
    {TC_OPT_COMM_KERNEL, NULL, "--comm-kernel", "REGEX", "also count kernels matching REGEX as communication", 0},
    {TC_OPT_WINDOW, NULL, "--window", "K", "profiler window K (1 = oldest; default: the most recent)", 0},
    {TC_OPT_RECURSIVE, "-r", "--recursive", NULL, "read the traces in the folders' subfolders too", 0},
    {TC_OPT_QUIET, "-q", "--quiet", NULL, "print nothing but errors", 0},
    {TC_OPT_HELP, "-h", "--help", NULL, "this help", 0},
};
const tc_opt_table tc_opts_timeline = {"timeline", timeline_rows, N(timeline_rows), 22};

static const tc_opt gpus_rows[] = {
    {TC_OPT_JSON, NULL, "--json", NULL, "write the catalog as JSON to stdout", 0},
    {TC_OPT_LINKS, NULL, "--links", NULL, "only the link catalog (with --json: as JSON)", 0},
    {TC_OPT_HELP, "-h", "--help", NULL, "this help", 0},
};
const tc_opt_table tc_opts_gpus = {"gpus", gpus_rows, N(gpus_rows), 14};

/* record parses its options and prints its help itself (cupti/record.c, from the same rows); this
 * table is what the docs and completion checks read. */
static const tc_opt record_rows[] = {
#define RECORD_ROW(id, short_name, name, arg, help) {TC_OPT_RECORD, short_name, name, arg, help, 0},
    TC_RECORD_OPTIONS(RECORD_ROW)
#undef RECORD_ROW
};
const tc_opt_table tc_opts_record = {"record", record_rows, N(record_rows), 20};

const tc_opt_table *const tc_opt_tables[] = {
    &tc_opts_top, &tc_opts_analyze, &tc_opts_compare, &tc_opts_cost, &tc_opts_gpus, &tc_opts_record, &tc_opts_timeline,
    NULL,
};
