/* diag.c: cleaned diagnostics (see diag.h). */
#include "diag.h"
#include "reports/termtext.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void tc_vdiag(FILE *f, const char *fmt, va_list ap) {
    char *text = tc_vformat_alloc(fmt, ap);
    if (!text) { fputs("tracecost: out of memory\n", f); return; }
    size_t len = strlen(text);
    bool ends_line = len > 0 && text[len - 1] == '\n';
    if (ends_line) text[--len] = '\0';
    char *clean = malloc(len + 1); /* cleaning never lengthens: a byte or a sequence becomes '?' */
    if (clean) fprintf(f, "%s%s", tc_term_clean(clean, len + 1, text, 0), ends_line ? "\n" : "");
    else fputs("tracecost: out of memory\n", f);
    free(clean);
    free(text);
}

void tc_diag(FILE *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tc_vdiag(f, fmt, ap);
    va_end(ap);
}
