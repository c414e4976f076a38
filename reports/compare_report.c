/* compare_report.c: the text and JSON writers of `tracecost compare` (see compare_report.h), and
 * what they share with the HTML page (compare_html.c, through compare_words.h): one metric table
 * drives all three so they always show the same rows, and one function each words a workload
 * difference, the conclusion and a missing cost, so all three say the same. */
#include "compare_report.h"
#include "compare_words.h"
#include "cost_report.h"
#include "findings_text.h"
#include "jsonw.h"
#include "termtext.h"
#include "textfmt.h"
#include "base/version.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- words and money --------------------------------------------------------------------- */


/* Money for comparisons: whole dollars from $100, cents from $1, else 4 significant digits:
 * "$4,466", "$2.95", "$0.00005841". Returns buf. */
const char *tc_compare_change_name(tc_cmp_change ch) {
    switch (ch) {
    case TC_CMP_SLOWER: return "slower";
    case TC_CMP_FASTER: return "faster";
    case TC_CMP_ONLY_IN_A: return "only in A";
    case TC_CMP_ONLY_IN_B: return "only in B";
    case TC_CMP_NO_STEP_TIME: return "no step time";
    case TC_CMP_SAME: break;
    }
    return "same";
}

/* The JSON "reason" key of a reason, and its words in the conclusion (the GPU-time categories'
 * labels; NULL for the others, which have sentences of their own). */
static const char *reason_key(tc_cmp_reason r) {
    switch (r) {
    case TC_CMP_REASON_NONE: return NULL;
    case TC_CMP_REASON_GPU_PRICE: return "gpu_price";
    case TC_CMP_REASON_GPU_COUNT: return "gpu_count";
    case TC_CMP_REASON_COMPUTE_TIME: return "compute_time";
    case TC_CMP_REASON_TFLOPS: return "tflops_per_gpu";
    case TC_CMP_REASON_COMPUTE_PER_UNIT: return "compute_per_unit";
    case TC_CMP_REASON_EXPOSED_TRANSFER: return "exposed_transfer";
    case TC_CMP_REASON_EXPOSED_COMM: return "exposed_comm";
    case TC_CMP_REASON_EXPOSED_WAIT: return "exposed_wait";
    case TC_CMP_REASON_MEMORY: return "memory";
    case TC_CMP_REASON_IDLE: return "idle";
    case TC_CMP_REASON_STEP_TIME: return "step_time";
    }
    return NULL;
}

static const char *reason_label(tc_cmp_reason r) {
    switch (r) {
    case TC_CMP_REASON_EXPOSED_TRANSFER: return "exposed transfer";
    case TC_CMP_REASON_EXPOSED_COMM: return "exposed communication";
    case TC_CMP_REASON_EXPOSED_WAIT: return "exposed wait";
    case TC_CMP_REASON_MEMORY: return "exposed memory copy";
    case TC_CMP_REASON_IDLE: return "idle";
    default: return NULL;
    }
}

/* The unit of work in words after "cheaper" ("per PFLOP of model FLOPs"), its short form after a
 * price ("per PFLOP") and its JSON name. */
static const char *unit_words(tc_cmp_unit u) {
    switch (u) {
    case TC_CMP_UNIT_STEP: return "per step";
    case TC_CMP_UNIT_PFLOP: return "per PFLOP of model FLOPs";
    case TC_CMP_UNIT_MTOKENS: return "per million tokens";
    case TC_CMP_UNIT_KSAMPLES: return "per 1,000 samples";
    case TC_CMP_UNIT_NONE: break;
    }
    return "per unit of work";
}

static const char *unit_short(tc_cmp_unit u) { return u == TC_CMP_UNIT_PFLOP ? "per PFLOP" : unit_words(u); }

static const char *unit_key(tc_cmp_unit u) {
    switch (u) {
    case TC_CMP_UNIT_STEP: return "step";
    case TC_CMP_UNIT_PFLOP: return "pflop";
    case TC_CMP_UNIT_MTOKENS: return "million_tokens";
    case TC_CMP_UNIT_KSAMPLES: return "1000_samples";
    case TC_CMP_UNIT_NONE: break;
    }
    return NULL;
}

/* One workload difference in words (DIFF_TEXT bytes at most). Returns buf. */
const char *tc_compare_diff_text(char *buf, size_t n, const tc_comparison *c, const tc_cmp_diff *d) {
    const tc_cmp_coll *x = d->coll;
    switch (d->kind) {
    case TC_CMP_DIFF_GPUS:
        snprintf(buf, n, "different job sizes: A runs on %d GPUs, B on %d",
                 c->a->world_size, c->b->world_size);
        break;
    case TC_CMP_DIFF_FLOPS:
    {
        char fa[TC_ATTR_LEN], fb[TC_ATTR_LEN];
        snprintf(buf, n, "different FLOPs per step per GPU: A %s, B %s (from shapes)", TC_SIG4(fa, c->a->flops_per_step),
                 TC_SIG4(fb, c->b->flops_per_step));
        break;
    }
    case TC_CMP_DIFF_COLL_ONLY_IN_A:
    case TC_CMP_DIFF_COLL_ONLY_IN_B: {
        char sz[48];
        if (x->bytes < 0) snprintf(sz, sizeof sz, "of unknown size"); else snprintf(sz, sizeof sz, "of %lld bytes", x->bytes);
        snprintf(buf, n, "collective %s %s (%s) only in %c", x->name, sz, x->process_group ? x->process_group : "no group",
                 d->kind == TC_CMP_DIFF_COLL_ONLY_IN_A ? 'A' : 'B');
        break;
    }
    }
    return buf;
}

