/* comm_kernels.c: the communication-kernel catalog compiled from comm_kernels.def, user patterns,
 * and the one classifier that applies both (see comm_kernels.h). */
#include "comm_kernels.h"
#include "base/status.h"
#include "base/util.h"
#include "pattern.h"
#include <stdlib.h>
#include <string.h>

enum { PREFIX = 1, CONTAINS = 0 };
#define TC_COMM_NOT_COMM TC_COMM_NO /* an exclusion's "library" */

typedef struct {
    const char *text;
    size_t len;
    bool prefix;
    uint8_t lib;
    const char *why;
} rule;

static const rule rules[] = {
#define TC_COMM_KERNEL(how, text, ID, why) {text, sizeof text - 1, how == PREFIX, TC_COMM_##ID, why},
#include "comm_kernels.def"
};
#define N_RULES (sizeof rules / sizeof rules[0])

static const char *const lib_names[TC_COMM_LIB_COUNT] = {
    "",
#define TC_COMM_LIBRARY(ID, name, source) name,
#include "comm_kernels.def"
    "collective args", "--comm-kernel",
};

/* memmem without relying on _GNU_SOURCE: the first byte by memchr, then memcmp. */
static bool contains(const char *s, size_t n, const char *t, size_t m) {
    if (m == 0) return true;
    for (const char *p = s, *end = s + n; (size_t)(end - p) >= m;) {
        const char *c = memchr(p, t[0], (size_t)(end - p) - m + 1);
        if (!c) return false;
        if (memcmp(c, t, m) == 0) return true;
        p = c + 1;
    }
    return false;
}

_Static_assert(N_RULES <= TC_COMM_RULES_MAX, "comm_kernels.def has more rules than tc_comm_index holds");

/* Which ASCII byte values occur in s[0, n): bit b of m[b >> 6] (bytes from 0x80 on are in no rule). */
static void bytes_present(const char *s, size_t n, uint64_t m[2]) {
    uint64_t lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        uint64_t bit = 1ULL << (c & 63);
        if (c < 64) lo |= bit;
        else if (c < 128) hi |= bit;
    }
    m[0] = lo;
    m[1] = hi;
}

/* A 4-byte window's bit in the windows' filter. */
static uint32_t window_bit(const char *s) {
    uint32_t w;
    memcpy(&w, s, 4);
    return (w * 0x9E3779B1u) >> (32 - TC_COMM_WINDOW_BITS);
}

void tc_comm_index_init(tc_comm_index *ix) {
    memset(ix, 0, sizeof *ix);
    ix->windows_ok = true;
    for (size_t i = 0; i < N_RULES; i++) {
        bytes_present(rules[i].text, rules[i].len, ix->need[i]);
        if (rules[i].prefix) { ix->prefix[ix->n_prefix++] = (uint8_t)i; continue; }
        if (rules[i].len < 7) { ix->windows_ok = false; continue; }
        for (size_t off = 0; off < 4; off++) {
            uint32_t b = window_bit(rules[i].text + off);
            ix->windows[b >> 6] |= 1ULL << (b & 63);
        }
    }
}

/* Whether a CONTAINS rule may occur in name: a window at a multiple of 4 is in the filter. */
static bool may_hold_a_rule(const tc_comm_index *ix, const char *name, size_t len) {
    if (!ix->windows_ok) return true;
    for (size_t i = 0; i + 4 <= len; i += 4) {
        uint32_t b = window_bit(name + i);
        if (ix->windows[b >> 6] >> (b & 63) & 1) return true;
    }
    return false;
}

/* Whether name starts with rule r's text (its first byte tested before a memcmp call). */
static bool prefix_hit(const rule *r, const char *name, size_t len) {
    return len >= r->len && (!r->len || name[0] == r->text[0]) && memcmp(name, r->text, r->len) == 0;
}

