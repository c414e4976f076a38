/* status.h: the one way library code (base/ to reports/) reports a failure: a status code and a
 * message that names what failed (the file, and the byte offset where it applies). Library code
 * never prints and never exits: only cli/ turns a tc_error into a line on stderr and an exit code
 * (cli/exitcodes.h). Also the one message formatter the layers below cli/ use. */
#ifndef TC_STATUS_H
#define TC_STATUS_H
#include <stdarg.h>
#include <stddef.h>

/* Marks a function taking a printf-style format at argument f, its values from argument a, so the
 * compiler checks the calls. */
#if defined(__GNUC__)
#define TC_FORMAT_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define TC_FORMAT_LIKE(f, a)
#endif

typedef enum {
    TC_OK = 0,
    TC_ERR_NOMEM,    /* out of memory */
    TC_ERR_USAGE,    /* a value the caller passed is not valid (an option, a config line) */
    TC_ERR_INPUT,    /* an input cannot be used at all: unreadable, empty, not JSON, no GPU work */
    TC_ERR_DAMAGED,  /* an input is damaged or cut short; results cover what was read */
    TC_ERR_OUTPUT    /* an output could not be written (disk full, closed pipe, bad path) */
} tc_status;

#define TC_ERROR_MSG 1200 /* bytes kept of a message, NUL included; longer ones are cut */

typedef struct {
    tc_status code; /* TC_OK when nothing failed */
    char msg[TC_ERROR_MSG]; /* what failed, without a trailing newline; "" when code is TC_OK */
} tc_error;

/* Clears e to TC_OK with an empty message. */
void tc_error_clear(tc_error *e);
/* Sets e's code and message (printf-style) and returns code, so callers can `return tc_error_set(...)`.
 * e may be NULL (the code is still returned). */
tc_status tc_error_set(tc_error *e, tc_status code, const char *fmt, ...) TC_FORMAT_LIKE(3, 4);
/* A short constant name of s ("out of memory", "bad input", ...). */
const char *tc_status_str(tc_status s);

/* Formats into buf (n > 0: always NUL-terminated, cut to fit). Returns the length it wanted, as
 * vsnprintf does, or 0 on an encoding error. */
size_t tc_format(char *buf, size_t n, const char *fmt, ...) TC_FORMAT_LIKE(3, 4);
size_t tc_vformat(char *buf, size_t n, const char *fmt, va_list ap);
/* A new malloc'd formatted string (caller frees), or NULL out of memory. */
char *tc_format_alloc(const char *fmt, ...) TC_FORMAT_LIKE(1, 2);
char *tc_vformat_alloc(const char *fmt, va_list ap);
#endif
