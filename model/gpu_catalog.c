/* gpu_catalog.c: the catalog table built from gpus.def, device-name matching and peak selection
 * with fallbacks (see gpu_catalog.h). All data is const. */
#include "gpu_catalog.h"
#include "base/status.h"
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
        if (*pat == '$' && pat + 1 == pat_end) return *text == 0; /* a final '$': the name ends here */
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

bool tc_catalog_same_id(const char *a, const char *b) {
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
        if (tc_catalog_same_id(id_or_name, catalog[i].id) || tc_catalog_same_id(id_or_name, catalog[i].name))
            return &catalog[i];
    return tc_gpu_find_by_device_name(id_or_name);
}

/* The letters and digits of s, lower case, into buf (n bytes). */
static const char *folded(char *buf, size_t n, const char *s) {
    size_t o = 0;
    for (; s && *s && o + 1 < n; s++)
        if (isalnum((unsigned char)*s)) buf[o++] = (char)tolower((unsigned char)*s);
    buf[o] = 0;
    return buf;
}

#define MAX_SUGGESTIONS 6

size_t tc_gpu_unknown_text(char *buf, size_t n, const char *word) {
    char w[64], id[64], name[128];
    const tc_gpu_spec *near[MAX_SUGGESTIONS];
    size_t k = 0, too_many = 0;
    folded(w, sizeof w, word);
    for (size_t i = 0; w[0] && i < CATALOG_LEN; i++)
        if (strstr(folded(id, sizeof id, catalog[i].id), w) || strstr(folded(name, sizeof name, catalog[i].name), w)) {
            if (k < MAX_SUGGESTIONS) near[k++] = &catalog[i]; else too_many++;
        }
    size_t o = tc_format(buf, n, "unknown GPU '%s'; ", word ? word : "");
    if (k && !too_many) {
        o += tc_format(buf + o, n > o ? n - o : 0, "did you mean ");
        for (size_t i = 0; i < k; i++)
            o += tc_format(buf + o, n > o ? n - o : 0, "%s%s", i == 0 ? "" : i + 1 == k ? " or " : ", ", near[i]->id);
        o += tc_format(buf + o, n > o ? n - o : 0, "? (tracecost gpus lists them all)");
        return o < n ? o : (n ? n - 1 : 0);
    }
    o += tc_format(buf + o, n > o ? n - o : 0, "known:");
    for (size_t i = 0; i < CATALOG_LEN; i++)
        o += tc_format(buf + o, n > o ? n - o : 0, "%s %s", i ? "," : "", catalog[i].id);
    o += tc_format(buf + o, n > o ? n - o : 0, " (tracecost gpus lists them)");
    return o < n ? o : (n ? n - 1 : 0);
}

#define UNSOURCED_NOTE "the catalog has no sourced peak FLOP/s of this GPU for this data type: unknown"

/* The peak of dtype `to` standing in for a format the GPU lacks (note: why); unknown when that
 * figure is unsourced. */
static double fallback_peak(const tc_gpu_spec *gpu, tc_dtype to, const char *why, const char **note) {
    double tf = gpu->peak_tflops[to];
    if (note) *note = tf < 0 ? UNSOURCED_NOTE : why;
    return tf > 0 ? tf * 1e12 : 0;
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
    if (tf < 0) { /* TC_GPU_UNSOURCED: no vendor figure found, so no peak rather than a guess */
        if (note) *note = UNSOURCED_NOTE;
        return 0;
    }
    switch (dtype) {
    case TC_DTYPE_TF32:
        return fallback_peak(gpu, TC_DTYPE_FP32, "this GPU has no TF32 tensor cores: using its FP32 peak", note);
    case TC_DTYPE_BF16:
        return fallback_peak(gpu, TC_DTYPE_FP32, "this GPU has no BF16 tensor cores: using its FP32 peak", note);
    case TC_DTYPE_FP16:
        return fallback_peak(gpu, TC_DTYPE_FP32, "this GPU has no FP16 tensor cores: using its FP32 peak", note);
    case TC_DTYPE_FP8:
        if (gpu->peak_tflops[TC_DTYPE_FP16] != 0)
            return fallback_peak(gpu, TC_DTYPE_FP16, "this GPU has no FP8 tensor cores: using its FP16 peak", note);
        return fallback_peak(gpu, TC_DTYPE_FP32, "this GPU has no FP8 or FP16 tensor cores: using its FP32 peak", note);
    default:
        /* FP32 is required for every entry, sourced or marked unsourced (test_gpu_catalog checks it). */
        if (note) *note = "the catalog has no FP32 peak for this GPU";
        return 0;
    }
}

tc_dtype tc_dtype_from_torch(const char *input_type) {
    if (!input_type) return TC_DTYPE_UNKNOWN;
    const char *s = input_type;
    while (*s == ' ') s++;
    if ((*s | 0x20) == 'c' && strncasecmp(s, "c10::", 5) == 0) s += 5; /* a first-byte test before each call */
    else if ((*s | 0x20) == 't' && strncasecmp(s, "torch.", 6) == 0) s += 6;
    if ((*s | 0x20) == 'f' && strncasecmp(s, "Float8_", 7) == 0) return TC_DTYPE_FP8;
    static const struct { const char *name; size_t len; tc_dtype dtype; } names[] = {
        {"float", 5, TC_DTYPE_FP32},    {"float32", 7, TC_DTYPE_FP32}, {"Float", 5, TC_DTYPE_FP32},
        {"BFloat16", 8, TC_DTYPE_BF16}, {"Half", 4, TC_DTYPE_FP16},   {"float16", 7, TC_DTYPE_FP16},
    };
    size_t n = strlen(s); /* the length first: every FLOP op's types pass here (a strcasecmp each was 1 %) */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].len == n && strcasecmp(s, names[i].name) == 0) return names[i].dtype;
    return TC_DTYPE_UNKNOWN;
}

const char *tc_dtype_name(tc_dtype dtype) {
    static const char *const names[TC_DTYPE_COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8"};
    if (dtype < 0 || dtype >= TC_DTYPE_COUNT) return "unknown";
    return names[dtype];
}
