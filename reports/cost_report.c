/* cost_report.c: the cost result as JSON, the headline and the terminal section (see
 * cost_report.h). The inputs are listed and keyed from model/cost_inputs.def. */
#include "cost_report.h"
#include "findings_text.h"
#include "termtext.h"
#include "textfmt.h"
#include <math.h>
#include <stdarg.h>
#include <string.h>

#define BASIS_TEXT 160 /* bytes of the basis in words, NUL included (longer ones are cut) */

/* The result's basis in a few words ("2 of 128 ranks"; findings_text.h), for the headline and JSON. */
static const char *basis_words(char *buf, size_t n, const tc_cost_result *r) {
    return tc_basis_list_text(buf, n, r->basis, r->n_basis);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                         */

static void json_maybe(jw *w, const char *key, bool known, double v) {
    jw_key(w, key);
    if (known) jw_double(w, v);
    else jw_null(w);
}

static void what_if_json(jw *w, const tc_cost_result *r) {
    const tc_cost_what_if *wi = &r->what_if;
    jw_key(w, "what_if");
    if (!r->has_what_if) {
        jw_null(w);
        return;
    }
    jw_object_begin(w);
    jw_key(w, "method");
    jw_string(w, wi->method == TC_WHAT_IF_REPLAY ? "replay" : "scaled");
    json_maybe(w, "fabric_GBps", wi->fabric_GBps > 0, wi->fabric_GBps);
    json_maybe(w, "target_GBps", wi->target_GBps > 0, wi->target_GBps);
    json_maybe(w, "target_latency_us", wi->has_target_latency, wi->target_latency_us);
    jw_key(w, "inter_node_only");
    jw_bool(w, wi->inter_node_only);
    json_maybe(w, "scaled_transfer_share", wi->has_shares, wi->scaled_transfer_share);
    json_maybe(w, "projected_exposed_transfer_share", wi->has_shares, wi->projected_exposed_transfer_share);
    json_maybe(w, "projected_step_ratio", true, wi->step_ratio);
    json_maybe(w, "projected_step_time_us", wi->has_step_time, wi->projected_step_time_us);
    json_maybe(w, "projected_effective_gpus", true, wi->projected_effective_gpus);
    json_maybe(w, "monthly_value_recovered", true, wi->monthly_value_recovered);
    jw_key(w, "value_bound");
    jw_string(w, tc_cost_bound_str(wi->value_bound));
    json_maybe(w, "upgrade_cost", wi->has_upgrade_cost, wi->upgrade_cost);
    json_maybe(w, "payback_months", wi->has_payback, wi->payback_months);
    jw_object_end(w);
}

/* ------------------------------------------------------------------------------------------ */
/* The classes of loss                                                                          */

static const char *const loss_keys[TC_COST_LOSS_COUNT] = {"inter_node_network", "intra_node_comm", "straggler_wait",
                                                          "host_idle", "memory_copies"};
static const char *const loss_labels[TC_COST_LOSS_COUNT] = {"the inter-node network", "intra-node communication",
                                                            "waiting for a straggler", "host idle", "memory copies"};

const char *tc_cost_loss_key(int c) { return c >= 0 && c < TC_COST_LOSS_COUNT ? loss_keys[c] : "?"; }
const char *tc_cost_loss_label(int c) { return c >= 0 && c < TC_COST_LOSS_COUNT ? loss_labels[c] : "?"; }

const char *tc_cost_inter_rule_text(const tc_cost_result *r) {
    switch (r->inter_rule) {
    case TC_COST_INTER_GIVEN: return "given: all of 1 - e, the network efficiency passed";
    case TC_COST_INTER_MEASURED: return "the inter-node process groups' exposed transfer";
    case TC_COST_INTER_ONE_GPU: return "one GPU: no network between nodes";
    case TC_COST_INTER_ONE_NODE:
        return r->inter_nodes_assumed ? "one node, 8 GPUs per node assumed: no network between nodes"
                                      : "one node: no network between nodes";
    case TC_COST_INTER_GROUPS_IN_NODE: return "every process group with collectives runs within one node";
    case TC_COST_INTER_SCOPE_UNKNOWN:
        return "scopes unknown: all exposed transfer, the intra-node part included";
    }
    return "?";
}

static const char *lead_key(tc_cost_lead l) {
    switch (l) {
    case TC_COST_LEAD_TRANSFER: return "exposed_transfer";
    case TC_COST_LEAD_STRAGGLER: return "straggler_wait";
    case TC_COST_LEAD_HOST: return "host_idle_and_copies";
    case TC_COST_LEAD_TOTAL: return "total";
    case TC_COST_LEAD_NONE: break;
    }
    return NULL;
}

/* loss_per_month, loss_shares and loss_bounds (one key per class; null when unknown), the lead
 * and why the inter-node network's share is what it is. */
static void losses_json(jw *w, const tc_cost_result *r) {
    for (int k = 0; k < 3; k++) {
        jw_key(w, k == 0 ? "loss_per_month" : k == 1 ? "loss_shares" : "loss_bounds");
        jw_object_begin(w);
        for (int c = 0; c < TC_COST_LOSS_COUNT; c++) {
            const tc_cost_loss *l = &r->loss[c];
            if (k == 2) { jw_key(w, loss_keys[c]); jw_string(w, l->known ? tc_cost_bound_str(l->bound) : NULL); }
            else json_maybe(w, loss_keys[c], l->known, k == 0 ? l->per_month : l->share);
        }
        double share = 0;
        for (int c = 0; c < TC_COST_LOSS_COUNT; c++) share += r->loss[c].known ? r->loss[c].share : 0;
        if (k < 2) json_maybe(w, "total", true, k == 0 ? r->total_loss_per_month : share);
        jw_object_end(w);
    }
    jw_key(w, "loss_lead"); jw_string(w, lead_key(r->lead));
    jw_key(w, "inter_node_network_reason"); jw_string(w, tc_cost_inter_rule_text(r));
}

/* "key": {"value": ..., "source": ...} for one input that is not a number. */
static void input_json(jw *w, const char *key, const char *value, const char *source) {
    jw_key(w, key);
    jw_object_begin(w);
    jw_key(w, "value");
    jw_string(w, value);
    jw_key(w, "source");
    jw_string(w, source);
    jw_object_end(w);
}

static void inputs_json(jw *w, const tc_cost_result *r) {
    const tc_cost_inputs *u = &r->used;
    jw_key(w, "inputs");
    jw_object_begin(w);
    for (int id = 0; id < TC_COST_INPUT_COUNT; id++) {
        const tc_cost_value *v = tc_cost_inputs_cvalue(u, (tc_cost_input_id)id);
        jw_key(w, tc_cost_input((tc_cost_input_id)id)->key);
        jw_object_begin(w);
        json_maybe(w, "value", v->set, v->value);
        jw_key(w, "source");
        jw_string(w, v->set ? v->origin : "unset");
        jw_object_end(w);
    }
    input_json(w, "gpu", u->gpu ? u->gpu->id : NULL, u->gpu ? u->gpu_origin : "unset");
    char day[32];
    input_json(w, "price_as_of", r->has_price_as_of ? tc_date_text(day, sizeof day, r->price_as_of_unix_s) : NULL,
               r->has_price_as_of ? r->price_as_of_source : "unset");
    jw_key(w, "hours_per_month");
    jw_object_begin(w);
    jw_key(w, "value");
    jw_double(w, TC_COST_HOURS_PER_MONTH);
    jw_key(w, "source");
    jw_string(w, "constant");
    jw_object_end(w);
    jw_object_end(w);
}

void tc_cost_result_json(jw *w, const tc_cost_result *r) {
    jw_object_begin(w);
    json_maybe(w, "effective_gpus", true, r->effective_gpus);
    jw_key(w, "effective_reference");
    jw_string(w, r->has_reference ? r->reference : NULL);
    json_maybe(w, "effective_price_per_gpu_hour", true, r->effective_price_per_gpu_hour);
    json_maybe(w, "network_loss_per_month", true, r->network_loss_per_month);
    json_maybe(w, "idle_loss_per_month", r->has_idle_loss, r->idle_loss_per_month);
    json_maybe(w, "straggler_loss_per_month", r->has_straggler_loss, r->straggler_loss_per_month);
    const tc_cost_loss *intra = &r->loss[TC_COST_LOSS_INTRA_NODE];
    json_maybe(w, "intra_node_comm_loss_per_month", intra->known, intra->per_month);
    losses_json(w, r);
    json_maybe(w, "rent_monthly", true, r->rent_monthly);
    json_maybe(w, "own_capex", r->has_own, r->own_capex);
    json_maybe(w, "own_opex_monthly", r->has_own, r->own_opex_monthly);
    json_maybe(w, "breakeven_months", r->has_breakeven, r->breakeven_months);
    json_maybe(w, "tco_own", r->has_own, r->tco_own);
    json_maybe(w, "tco_rent", true, r->tco_rent);
    json_maybe(w, "own_cost_per_effective_gpu_hour", r->has_own, r->own_cost_per_effective_gpu_hour);
    json_maybe(w, "rent_cost_per_effective_gpu_hour", true, r->rent_cost_per_effective_gpu_hour);
    jw_key(w, "fabric_nodes"); jw_int(w, r->fabric_nodes);
    jw_key(w, "basis"); jw_string(w, r->partial ? "partial" : "complete");
    char basis[BASIS_TEXT];
    jw_key(w, "basis_summary"); jw_string(w, r->partial ? basis_words(basis, sizeof basis, r) : NULL);
    jw_key(w, "network_efficiency_bound"); jw_string(w, tc_cost_bound_str(r->efficiency_bound));
    jw_key(w, "straggler_loss_bound");
    jw_string(w, r->has_straggler_loss ? tc_cost_bound_str(r->straggler_loss_bound) : NULL);
    jw_key(w, "timeline");
    jw_array_begin(w);
    for (size_t i = 0; i < r->timeline_len; i++) {
        jw_object_begin(w);
        jw_key(w, "month");
        jw_int(w, r->timeline[i].month);
        json_maybe(w, "own", r->has_own, r->timeline[i].own);
        json_maybe(w, "rent", true, r->timeline[i].rent);
        jw_object_end(w);
    }
    jw_array_end(w);
    what_if_json(w, r);
    inputs_json(w, r);
    jw_object_end(w);
}

void tc_cost_notes_json(jw *w, const tc_cost_result *r) {
    jw_array_begin(w);
    for (size_t i = 0; i < r->n_notes; i++) jw_string(w, r->notes[i]);
    jw_array_end(w);
}

int tc_cost_json_write(FILE *out, const tc_cost_result *r) {
    jw w;
    jw_init(&w, out, true);
    jw_object_begin(&w);
    jw_key(&w, "cost");
    tc_cost_result_json(&w, r);
    jw_key(&w, "notes");
    tc_cost_notes_json(&w, r);
    jw_object_end(&w);
    return jw_finish(&w);
}

/* ------------------------------------------------------------------------------------------ */
/* Text                                                                                         */

/* A bounded string builder: appends are clipped, the buffer stays NUL-terminated. */
typedef struct sbuf {
    char *buf;   /* destination, not owned */
    size_t cap;  /* bytes in buf */
    size_t len;  /* bytes written so far (clipped to cap - 1) */
} sbuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->cap == 0 || b->len + 1 >= b->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    b->len += (size_t)w;
    if (b->len >= b->cap) b->len = b->cap - 1;
}

