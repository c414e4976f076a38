/* csv_report.c: the job's tables as RFC 4180 CSV (see csv_report.h; columns in docs/csv.md). */
#include "csv_report.h"
#include "findings_text.h"
#include "base/jsontext.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *const tc_csv_files[TC_CSV_TABLES + 1] = {
    "ranks.csv", "steps.csv", "collectives.csv", "process_groups.csv", "kernels.csv", "idle_causes.csv", "nccl.csv",
    "all_to_all.csv", "all_to_all_instances.csv", "all_to_all_pairs.csv", "pipeline_stages.csv", "pipeline_steps.csv",
    "ops.csv", "modules.csv", NULL,
};

/* One row being written: cells are separated as they come, the row ends with CRLF. */
typedef struct {
    FILE *f;
    size_t cells; /* written on this row */
} csv;

static void sep(csv *c) { if (c->cells++) fputc(',', c->f); }

/* A text cell; NULL is an empty cell. */
static void text(csv *c, const char *s) {
    sep(c);
    if (!s) return;
    char *u = tc_json_text_dup(s); /* invalid UTF-8 as U+FFFD */
    const char *v = u ? u : "";
    size_t len = strlen(v);
    bool formula = strchr("=+-@\t\r\n", v[0]) && v[0]; /* the OWASP formula starters, CR and LF too */
    bool quote = formula || strpbrk(v, ",\"\r\n") || (len && (v[0] == ' ' || v[len - 1] == ' '));
    if (quote) fputc('"', c->f);
    if (formula) fputc('\'', c->f);
    for (const char *p = v; *p; p++) {
        if (*p == '"') fputc('"', c->f);
        fputc(*p, c->f);
    }
    if (quote) fputc('"', c->f);
    free(u);
}

static void us(csv *c, bool has, int64_t ns) {
    char buf[32];
    sep(c);
    if (has) { tc_json_us_text(buf, sizeof buf, ns); fputs(buf, c->f); }
}

static void num(csv *c, bool has, double v) {
    char buf[48];
    sep(c);
    if (has) { tc_json_double_text(buf, sizeof buf, v); fputs(buf, c->f); }
}

static void integer(csv *c, bool has, long long v) {
    sep(c);
    if (has) fprintf(c->f, "%lld", v);
}

static void boolean(csv *c, bool v) { sep(c); fputs(v ? "true" : "false", c->f); }

static void end_row(csv *c) {
    fputs("\r\n", c->f);
    c->cells = 0;
}

/* A header row from a NULL-terminated list of column names. */
static void header(csv *c, const char *const *cols) {
    for (size_t i = 0; cols[i]; i++) text(c, cols[i]);
    end_row(c);
}

/* The breakdown's columns, as in the JSON (window_us ... exposed_wait_us). */
static const char *const BREAKDOWN_COLS[] = {"window_us", "compute_us", "comm_us", "overlapped_comm_us", "exposed_comm_us",
                                             "exposed_transfer_us", "exposed_wait_us", "memory_exposed_us",
                                             "memory_host_exposed_us", "memory_device_exposed_us", "idle_us", NULL};

static void breakdown(csv *c, const tc_breakdown *b) {
    us(c, true, b->window_ns);
    us(c, true, b->compute_ns);
    us(c, true, b->comm_ns);
    us(c, true, b->overlapped_comm_ns);
    us(c, true, b->exposed_comm_ns);
    us(c, b->split_known, b->exposed_transfer_ns);
    us(c, b->split_known, b->exposed_wait_ns);
    us(c, true, b->memory_exposed_ns);
    us(c, true, b->memory_host_exposed_ns);
    us(c, true, b->memory_device_exposed_ns);
    us(c, true, b->idle_ns);
}

/* A header of first[], mid[], last[] (each NULL-terminated), the row not ended. */
static void header3_cols(csv *c, const char *const *first, const char *const *mid, const char *const *last) {
    for (size_t i = 0; first[i]; i++) text(c, first[i]);
    for (size_t i = 0; mid[i]; i++) text(c, mid[i]);
    for (size_t i = 0; last[i]; i++) text(c, last[i]);
}

/* cols = first[], the breakdown's, last[] (both NULL-terminated). */
static void header3(csv *c, const char *const *first, const char *const *last) {
    header3_cols(c, first, BREAKDOWN_COLS, last);
}

