/* html_report.c: the self-contained HTML verdict report (see html_report.h and docs/html-report.md):
 * the page, written top to bottom by one function per section. Here: the header, the verdict, the
 * key numbers, the cost section and the definitions; the tables, charts and timeline are
 * html_tables.c, html_charts.c and html_timeline.c (html_page.h), the frame and escaper html_kit.c.
 * Safety: every string that comes from a trace (kernel, stream, path, warning, collective and
 * group names, device names) goes through tc_html_escape; no trace string is ever written inside
 * a <script>; the one script is generic (tooltips from data-tip attributes, table sorting) and a
 * Content-Security-Policy allows only it (by nonce) and nothing from the network. */
#include "html_report.h"
#include "html_page.h"
#include "cost_report.h"
#include "findings_text.h"
#include "textfmt.h"
#include "host_wait_report.h"
#include "replay_report.h"
#include "base/version.h"
#include <string.h>

/* ------------------------------------------------------------------ verdict and key numbers */
static const char *verdict_class(tc_verdict v) {
    switch (v) {
    case TC_VERDICT_COMPUTE: return "v-compute";
    case TC_VERDICT_NETWORK: return "v-network";
    case TC_VERDICT_STRAGGLER: return "v-straggler";
    case TC_VERDICT_HOST: return "v-host";
    case TC_VERDICT_TOO_SMALL: return "v-none v-small"; /* styled as no verdict */
    default: return "v-none";
    }
}

static const char *verdict_title(tc_verdict v) {
    switch (v) {
    case TC_VERDICT_COMPUTE: return "Compute-bound";
    case TC_VERDICT_NETWORK: return "Network-bound";
    case TC_VERDICT_STRAGGLER: return "Straggler-bound";
    case TC_VERDICT_HOST: return "Host-bound";
    case TC_VERDICT_TOO_SMALL: return "Too small to judge";
    default: return "No verdict";
    }
}

static size_t max_steps(const tc_job *j) {
    size_t s = 0;
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].n_steps > s) s = j->ranks[r].n_steps;
    return s;
}

/* How the nodes were decided, and the note when the evidence lacked or disagreed. */
static void nodes_line(hr *h) {
    const tc_summary *sm = &h->j->summary;
    char text[TC_FINDING_TEXT];
    put(h, "<p id=\"nodes\" class=\"figures\">Nodes: ");
    esc(h, tc_nodes_rule_text(text, sizeof text, sm));
    put(h, ".</p>\n");
    if (!tc_nodes_note_text(text, sizeof text, sm)[0]) return;
    put(h, "<p id=\"nodes-note\" class=\"note\">");
    esc(h, text);
    put(h, ".</p>\n");
}