/* A number with up to `dec` decimals, trailing zeros dropped, grouped: 4.80 -> "4.8". */
static void fmt_num(char *buf, size_t n, double v, int dec) {
    tc_fmt_grouped(buf, n, v, dec);
    if (strchr(buf, '.')) {
        size_t len = strlen(buf);
        while (len > 0 && buf[len - 1] == '0') buf[--len] = '\0';
        if (len > 0 && buf[len - 1] == '.') buf[--len] = '\0';
    }
}

/* Monthly and total sums: whole dollars; prices: cents. */
static void money0(char *buf, size_t n, double v) { tc_fmt_money(buf, n, v, 0); }
static void money2(char *buf, size_t n, double v) { tc_fmt_money(buf, n, v, 2); }

/* "at least " / "at most " before a bounded figure, "" for an exact one. */
static const char *bound_words(tc_cost_bound b) {
    return b == TC_COST_LOWER ? "at least " : b == TC_COST_UPPER ? "at most " : "";
}

/* The headline's clause about the fabric what-if. */
static void headline_what_if(sbuf *b, const tc_cost_what_if *w) {
    char a[64], c[64], d[64], l[64];
    fmt_num(a, sizeof a, w->target_GBps, 1);
    fmt_num(l, sizeof l, w->target_latency_us, 1);
    if (w->target_GBps > 0 && w->has_target_latency) sb_printf(b, "; a %s GB/s fabric with %s µs per collective", a, l);
    else if (w->target_GBps > 0) sb_printf(b, "; a %s GB/s fabric", a);
    else sb_printf(b, "; a fabric with %s µs per collective", l);
    if (w->monthly_value_recovered > 0) {
        money0(c, sizeof c, w->monthly_value_recovered);
        sb_printf(b, " would recover %s%s a month", bound_words(w->value_bound), c);
        if (w->has_payback) {
            money0(d, sizeof d, w->upgrade_cost);
            sb_printf(b, " and pay back its %s in %.1f months", d, w->payback_months);
        }
    } else if (w->monthly_value_recovered < 0) {
        money0(c, sizeof c, -w->monthly_value_recovered);
        sb_printf(b, " would lose %s%s a month (a slower step)", bound_words(w->value_bound), c);
    } else {
        sb_printf(b, " would recover nothing");
    }
}

