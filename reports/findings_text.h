/* findings_text.h: the one place that words the analyzer's findings (model/job.h tc_findings):
 * the sentence of each verdict reason and of each action, used by the terminal, JSON and HTML
 * reports alike. Pure: they write only into the caller's buffer and compute no figure, only
 * format the numbers each finding carries. */
#ifndef TC_FINDINGS_TEXT_H
#define TC_FINDINGS_TEXT_H
#include <stddef.h>
#include "model/job.h"

#define TC_FINDING_TEXT 1024 /* bytes a finding's sentence needs at most (longer ones are cut) */

/* The reason's sentence, without a closing period ("exposed wait for slower ranks is 31.2% of GPU
 * time (threshold 15%)"). Returns buf (always NUL-terminated when n > 0). */
const char *tc_reason_text(char *buf, size_t n, const tc_reason *r);

/* The action's sentence, ending in a period. j gives the straggler's trace file (its base name,
 * control characters replaced). Returns buf. */
const char *tc_action_text(char *buf, size_t n, const tc_action *a, const tc_job *j);

/* An idle cause (tc_idle_cause) by its JSON name ("gpu_side", "sync", "data_loading",
 * "memory_management", "module_load", "launch_overhead", "cpu_other", "unattributed"), and in
 * words for tables ("GPU side", "sync", "data loading", ...). "?" out of range. */
const char *tc_idle_cause_key(int cause);
const char *tc_idle_cause_label(int cause);
/* A tc_step_class by its JSON name ("compute", "exposed_comm", "memory_exposed", "idle",
 * "outside_gpu_window"), NULL for TC_STEP_NONE, and in words ("exposed comm", ...). */
const char *tc_step_class_key(int cls);
const char *tc_step_class_label(int cls);

/* A name from a trace for a sentence: control characters replaced, cut at 60 columns. */
const char *tc_finding_name(char *buf, size_t n, const char *name);
#endif
