/* findings_text.h: the one place that words the analyzer's findings (model/job.h tc_findings):
 * the sentence of each verdict reason and of each action, used by the terminal, JSON and HTML
 * reports alike. Pure: they write only into the caller's buffer and compute no figure, only
 * format the numbers each finding carries. */
#ifndef TC_FINDINGS_TEXT_H
#define TC_FINDINGS_TEXT_H
#include <stddef.h>
#include <stdint.h>
#include "model/job.h"

#define TC_FINDING_TEXT 1024 /* bytes a finding's sentence needs at most (longer ones are cut) */
#define TC_SHOWN_SHARE 0.0005 /* a part of a share is named in the text when it shows as 0.1% or more */

/* The verdict as the text report and the HTML say it: its JSON name (model/job.h tc_verdict_name),
 * except too-small, which is "too small to judge". */
const char *tc_verdict_words(tc_verdict v);

/* The reason's sentence, without a closing period ("exposed wait for slower ranks is 31.2% of GPU
 * time (threshold 15%)"); j gives the process-group row a FABRIC reason names. Returns buf (always
 * NUL-terminated when n > 0). */
const char *tc_reason_text(char *buf, size_t n, const tc_reason *r, const tc_job *j);

/* "intra-node", "inter-node" or "scope unknown". */
const char *tc_scope_text(tc_group_scope scope);

/* A row of process groups in words, control characters replaced: "the 4 DP process groups",
 * "process group 0 (default_pg)", "process group 7". Returns buf. */
const char *tc_group_row_label(char *buf, size_t n, const tc_job *j, const tc_group_row *row);

/* What the straggler makes the others wait: "each of the other 7 ranks waits 12.047 ms per step for
 * it (84.331 GPU-ms in total)" ("the other rank waits ..." when one). Returns buf. */
const char *tc_straggler_wait_text(char *buf, size_t n, size_t waiting_ranks, int64_t per_rank_ns, int64_t total_ns);

/* The straggler rule (analyzer/findings.c decide_straggler) in words: the one wording, which the HTML
 * report prints and docs/definitions.md and the man page hold verbatim (tests/test_findings.c). */
const char *tc_straggler_rule_text(void);

/* A basis reason (tc_summary.basis_reasons) as a sentence, and its JSON code ("world_size",
 * "group_ranks", "unmatched_collectives", "salvaged_inputs", "one_rank", "not_split"). */
const char *tc_basis_reason_text(char *buf, size_t n, const tc_basis_reason *b);
const char *tc_basis_reason_code(const tc_basis_reason *b);

/* The basis reasons in a few words for the verdict line and the cost headline ("2 of 128 ranks;
 * 1 of 4 inputs cut short"); "" when the basis is complete. Returns buf. */
const char *tc_basis_summary_text(char *buf, size_t n, const tc_summary *sm);
/* The same words for a list of basis reasons (a cost result's, a compared run's). Returns buf. */
const char *tc_basis_list_text(char *buf, size_t n, const tc_basis_reason *reasons, size_t nr);

/* What the node evidence lacked or where it disagreed (tc_summary.node_notes) and what was assumed
 * (nodes_assumed), clauses joined by "; "; "" when the evidence holds. Returns buf. */
const char *tc_nodes_note_text(char *buf, size_t n, const tc_summary *sm);
/* How the nodes were decided, after "nodes: ": "2, by the hosts in the file names (the device
 * indices agree)". Returns buf. */
const char *tc_nodes_rule_text(char *buf, size_t n, const tc_summary *sm);
/* The JSON's name of the node rule: "flag", "trace hosts", "device indices", "file names", "assumed". */
const char *tc_node_rule_name(tc_node_rule rule);

/* The action's sentence, ending in a period. j gives the straggler's trace file (its base name,
 * control characters replaced). Returns buf. */
const char *tc_action_text(char *buf, size_t n, const tc_action *a, const tc_job *j);
/* The NCCL environment variable of a tc_nccl_setting ("NCCL_PROTO"); the JSON code of one
 * tc_nccl_ev bit ("few_channels"). */
const char *tc_nccl_setting_name(int s);
const char *tc_nccl_evidence_code(uint32_t bit);
/* The action's stable JSON key (summary.actions[].code): "hide_comm", "fuse_norm", ...; "?" out of range. */
const char *tc_action_key(tc_action_code code);
/* "memory-bound" or "compute-bound": an op group's roofline class (JSON ops[].class, CSV, HTML). */
const char *tc_op_class_name(const tc_op_group *g);

/* An idle cause (tc_idle_cause) by its JSON name ("gpu_side", "sync", "data_loading",
 * "memory_management", "module_load", "launch_overhead", "cpu_other", "unattributed"), and in
 * words for tables ("GPU side", "sync", "data loading", ...). "?" out of range. */
const char *tc_idle_cause_key(int cause);
const char *tc_idle_cause_label(int cause);
/* A tc_step_class by its JSON name ("compute", "exposed_comm", "memory_exposed", "idle",
 * "outside_gpu_window"), NULL for TC_STEP_NONE, and in words ("exposed comm", ...). */
const char *tc_step_class_key(int cls);
const char *tc_step_class_label(int cls);

/* A critical-path class (model/replay.h tc_cp_class) in words: "compute", "intra-node transfer",
 * "inter-node transfer", "launching", "synchronizing calls", "host work between calls", "memory
 * copies", "idle"; its JSON key is tc_cp_class_key. "?" out of range. */
const char *tc_cp_class_label(int cls);

/* A name from a trace for a sentence: control characters replaced, cut at 60 columns. */
const char *tc_finding_name(char *buf, size_t n, const char *name);
#endif
