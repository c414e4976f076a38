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

void tc_mfu_text_summary(FILE *out, const tc_job *j, const char *dim_on, const char *dim_off) {
    const tc_summary *sm = &j->summary;
    fprintf(out, "  MFU ");
    if (sm->has_mfu)
        fprintf(out, "%.1f%% (%.4g TFLOP per GPU per step from %s, peak %.1f TFLOP/s)", 100 * sm->mfu,
                sm->flops_per_step / 1e12, sm->flops_source, sm->peak_flops / 1e12);
    else
        fprintf(out, "n/a");
    fprintf(out, " | HFU ");
    if (sm->has_hfu) fprintf(out, "%.1f%% of the window\n", 100 * sm->hfu); else fprintf(out, "n/a\n");
    if (sm->mfu_note) {
        /* the note may quote a device name from the trace: tc_term_wrap_from cleans it */
        fprintf(out, "  %snote: ", dim_on);
        tc_term_wrap_from(out, sm->mfu_note, 8, 8, 100);
        fputs(dim_off, out);
    }
}

void tc_mfu_text_top_kernels(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off) {
    if (!j->n_top_kernels) return;
    fprintf(out, "\n%sTop kernels%s (compute kernels, all ranks; share = of summed compute-kernel time)\n", bold_on, bold_off);
    fprintf(out, "%-58s %12s %8s %7s %10s\n", "kernel", "time ms", "count", "share", "TFLOP/s");
    size_t shown = j->n_top_kernels < 10 ? j->n_top_kernels : 10;
    for (size_t i = 0; i < shown; i++) {
        const tc_kernel_row *k = &j->top_kernels[i];
        char name[4 * 58 + 1], tf[16];
        tc_term_cell(name, sizeof name, k->name, -58); /* a kernel name must not emit escapes */
        if (k->has_tflops) snprintf(tf, sizeof tf, "%.1f", k->achieved_tflops); else snprintf(tf, sizeof tf, "-");
        fprintf(out, "%s %12.3f %8llu %6.1f%% %10s\n", name, (double)k->time_ns / 1e6,
                (unsigned long long)k->count, 100 * k->share_of_compute, tf);
    }
    if (j->n_top_kernels > shown) fprintf(out, "  ... %zu more rows in --json\n", j->n_top_kernels - shown);
}
