/* pattern.c: the --comm-kernel dialect (see pattern.h): a recursive-descent parser to a small tree,
 * the tree compiled to NFA instructions, and a search that keeps the set of live states per byte
 * (each state at most once), so it is linear in the name whatever the pattern. */
#include "pattern.h"
#include "base/status.h"
#include "base/util.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 100 /* nested groups */

enum { N_BYTE, N_SET, N_BOL, N_EOL, N_EMPTY, N_CAT, N_ALT, N_REP };
typedef struct {
    uint8_t kind, c;
    int a, b;     /* children (CAT, ALT: both; REP: a); the set index of N_SET in a */
    int min, max; /* REP: max -1 for no bound */
} node;

typedef uint8_t byteset[32];

enum { I_BYTE, I_SET, I_BOL, I_EOL, I_SPLIT, I_JMP, I_MATCH };
typedef struct {
    uint8_t op, c;
    int x, y; /* SPLIT: both; JMP: x; SET: the set in x */
} inst;

struct tc_pattern {
    inst *prog; size_t len, cap;
    byteset *sets; size_t nsets, cap_sets;
    bool anchored; /* no state lives past the first byte unless the name starts there */
};

typedef struct {
    const char *s;
    size_t i;
    node *nodes; size_t n, cap;
    tc_pattern *p;
    int depth;
    char *err; size_t errlen;
    bool failed;
} parser;

static int fail(parser *ps, const char *msg) {
    if (!ps->failed) tc_format(ps->err, ps->errlen, "%s", msg);
    ps->failed = true;
    return -1;
}

static int new_node(parser *ps, int kind, int a, int b) {
    if (ps->failed) return -1;
    if (tc_grow((void **)&ps->nodes, &ps->cap, ps->n + 1, sizeof *ps->nodes)) return fail(ps, "out of memory");
    ps->nodes[ps->n] = (node){.kind = (uint8_t)kind, .a = a, .b = b};
    return (int)ps->n++;
}

static int new_set(parser *ps) {
    tc_pattern *p = ps->p;
    if (tc_grow((void **)&p->sets, &p->cap_sets, p->nsets + 1, sizeof *p->sets)) return fail(ps, "out of memory");
    memset(p->sets[p->nsets], 0, sizeof *p->sets);
    return (int)p->nsets++;
}

static void set_add(byteset s, int c) { s[(unsigned)c >> 3] |= (uint8_t)(1u << (c & 7)); }
static bool set_has(const byteset s, int c) { return s[(unsigned)c >> 3] >> (c & 7) & 1; }

/* A POSIX class by its name, in the C locale; false for an unknown name. */
static bool class_of(const char *name, size_t len, byteset s) {
    static const char *const names[] = {"alpha", "digit", "alnum", "upper", "lower", "space",
                                        "xdigit", "punct", "blank", "cntrl", "print", "graph"};
    int k = -1;
    for (int i = 0; i < 12; i++)
        if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0) k = i;
    if (k < 0) return false;
    for (int c = 0; c < 128; c++) {
        bool up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z', dig = c >= '0' && c <= '9';
        bool graph = c > 32 && c < 127, alnum = up || lo || dig;
        bool in[] = {up || lo, dig, alnum, up, lo, c == ' ' || (c >= 9 && c <= 13),
                     dig || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), graph && !alnum,
                     c == ' ' || c == '\t', c < 32 || c == 127, graph || c == ' ', graph};
        if (in[k]) set_add(s, c);
    }
    return true;
}

static int set_node(parser *ps, int set) { return new_node(ps, N_SET, set, -1); }

/* A bracket expression; ps->i is just past its '['. */
static int parse_bracket(parser *ps) {
    int set = new_set(ps);
    if (set < 0) return -1;
    byteset s = {0};
    bool neg = ps->s[ps->i] == '^';
    if (neg) ps->i++;
    bool first = true;
    for (;;) {
        const char *t = ps->s + ps->i;
        if (!*t) return fail(ps, "'[' is not closed by ']'");
        if (*t == ']' && !first) { ps->i++; break; }
        first = false;
        if (t[0] == '[' && (t[1] == '=' || t[1] == '.'))
            return fail(ps, "collating elements and equivalence classes ([. .] and [= =]) are not supported");
        if (t[0] == '[' && t[1] == ':') {
            const char *end = strstr(t + 2, ":]");
            if (!end) return fail(ps, "a character class '[:' is not closed by ':]'");
            if (!class_of(t + 2, (size_t)(end - t - 2), s)) {
                char msg[160];
                tc_format(msg, sizeof msg, "unknown character class '[:%.*s:]' (known: alpha digit alnum upper lower space xdigit punct blank cntrl print graph)",
                          (int)(end - t - 2 > 40 ? 40 : end - t - 2), t + 2);
                return fail(ps, msg);
            }
            ps->i += (size_t)(end - t) + 2;
            continue;
        }
        unsigned char lo = (unsigned char)t[0], hi = lo;
        if (t[1] == '-' && t[2] && t[2] != ']') {
            hi = (unsigned char)t[2];
            if (hi < lo) {
                char msg[80];
                tc_format(msg, sizeof msg, "the range '%c-%c' is reversed", lo, hi);
                return fail(ps, msg);
            }
            ps->i += 3;
        } else ps->i++;
        for (int c = lo; c <= hi; c++) set_add(s, c);
    }
    for (int b = 0; b < 32; b++) ps->p->sets[set][b] = neg ? (uint8_t)~s[b] : s[b];
    return set_node(ps, set);
}