const char *tc_cost_reference_text(char *buf, size_t n, const tc_cost_result *r) {
    if (!r->has_reference) snprintf(buf, n, "against an infinitely fast network");
    else if (!strcmp(r->reference, "instant")) snprintf(buf, n, "against a network that moves bytes instantly");
    else snprintf(buf, n, "against %s", r->reference);
    return buf;
}


/* "LABEL $X": one class's money with its bound; the inter-node network's rule when it is not
 * measured. */
static void loss_clause(sbuf *b, const tc_cost_result *r, int c) {
    char m[64];
    const tc_cost_loss *l = &r->loss[c];
    money0(m, sizeof m, l->per_month);
    sb_printf(b, "%s %s%s", loss_labels[c], bound_words(l->bound), m);
    if (c == TC_COST_LOSS_INTER_NODE && r->inter_rule != TC_COST_INTER_MEASURED && r->inter_rule != TC_COST_INTER_GIVEN)
        sb_printf(b, " (%s)", tc_cost_inter_rule_text(r));
}

/* The known classes not in the lead, most money first, as "A $x, B $y". */
static void other_losses(sbuf *b, const tc_cost_result *r, const bool in_lead[TC_COST_LOSS_COUNT]) {
    bool done[TC_COST_LOSS_COUNT];
    size_t k = 0;
    for (int c = 0; c < TC_COST_LOSS_COUNT; c++) done[c] = in_lead[c] || !r->loss[c].known;
    for (;;) {
        int best = -1;
        for (int c = 0; c < TC_COST_LOSS_COUNT; c++)
            if (!done[c] && (best < 0 || r->loss[c].per_month > r->loss[best].per_month)) best = c;
        if (best < 0) return;
        done[best] = true;
        sb_printf(b, "%s", k++ ? ", " : "");
        loss_clause(b, r, best);
    }
}

