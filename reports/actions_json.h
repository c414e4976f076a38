/* actions_json.h: the verdict's actions as data in the JSON report (summary.actions[]: each action's
 * stable code, the sentence the terminal prints, and the evidence behind it as numbers and strings;
 * keys documented in docs/json-schema.md "summary.actions[]"). Read-only on the job. */
#ifndef TC_ACTIONS_JSON_H
#define TC_ACTIONS_JSON_H
#include "model/job.h"
#include "jsonw.h"

/* Key actions: [{code, text, ...evidence}] inside the summary object, in the order the text prints them. */
void tc_actions_json(jw *w, const tc_job *j);
#endif