/* \w \W \s \S as sets; other letters and digits are refused; punctuation stands for itself. */
static int parse_escape(parser *ps) {
    char c = ps->s[ps->i];
    if (!c) return fail(ps, "a lone backslash ends the pattern (write \\\\ for a backslash)");
    ps->i++;
    if (c >= '1' && c <= '9') return fail(ps, "back-references (\\1 ... \\9) are not supported: they can take exponential time");
    if (c == 'w' || c == 'W' || c == 's' || c == 'S') {
        int set = new_set(ps);
        if (set < 0) return -1;
        byteset s = {0};
        class_of(c == 'w' || c == 'W' ? "alnum" : "space", 5, s);
        if (c == 'w' || c == 'W') set_add(s, '_');
        for (int b = 0; b < 32; b++) ps->p->sets[set][b] = c == 'W' || c == 'S' ? (uint8_t)~s[b] : s[b];
        return set_node(ps, set);
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
        char msg[100];
        tc_format(msg, sizeof msg, "'\\%c' is not supported (escapes: punctuation, \\w \\W \\s \\S)", c);
        return fail(ps, msg);
    }
    int n = new_node(ps, N_BYTE, -1, -1);
    if (n >= 0) ps->nodes[n].c = (uint8_t)c;
    return n;
}

static int parse_alt(parser *ps);

static int parse_atom(parser *ps) {
    char c = ps->s[ps->i];
    char msg[80];
    switch (c) {
    case '(': {
        if (++ps->depth > MAX_DEPTH) return fail(ps, "groups nested more than 100 deep");
        ps->i++;
        int e = parse_alt(ps);
        if (e < 0) return -1;
        if (ps->s[ps->i] != ')') return fail(ps, "'(' is not closed by ')'");
        ps->i++;
        ps->depth--;
        return e;
    }
    case '*': case '+': case '?': case '{':
        tc_format(msg, sizeof msg, "'%c' has nothing to repeat", c);
        return fail(ps, msg);
    case '[': ps->i++; return parse_bracket(ps);
    case '\\': ps->i++; return parse_escape(ps);
    case '^': ps->i++; return new_node(ps, N_BOL, -1, -1);
    case '$': ps->i++; return new_node(ps, N_EOL, -1, -1);
    case '.': {
        int set = new_set(ps);
        if (set < 0) return -1;
        memset(ps->p->sets[set], 0xff, sizeof(byteset));
        ps->i++;
        return set_node(ps, set);
    }
    default: {
        ps->i++;
        int n = new_node(ps, N_BYTE, -1, -1);
        if (n >= 0) ps->nodes[n].c = (uint8_t)c;
        return n;
    }
    }
}

/* A count in an interval: digits, at most TC_PATTERN_MAX_REPEAT; -1 when there are none. */
static int parse_count(parser *ps) {
    if (ps->s[ps->i] < '0' || ps->s[ps->i] > '9') return -1;
    long v = 0;
    while (ps->s[ps->i] >= '0' && ps->s[ps->i] <= '9') {
        if (v <= TC_PATTERN_MAX_REPEAT) v = v * 10 + (ps->s[ps->i] - '0');
        ps->i++;
    }
    if (v > TC_PATTERN_MAX_REPEAT) {
        fail(ps, "an interval count is over 1000");
        return -2;
    }
    return (int)v;
}

/* {m} {m,} {m,n} {,n}; ps->i is at its '{'. */
static bool parse_interval(parser *ps, int *min, int *max) {
    ps->i++;
    int m = parse_count(ps), n;
    if (m == -2) return false;
    if (ps->s[ps->i] == ',') {
        ps->i++;
        n = parse_count(ps);
        if (n == -2) return false;
    } else n = m;
    if ((m < 0 && n < 0) || ps->s[ps->i] != '}')
        return fail(ps, "'{' does not start an interval {m}, {m,}, {m,n} (write \\{ for a brace)"), false;
    ps->i++;
    if (m < 0) m = 0;
    if (n >= 0 && n < m) {
        char msg[80];
        tc_format(msg, sizeof msg, "the interval {%d,%d} has its bounds reversed", m, n);
        return fail(ps, msg), false;
    }
    *min = m;
    *max = n;
    return true;
}