static void ranks(csv *c, const tc_job *j) {
    static const char *const first[] = {"rank", "file", "device", "gpu", "node", "steps", NULL};
    static const char *const last[] = {"comm_compute_ratio", "step_time_us", "clock_offset_us", "mfu",
                                       "hardware_flops_utilization", "flops_per_step", "peak_tflops", NULL};
    header3(c, first, last);
    end_row(c);
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        integer(c, true, rr->rank);
        text(c, rr->input < j->n_traces ? j->traces[rr->input].path : NULL);
        text(c, rr->device);
        text(c, rr->gpu ? rr->gpu->id : NULL);
        integer(c, true, rr->node);
        integer(c, true, (long long)rr->n_steps);
        breakdown(c, &rr->b);
        num(c, rr->has_ratio, rr->comm_compute_ratio);
        us(c, rr->has_step_time, rr->step_time_ns);
        us(c, rr->has_clock_offset, rr->clock_offset_ns);
        num(c, rr->has_mfu, rr->mfu);
        num(c, rr->has_hfu, rr->hfu);
        num(c, rr->has_mfu, rr->flops_per_step);
        num(c, rr->has_peak, rr->peak_flops / 1e12);
        end_row(c);
    }
}

static void steps(csv *c, const tc_job *j) {
    static const char *const first[] = {"rank", "step", "step_time_us", NULL};
    static const char *const last[] = {"comm_compute_ratio", "mfu", "flops", NULL};
    header3(c, first, last);
    char name[64];
    for (int k = 0; k < TC_IDLE_CAUSES; k++) {
        snprintf(name, sizeof name, "idle_%s_us", tc_idle_cause_key(k));
        text(c, name);
    }
    text(c, "idle_after_sync_us");
    end_row(c);
    for (size_t r = 0; r < j->n_ranks; r++)
        for (size_t s = 0; s < j->ranks[r].n_steps; s++) {
            const tc_step_result *st = &j->ranks[r].steps[s];
            integer(c, true, j->ranks[r].rank);
            integer(c, true, st->number);
            us(c, true, st->step_time_ns);
            breakdown(c, &st->b);
            num(c, st->has_ratio, st->comm_compute_ratio);
            num(c, st->has_mfu, st->mfu);
            num(c, st->has_mfu, st->flops);
            for (int k = 0; k < TC_IDLE_CAUSES; k++) us(c, true, st->idle.ns[k]);
            us(c, true, st->idle.after_sync_ns);
            end_row(c);
        }
}

static void collectives(csv *c, const tc_job *j) {
    static const char *const cols[] = {"collective", "process_group", "group_size", "dtype", "count", "bytes",
                                       "transfer_us_median", "wait_us_total", "algbw_GBps", "busbw_GBps",
                                       "busbw_share_of_rated", NULL};
    header(c, cols);
    for (size_t i = 0; i < j->n_colls; i++) {
        const tc_collective_result *k = &j->colls[i];
        text(c, k->name);
        text(c, k->process_group);
        integer(c, k->group_size > 0, k->group_size);
        text(c, k->dtype);
        integer(c, true, (long long)k->count);
        integer(c, k->bytes >= 0, k->bytes);
        us(c, true, k->transfer_ns_median);
        us(c, true, k->wait_ns_total);
        num(c, k->has_bw, k->algbw_GBps);
        num(c, k->has_bw, k->busbw_GBps);
        num(c, k->has_share, k->share_of_rated);
        end_row(c);
    }
}

/* A space-separated list of n integers ("0 1 2 3") as a text cell. */
static void int_list(csv *c, const int64_t *v, size_t n) {
    char *list = malloc(n * 22 + 1);
    if (list) {
        size_t len = 0;
        list[0] = 0;
        for (size_t k = 0; k < n; k++) len += (size_t)sprintf(list + len, "%s%lld", k ? " " : "", (long long)v[k]);
    }
    text(c, list);
    free(list);
}