static void section_verdict(hr *h) {
    const tc_summary *sm = &h->j->summary;
    const tc_findings *f = &h->j->findings;
    char a[40], reason[TC_FINDING_TEXT], pb[4][TC_PCT_LEN]; /* pb: shares in their one form */
    pf(h, "<section id=\"verdict\" class=\"verdict %s\" data-verdict=\"%s\">\n", verdict_class(sm->verdict),
       tc_verdict_name(sm->verdict));
    put(h, "<p class=\"kicker\">Verdict</p>\n<h1 id=\"verdict-title\">");
    put(h, verdict_title(sm->verdict));
    if (sm->partial) {
        char basis[TC_FINDING_TEXT];
        put(h, " <span id=\"verdict-basis\" class=\"warn\">(on partial data: ");
        esc(h, tc_basis_summary_text(basis, sizeof basis, sm));
        put(h, ")</span>");
    }
    put(h, "</h1>\n<p class=\"why\">");
    if (f->n_reasons) { esc(h, tc_reason_text(reason, sizeof reason, &f->reasons[0], h->j)); put(h, "."); }
    else if (sm->ranks == 0) put(h, "No rank had GPU activity to analyze.");
    put(h, "</p>\n");
    if (sm->ranks) {
        char r[40];
        pf(h, "<p class=\"figures\">Of <span data-tip=\"%s ms\">%s ms</span> summed GPU time over %zu rank%s: compute %s",
           tc_html_ms_exact(a, sizeof a, sm->b.window_ns), tc_html_ms_round(r, sizeof r, sm->b.window_ns), sm->ranks, sm->ranks == 1 ? "" : "s",
           TC_HTML_PCT1(pb[0], sm->share_compute));
        if (sm->split_known)
            pf(h, " &middot; exposed transfer %s &middot; exposed wait %s", TC_HTML_PCT1(pb[0], sm->share_exposed_transfer),
               TC_HTML_PCT1(pb[1], sm->share_exposed_wait));
        else pf(h, " &middot; exposed comm %s (not split: one rank)", TC_HTML_PCT1(pb[0], sm->share_exposed_comm));
        pf(h, " &middot; exposed memory %s", TC_HTML_PCT1(pb[0], sm->share_memory_exposed));
        if (sm->share_memory_device_exposed >= TC_SHOWN_SHARE)
            pf(h, " (host copies %s, device copies %s)", TC_HTML_PCT1(pb[0], sm->share_memory_host_exposed),
               TC_HTML_PCT1(pb[1], sm->share_memory_device_exposed));
        pf(h, " &middot; idle %s.</p>\n", TC_HTML_PCT1(pb[0], sm->share_idle));
        const tc_window_figures *w = &sm->step; /* which window the verdict and the money judge */
        if (w->has)
            pf(h, "<p class=\"figures\" id=\"step-window\">Of %s ms summed step window (the ProfilerStep spans with their "
               "GPU windows; the verdict and the money use it): compute %s &middot; exposed comm %s &middot; "
               "exposed memory %s &middot; idle %s (%s ms before the first GPU event).</p>\n",
               tc_html_ms_round(r, sizeof r, w->b.window_ns), TC_HTML_PCT1(pb[0], w->compute), TC_HTML_PCT1(pb[1], w->exposed_comm),
               TC_HTML_PCT1(pb[2], w->memory_exposed), TC_HTML_PCT1(pb[3], w->idle), tc_html_ms_round(a, sizeof a, w->before_first_kernel_ns));
        else put(h, "<p class=\"figures\" id=\"step-window\">No ProfilerStep: the verdict and the money use the GPU "
                 "window.</p>\n");
    }
    if (f->n_reasons > 1) {
        put(h, "<ul>\n");
        for (size_t i = 1; i < f->n_reasons; i++) {
            put(h, "<li>");
            esc(h, tc_reason_text(reason, sizeof reason, &f->reasons[i], h->j));
            put(h, "</li>\n");
        }
        put(h, "</ul>\n");
    }
    if (sm->n_basis_reasons) {
        put(h, "<ul id=\"basis\" class=\"warn\">\n");
        for (size_t i = 0; i < sm->n_basis_reasons; i++) {
            put(h, "<li>partial data: ");
            esc(h, tc_basis_reason_text(reason, sizeof reason, &sm->basis_reasons[i]));
            put(h, "</li>\n");
        }
        put(h, "</ul>\n");
    }
    nodes_line(h);
    put(h, "</section>\n");
}

static void card(hr *h, const char *id, const char *k, const char *v, const char *d, const char *tip) {
    pf(h, "<div class=\"card\" id=\"%s\"", id);
    if (tip) { put(h, " data-tip=\""); esc(h, tip); put(h, "\""); }
    pf(h, "><div class=\"k\">%s</div><div class=\"v\">", k);
    esc(h, v);
    put(h, "</div><div class=\"d\">");
    esc(h, d);
    put(h, "</div></div>\n");
}

