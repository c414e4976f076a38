/* output.h: every file and stream a command writes goes through here, so that a failed write (disk
 * full, a closed pipe, a path that cannot be created) is always noticed, named on stderr and turned
 * into exit code 4 (TC_EXIT_OUTPUT), for every command. "-" is standard output. */
#ifndef TC_OUTPUT_H
#define TC_OUTPUT_H
#include <stdio.h>

/* Opens path for writing ("-": stdout). On failure prints "tracecost CMD: PATH: cannot write: why"
 * and returns NULL. cmd is the command's name ("analyze"). */
FILE *tc_output_open(const char *cmd, const char *path);
/* Finishes what tc_output_open gave: write_rc is the writer's own result (non-zero = it failed),
 * then the stream's error flag, flush and close (stdout is flushed, not closed) are checked.
 * Returns TC_EXIT_OK, or prints "tracecost CMD: PATH: write failed: why" and returns TC_EXIT_OUTPUT. */
int tc_output_close(const char *cmd, const char *path, FILE *f, int write_rc);
/* Flushes stdout and checks it: main() calls it after every command. Returns TC_EXIT_OK, or prints
 * "tracecost: standard output: write failed: why" and returns TC_EXIT_OUTPUT. */
int tc_output_finish_stdout(void);
#endif
