/* test_pattern.c: the --comm-kernel dialect and its linear-time matcher (model/pattern.h): it agrees
 * with glibc's regexec (POSIX extended) on generated patterns and names, refuses what is outside
 * the dialect with why, finds patterns that match every name, looks at the first 16384 bytes only,
 * and finishes at once on the patterns that made regexec back-track for minutes. */
#include "testutil.h"
#include "model/pattern.h"
#include <regex.h>
#include <time.h>

typedef struct { uint64_t s; } rng;
static unsigned next(rng *r, unsigned n) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (unsigned)(r->s % n);
}

static void put(char *buf, size_t *len, const char *s) {
    size_t n = strlen(s);
    if (*len + n < 1000) { memcpy(buf + *len, s, n); *len += n; buf[*len] = '\0'; }
}

static void gen_alt(rng *r, char *buf, size_t *len, int depth);

static void gen_atom(rng *r, char *buf, size_t *len, int depth) {
    static const char *const atoms[] = {"a", "b", "c", ".", "[ab]", "[^a]", "[a-b]", "[[:alpha:]]", "\\.", "ab"};
    if (depth < 2 && next(r, 4) == 0) {
        put(buf, len, "(");
        gen_alt(r, buf, len, depth + 1);
        put(buf, len, ")");
    } else put(buf, len, atoms[next(r, 10)]);
    static const char *const reps[] = {"", "", "", "*", "+", "?", "{0,2}", "{1}", "{2,}", "{1,3}"};
    put(buf, len, reps[next(r, 10)]);
}

static void gen_alt(rng *r, char *buf, size_t *len, int depth) {
    unsigned alts = 1 + next(r, 2);
    for (unsigned a = 0; a < alts; a++) {
        if (a) put(buf, len, "|");
        unsigned n = 1 + next(r, 3);
        for (unsigned i = 0; i < n; i++) gen_atom(r, buf, len, depth);
    }
}

Test(pattern, agrees_with_regexec_on_generated_patterns_and_names) {
    rng r = {0x9e3779b97f4a7c15ull};
    size_t compared = 0, matched = 0;
    for (int k = 0; k < 400; k++) {
        char pat[1024] = "";
        size_t len = 0;
        if (next(&r, 4) == 0) put(pat, &len, "^");
        gen_alt(&r, pat, &len, 0);
        if (next(&r, 4) == 0) put(pat, &len, "$");
        if (len > 900) continue; /* cut by put: unbalanced */
        regex_t re;
        cr_assert_eq(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0, "%s", pat);
        char err[200];
        tc_pattern *p = tc_pattern_compile(pat, err, sizeof err);
        cr_assert(p, "%s: %s", pat, err);
        for (int j = 0; j < 8; j++) {
            char s[16];
            unsigned n = next(&r, 9);
            for (unsigned i = 0; i < n; i++) s[i] = "abc."[next(&r, 4)];
            s[n] = '\0';
            bool want = regexec(&re, s, 0, NULL, 0) == 0;
            cr_expect_eq(tc_pattern_search(p, s, n), want, "'%s' on '%s': regexec says %d", pat, s, want);
            compared++;
            matched += want;
        }
        regfree(&re);
        tc_pattern_free(p);
    }
    cr_expect_geq(compared, 3000);
    cr_expect(matched > compared / 5 && matched < compared * 4 / 5, "%zu of %zu matched", matched, compared);
}

Test(pattern, refuses_what_is_outside_the_dialect_saying_why) {
    static const struct { const char *pat, *why; } bad[] = {
        {"(a*)\\1b", "back-references"}, {"a{1,99999}", "over 1000"}, {"[[:x:]]", "unknown character class '[:x:]'"},
        {"a**{", "follows another repetition"}, {"\\", "lone backslash"}, {"x{2,1}", "{2,1} has its bounds reversed"},
        {"[z-a]", "'z-a' is reversed"}, {"(ab", "not closed by ')'"}, {"ab)", "no '(' before it"},
        {"[ab", "not closed by ']'"}, {"*a", "nothing to repeat"}, {"a{x}", "does not start an interval"},
        {"\\d", "'\\d' is not supported"}, {"(a{1000}){5}", "over 4000 states"},
        {"[[=a=]]", "not supported"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[300] = "";
        tc_pattern *p = tc_pattern_compile(bad[i].pat, err, sizeof err);
        cr_expect_null(p, "%s compiled", bad[i].pat);
        tc_pattern_free(p);
        cr_expect(strstr(err, bad[i].why), "%s: %s", bad[i].pat, err);
    }
}

static bool every(const char *pat) {
    char err[200];
    tc_pattern *p = tc_pattern_compile(pat, err, sizeof err);
    cr_assert(p, "%s: %s", pat, err);
    bool e = tc_pattern_matches_every_name(p);
    tc_pattern_free(p);
    return e;
}

Test(pattern, knows_the_patterns_that_match_every_name) {
    const char *all[] = {"", "a*", "x|", "(|a)", "$", "^", "b?$", "()", "(a|b*){2}"};
    const char *some[] = {"^$", "^a*$", "a", "a+", "^nccl", "x$", "(a|b)c*"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) cr_expect(every(all[i]), "%s", all[i]);
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) cr_expect(!every(some[i]), "%s", some[i]);
}

static bool search(const char *pat, const char *s, size_t n) {
    char err[200];
    tc_pattern *p = tc_pattern_compile(pat, err, sizeof err);
    cr_assert(p, "%s: %s", pat, err);
    bool m = tc_pattern_search(p, s, n);
    tc_pattern_free(p);
    return m;
}

Test(pattern, looks_at_the_first_16384_bytes_and_never_back_tracks) {
    size_t n = 30000;
    char *s = malloc(n + 2);
    memset(s, 'a', n);
    s[n] = '!';
    s[n + 1] = '\0';
    clock_t t0 = clock();
    cr_expect(!search("(a|aa)*c", s, n + 1));
    cr_expect(!search("(a+)+z", s, n + 1));
    cr_expect(!search("^(a+)+(a|aa)*z", s, n + 1));
    cr_expect(search("^a{1000}", s, n + 1));
    cr_expect(!search("!", s, n + 1), "the '!' is past byte 16384");
    cr_expect(!search("a$", s, TC_PATTERN_MAX_NAME + 1), "$ does not match a name that was cut");
    cr_expect(search("a$", s, TC_PATTERN_MAX_NAME));
    cr_expect(search("w\\.x", "kernel_w.x", 10) && !search("w\\.x", "kernel_wyx", 10));
    cr_expect(search("\\w+\\s\\S", "ab c", 4) && !search("^\\W", "ab", 2));
    cr_expect(search("[]a]", "]", 1) && search("[a-]", "-", 1) && !search("[^]a]", "]]", 2));
    cr_expect(search("[[:digit:]]{2}", "v12", 3) && !search("[[:digit:]]{2}", "v1x2", 4));
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    cr_expect(secs < 1.0, "%.2f s", secs);
    free(s);
}