/* Why the cheaper side X is cheaper, in words (REASON_TEXT bytes at most). */
static void reason_text(char *buf, size_t n, const tc_comparison *c) {
    double x = c->reason_x, y = c->reason_y;
    switch (c->reason) {
    case TC_CMP_REASON_GPU_PRICE:
        snprintf(buf, n, "its GPUs cost $%.2f per GPU-hour against $%.2f", x, y);
        break;
    case TC_CMP_REASON_GPU_COUNT:
        snprintf(buf, n, "it runs a step on %d GPUs against %d", (int)x, (int)y);
        break;
    case TC_CMP_REASON_COMPUTE_TIME:
        snprintf(buf, n, "its compute takes %.3f ms per step against %.3f ms", x, y);
        break;
    case TC_CMP_REASON_TFLOPS:
        snprintf(buf, n, "its GPUs deliver %.1f TFLOP/s each against %.1f", x, y);
        break;
    case TC_CMP_REASON_COMPUTE_PER_UNIT:
    {
        char fx[TC_ATTR_LEN], fy[TC_ATTR_LEN];
        snprintf(buf, n, "its compute takes %s GPU-seconds %s against %s", TC_SIG4(fx, x), unit_words(c->unit), TC_SIG4(fy, y));
        break;
    }
    case TC_CMP_REASON_STEP_TIME:
        snprintf(buf, n, "its step takes %.3f ms against %.3f ms", x, y);
        break;
    default: {
        char px[TC_PCT_LEN], py[TC_PCT_LEN];
        snprintf(buf, n, "its %s share is %s against %s", reason_label(c->reason) ? reason_label(c->reason) : "?",
                 TC_PCT1(px, x), TC_PCT1(py, y));
        break;
    }
    }
}

/* " ($X against $Y per step; $M a month at W steps a month)" after a conclusion by cost, at p + w
 * of n bytes (other units: "per PFLOP", "for the work A does in W steps a month"). Returns the new
 * w (as snprintf counts, so it may pass n when cut). */
static size_t cost_figures(char *p, size_t n, size_t w, const tc_comparison *c) {
    char X = c->cheaper;
    double cpx = X == 'A' ? c->cost_per_unit.a : c->cost_per_unit.b;
    double cpy = X == 'A' ? c->cost_per_unit.b : c->cost_per_unit.a;
    char mx[48], my[48], mm[48], ww[48];
    w += (size_t)snprintf(p + w, n - w, " (%s against %s %s", tc_fmt_money_any(mx, sizeof mx, cpx),
                          tc_fmt_money_any(my, sizeof my, cpy), unit_short(c->unit));
    if (w < n && c->has_monthly_diff) {
        tc_fmt_money_any(mm, sizeof mm, fabs(c->monthly_diff));
        tc_fmt_grouped(ww, sizeof ww, c->work_steps_per_month, 0);
        w += (size_t)snprintf(p + w, n - w, c->unit == TC_CMP_UNIT_STEP ? "; %s a month at %s steps a month"
                                                                        : "; %s a month for the work A does in %s steps",
                              mm, ww);
    }
    if (w < n) w += (size_t)snprintf(p + w, n - w, ")");
    return w;
}

/* Which input would settle a comparison without a common unit of work. */
static const char *settle_text(const tc_comparison *c) {
    bool fa = c->model_pflop_per_step.has_a, fb = c->model_pflop_per_step.has_b;
    if (fa != fb)
        return fb ? "model FLOPs are known for B only: pass --tokens-per-step (or --samples-per-step) for both runs, "
                    "or give A as traces recorded with record_shapes=True"
                  : "model FLOPs are known for A only: pass --tokens-per-step (or --samples-per-step) for both runs, "
                    "or give B as traces recorded with record_shapes=True";
    return "pass --tokens-per-step (or --samples-per-step) for both runs, or give both as traces recorded with "
           "record_shapes=True so their model FLOPs are known";
}

/* How much cheaper X is: as a ratio ("27,000x") when the work per step is TC_CMP_WORK_APART apart or
 * the ratio reaches TC_CMP_RATIO_FROM (a percentage would round to 100), else a percentage ("49.3%"). */
static const char *cheaper_by_text(char *buf, size_t n, const tc_comparison *c) {
    if (c->work_apart || c->cheaper_ratio >= TC_CMP_RATIO_FROM) {
        size_t w = tc_fmt_grouped(buf, n, c->cheaper_ratio, c->cheaper_ratio < 100 ? 1 : 0);
        if (w < n) snprintf(buf + w, n - w, "x");
    } else tc_fmt_pct(buf, n, c->cheaper_pct / 100, 1);
    return buf;
}

