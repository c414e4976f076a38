/* commands.h: the subcommands' entry points. Each returns an exit code (exitcodes.h); only main()
 * exits. */
#ifndef TC_COMMANDS_H
#define TC_COMMANDS_H
#include <stdbool.h>
#include <stdio.h>
#include "model/job.h"
#include "analyzer/analyze.h"
#include "load_job.h"
#include "reports/termtext.h"
int tc_cmd_analyze(int argc, char **argv);

/* `analyze` with its load-and-analyze step replaced (the MPI build parses on many processes):
 * after the options are parsed and the operands expanded (in, once: load_job.h), load_analyze
 * prints what the expansion says, loads and analyzes the job (the profiler window lopt->window)
 * into j and returns the exit code so far; *report says whether
 * j is an analyzed job this process writes the reports of. need_events: the HTML report is asked
 * for (it reads events). load_analyze_all does the same for every profiler window (--window all):
 * *jobs (malloc'd, *n_jobs) oldest first; NULL when the build cannot. */
typedef struct {
    int (*load_analyze)(void *ctx, const tc_cli_inputs *in, const tc_load_options *lopt,
                        const tc_analyze_options *aopt, bool need_events, tc_job *j, bool *report);
    int (*load_analyze_all)(void *ctx, const tc_cli_inputs *in, const tc_load_options *lopt,
                            const tc_analyze_options *aopt, tc_job **jobs, size_t *n_jobs, bool *report);
    void *ctx;
    bool nccl_alone;  /* NCCL logs without a trace are analyzed (nccl_alone_cmd.h): the one-process tool */
} tc_analyze_hooks;
int tc_cmd_analyze_hooked(int argc, char **argv, const tc_analyze_hooks *hooks);
/* The plain load-and-analyze step of analyze on this machine, for the commands that read a job
 * (timeline): prints what the expansion in says, loads the profiler window lopt->window into j
 * (initialized by the caller) and analyzes it. Returns the exit code so far; *report says whether
 * j is analyzed. Messages go to stderr. */
int tc_cmd_load_job(const tc_cli_inputs *in, const tc_load_options *lopt, const tc_analyze_options *aopt, tc_job *j,
                    bool *report);
int tc_cmd_gpus(int argc, char **argv);
/* `tracecost timeline`: the job as one Chrome-trace JSON (cmd_timeline.c). */
int tc_cmd_timeline(int argc, char **argv);
int tc_cmd_compare(int argc, char **argv);
/* `tracecost cost`: the cost calculator (cmd_cost.c). */
int tc_cmd_cost(int argc, char **argv);
/* True when colour should be used on f: a terminal, NO_COLOR unset, TERM not "dumb". */
bool tc_use_color(FILE *f);
/* How a terminal report on f is drawn: colour as tc_use_color; the width from COLUMNS when it is a
 * whole number, else the terminal's when f is one, else TC_TERM_WIDTH (100), held to
 * TC_TERM_MIN_WIDTH..TC_TERM_MAX_WIDTH (80..120). */
tc_term_opts tc_term_for(FILE *f);
#endif
