/* gpu_catalog.c: the catalog table built from gpus.def, device-name matching, peak selection with
 * fallbacks, and the `tracecost gpus` writers (see gpu_catalog.h). All data is const. */
#include "gpu_catalog.h"
#include "reports/textfmt.h"
#include "reports/termtext.h"
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

static const tc_gpu_spec catalog[] = {
#define GPU(id, name, patterns, fp32, tf32, bf16, fp16, fp8, mem, tdp, fsrc, ssrc, rent, rdate,   \
            rsrc, buy, bdate, bsrc)                                                                \
    {id, name, patterns, {fp32, tf32, bf16, fp16, fp8}, mem, tdp, fsrc, ssrc, rent, rdate, rsrc,   \
     buy, bdate, bsrc},
#include "gpus.def"
#undef GPU
};

#define CATALOG_LEN (sizeof catalog / sizeof catalog[0])

size_t tc_gpu_count(void) { return CATALOG_LEN; }

const tc_gpu_spec *tc_gpu_at(size_t i) { return i < CATALOG_LEN ? &catalog[i] : NULL; }

/* True when the glob pat (up to pat_end) matches a prefix of text: '*' matches any run,
 * everything else one character, case-insensitively. */
static bool glob_prefix(const char *pat, const char *pat_end, const char *text) {
    while (pat < pat_end) {
        if (*pat == '*') {
            pat++;
            if (pat == pat_end) return true;
            for (const char *t = text; *t; t++)
                if (glob_prefix(pat, pat_end, t)) return true;
            return false;
        }
        if (!*text) return false;
        if (tolower((unsigned char)*pat) != tolower((unsigned char)*text)) return false;
        pat++;
        text++;
    }
    return true;
}

/* True when the pattern matches a part of name starting at a word start (the beginning, or after
 * a character that is not a letter or digit). */
static bool pattern_matches(const char *pat, const char *pat_end, const char *name) {
    for (const char *s = name; *s; s++) {
        if (s != name && isalnum((unsigned char)s[-1])) continue;
        if (glob_prefix(pat, pat_end, s)) return true;
    }
    return false;
}

static bool any_pattern_matches(const char *patterns, const char *name) {
    const char *p = patterns;
    while (*p) {
        const char *end = strchr(p, '|');
        if (!end) end = p + strlen(p);
        if (end > p && pattern_matches(p, end, name)) return true;
        if (!*end) break;
        p = end + 1;
    }
    return false;
}

const tc_gpu_spec *tc_gpu_find_by_device_name(const char *device_name) {
    if (!device_name || !*device_name) return NULL;
    for (size_t i = 0; i < CATALOG_LEN; i++)
        if (any_pattern_matches(catalog[i].patterns, device_name)) return &catalog[i];
    return NULL;
}

/* Compares a and b keeping only letters and digits, case-insensitively. */
static bool same_alnum(const char *a, const char *b) {
    for (;;) {
        while (*a && !isalnum((unsigned char)*a)) a++;
        while (*b && !isalnum((unsigned char)*b)) b++;
        if (!*a || !*b) return !*a && !*b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
        a++;
        b++;
    }
}

const tc_gpu_spec *tc_gpu_find_by_id(const char *id_or_name) {
    if (!id_or_name || !*id_or_name) return NULL;
    bool has_alnum = false;
    for (const char *p = id_or_name; *p; p++)
        if (isalnum((unsigned char)*p)) has_alnum = true;
    if (!has_alnum) return NULL;
    for (size_t i = 0; i < CATALOG_LEN; i++)
        if (same_alnum(id_or_name, catalog[i].id) || same_alnum(id_or_name, catalog[i].name))
            return &catalog[i];
    return tc_gpu_find_by_device_name(id_or_name);
}

