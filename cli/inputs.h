/* inputs.h: turns command-line operands (files, folders, glob patterns, "-") into the list of
 * trace paths of one job, and gives each loaded trace its rank. Owns the path list it returns. */
#ifndef TC_INPUTS_H
#define TC_INPUTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/trace.h"

typedef struct {
    char **paths; size_t n, cap;
    bool *from_folder; size_t cap_from; /* per path: found by scanning a folder */
} tc_input_list;

/* Expands operands in order: a folder gives its *.json and *.json.gz files sorted by name (not
 * recursive); a pattern with * ? [ that names no file is globbed; "-" is stdin. Returns 0, or -1
 * with a message (a folder without traces, a missing file, a second "-"). */
int tc_inputs_expand(char *const *operands, size_t n, tc_input_list *out, char *err, size_t errlen);
void tc_input_list_free(tc_input_list *l);

/* Rank number in a file name: "rank3", "rank-3", "rank_3" (case-insensitive); -1 when absent. */
int64_t tc_rank_from_name(const char *path);

/* Assigns ranks to traces lacking distributedInfo.rank: the file name's rank, else the input
 * position. Returns 0, or -1 when two inputs end with the same rank (message names both). */
int tc_inputs_assign_ranks(tc_trace *traces, size_t n, char *err, size_t errlen);
#endif
