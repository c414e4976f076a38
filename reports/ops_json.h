/* ops_json.h: the JSON of where the compute time goes (issue 34; tc_job.ops, model/op_groups.h):
 * top-level keys ops[], modules[] and op_attribution, documented in docs/json-schema.md. Read-only
 * on the job. */
#ifndef TC_OPS_JSON_H
#define TC_OPS_JSON_H
#include "model/job.h"
#include "jsonw.h"

/* Keys ops, modules, op_attribution at the top level; none when the job has no CPU ops. */
void tc_ops_json(jw *w, const tc_job *j);
#endif