/* The trace's losses, the verdict's first: "host idle and memory copies cost $X a month (host idle
 * $A, memory copies $B), at $P/GPU-hour if this job ran all month as profiled; the others: ...;
 * $T a month in all". */
static void headline_losses(sbuf *b, const tc_cost_result *r) {
    const tc_cost_inputs *u = &r->used;
    const tc_cost_loss *L = r->loss;
    bool in_lead[TC_COST_LOSS_COUNT] = {false};
    char a[64], c[64];
    int pair[2] = {-1, -1};
    if (r->lead == TC_COST_LEAD_HOST) {
        pair[0] = TC_COST_LOSS_IDLE; pair[1] = TC_COST_LOSS_MEMORY;
        sb_printf(b, "host idle and memory copies cost ");
    } else if (r->lead == TC_COST_LEAD_TRANSFER) {
        pair[0] = TC_COST_LOSS_INTER_NODE; pair[1] = TC_COST_LOSS_INTRA_NODE;
        sb_printf(b, "exposed transfer costs ");
    }
    money0(c, sizeof c, r->total_loss_per_month);
    if (pair[0] >= 0) {
        in_lead[pair[0]] = in_lead[pair[1]] = true;
        bool upper = L[pair[0]].bound == TC_COST_UPPER || L[pair[1]].bound == TC_COST_UPPER;
        money0(a, sizeof a, L[pair[0]].per_month + L[pair[1]].per_month);
        sb_printf(b, "%s%s a month (", bound_words(upper ? TC_COST_UPPER : TC_COST_EXACT), a);
        loss_clause(b, r, pair[0]);
        if (L[pair[1]].known) {
            sb_printf(b, ", ");
            loss_clause(b, r, pair[1]);
        }
        sb_printf(b, ")");
    } else if (r->lead == TC_COST_LEAD_STRAGGLER && L[TC_COST_LOSS_STRAGGLER].known) {
        in_lead[TC_COST_LOSS_STRAGGLER] = true;
        money0(a, sizeof a, L[TC_COST_LOSS_STRAGGLER].per_month);
        sb_printf(b, "waiting for a straggler costs %s%s a month", bound_words(L[TC_COST_LOSS_STRAGGLER].bound), a);
    } else {
        sb_printf(b, "the losses cost %s a month in all (", c);
        other_losses(b, r, in_lead);
        sb_printf(b, ")");
        for (int k = 0; k < TC_COST_LOSS_COUNT; k++) in_lead[k] = true;
    }
    money2(a, sizeof a, u->price_per_gpu_hour.value);
    sb_printf(b, ", at %s/GPU-hour if this job ran ", a);
    if (u->utilization.value >= 1) sb_printf(b, "all month");
    else sb_printf(b, "%s of the month", tc_fmt_pct(a, sizeof a, u->utilization.value, 0));
    sb_printf(b, " as profiled");
    bool others = false;
    for (int k = 0; k < TC_COST_LOSS_COUNT; k++) others = others || (!in_lead[k] && L[k].known);
    if (others) {
        sb_printf(b, "; the others: ");
        other_losses(b, r, in_lead);
        sb_printf(b, "; %s a month in all", c);
    }
}

size_t tc_cost_losses_text(char *buf, size_t n, const tc_cost_result *r) {
    sbuf b = {buf, n, 0};
    if (n > 0) buf[0] = '\0';
    if (r->lead != TC_COST_LEAD_NONE) headline_losses(&b, r);
    return b.len;
}

