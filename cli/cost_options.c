/* cost_options.c: cost flags and config files (see cost_options.h). The flags are the rows of
 * model/cost_inputs.def; this file turns their text into numbers and hands them to the model's
 * setters (analyzer/cost.h), which check ranges and keep precedence. */
#include "cost_options.h"
#include "exitcodes.h"
#include "model/link_catalog.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Names of tc_cost_option_names(): the inputs' rows, then gpu and config, then NULL. */
static const char *const option_names[] = {
#define TC_COST_INPUT(field, name, kind, unit, letter, help) name,
#include "model/cost_inputs.def"
#undef TC_COST_INPUT
    "gpu", "config", "fabric-target", NULL,
};

const char *const *tc_cost_option_names(void) { return option_names; }

bool tc_cost_is_option(const char *name) {
    for (const char *const *p = option_names; *p; p++)
        if (strcasecmp(name, *p) == 0) return true;
    return false;
}

/* Writes a formatted message into err when there is room for one. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* --fabric-target ID: the what-if's bus bandwidth B' is the rated figure of that fabric between
 * nodes (model/links.def), as --fabric-target-GBps with its origin naming the link. */
static int set_fabric_target(tc_cost_inputs *in, const char *value, tc_cost_source src, const char *origin,
                             char *err, size_t errlen) {
    const tc_link_spec *l = tc_link_find(value);
    if (!l || l->scope != TC_LINK_INTER) {
        char ids[256];
        tc_link_ids(ids, sizeof ids, TC_LINK_INTER);
        set_err(err, errlen, "--fabric-target: '%s' is %s; fabrics between nodes: %s (tracecost gpus --links)",
                value ? value : "", l ? "a link inside a node" : "not a fabric of the catalog", ids);
        return -1;
    }
    char from[TC_COST_ORIGIN_LEN];
    snprintf(from, sizeof from, "%s (--fabric-target %s, rated)", origin, l->id);
    if (tc_cost_set_value(in, tc_cost_input_find("fabric-target-GBps"), l->rated_GBps, src, from, err, errlen) != 0)
        return -1;
    if (strcmp(in->fabric_target_GBps.origin, from) == 0) in->fabric_target_id = l->id; /* set, not kept */
    return 0;
}

int tc_cost_set_option(tc_cost_inputs *in, const char *name, const char *value,
                       tc_cost_source src, const char *origin, char *err, size_t errlen) {
    if (!name) return 1;
    if (!origin) origin = tc_cost_source_str(src);
    if (strcasecmp(name, "gpu") == 0) return tc_cost_set_gpu(in, value, src, origin, err, errlen);
    if (strcasecmp(name, "fabric-target") == 0) return set_fabric_target(in, value, src, origin, err, errlen);
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
    const tc_cost_input_desc *d = tc_cost_input_find(name);
    if (!d) return 1;
    if (!value) {
        set_err(err, errlen, "--%s needs a value", d->name);
        return -1;
    }
    double v = 0;
    unsigned forms = d->kind == TC_COST_KIND_SHARE ? TC_NUM_SHARE
                     : d->kind == TC_COST_KIND_GPUS || d->kind == TC_COST_KIND_MONTHS ? TC_NUM_WHOLE
                     : d->kind == TC_COST_KIND_MONEY || d->kind == TC_COST_KIND_PRICE ? TC_NUM_MONEY : 0;
    const char *why = tc_parse_number(value, forms, &v);
    if (why) {
        set_err(err, errlen, "--%s: '%s' %s", d->name, value, why);
        return -1;
    }
    return tc_cost_set_value(in, d, v, src, origin, err, errlen);
}

int tc_cost_parse_option(tc_cost_inputs *in, const char *name, const char *value, char *err,
                         size_t errlen) {
    return tc_cost_set_option(in, name, value, TC_COST_SRC_FLAG, "flag", err, errlen);
}

const char *tc_cost_suggest_option(const char *unknown) {
    if (!unknown) return NULL;
    while (*unknown == '-') unknown++;
    char word[64];
    if (snprintf(word, sizeof word, "--%s", unknown) >= (int)sizeof word) return NULL;
    const char *s = tc_opts_suggest(&tc_opts_cost, word);
    if (!s) return NULL;
    while (*s == '-') s++;
    return s;
}

/* ------------------------------------------------------------------------------------------ */
/* Config files                                                                                 */

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

/* What a config file's reader does with one "key = value" (origin "config:PATH:LINE"): 0 taken
 * or skipped, -1 with the message in err. */
typedef int (*config_key_fn)(void *ctx, const char *key, const char *value, const char *origin, char *err,
                             size_t errlen);

/* One config line (comment already cut, not blank): split into key and value and handed to fn.
 * Returns 0, or -1 with the message (without "PATH:LINE: ") in err. */
static int config_line(char *s, const char *path, int lineno, config_key_fn fn, void *ctx, char *err,
                       size_t errlen) {
    char *eq = strchr(s, '=');
    if (!eq) {
        set_err(err, errlen, "expected 'key = value', got '%s'", s);
        return -1;
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
        set_err(err, errlen, "missing key before '='");
        return -1;
    }
    char origin[TC_COST_ORIGIN_LEN];
    snprintf(origin, sizeof origin, "config:%s:%d", path, lineno);
    return fn(ctx, key, value, origin, err, errlen);
}

/* One line of a config file into line (cap bytes: the newline kept, NUL-terminated): 1; 0 at the
 * end; -1 when the line holds a NUL byte (no text file: /dev/zero, a binary); -2 when it is longer
 * than cap - 2 characters. Every byte is looked at, so nothing after a NUL is silently ignored. */
