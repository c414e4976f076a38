/* opts.h: the command line as data. Each command has one option table (opt_tables.c): its rows are
 * what the scanner accepts, what --help lists, what "did you mean" picks from, and what
 * tests/test_options.c holds the completions, the man page and docs/cli.md to. The cost flags' rows
 * come from model/cost_inputs.def and record's from cupti/record.h, not written again here.
 * One scanner over argv (tc_opts_next), one suggestion rule (tc_opts_suggest), one --help printer
 * (tc_opts_help). */
#ifndef TC_OPTS_H
#define TC_OPTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What a row is to the command that reads it. Commands switch on it. */
typedef enum {
    TC_OPT_TEXT = 0,       /* a text line of --help, not an option */
    TC_OPT_CMD_ANALYZE,    /* top level: the commands */
    TC_OPT_CMD_COMPARE,
    TC_OPT_CMD_COST,
    TC_OPT_CMD_GPUS,
    TC_OPT_CMD_RECORD,
    TC_OPT_CMD_HELP,
    TC_OPT_VERSION,        /* --version, -V, and the command `version` */
    TC_OPT_HELP,           /* --help, -h */
    TC_OPT_JSON,
    TC_OPT_HTML,
    TC_OPT_CSV,            /* analyze --csv DIR: the tables as CSV files (reports/csv_report.h) */
    TC_OPT_RECURSIVE,      /* -r, --recursive: folders with their subfolders (parsers/inputs.h) */
    TC_OPT_CMD_TIMELINE,   /* top level: the timeline command */
    TC_OPT_OUTPUT,         /* timeline -o FILE */
    TC_OPT_RANKS,          /* timeline --ranks LIST */
    TC_OPT_STEPS,          /* timeline --steps A-B */
    TC_OPT_JOBS,
    TC_OPT_QUIET,
    TC_OPT_BOUND_THRESHOLD,
    TC_OPT_GPU,            /* analyze's --gpu: MFU peak and catalog prices */
    TC_OPT_MODEL_FLOPS,
    TC_OPT_PARAMS,
    TC_OPT_TOKENS,
    TC_OPT_WORK,           /* compare --work-steps-per-month */
    TC_OPT_GPUS_PER_NODE,  /* analyze/compare --gpus-per-node: node of a rank (analyzer/nodes.h) */
    TC_OPT_FABRIC,         /* analyze --fabric ID: the fabric between nodes (model/links.def) */
    TC_OPT_NIC_GBPS,       /* analyze --nic-gbps X: each GPU's NIC line rate between nodes */
    TC_OPT_LINKS,          /* gpus --links: the link catalog alone */
    TC_OPT_NO_COST,        /* analyze --no-cost: no cost section */
    TC_OPT_PP,             /* analyze --pp N: pipeline stages by rank order (analyzer/pipeline.h) */
    TC_OPT_NO_REPLAY,      /* analyze --no-replay: no step graph, replay or critical path */
    TC_OPT_SAMPLES,        /* compare --samples-per-step (and --b-): the work of a step */
    TC_OPT_TOKENS_B,       /* compare --b-tokens-per-step */
    TC_OPT_SAMPLES_B,      /* compare --b-samples-per-step */
    TC_OPT_COMM_KERNEL,    /* --comm-kernel REGEX: more communication kernels (model/comm_kernels.h) */
    TC_OPT_NCCL,           /* analyze --nccl DIR|FILE: NCCL Inspector logs (parsers/nccl_inspector.h) */
    TC_OPT_WINDOW,         /* analyze --window K|all: the profiler window (parsers/assemble.h) */
    TC_OPT_COST_FLAG,      /* a cost option (cost_options.h): name without "--" is its key */
    TC_OPT_COST_FLAG_B,    /* compare's --b-FLAG: the cost option FLAG for run B only */
    TC_OPT_RECORD,         /* a `record` option (cupti/record.c parses them) */
    TC_OPT_FORCE           /* --force: an output may replace a file holding input-like data (cli/output.h) */
} tc_opt_id;

enum {
    TC_OPT_UNLISTED = 1,  /* no line of its own in --help (a text row there names it: "cost options") */
    TC_OPT_UNIT = 2,      /* arg is a unit shown in a column of its own, not after the name */
    TC_OPT_ANYCASE = 4,   /* the long name matches in any case (the cost flags, like their config keys) */
    TC_OPT_COST = 8,      /* a cost option (cost_inputs.def, --gpu, --config) in any table */
    TC_OPT_COST_B = 16,   /* compare's --b- form of a cost option */
};

typedef struct {
    tc_opt_id id;
    const char *short_name; /* "-j", or NULL */
    const char *name;       /* "--jobs"; a command's name ("analyze") at the top level; NULL: text row */
    const char *arg;        /* value placeholder ("N"); NULL when the option takes no value */
    const char *help;       /* --help text; '\n' starts a line under the help column. NULL: the label
                               is printed before the next row's, on its line ("--params N --tokens...") */
    unsigned flags;         /* TC_OPT_* */
} tc_opt;

typedef struct {
    const char *command;    /* "analyze"; NULL for the top level */
    const tc_opt *rows;
    size_t n_rows;
    int help_column;        /* where --help texts start */
} tc_opt_table;