size_t tc_cost_headline(char *buf, size_t n, const tc_cost_result *r) {
    sbuf b = {buf, n, 0};
    if (n > 0) buf[0] = '\0';
    const tc_cost_inputs *u = &r->used;
    bool lower = r->efficiency_bound == TC_COST_LOWER;
    char a[64], c[64];
    double N = u->gpus.value;
    char basis[BASIS_TEXT];
    if (r->partial) sb_printf(&b, "on partial data: %s; ", basis_words(basis, sizeof basis, r));
    if (r->lead != TC_COST_LEAD_NONE) {
        headline_losses(&b, r);
        sb_printf(&b, "; ");
    }
    char ref[96];
    fmt_num(a, sizeof a, N, 0);
    fmt_num(c, sizeof c, r->effective_gpus, 1);
    sb_printf(&b, "your %s GPU%s %s the work of %s%s %s", a, N == 1 ? "" : "s", N == 1 ? "does" : "do",
              bound_words(lower ? TC_COST_LOWER : TC_COST_EXACT), c, tc_cost_reference_text(ref, sizeof ref, r));
    if (r->lead == TC_COST_LEAD_NONE) {
        money2(a, sizeof a, u->price_per_gpu_hour.value);
        money0(c, sizeof c, r->network_loss_per_month);
        sb_printf(&b, "; at %s/GPU-hour, if they ran ", a);
        if (u->utilization.value >= 1) sb_printf(&b, "all month");
        else sb_printf(&b, "%s of the month", tc_fmt_pct(a, sizeof a, u->utilization.value, 0));
        sb_printf(&b, " at this efficiency, the network would cost you %s%s a month%s",
                  bound_words(lower ? TC_COST_UPPER : TC_COST_EXACT), c, lower ? " (an upper bound)" : "");
    }
    if (r->has_own) {
        if (r->has_breakeven)
            sb_printf(&b, "; owning pays back in %.1f months against renting", r->breakeven_months);
        else
            sb_printf(&b, "; owning never pays back against renting (running it costs more than "
                          "the rent)");
        money0(a, sizeof a, r->tco_own);
        money0(c, sizeof c, r->tco_rent);
        sb_printf(&b, "; over %.0f months owning costs %s and renting %s", u->months.value, a, c);
    }
    if (r->has_what_if) headline_what_if(&b, &r->what_if);
    sb_printf(&b, ".");
    return b.len;
}

/* Styles for the table; empty strings without color. */
typedef struct style {
    const char *bold; /* section titles and headline */
    const char *dim;  /* formulas */
    const char *off;  /* reset */
    int width;        /* columns every line fits in */
} style;

/* One result row: label, right-aligned value, formula; a formula too long for the rest of the line
 * goes on the next, under the formulas' column. */
#define COST_LABEL 30
#define COST_VALUE 14
static void row(FILE *out, const style *st, const char *label, const char *value, const char *how) {
    int col = 2 + COST_LABEL + 1 + COST_VALUE + 2;
    fprintf(out, "  %-*.*s %*s%s", COST_LABEL, COST_LABEL, label, COST_VALUE, value, st->dim);
    if ((int)tc_fmt_width(how) > st->width - col) { fprintf(out, "\n%*s", 8, ""); col = 8; }
    else fputs("  ", out);
    tc_term_wrap_from(out, how, col, 8, st->width);
    fputs(st->off, out);
}

static void section(FILE *out, const style *st, const char *title) {
    fprintf(out, "\n%s%s%s\n", st->bold, title, st->off);
}

/* Prints an input value by kind: money with cents under $100, plain numbers otherwise. */
static void fmt_input(char *buf, size_t n, tc_cost_kind kind, const tc_cost_value *v) {
    if (!v->set) { snprintf(buf, n, "-"); return; }
    switch (kind) {
    case TC_COST_KIND_MONEY:
    case TC_COST_KIND_PRICE:
        if (fabs(v->value) < 100 && v->value != 0) money2(buf, n, v->value);
        else money0(buf, n, v->value);
        break;
    case TC_COST_KIND_GPUS:
    case TC_COST_KIND_MONTHS: fmt_num(buf, n, v->value, 0); break;
    default: fmt_num(buf, n, v->value, 4); break;
    }
}

/* A figure with "<= " or ">= " in front when it is a bound. Returns buf. */
static const char *bounded(char *buf, size_t n, const char *v, tc_cost_bound b) {
    snprintf(buf, n, "%s%s", b == TC_COST_LOWER ? ">= " : b == TC_COST_UPPER ? "<= " : "", v);
    return buf;
}

