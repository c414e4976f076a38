/* catalog_report.c: the `tracecost gpus` table and JSON (see catalog_report.h). */
#include "catalog_report.h"
#include "model/gpu_catalog.h"
#include "model/link_catalog.h"
#include "termtext.h"
#include "textfmt.h"
#include <string.h>

/* Writes a TFLOP/s cell: "-" for unsupported, "?" for unsourced, otherwise up to one decimal. */
static void print_tflops(FILE *out, double v) {
    if (v < 0) fprintf(out, " %6s", "?");
    else if (v == 0) fprintf(out, " %6s", "-");
    else if (v >= 10000) fprintf(out, " %6.0f", v);
    else fprintf(out, " %6.1f", v);
}

/* The width of the id and name columns: the longest entry (or the header), so no id or name is cut. */
static void gpu_widths(int *idw, int *namew) {
    *idw = 9; /* at least the widths the table always had */
    *namew = 22;
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        const tc_gpu_spec *g = tc_gpu_at(i);
        if ((int)strlen(g->id) > *idw) *idw = (int)strlen(g->id);
        if ((int)strlen(g->name) > *namew) *namew = (int)strlen(g->name);
    }
}

void tc_gpu_catalog_print(FILE *out) {
    /* Columns: id and name as wide as their longest entry, five TFLOP/s 7 each, GB/s 6, W 5, $/h 7, $ 8. */
    int idw, namew;
    gpu_widths(&idw, &namew);
    fprintf(out, "%-*s %-*s %-34s %6s %5s %7s %8s\n", idw, "", namew, "",
            "      dense peak TFLOP/s", "memory", "TDP", "rent", "buy");
    fprintf(out, "%-*s %-*s %6s %6s %6s %6s %6s %6s %5s %7s %8s\n", idw, "id", namew, "name", "FP32",
            "TF32", "BF16", "FP16", "FP8", "GB/s", "W", "$/GPU-h", "$/GPU");
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        const tc_gpu_spec *g = tc_gpu_at(i);
        fprintf(out, "%-*s %-*s", idw, g->id, namew, g->name);
        for (int d = 0; d < TC_DTYPE_COUNT; d++) print_tflops(out, g->peak_tflops[d]);
        char rent[32], buy[32];
        tc_fmt_money(rent, sizeof rent, g->rent_usd_per_hour, 2);
        tc_fmt_money(buy, sizeof buy, g->purchase_usd, 0);
        fprintf(out, " %6.0f %5.0f %7s %8s\n", g->mem_bandwidth_GBps, g->tdp_W, rent, buy);
    }
    fputc('\n', out);
    tc_term_wrap(out,
                "Dense (non-sparse) peaks. '-' = no hardware support: TF32, BF16 and FP16 then "
                "count against the FP32 peak, FP8 against the FP16 peak. '?' = no vendor figure "
                "found: unknown, so no MFU against it. Prices are dated defaults; "
                "override them with --price-per-gpu-hour and --purchase-per-gpu. [REF] marks "
                "figures from the vendors' datasheets and from published 2024-2026 price sources; "
                "each entry below names its source. Pick a GPU with --gpu ID.",
                0, 0, 100);
    fputc('\n', out);
    fputs("sources and device-name patterns\n", out);
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        const tc_gpu_spec *g = tc_gpu_at(i);
        char line[1024];
        fprintf(out, "%s (%s)\n", g->id, g->name);
        snprintf(line, sizeof line, "matches: %s", g->patterns);
        tc_term_wrap(out, line, 2, 4, 100);
        snprintf(line, sizeof line, "TFLOP/s: %s", g->flops_source);
        tc_term_wrap(out, line, 2, 4, 100);
        snprintf(line, sizeof line, "memory, TDP: %s", g->spec_source);
        tc_term_wrap(out, line, 2, 4, 100);
        snprintf(line, sizeof line, "rent (%s): %s", g->rent_date, g->rent_source);
        tc_term_wrap(out, line, 2, 4, 100);
        snprintf(line, sizeof line, "purchase (%s): %s", g->purchase_date, g->purchase_source);
        tc_term_wrap(out, line, 2, 4, 100);
        const tc_link_spec *l = tc_link_of_gpu(g);
        if (l) snprintf(line, sizeof line, "link inside a node: %s (%s, %.4g GB/s a direction)", l->id, l->name, l->rated_GBps);
        else snprintf(line, sizeof line, "link inside a node: unknown");
        tc_term_wrap(out, line, 2, 4, 100);
    }
    fputc('\n', out);
    tc_link_catalog_print(out);
}

static const char *scope_name(tc_link_scope s) { return s == TC_LINK_INTRA ? "intra-node" : "inter-node"; }

