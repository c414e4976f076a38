/* mfu_report.c: MFU keys in the JSON report and MFU lines in the terminal report (see mfu_report.h). */
#include "mfu_report.h"
#include "termtext.h"
#include "textfmt.h"
#include <string.h>

static void opt_num(jw *w, const char *key, bool has, double v) {
    jw_key(w, key);
    if (has) jw_double(w, v); else jw_null(w);
}

void tc_mfu_json_rank(jw *w, const tc_rank_result *rr) {
    opt_num(w, "flops_per_step", rr->has_mfu, rr->flops_per_step);
    opt_num(w, "peak_tflops", rr->has_peak, rr->peak_flops / 1e12);
    jw_key(w, "flops_source"); jw_string(w, rr->flops_source);
    opt_num(w, "hardware_flops_utilization", rr->has_hfu, rr->hfu);
    jw_key(w, "gpu"); jw_string(w, rr->gpu ? rr->gpu->id : NULL);
}

void tc_mfu_json_step(jw *w, const tc_step_result *st) { opt_num(w, "flops", st->has_mfu, st->flops); }

void tc_mfu_json_summary(jw *w, const tc_summary *sm) {
    opt_num(w, "flops_per_step", sm->has_mfu, sm->flops_per_step);
    opt_num(w, "peak_tflops", sm->has_peak, sm->peak_flops / 1e12);
    jw_key(w, "flops_source"); jw_string(w, sm->flops_source);
    opt_num(w, "hardware_flops_utilization", sm->has_hfu, sm->hfu);
    jw_key(w, "mfu_note"); jw_string(w, sm->mfu_note);
}

void tc_mfu_json_top_kernels(jw *w, const tc_job *j) {
    jw_key(w, "top_kernels");
    jw_array_begin(w);
    for (size_t i = 0; i < j->n_top_kernels; i++) {
        const tc_kernel_row *k = &j->top_kernels[i];
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, k->name);
        jw_key(w, "time_us"); jw_ns_as_us(w, k->time_ns);
        jw_key(w, "count"); jw_uint(w, k->count);
        jw_key(w, "share_of_compute"); jw_double(w, k->share_of_compute);
        opt_num(w, "achieved_tflops", k->has_tflops, k->achieved_tflops);
        jw_object_end(w);
    }
    jw_array_end(w);
}

void tc_mfu_text_summary(FILE *out, const tc_job *j, const char *dim_on, const char *dim_off, int width) {
    const tc_summary *sm = &j->summary;
    char mfu[600], hfu[64], tflop[TC_ATTR_LEN], p[TC_PCT_LEN];
    const char *items[2] = {mfu, hfu};
    if (sm->has_mfu)
        snprintf(mfu, sizeof mfu, "MFU %s (%s TFLOP per GPU per step from %s, peak %.1f TFLOP/s)", TC_PCT1(p, sm->mfu),
                 TC_SIG4(tflop, sm->flops_per_step / 1e12), sm->flops_source, sm->peak_flops / 1e12);
    else snprintf(mfu, sizeof mfu, "MFU n/a");
    if (sm->has_hfu) snprintf(hfu, sizeof hfu, "HFU %s of the window", TC_PCT1(p, sm->hfu)); else snprintf(hfu, sizeof hfu, "HFU n/a");
    tc_term_join(out, items, 2, " | ", 2, 4, width);
    if (sm->mfu_note) {
        /* the note may quote a device name from the trace: tc_term_wrap_from cleans it */
        fprintf(out, "  %snote: ", dim_on);
        tc_term_wrap_from(out, sm->mfu_note, 8, 8, width);
        fputs(dim_off, out);
    }
}

/* Columns of the top-kernels table besides the kernel's name. */
#define KERNEL_FIXED 38
#define KERNEL_ROWS 10

void tc_mfu_text_top_kernels(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, int width) {
    if (!j->n_top_kernels) return;
    int kw = width - KERNEL_FIXED;
    size_t shown = j->n_top_kernels < KERNEL_ROWS ? j->n_top_kernels : KERNEL_ROWS;
    const char *names[KERNEL_ROWS];
    for (size_t i = 0; i < shown; i++) names[i] = j->top_kernels[i].name;
    fprintf(out, "\n%sTop kernels%s (compute kernels, all ranks)\n", bold_on, bold_off);
    fprintf(out, "%-*s %11s %9s %6s %8s\n", kw, "kernel", "time", "count", "share", "TFLOP/s");
    fprintf(out, "%-*s %11s %9s %6s %8s\n", kw, "", "ms, sum", "launches", "% comp", "achieved");
    for (size_t i = 0; i < shown; i++) {
        const tc_kernel_row *k = &j->top_kernels[i];
        char name[4 * 120 + 1], tf[16], t[24], sc[TC_PCT_LEN];
        tc_term_name_cell(name, sizeof name, k->name, names, shown, -kw); /* a kernel name must not emit escapes */
        if (k->has_tflops) tc_term_fit(tf, sizeof tf, k->achieved_tflops, 1, 8); else snprintf(tf, sizeof tf, "-");
        tc_term_fit(t, sizeof t, (double)k->time_ns / 1e6, 3, 11);
        fprintf(out, "%s %11s %9llu %6s %8s\n", name, t, (unsigned long long)k->count, TC_PCT1(sc, k->share_of_compute), tf);
    }
    if (j->n_top_kernels > shown) fprintf(out, "  ... %zu more rows in --json and --csv\n", j->n_top_kernels - shown);
    tc_term_wrap(out, "% comp = share of the summed compute-kernel time; achieved = the FLOPs of its ops / its time "
                 "(where they are known)", 2, 4, width);
}