/* The unit's name for an amount of work per step ("PFLOP of model FLOPs"). */
static const char *work_unit_name(tc_cmp_unit u) {
    return u == TC_CMP_UNIT_PFLOP ? "PFLOP of model FLOPs" : u == TC_CMP_UNIT_MTOKENS ? "million tokens"
           : u == TC_CMP_UNIT_KSAMPLES ? "thousand samples" : "units";
}

/* The conclusion: which side is cheaper per unit of work, by how much and why, or why no side can
 * be named (CONCLUSION_TEXT bytes at most). Returns p. */
const char *tc_compare_conclusion_text(char *p, size_t n, const tc_comparison *c) {
    char d[DIFF_TEXT];
    if (c->cheaper == '?') {
        bool both = c->too_small_a && c->too_small_b;
        if (c->too_small_a || c->too_small_b)
            snprintf(p, n, "No conclusion: %s too small to judge (too little GPU work in the traces: see %s verdict), so "
                     "%s cost per unit of work says nothing.", both ? "A and B are" : c->too_small_a ? "A is" : "B is",
                     both ? "their" : "its", both ? "their" : "its");
        else if (c->unit == TC_CMP_UNIT_NONE)
            snprintf(p, n, "No cheaper side: the runs do different work per step (%s) and no unit of work is known "
                     "for both, so their costs cannot be compared; %s.",
                     c->n_differences ? tc_compare_diff_text(d, sizeof d, c, &c->differences[0]) : "?", settle_text(c));
        else
            snprintf(p, n, "No conclusion: %s.", c->missing_step_time
                     ? "a step time is missing (no ProfilerStep spans), so work per step cannot be compared"
                     : "the cost per unit of work is zero on one side");
        return p;
    }
    if (c->cheaper == '=') {
        char within[TC_PCT_LEN];
        snprintf(p, n, "A and B cost the same %s (within %s: %s).", unit_words(c->unit),
                 tc_fmt_pct(within, sizeof within, TC_CMP_SAME_COST_PCT / 100, 2), c->by_cost ? "cost" : "GPU-seconds");
    } else {
        char reason[REASON_TEXT], by[64];
        reason_text(reason, sizeof reason, c);
        size_t w = (size_t)snprintf(p, n, "%c is %s cheaper %s%s: %s", c->cheaper, cheaper_by_text(by, sizeof by, c),
                                    unit_words(c->unit), c->by_cost ? "" : " in GPU time", reason);
        if (w < n && c->by_cost) w = cost_figures(p, n, w, c);
        if (w < n) snprintf(p + w, n - w, ".");
    }
    if (!c->same_workload) { /* then the unit is not a step */
        size_t w = strlen(p);
        if (w < n)
            snprintf(p + w, n - w, " The runs are not the same workload (%s), so they are compared %s, not per step.",
                     tc_compare_diff_text(d, sizeof d, c, &c->differences[0]), unit_words(c->unit));
    }
    if (c->work_apart) {
        size_t w = strlen(p);
        char r[TC_ATTR_LEN], wa[TC_ATTR_LEN], wb[TC_ATTR_LEN];
        tc_fmt_grouped(r, sizeof r, c->work_ratio, c->work_ratio < 100 ? 1 : 0);
        if (w < n)
            snprintf(p + w, n - w, " Their work per step is %sx apart (A %s, B %s %s per step): they are different "
                     "jobs, so the ratio tells their sizes apart more than it ranks their setups.", r,
                     TC_SIG4(wa, c->work_per_step.a), TC_SIG4(wb, c->work_per_step.b), work_unit_name(c->unit));
    }
    return p;
}

/* The workload warning's title line after "NOT THE SAME WORKLOAD:", agreeing with the conclusion. */
const char *tc_compare_mismatch_title(char *buf, size_t n, const tc_comparison *c) {
    if (c->unit == TC_CMP_UNIT_NONE)
        snprintf(buf, n, "per-step figures compare different work, and no common unit of work is known, so no "
                 "side is named cheaper");
    else
        snprintf(buf, n, "per-step figures compare different work; the conclusion compares them %s",
                 unit_words(c->unit));
    return buf;
}

/* Why side s has no cost, in words (COST_NOTE_TEXT bytes at most). Returns buf. */
const char *tc_compare_cost_note(char *buf, size_t n, const tc_cmp_cost *s) {
    if (s->too_small) snprintf(buf, n, "no cost: %s", s->why_not);
    else snprintf(buf, n, "no cost: %s (pass --price-per-gpu-hour or --gpu NAME)", s->why_not);
    return buf;
}

/* ---- the metric table -------------------------------------------------------------------- */