void tc_link_catalog_print(FILE *out) {
    int idw = 10, namew = 18; /* at least the widths the table always had; wider for a longer id or name */
    for (size_t i = 0; i < tc_link_count(); i++) {
        const tc_link_spec *l = tc_link_at(i);
        if ((int)strlen(l->id) > idw) idw = (int)strlen(l->id);
        if ((int)strlen(l->name) > namew) namew = (int)strlen(l->name);
    }
    fprintf(out, "%-*s %-*s %-10s %10s %9s %7s\n", idw, "link", namew, "name", "scope", "rated GB/s", "line Gb/s", "date");
    for (size_t i = 0; i < tc_link_count(); i++) {
        const tc_link_spec *l = tc_link_at(i);
        char line[16];
        if (l->line_Gbps > 0) snprintf(line, sizeof line, "%.0f", l->line_Gbps); else snprintf(line, sizeof line, "-");
        fprintf(out, "%-*s %-*s %-10s %10.4g %9s %7s\n", idw, l->id, namew, l->name, scope_name(l->scope), l->rated_GBps,
                line, l->date);
    }
    fputc('\n', out);
    tc_term_wrap(out,
                 "Rated: what one GPU can send in one direction, GB/s (GB = 1e9 bytes): half the vendor's per-GPU "
                 "figure for both directions (NVLink, Infinity Fabric, PCIe), or a NIC's line rate in Gb/s / 8, one "
                 "NIC per GPU. A process group's bus bandwidth is measured against its link's figure: inside a node the "
                 "GPU's own link, between nodes --fabric ID or --nic-gbps X. --fabric-target ID prices a faster fabric "
                 "in the cost what-if.",
                 0, 0, 100);
    fputc('\n', out);
    fputs("link sources\n", out);
    for (size_t i = 0; i < tc_link_count(); i++) {
        const tc_link_spec *l = tc_link_at(i);
        char line[600];
        snprintf(line, sizeof line, "%s (%s): %s", l->id, l->date, l->source);
        tc_term_wrap(out, line, 2, 4, 100);
    }
}

void tc_link_catalog_json(jw *w) {
    jw_array_begin(w);
    for (size_t i = 0; i < tc_link_count(); i++) {
        const tc_link_spec *l = tc_link_at(i);
        jw_object_begin(w);
        jw_key(w, "id");
        jw_string(w, l->id);
        jw_key(w, "name");
        jw_string(w, l->name);
        jw_key(w, "scope");
        jw_string(w, scope_name(l->scope));
        jw_key(w, "rated_busbw_GBps");
        jw_double(w, l->rated_GBps);
        jw_key(w, "line_rate_Gbps");
        if (l->line_Gbps > 0) jw_double(w, l->line_Gbps); else jw_null(w);
        jw_key(w, "source");
        jw_string(w, l->source);
        jw_key(w, "date");
        jw_string(w, l->date);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* "key": {"amount_key": amount, "date": ..., "source": ...}: a catalog price and where it is from. */
static void price_json(jw *w, const char *key, const char *amount_key, double amount, const char *date,
                       const char *source) {
    jw_key(w, key);
    jw_object_begin(w);
    jw_key(w, amount_key);
    jw_double(w, amount);
    jw_key(w, "date");
    jw_string(w, date);
    jw_key(w, "source");
    jw_string(w, source);
    jw_object_end(w);
}

void tc_gpu_catalog_json(jw *w) {
    jw_array_begin(w);
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        const tc_gpu_spec *g = tc_gpu_at(i);
        jw_object_begin(w);
        jw_key(w, "id");
        jw_string(w, g->id);
        jw_key(w, "name");
        jw_string(w, g->name);
        jw_key(w, "patterns");
        jw_array_begin(w);
        for (const char *p = g->patterns; *p;) {
            const char *end = strchr(p, '|');
            if (!end) end = p + strlen(p);
            jw_string_n(w, p, (size_t)(end - p));
            if (!*end) break;
            p = end + 1;
        }
        jw_array_end(w);
        jw_key(w, "peak_tflops");
        jw_object_begin(w);
        for (int d = 0; d < TC_DTYPE_COUNT; d++) {
            jw_key(w, tc_dtype_name((tc_dtype)d));
            if (g->peak_tflops[d] > 0) jw_double(w, g->peak_tflops[d]);
            else jw_null(w);
        }
        jw_object_end(w);
        jw_key(w, "memory_bandwidth_GBps");
        jw_double(w, g->mem_bandwidth_GBps);
        jw_key(w, "tdp_W");
        jw_double(w, g->tdp_W);
        jw_key(w, "flops_source");
        jw_string(w, g->flops_source);
        jw_key(w, "spec_source");
        jw_string(w, g->spec_source);
        price_json(w, "rent", "usd_per_gpu_hour", g->rent_usd_per_hour, g->rent_date, g->rent_source);
        price_json(w, "purchase", "usd_per_gpu", g->purchase_usd, g->purchase_date, g->purchase_source);
        const tc_link_spec *l = tc_link_of_gpu(g);
        jw_key(w, "link");
        jw_string(w, l ? l->id : NULL);
        jw_object_end(w);
    }
    jw_array_end(w);
}
