/* cost_options.h: the cost model's inputs as the command line and config files spell them, shared
 * by `analyze`, `compare` and `cost`, and the node and fabric flags analyze and compare share: one flag per row of model/cost_inputs.def plus --gpu and
 * --config, numbers as users type them ("$2.50", "960,000", "60%"), `key = value` config files and
 * "did you mean" for a misspelt config key. The flags' rows in the option tables come from the same
 * model/cost_inputs.def (cli/opt_tables.c). Values go into the model with
 * analyzer/cost.h's setters, which keep each value's rank and origin. */
#ifndef TC_COST_OPTIONS_H
#define TC_COST_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "analyzer/analyze_options.h"
#include "analyzer/cost.h"
#include "model/comm_kernels.h"
#include "model/job.h"
#include "opts.h"

/* The config-file key that is not a cost input: a --comm-kernel pattern (analyze and compare read
 * it with tc_config_comm_kernels; the cost model's reader skips it). Repeatable. */
#define TC_CONFIG_COMM_KERNEL "comm-kernel"

/* Names tc_cost_parse_option accepts, without dashes, NULL-terminated: the cost flags plus "gpu",
 * "config" and "fabric-target". Every one takes a value. */
const char *const *tc_cost_option_names(void);

/* True when name (no dashes, case-insensitive) is one of tc_cost_option_names(). */
bool tc_cost_is_option(const char *name);

/* The option of `tracecost cost` (cost options plus "json" and "help") closest to an unknown one by
 * tc_opts_suggest, without dashes, for "did you mean --X?" and config keys; NULL when nothing is
 * close. Leading dashes and an "=value" part are ignored. Static string. */
const char *tc_cost_suggest_option(const char *unknown);

/* Sets option `name` (no dashes, case-insensitive) from text as a command-line flag.
 * "gpu" picks a catalog entry (tc_cost_set_gpu); "config" loads that file (tc_cost_load_config);
 * "fabric-target" sets fabric-target-GBps to a catalog fabric's rated bandwidth (model/links.def).
 * Numbers may carry a leading '$', '_' or proper ',' thousands separators, and shares a trailing
 * '%' ("60%" = 0.6). Returns 0 when set, 1 when name is not a cost option (nothing written to
 * err), -1 when the value is malformed or out of range (message in err, naming the flag; in is
 * unchanged). err holds errlen bytes. */
int tc_cost_parse_option(tc_cost_inputs *in, const char *name, const char *value, char *err,
                         size_t errlen);

/* As tc_cost_parse_option with an explicit rank and origin text (NULL: the rank's name). A value
 * already set with a higher rank is kept and 0 is returned. */
int tc_cost_set_option(tc_cost_inputs *in, const char *name, const char *value,
                       tc_cost_source src, const char *origin, char *err, size_t errlen);

/* Sets in's "today" (tc_cost_inputs.today_unix_s, what catalog prices are aged against when a
 * trace has no date): SOURCE_DATE_EPOCH when it holds a whole number of seconds (so outputs can be
 * reproduced), else the clock. */
void tc_cost_set_today(tc_cost_inputs *in);

/* Reads `key = value` lines from path: keys as the flags without dashes (a leading "--" is
 * accepted), '#' starts a comment, blank lines are skipped, a value may be double-quoted. Values
 * get rank "config" and origin "config:PATH:LINE", so flags win over them whatever the order.
 * comm-kernel keys are skipped (tc_config_comm_kernels reads them). Returns 0, or -1 with
 * "PATH:LINE: message" (or why the file cannot be read) in err; values from lines before the bad
 * one stay set. */
int tc_cost_load_config(tc_cost_inputs *in, const char *path, char *err, size_t errlen);

/* The comm-kernel keys of the same config file, each added to p as a --comm-kernel pattern; other
 * keys are skipped. 0, or -1 with "PATH:LINE: message" in err. */
int tc_config_comm_kernels(tc_comm_patterns *p, const char *path, char *err, size_t errlen);

/* The node and fabric options of analyze and compare (--gpus-per-node G, --fabric ID, --nic-gbps
 * X), checked and worded once, into aopt. Returns TC_EXIT_OK when set, 1 when o is none of them,
 * or the usage exit code after the message (tc_opts_error on o's table). */
int tc_fabric_option(const tc_opts *o, tc_analyze_options *aopt);

/* After every option: --fabric and --nic-gbps name the same thing, so both are refused. TC_EXIT_OK,
 * or the usage exit code after the message. */
int tc_fabric_options_check(const tc_opt_table *t, const tc_analyze_options *aopt);
#endif
