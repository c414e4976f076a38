/* cost.c: the cost model and the `tracecost cost` calculator (see cost.h and COST.md).
 * One table (opts[]) describes every numeric input: its flag name, the field holding it, its kind
 * (which fixes its valid range and message), unit and help line. Parsing, config files, range
 * checks, the inputs table and the JSON echo all walk that table, so a new flag is one line here
 * plus one field in tc_cost_inputs. */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */
#include "cost.h"
#include "cli/cliopt.h"
#include "cli/commands.h"
#include "reports/textfmt.h"
#include "reports/termtext.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* The option table                                                                             */

/* Kinds of value; each fixes the valid range and how the value prints. */
typedef enum {
    K_COUNT,     /* whole number >= 1 (GPUs) */
    K_MONTHS,    /* whole number 1..TC_COST_MAX_MONTHS */
    K_MONEY,     /* dollars >= 0 */
    K_PRICE,     /* dollars > 0 */
    K_SHARE,     /* (0, 1]; accepts "60%" */
    K_PUE,       /* ratio 1..10 */
    K_BANDWIDTH, /* GB/s > 0 */
    K_POWER      /* kW >= 0 */
} opt_kind;

typedef struct opt_def {
    const char *name;   /* flag name without dashes; also the config key */
    const char *json;   /* key in the JSON "inputs" object */
    size_t offset;      /* offsetof the tc_cost_value in tc_cost_inputs */
    opt_kind kind;      /* valid range and print format */
    const char *unit;   /* unit shown in tables and help */
    const char *help;   /* one help line, at most 58 characters */
} opt_def;

#define OPT(n, field, k, unit, help) {n, #field, offsetof(tc_cost_inputs, field), k, unit, help}
static const opt_def opts[] = {
    OPT("gpus", gpus, K_COUNT, "GPUs", "GPUs priced (default: the job's world size)"),
    OPT("price-per-gpu-hour", price_per_gpu_hour, K_PRICE, "$/GPU-hour",
        "rent (default: the --gpu catalog price)"),
    OPT("purchase-per-gpu", purchase_per_gpu, K_MONEY, "$/GPU",
        "purchase incl. server share (default: catalog)"),
    OPT("fabric-cost", fabric_cost, K_MONEY, "$", "fabric in total (default: $15,000 per 8 GPUs)"),
    OPT("power-kw-per-gpu", power_kw_per_gpu, K_POWER, "kW/GPU",
        "wall power incl. server share (default: TDP x 1.79)"),
    OPT("electricity-per-kwh", electricity_per_kwh, K_MONEY, "$/kWh", "electricity (default: 0.10)"),
    OPT("pue", pue, K_PUE, "ratio", "facility power / IT power (default: 1.3)"),
    OPT("ops-per-month", ops_per_month, K_MONEY, "$/month",
        "staff, colocation, support (default: 0)"),
    OPT("months", months, K_MONTHS, "months", "horizon of the comparison (default: 36)"),
    OPT("utilization", utilization, K_SHARE, "share", "share of hours running jobs (default: 1.0)"),
    OPT("network-efficiency", network_efficiency, K_SHARE, "share",
        "e = 1 - exposed transfer share (needed without a trace)"),
    OPT("rent-network-efficiency", rent_network_efficiency, K_SHARE, "share",
        "efficiency on the rented fabric (default: e)"),
    OPT("fabric-GBps", fabric_GBps, K_BANDWIDTH, "GB/s",
        "measured fabric bus bandwidth (default: from a trace)"),
    OPT("fabric-target-GBps", fabric_target_GBps, K_BANDWIDTH, "GB/s",
        "what-if: the faster fabric's bus bandwidth"),
    OPT("fabric-upgrade-cost", fabric_upgrade_cost, K_MONEY, "$", "what-if: price of that upgrade"),
};
#undef OPT
#define N_OPTS (sizeof opts / sizeof opts[0])

/* Names of tc_cost_option_names(): the table, then gpu and config, then NULL. */
static const char *const option_names[] = {
    "gpus", "price-per-gpu-hour", "purchase-per-gpu", "fabric-cost", "power-kw-per-gpu",
    "electricity-per-kwh", "pue", "ops-per-month", "months", "utilization", "network-efficiency",
    "rent-network-efficiency", "fabric-GBps", "fabric-target-GBps", "fabric-upgrade-cost", "gpu",
    "config", NULL,
};

const char *const *tc_cost_option_names(void) { return option_names; }

static tc_cost_value *field_of(tc_cost_inputs *in, const opt_def *d) {
    return (tc_cost_value *)((char *)in + d->offset);
}

static const tc_cost_value *cfield_of(const tc_cost_inputs *in, const opt_def *d) {
    return (const tc_cost_value *)((const char *)in + d->offset);
}

static const opt_def *find_opt(const char *name) {
    for (size_t i = 0; i < N_OPTS; i++)
        if (strcasecmp(name, opts[i].name) == 0) return &opts[i];
    return NULL;
}

const char *tc_cost_source_str(tc_cost_source src) {
    switch (src) {
    case TC_COST_SRC_DEFAULT: return "default";
    case TC_COST_SRC_CATALOG: return "catalog";
    case TC_COST_SRC_TRACE: return "trace";
    case TC_COST_SRC_CONFIG: return "config";
    case TC_COST_SRC_FLAG: return "flag";
    case TC_COST_SRC_UNSET: break;
    }
    return "unset";
}

/* Writes a formatted message into err when there is room for one. */
static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Sets v to x with rank src and an origin, unless something of higher rank already set it. */
static void put_value(tc_cost_value *v, double x, tc_cost_source src, const char *fmt, ...) {
    if (v->set && v->source > src) return;
    v->value = x;
    v->set = true;
    v->source = src;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->origin, sizeof v->origin, fmt, ap);
    va_end(ap);
}

