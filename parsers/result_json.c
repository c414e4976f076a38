/* result_json.c: reader of a saved tracecost/1 result (see result_json.h), with yajl's tree API:
 * a result is small (a summary, not the events). */
#include "result_json.h"
#include "source.h"
#include "base/util.h"
#include "base/version.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_tree.h>

/* ---- telling a saved result from a trace -------------------------------------------------- */

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* The object's first key is "schema" and its value "tracecost/1" (buf NUL-terminated). */
static bool schema_first(const char *buf) {
    const char *o = skip_space(buf);
    if (*o != '{') return false;
    const char *k = strstr(o, "\"schema\"");
    if (!k || skip_space(o + 1) != k) return false;
    k += 8;
    while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r' || *k == ':') k++;
    return !strncmp(k, "\"" TC_SCHEMA "\"", strlen(TC_SCHEMA) + 2);
}

bool tc_result_json_is_saved(const char *path) {
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    char err[512], buf[4097];
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) return false;
    long n = tc_source_format_of(src) == TC_SOURCE_PLAIN ? tc_source_read(src, buf, sizeof buf - 1, err, sizeof err) : 0;
    tc_source_close(src);
    if (n <= 0) return false;
    buf[n] = '\0';
    return schema_first(buf);
}

/* ---- JSON access ------------------------------------------------------------------------- */

static yajl_val get(yajl_val v, const char *key) {
    if (!v || !YAJL_IS_OBJECT(v)) return NULL;
    for (size_t i = 0; i < v->u.object.len; i++)
        if (!strcmp(v->u.object.keys[i], key)) return v->u.object.values[i];
    return NULL;
}

/* A finite number into *out (a non-finite one is still stored, and false returned). */
static bool num(yajl_val v, double *out) {
    if (!v || !YAJL_IS_NUMBER(v)) return false;
    *out = YAJL_GET_DOUBLE(v);
    return isfinite(*out);
}

/* A number that fits a long long (counts, bytes, ranks). */
static bool whole(yajl_val v, double *out) { return num(v, out) && fabs(*out) < 9.2e18; }

static const char *str(yajl_val v) { return v && YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL; }

/* A copy of v's string into *dst (NULL when v is no string, or `fallback` when given). False only
 * out of memory. */
static bool take_str(char **dst, yajl_val v, const char *fallback) {
    const char *s = str(v) ? str(v) : fallback;
    *dst = tc_strdup(s);
    return !s || *dst;
}

/* ---- the parts of a result --------------------------------------------------------------- */