static void print_network(FILE *out, const style *st, const tc_cost_result *r) {
    static const char *const labels[TC_COST_LOSS_COUNT] = {"inter-node network per month", "intra-node comm per month",
                                                           "straggler wait per month", "host idle per month",
                                                           "memory copies per month"};
    static const char *const how[TC_COST_LOSS_COUNT] = {"N x P x H x u x t", "N x P x H x u x (s - t)",
                                                        "N x P x H x u x wait share", "N x P x H x u x idle share",
                                                        "N x P x H x u x exposed host-copy share"};
    char v[112], w[120], f[400];
    bool lower = r->efficiency_bound == TC_COST_LOWER;
    section(out, st, r->lead == TC_COST_LEAD_NONE ? "what the network costs, a month at this efficiency"
                                                  : "what each loss costs, a month as profiled");
    char ref[96];
    fmt_num(v, sizeof v, r->effective_gpus, 2);
    if (r->has_reference) snprintf(f, sizeof f, "N x T_ref / T, T_ref on %s", !strcmp(r->reference, "instant") ? "an instant network" : r->reference);
    else snprintf(f, sizeof f, "N x e, %s", tc_cost_reference_text(ref, sizeof ref, r));
    row(out, st, "effective GPUs", bounded(w, sizeof w, v, r->efficiency_bound), f);
    money2(v, sizeof v, r->effective_price_per_gpu_hour);
    row(out, st, "effective price per GPU-hour", bounded(w, sizeof w, v, r->effective_price_bound),
        r->has_reference ? "P x T / T_ref" : "P / e");
    for (int c = 0; c < TC_COST_LOSS_COUNT; c++) {
        const tc_cost_loss *l = &r->loss[c];
        money0(v, sizeof v, l->per_month);
        if (c == TC_COST_LOSS_INTER_NODE && r->inter_rule == TC_COST_INTER_GIVEN)
            snprintf(f, sizeof f, "N x P x H x u x (1 - e)");
        else if (c == TC_COST_LOSS_INTER_NODE && r->inter_rule == TC_COST_INTER_SCOPE_UNKNOWN)
            snprintf(f, sizeof f, "N x P x H x u x s: %s", tc_cost_inter_rule_text(r));
        else if (c == TC_COST_LOSS_INTER_NODE && r->inter_rule != TC_COST_INTER_MEASURED)
            snprintf(f, sizeof f, "t = 0: %s", tc_cost_inter_rule_text(r));
        else if (l->known || r->lead == TC_COST_LEAD_NONE) snprintf(f, sizeof f, "%s", l->known ? how[c] : "needs a trace");
        else snprintf(f, sizeof f, "%s", c == TC_COST_LOSS_STRAGGLER ? "needs a trace of 2+ ranks"
                                         : "in the inter-node network's figure (scopes unknown)");
        bool given = c == TC_COST_LOSS_INTER_NODE && r->inter_rule == TC_COST_INTER_GIVEN; /* e as given: "the network" */
        row(out, st, given ? "network loss per month" : labels[c], l->known ? bounded(w, sizeof w, v, l->bound) : "-", f);
    }
    money0(v, sizeof v, r->total_loss_per_month);
    row(out, st, "all losses per month", v, "the classes summed");
    if (lower) {
        fputs(st->dim, out);
        tc_term_wrap(out, "<= upper bound, >= lower bound: exposed transfer is an upper bound on this data", 2, 4, st->width);
        fputs(st->off, out);
    }
}

static void print_rent_own(FILE *out, const style *st, const tc_cost_result *r) {
    char v[112], w[120], title[128];
    snprintf(title, sizeof title, "rent or own, over %.0f months", r->used.months.value);
    section(out, st, title);
    money0(v, sizeof v, r->rent_monthly);
    row(out, st, "rent per month", v, "N x P x H x u");
    money0(v, sizeof v, r->tco_rent);
    row(out, st, "total cost of renting", v, "M x rent per month");
    money2(v, sizeof v, r->rent_cost_per_effective_gpu_hour);
    row(out, st, "rent per effective GPU-hour", bounded(w, sizeof w, v, r->rent_price_bound), "P / e_r");
    const char *need = "needs --purchase-per-gpu or --gpu";
    money0(v, sizeof v, r->own_capex);
    row(out, st, "own: capital cost", r->has_own ? v : "-", r->has_own ? "N x C + F" : need);
    money0(v, sizeof v, r->own_opex_monthly);
    row(out, st, "own: running cost per month", r->has_own ? v : "-",
        r->has_own ? "N x W x H x u x pue x E + O" : need);
    money0(v, sizeof v, r->tco_own);
    row(out, st, "total cost of owning", r->has_own ? v : "-",
        r->has_own ? "capital + M x running" : need);
    money2(v, sizeof v, r->own_cost_per_effective_gpu_hour);
    row(out, st, "own per effective GPU-hour", r->has_own ? bounded(w, sizeof w, v, r->own_price_bound) : "-",
        r->has_own ? (r->has_reference ? "total own / (N x H x u x M x T_ref / T)" : "total own / (N x H x u x M x e)") : need);
    if (r->has_breakeven) snprintf(v, sizeof v, "%.1f months", r->breakeven_months);
    row(out, st, "owning pays back after", r->has_breakeven ? v : (r->has_own ? "never" : "-"),
        r->has_own ? "capital / (rent - running)" : need);
}

/* The replayed what-if's rows: the projected step, each changed group's transfer. */
static void print_replay_rows(FILE *out, const style *st, const tc_cost_what_if *w) {
    char v[112], a[48], c[48], f[160], l[4 * COST_LABEL + 1];
    fmt_num(c, sizeof c, w->projected_step_time_us / 1000.0, 2);
    snprintf(v, sizeof v, "%s ms", c);
    row(out, st, "projected step time", v, "T': the step graph replayed on the target");
    for (size_t i = 0; i < w->n_groups; i++) {
        const tc_cost_what_if_group *g = &w->groups[i];
        fmt_num(a, sizeof a, g->transfer_us / 1000.0, 2);
        fmt_num(c, sizeof c, g->projected_transfer_us / 1000.0, 2);
        snprintf(v, sizeof v, "%s -> %s ms", a, c);
        snprintf(f, sizeof f, "alpha %.1f -> %.1f µs, beta %.1f -> %.1f GB/s", g->alpha_us, g->projected_alpha_us,
                 g->beta_GBps, g->projected_beta_GBps);
        char label[96];
        snprintf(label, sizeof label, "%s transfer", g->name);
        row(out, st, tc_term_clean(l, sizeof l, label, COST_LABEL), v, f);
    }
}

