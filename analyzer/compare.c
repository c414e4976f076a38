/* compare.c: the comparison model (see compare.h): reads a run's tracecost/1 JSON into a
 * tc_run_summary with yajl's tree API, runs the cost model on it, and compares two runs. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "compare.h"
#include "reports/textfmt.h"
#include "base/version.h"
#include "reports/json_report.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

static void set_err(char *err, size_t n, const char *fmt, ...) {
    if (!err || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static char *dup_str(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void tc_run_summary_free(tc_run_summary *s) {
    free(s->label);
    free(s->tool_version);
    free(s->device);
    free(s->verdict);
    for (size_t i = 0; i < s->n_colls; i++) { free(s->colls[i].name); free(s->colls[i].process_group); }
    free(s->colls);
    for (size_t i = 0; i < s->n_saved_cost_kv; i++) free(s->saved_cost_kv[i]);
    free(s->saved_cost_kv);
    free(s->cost);
    memset(s, 0, sizeof *s);
}

bool tc_run_is_saved_result(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char buf[4097];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) return false;
    size_t i = 0;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')) i++;
    if (i >= n || buf[i] != '{') return false;
    const char *k = strstr(buf + i, "\"schema\"");
    if (!k) return false;
    /* the schema key must be the object's first key */
    for (const char *p = buf + i + 1; p < k; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') return false;
    k += 8;
    while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r' || *k == ':') k++;
    return !strncmp(k, "\"tracecost/1\"", 13);
}

/* ---- JSON access ------------------------------------------------------------------------- */

static yajl_val get(yajl_val v, const char *key) {
    if (!v || !YAJL_IS_OBJECT(v)) return NULL;
    for (size_t i = 0; i < v->u.object.len; i++)
        if (!strcmp(v->u.object.keys[i], key)) return v->u.object.values[i];
    return NULL;
}

static bool num(yajl_val v, double *out) {
    if (!v || !YAJL_IS_NUMBER(v)) return false;
    *out = YAJL_GET_DOUBLE(v);
    return isfinite(*out);
}

static const char *str(yajl_val v) { return v && YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL; }

static void cost_key_to_option(const char *key, char *out, size_t n) {
    size_t i = 0;
    for (; key[i] && i + 1 < n; i++) out[i] = key[i] == '_' ? '-' : key[i];
    out[i] = 0;
}

static int add_kv(tc_run_summary *s, const char *k, const char *v) {
    char **nk = realloc(s->saved_cost_kv, (s->n_saved_cost_kv + 1) * sizeof *nk);
    if (!nk) return -1;
    s->saved_cost_kv = nk;
    size_t len = strlen(k) + strlen(v) + 2;
    char *e = malloc(len);
    if (!e) return -1;
    snprintf(e, len, "%s=%s", k, v);
    s->saved_cost_kv[s->n_saved_cost_kv++] = e;
    return 0;
}

