/* result_json.h: the reader of a saved `tracecost analyze --json` result (schema tracecost/1, keys
 * in docs/json-schema.md): tells such a file from a trace by its first bytes, reads it, and fills the
 * tc_run_summary that `tracecost compare` needs (model/run_summary.h), with the cost inputs the
 * run was analyzed with. Errors come back as a tc_error naming the file; nothing is printed. */
#ifndef TC_RESULT_JSON_H
#define TC_RESULT_JSON_H
#include <stdbool.h>
#include "base/status.h"
#include "model/run_summary.h"

/* True when path is a plain (not gzip) regular file whose first bytes are a JSON object with
 * "schema": "tracecost/1" as its first key. False for "-" and other pipes, FIFOs and devices (they
 * can be read only once, so they are never sniffed: they are read as traces), folders and anything
 * that cannot be read. */
bool tc_result_json_is_saved(const char *path);

/* Fills s (zeroed first) from a tracecost/1 document: text, NUL-terminated; label (copied) names
 * it in s and in messages. Returns TC_OK, TC_ERR_INPUT (not JSON, another schema, no "summary"
 * object) or TC_ERR_NOMEM, with the message in e; s is then empty. */
tc_status tc_result_json_parse(tc_run_summary *s, const char *text, const char *label, tc_error *e);

/* Reads the file at path and parses it as above with path as the label. TC_ERR_INPUT also when
 * it cannot be opened or read. */
tc_status tc_result_json_read(tc_run_summary *s, const char *path, tc_error *e);
#endif