/* The scaled what-if's rows: the inter-node share, the exposed share, the projected step. */
static void print_scaled_rows(FILE *out, const style *st, const tc_cost_result *r) {
    const tc_cost_what_if *w = &r->what_if;
    const double s = 1 - r->used.network_efficiency.value;
    char v[112], a[48], c[40], p0[TC_PCT_LEN], p1[TC_PCT_LEN];
    /* e a lower bound (partial data): the transfer shares it gives are upper bounds */
    tc_cost_bound sb = r->efficiency_bound == TC_COST_LOWER ? TC_COST_UPPER : TC_COST_EXACT;
    bool t = w->inter_node_only; /* t: the inter-node groups' share, the part that scales */
    if (t) {
        row(out, st, "inter-node exposed transfer", bounded(v, sizeof v, TC_PCT1(p0, w->scaled_transfer_share), sb),
            "t: only this scales");
    }
    char b0[TC_PCT_LEN + 4], b1[TC_PCT_LEN + 4];
    snprintf(v, sizeof v, "%s -> %s", bounded(b0, sizeof b0, TC_PCT1(p0, s), sb),
             bounded(b1, sizeof b1, TC_PCT1(p1, w->projected_exposed_transfer_share), sb));
    row(out, st, "exposed transfer share", v, t ? "(s - t + t x B / B') / new step" : "transfer time x B / B'");
    if (w->has_step_time) {
        fmt_num(c, sizeof c, w->projected_step_time_us / 1000.0, 2);
        snprintf(a, sizeof a, "%s ms", c);
    }
    row(out, st, "projected step time", w->has_step_time ? a : "-",
        !w->has_step_time ? "needs a trace" : t ? "step x (1 - t + t x B / B')" : "step x (1 - s + s x B / B')");
}

static void print_what_if(FILE *out, const style *st, const tc_cost_result *r) {
    const tc_cost_what_if *w = &r->what_if;
    const bool replay = w->method == TC_WHAT_IF_REPLAY;
    char v[112], a[48], c[40], l[40], title[192];
    fmt_num(a, sizeof a, w->fabric_GBps, 1);
    fmt_num(c, sizeof c, w->target_GBps, 1);
    fmt_num(l, sizeof l, w->target_latency_us, 1);
    int o = snprintf(title, sizeof title, "fabric what-if%s", replay ? " (replayed)" : w->inter_node_only ? " (inter-node groups)" : "");
    if (w->target_GBps > 0)
        o += snprintf(title + o, sizeof title - (size_t)o, ": %s -> %s GB/s", w->fabric_GBps > 0 ? a : "?", c);
    if (w->has_target_latency) snprintf(title + o, sizeof title - (size_t)o, "%s %s µs per collective", w->target_GBps > 0 ? "," : ":", l);
    section(out, st, title);
    if (replay) print_replay_rows(out, st, w);
    else print_scaled_rows(out, st, r);
    fmt_num(a, sizeof a, r->effective_gpus, 2);
    fmt_num(c, sizeof c, w->projected_effective_gpus, 2);
    snprintf(v, sizeof v, "%s -> %s", a, c);
    bool t = w->inter_node_only;
    row(out, st, "effective GPUs", v, replay ? "N x T_ref / T'" : t ? "N x (1 - s) / (1 - t + t x B / B')"
                                                                : "N x (1 - s) / (1 - s + s x B / B')");
    char vb[120];
    money0(v, sizeof v, w->monthly_value_recovered);
    snprintf(vb, sizeof vb, "%s%s", w->value_bound == TC_COST_LOWER ? (w->monthly_value_recovered < 0 ? "<= " : ">= ") : "", v);
    row(out, st, "value recovered per month", vb, replay ? "N x P x H x u x (1 - T' / T)" : "N x P x H x u x (1 - new step / step)");
    money0(v, sizeof v, w->upgrade_cost);
    row(out, st, "upgrade cost", w->has_upgrade_cost ? v : "-",
        w->has_upgrade_cost ? "--fabric-upgrade-cost" : "needs --fabric-upgrade-cost");
    if (w->has_payback) snprintf(v, sizeof v, "%.1f months", w->payback_months);
    row(out, st, "upgrade pays back after",
        w->has_payback ? v : (w->has_upgrade_cost ? "never" : "-"), "X / value recovered");
}

/* One input row: flag, value, unit, and where the value came from (wrapped under
 * itself when long). */
