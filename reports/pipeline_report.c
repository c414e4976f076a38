/* pipeline_report.c: the JSON key pipeline and the text report's Pipeline section (see
 * pipeline_report.h). Renders tc_job.pipeline only; docs/definitions.md "Pipeline bubble" defines
 * every figure. */
#include "pipeline_report.h"
#include "base/numfmt.h"
#include "termtext.h"
#include <stdlib.h>
#include <string.h>

/* The keys of one tc_pp_figures (a stage's total or one of its steps). */
static void figures(jw *w, const tc_pp_figures *f) {
    jw_key(w, "window_us"); jw_ns_as_us(w, f->window_ns);
    jw_key(w, "forward_us"); jw_ns_as_us(w, f->forward_ns);
    jw_key(w, "backward_us"); jw_ns_as_us(w, f->backward_ns);
    jw_key(w, "bubble_us"); jw_ns_as_us(w, f->bubble_ns);
    jw_key(w, "p2p_wait_us"); jw_ns_as_us(w, f->p2p_wait_ns);
    jw_key(w, "p2p_transfer_us"); jw_ns_as_us(w, f->p2p_transfer_ns);
    jw_key(w, "charged_wait_us"); jw_ns_as_us(w, f->charged_wait_ns);
}

void tc_pipeline_json(jw *w, const tc_job *j) {
    const tc_pipeline_result *p = &j->pipeline;
    if (!p->present) return;
    jw_key(w, "pipeline");
    jw_object_begin(w);
    jw_key(w, "source"); jw_string(w, p->source == TC_PP_FROM_OPTION ? "option" : "pattern");
    jw_key(w, "stages_per_pipeline"); jw_uint(w, p->n_stages);
    jw_key(w, "pipelines"); jw_uint(w, p->n_pipelines);
    jw_key(w, "p2p_pairs"); jw_int(w, p->pairs);
    jw_key(w, "p2p_unpaired"); jw_int(w, p->unpaired);
    jw_key(w, "p2p_without_peer_args"); jw_int(w, p->no_peer_args);
    jw_key(w, "window_us"); jw_ns_as_us(w, p->window_ns);
    jw_key(w, "bubble_us"); jw_ns_as_us(w, p->bubble_ns);
    jw_key(w, "bubble_share"); jw_double(w, p->bubble_share);
    jw_key(w, "p2p_wait_us"); jw_ns_as_us(w, p->p2p_wait_ns);
    jw_key(w, "slowest_stage"); if (p->slowest_stage >= 0) jw_int(w, p->slowest_stage); else jw_null(w);
    jw_key(w, "slowest_rank"); if (p->slowest_rank >= 0) jw_int(w, p->slowest_rank); else jw_null(w);
    jw_key(w, "stages");
    jw_array_begin(w);
    for (size_t i = 0; i < p->n_stages_rows; i++) {
        const tc_pp_stage *s = &p->stages[i];
        jw_object_begin(w);
        jw_key(w, "pipeline"); jw_uint(w, s->pipeline);
        jw_key(w, "stage"); jw_uint(w, s->stage);
        jw_key(w, "rank"); if (s->rank >= 0) jw_int(w, s->rank); else jw_null(w);
        figures(w, &s->total);
        jw_key(w, "steps");
        jw_array_begin(w);
        for (size_t k = s->steps_first; k < s->steps_first + s->n_steps; k++) {
            const tc_pp_figures *f = &p->steps[k];
            jw_object_begin(w);
            jw_key(w, "step"); if (f->step >= 0) jw_int(w, f->step); else jw_null(w);
            figures(w, f);
            jw_object_end(w);
        }
        jw_array_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

/* A ms figure in a 9-column cell. */
static const char *cell(char *buf, size_t n, int64_t ns) {
    tc_term_fit(buf, n, ms(ns), 3, 9);
    return buf;
}

void tc_pipeline_text(FILE *out, const tc_job *j, const char *bold, const char *unbold, const char *dim,
                      const char *undim, int width) {
    const tc_pipeline_result *p = &j->pipeline;
    if (!p->present) return;
    char line[600], pc[TC_PCT_LEN];
    fprintf(out, "\n%sPipeline%s ", bold, unbold);
    snprintf(line, sizeof line, "(%u pipeline%s of %u stages, %s; bubble %s of the step windows)", p->n_pipelines,
             p->n_pipelines == 1 ? "" : "s", p->n_stages,
             p->source == TC_PP_FROM_OPTION ? "stages by rank from --pp" : "stages from the P2P pattern",
             TC_PCT1(pc, p->bubble_share));
    tc_term_wrap_from(out, line, 9, 2, width);
    fprintf(out, "%5s %6s %9s %9s %9s %9s %9s %9s\n", "stage", "rank", "forward", "backward", "bubble", "p2p wait",
            "p2p xfer", "charged");
    fprintf(out, "%5s %6s %9s %9s %9s %9s %9s %9s\n", "", "", "ms", "ms", "ms", "ms", "ms", "ms");
    for (uint32_t s = 0; s < p->n_stages; s++) {
        tc_pp_figures sum;
        memset(&sum, 0, sizeof sum);
        int64_t rank = -1;
        uint32_t rows = 0;
        for (size_t i = 0; i < p->n_stages_rows; i++) {
            const tc_pp_figures *f = &p->stages[i].total;
            if (p->stages[i].stage != s) continue;
            rank = p->stages[i].rank;
            rows++;
            sum.forward_ns += f->forward_ns;
            sum.backward_ns += f->backward_ns;
            sum.bubble_ns += f->bubble_ns;
            sum.p2p_wait_ns += f->p2p_wait_ns;
            sum.p2p_transfer_ns += f->p2p_transfer_ns;
            sum.charged_wait_ns += f->charged_wait_ns;
        }
        if (!rows) continue;
        char rk[16], c[6][24];
        if (rows == 1) snprintf(rk, sizeof rk, "%lld", (long long)rank); else snprintf(rk, sizeof rk, "x%u", rows);
        fprintf(out, "%5u %6.6s %9s %9s %9s %9s %9s %9s%s\n", s, rk, cell(c[0], sizeof c[0], sum.forward_ns),
                cell(c[1], sizeof c[1], sum.backward_ns), cell(c[2], sizeof c[2], sum.bubble_ns),
                cell(c[3], sizeof c[3], sum.p2p_wait_ns), cell(c[4], sizeof c[4], sum.p2p_transfer_ns),
                cell(c[5], sizeof c[5], sum.charged_wait_ns), (int64_t)s == p->slowest_stage ? " <" : "");
    }
    fputs(dim, out);
    if (p->slowest_stage >= 0)
        snprintf(line, sizeof line, "< slowest stage %lld (rank %lld): charged most of its peers' P2P wait (it "
                 "arrived later); ", (long long)p->slowest_stage, (long long)p->slowest_rank);
    else snprintf(line, sizeof line, "no stage made its peers wait; ");
    size_t len = strlen(line);
    snprintf(line + len, sizeof line - len, "summed over %s and steps; bubble = window - forward - backward - p2p "
             "transfer; %lld P2P transfers paired, %lld kernels unpaired, %lld without peer args",
             p->n_pipelines == 1 ? "the pipeline" : "pipelines (x = ranks)", (long long)p->pairs,
             (long long)p->unpaired, (long long)p->no_peer_args);
    tc_term_wrap(out, line, 2, 4, width);
    fputs(undim, out);
}
