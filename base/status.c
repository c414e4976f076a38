/* status.c: status codes, error messages and the message formatter (see status.h). */
#include "status.h"
#include <stdio.h>
#include <stdlib.h>

void tc_error_clear(tc_error *e) {
    e->code = TC_OK;
    e->msg[0] = '\0';
}

tc_status tc_error_set(tc_error *e, tc_status code, const char *fmt, ...) {
    if (!e) return code;
    va_list ap;
    va_start(ap, fmt);
    tc_vformat(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
    return code;
}

const char *tc_status_str(tc_status s) {
    switch (s) {
    case TC_OK: return "ok";
    case TC_ERR_NOMEM: return "out of memory";
    case TC_ERR_USAGE: return "invalid value";
    case TC_ERR_INPUT: return "input cannot be used";
    case TC_ERR_DAMAGED: return "damaged input";
    case TC_ERR_OUTPUT: return "write failed";
    }
    return "unknown status";
}

size_t tc_vformat(char *buf, size_t n, const char *fmt, va_list ap) {
    int w = vsnprintf(buf, n, fmt, ap);
    if (w < 0) {
        if (n) buf[0] = '\0';
        return 0;
    }
    return (size_t)w;
}

size_t tc_format(char *buf, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t w = tc_vformat(buf, n, fmt, ap);
    va_end(ap);
    return w;
}

char *tc_vformat_alloc(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int w = vsnprintf(NULL, 0, fmt, ap);
    char *s = w < 0 ? NULL : malloc((size_t)w + 1);
    if (s) vsnprintf(s, (size_t)w + 1, fmt, again);
    va_end(again);
    return s;
}

char *tc_format_alloc(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = tc_vformat_alloc(fmt, ap);
    va_end(ap);
    return s;
}