#define M(k, l, f, field, how) {k, l, f, offsetof(tc_comparison, field), how}
const metric tc_compare_metrics[] = {
    M("gpus", "GPUs", F_NUM, gpus, "world size (ranks, or distributedInfo.world_size)"),
    M("step_time_us", "step time", F_MS, step_time_us, "mean ProfilerStep time over ranks"),
    M("steps_per_s", "steps/s", F_RATE, steps_per_s, "1 / step time (every GPU does one step per step time)"),
    M("gpu_s_per_step", "GPU-seconds per step", F_RATE, gpu_s_per_step, "GPUs x step time in s"),
    M("tflops_per_gpu", "TFLOP/s per GPU", F_TFLOPS, tflops_per_gpu, "FLOPs per step per GPU / step time / 1e12"),
    M("mfu", "MFU", F_SHARE, mfu, "model FLOPs utilization (analyze)"),
    M("share_compute", "compute", F_SHARE, share_compute, "share of the summed GPU windows"),
    M("share_exposed_transfer", "exposed transfer", F_SHARE, share_exposed_transfer, "collectives moving bytes, not hidden by compute"),
    M("share_exposed_wait", "exposed wait", F_SHARE, share_exposed_wait, "collectives waiting for peers"),
    M("share_exposed_comm", "exposed comm (total)", F_SHARE, share_exposed_comm, "transfer + wait"),
    M("share_memory", "exposed memory", F_SHARE, share_memory, "memory copies not hidden by compute"),
    M("share_idle", "idle", F_SHARE, share_idle, "no GPU activity"),
    M("fabric_busbw_GBps", "fabric busbw", F_GBPS, busbw_GBps, "measured bus bandwidth, GB = 1e9 B"),
    M("price_per_gpu_hour", "price per GPU-hour", F_MONEY, price_per_gpu_hour, "P used by each side's cost model"),
    M("cost_per_step", "cost per step", F_MONEY, cost_per_step, "P x N x step s / 3600"),
    M("cost_per_effective_gpu_hour", "cost / effective GPU-hour", F_MONEY, cost_per_effective_gpu_hour, "P x T / T_ref (the step replayed, on the reference); P / e without a replay"),
    M("model_pflop_per_step", "model PFLOP per step", F_RATE, model_pflop_per_step, "FLOPs per GPU per step x GPUs / 1e15"),
    M("tokens_per_step", "tokens per step", F_NUM, tokens_per_step, "--tokens-per-step"),
    M("samples_per_step", "samples per step", F_NUM, samples_per_step, "--samples-per-step"),
    M("cost_per_pflop", "cost per PFLOP", F_MONEY, cost_per_pflop, "cost per step / model PFLOP per step"),
    M("cost_per_million_tokens", "cost per million tokens", F_MONEY, cost_per_mtokens, "cost per step / (tokens per step / 1e6)"),
    M("cost_per_1000_samples", "cost per 1,000 samples", F_MONEY, cost_per_ksamples, "cost per step / (samples per step / 1e3)"),
};
#undef M
const size_t tc_compare_n_metrics = sizeof tc_compare_metrics / sizeof tc_compare_metrics[0];

static const tc_cmp_pair *pair_of(const tc_comparison *c, const metric *m) {
    return (const tc_cmp_pair *)((const char *)c + m->off);
}

/* The text table's cells are 14 columns: a figure its fixed format writes wider (a saved result may
 * hold any magnitude) is written with 4 significant digits instead, sign (when sign) and unit kept,
 * or as the bound ">999,999,999 ms" when even that is wider: never an exponent. */
#define CELL_COLS 14
static void fit_cell(char *buf, size_t n, fmt_kind k, double v, bool sign) {
    if (strlen(buf) <= CELL_COLS) return;
    const char *sg = sign && v >= 0 ? "+" : "";
    const char *unit = k == F_MS ? " ms" : k == F_GBPS ? " GB/s" : k == F_SHARE ? (sign ? " pt" : "%") : "";
    double x = k == F_MS ? v / 1e3 : k == F_SHARE ? v * 100 : v;
    char f[CELL_COLS + 8]; /* a plain form wider than this becomes the bound */
    tc_fmt_num_fit(f, sizeof f, x, tc_sig_decimals(x, 4), k == F_MONEY ? "$" : "", unit, CELL_COLS - strlen(sg));
    snprintf(buf, n, "%s%s", sg, f);
}

static void fmt_val(char *buf, size_t n, fmt_kind k, bool has, double v) {
    if (!has) { snprintf(buf, n, "n/a"); return; }
    switch (k) {
    case F_MS: snprintf(buf, n, "%.3f ms", v / 1e3); break;
    case F_SHARE: tc_fmt_pct(buf, n, v, 1); break;
    case F_GBPS: snprintf(buf, n, "%.1f GB/s", v); break;
    case F_MONEY: tc_fmt_money_any(buf, n, v); break;
    case F_RATE: tc_fmt_num(buf, n, v, tc_sig_decimals(v, 4)); break;
    case F_TFLOPS: snprintf(buf, n, "%.1f", v); break;
    case F_NUM: snprintf(buf, n, "%.0f", v); break;
    }
    fit_cell(buf, n, k, v, false);
}

static void fmt_diff(char *buf, size_t n, fmt_kind k, const tc_cmp_pair *p) {
    if (!p->has_diff) { snprintf(buf, n, "-"); return; }
    char v[48];
    if (k == F_SHARE) tc_fmt_pct_pt(v, sizeof v, p->diff, 1);
    else if (k == F_MONEY) { tc_fmt_money_any(v + 1, sizeof v - 1, fabs(p->diff)); v[0] = p->diff < 0 ? '-' : '+'; }
    else if (k == F_MS) snprintf(v, sizeof v, "%+.3f ms", p->diff / 1e3);
    else if (k == F_GBPS) snprintf(v, sizeof v, "%+.1f GB/s", p->diff);
    else { char f[TC_ATTR_LEN]; snprintf(v, sizeof v, "%s%s", p->diff < 0 ? "-" : "+", TC_SIG4(f, fabs(p->diff))); }
    snprintf(buf, n, "%s", v);
    fit_cell(buf, n, k, p->diff, true);
}