double tc_gpu_peak_flops(const tc_gpu_spec *gpu, tc_dtype dtype, const char **note) {
    if (note) *note = NULL;
    if (!gpu) {
        if (note) *note = "unknown GPU: no peak FLOP/s (pass --gpu NAME; `tracecost gpus` lists them)";
        return 0;
    }
    if (dtype < 0 || dtype >= TC_DTYPE_COUNT) {
        if (note) *note = "unknown data type: no peak FLOP/s for it";
        return 0;
    }
    double tf = gpu->peak_tflops[dtype];
    if (tf > 0) return tf * 1e12;
    switch (dtype) {
    case TC_DTYPE_TF32:
        if (note) *note = "this GPU has no TF32 tensor cores: using its FP32 peak";
        return gpu->peak_tflops[TC_DTYPE_FP32] * 1e12;
    case TC_DTYPE_BF16:
        if (note) *note = "this GPU has no BF16 tensor cores: using its FP32 peak";
        return gpu->peak_tflops[TC_DTYPE_FP32] * 1e12;
    case TC_DTYPE_FP16:
        if (note) *note = "this GPU has no FP16 tensor cores: using its FP32 peak";
        return gpu->peak_tflops[TC_DTYPE_FP32] * 1e12;
    case TC_DTYPE_FP8:
        if (gpu->peak_tflops[TC_DTYPE_FP16] > 0) {
            if (note) *note = "this GPU has no FP8 tensor cores: using its FP16 peak";
            return gpu->peak_tflops[TC_DTYPE_FP16] * 1e12;
        }
        if (note) *note = "this GPU has no FP8 or FP16 tensor cores: using its FP32 peak";
        return gpu->peak_tflops[TC_DTYPE_FP32] * 1e12;
    default:
        /* FP32 is required for every entry (test_gpu_catalog checks it). */
        if (note) *note = "the catalog has no FP32 peak for this GPU";
        return 0;
    }
}

tc_dtype tc_dtype_from_torch(const char *input_type) {
    if (!input_type) return TC_DTYPE_UNKNOWN;
    const char *s = input_type;
    while (*s == ' ') s++;
    if (strncasecmp(s, "c10::", 5) == 0) s += 5;
    else if (strncasecmp(s, "torch.", 6) == 0) s += 6;
    if (strncasecmp(s, "Float8_", 7) == 0) return TC_DTYPE_FP8;
    static const struct { const char *name; tc_dtype dtype; } names[] = {
        {"float", TC_DTYPE_FP32},    {"float32", TC_DTYPE_FP32}, {"Float", TC_DTYPE_FP32},
        {"BFloat16", TC_DTYPE_BF16}, {"Half", TC_DTYPE_FP16},   {"float16", TC_DTYPE_FP16},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) return names[i].dtype;
    return TC_DTYPE_UNKNOWN;
}

const char *tc_dtype_name(tc_dtype dtype) {
    static const char *const names[TC_DTYPE_COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8"};
    if (dtype < 0 || dtype >= TC_DTYPE_COUNT) return "unknown";
    return names[dtype];
}

/* Writes a TFLOP/s cell: "-" for unsupported, otherwise up to one decimal. */
static void print_tflops(FILE *out, double v) {
    if (v <= 0) fprintf(out, " %6s", "-");
    else if (v >= 10000) fprintf(out, " %6.0f", v);
    else fprintf(out, " %6.1f", v);
}

void tc_gpu_catalog_print(FILE *out) {
    /* Columns: id 9, name 22, five TFLOP/s 7 each, GB/s 6, W 5, $/h 7, $ 8: 94 wide. */
    fprintf(out, "%-9s %-22s %-34s %6s %5s %7s %8s\n", "", "",
            "      dense peak TFLOP/s", "memory", "TDP", "rent", "buy");
    fprintf(out, "%-9s %-22s %6s %6s %6s %6s %6s %6s %5s %7s %8s\n", "id", "name", "FP32",
            "TF32", "BF16", "FP16", "FP8", "GB/s", "W", "$/GPU-h", "$/GPU");
    for (size_t i = 0; i < CATALOG_LEN; i++) {
        const tc_gpu_spec *g = &catalog[i];
        fprintf(out, "%-9.9s %-22.22s", g->id, g->name);
        for (int d = 0; d < TC_DTYPE_COUNT; d++) print_tflops(out, g->peak_tflops[d]);
        char rent[32], buy[32];
        tc_fmt_money(rent, sizeof rent, g->rent_usd_per_hour, 2);
        tc_fmt_money(buy, sizeof buy, g->purchase_usd, 0);
        fprintf(out, " %6.0f %5.0f %7s %8s\n", g->mem_bandwidth_GBps, g->tdp_W, rent, buy);
    }
    fputc('\n', out);
    tc_term_wrap(out,
                "Dense (non-sparse) peaks. '-' = no hardware support: TF32, BF16 and FP16 then "
                "count against the FP32 peak, FP8 against the FP16 peak. Prices are dated defaults; "
                "override them with --price-per-gpu-hour and --purchase-per-gpu. [REF] marks "
                "figures from REFERENCE.md section 5. Pick a GPU with --gpu ID.",
                0, 0, 100);
    fputc('\n', out);
    fputs("sources and device-name patterns\n", out);
    for (size_t i = 0; i < CATALOG_LEN; i++) {
        const tc_gpu_spec *g = &catalog[i];
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
    }
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
    for (size_t i = 0; i < CATALOG_LEN; i++) {
        const tc_gpu_spec *g = &catalog[i];
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
        jw_object_end(w);
    }
    jw_array_end(w);
}