int tc_run_summary_from_json_text(tc_run_summary *s, const char *text, const char *label,
                                  bool from_json, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    char perr[256] = "";
    yajl_val root = yajl_tree_parse(text, perr, sizeof perr);
    if (!root) { set_err(err, errlen, "%s: not valid JSON: %s", label, perr); return -1; }
    int rc = -1;
    const char *schema = str(get(root, "schema"));
    if (!schema || strcmp(schema, TC_SCHEMA)) {
        set_err(err, errlen, "%s: not a tracecost result (schema \"%s\", want \"%s\")", label,
                schema ? schema : "missing", TC_SCHEMA);
        goto out;
    }
    yajl_val sm = get(root, "summary");
    if (!sm || !YAJL_IS_OBJECT(sm)) { set_err(err, errlen, "%s: no \"summary\" object", label); goto out; }
    s->label = dup_str(label);
    s->from_json = from_json;
    s->tool_version = dup_str(str(get(root, "tool_version")));
    double d;
    s->world_size = num(get(sm, "ranks"), &d) && d >= 1 ? (int)d : 1;
    s->has_step_time = num(get(sm, "step_time_us"), &s->step_time_us) && s->step_time_us > 0;
    yajl_val sh = get(sm, "shares");
    num(get(sh, "compute"), &s->share_compute);
    num(get(sh, "exposed_comm"), &s->share_exposed_comm);
    num(get(sh, "memory_exposed"), &s->share_memory);
    num(get(sh, "idle"), &s->share_idle);
    s->split_known = num(get(sh, "exposed_transfer"), &s->share_exposed_transfer) &&
                     num(get(sh, "exposed_wait"), &s->share_exposed_wait);
    if (!s->split_known) { s->share_exposed_transfer = 0; s->share_exposed_wait = 0; }
    s->has_mfu = num(get(sm, "mfu"), &s->mfu);
    s->has_busbw = num(get(sm, "fabric_busbw_GBps"), &s->fabric_busbw_GBps);
    s->has_straggler = num(get(sm, "straggler_rank"), &d);
    s->straggler_rank = s->has_straggler ? (long long)d : -1;
    s->verdict = dup_str(str(get(sm, "verdict")) ? str(get(sm, "verdict")) : "unknown");

    yajl_val ranks = get(root, "ranks");
    double fsum = 0;
    size_t fn = 0;
    if (ranks && YAJL_IS_ARRAY(ranks)) {
        for (size_t i = 0; i < ranks->u.array.len; i++) {
            yajl_val r = ranks->u.array.values[i];
            if (!s->device && str(get(r, "device"))) s->device = dup_str(str(get(r, "device")));
            if (num(get(r, "flops_per_step"), &d) && d > 0) { fsum += d; fn++; }
        }
    }
    if (fn) { s->has_flops = true; s->flops_per_step = fsum / (double)fn; }

    yajl_val colls = get(root, "collectives");
    if (colls && YAJL_IS_ARRAY(colls) && colls->u.array.len) {
        s->colls = calloc(colls->u.array.len, sizeof *s->colls);
        if (!s->colls) { set_err(err, errlen, "out of memory"); goto out; }
        for (size_t i = 0; i < colls->u.array.len; i++) {
            yajl_val c = colls->u.array.values[i];
            tc_cmp_coll *o = &s->colls[s->n_colls++];
            o->name = dup_str(str(get(c, "name")) ? str(get(c, "name")) : "?");
            o->process_group = dup_str(str(get(c, "process_group")));
            o->bytes = num(get(c, "bytes"), &d) ? (long long)d : -1;
            o->count = num(get(c, "count"), &d) ? (unsigned long long)d : 0;
            num(get(c, "transfer_us_median"), &o->transfer_us_median);
            o->has_busbw = num(get(c, "busbw_GBps"), &o->busbw_GBps);
        }
    }

    /* cost inputs: the trace's world size, and what the user set at analyze time */
    yajl_val in = get(get(root, "cost"), "inputs");
    if (in && YAJL_IS_OBJECT(in)) {
        for (size_t i = 0; i < in->u.object.len; i++) {
            const char *key = in->u.object.keys[i];
            yajl_val e = in->u.object.values[i];
            const char *src = str(get(e, "source"));
            yajl_val val = get(e, "value");
            if (!src || !val) continue;
            if (!strcmp(key, "gpus") && !strncmp(src, "trace", 5) && num(val, &d) && d > s->world_size)
                s->world_size = (int)d;
            if (strncmp(src, "flag", 4) && strncmp(src, "config", 6)) continue;
            char opt[64], vbuf[64];
            cost_key_to_option(key, opt, sizeof opt);
            const char *vs = NULL;
            if (YAJL_IS_STRING(val)) vs = YAJL_GET_STRING(val);
            else if (num(val, &d)) { snprintf(vbuf, sizeof vbuf, "%.17g", d); vs = vbuf; }
            if (vs && add_kv(s, opt, vs)) { set_err(err, errlen, "out of memory"); goto out; }
        }
    }
    if (!s->label || !s->verdict) { set_err(err, errlen, "out of memory"); goto out; }
    rc = 0;
out:
    yajl_tree_free(root);
    if (rc) tc_run_summary_free(s);
    return rc;
}

int tc_run_summary_from_json_file(tc_run_summary *s, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) { set_err(err, errlen, "%s: cannot open", path); return -1; }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) { free(buf); set_err(err, errlen, "%s: cannot read", path); return -1; }
    buf[n] = 0;
    int rc = tc_run_summary_from_json_text(s, buf, path, true, err, errlen);
    free(buf);
    return rc;
}

