/* nccl_inspector.h: the reader of NCCL Inspector JSON logs (docs/nccl.md): the
 * `<hostname>-pid<pid>.log` files NCCL's Inspector profiler plugin writes, one JSON object per
 * collective per communicator, compact one per line or pretty-printed, recognised by content.
 * Fills a tc_nccl_log (model/nccl.h) with compact records; an object that cannot be read is
 * skipped with a warning naming the file and its byte offset. Prints nothing. */
#ifndef TC_NCCL_INSPECTOR_H
#define TC_NCCL_INSPECTOR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "base/status.h"
#include "model/nccl.h"
#include "notes.h"

#define TC_NCCL_MAX_OBJECT (1u << 20) /* the longest object read (verbose records with every channel) */

/* Whether the first decoded bytes head[0, len) are an Inspector log's: an object whose first key
 * is "header". */
bool tc_nccl_inspector_sniff(const char *head, size_t len);

/* Whether head[0, len) begins a trace of NCCL's example profiler plugin (plugins/profiler/example):
 * a JSON array whose first event, on its first line, has one of the plugin's categories
 * ("cat": "GROUP_API", "COLL", "PROXY", ...). */
bool tc_nccl_plugin_sniff(const char *head, size_t len);

/* Whether head[0, len) begins an Inspector Prometheus textfile: after comment lines, a metric line
 * `nccl_...{` (nccl_bus_bandwidth_gbs{version="v5.1",...}). */
bool tc_nccl_prom_sniff(const char *head, size_t len);

/* Reads the Prometheus textfile open at fp (from its start) as log->files[file] (parsers/nccl_prom.c):
 * its collective buckets become tc_nccl_prom rows; a line that cannot be read is skipped with a
 * TC_NOTE_DAMAGED warning. TC_OK, TC_ERR_INPUT (read error), TC_ERR_NOMEM. */
tc_status tc_nccl_prom_read(const char *path, FILE *fp, size_t file, tc_nccl_log *log, tc_notes *notes, tc_error *e);

/* Whether the file at path is an Inspector log or a plugin trace by its first bytes (false when it
 * cannot be read). */
bool tc_nccl_file_sniff(const char *path);

/* Reads the Inspector log (or the example profiler plugin's trace: its COLL events become records
 * with plugin = 1, the non-JSON values some versions write read leniently, file.lenient) at path into log (appending a file and its records). Objects that
 * cannot be read are skipped with a TC_NOTE_DAMAGED warning each ("PATH: byte B: ...: record
 * skipped"). TC_OK; TC_ERR_INPUT (e: cannot open, not an Inspector log); TC_ERR_NOMEM. */
tc_status tc_nccl_inspector_read(const char *path, tc_nccl_log *log, tc_notes *notes, tc_error *e);

/* The operands of --nccl and the *.log files a folder input held: a folder gives its regular files
 * that are Inspector logs (by content, sorted by name); a file named on its own must be one
 * (`required`: else a TC_NOTE_NOT_LOADED problem); a *.log found beside the traces that is not one
 * is passed over silently. Returns TC_OK, TC_ERR_INPUT when some input could not be used (notes say
 * which), TC_ERR_NOMEM. */
tc_status tc_nccl_read_paths(char *const *paths, size_t n, bool required, tc_nccl_log *log, tc_notes *notes);
#endif