/* The tables (opt_tables.c). record's is read from cupti/record.h; record.c parses its options and
 * prints its help itself (cupti/ links nothing of cli/). */
extern const tc_opt_table tc_opts_top, tc_opts_analyze, tc_opts_compare, tc_opts_cost, tc_opts_gpus,
    tc_opts_record, tc_opts_timeline;
/* Every table above, NULL-terminated. */
extern const tc_opt_table *const tc_opt_tables[];

/* The row whose long or short name is word (exactly; in any case for TC_OPT_ANYCASE rows), or NULL.
 * word has no "=value" part. */
const tc_opt *tc_opts_find(const tc_opt_table *t, const char *word);

/* The closest name of t's rows (long, short, command) to an unknown word, for "did you mean": the
 * one name that starts with the word (2 or more characters besides leading dashes), else the name
 * nearest by tc_edit_distance when that is at most a third of the word's length plus 1 (at most 4).
 * An "=value" part of word is ignored. NULL when nothing is close. */
const char *tc_opts_suggest(const tc_opt_table *t, const char *word);

/* What tc_opts_next found. */
typedef enum {
    TC_OPTS_END = 0,     /* no arguments left */
    TC_OPTS_OPERAND,     /* o->operand */
    TC_OPTS_OPTION,      /* o->opt with o->value (NULL when missing: the command says what it needs) */
    TC_OPTS_UNKNOWN,     /* o->word is no option of the table */
    TC_OPTS_NO_VALUE     /* o->opt takes no value but was given one (--quiet=1) */
} tc_opts_kind;

typedef struct {
    const tc_opt_table *t;
    int argc;
    char **argv;
    int i;                  /* next argument to read */
    bool operands_only;     /* "--" was read */
    const tc_opt *opt;      /* the option just read */
    const char *word;       /* the option as typed, without "=value" (points into buf) */
    const char *value;      /* its value: after '=', after a short name (-j4), or the next argument */
    const char *operand;
    char buf[128];
} tc_opts;

/* Starts reading argv[first..argc). */
void tc_opts_init(tc_opts *o, const tc_opt_table *t, int argc, char **argv, int first);
/* Reads the next argument. "--name=value", "--name value", "-xVALUE", "-x value"; "-" is an operand;
 * after "--" everything is. An option's value is the next argument whatever it looks like. */
tc_opts_kind tc_opts_next(tc_opts *o);

/* Reads every argument left in o: operands into operands[*n] (room for argc), each option through
 * set(o, ctx), which returns TC_EXIT_OK to go on. Returns TC_EXIT_OK, set's first other code, or the
 * usage exit code after tc_opts_fail for an unknown option. */
int tc_opts_read_all(tc_opts *o, char **operands, size_t *n, int (*set)(const tc_opts *o, void *ctx), void *ctx);

/* --comm-kernel REGEX (analyze, compare, timeline): adds the value to patterns. TC_EXIT_OK, or the
 * usage exit code after the message (no value, a bad expression). */
struct tc_comm_patterns;
int tc_opts_comm_kernel(const tc_opts *o, struct tc_comm_patterns *patterns);

/* "tracecost CMD: MESSAGE\nTry 'tracecost CMD --help'.\n" on stderr; returns the usage exit code. */
int tc_opts_error(const tc_opt_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* tc_opts_error for TC_OPTS_UNKNOWN (with the suggestion) and TC_OPTS_NO_VALUE. */
int tc_opts_fail(const tc_opts *o);

/* The label of a row as --help shows it: "-j, --jobs N", "--gpu NAME", "analyze TRACES...". */
void tc_opt_label(const tc_opt *r, char *buf, size_t len);
/* The rows of t that --help lists, one per line (two columns: label, help at t->help_column). */
void tc_opts_help(FILE *f, const tc_opt_table *t);

/* Edit distance ignoring case; a swap of two neighbours counts 1 ("gpsu" is 1 from "gpus").
 * Strings over 63 bytes count as far apart. */
size_t tc_edit_distance(const char *a, const char *b);
/* Numbers in flags, one parser (docs/cli.md "Numbers in flags"): an optional sign, decimal digits
 * with '_' or ',' grouping (',' before exactly three digits), a '.', an exponent; never hex, spaces,
 * inf or nan, and finite and normal (0, or 1e-307 to 1e308 in size). forms adds what a flag takes
 * besides: */
enum {
    TC_NUM_WHOLE = 1u << 0, /* digits only: no '.' nor exponent (--window, --gpus, -j, ...) */
    TC_NUM_COUNT = 1u << 1, /* a suffix K, M, B (or G), T or P, any case: 1e3 ... 1e15 */
    TC_NUM_SHARE = 1u << 2, /* a trailing '%': divided by 100 */
    TC_NUM_MONEY = 1u << 3, /* a '$' before the digits (or after the '-') */
};
/* NULL with *out set, or a phrase saying what is wrong ("is hexadecimal: ..."), to follow the text. */
const char *tc_parse_number(const char *text, unsigned forms, double *out);
/* tc_parse_number with no extra form; a whole number in a long; a count (TC_NUM_COUNT): "7B" is
 * 7e9, "32k" 32000, "1.2e15" 1.2e15. */
bool tc_parse_double(const char *s, double *out);
bool tc_parse_long(const char *s, long *out);
bool tc_parse_count(const char *s, double *out);
#endif