static void groups(csv *c, const tc_job *j) {
    static const char *const cols[] = {"name", "desc", "size", "ranks_present", "ranks", "partial", "nodes", "scope",
                                       "comm_us", "exposed_comm_us", "exposed_transfer_us", "exposed_wait_us",
                                       "busbw_GBps", "link", "link_name", "rated_busbw_GBps", "busbw_share_of_rated", NULL};
    static const char *const scopes[] = {NULL, "intra-node", "inter-node"};
    header(c, cols);
    for (size_t i = 0; i < j->n_groups; i++) {
        const tc_process_group *g = &j->groups[i];
        const tc_group_figures *f = &g->f;
        text(c, g->name);
        text(c, g->desc);
        integer(c, g->size > 0, g->size);
        integer(c, true, g->ranks_present);
        if (g->ranks) int_list(c, g->ranks, g->n_ranks); /* "0 1 2 3" */
        else text(c, NULL);
        boolean(c, f->partial);
        integer(c, g->has_nodes, g->nodes);
        text(c, scopes[f->scope]);
        us(c, true, f->sums.comm_ns);
        us(c, true, f->sums.exposed_comm_ns);
        us(c, f->split_known, f->sums.exposed_transfer_ns);
        us(c, f->split_known, f->sums.exposed_wait_ns);
        num(c, f->has_busbw, f->busbw_GBps);
        text(c, f->link.id);
        text(c, f->link.id ? f->link.name : NULL);
        num(c, f->link.id != NULL, f->link.rated_GBps);
        num(c, f->has_share, f->share_of_rated);
        end_row(c);
    }
}

static void kernels(csv *c, const tc_job *j) {
    static const char *const cols[] = {"name", "kind", "ranks", "launches", "time_us", "max_us", NULL};
    static const char *const kinds[] = {"compute", "collective", "memcpy", "memset"};
    header(c, cols);
    for (size_t i = 0; i < j->n_kernel_aggs; i++) {
        const tc_kernel_agg *k = &j->kernel_aggs[i];
        text(c, k->name);
        text(c, k->kind < 4 ? kinds[k->kind] : NULL);
        integer(c, true, k->ranks);
        integer(c, true, (long long)k->count);
        us(c, true, k->total_ns);
        us(c, true, k->max_ns);
        end_row(c);
    }
}

static void idle_causes(csv *c, const tc_job *j) {
    static const char *const cols[] = {"rank", "cause", "idle_us", NULL};
    header(c, cols);
    for (size_t r = 0; r < j->n_ranks; r++)
        for (int k = 0; k < TC_IDLE_CAUSES; k++) {
            integer(c, true, j->ranks[r].rank);
            text(c, tc_idle_cause_key(k));
            us(c, true, j->ranks[r].idle.ns[k]);
            end_row(c);
        }
}

/* nccl.csv: per process group with NCCL records (process_groups[].nccl), one row per mix row of its
 * plugin records (the group's columns repeated), or one row with the mix columns empty. */
static void nccl(csv *c, const tc_job *j) {
    static const char *const cols[] = {"process_group", "desc", "communicator_id", "inspector_joined", "below_min_size",
                                       "dropped", "cpu_timed", "size_mismatch", "busbw_GBps", "trace_busbw_GBps",
                                       "plugin_joined", "plugin_dropped", "plugin_size_mismatch", "algorithm", "protocol",
                                       "channels", "records", NULL};
    header(c, cols);
    const tc_nccl_result *r = &j->nccl;
    for (size_t i = 0; r->present && r->groups && i < j->n_groups; i++) {
        const tc_nccl_group *g = &r->groups[i];
        if (!g->has) continue;
        size_t rows = 0;
        for (size_t m = 0; m <= r->log.n_mixes; m++) {
            if (m < r->log.n_mixes ? !g->mix_records[m] : rows > 0) continue;
            char id[24];
            snprintf(id, sizeof id, "0x%llx", (unsigned long long)g->comm_id);
            text(c, j->groups[i].name);
            text(c, j->groups[i].desc);
            text(c, g->has_comm || g->has_plugin ? id : NULL);
            integer(c, true, g->c.joined);
            integer(c, true, g->c.below_min_size);
            integer(c, true, g->c.dropped);
            integer(c, true, g->c.cpu_timed);
            integer(c, true, g->c.size_mismatch);
            num(c, g->has_busbw, g->busbw_GBps);
            num(c, j->groups[i].f.has_busbw, j->groups[i].f.busbw_GBps);
            integer(c, g->has_plugin, g->plugin_joined);
            integer(c, g->has_plugin, g->plugin_dropped);
            integer(c, g->has_plugin, g->plugin_size_mismatch);
            const tc_nccl_mix *x = m < r->log.n_mixes ? &r->log.mixes[m] : NULL;
            text(c, x && x->algorithm[0] ? x->algorithm : NULL);
            text(c, x && x->protocol[0] ? x->protocol : NULL);
            integer(c, x && x->channels >= 0, x ? x->channels : 0);
            integer(c, x != NULL, x ? g->mix_records[m] : 0);
            end_row(c);
            rows++;
        }
    }
}