void tc_cost_inputs_defaults(tc_cost_inputs *in) {
    memset(in, 0, sizeof *in);
    for (size_t i = 0; i < N_OPTS; i++) snprintf(field_of(in, &opts[i])->origin, TC_COST_ORIGIN_LEN, "unset");
    snprintf(in->gpu_origin, sizeof in->gpu_origin, "unset");
    put_value(&in->months, TC_COST_DEFAULT_MONTHS, TC_COST_SRC_DEFAULT, "default");
    put_value(&in->utilization, TC_COST_DEFAULT_UTILIZATION, TC_COST_SRC_DEFAULT, "default");
    put_value(&in->power_kw_per_gpu, TC_COST_DEFAULT_POWER_KW, TC_COST_SRC_DEFAULT,
              "default (8-GPU server draws about 10 kW)");
    put_value(&in->electricity_per_kwh, TC_COST_DEFAULT_ELECTRICITY, TC_COST_SRC_DEFAULT,
              "default (assumed)");
    put_value(&in->pue, TC_COST_DEFAULT_PUE, TC_COST_SRC_DEFAULT, "default (assumed)");
    put_value(&in->ops_per_month, TC_COST_DEFAULT_OPS, TC_COST_SRC_DEFAULT, "default (not counted)");
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing and range checks                                                                     */

/* Parses a number as users type it: optional sign and '$', digits with '_' or proper ','
 * grouping, a decimal point, an exponent, and for shares a trailing '%'. Returns NULL and sets
 * *out, or a phrase saying what is wrong ("is not a number"). */
static const char *parse_number(const char *text, bool allow_percent, double *out) {
    const char *s = text;
    char buf[64];
    size_t n = 0;
    bool percent = false, any_digit = false;
    while (isspace((unsigned char)*s)) s++;
    for (int k = 0; k < 2; k++) { /* '-' and '$' in either order */
        if (*s == '-' || *s == '+') { if (n == 0) buf[n++] = *s; s++; }
        else if (*s == '$') s++;
    }
    for (; *s; s++) {
        char c = *s;
        if (n + 1 >= sizeof buf) return "is too long for a number";
        if (isdigit((unsigned char)c)) { buf[n++] = c; any_digit = true; continue; }
        if (c == '.' || c == 'e' || c == 'E' || ((c == '-' || c == '+') && n > 0 &&
                                                  (buf[n - 1] == 'e' || buf[n - 1] == 'E'))) {
            buf[n++] = c;
            continue;
        }
        if (c == '_' && n > 0 && isdigit((unsigned char)buf[n - 1]) && isdigit((unsigned char)s[1]))
            continue;
        if (c == ',') {
            /* Only thousands grouping: a digit before, exactly three digits after. */
            if (n > 0 && isdigit((unsigned char)buf[n - 1]) && isdigit((unsigned char)s[1]) &&
                isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) &&
                !isdigit((unsigned char)s[4]))
                continue;
            return "is not a number (use '.' for decimals; ',' only between groups of three digits)";
        }
        if (c == '%' && allow_percent) { percent = true; s++; break; }
        if (isspace((unsigned char)c)) break;
        return "is not a number";
    }
    while (isspace((unsigned char)*s)) s++;
    if (*s) return "is not a number";
    if (!any_digit) return "is not a number";
    buf[n] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + n || !isfinite(v) || errno == ERANGE) return "is not a usable number";
    if (percent) v /= 100.0;
    *out = v;
    return NULL;
}

/* Checks v against d's range. Returns true, or false with a phrase like "must be ...; got X". */
static bool validate(const opt_def *d, double v, char *msg, size_t len) {
    const char *why = NULL;
    switch (d->kind) {
    case K_COUNT:
        if (v < 1 || v != floor(v)) why = "must be a whole number of GPUs, at least 1";
        else if (v > 1e7) why = "must be at most 10,000,000";
        break;
    case K_MONTHS:
        if (v < 1 || v > TC_COST_MAX_MONTHS || v != floor(v))
            why = "must be a whole number of months from 1 to 600";
        break;
    case K_MONEY:
        if (v < 0) why = "must not be negative";
        else if (v > 1e13) why = "must be at most $10 trillion";
        break;
    case K_PRICE:
        if (v <= 0) why = "must be greater than 0";
        else if (v > 1e6) why = "must be at most $1,000,000";
        break;
    case K_SHARE:
        if (!(v > 0 && v <= 1)) why = "must be in (0, 1], a share of time (0.6 = 60%)";
        break;
    case K_PUE:
        if (v < 1) why = "must be at least 1 (1.0 = no cooling or power-conversion overhead)";
        else if (v > 10) why = "must be at most 10";
        break;
    case K_BANDWIDTH:
        if (v <= 0) why = "must be greater than 0 GB/s";
        else if (v > 1e7) why = "must be at most 10,000,000 GB/s";
        break;
    case K_POWER:
        if (v < 0) why = "must not be negative";
        else if (v > 1000) why = "must be at most 1,000 kW per GPU";
        break;
    }
    if (!why) return true;
    snprintf(msg, len, "%s; got %.10g", why, v);
    return false;
}

/* The list of catalog ids, comma separated, into buf. */
static void catalog_ids(char *buf, size_t n) {
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < tc_gpu_count() && o + 1 < n; i++) {
        int w = snprintf(buf + o, n - o, "%s%s", i ? ", " : "", tc_gpu_at(i)->id);
        if (w < 0) break;
        o += (size_t)w;
    }
}