void tc_compare_fmt_ratio(char *buf, size_t n, const tc_cmp_pair *p) {
    if (p->has_ratio) snprintf(buf, n, "%.3fx", p->ratio); else snprintf(buf, n, "-");
    if (p->has_ratio && strlen(buf) > 7) /* its column is 7 wide: fewer decimals or a bound, never an exponent */
        tc_fmt_num_fit(buf, n, p->ratio, p->ratio < 1e3 ? 1 : 0, "", "x", 7);
}

/* One metric's row as text: A, B, B - A and B / A; false when neither side has it (no row). */
bool tc_compare_format_row(const tc_comparison *c, size_t i, row_text *t) {
    const tc_cmp_pair *p = pair_of(c, &tc_compare_metrics[i]);
    if (!p->has_a && !p->has_b) return false;
    fmt_val(t->a, sizeof t->a, tc_compare_metrics[i].kind, p->has_a, p->a);
    fmt_val(t->b, sizeof t->b, tc_compare_metrics[i].kind, p->has_b, p->b);
    fmt_diff(t->diff, sizeof t->diff, tc_compare_metrics[i].kind, p);
    tc_compare_fmt_ratio(t->ratio, sizeof t->ratio, p);
    return true;
}

const char *tc_compare_side_kind(const tc_run_summary *s) { return s->from_json ? "saved result" : "traces"; }

/* ---- text -------------------------------------------------------------------------------- */

/* "A: samples/ (traces), NVIDIA H100 80GB HBM3", wrapped: the label is a path and the device a
 * trace string, so both go through the cleaner. */
static void text_side(FILE *out, char which, const tc_run_summary *s, int width) {
    char line[2048], basis[TC_FINDING_TEXT];
    snprintf(line, sizeof line, "%c: %s (%s)%s%s%s%s", which, s->label ? s->label : "?", tc_compare_side_kind(s),
             s->device ? ", " : "", s->device ? s->device : "", s->partial ? "; on partial data: " : "",
             s->partial ? tc_basis_list_text(basis, sizeof basis, s->basis, s->n_basis) : "");
    tc_term_wrap(out, line, 0, 3, width);
}

/* Layout of the terminal output (every line fits the width, 80 or more): the metric table is
 * 25 + 2 x 16 + 15 + 8 = 80 columns (each cell fits CELL_COLS, a verdict 15); the collectives
 * table's group column is as wide as its widest label (COLL_GROUP_MAX at most), its name column
 * gets what the group and the figures (COLL_FIXED columns) leave, and a longer name goes on a line
 * of its own (as analyze's collectives table). */
#define COLL_FIXED 58     /* 1 + 9 + 3 x 8 + 2 x 7 + 10: the separators and figures */
#define COLL_GROUP_MAX 32 /* the group column at most: "pg 0 (default_pg) / pg 3 (DP)" */
#define METRIC_ROW "%-25s %15s %15s %14s %7s\n"
#define VERDICT_COLS 15   /* "straggler-bound" */

/* The process group(s) of a collectives row: one side's, or "A's / B's" when matched across
 * different groups. */
void tc_compare_group_of(char *buf, size_t n, const tc_cmp_coll_row *r) {
    const char *ga = r->a ? r->a->process_group : NULL, *gb = r->b ? r->b->process_group : NULL;
    if (r->a && r->b && !(ga && gb && !strcmp(ga, gb)) && (ga || gb))
        snprintf(buf, n, "%s / %s", ga ? ga : "-", gb ? gb : "-");
    else snprintf(buf, n, "%s", ga ? ga : gb ? gb : "-");
}

/* The workload warning (when the runs differ) and the conclusion. */
static void text_head(FILE *out, const tc_comparison *c, const char *B0, const char *B1, int width) {
    char d[DIFF_TEXT], concl[CONCLUSION_TEXT];
    if (!c->same_workload) {
        char title[DIFF_TEXT];
        fprintf(out, "%sNOT THE SAME WORKLOAD:%s ", B0, B1);
        tc_term_wrap_from(out, tc_compare_mismatch_title(title, sizeof title, c), 23, 2, width);
        for (size_t i = 0; i < c->n_differences; i++) {
            fputs("  - ", out);
            tc_term_wrap_from(out, tc_compare_diff_text(d, sizeof d, c, &c->differences[i]), 4, 4, width);
        }
        fprintf(out, "\n");
    }
    fprintf(out, "%sConclusion:%s ", B0, B1);
    tc_term_wrap_from(out, tc_compare_conclusion_text(concl, sizeof concl, c), 12, 2, width);
    fputc('\n', out);
}

