/* nccl_alone_report.h: NCCL logs analyzed without a trace (model/nccl_alone.h, analyzer/
 * nccl_alone.h), rendered: the tracecost/1 document of a trace-less job (`nccl.communicators[]`,
 * `nccl.stragglers[]`; docs/json-schema.md "NCCL logs alone") and the terminal table. */
#ifndef TC_NCCL_ALONE_REPORT_H
#define TC_NCCL_ALONE_REPORT_H
#include <stdio.h>
#include "model/nccl_alone.h"
#include "termtext.h"

/* What only a trace can tell, in the words of the JSON note and the text (one sentence). */
extern const char tc_nccl_alone_cannot_know[];

/* The whole JSON document. 0, or -1 when a write failed. */
int tc_nccl_alone_json_write(FILE *out, const tc_nccl_log *log, const tc_nccl_alone *a);
/* The terminal report (fits o->width columns). */
void tc_nccl_alone_text_write(FILE *out, const tc_nccl_log *log, const tc_nccl_alone *a, const tc_term_opts *o);
#endif