int tc_cost_set_option(tc_cost_inputs *in, const char *name, const char *value,
                       tc_cost_source src, const char *origin, char *err, size_t errlen) {
    if (!name) return 1;
    if (!origin) origin = tc_cost_source_str(src);
    if (strcasecmp(name, "gpu") == 0) {
        const tc_gpu_spec *g = value ? tc_gpu_find_by_id(value) : NULL;
        if (!g) {
            char ids[400];
            catalog_ids(ids, sizeof ids);
            set_err(err, errlen, "--gpu: unknown GPU '%s'; known: %s (tracecost gpus lists them)",
                    value ? value : "", ids);
            return -1;
        }
        if (in->gpu && in->gpu_source > src) return 0;
        in->gpu = g;
        in->gpu_source = src;
        snprintf(in->gpu_origin, sizeof in->gpu_origin, "%s", origin);
        return 0;
    }
    if (strcasecmp(name, "config") == 0) {
        if (src == TC_COST_SRC_CONFIG) {
            set_err(err, errlen, "a config file cannot load another config file");
            return -1;
        }
        if (!value || !*value) {
            set_err(err, errlen, "--config needs a file name");
            return -1;
        }
        return tc_cost_load_config(in, value, err, errlen) == 0 ? 0 : -1;
    }
    const opt_def *d = find_opt(name);
    if (!d) return 1;
    if (!value) {
        set_err(err, errlen, "--%s needs a value", d->name);
        return -1;
    }
    double v = 0;
    const char *why = parse_number(value, d->kind == K_SHARE, &v);
    if (why) {
        set_err(err, errlen, "--%s: '%s' %s", d->name, value, why);
        return -1;
    }
    char msg[200];
    if (!validate(d, v, msg, sizeof msg)) {
        set_err(err, errlen, "--%s %s", d->name, msg);
        return -1;
    }
    put_value(field_of(in, d), v, src, "%s", origin);
    return 0;
}

int tc_cost_parse_option(tc_cost_inputs *in, const char *name, const char *value, char *err,
                         size_t errlen) {
    return tc_cost_set_option(in, name, value, TC_COST_SRC_FLAG, "flag", err, errlen);
}

const char *tc_cost_suggest_option(const char *unknown) {
    static const char *const extra[] = {"json", "help"};
    if (!unknown || !*unknown) return NULL;
    while (*unknown == '-') unknown++;
    size_t ulen = strcspn(unknown, "=");
    char u[64];
    if (ulen == 0 || ulen >= sizeof u) return NULL;
    memcpy(u, unknown, ulen);
    u[ulen] = '\0';
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    const size_t n_all = sizeof option_names / sizeof option_names[0] - 1 + 2;
    for (size_t i = 0; i < n_all; i++) {
        const char *cand = i < n_all - 2 ? option_names[i] : extra[i - (n_all - 2)];
        if (ulen >= 3 && strncasecmp(cand, u, strlen(u)) == 0) return cand; /* "--price" -> price-per-gpu-hour */
        size_t d = tc_edit_distance(u, cand);
        if (d < best_d) { best_d = d; best = cand; }
    }
    if (best_d <= 2 || best_d * 3 <= ulen) return best;
    return NULL;
}

void tc_cost_options_help(FILE *out) {
    for (size_t i = 0; i < N_OPTS; i++)
        fprintf(out, "  --%-24s %-11s %s\n", opts[i].name, opts[i].unit, opts[i].help);
}

/* ------------------------------------------------------------------------------------------ */
/* Config files                                                                                 */

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

int tc_cost_load_config(tc_cost_inputs *in, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        set_err(err, errlen, "cannot read config '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            set_err(err, errlen, "%s:%d: line too long (over %zu characters)", path, lineno,
                    sizeof line - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = trim(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            set_err(err, errlen, "%s:%d: expected 'key = value', got '%s'", path, lineno, s);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        while (*key == '-') key++;
        size_t vlen = strlen(value);
        if (vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
            value[vlen - 1] = '\0';
            value++;
        }
        if (!*key) {
            set_err(err, errlen, "%s:%d: missing key before '='", path, lineno);
            rc = -1;
            break;
        }
        char origin[TC_COST_ORIGIN_LEN], sub[400];
        snprintf(origin, sizeof origin, "config:%s:%d", path, lineno);
        int r = tc_cost_set_option(in, key, value, TC_COST_SRC_CONFIG, origin, sub, sizeof sub);
        if (r == 1) {
            const char *hint = tc_cost_suggest_option(key);
            set_err(err, errlen, "%s:%d: unknown key '%s'%s%s%s", path, lineno, key,
                    hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
            rc = -1;
            break;
        }
        if (r < 0) {
            set_err(err, errlen, "%s:%d: %s", path, lineno, sub);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && ferror(f)) {
        set_err(err, errlen, "error reading config '%s'", path);
        rc = -1;
    }
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Catalog defaults                                                                             */

void tc_cost_apply_catalog(tc_cost_inputs *in, const tc_gpu_spec *detected) {
    if (detected && !(in->gpu && in->gpu_source > TC_COST_SRC_TRACE)) {
        in->gpu = detected;
        in->gpu_source = TC_COST_SRC_TRACE;
        snprintf(in->gpu_origin, sizeof in->gpu_origin, "trace (device name)");
    }
    const tc_gpu_spec *g = in->gpu;
    if (!g) return;
    put_value(&in->price_per_gpu_hour, g->rent_usd_per_hour, TC_COST_SRC_CATALOG,
              "catalog:%s (price dated %s)", g->id, g->rent_date);
    put_value(&in->purchase_per_gpu, g->purchase_usd, TC_COST_SRC_CATALOG,
              "catalog:%s (price dated %s)", g->id, g->purchase_date);
    put_value(&in->power_kw_per_gpu, g->tdp_W / 1000.0 * TC_COST_SERVER_POWER_FACTOR,
              TC_COST_SRC_CATALOG, "catalog:%s (%.0f W TDP x %.3f)", g->id, g->tdp_W,
              TC_COST_SERVER_POWER_FACTOR);
}

/* ------------------------------------------------------------------------------------------ */
/* The model                                                                                    */

static void add_note(tc_cost_result *r, const char *fmt, ...) {
    if (r->n_notes >= TC_COST_MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->n_notes], sizeof r->notes[0], fmt, ap);
    va_end(ap);
    r->n_notes++;
}

/* Checks a trace share: finite and within [0, 1]. */
static bool share_ok(double s) { return isfinite(s) && s >= 0 && s <= 1; }

/* True when every double the result exposes is finite (a last guard: no NaN/inf escapes). */
static bool result_finite(const tc_cost_result *r) {
    const double v[] = {r->effective_gpus, r->effective_price_per_gpu_hour,
                        r->network_loss_per_month, r->idle_loss_per_month,
                        r->straggler_loss_per_month, r->rent_monthly, r->tco_rent,
                        r->rent_cost_per_effective_gpu_hour, r->own_capex, r->own_opex_monthly,
                        r->tco_own, r->own_cost_per_effective_gpu_hour, r->breakeven_months,
                        r->what_if.projected_exposed_transfer_share,
                        r->what_if.projected_step_time_us, r->what_if.projected_effective_gpus,
                        r->what_if.monthly_value_recovered, r->what_if.payback_months};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i])) return false;
    for (size_t i = 0; i < r->timeline_len; i++)
        if (!isfinite(r->timeline[i].own) || !isfinite(r->timeline[i].rent)) return false;
    return true;
}

