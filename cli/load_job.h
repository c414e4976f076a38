/* load_job.h: the command side of job assembly (parsers/assemble.h): a command's operands expanded
 * once (parsers/inputs.h), the job assembled with the progress line drawn on a terminal, every
 * note the library returns printed on stderr in today's wording, and its status turned into an
 * exit code (exitcodes.h). */
#ifndef TC_LOAD_JOB_H
#define TC_LOAD_JOB_H
#include <stdbool.h>
#include <stdio.h>
#include "model/comm_kernels.h"
#include "model/job.h"
#include "parsers/assemble.h"
#include "parsers/inputs.h"

typedef struct {
    int jobs;         /* threads; <= 0 means the number of cores */
    bool progress;    /* a progress line on `err` (the caller checks it is a terminal) */
    FILE *err;        /* where messages go */
    const tc_comm_patterns *comm; /* --comm-kernel patterns marking more kernels as communication
                                     (model/comm_kernels.h); NULL: the built-in catalog only */
    long window;      /* the profiler window to analyze: 0 the most recent, K >= 1 the K-th oldest,
                         TC_WINDOW_ALL (only for the _all functions) every one */
    bool recursive;   /* --recursive: the operands' folders are read with their subfolders */
} tc_load_options;

/* A command's operands expanded once: what its outputs are checked against (output.h) and what
 * it loads. */
typedef struct {
    tc_input_list list; /* the paths; empty when the expansion failed */
    tc_error error;     /* TC_OK, or why the operands could not be expanded */
} tc_cli_inputs;

/* Expands operands into in (tc_inputs_expand); prints nothing. */
void tc_cli_inputs_expand(tc_cli_inputs *in, char *const *operands, size_t n, bool recursive);
void tc_cli_inputs_free(tc_cli_inputs *in);
/* Prints what the expansion says to f: its failure ("WHO: message", returns TC_EXIT_NOTHING), or
 * its notes, returning TC_EXIT_DAMAGED when a folder entry could not be used, else TC_EXIT_OK. */
int tc_cli_inputs_report(const tc_cli_inputs *in, FILE *f, const char *who);

/* Each note on f, "tracecost: " + "note: " / "warning: " / "" + its text; "tracecost: out of
 * memory" when one was lost. */
void tc_print_notes(FILE *f, const tc_notes *notes);
/* The exit code of an assembly: OK, DAMAGED, NOTHING, or USAGE (refused). */
int tc_assembly_exit(tc_assembly_status s);

/* The progress line of a parse on a terminal: after a second, at most every 0.25 s, erased when
 * the parse is over. */
typedef struct {
    FILE *err;
    double last_print;    /* seconds into the parse of the last line drawn */
    bool printed;
    int line_len;         /* widest line drawn, in columns (to erase it) */
} tc_progress_line;
/* The library options of opt; with opt->progress the line is drawn on opt->err through line
 * (zeroed here, kept alive through the assembly). */
tc_assemble_options tc_load_assemble_options(const tc_load_options *opt, tc_progress_line *line);

/* Assembles the job of in (the profiler window opt->window) into j, printing every note to
 * opt->err. Returns TC_EXIT_OK, TC_EXIT_DAMAGED (some input was damaged or dropped; the rest are
 * loaded), TC_EXIT_NOTHING, or TC_EXIT_USAGE (inputs of different jobs, one rank twice at once, no
 * such window). The expansion's own notes are the caller's (tc_cli_inputs_report). */
int tc_job_load(tc_job *j, const tc_input_list *in, const tc_load_options *opt);
/* The same for every profiler window: *jobs (malloc'd, *n_jobs of them, each to tc_job_free) are the
 * windows oldest first; none on an error exit. */
int tc_job_load_all(tc_job **jobs, size_t *n_jobs, const tc_input_list *in, const tc_load_options *opt);
#endif