/* The metric rows, straggler and verdict. */
static void text_metrics(FILE *out, const tc_comparison *c) {
    fprintf(out, METRIC_ROW, "", "A", "B", "B - A", "B / A");
    row_text t;
    for (size_t i = 0; i < tc_compare_n_metrics; i++)
        if (tc_compare_format_row(c, i, &t)) fprintf(out, METRIC_ROW, tc_compare_metrics[i].label, t.a, t.b, t.diff, t.ratio);
    char sa[32], sb[32];
    if (c->a->has_straggler) snprintf(sa, sizeof sa, "rank %lld", c->a->straggler_rank); else snprintf(sa, sizeof sa, "none");
    if (c->b->has_straggler) snprintf(sb, sizeof sb, "rank %lld", c->b->straggler_rank); else snprintf(sb, sizeof sb, "none");
    fprintf(out, "%-25s %15s %15s\n", "straggler", sa, sb);
    /* a saved result's verdict is whatever its JSON said: a cell, cleaned and cut */
    char vda[4 * VERDICT_COLS + 1], vdb[4 * VERDICT_COLS + 1];
    fprintf(out, "%-25s %s %s\n", "verdict", tc_term_cell(vda, sizeof vda, c->a->verdict, VERDICT_COLS),
            tc_term_cell(vdb, sizeof vdb, c->b->verdict, VERDICT_COLS));
}

/* The collectives table (nothing when neither side has collectives). */
static void text_colls(FILE *out, const tc_comparison *c, int width) {
    if (!c->n_colls) return;
    const char **cn = calloc(c->n_colls, sizeof *cn), **gn = calloc(c->n_colls, sizeof *gn);
    char (*gt)[256] = calloc(c->n_colls, sizeof *gt);
    if (!cn || !gn || !gt) { free(cn); free(gn); free(gt); return; }
    int names = width - COLL_FIXED, gw = 5, nw = 4; /* "group", "name" */
    char cell[4 * 1024 + 1];
    for (size_t i = 0; i < c->n_colls; i++) {
        const tc_cmp_coll_row *r = &c->colls[i];
        cn[i] = (r->a ? r->a : r->b)->name;
        tc_compare_group_of(gt[i], sizeof gt[i], r);
        gn[i] = gt[i];
        if ((int)tc_term_cols(gt[i]) > gw) gw = (int)tc_term_cols(gt[i]);
        int w = (int)tc_term_cols(tc_term_clean(cell, sizeof cell, cn[i], 0));
        if (w > nw) nw = w;
    }
    if (gw > COLL_GROUP_MAX) gw = COLL_GROUP_MAX;
    /* the group whole when the names leave room; else the names whole when the group keeps 10
     * columns; else the group gets what 10 columns of names leave, and longer names their own lines */
    int gmin = gw < 10 ? gw : 10;
    if (nw + gw <= names || nw > names - gmin) { if (gw > names - 10) gw = names - 10; nw = names - gw; }
    else gw = names - nw;
    char ua[40], ub[40];
    fprintf(out, "\nCollectives (matched by name and size; transfer = the fastest rank's kernel)\n");
    fprintf(out, "%-*s %-*s %8s %7s %7s %7s %6s %6s %s\n", nw, "name", gw, "group", "size", "A xfer", "B xfer",
            "B / A", "A bus", "B bus", "change");
    fprintf(out, "%-*s %-*s %8s %s %s %7s %6s %6s\n", nw, "", gw, "", "each", tc_term_cell(ua, sizeof ua, "µs, med", 7),
            tc_term_cell(ub, sizeof ub, "µs, med", 7), "", "GB/s", "GB/s");
    for (size_t i = 0; i < c->n_colls; i++) {
        const tc_cmp_coll_row *r = &c->colls[i];
        const tc_cmp_coll *x = r->a ? r->a : r->b;
        char name[4 * 1024 + 1], grp[4 * 64 + 1], by[24];
        char ta[24] = "-", tb[24] = "-", rt[24] = "-", ba[24] = "-", bb[24] = "-";
        if (r->a) tc_term_fit(ta, sizeof ta, r->a->transfer_us_median, 1, 7);
        if (r->b) tc_term_fit(tb, sizeof tb, r->b->transfer_us_median, 1, 7);
        if (r->transfer_us.has_ratio) {
            tc_term_fit(rt, sizeof rt - 1, r->transfer_us.ratio, 3, 6);
            strcat(rt, "x");
        }
        if (r->busbw_GBps.has_a) tc_term_fit(ba, sizeof ba, r->busbw_GBps.a, 1, 6);
        if (r->busbw_GBps.has_b) tc_term_fit(bb, sizeof bb, r->busbw_GBps.b, 1, 6);
        tc_term_name_row(out, name, sizeof name, x->name, cn, c->n_colls, nw, width); /* its own line when too long */
        fprintf(out, "%s %s %8s %7s %7s %7s %6s %6s %s\n", name, tc_term_name_cell(grp, sizeof grp, gn[i], gn, c->n_colls, -gw),
                tc_fmt_bytes(by, sizeof by, x->bytes), ta, tb, rt, ba, bb, tc_compare_change_name(r->change));
    }
    free(cn);
    free(gn);
    free(gt);
}

/* The monthly difference in words ("at 1,000 steps a month (...), B costs $X a month less than A"),
 * the same in text and HTML. Returns buf. */
