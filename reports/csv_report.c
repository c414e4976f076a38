/* csv_report.c: the job's tables as RFC 4180 CSV (see csv_report.h; columns in docs/csv.md). */
#include "csv_report.h"
#include "findings_text.h"
#include "base/jsontext.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *const tc_csv_files[TC_CSV_TABLES + 1] = {
    "ranks.csv", "steps.csv", "collectives.csv", "process_groups.csv", "kernels.csv", "idle_causes.csv", "ops.csv",
    "modules.csv", NULL,
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
                                             "memory_host_exposed_us", "memory_device_exposed_us", "idle_us"};
#define N_BREAKDOWN (sizeof BREAKDOWN_COLS / sizeof BREAKDOWN_COLS[0])

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

/* cols = first[], the breakdown's, last[] (both NULL-terminated). */
static void header3(csv *c, const char *const *first, const char *const *last) {
    for (size_t i = 0; first[i]; i++) text(c, first[i]);
    for (size_t i = 0; i < N_BREAKDOWN; i++) text(c, BREAKDOWN_COLS[i]);
    for (size_t i = 0; last[i]; i++) text(c, last[i]);
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
        char *list = g->ranks ? malloc(g->n_ranks * 22 + 1) : NULL; /* "0 1 2 3" */
        if (list) {
            size_t len = 0;
            list[0] = 0;
            for (size_t k = 0; k < g->n_ranks; k++) len += (size_t)sprintf(list + len, "%s%lld", k ? " " : "", (long long)g->ranks[k]);
        }
        text(c, list);
        free(list);
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
    case TC_CSV_OPS: ops(&c, j); break;
    case TC_CSV_MODULES: modules(&c, j); break;
    case TC_CSV_TABLES: break;
    }
    return ferror(out) ? -1 : 0;
}
