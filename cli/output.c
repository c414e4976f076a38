/* output.c: opening, finishing and checking every output (see output.h). */
#include "output.h"
#include "diag.h"
#include "exitcodes.h"
#include <errno.h>
#include <string.h>

FILE *tc_output_open(const char *cmd, const char *path) {
    if (!strcmp(path, "-")) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) tc_diag(stderr, "tracecost %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
    return f;
}

int tc_output_close(const char *cmd, const char *path, FILE *f, int write_rc) {
    errno = 0;
    int bad = write_rc != 0 || ferror(f);
    int why = errno;
    if (f == stdout) {
        if (fflush(f) != 0) { bad = 1; why = errno; }
    } else if (fclose(f) != 0) {
        bad = 1;
        why = errno;
    }
    if (!bad) return TC_EXIT_OK;
    tc_diag(stderr, "tracecost %s: %s: write failed%s%s\n", cmd, strcmp(path, "-") ? path : "standard output",
            why ? ": " : "", why ? strerror(why) : "");
    return TC_EXIT_OUTPUT;
}

int tc_output_finish_stdout(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return TC_EXIT_OK;
    int why = errno;
    fprintf(stderr, "tracecost: standard output: write failed%s%s\n", why ? ": " : "", why ? strerror(why) : "");
    return TC_EXIT_OUTPUT;
}