static bool is_repeat(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

static int parse_repeat(parser *ps) {
    int e = parse_atom(ps);
    if (e < 0 || !is_repeat(ps->s[ps->i])) return e;
    int min = 0, max = -1;
    char c = ps->s[ps->i];
    if (c == '{') {
        if (!parse_interval(ps, &min, &max)) return -1;
    } else {
        ps->i++;
        min = c == '+';
        max = c == '?' ? 1 : -1;
    }
    if (is_repeat(ps->s[ps->i])) {
        char msg[80];
        tc_format(msg, sizeof msg, "'%c' follows another repetition (group the first: '(a*)%c')", ps->s[ps->i], ps->s[ps->i]);
        return fail(ps, msg);
    }
    int r = new_node(ps, N_REP, e, -1);
    if (r >= 0) { ps->nodes[r].min = min; ps->nodes[r].max = max; }
    return r;
}

static int parse_concat(parser *ps) {
    int left = -1;
    for (char c; (c = ps->s[ps->i]) && c != '|' && c != ')';) {
        int r = parse_repeat(ps);
        if (r < 0) return -1;
        left = left < 0 ? r : new_node(ps, N_CAT, left, r);
        if (left < 0) return -1;
    }
    return left < 0 ? new_node(ps, N_EMPTY, -1, -1) : left;
}

static int parse_alt(parser *ps) {
    int left = parse_concat(ps);
    while (left >= 0 && ps->s[ps->i] == '|') {
        ps->i++;
        int right = parse_concat(ps);
        left = right < 0 ? -1 : new_node(ps, N_ALT, left, right);
    }
    return left;
}

/* ---- compiling ------------------------------------------------------------------------------ */

static int emit(tc_pattern *p, int op, int c, int x, int y) {
    if (p->len >= TC_PATTERN_MAX_STATES) return -1;
    if (tc_grow((void **)&p->prog, &p->cap, p->len + 1, sizeof *p->prog)) return -1;
    p->prog[p->len] = (inst){.op = (uint8_t)op, .c = (uint8_t)c, .x = x, .y = y};
    return (int)p->len++;
}

/* The code of node k at the end of p->prog; -1 when it is too large (or out of memory). */
static int gen(tc_pattern *p, const node *nodes, int k) {
    const node *n = &nodes[k];
    int at;
    switch (n->kind) {
    case N_BYTE: return emit(p, I_BYTE, n->c, 0, 0) < 0 ? -1 : 0;
    case N_SET: return emit(p, I_SET, 0, n->a, 0) < 0 ? -1 : 0;
    case N_BOL: return emit(p, I_BOL, 0, 0, 0) < 0 ? -1 : 0;
    case N_EOL: return emit(p, I_EOL, 0, 0, 0) < 0 ? -1 : 0;
    case N_EMPTY: return 0;
    case N_CAT: return gen(p, nodes, n->a) < 0 ? -1 : gen(p, nodes, n->b);
    case N_ALT: {
        int split = emit(p, I_SPLIT, 0, 0, 0), jmp;
        if (split < 0 || gen(p, nodes, n->a) < 0 || (jmp = emit(p, I_JMP, 0, 0, 0)) < 0) return -1;
        p->prog[split].x = split + 1;
        p->prog[split].y = (int)p->len;
        if (gen(p, nodes, n->b) < 0) return -1;
        p->prog[jmp].x = (int)p->len;
        return 0;
    }
    default: break;
    }
    for (int i = 0; i < n->min; i++)
        if (gen(p, nodes, n->a) < 0) return -1;
    if (n->max < 0) { /* L: split L+1, out; a; jmp L */
        if ((at = emit(p, I_SPLIT, 0, 0, 0)) < 0 || gen(p, nodes, n->a) < 0 || emit(p, I_JMP, 0, at, 0) < 0) return -1;
        p->prog[at].x = at + 1;
        p->prog[at].y = (int)p->len;
        return 0;
    }
    size_t first = p->len; /* (max - min) optional copies, each one's split leaving to the end */
    for (int i = n->min; i < n->max; i++) {
        if ((at = emit(p, I_SPLIT, 0, 0, 0)) < 0 || gen(p, nodes, n->a) < 0) return -1;
        p->prog[at].x = at + 1;
    }
    for (size_t i = first; i < p->len; i++)
        if (p->prog[i].op == I_SPLIT && p->prog[i].y == 0 && p->prog[i].x == (int)i + 1) p->prog[i].y = (int)p->len;
    return 0;
}

/* ---- searching ------------------------------------------------------------------------------- */

typedef struct {
    unsigned *mark; /* the generation a state was last added in */
    int *stack;
} scratch;

/* Adds the states reachable from pc without a byte (at a place where ^ holds if bol, $ if eol) to
 * list; true when the match state is among them. */
static bool closure(const tc_pattern *p, int pc, bool bol, bool eol, unsigned g, scratch *w, int *list, size_t *n) {
    size_t top = 0;
    bool match = false;
    w->stack[top++] = pc;
    while (top) {
        int k = w->stack[--top];
        if (w->mark[k] == g) continue;
        w->mark[k] = g;
        const inst *in = &p->prog[k];
        switch (in->op) {
        case I_JMP: w->stack[top++] = in->x; break;
        case I_SPLIT: w->stack[top++] = in->y; w->stack[top++] = in->x; break;
        case I_BOL: if (bol) w->stack[top++] = k + 1; break;
        case I_EOL: if (eol) w->stack[top++] = k + 1; break;
        case I_MATCH: match = true; break;
        default: list[(*n)++] = k;
        }
    }
    return match;
}

bool tc_pattern_search(const tc_pattern *p, const char *s, size_t n) {
    bool cut = n > TC_PATTERN_MAX_NAME;
    if (cut) n = TC_PATTERN_MAX_NAME;
    size_t L = p->len;
    unsigned *mark = calloc(L, sizeof *mark);
    int *ints = malloc((4 * L + 2) * sizeof *ints); /* two lists, and a stack: a push per edge, 2 L + 1 at most */
    bool found = false;
    if (!mark || !ints) goto out; /* out of memory: no match */
    scratch w = {mark, ints + 2 * L};
    int *cur = ints, *next = ints + L;
    size_t ncur = 0;
    for (size_t i = 0;; i++) {
        if (!(i > 0 && p->anchored) && closure(p, 0, i == 0, i == n && !cut, (unsigned)i + 1, &w, cur, &ncur)) { found = true; break; }
        if (i == n || (ncur == 0 && p->anchored)) break;
        size_t nnext = 0;
        unsigned char c = (unsigned char)s[i];
        for (size_t t = 0; t < ncur && !found; t++) {
            const inst *in = &p->prog[cur[t]];
            bool hit = in->op == I_BYTE ? in->c == c : set_has(p->sets[in->x], c);
            if (hit) found = closure(p, cur[t] + 1, false, i + 1 == n && !cut, (unsigned)i + 2, &w, next, &nnext);
        }
        if (found) break;
        int *tmp = cur; cur = next; next = tmp;
        ncur = nnext;
    }
out:
    free(mark);
    free(ints);
    return found;
}

/* Whether the empty string at a place where ^ holds if bol and $ if eol matches. */
static bool empty_matches(const tc_pattern *p, bool bol, bool eol) {
    size_t L = p->len, n = 0;
    unsigned *mark = calloc(L, sizeof *mark);
    int *ints = malloc((3 * L + 2) * sizeof *ints);
    bool m = mark && ints && closure(p, 0, bol, eol, 1, &(scratch){mark, ints + L}, ints, &n);
    free(mark);
    free(ints);
    return m;
}

bool tc_pattern_matches_every_name(const tc_pattern *p) { return empty_matches(p, true, false) || empty_matches(p, false, true); }

tc_pattern *tc_pattern_compile(const char *text, char *err, size_t errlen) {
    tc_pattern *p = calloc(1, sizeof *p);
    parser ps = {.s = text, .p = p, .err = err, .errlen = errlen};
    if (!p) { tc_format(err, errlen, "out of memory"); return NULL; }
    int root = -1;
    if (strlen(text) > TC_PATTERN_MAX_TEXT) fail(&ps, "longer than 1024 characters");
    else if ((root = parse_alt(&ps)) >= 0 && text[ps.i] == ')') root = fail(&ps, "')' has no '(' before it");
    if (root >= 0 && (gen(p, ps.nodes, root) < 0 || emit(p, I_MATCH, 0, 0, 0) < 0))
        root = fail(&ps, "too large: over 4000 states once its intervals are written out");
    free(ps.nodes);
    if (root < 0) { tc_pattern_free(p); return NULL; }
    /* anchored: from a place after the start, the first state adds nothing and matches nothing */
    size_t L = p->len, n = 0;
    unsigned *mark = calloc(L, sizeof *mark);
    int *ints = malloc((3 * L + 2) * sizeof *ints);
    if (mark && ints) {
        scratch w = {mark, ints + L};
        bool m1 = closure(p, 0, false, false, 1, &w, ints, &n);
        size_t n2 = 0;
        bool m2 = closure(p, 0, false, true, 2, &w, ints, &n2);
        p->anchored = !m1 && !m2 && n == 0 && n2 == 0;
    }
    free(mark);
    free(ints);
    return p;
}

void tc_pattern_free(tc_pattern *p) {
    if (!p) return;
    free(p->prog);
    free(p->sets);
    free(p);
}