uint8_t tc_comm_kernel_lib(const tc_comm_index *ix, const char *name, size_t len) {
    tc_comm_index own;
    if (!ix) { tc_comm_index_init(&own); ix = &own; }
    if (!may_hold_a_rule(ix, name, len)) { /* the prefix rules alone, in order */
        for (size_t k = 0; k < ix->n_prefix; k++)
            if (prefix_hit(&rules[ix->prefix[k]], name, len)) return rules[ix->prefix[k]].lib;
        return TC_COMM_NO;
    }
    uint64_t has[2];
    bytes_present(name, len, has);
    for (size_t i = 0; i < N_RULES; i++) {
        const rule *r = &rules[i];
        bool hit = r->prefix ? prefix_hit(r, name, len)
                             : (ix->need[i][0] & ~has[0]) == 0 && (ix->need[i][1] & ~has[1]) == 0 &&
                                   contains(name, len, r->text, r->len);
        if (hit) return r->lib;
    }
    return TC_COMM_NO;
}

const char *tc_comm_lib_name(uint8_t lib) { return lib < TC_COMM_LIB_COUNT ? lib_names[lib] : ""; }

size_t tc_comm_rule_count(void) { return N_RULES; }

bool tc_comm_rule_at(size_t i, const char **text, bool *prefix, uint8_t *lib, const char **why) {
    if (i >= N_RULES) return false;
    *text = rules[i].text;
    *prefix = rules[i].prefix;
    *lib = rules[i].lib;
    *why = rules[i].why;
    return true;
}

/* ---- user patterns ------------------------------------------------------------------------- */

struct tc_comm_patterns {
    tc_pattern **re; char **text; size_t n, cap, cap_text;
};

tc_comm_patterns *tc_comm_patterns_new(void) { return calloc(1, sizeof(tc_comm_patterns)); }

void tc_comm_patterns_free(tc_comm_patterns *p) {
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) { tc_pattern_free(p->re[i]); free(p->text[i]); }
    free(p->re);
    free(p->text);
    free(p);
}

int tc_comm_patterns_add(tc_comm_patterns *p, const char *regex, char *err, size_t errlen) {
    if (tc_grow((void **)&p->re, &p->cap, p->n + 1, sizeof *p->re) ||
        tc_grow((void **)&p->text, &p->cap_text, p->n + 1, sizeof *p->text)) {
        tc_format(err, errlen, "out of memory");
        return -1;
    }
    if (!*regex) {
        tc_format(err, errlen, "an empty pattern would make every kernel communication");
        return -1;
    }
    char why[256];
    tc_pattern *re = tc_pattern_compile(regex, why, sizeof why);
    if (!re) {
        tc_format(err, errlen, "'%s' is not a valid regular expression: %s", regex, why);
        return -1;
    }
    if (tc_pattern_matches_every_name(re)) {
        tc_pattern_free(re);
        tc_format(err, errlen, "'%s' matches the empty string, so every kernel would be communication", regex);
        return -1;
    }
    char *copy = tc_strdup(regex);
    if (!copy) { tc_pattern_free(re); tc_format(err, errlen, "out of memory"); return -1; }
    p->re[p->n] = re;
    p->text[p->n++] = copy;
    return 0;
}

size_t tc_comm_patterns_count(const tc_comm_patterns *p) { return p ? p->n : 0; }

const char *tc_comm_patterns_at(const tc_comm_patterns *p, size_t i) { return p && i < p->n ? p->text[i] : NULL; }

static bool user_match(const tc_comm_patterns *p, const char *name, size_t len) {
    if (!p || !p->n) return false; /* no patterns: no NUL to look for either */
    size_t n = len;
    const char *nul = memchr(name, '\0', len); /* matched up to the first NUL, as regexec did */
    if (nul) n = (size_t)(nul - name);
    for (size_t i = 0; p && i < p->n; i++)
        if (tc_pattern_search(p->re[i], name, n)) return true;
    return false;
}

uint8_t tc_comm_classify(const tc_comm_index *ix, const tc_comm_patterns *user, const char *name, size_t len,
                         bool has_coll_args) {
    uint8_t lib = tc_comm_kernel_lib(ix, name, len);
    if (lib != TC_COMM_NO) return lib;
    if (has_coll_args) return TC_COMM_ARGS;
    return user_match(user, name, len) ? TC_COMM_USER : TC_COMM_NO;
}
