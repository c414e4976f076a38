/* inputs.h: turns command-line operands (files, folders, glob patterns, "-") into the list of
 * trace paths of one job, with what it left out as notes (notes.h), printing nothing. Owns the
 * path list it returns. Job assembly (assemble.h) reads the paths. */
#ifndef TC_INPUTS_H
#define TC_INPUTS_H
#include <stdbool.h>
#include <stddef.h>
#include "base/status.h"
#include "notes.h"

typedef struct {
    char **paths; size_t n, cap;
    bool *from_folder; size_t cap_from; /* per path: found by scanning a folder */
    tc_notes notes;    /* what expansion left out and why (TC_NOTE_NOT_REGULAR, _NAMED_TWICE,
                        * _SAME_FILE), in input order, a folder's by name */
    char **logs; size_t n_logs, cap_logs; /* the regular *.log files of the folders, by name: NCCL
                        * Inspector logs when their content says so (nccl_inspector.h); and
                        * their *.json files that are NCCL profiler plugin traces, by content */
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
 * with a note. Returns TC_OK, TC_ERR_NOMEM, or TC_ERR_INPUT with e's message (a folder without
 * traces, saying so when its subfolders hold some and `recursive` is off; a missing file, a second
 * "-"); out is then empty (nothing to free). */
tc_status tc_inputs_expand(char *const *operands, size_t n, bool recursive, tc_input_list *out, tc_error *e);
/* As tc_inputs_expand, but NCCL's own files may stand without a trace (`tracecost analyze`, docs/nccl.md
 * "Logs alone"): a folder that holds no trace but NCCL Inspector logs or plugin traces (by content)
 * is no failure, and a file operand that is one goes to logs, not paths. */
tc_status tc_inputs_expand_nccl(char *const *operands, size_t n, bool recursive, tc_input_list *out, tc_error *e);
void tc_input_list_free(tc_input_list *l);

#endif
