/* exitcodes.h: the documented exit codes (docs/damage.md, man page). Only main-level code exits. */
#ifndef TC_EXITCODES_H
#define TC_EXITCODES_H
enum {
    TC_EXIT_OK = 0,       /* analyzed */
    TC_EXIT_USAGE = 1,    /* bad command line or bad option value */
    TC_EXIT_NOTHING = 2,  /* nothing analyzable: empty, not JSON, no GPU activity, unreadable, no traces */
    TC_EXIT_DAMAGED = 3,  /* analyzed, but some input was damaged or truncated (results cover what was read) */
    TC_EXIT_OUTPUT = 4    /* an output (stdout, --json, --html) could not be written: disk full, closed pipe */
};
#endif