static void section_key_numbers(hr *h) {
    const tc_summary *sm = &h->j->summary;
    const tc_cost_result *c = h->j->cost.computed ? &h->j->cost.result : NULL;
    char v[96], d[256], t[256], a[40];
    put(h, "<section id=\"key-numbers\">\n<h2>Key numbers</h2>\n<div class=\"cards\">\n");
    if (sm->has_step_time) {
        snprintf(v, sizeof v, "%.3f ms", (double)sm->step_time_ns / 1e6);
        snprintf(d, sizeof d, "mean ProfilerStep duration, averaged over ranks");
        snprintf(t, sizeof t, "step time %s ms", tc_html_ms_exact(a, sizeof a, sm->step_time_ns));
        card(h, "kn-step", "Step time", v, d, t);
    } else card(h, "kn-step", "Step time", "n/a", "no ProfilerStep spans in the traces", NULL);
    if (sm->has_mfu) {
        TC_PCT1(v, sm->mfu); /* card() escapes it */
        char pm[TC_PCT_LEN];
        snprintf(t, sizeof t, "MFU %s", tc_fmt_pct(pm, sizeof pm, sm->mfu, 4));
        card(h, "kn-mfu", "MFU", v, "model FLOPs per second / the GPU's dense peak", t);
    } else if (sm->mfu_over_peak)
        card(h, "kn-mfu", "MFU", "n/a", "the FLOPs per step exceed the GPU's peak over the step time (an MFU above "
             "100% is not a result): check the FLOP flags", sm->mfu_note);
    else
        card(h, "kn-mfu", "MFU", "n/a",
             "needs FLOP counts (traces recorded with record_shapes) and a known GPU peak", NULL);
    if (sm->has_ratio) {
        snprintf(v, sizeof v, "%.3f", sm->comm_compute_ratio);
        snprintf(t, sizeof t, "comm/compute %.6f", sm->comm_compute_ratio);
        card(h, "kn-ratio", "Comm / compute", v, "time in collectives / time in compute kernels (unions)", t);
    } else card(h, "kn-ratio", "Comm / compute", "n/a", "no compute kernels", NULL);
    bool lower = c && c->efficiency_bound == TC_COST_LOWER; /* partial data: e is a lower bound */
    if (c) {
        snprintf(v, sizeof v, "%s%.2f of %.0f", lower ? "at least " : "", c->effective_gpus, c->used.gpus.value);
        char ref[96], pe[TC_PCT_LEN];
        tc_cost_reference_text(ref, sizeof ref, c);
        if (c->has_reference)
            snprintf(d, sizeof d, "GPUs' worth of work %s: N x T_ref / T, the step replayed on it over the step replayed (%s%s)",
                     ref, lower ? "at least " : "", TC_PCT1(pe, c->reference_efficiency));
        else
            snprintf(d, sizeof d, "GPUs' worth of work %s: N x network efficiency (%s%s)", ref, lower ? "at least " : "",
                     TC_PCT1(pe, c->used.network_efficiency.value));
        snprintf(t, sizeof t, "effective GPUs %.6f", c->effective_gpus);
        card(h, "kn-effective", "Effective GPUs", v, d, t);
    } else if (sm->ranks && sm->verdict != TC_VERDICT_TOO_SMALL) {
        const tc_findings *f = &h->j->findings; /* network efficiency e and ranks x e */
        snprintf(v, sizeof v, "%s%.2f of %zu", sm->transfer_upper_bound ? "at least " : "", f->effective_gpus, sm->ranks);
        char pe[TC_PCT_LEN];
        snprintf(d, sizeof d, "against an infinitely fast network: ranks x (1 - exposed %s share %s%s)",
                 sm->split_known ? "transfer" : "comm", sm->transfer_upper_bound ? "at most " : "",
                 TC_PCT1(pe, 1 - f->network_efficiency));
        snprintf(t, sizeof t, "effective GPUs %.6f", f->effective_gpus);
        card(h, "kn-effective", "Effective GPUs", v, d, t);
    } else card(h, "kn-effective", "Effective GPUs", "n/a", sm->ranks ? "too small to judge: no efficiency is claimed" : "no ranks",
                NULL);
    if (c) {
        char losses[1024], tip[256], m[48];
        tc_html_money(v, sizeof v, c->total_loss_per_month);
        tc_cost_losses_text(losses, sizeof losses, c);
        size_t o = (size_t)snprintf(tip, sizeof tip, "per month:");
        for (int k = 0; k < TC_COST_LOSS_COUNT && o < sizeof tip; k++)
            if (c->loss[k].known)
                o += (size_t)snprintf(tip + o, sizeof tip - o, "%s %s %s", k ? " +" : "", tc_cost_loss_label(k),
                                      tc_html_money(m, sizeof m, c->loss[k].per_month));
        if (o < sizeof tip) snprintf(tip + o, sizeof tip - o, " = %s", v);
        card(h, "kn-money", "Money lost / month", v, losses, tip);
    } else {
        char note[TC_COST_NOTE_TEXT];
        const char *why = h->j->cost.missing != TC_COST_UNPRICED ? tc_cost_missing_text(note, sizeof note, &h->j->cost)
                                                                 : "no cost inputs: pass --price-per-gpu-hour (and --gpus) to price the losses";
        card(h, "kn-money", "Money lost / month", "n/a", why, NULL);
    }
    put(h, "</div>\n</section>\n");
}