int tc_run_summary_from_job(tc_run_summary *s, const tc_job *j, const char *label, char *err,
                            size_t errlen) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) { set_err(err, errlen, "out of memory"); return -1; }
    int w = tc_json_report_write(f, j, NULL, NULL);
    if (fclose(f) || w) { free(buf); set_err(err, errlen, "out of memory rendering %s", label); return -1; }
    int rc = tc_run_summary_from_json_text(s, buf, label, false, err, errlen);
    free(buf);
    if (rc) return rc;
    for (size_t i = 0; i < j->n_traces; i++)
        if (j->traces[i].world_size > s->world_size) s->world_size = (int)j->traces[i].world_size;
    return 0;
}

int tc_run_cost(tc_run_summary *s, tc_cost_inputs *in, bool flags_given, char *err, size_t errlen) {
    char e[400];
    for (size_t i = 0; i < s->n_saved_cost_kv; i++) {
        char k[64];
        const char *eq = strchr(s->saved_cost_kv[i], '=');
        size_t kl = (size_t)(eq - s->saved_cost_kv[i]);
        if (kl >= sizeof k) continue;
        memcpy(k, s->saved_cost_kv[i], kl);
        k[kl] = 0;
        char origin[TC_COST_ORIGIN_LEN];
        snprintf(origin, sizeof origin, "saved result (%s at analyze time)", "flag/config");
        const tc_cost_input_desc *d = tc_cost_input_find(k); /* values were written with %.17g */
        int bad = !strcmp(k, "gpu") ? tc_cost_set_gpu(in, eq + 1, TC_COST_SRC_CONFIG, origin, e, sizeof e)
                  : d ? tc_cost_set_value(in, d, strtod(eq + 1, NULL), TC_COST_SRC_CONFIG, origin, e, sizeof e) : 0;
        if (bad < 0) {
            set_err(err, errlen, "%s: saved cost input: %s", s->label, e);
            return -1;
        }
    }
    tc_cost_apply_catalog(in, s->device ? tc_gpu_find_by_device_name(s->device) : NULL);
    tc_cost_trace_facts f = tc_cost_facts_from_shares(
        s->world_size, s->split_known, s->share_exposed_transfer, s->share_exposed_wait, s->share_exposed_comm,
        s->share_idle, s->share_memory, s->has_step_time ? s->step_time_us : 0, s->has_busbw ? s->fabric_busbw_GBps : 0);
    s->cost = malloc(sizeof *s->cost);
    if (!s->cost) { set_err(err, errlen, "out of memory"); return -1; }
    if (tc_cost_compute(in, &f, s->cost, e, sizeof e) == 0) { s->has_cost = true; return 0; }
    free(s->cost);
    s->cost = NULL;
    if (flags_given) { set_err(err, errlen, "%s: %s", s->label, e); return -1; }
    snprintf(s->cost_note, sizeof s->cost_note, "no cost: %s (pass --price-per-gpu-hour or --gpu NAME)", e);
    return 0;
}

size_t tc_cmp_fmt_money(char *buf, size_t n, double v) {
    double m = fabs(v);
    if (m >= 1 || m == 0 || !isfinite(m)) return tc_fmt_money(buf, n, v, m >= 100 ? 0 : 2);
    int dec = 3 - (int)floor(log10(m));
    if (dec > 12) dec = 12;
    int w = snprintf(buf, n, "%s$%.*f", v < 0 ? "-" : "", dec, m);
    return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n ? n - 1 : 0;
}

/* ---- the comparison ---------------------------------------------------------------------- */

