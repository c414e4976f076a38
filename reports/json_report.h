/* json_report.h: writes an analyzed job as the documented tracecost/1 JSON (docs/json-schema.md).
 * Reads the job only. Keys are stable; unknown values are null; times are µs. */
#ifndef TC_JSON_REPORT_H
#define TC_JSON_REPORT_H
#include <stdio.h>
#include "model/job.h"
#include "jsonw.h"

/* Optional sections added by later analyses (cost, ...): called with the writer positioned inside
 * the top-level object, after the standard keys. */
typedef void (*tc_json_extra_fn)(jw *w, void *ctx);

/* Writes the document; 0 ok, -1 write error. */
int tc_json_report_write(FILE *out, const tc_job *j, tc_json_extra_fn extra, void *extra_ctx);
#endif
