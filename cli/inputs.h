/* inputs.h: turns command-line operands (files, folders, glob patterns, "-") into the list of
 * trace paths of one job, gives each loaded trace its rank, checks that the traces can be one job,
 * and groups them into profiler windows. Owns the path list it returns. */
#ifndef TC_INPUTS_H
#define TC_INPUTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "model/trace.h"

typedef struct {
    char **paths; size_t n, cap;
    bool *from_folder; size_t cap_from; /* per path: found by scanning a folder */
    char **notes; size_t n_notes, cap_notes; /* what expansion left out and why, one line each
                                              * (without "tracecost: "), for the caller to print */
    size_t n_unusable; /* folder entries left out that are not regular files (a FIFO, socket,
                        * device or subfolder named *.json): an input that could not be used */
} tc_input_list;

/* Expands operands in order: a folder gives its *.json and *.json.gz files sorted by name (with
 * `recursive`, also those of its subfolders at any depth; names starting with "." and symbolic
 * links to folders are passed over); a pattern with * ? [ that names no file is globbed; "-" is
 * stdin. A folder entry that stat cannot follow (dangling link, link loop, no permission) stays in
 * the list, so loading reports it; one that is not a regular file is left out with a note (reading
 * it could block) and counted in n_unusable. The same file reached twice (same device and inode: a
 * file named twice, a folder and a glob over it, a link to it) is kept once, at its first place,
 * with a note. Returns 0, or -1 with a message (a folder without traces, saying so when its
 * subfolders hold some and `recursive` is off; a missing file, a second "-"); out is then empty
 * (nothing to free). */
int tc_inputs_expand(char *const *operands, size_t n, bool recursive, tc_input_list *out, char *err, size_t errlen);
void tc_input_list_free(tc_input_list *l);
/* Prints l's notes to f ("tracecost: " + note); returns TC_EXIT_DAMAGED when a folder entry could
 * not be used (n_unusable), else TC_EXIT_OK. */
int tc_inputs_print_notes(const tc_input_list *l, FILE *f);

/* Rank number in a file name: "rank3", "rank-3", "rank_3" (case-insensitive; every digit, up to
 * int64's range); -1 when absent. */
int64_t tc_rank_from_name(const char *path);

/* Assigns ranks to traces lacking distributedInfo.rank: the file name's rank, else the input
 * position. Two inputs may end with the same rank: tc_inputs_windows decides what that means. */
void tc_inputs_assign_ranks(tc_trace *traces, size_t n);

/* Whether the traces can be the ranks of one job: every distributedInfo.world_size given is the
 * same, and a process group (pg_config) listed by several inputs has the same members in each.
 * Returns 0, or -1 with a message naming two files that disagree and their values. */
int tc_inputs_check_job(const tc_trace *traces, size_t n, char *err, size_t errlen);

/* Groups ranked traces into profiler windows (a file per rank per window, as
 * tensorboard_trace_handler writes with schedule(repeat=N)): when no rank has two inputs, all are
 * one window; else inputs are taken by their first GPU start on the epoch clock (input order when
 * a trace has none) and an input joins the window being built unless its rank is in it already or
 * it starts after that window's earliest end; then a new window begins. window_of[i] = the 0-based
 * window of input i, oldest first. Returns the number of windows, or -1 with a message naming both
 * files when two inputs of one rank overlap in time (the same rank given twice) or one of them has
 * no epoch time to order them by. */
long tc_inputs_windows(const tc_trace *traces, size_t n, size_t *window_of, char *err, size_t errlen);
#endif