/* "YYYY-MM-DDTHH:MM:SSZ" as s since 1970-01-01 UTC; false when it is not one. */
static bool utc_time(const char *t, long long *out) {
    int y, mo, d, h, mi, se, n = 0;
    if (!t || sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || t[n] || mo < 1 ||
        mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return false;
    *out = (long long)tc_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return true;
}

/* One reason of summary.basis_summary ("2 of 128 ranks"), as reports/findings_text.c
 * tc_basis_list_text words it, back into its code and numbers; false when it is none of them. */
static bool basis_piece(const char *p, size_t len, tc_basis_reason *b) {
    char t[256];
    long long x = 0, y = 0;
    double v = 0;
    int n = -1;
    if (len >= sizeof t) return false;
    for (size_t i = 0, run = 0; i < len; i++) /* no number past what a long long holds */
        if ((run = p[i] >= '0' && p[i] <= '9' ? run + 1 : 0) > 18) return false;
    memcpy(t, p, len);
    t[len] = '\0';
    memset(b, 0, sizeof *b);
#define WHOLE(fmt, ...) (n = -1, sscanf(t, fmt "%n", __VA_ARGS__, &n) >= 1 && n == (int)len)
    if (WHOLE("%lld of %lld ranks of a process group", &x, &y)) { b->code = TC_BASIS_GROUP_RANKS; b->present = x; b->size = y; }
    else if (WHOLE("%lld of %lld ranks", &x, &y)) { b->code = TC_BASIS_WORLD_SIZE; b->count = x; b->of = y; }
    else if (WHOLE("%lld of %lld collectives unmatched, %lf%% of exposed communication", &x, &y, &v) && isfinite(v)) {
        b->code = TC_BASIS_UNMATCHED; b->count = x; b->of = y; b->share = v / 100;
    } /* before issue 28: */
    else if (WHOLE("%lf%% of exposed communication unmatched", &v) && isfinite(v)) { b->code = TC_BASIS_UNMATCHED; b->share = v / 100; }
    else if (WHOLE("%lld of %lld inputs cut short", &x, &y)) { b->code = TC_BASIS_SALVAGED; b->count = x; b->of = y; }
    else if (!strcmp(t, "one rank, wait and transfer not split")) { b->code = TC_BASIS_NOT_SPLIT; b->count = 1; }
    else if (!strcmp(t, "collectives unmatched, wait and transfer not split")) { b->code = TC_BASIS_NOT_SPLIT; b->count = 2; }
    else return false;
#undef WHOLE
    return true;
}

/* summary.basis_summary back into codes and numbers (s->basis); words tracecost does not write
 * are left out. */
static void read_basis_summary(tc_run_summary *s, const char *text) {
    for (const char *p = text; p && *p && s->n_basis < TC_MAX_BASIS;) {
        const char *end = strstr(p, "; ");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (basis_piece(p, len, &s->basis[s->n_basis])) s->n_basis++;
        p = end ? end + 2 : NULL;
    }
}

/* The process groups between nodes: summary.inter_node_* and the inter-node rows of
 * process_groups[] with collectives. */
static void read_inter_node(tc_run_summary *s, yajl_val sm, yajl_val groups) {
    double d;
    num(get(sm, "window_us"), &s->window_us);
    s->groups_scoped = num(get(sm, "inter_node_exposed_transfer_us"), &s->inter_exposed_transfer_us);
    if (!s->groups_scoped) s->inter_exposed_transfer_us = 0;
    s->has_inter_busbw = num(get(sm, "inter_node_busbw_GBps"), &s->inter_busbw_GBps);
    if (!groups || !YAJL_IS_ARRAY(groups)) return;
    for (size_t i = 0; i < groups->u.array.len && s->inter_groups < 1000000000; i++) {
        yajl_val g = groups->u.array.values[i];
        const char *scope = str(get(g, "scope"));
        if (scope && !strcmp(scope, "inter-node") && num(get(g, "comm_us"), &d) && d > 0) s->inter_groups++;
    }
}

/* The summary's basis, nodes and capture date (absent in results of older versions: unknown). */
static void read_basis(tc_run_summary *s, yajl_val sm) {
    double d;
    const char *basis = str(get(sm, "basis")), *rule = str(get(sm, "node_rule"));
    s->partial = basis && !strcmp(basis, "partial");
    if (s->partial) read_basis_summary(s, str(get(sm, "basis_summary")));
    yajl_val ub = get(sm, "transfer_upper_bound");
    s->transfer_upper_bound = ub && YAJL_IS_TRUE(ub);
    s->nodes = whole(get(sm, "nodes"), &d) && d >= 1 && d <= 1e9 ? (int)d : 0;
    yajl_val assumed = get(sm, "nodes_assumed"); /* before 2026-12: a nodes note meant assumed */
    s->nodes_assumed = assumed ? YAJL_IS_TRUE(assumed) : str(get(sm, "nodes_note")) != NULL;
    s->gpus_per_node = rule && strcmp(rule, "assumed") && !s->nodes_assumed && whole(get(sm, "gpus_per_node"), &d) && d >= 1 && d <= 1e9
                           ? (int)d : 0;
    s->has_capture_time = utc_time(str(get(sm, "captured_at")), &s->capture_unix_s);
}

/* "summary": world size, step time, shares, MFU, fabric bandwidth, straggler, verdict. */
static bool read_summary(tc_run_summary *s, yajl_val sm) {
    double d;
    s->world_size = whole(get(sm, "ranks"), &d) && d >= 1 && d <= 1e9 ? (int)d : 1;
    s->has_step_time = num(get(sm, "step_time_us"), &s->step_time_us) && s->step_time_us > 0;
    yajl_val sh = get(sm, "shares");
    num(get(sh, "compute"), &s->share_compute);
    num(get(sh, "exposed_comm"), &s->share_exposed_comm);
    num(get(sh, "memory_exposed"), &s->share_memory);
    if (!num(get(sh, "memory_host_exposed"), &s->share_memory_host)) /* before issue 28: not split */
        s->share_memory_host = s->share_memory;
    num(get(sh, "idle"), &s->share_idle);
    s->split_known = num(get(sh, "exposed_transfer"), &s->share_exposed_transfer) &&
                     num(get(sh, "exposed_wait"), &s->share_exposed_wait);
    if (!s->split_known) { s->share_exposed_transfer = 0; s->share_exposed_wait = 0; }
    yajl_val st = get(sm, "step_shares"); /* null without steps, absent before issue 28 */
    s->has_step_shares = st && YAJL_IS_OBJECT(st) && num(get(st, "compute"), &s->step_share_compute);
    if (s->has_step_shares) {
        num(get(st, "exposed_comm"), &s->step_share_exposed_comm);
        num(get(st, "memory_exposed"), &s->step_share_memory);
        if (!num(get(st, "memory_host_exposed"), &s->step_share_memory_host)) s->step_share_memory_host = s->step_share_memory;
        num(get(st, "idle"), &s->step_share_idle);
        if (s->split_known) {
            num(get(st, "exposed_transfer"), &s->step_share_exposed_transfer);
            num(get(st, "exposed_wait"), &s->step_share_exposed_wait);
        }
        num(get(sm, "step_window_us"), &s->step_window_us);
    }
    s->has_mfu = num(get(sm, "mfu"), &s->mfu);
    s->has_busbw = num(get(sm, "fabric_busbw_GBps"), &s->fabric_busbw_GBps);
    s->has_straggler = whole(get(sm, "straggler_rank"), &d);
    s->straggler_rank = s->has_straggler ? (long long)d : -1;
    if (whole(get(sm, "world_size"), &d) && d > s->world_size && d <= 1e9) s->world_size = (int)d;
    read_basis(s, sm);
    return take_str(&s->verdict, get(sm, "verdict"), "unknown");
}

/* "ranks[]": the first rank's device, the mean FLOPs per step over the ranks that have them, and
 * each rank's window and where it went (tc_cmp_rank); the most steps of a rank. */
static bool read_ranks(tc_run_summary *s, yajl_val ranks) {
    if (!ranks || !YAJL_IS_ARRAY(ranks)) return true;
    double fsum = 0, d;
    size_t fn = 0;
    if (ranks->u.array.len && !(s->ranks = calloc(ranks->u.array.len, sizeof *s->ranks))) return false;
    for (size_t i = 0; i < ranks->u.array.len; i++) {
        yajl_val r = ranks->u.array.values[i], steps = get(r, "steps");
        if (!s->device && str(get(r, "device")) && !take_str(&s->device, get(r, "device"), NULL)) return false;
        if (num(get(r, "flops_per_step"), &d) && d > 0) { fsum += d; fn++; }
        tc_cmp_rank *o = &s->ranks[s->n_ranks++];
        o->rank = whole(get(r, "rank"), &d) ? (long long)d : (long long)i;
        num(get(r, "window_us"), &o->window_us);
        num(get(r, "compute_us"), &o->compute_us);
        num(get(r, "exposed_comm_us"), &o->exposed_comm_us);
        num(get(r, "memory_exposed_us"), &o->memory_us);
        num(get(r, "idle_us"), &o->idle_us);
        o->has_step_time = num(get(r, "step_time_us"), &o->step_time_us);
        if (steps && YAJL_IS_ARRAY(steps) && steps->u.array.len > s->steps) s->steps = steps->u.array.len;
    }
    if (fn) { s->has_flops = true; s->flops_per_step = fsum / (double)fn; }
    return true;
}

/* "collectives[]": one tc_cmp_coll each. */
static bool read_colls(tc_run_summary *s, yajl_val colls) {
    if (!colls || !YAJL_IS_ARRAY(colls) || !colls->u.array.len) return true;
    s->colls = calloc(colls->u.array.len, sizeof *s->colls);
    if (!s->colls) return false;
    for (size_t i = 0; i < colls->u.array.len; i++) {
        yajl_val c = colls->u.array.values[i];
        tc_cmp_coll *o = &s->colls[s->n_colls++];
        double d;
        if (!take_str(&o->name, get(c, "name"), "?") || !take_str(&o->process_group, get(c, "process_group"), NULL))
            return false;
        o->bytes = whole(get(c, "bytes"), &d) ? (long long)d : -1;
        o->count = whole(get(c, "count"), &d) && d >= 0 ? (unsigned long long)d : 0;
        num(get(c, "transfer_us_median"), &o->transfer_us_median);
        o->has_busbw = num(get(c, "busbw_GBps"), &o->busbw_GBps);
    }
    return true;
}

/* "top_kernels[]": one tc_cmp_kernel each. */
static bool read_kernels(tc_run_summary *s, yajl_val top) {
    if (!top || !YAJL_IS_ARRAY(top) || !top->u.array.len) return true;
    if (!(s->kernels = calloc(top->u.array.len, sizeof *s->kernels))) return false;
    for (size_t i = 0; i < top->u.array.len; i++) {
        yajl_val k = top->u.array.values[i];
        tc_cmp_kernel *o = &s->kernels[s->n_kernels++];
        double d;
        if (!take_str(&o->name, get(k, "name"), "?")) return false;
        num(get(k, "time_us"), &o->time_us);
        o->count = whole(get(k, "count"), &d) && d >= 0 ? (unsigned long long)d : 0;
        o->has_share = num(get(k, "share_of_compute"), &o->share_of_compute);
    }
    return true;
}

/* The row of cost_inputs.def whose JSON key is key; NULL when none is. */
static const tc_cost_input_desc *input_by_key(const char *key) {
    for (int id = 0; id < TC_COST_INPUT_COUNT; id++)
        if (!strcmp(tc_cost_input((tc_cost_input_id)id)->key, key)) return tc_cost_input((tc_cost_input_id)id);
    return NULL;
}

/* Appends a saved cost input: a number for row d, or (d NULL) the catalog GPU gpu. */
static bool add_cost_input(tc_run_summary *s, const tc_cost_input_desc *d, double value, const char *gpu) {
    tc_saved_cost_input *n = realloc(s->saved_cost, (s->n_saved_cost + 1) * sizeof *n);
    if (!n) return false;
    s->saved_cost = n;
    tc_saved_cost_input in = {d, d ? value : 0, d ? NULL : tc_strdup(gpu)};
    if (!d && !in.gpu) return false;
    s->saved_cost[s->n_saved_cost++] = in;
    return true;
}

/* "cost.inputs": the trace's world size (source "trace"), and the values the user set at analyze
 * time (source "flag..." or "config...": the numbers of cost_inputs.def and the GPU). */
static bool read_cost_inputs(tc_run_summary *s, yajl_val in) {
    if (!in || !YAJL_IS_OBJECT(in)) return true;
    for (size_t i = 0; i < in->u.object.len; i++) {
        const char *key = in->u.object.keys[i];
        yajl_val e = in->u.object.values[i];
        const char *src = str(get(e, "source"));
        yajl_val val = get(e, "value");
        const tc_cost_input_desc *d = input_by_key(key);
        double v;
        if (!src || !val) continue;
        if (!strcmp(key, "gpus") && !strncmp(src, "trace", 5) && num(val, &v) && v > s->world_size && v <= 1e9)
            s->world_size = (int)v;
        if (strncmp(src, "flag", 4) && strncmp(src, "config", 6)) continue;
        if (!strcmp(key, "gpu") && str(val) && !add_cost_input(s, NULL, 0, str(val))) return false;
        if (d && num(val, &v) && !add_cost_input(s, d, v, NULL)) return false;
    }
    return true;
}

/* A saved figure that tracecost cannot have written (a share outside 0..1, shares that do not add
 * up, a negative time or bandwidth): *why says which; false. A result edited by hand or by
 * another tool is refused, never compared as if it were measured. */
static bool figures_possible(const tc_run_summary *s, char *why, size_t n) {
    static const double eps = 1e-3; /* the JSON keeps 10 significant digits: far closer than this */
    const struct { const char *key; double v; } shares[] = {
        {"compute", s->share_compute}, {"exposed_comm", s->share_exposed_comm}, {"memory_exposed", s->share_memory},
        {"idle", s->share_idle}, {"exposed_transfer", s->share_exposed_transfer}, {"exposed_wait", s->share_exposed_wait},
    };
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++)
        if (!(shares[i].v >= 0 && shares[i].v <= 1 + eps)) {
            snprintf(why, n, "summary.shares.%s is %g: a share lies between 0 and 1", shares[i].key, shares[i].v);
            return false;
        }
    double sum = s->share_compute + s->share_exposed_comm + s->share_memory + s->share_idle;
    if (sum != 0 && fabs(sum - 1) > eps) {
        snprintf(why, n, "summary.shares add up to %g: compute, exposed_comm, memory_exposed and idle make the whole "
                 "window (1)", sum);
        return false;
    }
    if (s->split_known && fabs(s->share_exposed_transfer + s->share_exposed_wait - s->share_exposed_comm) > eps) {
        snprintf(why, n, "summary.shares: exposed_transfer + exposed_wait is not exposed_comm");
        return false;
    }
    if (s->has_step_time && !(s->step_time_us < 9.2e15)) { /* 2^63 ns */
        snprintf(why, n, "summary.step_time_us is %g: longer than 292 years", s->step_time_us);
        return false;
    }
    if ((s->has_mfu && s->mfu < 0) || (s->has_busbw && s->fabric_busbw_GBps < 0)) {
        snprintf(why, n, "summary.%s is negative", s->has_mfu && s->mfu < 0 ? "mfu" : "fabric_busbw_GBps");
        return false;
    }
    for (size_t i = 0; i < s->n_colls; i++)
        if (s->colls[i].transfer_us_median < 0 || (s->colls[i].has_busbw && s->colls[i].busbw_GBps < 0)) {
            snprintf(why, n, "collectives[%zu] has a negative transfer time or bandwidth", i);
            return false;
        }
    return true;
}