static void input_row(FILE *out, const style *st, const char *flag, const char *value, const char *unit,
                      const char *origin) {
    char v[4 * 10 + 1], un[4 * 10 + 1];
    fprintf(out, "  --%-24s %s %s %s", flag, tc_term_cell(v, sizeof v, value, 10), tc_term_cell(un, sizeof un, unit, -10),
            st->dim);
    tc_term_wrap_from(out, origin, 51, 51, st->width);
    fputs(st->off, out);
}

/* Every input as a flag with its value, unit and origin, then the letters of the formulas. */
static void print_inputs(FILE *out, const style *st, const tc_cost_inputs *u, bool replayed) {
    char v[112], letters[TC_COST_INPUT_COUNT][48];
    const char *items[TC_COST_INPUT_COUNT + 6];
    size_t n = 0;
    section(out, st, "inputs");
    items[n++] = "letters: H = 730 hours a month";
    for (int id = 0; id < TC_COST_INPUT_COUNT; id++) {
        const tc_cost_input_desc *d = tc_cost_input((tc_cost_input_id)id);
        const tc_cost_value *cv = tc_cost_inputs_cvalue(u, (tc_cost_input_id)id);
        fmt_input(v, sizeof v, d->kind, cv);
        input_row(out, st, d->name, v, d->unit, cv->set ? cv->origin : "unset");
        snprintf(letters[id], sizeof letters[id], "%s = --%s", d->letter, d->name);
        items[n++] = letters[id];
    }
    input_row(out, st, "gpu", u->gpu ? u->gpu->id : "-", "", u->gpu ? u->gpu_origin : "unset");
    items[n++] = "s = 1 - e (the exposed transfer share)";
    items[n++] = "t = the inter-node groups' part of s (the inter-node network's)";
    if (replayed) {
        items[n++] = "e' = e after the upgrade";
        items[n++] = "T = the step graph replayed, T' = replayed on the what-if's target, T_ref = on the reference; "
                     "precedence: flag > config > trace > catalog > default";
    } else items[n++] = "e' = e after the upgrade; precedence: flag > config > trace > catalog > default";
    fputs(st->dim, out);
    tc_term_join(out, items, n, ", ", 2, 4, st->width);
    fputs(st->off, out);
}

void tc_cost_result_print(FILE *out, const tc_cost_result *r, const tc_term_opts *o) {
    const style st = {o->color ? "\033[1m" : "", o->color ? "\033[2m" : "", o->color ? "\033[0m" : "", o->width};
    char head[1200];
    tc_cost_headline(head, sizeof head, r);
    fputs(st.bold, out);
    tc_term_wrap(out, head, 0, 2, st.width);
    fputs(st.off, out);
    print_network(out, &st, r);
    print_rent_own(out, &st, r);
    if (r->has_what_if) print_what_if(out, &st, r);
    print_inputs(out, &st, &r->used, r->has_reference || (r->has_what_if && r->what_if.method == TC_WHAT_IF_REPLAY));
    if (r->n_notes > 0) {
        section(out, &st, "notes");
        for (size_t i = 0; i < r->n_notes; i++) {
            char line[240];
            snprintf(line, sizeof line, "- %s", r->notes[i]);
            tc_term_wrap(out, line, 2, 4, st.width);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* A job's cost (model/cost_result.h tc_job_cost)                                               */

const char *tc_cost_missing_text(char *buf, size_t n, const tc_job_cost *c) {
    if (c->computed || c->missing == TC_COST_UNPRICED) snprintf(buf, n, "%s", "");
    else if (c->missing == TC_COST_LEFT_OUT) snprintf(buf, n, "no cost section: --no-cost was given");
    else if (c->missing == TC_COST_TOO_SMALL)
        snprintf(buf, n, "no cost section: the job is too small to judge (see the verdict), so no loss is priced");
    else snprintf(buf, n, "no cost section: %s", c->why); /* the model's reason names what to pass, once */
    return buf;
}

void tc_job_cost_print(FILE *out, const tc_job_cost *c, const tc_term_opts *o) {
    if (!c->computed && c->missing != TC_COST_NO_MODEL && c->missing != TC_COST_TOO_SMALL) return;
    fputs("\n", out);
    if (c->computed) { tc_cost_result_print(out, &c->result, o); return; }
    char note[TC_COST_NOTE_TEXT], line[TC_COST_NOTE_TEXT + 8];
    snprintf(line, sizeof line, "Cost: %s", tc_cost_missing_text(note, sizeof note, c));
    tc_term_wrap(out, line, 0, 2, o->width);
}

void tc_job_cost_json(jw *w, const tc_job_cost *c) {
    jw_key(w, "cost");
    if (c->computed) tc_cost_result_json(w, &c->result); else jw_null(w);
    if (!c->computed && c->missing == TC_COST_UNPRICED) return;
    jw_key(w, "cost_notes");
    if (c->computed) { tc_cost_notes_json(w, &c->result); return; }
    char note[TC_COST_NOTE_TEXT];
    jw_array_begin(w);
    jw_string(w, tc_cost_missing_text(note, sizeof note, c));
    jw_array_end(w);
}
