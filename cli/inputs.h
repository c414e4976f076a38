/* inputs.h: turns command-line operands (files, folders, glob patterns, "-") into the list of
 * trace paths of one job, and gives each loaded trace its rank. Owns the path list it returns. */
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

/* Expands operands in order: a folder gives its *.json and *.json.gz files sorted by name (not
 * recursive); a pattern with * ? [ that names no file is globbed; "-" is stdin. A folder entry
 * that stat cannot follow (dangling link, link loop, no permission) stays in the list, so loading
 * reports it; one that is not a regular file is left out with a note (reading it could block) and
 * counted in n_unusable. The same file reached twice (same device and inode: a file named twice,
 * a folder and a glob over it, a link to it) is kept once, at its first place, with a note.
 * Returns 0, or -1 with a message (a folder without traces, a missing file, a second "-"); out
 * is then empty (nothing to free). */
int tc_inputs_expand(char *const *operands, size_t n, tc_input_list *out, char *err, size_t errlen);
void tc_input_list_free(tc_input_list *l);
/* Prints l's notes to f ("tracecost: " + note); returns TC_EXIT_DAMAGED when a folder entry could
 * not be used (n_unusable), else TC_EXIT_OK. */
int tc_inputs_print_notes(const tc_input_list *l, FILE *f);

/* Rank number in a file name: "rank3", "rank-3", "rank_3" (case-insensitive; every digit, up to
 * int64's range); -1 when absent. */
int64_t tc_rank_from_name(const char *path);

/* Assigns ranks to traces lacking distributedInfo.rank: the file name's rank, else the input
 * position. Returns 0, or -1 when two inputs end with the same rank (message names both). */
int tc_inputs_assign_ranks(tc_trace *traces, size_t n, char *err, size_t errlen);
#endif
