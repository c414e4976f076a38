/* text_report.h: the terminal summary of an analyzed job: verdict first, per-rank table, totals,
 * collectives, warnings. Every line fits o->width columns (80 to 120: the tables are laid out for
 * 80, their name columns and the prose take the rest). Colour only when asked (the caller checks
 * for a tty and NO_COLOR). Reads the job only. */
#ifndef TC_TEXT_REPORT_H
#define TC_TEXT_REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "model/job.h"
#include "termtext.h"

void tc_text_report_write(FILE *out, const tc_job *j, const tc_term_opts *o);
/* The closing "Actions" section: the two or three things the analyzer suggests doing
 * (tc_findings.actions, worded by findings_text.h). Written by the caller after everything else
 * it prints (the summary ends with it); nothing for no verdict. */
void tc_text_report_actions(FILE *out, const tc_job *j, const tc_term_opts *o);
#endif