static void section_ranks(hr *h) {
    put(h, "<section id=\"ranks\">\n<h2>Where each rank's GPU time went</h2>\n");
    if (!h->j->n_ranks) { put(h, "<p class=\"note\">No rank had GPU activity.</p>\n</section>\n"); return; }
    tc_html_rank_bars(h);
    tc_html_rank_table(h);
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ cost */
/* One row of the cost table; a bounded value (partial data, decided in analyzer/cost.c) carries
 * "<= " or ">= " in front of it, as in the text. */
static void cost_row(hr *h, const char *label, bool known, double v, bool is_money, const char *unit, const char *how,
                     tc_cost_bound b) {
    char m[TC_ATTR_LEN], a[TC_ATTR_LEN];
    const char *mark = !known ? "" : b == TC_COST_UPPER ? "&lt;= " : b == TC_COST_LOWER ? "&gt;= " : "";
    pf(h, "<tr><td>%s</td><td class=\"n\"", label);
    if (!known) put(h, ">n/a");
    else if (is_money) pf(h, " data-tip=\"%.6f\">%s%s", v, mark, tc_html_money(m, sizeof m, v));
    else pf(h, " data-tip=\"%s\">%s%s", tc_fmt_attr(a, sizeof a, v, 9), mark, tc_fmt_num(m, sizeof m, v, 2));
    pf(h, "%s%s</td><td class=\"note\">%s</td></tr>\n", known && unit ? " " : "", known && unit ? unit : "", how);
}

/* "HOW; an upper bound on this data" (or lower) for a bounded figure, HOW alone otherwise. Returns buf. */
static const char *bound_how(char *buf, size_t n, const char *how, tc_cost_bound b) {
    snprintf(buf, n, "%s%s", how, b == TC_COST_UPPER ? "; an upper bound on this data"
                                  : b == TC_COST_LOWER ? "; a lower bound on this data" : "");
    return buf;
}

/* The what-if by replay: the target, the replayed step, the changed groups, the money. */
static void html_replay_what_if(hr *h, const tc_cost_result *c) {
    const tc_cost_what_if *w = &c->what_if;
    char a[64], b[64], ref[96];
    put(h, "<p id=\"what-if\">Replayed on a fabric between nodes of ");
    if (w->target_GBps > 0) pf(h, "%.1f GB/s", w->target_GBps);
    if (w->target_GBps > 0 && w->has_target_latency) put(h, " and ");
    if (w->has_target_latency) pf(h, "%.1f &micro;s per collective", w->target_latency_us);
    pf(h, " (the inter-node groups' &beta; scaled by B' / %.1f GB/s, their share of the rated link kept; the groups within a "
          "node keep theirs), the job's step graph takes %.3f ms a step (T', against %.3f ms replayed as measured)",
       w->fabric_GBps, w->projected_step_time_us / 1e3, w->projected_step_time_us / w->step_ratio / 1e3);
    pf(h, ", the GPUs do the work of %.2f ", w->projected_effective_gpus);
    esc(h, tc_cost_reference_text(ref, sizeof ref, c));
    put(h, ", and ");
    const char *at_least = w->value_bound == TC_COST_LOWER ? "at least " : "";
    if (w->monthly_value_recovered >= 0) pf(h, "%s%s a month is recovered (N x P x 730 h x u x (1 - T' / T))", at_least,
                                           tc_html_money(a, sizeof a, w->monthly_value_recovered));
    else pf(h, "%s%s a month is lost (a slower step)", at_least, tc_html_money(a, sizeof a, -w->monthly_value_recovered));
    if (w->value_bound == TC_COST_LOWER)
        put(h, " (a bound: collectives the replay could not match keep their measured time)");
    if (w->has_upgrade_cost) {
        pf(h, "; the upgrade costs %s", tc_html_money(b, sizeof b, w->upgrade_cost));
        if (w->has_payback) pf(h, " and pays back in %.1f months", w->payback_months);
        else put(h, " and never pays back");
    }
    put(h, ".</p>\n");
    if (!w->n_groups) return;
    put(h, "<table id=\"what-if-groups\"><thead><tr><th>group</th><th class=\"n\">&alpha; &micro;s</th><th class=\"n\">&beta; GB/s</th>"
           "<th class=\"n\">transfer ms</th><th class=\"n\">projected ms</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < w->n_groups; i++) {
        const tc_cost_what_if_group *g = &w->groups[i];
        put(h, "<tr><td>");
        esc(h, g->name);
        pf(h, "</td><td class=\"n\">%.1f &rarr; %.1f</td><td class=\"n\">%.1f &rarr; %.1f</td><td class=\"n\">%.3f</td>"
              "<td class=\"n\">%.3f</td></tr>\n", g->alpha_us, g->projected_alpha_us, g->beta_GBps, g->projected_beta_GBps,
           g->transfer_us / 1e3, g->projected_transfer_us / 1e3);
    }
    put(h, "</tbody></table>\n");
}

/* The what-if by scaling (no step graph): the exposed transfer scaled by B / B'. */
static void html_scaled_what_if(hr *h, const tc_cost_result *c) {
    char a[64], b[64], p0[TC_PCT_LEN], p1[TC_PCT_LEN];
    const tc_cost_what_if *w = &c->what_if;
    const char *most = c->efficiency_bound == TC_COST_LOWER ? "at most " : ""; /* partial data: e a lower bound */
    if (w->inter_node_only)
        pf(h, "<p id=\"what-if\">With a fabric of %.1f GB/s bus bandwidth between nodes instead of the measured %.1f GB/s, "
              "only the inter-node process groups' exposed transfer time shrinks (%s%s of GPU time, scaled by %.1f / "
              "%.1f; the groups within a node keep theirs): the exposed transfer share becomes %s%s", w->target_GBps,
           w->fabric_GBps, most, tc_html_pct(p0, sizeof p0, w->scaled_transfer_share, 2), w->fabric_GBps, w->target_GBps,
           most, tc_html_pct(p1, sizeof p1, w->projected_exposed_transfer_share, 2));
    else
        pf(h, "<p id=\"what-if\">With a fabric of %.1f GB/s bus bandwidth instead of the measured %.1f GB/s, only exposed "
              "transfer time shrinks (scaled by %.1f / %.1f): its share becomes %s%s", w->target_GBps, w->fabric_GBps,
           w->fabric_GBps, w->target_GBps, most, tc_html_pct(p1, sizeof p1, w->projected_exposed_transfer_share, 2));
    if (w->has_step_time) pf(h, ", the step takes %.3f ms", w->projected_step_time_us / 1e3);
    pf(h, ", the GPUs do the work of %.2f, and %s a month is recovered", w->projected_effective_gpus,
       tc_html_money(a, sizeof a, w->monthly_value_recovered));
    if (w->has_upgrade_cost) {
        pf(h, "; the upgrade costs %s", tc_html_money(b, sizeof b, w->upgrade_cost));
        if (w->has_payback) pf(h, " and pays back in %.1f months", w->payback_months);
        else put(h, " and never pays back");
    }
    put(h, ".</p>\n");
}

static void section_cost(hr *h) {
    const tc_cost_result *c = h->j->cost.computed ? &h->j->cost.result : NULL;
    char note[TC_COST_NOTE_TEXT];
    put(h, "<section id=\"cost\">\n<h2>Cost: own vs rent</h2>\n");
    if (!c) {
        put(h, "<p class=\"note\" id=\"cost-missing\">");
        if (h->j->cost.missing != TC_COST_UNPRICED) esc(h, tc_cost_missing_text(note, sizeof note, &h->j->cost));
        else put(h, "No cost inputs: pass --price-per-gpu-hour (rent, $ per GPU-hour) and optionally --gpus, "
                    "--purchase-per-gpu, --fabric-cost, --months, --fabric-target-GBps to price the losses, compare owning "
                    "with renting over 36 months and see what a faster fabric would recover.");
        put(h, "</p>\n</section>\n");
        return;
    }
    char head[1024];
    tc_cost_headline(head, sizeof head, c);
    put(h, "<p id=\"cost-headline\"><b>");
    esc(h, head);
    put(h, "</b></p>\n");
    pf(h, "<h3>Cumulative cost over %.0f months</h3>\n", c->used.months.value);
    if (!c->has_own) put(h, "<p class=\"note\">No purchase price (--purchase-per-gpu or --gpu with a catalog price): only renting is drawn.</p>\n");
    else if (!c->has_breakeven)
        put(h, "<p class=\"note\">No breakeven: owning costs more each month than renting, so it never pays back.</p>\n");
    else if (c->breakeven_months > c->used.months.value)
        pf(h, "<p class=\"note\">Breakeven at %.1f months, after the %.0f-month horizon.</p>\n", c->breakeven_months,
           c->used.months.value);
    tc_html_cost_chart(h, c);

    put(h, "<h3>Results</h3>\n<table id=\"cost-table\"><thead><tr><th>figure</th><th class=\"n\">value</th><th>how</th></tr></thead><tbody>\n");
    char why[400], eff[200], ref[96];
    tc_cost_reference_text(ref, sizeof ref, c);
    snprintf(eff, sizeof eff, "%s, %s", c->has_reference ? "N x T_ref / T" : "N x network efficiency e", ref);
    cost_row(h, "effective GPUs", true, c->effective_gpus, false, "GPUs", bound_how(why, sizeof why, eff, c->efficiency_bound),
             c->efficiency_bound);
    cost_row(h, "effective price", true, c->effective_price_per_gpu_hour, true, "per GPU-hour",
             bound_how(why, sizeof why, c->has_reference ? "P x T / T_ref" : "P / e", c->effective_price_bound),
             c->effective_price_bound);
    static const char *const how[TC_COST_LOSS_COUNT] = {
        "N x P x 730 h x u x t, the inter-node process groups' exposed transfer share",
        "N x P x 730 h x u x (exposed transfer share - t)", "N x P x 730 h x u x exposed wait share",
        "N x P x 730 h x u x idle share", "N x P x 730 h x u x exposed host-copy share"};
    static const char *const label[TC_COST_LOSS_COUNT] = {"inter-node network loss", "intra-node comm loss",
                                                          "straggler loss", "host idle loss", "memory copies loss"};
    for (int k = 0; k < TC_COST_LOSS_COUNT; k++) {
        const tc_cost_loss *l = &c->loss[k];
        const char *f = k == TC_COST_LOSS_INTER_NODE && c->inter_rule != TC_COST_INTER_MEASURED ? tc_cost_inter_rule_text(c)
                        : l->known ? how[k] : k == TC_COST_LOSS_STRAGGLER ? "needs a trace of 2+ ranks"
                        : "in the inter-node network's figure (scopes unknown)";
        cost_row(h, label[k], l->known, l->per_month, true, "per month", bound_how(why, sizeof why, f, l->bound), l->bound);
    }
    cost_row(h, "all losses", true, c->total_loss_per_month, true, "per month", "the classes above summed", TC_COST_EXACT);
    cost_row(h, "rent per month", true, c->rent_monthly, true, NULL, "N x P x 730 h x u", TC_COST_EXACT);
    cost_row(h, "rent, total", true, c->tco_rent, true, NULL, "months x rent per month", TC_COST_EXACT);
    cost_row(h, "own: purchase", c->has_own, c->own_capex, true, NULL, "N x purchase per GPU + fabric", TC_COST_EXACT);
    cost_row(h, "own: running cost", c->has_own, c->own_opex_monthly, true, "per month", "N x kW x 730 h x u x PUE x $/kWh + operations", TC_COST_EXACT);
    cost_row(h, "own, total", c->has_own, c->tco_own, true, NULL, "purchase + months x running cost", TC_COST_EXACT);
    cost_row(h, "breakeven", c->has_own && c->has_breakeven, c->breakeven_months, false, "months", "purchase / (rent - running cost per month)", TC_COST_EXACT);
    cost_row(h, "own: per effective GPU-hour", c->has_own, c->own_cost_per_effective_gpu_hour, true, NULL,
             bound_how(why, sizeof why, c->has_reference ? "own total / (N x 730 h x u x months x T_ref / T)"
                                                         : "own total / (N x 730 h x u x months x e)", c->own_price_bound),
             c->own_price_bound);
    cost_row(h, "rent: per effective GPU-hour", true, c->rent_cost_per_effective_gpu_hour, true, NULL,
             bound_how(why, sizeof why, "P / rented fabric's efficiency", c->rent_price_bound), c->rent_price_bound);
    put(h, "</tbody></table>\n");

    put(h, "<h3>What if the fabric were faster</h3>\n");
    if (c->has_what_if && c->what_if.method == TC_WHAT_IF_REPLAY) html_replay_what_if(h, c);
    else if (c->has_what_if) html_scaled_what_if(h, c);
    else
        put(h, "<p class=\"note\" id=\"what-if\">No what-if: pass --fabric-target-GBps (and optionally --fabric-upgrade-cost) "
               "with a measured fabric bandwidth.</p>\n");

    put(h, "<h3>Inputs used</h3>\n<table id=\"cost-inputs\"><thead><tr><th>input</th><th class=\"n\">value</th><th>from</th></tr></thead><tbody>\n");
    const tc_cost_inputs *u = &c->used;
    const struct { const char *name; const tc_cost_value *v; } rows[] = {
        {"GPUs (N)", &u->gpus}, {"rent $ per GPU-hour (P)", &u->price_per_gpu_hour},
        {"purchase $ per GPU (C)", &u->purchase_per_gpu}, {"fabric $ (F)", &u->fabric_cost},
        {"power kW per GPU (W)", &u->power_kw_per_gpu}, {"electricity $ per kWh (E)", &u->electricity_per_kwh},
        {"PUE", &u->pue}, {"operations $ per month (O)", &u->ops_per_month}, {"months (M)", &u->months},
        {"utilization (u)", &u->utilization}, {"network efficiency (e)", &u->network_efficiency},
        {"rented fabric's efficiency (e_r)", &u->rent_network_efficiency}, {"fabric busbw GB/s (B)", &u->fabric_GBps},
        {"what-if busbw GB/s (B')", &u->fabric_target_GBps},
        {"what-if latency µs per collective (A')", &u->fabric_target_latency_us}, {"upgrade $ (X)", &u->fabric_upgrade_cost},
    };
    char m[TC_ATTR_LEN], tip[TC_ATTR_LEN];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pf(h, "<tr><td>%s</td>", rows[i].name);
        if (rows[i].v->set) pf(h, "<td class=\"n\" data-tip=\"%s\">%s</td><td>", tc_fmt_attr(tip, sizeof tip, rows[i].v->value, 10),
                               TC_SIG4(m, rows[i].v->value));
        else put(h, "<td class=\"n\">unset</td><td>");
        esc(h, rows[i].v->set ? rows[i].v->origin : "");
        put(h, "</td></tr>\n");
    }
    if (u->gpu) {
        put(h, "<tr><td>GPU model</td><td class=\"n\">"); esc(h, u->gpu->name);
        put(h, "</td><td>"); esc(h, u->gpu_origin); put(h, "</td></tr>\n");
    }
    put(h, "</tbody></table>\n");
    if (c->n_notes) {
        put(h, "<ul class=\"note\">");
        for (size_t i = 0; i < c->n_notes; i++) { put(h, "<li>"); esc(h, c->notes[i]); put(h, "</li>"); }
        put(h, "</ul>\n");
    }
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ definitions, inputs */
static void section_definitions(hr *h) {
    const tc_summary *sm = &h->j->summary;
    put(h, "<section id=\"definitions\">\n<h2>Definitions and assumptions</h2>\n<dl class=\"defs\">\n"
           "<dt>Window</dt><dd>Per rank, from its first GPU event's start to its last GPU event's end. Shares in the "
           "verdict are of the windows summed over ranks.</dd>\n"
           "<dt>Compute</dt><dd>The length of the union of every kernel that is not a collective or memory copy.</dd>\n"
           "<dt>Exposed communication</dt><dd>Time in collective kernels (NCCL/RCCL, every naming generation) not "
           "overlapped by compute. Split, when two or more ranks are given, into <b>wait</b> (the head of a collective "
           "kernel before the last rank arrived: the rank waits for a slower peer) and <b>transfer</b> (the rest: the "
           "fastest rank's kernel time, moving bytes). Collectives are matched across ranks by process group and "
           "order.</dd>\n"
           "<dt>Exposed memory</dt><dd>memcpy/memset time not overlapped by compute or collectives.</dd>\n"
           "<dt>Idle</dt><dd>Window minus the union of all GPU activity: the GPU waited for the host.</dd>\n"
           "<dt>Idle causes</dt><dd>Each idle gap goes, instant by instant, to what the CPU thread that launched the "
           "work ending the gap was doing (data loading, sync, memory management, module load, launch overhead, CPU "
           "other), or to GPU side (the work was handed over before the GPU ran dry) or unattributed (no launch call "
           "in the trace). They add up to idle exactly.</dd>\n"
           "<dt>Verdict</dt><dd>Two loss classes: communication (exposed transfer + exposed wait) and host (idle + "
           "exposed memory). When both are below the threshold share of GPU time the job is compute-bound; otherwise "
           "the larger names it: host-bound, or network-bound when transfer is at least the wait, else straggler-bound. "
           "The speed-up is 1 / (1 - the named loss's share). Partial data (ranks missing, unmatched collectives, inputs "
           "cut short, one rank) is said in the verdict line.</dd>\n"
           "<dt>Comm/compute ratio</dt><dd>Union of collective kernels over union of compute kernels.</dd>\n"
           "<dt>MFU</dt><dd>Model FLOPs (from GEMM shapes recorded with record_shapes) per second of step time, over the "
           "GPU's dense peak for the dtype.</dd>\n"
           "<dt>Bus bandwidth</dt><dd>As nccl-tests: algbw = bytes / time, busbw = algbw x 2(n-1)/n for allreduce, "
           "(n-1)/n for allgather, reduce-scatter and all-to-all, 1 otherwise. GB = 10<sup>9</sup> bytes.</dd>\n"
           "<dt>Process groups</dt><dd>Each group of the job, joined from every input's pg_config and the collectives' "
           "process-group arguments: intra-node when its ranks are on one node, else inter-node. Its exposed figures are "
           "unions over its own kernels summed over its ranks; its link is the GPU's own (NVLink, Infinity Fabric, PCIe) "
           "inside a node and --fabric or --nic-gbps between nodes, rated per GPU in one direction. A network-bound "
           "verdict calls the groups with the most exposed transfer saturated from 70% of their link's rating on.</dd>\n"
           "<dt>Straggler</dt><dd>");
    esc(h, tc_straggler_rule_text());
    put(h, "</dd>\n"
           "<dt>Clock alignment</dt><dd>Each rank's clock offset against the reference rank is the median, over matched "
           "collectives, of the difference of their end times (collectives end together on every rank).</dd>\n"
           "<dt>Effective GPUs, money</dt><dd>Network efficiency e = 1 - exposed transfer share; N GPUs do the work "
           "of N x e. A month is 730 hours. See the cost model documentation for every formula.</dd>\n"
           "<dt>Times</dt><dd>Tables give times in ms or &micro;s, rounded for reading; hover a figure for every "
           "nanosecond the traces hold (ms with 6 decimals), and the JSON and CSV keep them all.</dd>\n</dl>\n");
    (void)sm;
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ document */
/* The folder the inputs share ("traces/run42/"), as given: the common start of their paths up to
 * a '/'; empty when they share none (files of the current folder, standard input). */
static size_t common_folder(const tc_job *j) {
    if (!j->n_traces) return 0;
    const char *p0 = j->traces[0].path;
    size_t len = strlen(p0);
    for (size_t i = 1; i < j->n_traces; i++) {
        size_t k = 0;
        while (k < len && p0[k] == j->traces[i].path[k]) k++;
        len = k;
    }
    while (len && p0[len - 1] != '/') len--;
    return len;
}

/* The job's name: the last folder its inputs share ("run42"), else the one input's file name,
 * else "job". */
static void job_name(char *buf, size_t n, const tc_job *j) {
    size_t len = common_folder(j);
    const char *p = j->n_traces ? j->traces[0].path : "";
    while (len > 1 && p[len - 1] == '/') len--; /* "run42/" -> "run42" */
    size_t from = len;
    while (from && p[from - 1] != '/') from--;
    if (len > from && !(len - from == 1 && p[from] == '.'))
        snprintf(buf, n, "%.*s", (int)(len - from), p + from);
    else if (j->n_traces == 1) {
        const char *base = strrchr(p, '/');
        snprintf(buf, n, "%s", base ? base + 1 : p);
    } else snprintf(buf, n, "job");
}

/* <title> and the header: the job's name, when it was traced, what was read, the tool. */
static void page_head(hr *h, const char *nonce) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    char name[300], date[40] = "";
    job_name(name, sizeof name, j);
    if (sm->has_capture_time) tc_utc_text(date, sizeof date, sm->capture_unix_s);
    tc_html_head_begin(h->out, nonce);
    esc(h, name);
    pf(h, ": %s, %zu rank%s%s%s &middot; tracecost", tc_verdict_words(sm->verdict), sm->ranks, sm->ranks == 1 ? "" : "s",
       date[0] ? ", " : "", date);
    tc_html_head_end(h->out);
    put(h, "<header class=\"top\" id=\"report-head\"><span><b id=\"job-name\">");
    esc(h, name);
    pf(h, "</b> &middot; <span id=\"trace-date\">%s</span></span>", date[0] ? date : "trace date unknown");
    size_t folder = common_folder(j);
    pf(h, "<span id=\"report-inputs\">%zu rank%s &middot; %zu step%s &middot; %zu input%s", sm->ranks,
       sm->ranks == 1 ? "" : "s", max_steps(j), max_steps(j) == 1 ? "" : "s", j->n_traces, j->n_traces == 1 ? "" : "s");
    if (folder) {
        put(h, " in ");
        tc_html_escape(h->out, j->traces[0].path, folder, 0);
    } else if (j->n_traces == 1) {
        put(h, ": ");
        esc(h, j->traces[0].path);
    }
    pf(h, " &middot; tracecost %s</span></header>\n", TC_VERSION);
}

int tc_html_report_write(FILE *out, const tc_job *j) {
    hr h = {out, j, false};
    char nonce[32];
    tc_html_nonce(&h, nonce, sizeof nonce);
    page_head(&h, nonce);
    section_verdict(&h);
    section_key_numbers(&h);
    section_ranks(&h);
    tc_host_wait_html(out, j);
    tc_html_section_timeline(&h);
    tc_replay_html(out, j);
    tc_html_section_groups(&h);
    tc_html_section_nccl(&h);
    tc_html_section_collectives(&h);
    tc_html_section_all_to_all(&h);
    tc_html_section_pipeline(&h);
    tc_html_section_straggler(&h);
    tc_html_section_kernels(&h);
    tc_html_section_ops(&h);
    if (j->cost.computed || j->cost.missing != TC_COST_LEFT_OUT) section_cost(&h); /* --no-cost: none */
    section_definitions(&h);
    tc_html_section_inputs(&h);
    pf(&h, "<footer>Written by tracecost %s. This file is self-contained: it loads nothing from the network and opens "
           "offline in any browser. Trace-derived text is shown as text, never run.</footer>\n", TC_VERSION);
    tc_html_doc_end(out, nonce);
    if (h.oom) return -1;
    return ferror(out) ? -1 : 0;
}