tc_status tc_result_json_parse(tc_run_summary *s, const char *text, const char *label, tc_error *e) {
    memset(s, 0, sizeof *s);
    char perr[256] = "";
    yajl_val root = yajl_tree_parse(text, perr, sizeof perr);
    if (!root) return tc_error_set(e, TC_ERR_INPUT, "%s: not valid JSON: %s", label, perr);
    tc_status rc = TC_OK;
    const char *schema = str(get(root, "schema"));
    yajl_val sm = get(root, "summary");
    if (!schema || strcmp(schema, TC_SCHEMA))
        rc = tc_error_set(e, TC_ERR_INPUT, "%s: not a tracecost result (schema \"%s\", want \"%s\")", label,
                          schema ? schema : "missing", TC_SCHEMA);
    else if (!sm || !YAJL_IS_OBJECT(sm)) rc = tc_error_set(e, TC_ERR_INPUT, "%s: no \"summary\" object", label);
    else {
        s->from_json = true;
        s->label = tc_strdup(label);
        read_inter_node(s, sm, get(root, "process_groups"));
        if (!s->label || !take_str(&s->tool_version, get(root, "tool_version"), NULL) || !read_summary(s, sm) ||
            !read_ranks(s, get(root, "ranks")) || !read_colls(s, get(root, "collectives")) ||
            !read_kernels(s, get(root, "top_kernels")) ||
            !read_cost_inputs(s, get(get(root, "cost"), "inputs")))
            rc = tc_error_set(e, TC_ERR_NOMEM, "out of memory");
        char why[200];
        if (rc == TC_OK && !figures_possible(s, why, sizeof why))
            rc = tc_error_set(e, TC_ERR_INPUT, "%s: %s; not a result tracecost wrote", label, why);
    }
    yajl_tree_free(root);
    if (rc != TC_OK) tc_run_summary_free(s);
    return rc;
}

tc_status tc_result_json_read(tc_run_summary *s, const char *path, tc_error *e) {
    memset(s, 0, sizeof *s);
    char err[TC_ERROR_MSG];
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) return tc_error_set(e, TC_ERR_INPUT, "%s", err);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    long got = 0;
    while (buf) {
        if (n + 1 >= cap && tc_grow((void **)&buf, &cap, cap * 2, 1)) { free(buf); buf = NULL; break; }
        got = tc_source_read(src, buf + n, cap - n - 1, err, sizeof err);
        if (got <= 0) break;
        n += (size_t)got;
    }
    tc_source_close(src);
    if (!buf) return tc_error_set(e, TC_ERR_NOMEM, "%s: out of memory", path);
    if (got < 0) { free(buf); return tc_error_set(e, TC_ERR_INPUT, "%s", err); }
    buf[n] = '\0';
    tc_status rc = tc_result_json_parse(s, buf, path, e);
    free(buf);
    return rc;
}
