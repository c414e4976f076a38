/* diag.h: the lines tracecost writes to stderr. File names come from the command line, from
 * folders and from glob patterns, so whoever names a file chooses bytes that reach the terminal:
 * every diagnostic is written with control characters (escape sequences, carriage returns,
 * newlines inside the text), DEL, C1 controls and invalid UTF-8 replaced by '?', as the reports
 * do for strings read from traces (reports/termtext.h). */
#ifndef TC_DIAG_H
#define TC_DIAG_H
#include <stdio.h>
#include "base/status.h"

/* fprintf(f, fmt, ...) with the formatted text cleaned as above; a newline that ends the text is
 * kept (it ends the line), any other one becomes '?'. */
void tc_diag(FILE *f, const char *fmt, ...) TC_FORMAT_LIKE(2, 3);
void tc_vdiag(FILE *f, const char *fmt, va_list ap);
#endif