const char *tc_compare_monthly_text(char *buf, size_t n, const tc_comparison *c) {
    char w[48], m[48];
    tc_fmt_grouped(w, sizeof w, c->work_steps_per_month, 0);
    if (c->has_monthly_diff)
        snprintf(buf, n, "%s %s steps a month (%s), B costs %s a month %s than A",
                 c->unit == TC_CMP_UNIT_STEP ? "at" : "for the work A does in", w,
                 c->work_from_flag ? "--work-steps-per-month" : "A's month at its utilization",
                 tc_fmt_money_any(m, sizeof m, fabs(c->monthly_diff)), c->monthly_diff < 0 ? "less" : "more");
    else
        snprintf(buf, n, "monthly difference: n/a (%s)", c->unit == TC_CMP_UNIT_NONE ? "no common unit of work"
                                                                                     : "cost per step unknown on a side");
    return buf;
}

/* Cost per unit of work: why a side has no cost, and the monthly difference. */
static void text_cost(FILE *out, const tc_comparison *c, int width) {
    char note[COST_NOTE_TEXT];
    fprintf(out, "\nCost per unit of work (each side with its own prices)\n");
    if (!c->cost_a->has_cost) { fputs("  A: ", out); tc_term_wrap_from(out, tc_compare_cost_note(note, sizeof note, c->cost_a), 5, 5, width); }
    if (!c->cost_b->has_cost) { fputs("  B: ", out); tc_term_wrap_from(out, tc_compare_cost_note(note, sizeof note, c->cost_b), 5, 5, width); }
    char line[512];
    tc_term_wrap(out, tc_compare_monthly_text(line, sizeof line, c), 2, 4, width);
}

void tc_compare_text_write(FILE *out, const tc_comparison *c, const tc_term_opts *o) {
    text_head(out, c, o->color ? "\033[1m" : "", o->color ? "\033[0m" : "", o->width);
    text_side(out, 'A', c->a, o->width);
    text_side(out, 'B', c->b, o->width);
    fputc('\n', out);
    text_metrics(out, c);
    text_colls(out, c, o->width);
    text_cost(out, c, o->width);
}

/* ---- JSON -------------------------------------------------------------------------------- */

static void json_pair(jw *w, const tc_cmp_pair *p) {
    jw_object_begin(w);
    jw_key(w, "a"); if (p->has_a) jw_double(w, p->a); else jw_null(w);
    jw_key(w, "b"); if (p->has_b) jw_double(w, p->b); else jw_null(w);
    jw_key(w, "diff"); if (p->has_diff) jw_double(w, p->diff); else jw_null(w);
    jw_key(w, "ratio"); if (p->has_ratio) jw_double(w, p->ratio); else jw_null(w);
    jw_object_end(w);
}

static void json_side(jw *w, const tc_run_summary *s, const tc_cmp_cost *cost) {
    char note[COST_NOTE_TEXT];
    jw_object_begin(w);
    jw_key(w, "label"); jw_string(w, s->label);
    jw_key(w, "source"); jw_string(w, tc_compare_side_kind(s));
    jw_key(w, "tool_version"); jw_string(w, s->tool_version);
    jw_key(w, "device"); jw_string(w, s->device);
    jw_key(w, "gpus"); jw_int(w, s->world_size);
    jw_key(w, "verdict"); jw_string(w, s->verdict);
    jw_key(w, "straggler_rank"); if (s->has_straggler) jw_int(w, s->straggler_rank); else jw_null(w);
    jw_key(w, "flops_per_step"); if (s->has_flops) jw_double(w, s->flops_per_step); else jw_null(w);
    jw_key(w, "tokens_per_step"); if (s->has_tokens) jw_double(w, s->tokens_per_step); else jw_null(w);
    jw_key(w, "samples_per_step"); if (s->has_samples) jw_double(w, s->samples_per_step); else jw_null(w);
    jw_key(w, "basis"); jw_string(w, s->partial ? "partial" : "complete");
    jw_key(w, "cost");
    if (cost->has_cost) tc_cost_result_json(w, cost->cost); else jw_null(w);
    jw_key(w, "cost_note"); jw_string(w, cost->has_cost ? NULL : tc_compare_cost_note(note, sizeof note, cost));
    jw_object_end(w);
}

/* Key "metrics": every metric pair, then the straggler ranks and verdicts. */
static void json_metrics(jw *w, const tc_comparison *c) {
    jw_key(w, "metrics");
    jw_object_begin(w);
    for (size_t i = 0; i < tc_compare_n_metrics; i++) { jw_key(w, tc_compare_metrics[i].key); json_pair(w, pair_of(c, &tc_compare_metrics[i])); }
    jw_key(w, "straggler_rank");
    jw_object_begin(w);
    jw_key(w, "a"); if (c->a->has_straggler) jw_int(w, c->a->straggler_rank); else jw_null(w);
    jw_key(w, "b"); if (c->b->has_straggler) jw_int(w, c->b->straggler_rank); else jw_null(w);
    jw_object_end(w);
    jw_key(w, "verdict");
    jw_object_begin(w);
    jw_key(w, "a"); jw_string(w, c->a->verdict);
    jw_key(w, "b"); jw_string(w, c->b->verdict);
    jw_object_end(w);
    jw_object_end(w);
}