/* The all-to-all groups (issue 33): the JSON's all_to_all[] without its arrays. */
static void a2a_groups(csv *c, const tc_job *j) {
    static const char *const cols[] = {"process_group", "ranks", "instances", "unsized_instances", "deepep_unsized",
                                       "max_imbalance_ratio", "hot_rank", "caused_wait_us", "all_to_all_rank_time_us", NULL};
    header(c, cols);
    for (size_t g = 0; g < j->a2a.n_groups; g++) {
        const tc_a2a_group *gr = &j->a2a.groups[g];
        text(c, j->inst_groups[gr->inst_group].shown);
        int_list(c, gr->ranks, gr->n_ranks);
        integer(c, true, (long long)gr->n);
        integer(c, true, (long long)gr->unsized);
        boolean(c, gr->deepep);
        num(c, gr->n > 0, gr->max_ratio);
        integer(c, gr->hot_rank >= 0, gr->hot_rank);
        num(c, true, gr->caused_wait_ns / 1e3);
        num(c, true, gr->rank_time_ns / 1e3);
        end_row(c);
    }
}

/* Every sized all-to-all instance: its ratio, hot rank, caused wait and bytes sent per rank. */
static void a2a_instances(csv *c, const tc_job *j) {
    static const char *const cols[] = {"process_group", "seq", "imbalance_ratio", "hot_rank", "hot_rank_bytes",
                                       "caused_wait_us", "bytes_sent", NULL};
    header(c, cols);
    const tc_a2a_result *a = &j->a2a;
    for (size_t g = 0; g < a->n_groups; g++) {
        const tc_a2a_group *gr = &a->groups[g];
        for (size_t i = gr->first; i < gr->first + gr->n; i++) {
            const tc_a2a_instance *ai = &a->instances[i];
            text(c, j->inst_groups[gr->inst_group].shown);
            integer(c, ai->seq >= 0, ai->seq);
            num(c, true, ai->ratio);
            integer(c, true, gr->ranks[ai->hot]);
            integer(c, true, a->bytes[ai->bytes_at + ai->hot]);
            num(c, true, ai->caused_wait_ns / 1e3);
            int_list(c, a->bytes + ai->bytes_at, gr->n_ranks);
            end_row(c);
        }
    }
}

/* The rank-pair matrix of each group in long form: a row per sender and receiver. */
static void a2a_pairs(csv *c, const tc_job *j) {
    static const char *const cols[] = {"process_group", "sender", "receiver", "bytes", NULL};
    header(c, cols);
    for (size_t g = 0; g < j->a2a.n_groups; g++) {
        const tc_a2a_group *gr = &j->a2a.groups[g];
        size_t n = gr->n;
        for (size_t r = 0; n && r < gr->n_ranks; r++)
            for (size_t k = 0; k < gr->n_ranks; k++) {
                text(c, j->inst_groups[gr->inst_group].shown);
                integer(c, true, gr->ranks[r]);
                integer(c, true, gr->ranks[k]);
                integer(c, true, gr->pair_bytes[r * gr->n_ranks + k]);
                end_row(c);
            }
    }
}

/* A stage's figures (tc_pp_figures): window_us ... charged_wait_us. */
static const char *const PP_COLS[] = {"window_us", "forward_us", "backward_us", "bubble_us", "p2p_wait_us",
                                      "p2p_transfer_us", "charged_wait_us", NULL};
static void pp_figures(csv *c, const tc_pp_figures *f) {
    us(c, true, f->window_ns);
    us(c, true, f->forward_ns);
    us(c, true, f->backward_ns);
    us(c, true, f->bubble_ns);
    us(c, true, f->p2p_wait_ns);
    us(c, true, f->p2p_transfer_ns);
    us(c, true, f->charged_wait_ns);
}

