/* output.h: every file and stream a command writes goes through here, so that a failed write (disk
 * full, a closed pipe, a path that cannot be created) is always noticed, named on stderr and turned
 * into exit code 4 (TC_EXIT_OUTPUT), for every command; and so that, before anything is read or
 * written, no output can destroy an input or another output. "-" is standard output. */
#ifndef TC_OUTPUT_H
#define TC_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One output a command was asked for. */
typedef struct {
    const char *option;       /* the option that names it: "--json" */
    const char *path;         /* as given; "-" is standard output */
    const char *const *files; /* a folder output (--csv DIR): the names it may write in path,
                                 NULL-terminated; NULL for a file */
} tc_output_spec;

/* Whether the outputs can be written without destroying data: no two of them write to standard
 * output, no two name the same file, and none is one of the inputs (the expanded trace paths and
 * config files the command reads). "The same file" is the same device and inode for a file that
 * exists (any spelling, links included) and the same real folder and name for one that does not
 * exist yet. A character device (/dev/null) may be named by several outputs. Returns 0, or -1 with
 * a message naming the options and paths in err. */
int tc_output_check(const tc_output_spec *outs, size_t n_outs, char *const *inputs, size_t n_inputs, char *err,
                    size_t errlen);

/* Whether the outputs' files may be replaced (docs/cli.md, "Outputs"): a regular file that holds
 * what a reader would take for an input is refused unless force: gzip data (a compressed trace), a
 * JSON array or a JSON object that tracecost did not write (a Chrome trace, an NCCL log). tracecost's
 * own files may be replaced: a result or a comparison (the document, or a --window all array of
 * them, begins with "schema": "tracecost/1" or "tracecost-compare/1") and a timeline (its
 * otherData.schema, at the end, is "tracecost-timeline/1"); so may anything else (HTML, CSV, text,
 * an empty file). Returns 0, or -1 with "OPTION PATH: the file is WHAT: refusing to overwrite it;
 * pass --force to replace it" in err. */
int tc_output_check_existing(const tc_output_spec *outs, size_t n_outs, bool force, char *err, size_t errlen);

/* One output being written. A regular file (or one that does not exist yet) is written to a
 * temporary file beside it (same folder, created with O_EXCL, named ".NAME.tracecost-PID-K") that
 * tc_output_close renames over it, so a failed write leaves the old file whole and no temporary
 * file behind; "-" (stdout), devices (/dev/null), FIFOs and other non-regular files are written in
 * place. A temporary file is written by a thread of its own (async_file.h) where the C library
 * allows it: the bytes of one buffer go to the page cache while the next is rendered. */
typedef struct {
    FILE *f;           /* what the writer writes to */
    const char *path;  /* the target as given */
    char *target;      /* what the temporary file replaces (a link's real path); malloc'd; NULL in place */
    char *tmp;         /* the temporary file; malloc'd; NULL in place */
    struct tc_async_file *async; /* the temporary file's writer thread (async_file.h), NULL when none */
    int fd;            /* the temporary file's descriptor when async, else -1 */
} tc_output;

/* Opens path for writing ("-": stdout) into o. On failure prints "tracecost CMD: PATH: cannot
 * write: why" and returns -1 (o holds nothing to close). cmd is the command's name ("analyze"). */
int tc_output_open(tc_output *o, const char *cmd, const char *path);
/* Finishes what tc_output_open gave: write_rc is the writer's own result (non-zero = it failed),
 * then the stream's error flag, flush and close (stdout is flushed, not closed) are checked, then
 * the temporary file is renamed over the target (or removed when anything failed).
 * Returns TC_EXIT_OK, or prints "tracecost CMD: PATH: write failed: why" and returns TC_EXIT_OUTPUT.
 * tell: when a file (not stdout) was written, say so on stderr with its size:
 * "tracecost CMD: wrote PATH (12,345 bytes)" (a regular file only: not a device or pipe). */
int tc_output_close(tc_output *o, const char *cmd, int write_rc, bool tell);
/* tc_output_close for a command's terminal output on stdout: "tracecost CMD: standard output:
 * write failed: why" and TC_EXIT_OUTPUT when write_rc or the stream says it failed. */
int tc_output_close_stdout(const char *cmd, int write_rc);
/* Flushes stdout and checks it: main() calls it after every command. Returns TC_EXIT_OK, or prints
 * "tracecost: standard output: write failed: why" and returns TC_EXIT_OUTPUT. */
int tc_output_finish_stdout(void);
#endif