static int config_read_line(FILE *f, char *line, size_t cap) {
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (c == '\0') return -1;
        if (n + 1 >= cap) return -2;
        line[n++] = (char)c;
        if (c == '\n') break;
    }
    line[n] = '\0';
    return n > 0;
}

#define CONFIG_MAX_LINES 10000 /* a config file holds a few dozen: this ends an endless stream */

/* Reads path's lines through config_line; stops at the first bad one. 0, or -1 with
 * "PATH:LINE: message" (or why the file cannot be read) in err. */
static int read_config(const char *path, config_key_fn fn, void *ctx, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        set_err(err, errlen, "cannot read config '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[1024], sub[1200];
    int lineno = 0, rc = 0, got;
    while (rc == 0 && (got = config_read_line(f, line, sizeof line)) != 0) {
        lineno++;
        if (got < 0 || lineno > CONFIG_MAX_LINES) {
            if (got == -1) set_err(err, errlen, "%s:%d: holds a NUL byte: not a text file", path, lineno);
            else if (got == -2) set_err(err, errlen, "%s:%d: line too long (over %zu characters)", path, lineno, sizeof line - 2);
            else set_err(err, errlen, "%s: more than %d lines: not a config file", path, CONFIG_MAX_LINES);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = trim(line);
        if (!*s) continue;
        if (config_line(s, path, lineno, fn, ctx, sub, sizeof sub) != 0) {
            set_err(err, errlen, "%s:%d: %s", path, lineno, sub);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        set_err(err, errlen, "error reading config '%s'", path);
        rc = -1;
    }
    fclose(f);
    return rc;
}

void tc_cost_set_today(tc_cost_inputs *in) {
    const char *env = getenv("SOURCE_DATE_EPOCH");
    char *end = NULL;
    errno = 0;
    long long v = env && *env ? strtoll(env, &end, 10) : 0;
    in->has_today = true;
    in->today_from_env = env && *env && end && !*end && errno == 0 && v >= 0;
    in->today_unix_s = in->today_from_env ? (int64_t)v : (int64_t)time(NULL);
}

/* A cost key set at rank config; comm-kernel is left to tc_config_comm_kernels. */
static int cost_key(void *ctx, const char *key, const char *value, const char *origin, char *err, size_t errlen) {
    if (strcasecmp(key, TC_CONFIG_COMM_KERNEL) == 0) return 0;
    int r = tc_cost_set_option(ctx, key, value, TC_COST_SRC_CONFIG, origin, err, errlen);
    if (r == 1) {
        const char *hint = tc_cost_suggest_option(key);
        if (hint && strcasecmp(hint, key) == 0) /* a command-line option, not a config key */
            set_err(err, errlen, "unknown key '%s': a config file holds the cost model's inputs and comm-kernel; "
                    "pass --%s on the command line", key, key);
        else
            set_err(err, errlen, "unknown key '%s'%s%s%s", key, hint ? " (did you mean '" : "",
                    hint ? hint : "", hint ? "'?)" : "");
    }
    return r == 0 ? 0 : -1;
}

int tc_cost_load_config(tc_cost_inputs *in, const char *path, char *err, size_t errlen) {
    return read_config(path, cost_key, in, err, errlen);
}

/* A comm-kernel key added to the patterns; every other key is the cost model's. */
static int comm_key(void *ctx, const char *key, const char *value, const char *origin, char *err, size_t errlen) {
    if (strcasecmp(key, TC_CONFIG_COMM_KERNEL) != 0) return 0;
    char why[600];
    if (tc_comm_patterns_add(ctx, value, why, sizeof why) == 0) return 0;
    set_err(err, errlen, "%s (%s)", why, origin);
    return -1;
}

int tc_config_comm_kernels(tc_comm_patterns *p, const char *path, char *err, size_t errlen) {
    return read_config(path, comm_key, p, err, errlen);
}

/* ------------------------------------------------------------------------------------------ */
/* Nodes and the fabric between them                                                            */

int tc_fabric_option(const tc_opts *o, tc_analyze_options *aopt) {
    const char *name = o->word, *v = o->value;
    const tc_opt_table *t = o->t;
    double x;
    switch (o->opt->id) {
    case TC_OPT_GPUS_PER_NODE: {
        long g;
        if (!tc_parse_long(v, &g) || g < 1 || g > 1000000)
            return tc_opts_error(t, "%s needs a whole number of GPUs from 1 to 1000000, not '%s'", name, v ? v : "");
        aopt->gpus_per_node = g;
        return TC_EXIT_OK;
    }
    case TC_OPT_FABRIC: {
        const tc_link_spec *l = tc_link_find(v);
        if (!l || l->scope != TC_LINK_INTER) {
            char ids[256];
            return tc_opts_error(t, "%s: '%s' is %s; it names the fabric between nodes: %s (tracecost gpus --links)",
                                 name, v ? v : "", l ? "a link inside a node (taken from the GPU catalog)"
                                                     : "not a fabric of the catalog",
                                 tc_link_ids(ids, sizeof ids, TC_LINK_INTER));
        }
        aopt->fabric = l;
        return TC_EXIT_OK;
    }
    case TC_OPT_NIC_GBPS:
        if (!tc_parse_double(v, &x) || !(x > 0) || x > 1e6)
            return tc_opts_error(t, "%s needs a line rate in Gb/s above 0 (e.g. 400), not '%s'", name, v ? v : "");
        aopt->nic_gbps = x;
        return TC_EXIT_OK;
    default: return 1;
    }
}

int tc_fabric_options_check(const tc_opt_table *t, const tc_analyze_options *aopt) {
    if (aopt->fabric && aopt->nic_gbps > 0) return tc_opts_error(t, "give either --fabric or --nic-gbps, not both");
    return TC_EXIT_OK;
}