tc_cost_trace_facts tc_cost_facts_from_shares(int world_size, bool split_known, double exposed_transfer,
                                              double exposed_wait, double exposed_comm, double idle,
                                              double memory_exposed, double step_time_us,
                                              double fabric_busbw_GBps) {
    tc_cost_trace_facts f;
    memset(&f, 0, sizeof f);
    f.world_size = world_size;
    f.transfer_split_known = split_known;
    f.exposed_transfer_share = split_known ? exposed_transfer : exposed_comm;
    f.exposed_wait_share = split_known ? exposed_wait : 0;
    f.idle_share = idle + memory_exposed;
    f.step_time_us = step_time_us > 0 ? step_time_us : 0;
    f.fabric_busbw_GBps = fabric_busbw_GBps > 0 ? fabric_busbw_GBps : 0;
    return f;
}

int tc_cost_compute(const tc_cost_inputs *in, const tc_cost_trace_facts *facts, tc_cost_result *r,
                    char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->used = *in;
    tc_cost_inputs *u = &r->used;
    double step_us = 0, idle_share = 0, wait_share = 0;

    /* 1. Trace facts, at rank "trace". */
    if (facts) {
        if (!share_ok(facts->exposed_transfer_share) || !share_ok(facts->exposed_wait_share) ||
            !share_ok(facts->idle_share) ||
            facts->exposed_transfer_share + facts->exposed_wait_share > 1 + 1e-9) {
            set_err(err, errlen,
                    "trace shares out of range (transfer %.6g, wait %.6g, idle %.6g): each must be "
                    "in [0, 1] and transfer + wait at most 1",
                    facts->exposed_transfer_share, facts->exposed_wait_share, facts->idle_share);
            memset(r, 0, sizeof *r);
            return -1;
        }
        if (facts->world_size > 0)
            put_value(&u->gpus, facts->world_size, TC_COST_SRC_TRACE, "trace (world size)");
        double s = facts->exposed_transfer_share;
        if (facts->transfer_split_known) {
            put_value(&u->network_efficiency, 1 - s, TC_COST_SRC_TRACE,
                      "trace (1 - exposed transfer share)");
            wait_share = facts->exposed_wait_share;
            r->has_straggler_loss = true;
        } else {
            s += facts->exposed_wait_share;
            put_value(&u->network_efficiency, 1 - s, TC_COST_SRC_TRACE,
                      "trace (1 rank: 1 - exposed comm share)");
            if (u->network_efficiency.source == TC_COST_SRC_TRACE)
                add_note(r, "one rank: exposed transfer and waiting on other ranks cannot be "
                            "separated, so e = 1 - exposed communication share and the straggler "
                            "loss is unknown");
        }
        if (u->network_efficiency.source == TC_COST_SRC_TRACE && u->network_efficiency.value <= 0) {
            set_err(err, errlen,
                    "the trace spends all its time in exposed communication (network efficiency "
                    "0): there is no useful work to price; pass --network-efficiency to override");
            memset(r, 0, sizeof *r);
            return -1;
        }
        idle_share = facts->idle_share;
        r->has_idle_loss = true;
        if (facts->fabric_busbw_GBps > 0 && isfinite(facts->fabric_busbw_GBps))
            put_value(&u->fabric_GBps, facts->fabric_busbw_GBps, TC_COST_SRC_TRACE,
                      "trace (measured bus bandwidth)");
        if (facts->step_time_us > 0 && isfinite(facts->step_time_us)) step_us = facts->step_time_us;
    }

    /* 2. Every value that is set must be in range, wherever it came from. */
    for (size_t i = 0; i < N_OPTS; i++) {
        const tc_cost_value *v = cfield_of(u, &opts[i]);
        char msg[200];
        if (!v->set) continue;
        if (!isfinite(v->value) || !validate(&opts[i], v->value, msg, sizeof msg)) {
            if (!isfinite(v->value)) snprintf(msg, sizeof msg, "must be a finite number");
            if (v->source == TC_COST_SRC_FLAG) set_err(err, errlen, "--%s %s", opts[i].name, msg);
            else set_err(err, errlen, "--%s (from %s) %s", opts[i].name, v->origin, msg);
            memset(r, 0, sizeof *r);
            return -1;
        }
    }

    /* 3. Required values. */
    if (!u->gpus.set) {
        set_err(err, errlen, "--gpus is required without a trace: the number of GPUs to price");
        memset(r, 0, sizeof *r);
        return -1;
    }
    if (!u->network_efficiency.set) {
        set_err(err, errlen,
                "--network-efficiency is required without a trace: the share of time the GPUs "
                "are not waiting on exposed transfers (0.6 = 40%% lost); tracecost analyze "
                "measures it from a trace");
        memset(r, 0, sizeof *r);
        return -1;
    }
    if (!u->price_per_gpu_hour.set) {
        set_err(err, errlen,
                "--price-per-gpu-hour is required (rent in $ per GPU-hour), or pass --gpu NAME "
                "for the catalog's dated default (tracecost gpus lists them)");
        memset(r, 0, sizeof *r);
        return -1;
    }

    /* 4. Defaults derived from other values. */
    const double N = u->gpus.value;
    const double H = TC_COST_HOURS_PER_MONTH;
    const double P = u->price_per_gpu_hour.value;
    const double util = u->utilization.value;
    const double e = u->network_efficiency.value;
    const int M = (int)u->months.value;
    put_value(&u->rent_network_efficiency, e, TC_COST_SRC_DEFAULT, "default (= network-efficiency)");
    put_value(&u->fabric_cost, ceil(N / TC_COST_GPUS_PER_NODE) * TC_COST_FABRIC_PER_NODE,
              TC_COST_SRC_DEFAULT, "default ($15,000 per 8-GPU node)");
    const double er = u->rent_network_efficiency.value;

    /* 5. The formulas (COST.md). */
    r->rent_monthly = N * P * H * util;
    r->effective_gpus = N * e;
    r->effective_price_per_gpu_hour = P / e;
    r->network_loss_per_month = r->rent_monthly * (1 - e);
    if (r->has_idle_loss) r->idle_loss_per_month = r->rent_monthly * idle_share;
    if (r->has_straggler_loss) r->straggler_loss_per_month = r->rent_monthly * wait_share;
    r->tco_rent = M * r->rent_monthly;
    r->rent_cost_per_effective_gpu_hour = P / er;

    if (u->purchase_per_gpu.set) {
        const double C = u->purchase_per_gpu.value, F = u->fabric_cost.value;
        const double W = u->power_kw_per_gpu.value, E = u->electricity_per_kwh.value;
        const double pue = u->pue.value, O = u->ops_per_month.value;
        r->has_own = true;
        r->own_capex = N * C + F;
        r->own_opex_monthly = N * W * H * util * pue * E + O;
        r->tco_own = r->own_capex + M * r->own_opex_monthly;
        r->own_cost_per_effective_gpu_hour = r->tco_own / (N * H * util * M * e);
        if (r->rent_monthly > r->own_opex_monthly) {
            r->has_breakeven = true;
            r->breakeven_months = r->own_capex / (r->rent_monthly - r->own_opex_monthly);
        }
        if (u->ops_per_month.source == TC_COST_SRC_DEFAULT && u->ops_per_month.value == 0)
            add_note(r, "staff, colocation and support are not counted in owning (pass "
                        "--ops-per-month)");
    } else {
        add_note(r, "no purchase price: the own side is skipped (pass --purchase-per-gpu, or "
                    "--gpu NAME for a catalog default)");
    }

    r->timeline_len = (size_t)M + 1;
    for (int m = 0; m <= M; m++) {
        r->timeline[m].month = m;
        r->timeline[m].own = r->has_own ? r->own_capex + m * r->own_opex_monthly : 0;
        r->timeline[m].rent = m * r->rent_monthly;
    }

    /* 6. What-if: only exposed transfer time changes, scaled by B / B'. */
    if (u->fabric_GBps.set && u->fabric_target_GBps.set) {
        tc_cost_what_if *w = &r->what_if;
        const double B = u->fabric_GBps.value, Bt = u->fabric_target_GBps.value;
        const double s = 1 - e;            /* exposed transfer share of the measured step */
        const double s_new = s * B / Bt;   /* the same time at B', as a share of the old step */
        const double step_ratio = 1 - s + s_new; /* > 0 since 1 - s = e > 0 */
        const double e_new = (1 - s) / step_ratio;
        r->has_what_if = true;
        w->fabric_GBps = B;
        w->target_GBps = Bt;
        w->projected_exposed_transfer_share = s_new / step_ratio;
        if (step_us > 0) {
            w->has_step_time = true;
            w->projected_step_time_us = step_us * step_ratio;
        }
        w->projected_effective_gpus = N * e_new;
        w->monthly_value_recovered = r->rent_monthly * (e_new - e);
        if (u->fabric_upgrade_cost.set) {
            w->has_upgrade_cost = true;
            w->upgrade_cost = u->fabric_upgrade_cost.value;
            if (w->monthly_value_recovered > 0) {
                w->has_payback = true;
                w->payback_months = w->upgrade_cost / w->monthly_value_recovered;
            }
        }
        if (facts && !facts->transfer_split_known)
            add_note(r, "what-if: the exposed share scaled by B/B' is 1 - e, so it includes any "
                        "waiting on other ranks, which a faster fabric does not remove");
    } else if (u->fabric_target_GBps.set) {
        add_note(r, "what-if skipped: it needs the measured fabric bandwidth (from a trace, or "
                    "--fabric-GBps)");
    } else if (u->fabric_upgrade_cost.set) {
        add_note(r, "what-if skipped: --fabric-upgrade-cost needs --fabric-target-GBps");
    }

    if (!result_finite(r)) {
        set_err(err, errlen, "the inputs are too large to compute with (a result is not finite)");
        memset(r, 0, sizeof *r);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                         */

static void json_maybe(jw *w, const char *key, bool known, double v) {
    jw_key(w, key);
    if (known) jw_double(w, v);
    else jw_null(w);
}

void tc_cost_result_json(jw *w, const tc_cost_result *r) {
    const tc_cost_what_if *wi = &r->what_if;
    jw_object_begin(w);
    json_maybe(w, "effective_gpus", true, r->effective_gpus);
    json_maybe(w, "effective_price_per_gpu_hour", true, r->effective_price_per_gpu_hour);
    json_maybe(w, "network_loss_per_month", true, r->network_loss_per_month);
    json_maybe(w, "idle_loss_per_month", r->has_idle_loss, r->idle_loss_per_month);
    json_maybe(w, "straggler_loss_per_month", r->has_straggler_loss, r->straggler_loss_per_month);
    json_maybe(w, "rent_monthly", true, r->rent_monthly);
    json_maybe(w, "own_capex", r->has_own, r->own_capex);
    json_maybe(w, "own_opex_monthly", r->has_own, r->own_opex_monthly);
    json_maybe(w, "breakeven_months", r->has_breakeven, r->breakeven_months);
    json_maybe(w, "tco_own", r->has_own, r->tco_own);
    json_maybe(w, "tco_rent", true, r->tco_rent);
    json_maybe(w, "own_cost_per_effective_gpu_hour", r->has_own, r->own_cost_per_effective_gpu_hour);
    json_maybe(w, "rent_cost_per_effective_gpu_hour", true, r->rent_cost_per_effective_gpu_hour);
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
    jw_key(w, "what_if");
    if (!r->has_what_if) {
        jw_null(w);
    } else {
        jw_object_begin(w);
        json_maybe(w, "fabric_GBps", true, wi->fabric_GBps);
        json_maybe(w, "target_GBps", true, wi->target_GBps);
        json_maybe(w, "projected_exposed_transfer_share", true, wi->projected_exposed_transfer_share);
        json_maybe(w, "projected_step_time_us", wi->has_step_time, wi->projected_step_time_us);
        json_maybe(w, "projected_effective_gpus", true, wi->projected_effective_gpus);
        json_maybe(w, "monthly_value_recovered", true, wi->monthly_value_recovered);
        json_maybe(w, "upgrade_cost", wi->has_upgrade_cost, wi->upgrade_cost);
        json_maybe(w, "payback_months", wi->has_payback, wi->payback_months);
        jw_object_end(w);
    }
    jw_key(w, "inputs");
    jw_object_begin(w);
    for (size_t i = 0; i < N_OPTS; i++) {
        const tc_cost_value *v = cfield_of(&r->used, &opts[i]);
        jw_key(w, opts[i].json);
        jw_object_begin(w);
        json_maybe(w, "value", v->set, v->value);
        jw_key(w, "source");
        jw_string(w, v->set ? v->origin : "unset");
        jw_object_end(w);
    }
    jw_key(w, "gpu");
    jw_object_begin(w);
    jw_key(w, "value");
    jw_string(w, r->used.gpu ? r->used.gpu->id : NULL);
    jw_key(w, "source");
    jw_string(w, r->used.gpu ? r->used.gpu_origin : "unset");
    jw_object_end(w);
    jw_key(w, "hours_per_month");
    jw_object_begin(w);
    jw_key(w, "value");
    jw_double(w, TC_COST_HOURS_PER_MONTH);
    jw_key(w, "source");
    jw_string(w, "constant");
    jw_object_end(w);
    jw_object_end(w);
    jw_object_end(w);
}

void tc_cost_notes_json(jw *w, const tc_cost_result *r) {
    jw_array_begin(w);
    for (size_t i = 0; i < r->n_notes; i++) jw_string(w, r->notes[i]);
    jw_array_end(w);
}

/* ------------------------------------------------------------------------------------------ */
/* Text                                                                                         */

/* A bounded string builder: appends are clipped, the buffer stays NUL-terminated. */
typedef struct sbuf {
    char *buf;   /* destination, not owned */
    size_t cap;  /* bytes in buf */
    size_t len;  /* bytes written so far (clipped to cap - 1) */
} sbuf;

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

size_t tc_cost_headline(char *buf, size_t n, const tc_cost_result *r) {
    sbuf b = {buf, n, 0};
    if (n > 0) buf[0] = '\0';
    const tc_cost_inputs *u = &r->used;
    char a[64], c[64], d[64];
    double N = u->gpus.value;
    fmt_num(a, sizeof a, N, 0);
    fmt_num(c, sizeof c, r->effective_gpus, 1);
    sb_printf(&b, "your %s GPU%s %s the work of %s", a, N == 1 ? "" : "s", N == 1 ? "does" : "do", c);
    money2(a, sizeof a, u->price_per_gpu_hour.value);
    money0(c, sizeof c, r->network_loss_per_month);
    sb_printf(&b, "; at %s/GPU-hour the network costs you %s a month", a, c);
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
    if (r->has_what_if) {
        const tc_cost_what_if *w = &r->what_if;
        fmt_num(a, sizeof a, w->target_GBps, 1);
        if (w->monthly_value_recovered > 0) {
            money0(c, sizeof c, w->monthly_value_recovered);
            sb_printf(&b, "; a %s GB/s fabric would recover %s a month", a, c);
            if (w->has_payback) {
                money0(d, sizeof d, w->upgrade_cost);
                sb_printf(&b, " and pay back its %s in %.1f months", d, w->payback_months);
            }
        } else {
            sb_printf(&b, "; a %s GB/s fabric would recover nothing", a);
        }
    }
    sb_printf(&b, ".");
    return b.len;
}

/* Styles for the table; empty strings without color. */
typedef struct style {
    const char *bold; /* section titles and headline */
    const char *dim;  /* formulas */
    const char *off;  /* reset */
} style;

/* One result row: label, right-aligned value, formula. Fits 100 columns for formulas <= 46. */
static void row(FILE *out, const style *st, const char *label, const char *value, const char *how) {
    fprintf(out, "  %-34.34s %14s  %s%.46s%s\n", label, value, st->dim, how, st->off);
}

static void section(FILE *out, const style *st, const char *title) {
    fprintf(out, "\n%s%s%s\n", st->bold, title, st->off);
}

/* Prints an input value by kind: money with cents under $100, plain numbers otherwise. */
static void fmt_input(char *buf, size_t n, const opt_def *d, const tc_cost_value *v) {
    if (!v->set) { snprintf(buf, n, "-"); return; }
    switch (d->kind) {
    case K_MONEY:
    case K_PRICE:
        if (fabs(v->value) < 100 && v->value != 0) money2(buf, n, v->value);
        else money0(buf, n, v->value);
        break;
    case K_COUNT:
    case K_MONTHS: fmt_num(buf, n, v->value, 0); break;
    default: fmt_num(buf, n, v->value, 4); break;
    }
}

void tc_cost_result_print(FILE *out, const tc_cost_result *r, bool color) {
    const style st = {color ? "\033[1m" : "", color ? "\033[2m" : "", color ? "\033[0m" : ""};
    const tc_cost_inputs *u = &r->used;
    char head[1200], v[112], a[48], c[40];
    tc_cost_headline(head, sizeof head, r);
    fputs(st.bold, out);
    tc_term_wrap(out, head, 0, 2, 100);
    fputs(st.off, out);

    section(out, &st, "what the network costs");
    fmt_num(v, sizeof v, r->effective_gpus, 2);
    row(out, &st, "effective GPUs", v, "N x e");
    money2(v, sizeof v, r->effective_price_per_gpu_hour);
    row(out, &st, "effective price per GPU-hour", v, "P / e");
    money0(v, sizeof v, r->network_loss_per_month);
    row(out, &st, "network loss per month", v, "N x P x H x u x (1 - e)");
    if (r->has_idle_loss) money0(v, sizeof v, r->idle_loss_per_month);
    row(out, &st, "idle loss per month", r->has_idle_loss ? v : "-",
        r->has_idle_loss ? "N x P x H x u x idle share" : "needs a trace");
    if (r->has_straggler_loss) money0(v, sizeof v, r->straggler_loss_per_month);
    row(out, &st, "straggler loss per month", r->has_straggler_loss ? v : "-",
        r->has_straggler_loss ? "N x P x H x u x wait share" : "needs a trace of 2+ ranks");

    char title[128];
    snprintf(title, sizeof title, "rent or own, over %.0f months", u->months.value);
    section(out, &st, title);
    money0(v, sizeof v, r->rent_monthly);
    row(out, &st, "rent per month", v, "N x P x H x u");
    money0(v, sizeof v, r->tco_rent);
    row(out, &st, "total cost of renting", v, "M x rent per month");
    money2(v, sizeof v, r->rent_cost_per_effective_gpu_hour);
    row(out, &st, "rent per effective GPU-hour", v, "P / e_r");
    const char *need = "needs --purchase-per-gpu or --gpu";
    money0(v, sizeof v, r->own_capex);
    row(out, &st, "own: capital cost", r->has_own ? v : "-", r->has_own ? "N x C + F" : need);
    money0(v, sizeof v, r->own_opex_monthly);
    row(out, &st, "own: running cost per month", r->has_own ? v : "-",
        r->has_own ? "N x W x H x u x pue x E + O" : need);
    money0(v, sizeof v, r->tco_own);
    row(out, &st, "total cost of owning", r->has_own ? v : "-",
        r->has_own ? "capital + M x running" : need);
    money2(v, sizeof v, r->own_cost_per_effective_gpu_hour);
    row(out, &st, "own per effective GPU-hour", r->has_own ? v : "-",
        r->has_own ? "total own / (N x H x u x M x e)" : need);
    if (r->has_breakeven) snprintf(v, sizeof v, "%.1f months", r->breakeven_months);
    row(out, &st, "owning pays back after", r->has_breakeven ? v : (r->has_own ? "never" : "-"),
        r->has_own ? "capital / (rent - running) per month" : need);

    if (r->has_what_if) {
        const tc_cost_what_if *w = &r->what_if;
        const double s = 1 - u->network_efficiency.value;
        fmt_num(a, sizeof a, w->fabric_GBps, 1);
        fmt_num(c, sizeof c, w->target_GBps, 1);
        snprintf(title, sizeof title, "fabric what-if: %s -> %s GB/s", a, c);
        section(out, &st, title);
        snprintf(v, sizeof v, "%.1f%% -> %.1f%%", 100 * s, 100 * w->projected_exposed_transfer_share);
        row(out, &st, "exposed transfer share", v, "transfer time x B / B'");
        if (w->has_step_time) {
            fmt_num(c, sizeof c, w->projected_step_time_us / 1000.0, 2);
            snprintf(a, sizeof a, "%s ms", c);
        }
        row(out, &st, "projected step time", w->has_step_time ? a : "-",
            w->has_step_time ? "step x (1 - s + s x B / B')" : "needs a trace");
        fmt_num(a, sizeof a, r->effective_gpus, 2);
        fmt_num(c, sizeof c, w->projected_effective_gpus, 2);
        snprintf(v, sizeof v, "%s -> %s", a, c);
        row(out, &st, "effective GPUs", v, "N x (1 - s) / (1 - s + s x B / B')");
        money0(v, sizeof v, w->monthly_value_recovered);
        row(out, &st, "value recovered per month", v, "N x P x H x u x (e' - e)");
        money0(v, sizeof v, w->upgrade_cost);
        row(out, &st, "upgrade cost", w->has_upgrade_cost ? v : "-",
            w->has_upgrade_cost ? "--fabric-upgrade-cost" : "needs --fabric-upgrade-cost");
        if (w->has_payback) snprintf(v, sizeof v, "%.1f months", w->payback_months);
        row(out, &st, "upgrade pays back after",
            w->has_payback ? v : (w->has_upgrade_cost ? "never" : "-"), "X / value recovered");
    }

    section(out, &st, "inputs");
    for (size_t i = 0; i < N_OPTS; i++) {
        const tc_cost_value *cv = cfield_of(u, &opts[i]);
        fmt_input(v, sizeof v, &opts[i], cv);
        fprintf(out, "  --%-24s %14s %-10s %s%.44s%s\n", opts[i].name, v, opts[i].unit, st.dim,
                cv->set ? cv->origin : "unset", st.off);
    }
    fprintf(out, "  --%-24s %14.14s %-10s %s%.44s%s\n", "gpu", u->gpu ? u->gpu->id : "-", "",
            st.dim, u->gpu ? u->gpu_origin : "unset", st.off);
    fprintf(out, "  %s%s%s\n", st.dim,
            "H = 730 hours a month. Precedence: flag > config > trace > catalog > default.", st.off);

    if (r->n_notes > 0) {
        section(out, &st, "notes");
        for (size_t i = 0; i < r->n_notes; i++) {
            char line[240];
            snprintf(line, sizeof line, "- %s", r->notes[i]);
            tc_term_wrap(out, line, 2, 4, 100);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The calculator subcommand                                                                    */

static void cost_help(FILE *out) {
    fputs("usage: tracecost cost [options]\n"
          "Prices network inefficiency and compares renting GPUs with owning them, from figures\n"
          "you give (tracecost analyze measures e, N and the fabric bandwidth from a trace).\n"
          "Needs --network-efficiency, --gpus, and --price-per-gpu-hour or --gpu.\n\n"
          "options:\n",
          out);
    tc_cost_options_help(out);
    fputs("  --gpu NAME                 catalog GPU for default prices and power (tracecost gpus)\n"
          "  --config FILE              'key = value' lines, same names; flags win over it\n"
          "  --json FILE|-              also write JSON to FILE; '-' writes only JSON to stdout\n"
          "  --help                     this text\n\n"
          "examples:\n"
          "  tracecost cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2\n"
          "  tracecost cost --gpu h100-sxm --gpus 64 --network-efficiency 70% --utilization 0.9 \\\n"
          "      --ops-per-month 20000 --fabric-GBps 50 --fabric-target-GBps 400 \\\n"
          "      --fabric-upgrade-cost 500000\n"
          "  tracecost cost --config cluster.conf --network-efficiency 0.6 --json cost.json\n",
          out);
}

static bool is_cost_option(const char *name) {
    for (const char *const *p = option_names; *p; p++)
        if (strcasecmp(name, *p) == 0) return true;
    return false;
}

int tc_cost_main(int argc, char **argv, FILE *out, FILE *err) {
    enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_NOMEM = 2, EXIT_IO = 4 }; /* as cli/exitcodes.h */
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    const char *json_path = NULL;
    char msg[600];

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            cost_help(out);
            return fflush(out) == 0 && !ferror(out) ? EXIT_OK : EXIT_IO;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            fprintf(err, "tracecost cost: unexpected argument '%s' (the calculator takes only "
                         "options; see tracecost cost --help)\n", arg);
            return EXIT_USAGE;
        }
        char name[64];
        const char *eq = strchr(arg + 2, '=');
        size_t nlen = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
        if (nlen >= sizeof name) nlen = sizeof name - 1;
        memcpy(name, arg + 2, nlen);
        name[nlen] = '\0';
        bool is_json = strcasecmp(name, "json") == 0;
        if (!is_json && !is_cost_option(name)) {
            const char *hint = tc_cost_suggest_option(name);
            if (hint)
                fprintf(err, "tracecost cost: unknown option --%s (did you mean --%s?)\n", name, hint);
            else
                fprintf(err, "tracecost cost: unknown option --%s (tracecost cost --help lists "
                             "them)\n", name);
            return EXIT_USAGE;
        }
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value) {
            fprintf(err, "tracecost cost: --%s needs a value\n", name);
            return EXIT_USAGE;
        }
        if (is_json) {
            json_path = value;
            continue;
        }
        if (tc_cost_parse_option(&in, name, value, msg, sizeof msg) != 0) {
            fprintf(err, "tracecost cost: %s\n", msg);
            return EXIT_USAGE;
        }
    }

    tc_cost_apply_catalog(&in, NULL);
    tc_cost_result *r = malloc(sizeof *r);
    if (!r) {
        fprintf(err, "tracecost cost: out of memory\n");
        return EXIT_NOMEM;
    }
    int rc = EXIT_OK;
    if (tc_cost_compute(&in, NULL, r, msg, sizeof msg) != 0) {
        fprintf(err, "tracecost cost: %s\n", msg);
        rc = EXIT_USAGE;
        goto done;
    }
    bool json_to_out = json_path && strcmp(json_path, "-") == 0;
    if (!json_to_out) {
        bool color = tc_use_color(out); /* a terminal, NO_COLOR unset or empty, TERM not dumb */
        tc_cost_result_print(out, r, color);
    }
    if (json_path) {
        FILE *jf = json_to_out ? out : fopen(json_path, "w");
        if (!jf) {
            fprintf(err, "tracecost cost: cannot write %s: %s\n", json_path, strerror(errno));
            rc = EXIT_IO;
            goto done;
        }
        jw w;
        jw_init(&w, jf, true);
        jw_object_begin(&w);
        jw_key(&w, "cost");
        tc_cost_result_json(&w, r);
        jw_key(&w, "notes");
        tc_cost_notes_json(&w, r);
        jw_object_end(&w);
        int bad = jw_finish(&w);
        if (!json_to_out && fclose(jf) != 0) bad = -1;
        if (bad) {
            fprintf(err, "tracecost cost: %s: write failed\n", json_to_out ? "standard output" : json_path);
            rc = EXIT_IO;
            goto done;
        }
    }
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(err, "tracecost cost: standard output: write failed\n");
        rc = EXIT_IO;
    }
done:
    free(r);
    return rc;
}