/* The pipeline's stages (steps summed, with the slowest marked) or its stages' steps (issue 33). */
static void pp_rows(csv *c, const tc_job *j, bool per_step) {
    static const char *const stage_cols[] = {"pipeline", "stage", "rank", NULL};
    static const char *const stage_last[] = {"bubble_share", "slowest", NULL};
    static const char *const step_cols[] = {"pipeline", "stage", "rank", "step", NULL};
    static const char *const none[] = {NULL};
    const tc_pipeline_result *p = &j->pipeline;
    header3_cols(c, per_step ? step_cols : stage_cols, PP_COLS, per_step ? none : stage_last);
    end_row(c);
    for (size_t i = 0; p->present && i < p->n_stages_rows; i++) {
        const tc_pp_stage *s = &p->stages[i];
        for (size_t k = 0; k < (per_step ? s->n_steps : 1); k++) {
            const tc_pp_figures *f = per_step ? &p->steps[s->steps_first + k] : &s->total;
            integer(c, true, s->pipeline);
            integer(c, true, s->stage);
            integer(c, true, s->rank);
            if (per_step) integer(c, f->step >= 0, f->step);
            pp_figures(c, f);
            if (!per_step) {
                num(c, true, f->window_ns > 0 ? (double)f->bubble_ns / (double)f->window_ns : 0);
                boolean(c, p->slowest_rank >= 0 && s->rank == p->slowest_rank);
            }
            end_row(c);
        }
    }
}

/* Every field of a group (JSON ops[]), the roof it is held to split by its class's unit. */
static void ops(csv *c, const tc_job *j) {
    static const char *const cols[] = {"op", "shapes", "dtype", "family", "count", "kernels", "gpu_time_us",
                                       "median_kernel_us", "flops", "bytes", "intensity", "achieved_tflops",
                                       "achieved_tbps", "class", "attainable_tflops", "attainable_tbps",
                                       "share_of_attainable", "lost_us", "launch_bound", "differing_rank", NULL};
    header(c, cols);
    for (size_t i = 0; i < j->ops.n_groups; i++) {
        const tc_op_group *g = &j->ops.groups[i];
        bool both = g->has_flops && g->has_bytes;
        text(c, g->op);
        text(c, g->shapes);
        text(c, g->dtype == TC_DTYPE_UNKNOWN ? NULL : tc_dtype_name(g->dtype));
        text(c, tc_op_family_name((tc_op_family)g->family));
        integer(c, true, g->count);
        integer(c, true, g->kernels);
        us(c, true, g->gpu_ns);
        us(c, g->kernels > 0, g->median_kernel_ns);
        num(c, g->has_flops, g->flops);
        num(c, g->has_bytes, g->bytes);
        num(c, both && g->bytes > 0, g->intensity);
        num(c, g->has_flops && g->gpu_ns > 0, g->achieved_flops / 1e12);
        num(c, g->has_bytes && g->gpu_ns > 0, g->achieved_bytes / 1e12);
        text(c, g->has_roofline ? tc_op_class_name(g) : NULL);
        num(c, g->has_roofline && g->compute_bound, g->attainable / 1e12);
        num(c, g->has_roofline && !g->compute_bound, g->attainable / 1e12);
        num(c, g->has_roofline, g->share_of_attainable);
        us(c, g->has_roofline, g->lost_ns);
        boolean(c, g->launch_bound);
        integer(c, g->differing_rank >= 0, g->differing_rank);
        end_row(c);
    }
}

static void modules(csv *c, const tc_job *j) {
    static const char *const cols[] = {"path", "self_us", "total_us", NULL};
    header(c, cols);
    for (size_t i = 0; i < j->ops.n_modules; i++) {
        const tc_module_row *m = &j->ops.modules[i];
        text(c, m->path);
        us(c, true, m->self_ns);
        us(c, true, m->total_ns);
        end_row(c);
    }
}

int tc_csv_write(FILE *out, const tc_job *j, tc_csv_table t) {
    csv c = {out, 0};
    switch (t) {
    case TC_CSV_RANKS: ranks(&c, j); break;
    case TC_CSV_STEPS: steps(&c, j); break;
    case TC_CSV_COLLECTIVES: collectives(&c, j); break;
    case TC_CSV_GROUPS: groups(&c, j); break;
    case TC_CSV_KERNELS: kernels(&c, j); break;
    case TC_CSV_IDLE: idle_causes(&c, j); break;
    case TC_CSV_NCCL: nccl(&c, j); break;
    case TC_CSV_A2A: a2a_groups(&c, j); break;
    case TC_CSV_A2A_INSTANCES: a2a_instances(&c, j); break;
    case TC_CSV_A2A_PAIRS: a2a_pairs(&c, j); break;
    case TC_CSV_PP_STAGES: pp_rows(&c, j, false); break;
    case TC_CSV_PP_STEPS: pp_rows(&c, j, true); break;
    case TC_CSV_OPS: ops(&c, j); break;
    case TC_CSV_MODULES: modules(&c, j); break;
    case TC_CSV_TABLES: break;
    }
    return ferror(out) ? -1 : 0;
}