static tc_cmp_pair pair(bool ha, double a, bool hb, double b) {
    tc_cmp_pair p;
    memset(&p, 0, sizeof p);
    p.has_a = ha; p.a = ha ? a : 0;
    p.has_b = hb; p.b = hb ? b : 0;
    p.has_diff = ha && hb;
    p.diff = p.has_diff ? b - a : 0;
    p.has_ratio = p.has_diff && a != 0;
    p.ratio = p.has_ratio ? b / a : 0;
    return p;
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static void add_diff(tc_comparison *c, const char *fmt, ...) {
    if (c->n_differences >= TC_CMP_MAX_DIFFS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->differences[c->n_differences++], sizeof c->differences[0], fmt, ap);
    va_end(ap);
}

/* "of 26214400 bytes", or "of unknown size" when the trace gave no size (bytes < 0). */
static const char *size_phrase(char *buf, size_t n, long long bytes) {
    if (bytes < 0) snprintf(buf, n, "of unknown size"); else snprintf(buf, n, "of %lld bytes", bytes);
    return buf;
}

static int match_colls(tc_comparison *c) {
    const tc_run_summary *a = c->a, *b = c->b;
    size_t cap = a->n_colls + b->n_colls;
    if (!cap) return 0;
    c->colls = calloc(cap, sizeof *c->colls);
    bool *used = calloc(b->n_colls + 1, sizeof *used);
    if (!c->colls || !used) { free(used); return -1; }
    for (size_t i = 0; i < a->n_colls; i++) {
        const tc_cmp_coll *x = &a->colls[i];
        size_t best = b->n_colls;
        for (int pass = 0; pass < 2 && best == b->n_colls; pass++)
            for (size_t k = 0; k < b->n_colls; k++) {
                const tc_cmp_coll *y = &b->colls[k];
                if (used[k] || strcmp(x->name, y->name) || x->bytes != y->bytes) continue;
                if (pass == 0 && !same_str(x->process_group, y->process_group)) continue;
                best = k;
                break;
            }
        tc_cmp_coll_row *r = &c->colls[c->n_colls++];
        r->a = x;
        if (best < b->n_colls) {
            used[best] = true;
            r->b = &b->colls[best];
            r->transfer_us = pair(true, x->transfer_us_median, true, r->b->transfer_us_median);
            r->busbw_GBps = pair(x->has_busbw, x->busbw_GBps, r->b->has_busbw, r->b->busbw_GBps);
            double t = r->transfer_us.has_ratio ? r->transfer_us.ratio : 1;
            r->change = t > 1 + TC_CMP_COLL_TOLERANCE ? "slower" : t < 1 - TC_CMP_COLL_TOLERANCE ? "faster" : "same";
        } else {
            r->transfer_us = pair(true, x->transfer_us_median, false, 0);
            r->busbw_GBps = pair(x->has_busbw, x->busbw_GBps, false, 0);
            r->change = "only in A";
            char sz[48];
            add_diff(c, "collective %s %s (%s) only in A", x->name, size_phrase(sz, sizeof sz, x->bytes),
                     x->process_group ? x->process_group : "no group");
        }
    }
    for (size_t k = 0; k < b->n_colls; k++) {
        if (used[k]) continue;
        const tc_cmp_coll *y = &b->colls[k];
        tc_cmp_coll_row *r = &c->colls[c->n_colls++];
        r->b = y;
        r->transfer_us = pair(false, 0, true, y->transfer_us_median);
        r->busbw_GBps = pair(false, 0, y->has_busbw, y->busbw_GBps);
        r->change = "only in B";
        char sz[48];
        add_diff(c, "collective %s %s (%s) only in B", y->name, size_phrase(sz, sizeof sz, y->bytes),
                 y->process_group ? y->process_group : "no group");
    }
    free(used);
    return 0;
}

/* One category of GPU time for the conclusion. */
typedef struct {
    const char *key, *label;
    double a, b;      /* shares */
} category;

int tc_compare(tc_comparison *c, const tc_run_summary *a, const tc_run_summary *b,
               double work_steps_per_month) {
    memset(c, 0, sizeof *c);
    c->a = a;
    c->b = b;
    c->gpus = pair(true, a->world_size, true, b->world_size);
    c->step_time_us = pair(a->has_step_time, a->step_time_us, b->has_step_time, b->step_time_us);
    double sa = a->step_time_us / 1e6, sb = b->step_time_us / 1e6; /* step seconds */
    c->steps_per_s = pair(a->has_step_time, 1 / sa, b->has_step_time, 1 / sb);
    c->gpu_s_per_step = pair(a->has_step_time, a->world_size * sa, b->has_step_time, b->world_size * sb);
    c->tflops_per_gpu = pair(a->has_step_time && a->has_flops, a->flops_per_step / sa / 1e12,
                             b->has_step_time && b->has_flops, b->flops_per_step / sb / 1e12);
    c->mfu = pair(a->has_mfu, a->mfu, b->has_mfu, b->mfu);
    c->share_compute = pair(true, a->share_compute, true, b->share_compute);
    c->share_exposed_comm = pair(true, a->share_exposed_comm, true, b->share_exposed_comm);
    c->share_exposed_transfer = pair(a->split_known, a->share_exposed_transfer, b->split_known, b->share_exposed_transfer);
    c->share_exposed_wait = pair(a->split_known, a->share_exposed_wait, b->split_known, b->share_exposed_wait);
    c->share_memory = pair(true, a->share_memory, true, b->share_memory);
    c->share_idle = pair(true, a->share_idle, true, b->share_idle);
    c->busbw_GBps = pair(a->has_busbw, a->fabric_busbw_GBps, b->has_busbw, b->fabric_busbw_GBps);
    double pa = a->has_cost ? a->cost->used.price_per_gpu_hour.value : 0;
    double pb = b->has_cost ? b->cost->used.price_per_gpu_hour.value : 0;
    c->price_per_gpu_hour = pair(a->has_cost, pa, b->has_cost, pb);
    double na = a->has_cost ? a->cost->used.gpus.value : a->world_size;
    double nb = b->has_cost ? b->cost->used.gpus.value : b->world_size;
    c->cost_per_step = pair(a->has_cost && a->has_step_time, pa * na * sa / 3600,
                            b->has_cost && b->has_step_time, pb * nb * sb / 3600);
    c->cost_per_effective_gpu_hour = pair(a->has_cost, a->has_cost ? a->cost->effective_price_per_gpu_hour : 0,
                                          b->has_cost, b->has_cost ? b->cost->effective_price_per_gpu_hour : 0);
    if (work_steps_per_month > 0) { c->work_steps_per_month = work_steps_per_month; c->work_from_flag = true; }
    else if (a->has_step_time) {
        double u = a->has_cost ? a->cost->used.utilization.value : 1.0;
        c->work_steps_per_month = TC_COST_HOURS_PER_MONTH * 3600.0 * u / sa;
    }
    c->has_monthly_diff = c->cost_per_step.has_diff && c->work_steps_per_month > 0;
    c->monthly_diff = c->has_monthly_diff ? c->work_steps_per_month * c->cost_per_step.diff : 0;

    /* workload check */
    if (a->world_size != b->world_size)
        add_diff(c, "different job sizes: A runs on %d GPUs, B on %d (figures compare per GPU and per step)",
                 a->world_size, b->world_size);
    if (a->has_flops && b->has_flops) {
        double hi = fmax(a->flops_per_step, b->flops_per_step);
        if (hi > 0 && fabs(a->flops_per_step - b->flops_per_step) / hi > TC_CMP_FLOPS_TOLERANCE)
            add_diff(c, "different FLOPs per step per GPU: A %.4g, B %.4g (from shapes)",
                     a->flops_per_step, b->flops_per_step);
    }
    if (match_colls(c)) return -1;
    c->same_workload = c->n_differences == 0;

    /* cheaper side: cost per step when both prices are known, else GPU-seconds per step */
    c->cheaper = '?';
    double xa = 0, xb = 0;
    if (c->cost_per_step.has_diff) { c->by_cost = true; xa = c->cost_per_step.a; xb = c->cost_per_step.b; }
    else if (c->gpu_s_per_step.has_diff) { xa = c->gpu_s_per_step.a; xb = c->gpu_s_per_step.b; }
    char *p = c->conclusion;
    size_t n = sizeof c->conclusion;
    if (xa <= 0 || xb <= 0) {
        snprintf(p, n, "No conclusion: %s.", !a->has_step_time || !b->has_step_time
                 ? "a step time is missing (no ProfilerStep spans), so work per step cannot be compared"
                 : "the cost per step is zero on one side");
        return 0;
    }
    double hi = fmax(xa, xb), lo = fmin(xa, xb);
    c->cheaper_pct = (hi - lo) / hi * 100;
    const char *unit = c->by_cost ? "cheaper per step" : "cheaper per step in GPU time";
    if (c->cheaper_pct < 0.05) {
        c->cheaper = '=';
        snprintf(p, n, "A and B cost the same per step (within 0.05%%: %s).",
                 c->by_cost ? "cost per step" : "GPU-seconds per step");
    } else {
        c->cheaper = xb < xa ? 'B' : 'A';
        char X = c->cheaper;
        const tc_run_summary *cx = X == 'A' ? a : b, *cy = X == 'A' ? b : a;
        /* what drives it: price ratio, GPU count, or the GPU-time category with the largest saving */
        double price_r = c->by_cost && pa > 0 && pb > 0 ? fabs(log(pb / pa)) : 0;
        double time_r = fabs(log(c->gpu_s_per_step.b / c->gpu_s_per_step.a));
        char reason[600];
        if (price_r > time_r) {
            snprintf(c->reason_key, sizeof c->reason_key, "gpu_price");
            double px = X == 'A' ? pa : pb, py = X == 'A' ? pb : pa;
            snprintf(reason, sizeof reason, "its GPUs cost $%.2f per GPU-hour against $%.2f", px, py);
        } else {
            category cats[5] = {
                {a->split_known && b->split_known ? "exposed_transfer" : "exposed_comm",
                 a->split_known && b->split_known ? "exposed transfer" : "exposed communication",
                 a->split_known && b->split_known ? a->share_exposed_transfer : a->share_exposed_comm,
                 a->split_known && b->split_known ? b->share_exposed_transfer : b->share_exposed_comm},
                {"exposed_wait", "exposed wait", a->share_exposed_wait, b->share_exposed_wait},
                {"memory", "exposed memory copy", a->share_memory, b->share_memory},
                {"idle", "idle", a->share_idle, b->share_idle},
                {"compute_time", "compute", a->share_compute, b->share_compute},
            };
            /* GPU-seconds per step in each category; the largest saving on the cheaper side */
            double best = 0;
            int bi = -1;
            for (int k = 0; k < 5; k++) {
                double ta = cats[k].a * c->gpu_s_per_step.a, tb = cats[k].b * c->gpu_s_per_step.b;
                double saving = X == 'B' ? ta - tb : tb - ta;
                if (saving > best) { best = saving; bi = k; }
            }
            double nx = cx->world_size, ny = cy->world_size;
            if (nx != ny && fabs(log(nx / ny)) >= time_r * 0.5 && (bi < 0 || bi == 4)) {
                snprintf(c->reason_key, sizeof c->reason_key, "gpu_count");
                snprintf(reason, sizeof reason, "it runs a step on %d GPUs against %d", cx->world_size, cy->world_size);
            } else if (bi == 4) {
                snprintf(c->reason_key, sizeof c->reason_key, "compute_time");
                snprintf(reason, sizeof reason, "its compute takes %.3f ms per step against %.3f ms",
                         cx->share_compute * cx->step_time_us / 1e3, cy->share_compute * cy->step_time_us / 1e3);
            } else if (bi >= 0) {
                snprintf(c->reason_key, sizeof c->reason_key, "%s", cats[bi].key);
                double sx = X == 'A' ? cats[bi].a : cats[bi].b, sy = X == 'A' ? cats[bi].b : cats[bi].a;
                snprintf(reason, sizeof reason, "its %s share is %.1f%% against %.1f%%", cats[bi].label,
                         sx * 100, sy * 100);
            } else {
                snprintf(c->reason_key, sizeof c->reason_key, "step_time");
                snprintf(reason, sizeof reason, "its step takes %.3f ms against %.3f ms",
                         cx->step_time_us / 1e3, cy->step_time_us / 1e3);
            }
        }
        size_t w = (size_t)snprintf(p, n, "%c is %.1f%% %s: %s", X, c->cheaper_pct, unit, reason);
        if (w < n && c->by_cost) {
            double cpx = X == 'A' ? c->cost_per_step.a : c->cost_per_step.b;
            double cpy = X == 'A' ? c->cost_per_step.b : c->cost_per_step.a;
            char mx[48], my[48], mm[48], ww[48];
            tc_cmp_fmt_money(mx, sizeof mx, cpx);
            tc_cmp_fmt_money(my, sizeof my, cpy);
            w += (size_t)snprintf(p + w, n - w, " (%s against %s per step", mx, my);
            if (w < n && c->has_monthly_diff) {
                tc_cmp_fmt_money(mm, sizeof mm, fabs(c->monthly_diff));
                tc_fmt_grouped(ww, sizeof ww, c->work_steps_per_month, 0);
                w += (size_t)snprintf(p + w, n - w, "; %s a month at %s steps a month", mm, ww);
            }
            if (w < n) w += (size_t)snprintf(p + w, n - w, ")");
        }
        if (w < n) w += (size_t)snprintf(p + w, n - w, ".");
    }
    if (!c->same_workload) {
        size_t w = strlen(p);
        if (w < n) snprintf(p + w, n - w, " Caution: the runs are not the same workload (%s), so per-step figures compare different work.",
                            c->differences[0]);
    }
    return 0;
}

void tc_comparison_free(tc_comparison *c) {
    free(c->colls);
    c->colls = NULL;
    c->n_colls = 0;
}