/* Key "collectives": one object per matched (or one-sided) row. */
static void json_colls(jw *w, const tc_comparison *c) {
    jw_key(w, "collectives");
    jw_array_begin(w);
    for (size_t i = 0; i < c->n_colls; i++) {
        const tc_cmp_coll_row *r = &c->colls[i];
        const tc_cmp_coll *x = r->a ? r->a : r->b;
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, x->name);
        jw_key(w, "bytes"); if (x->bytes >= 0) jw_int(w, x->bytes); else jw_null(w);
        jw_key(w, "process_group_a"); jw_string(w, r->a ? r->a->process_group : NULL);
        jw_key(w, "process_group_b"); jw_string(w, r->b ? r->b->process_group : NULL);
        jw_key(w, "transfer_us_median"); json_pair(w, &r->transfer_us);
        jw_key(w, "busbw_GBps"); json_pair(w, &r->busbw_GBps);
        jw_key(w, "change"); jw_string(w, tc_compare_change_name(r->change));
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* Keys ranks and kernels: each rank and each top compute kernel of either run, A against B. */
static void json_ranks_kernels(jw *w, const tc_comparison *c) {
    jw_key(w, "ranks");
    jw_array_begin(w);
    for (size_t i = 0; i < c->n_ranks; i++) {
        const tc_cmp_rank_row *r = &c->ranks[i];
        jw_object_begin(w);
        jw_key(w, "rank"); jw_int(w, r->rank);
        jw_key(w, "share_compute"); json_pair(w, &r->share_compute);
        jw_key(w, "share_exposed_comm"); json_pair(w, &r->share_exposed_comm);
        jw_key(w, "share_idle"); json_pair(w, &r->share_idle);
        jw_key(w, "step_time_us"); json_pair(w, &r->step_time_us);
        jw_key(w, "change"); jw_string(w, tc_compare_change_name(r->change));
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "kernels");
    jw_array_begin(w);
    for (size_t i = 0; i < c->n_kernels; i++) {
        const tc_cmp_kernel_row *r = &c->kernels[i];
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, (r->a ? r->a : r->b)->name);
        jw_key(w, "share_of_compute"); json_pair(w, &r->share_of_compute);
        jw_key(w, "time_us_per_gpu_step"); json_pair(w, &r->time_us_per_gpu_step);
        jw_key(w, "change"); jw_string(w, tc_compare_change_name(r->change));
        jw_object_end(w);
    }
    jw_array_end(w);
}

int tc_compare_json_write(FILE *out, const tc_comparison *c) {
    char d[DIFF_TEXT], concl[CONCLUSION_TEXT];
    jw w;
    jw_init(&w, out, true);
    jw_object_begin(&w);
    jw_key(&w, "schema"); jw_string(&w, TC_COMPARE_SCHEMA);
    jw_key(&w, "tool_version"); jw_string(&w, TC_VERSION);
    jw_key(&w, "same_workload"); jw_bool(&w, c->same_workload);
    jw_key(&w, "workload_differences");
    jw_array_begin(&w);
    for (size_t i = 0; i < c->n_differences; i++) jw_string(&w, tc_compare_diff_text(d, sizeof d, c, &c->differences[i]));
    jw_array_end(&w);
    jw_key(&w, "conclusion"); jw_string(&w, tc_compare_conclusion_text(concl, sizeof concl, c));
    jw_key(&w, "cheaper");
    jw_string(&w, c->cheaper == 'A' ? "A" : c->cheaper == 'B' ? "B" : c->cheaper == '=' ? "same" : NULL);
    char by[64];
    snprintf(by, sizeof by, "%s_per_%s", c->by_cost ? "cost" : "gpu_seconds", unit_key(c->unit) ? unit_key(c->unit) : "");
    jw_key(&w, "cheaper_by"); jw_string(&w, c->cheaper == '?' ? NULL : by);
    jw_key(&w, "work_unit"); jw_string(&w, unit_key(c->unit));
    jw_key(&w, "cheaper_pct"); if (c->cheaper == '?') jw_null(&w); else jw_double(&w, c->cheaper_pct);
    jw_key(&w, "cheaper_ratio"); if (c->cheaper == '?') jw_null(&w); else jw_double(&w, c->cheaper_ratio);
    jw_key(&w, "work_per_step_ratio"); if (c->has_work_ratio) jw_double(&w, c->work_ratio); else jw_null(&w);
    jw_key(&w, "work_apart"); jw_bool(&w, c->work_apart);
    jw_key(&w, "reason"); jw_string(&w, reason_key(c->reason));
    jw_key(&w, "a"); json_side(&w, c->a, c->cost_a);
    jw_key(&w, "b"); json_side(&w, c->b, c->cost_b);
    json_metrics(&w, c);
    jw_key(&w, "work_steps_per_month"); if (c->work_steps_per_month > 0) jw_double(&w, c->work_steps_per_month); else jw_null(&w);
    jw_key(&w, "work_steps_per_month_source"); jw_string(&w, c->work_from_flag ? "flag" : "default: A's month at its utilization");
    jw_key(&w, "monthly_difference"); if (c->has_monthly_diff) jw_double(&w, c->monthly_diff); else jw_null(&w);
    json_colls(&w, c);
    json_ranks_kernels(&w, c);
    jw_object_end(&w);
    return jw_finish(&w);
}
