/* cost_report.h: the cost model's result (analyzer/cost.h) as text and JSON: the headline
 * sentence, the terminal section (results, inputs with their sources, notes), the `cost` JSON
 * value with its notes, and a job's cost (tc_job.cost: the result, or why there is none) for the
 * analyze reports. Writers only: every figure was computed by tc_cost_compute. */
#ifndef TC_COST_REPORT_H
#define TC_COST_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "analyzer/cost.h"
#include "jsonw.h"
#include "termtext.h"

/* Writes the `cost` object value (the caller writes the "cost" key when nesting it) with exactly
 * the keys effective_gpus, effective_price_per_gpu_hour, network_loss_per_month (the inter-node
 * network's), idle_loss_per_month, straggler_loss_per_month, intra_node_comm_loss_per_month,
 * loss_per_month, loss_shares, loss_bounds (a key per class), loss_lead, inter_node_network_reason,
 * rent_monthly, own_capex, own_opex_monthly,
 * breakeven_months, tco_own, tco_rent, own_cost_per_effective_gpu_hour,
 * rent_cost_per_effective_gpu_hour, timeline [{month, own, rent}], what_if {...} or null, and
 * inputs {key: {value, source}} echoing r->used (plus gpu and hours_per_month). Unknowns are null. */
void tc_cost_result_json(jw *w, const tc_cost_result *r);

/* The JSON key of a class of loss (tc_cost_loss_class: "inter_node_network", ...) and its words
 * ("the inter-node network", ...); "?" out of range. */
const char *tc_cost_loss_key(int c);
const char *tc_cost_loss_label(int c);

/* Why r's inter-node network share is what it is, in words ("one node: no network between nodes";
 * static). */
const char *tc_cost_inter_rule_text(const tc_cost_result *r);

/* What the effective figures are against, into buf: "against an infinitely fast network" (no
 * replayed reference: N·e), "against a network that moves bytes instantly" (the instant
 * reference), "against ib-ndr" (the what-if's target). Returns buf. */
const char *tc_cost_reference_text(char *buf, size_t n, const tc_cost_result *r);

/* Writes r's notes as a JSON array of strings (for a "notes" key beside "cost"). */
void tc_cost_notes_json(jw *w, const tc_cost_result *r);

/* The calculator's whole JSON document to out: {"cost": ..., "notes": [...]}, indented. Returns
 * jw_finish's result: 0, or -1 when a write failed. */
int tc_cost_json_write(FILE *out, const tc_cost_result *r);

/* Writes the headline sentence into buf: from a trace the verdict's loss first, then the other
 * classes and their sum ("host idle and memory copies cost $7,203 a month (...); ... your 8 GPUs do
 * the work of 7.7 against an infinitely fast network; ..."); in the calculator ("your 8 GPUs do the
 * work of 4.8 against an infinitely fast network; at $2.00/GPU-hour ... the network would cost you
 * $4,672 a month; ..."); always NUL-terminated when n > 0. Returns its length. */
size_t tc_cost_headline(char *buf, size_t n, const tc_cost_result *r);

/* The headline's losses alone, the verdict's first ("host idle and memory copies cost $7,203 a
 * month (...), at $2.95/GPU-hour if this job ran all month as profiled; the others: ...; $9,704 a
 * month in all"); "" in the calculator. Returns its length. */
size_t tc_cost_losses_text(char *buf, size_t n, const tc_cost_result *r);

/* Writes the headline, the results table, the inputs with their letters and sources, the letters'
 * legend, and the notes, aligned and no wider than o->width columns. o->color adds ANSI bold/dim.
 * Write errors show in ferror(out). */
void tc_cost_result_print(FILE *out, const tc_cost_result *r, const tc_term_opts *o);

#define TC_COST_NOTE_TEXT 600 /* bytes of tc_cost_missing_text, NUL included */

/* Why job cost c has no result, in words: "no cost section: --no-cost was given", or "no cost
 * section: WHY (pass --price-per-gpu-hour or --gpu NAME)" with the model's reason; "" when it has
 * one or nobody priced the job. Returns buf. */
const char *tc_cost_missing_text(char *buf, size_t n, const tc_job_cost *c);

/* A job's cost section on the terminal: a blank line, then the result (tc_cost_result_print) or
 * "Cost: " and why there is none, wrapped; nothing when left out (--no-cost) or not priced. */
void tc_job_cost_print(FILE *out, const tc_job_cost *c, const tc_term_opts *o);

/* A job's "cost" and "cost_notes" keys (tracecost/1): the result and its notes, or null and why
 * there is none in a one-string array; "cost": null alone when nobody priced the job. */
void tc_job_cost_json(jw *w, const tc_job_cost *c);
#endif
