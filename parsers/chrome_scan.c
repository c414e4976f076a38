/* chrome_scan.c: the Chrome-trace events handled before yajl (see below and chrome_trace_int.h):
 * the byte scanner that counts them, records their host spans, or writes their tokens down for
 * ct_emit_event, and passes every other byte on to yajl. */
#define _GNU_SOURCE /* memmem */
#include "chrome_trace_int.h"
#include <assert.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- events handled before yajl ---------------------------------------------------------------
 * Most of a Kineto trace's bytes are events whose only effect is to add to events_total (flows,
 * instants and counters: ct_finish_event reads only phase "X"; Python functions), or to add one host
 * span, whose fields are all in the event's top-level keys (CPU ops that are not FLOP ops,
 * annotations that are not a ProfilerStep). Such an event is handled here without yajl, counted
 * and its span recorded by the same ct_add_host_span, when all of this holds, so this changes nothing
 * but the time taken:
 *  - the parser stands between two elements of the events array (top frame F_EVENTS, and the last
 *    byte yajl saw before the event, whitespace aside, was the array's '[' or a ',' right after the
 *    element yajl read last, by yajl's own byte count: not a '[' or ',' inside a string), or right
 *    after an event handled here;
 *  - the event is an object that is valid JSON by the grammar yajl applies (strings without
 *    escapes or control bytes, numbers, literals, nesting up to SKIP_MAX_DEPTH), wholly inside the
 *    bytes at hand, with its keys in any order and any whitespace (Kineto's "ph" first, a re-saved
 *    trace's "args" first);
 *  - by the last value of each of its keys, ct_finish_event would do nothing but count it or add a
 *    host span (event_fate), and in particular a complete event's "ts" and "dur" are valid numbers
 *    and its "pid" and "tid", when present, a string or a number;
 *  - a ',' follows it, so yajl, which then sees neither the event nor its comma, still expects a
 *    value next.
 * Any other event for which the first two rules and the last one hold (a kernel, a launch, a FLOP
 * op, a step, ...) is read without yajl too: one walk (event_walk) checks it, writes its tokens down
 * and reads its fate, so an event that matters is not walked again from its '{', and
 * ct_emit_event calls the callbacks yajl would call for them, in the same order with the same
 * bytes (a string's text between its quotes, a number's text), so the same record results. This
 * parser is cheaper than yajl's because it knows the event is whole and plain before the first
 * callback: no token can straddle two feeds and no string needs decoding.
 * Anything else (an escape, nesting past SKIP_MAX_DEPTH, more than TOK_CAP tokens, the events
 * array's last event) goes to yajl as before. */

#define SKIP_MAX_DEPTH 32

/* space, tab, LF, CR, by a table: a load and a test where the walk asks most */
static const bool json_ws[256] = {[' '] = true, ['\t'] = true, ['\n'] = true, ['\r'] = true};
static inline bool is_json_ws(char c) { return json_ws[(unsigned char)c]; }

/* Offset of the first byte in b[i, end) that is not an ASCII digit, or end: 8 bytes at a time
 * (a byte below '0' borrows into its top bit, one above '9' carries into it; the bytes before the
 * first non-digit are digits, which neither borrow nor carry). */
static inline size_t digits_end(const char *b, size_t i, size_t end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 8 <= end; i += 8) {
        uint64_t x;
        memcpy(&x, b + i, 8);
        uint64_t nd = ((x - 0x3030303030303030ull) | (x + 0x4646464646464646ull)) & 0x8080808080808080ull;
        if (nd) return i + (size_t)(__builtin_ctzll(nd) >> 3);
    }
#endif
    while (i < end && b[i] >= '0' && b[i] <= '9') i++;
    return i;
}

/* Offset just past the string that opens at b[i] ('"'), or 0 when it holds an escape, a control
 * byte, or runs past end. With the chunk's index (vscan.h), the string's end is its next bit: the
 * first unescaped quote or refused byte (a backslash, a control byte) after b[i]. */
__attribute__((always_inline)) static inline size_t plain_string_end(const char *b, size_t i, size_t end, const vs_index *ix) {
    if (ix) {
        size_t q = i + 1 < end ? vs_next_qr(ix, i + 1, end) : end;
        return q < end && (ix->plain || b[q] == '"') ? q + 1 : 0;
    }
    for (i++; i < end; i++) {
        unsigned char c = (unsigned char)b[i];
        if (c == '"') return i + 1;
        if (c == '\\' || c < 0x20) return 0;
    }
    return 0;
}

/* Offset just past the JSON number at b[i], or 0 when it is not one by the JSON grammar. */
__attribute__((always_inline)) static inline size_t number_end(const char *b, size_t i, size_t end) {
    if (i < end && b[i] == '-') i++;
    if (i >= end) return 0;
    if (b[i] == '0') i++;
    else if (b[i] >= '1' && b[i] <= '9') i = digits_end(b, i + 1, end);
    else return 0;
    if (i < end && b[i] == '.') {
        size_t d = ++i;
        i = digits_end(b, i, end);
        if (i == d) return 0;
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
        i++;
        if (i < end && (b[i] == '+' || b[i] == '-')) i++;
        size_t d = i;
        while (i < end && b[i] >= '0' && b[i] <= '9') i++;
        if (i == d) return 0;
    }
    return i < end ? i : 0; /* a number must be followed by something, as in yajl's lexer */
}

__attribute__((always_inline)) static inline size_t skip_json_ws(const char *b, size_t i, size_t end, const vs_index *ix) {
    if (i < end && !is_json_ws(b[i])) return i; /* most often: no whitespace at all */
    if (ix) { /* else Kineto's one space after a ':' or ',', or the index */
        if (i + 1 < end && !is_json_ws(b[i + 1])) return i + 1;
        return i < end ? vs_skip_ws(ix, i, end) : i;
    }
#if defined(__SSE2__)
    /* indented layouts put a newline and a run of spaces before every key: 16 bytes at a time */
    if (i + 16 <= end) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
        unsigned m = ~(unsigned)_mm_movemask_epi8(ws) & 0xffffu;
        if (m) return i + (size_t)__builtin_ctz(m);
        i += 16;
    }
#endif
    while (i < end && is_json_ws(b[i])) i++;
    return i;
}

/* Offset just past the JSON value at b[i] (any nesting up to max_depth <= SKIP_MAX_DEPTH), or 0 when
 * it is not valid by yajl's grammar, holds an escape or runs past end. With a sink, its tokens are
 * written there too, in the order yajl would call back for them (0 when more than the sink holds).
 * Always inlined into its two callers, so the walk without a sink tests for none. */
__attribute__((always_inline)) static inline size_t scan_value(const char *b, size_t i, size_t end, tok_sink *sink,
                                                               const vs_index *ix, int max_depth) {
#define PUT(k, a, l) do { \
        if (sink) { \
            if (sink->n == TOK_CAP) return 0; \
            sink->t[sink->n++] = (tok){(a), (l), (k)}; \
        } \
    } while (0)
    char open[SKIP_MAX_DEPTH]; /* '{' or '[' per open container */
    int depth = 0;
    size_t v;
    for (;;) { /* at a value */
        if (i >= end) return 0;
        char c = b[i];
        if (c == '{' || c == '[') {
            if (depth == max_depth) return 0;
            PUT(c == '{' ? TK_OPEN_MAP : TK_OPEN_ARRAY, i, 1);
            open[depth++] = c;
            i = skip_json_ws(b, i + 1, end, ix);
            if (i >= end) return 0;
            if (b[i] == (c == '{' ? '}' : ']')) {
                PUT(c == '{' ? TK_CLOSE_MAP : TK_CLOSE_ARRAY, i, 1);
                i++;
                depth--;
                goto after_value;
            }
            if (c == '{') goto at_key;
            continue;
        }
        tok_kind k;
        if (c == '"') { v = plain_string_end(b, i, end, ix); k = TK_STRING; }
        else if (c == '-' || (c >= '0' && c <= '9')) { v = number_end(b, i, end); k = TK_NUMBER; }
        else if (c == 't') { v = end - i > 4 && memcmp(b + i, "true", 4) == 0 ? i + 4 : 0; k = TK_TRUE; }
        else if (c == 'f') { v = end - i > 5 && memcmp(b + i, "false", 5) == 0 ? i + 5 : 0; k = TK_FALSE; }
        else if (c == 'n') { v = end - i > 4 && memcmp(b + i, "null", 4) == 0 ? i + 4 : 0; k = TK_NULL; }
        else return 0;
        if (!v) return 0;
        if (k == TK_STRING) PUT(k, i + 1, v - i - 2); /* the text between the quotes, as yajl gives it */
        else PUT(k, i, v - i);
        i = v;
    after_value:
        if (depth == 0) return i;
        if (i + 2 < end && b[i] == ',' && b[i + 1] == ' ' && !is_json_ws(b[i + 2])) { /* Kineto's ", " */
            i += 2;
            if (open[depth - 1] == '[') continue;
            goto at_key;
        }
        i = skip_json_ws(b, i, end, ix);
        if (i >= end) return 0;
        if (b[i] == (open[depth - 1] == '{' ? '}' : ']')) {
            PUT(open[depth - 1] == '{' ? TK_CLOSE_MAP : TK_CLOSE_ARRAY, i, 1);
            i++;
            depth--;
            goto after_value;
        }
        if (b[i] != ',') return 0;
        i = skip_json_ws(b, i + 1, end, ix);
        if (open[depth - 1] == '[') continue;
    at_key:
        if (i >= end || b[i] != '"' || !(v = plain_string_end(b, i, end, ix))) return 0;
        PUT(TK_KEY, i + 1, v - i - 2);
        if (v + 2 < end && b[v] == ':' && b[v + 1] == ' ' && !is_json_ws(b[v + 2])) { /* Kineto's ": " */
            i = v + 2;
            continue;
        }
        i = skip_json_ws(b, v, end, ix);
        if (i >= end || b[i] != ':') return 0;
        i = skip_json_ws(b, i + 1, end, ix);
    }
#undef PUT
}

static size_t value_end(const char *b, size_t i, size_t end, const vs_index *ix) {
    return scan_value(b, i, end, NULL, ix, SKIP_MAX_DEPTH);
}
static size_t value_tokens(const char *b, size_t i, size_t end, tok_sink *sink, const vs_index *ix, int max_depth) {
    return scan_value(b, i, end, sink, ix, max_depth);
}

typedef struct { size_t at, len; bool is_string; bool seen; } span;

/* What ct_finish_event would do with an event, judged before yajl: hand it to yajl (it may matter, or
 * its fields are not plain), only count it, or count it and add a host span. */
typedef enum { FATE_YAJL, FATE_COUNT, FATE_HOST } event_fate_kind;

/* The host span an event handled before yajl makes (FATE_HOST). */
typedef struct {
    event_fate_kind fate;
    tc_host_kind kind;
    span name, pid, tid;
    int64_t ts_ns, dur_ns;
} fast_event;

/* For a complete ("X") event, or one whose "ph" is not read yet (keys come in any order): do the
 * category and name read so far already make it one that yajl must read (a kernel, a launch, a
 * copy, a FLOP op, a ProfilerStep)? */
static bool complete_event_matters(const char *b, const span *ph, const span *cat, const span *name) {
    if (ph->seen && ph->is_string && !(ph->len == 1 && b[ph->at] == 'X')) return false; /* only counted */
    if ((cat->seen && !cat->is_string) || (name->seen && !name->is_string)) return true; /* left to yajl */
    cat_kind k = cat->seen ? ct_classify_cat((const unsigned char *)b + cat->at, cat->len) : CAT_OTHER;
    if (k != CAT_CPU_OP && k != CAT_OTHER && k != CAT_USER_ANNOTATION && k != CAT_PYTHON_FUNCTION) return true;
    if (!name->seen) return false;
    size_t nl = name->len > NAME_CAP - 1 ? NAME_CAP - 1 : name->len;
    if (k == CAT_PYTHON_FUNCTION) return is_module_name(b + name->at, nl); /* a module span is kept */
    if (nl > 13 && memcmp(b + name->at, "ProfilerStep#", 13) == 0) return true;
    if (is_param_comms(b + name->at, nl)) return true; /* its collective args are kept */
    return cat->seen && k == CAT_CPU_OP && tc_flop_op_from_name(b + name->at, nl) != TC_FOP_NONE;
}

/* The fate of an event by the last values of its keys (see above); for FATE_HOST fills ev's kind
 * and times. */
static event_fate_kind event_fate(const char *b, const span *ph, const span *cat, const span *name, const span *ts,
                                  const span *dur, fast_event *ev) {
    if (!ph->seen || !ph->is_string) return FATE_YAJL;
    if (!(ph->len == 1 && b[ph->at] == 'X')) return FATE_COUNT; /* every other phase is only counted */
    if (complete_event_matters(b, ph, cat, name)) return FATE_YAJL;
    /* a complete event whose times are unusable is counted as skipped, with its reason: yajl's */
    int64_t t0, d;
    if (!ts->seen || !dur->seen || ts->is_string || dur->is_string) return FATE_YAJL;
    if (ct_parse_scaled_signed(b + ts->at, ts->len, 3, &t0) != NUM_OK || ct_parse_scaled(b + dur->at, dur->len, 3, &d) != NUM_OK)
        return FATE_YAJL;
    if (!times_fit(t0, d)) return FATE_YAJL;
    cat_kind k = cat->seen ? ct_classify_cat((const unsigned char *)b + cat->at, cat->len) : CAT_OTHER;
    if (k != CAT_CPU_OP && k != CAT_USER_ANNOTATION) return FATE_COUNT;
    ev->kind = k == CAT_CPU_OP ? TC_HOST_CPU_OP : TC_HOST_ANNOTATION;
    ev->ts_ns = t0;
    ev->dur_ns = d;
    return FATE_HOST;
}

/* What the walk of an event (event_walk) has read for its fate so far: its spans and whether its
 * args hold "Input Dims" (a cpu_op with them keeps its op key: yajl's path). */
typedef struct {
    span ph, cat, ts, dur;
    bool dims;
} judged;

/* Does the value b[i, v) of an "args" key hold the string "Input Dims" (a key or a value, at any
 * depth)? By its tokens toks[n0, n1) when they were written down, else by its bytes: with plain
 * strings, "\"Input Dims\"" can only be such a string. */
static bool holds_input_dims(const char *b, size_t i, size_t v, const tok_sink *s, size_t n0, size_t n1) {
    if (!s) return memmem(b + i, v - i, "\"Input Dims\"", 12) != NULL;
    for (size_t k = n0; k < n1; k++)
        if (s->t[k].len == 10 && (s->t[k].kind == TK_KEY || s->t[k].kind == TK_STRING) && memcmp(b + s->t[k].at, "Input Dims", 10) == 0)
            return true;
    return false;
}

/* Reads key b[key, key + kl)'s value b[i, v) for the event's fate (see above). False when the event
 * can no longer be handled here without its callbacks: a kernel, a launch or a FLOP op (judged as
 * soon as its category or name is read), or a pid or tid that is neither a string nor a number. */
static bool judge_key(const char *b, const char *key, size_t kl, size_t i, size_t v, judged *j, fast_event *ev,
                      const tok_sink *s, size_t n0, size_t n1) {
    span *slot = NULL;
    if (kl == 2 && memcmp(key, "ph", 2) == 0) slot = &j->ph;
    else if (kl == 2 && memcmp(key, "ts", 2) == 0) slot = &j->ts;
    else if (kl == 3 && memcmp(key, "cat", 3) == 0) slot = &j->cat;
    else if (kl == 3 && memcmp(key, "dur", 3) == 0) slot = &j->dur;
    else if (kl == 3 && memcmp(key, "pid", 3) == 0) slot = &ev->pid;
    else if (kl == 3 && memcmp(key, "tid", 3) == 0) slot = &ev->tid;
    else if (kl == 4 && memcmp(key, "name", 4) == 0) slot = &ev->name;
    else if (kl == 4 && !j->dims && b[i] == '{' && memcmp(key, "args", 4) == 0 &&
             (!j->cat.seen || ct_classify_cat((const unsigned char *)b + j->cat.at, j->cat.len) == CAT_CPU_OP))
        j->dims = holds_input_dims(b, i, v, s, n0, n1);
    if (!slot) return true;
    bool str = b[i] == '"';
    /* a pid or tid that is not a string or a number: yajl's path keeps other text */
    if ((slot == &ev->pid || slot == &ev->tid) && !str && b[i] != '-' && !(b[i] >= '0' && b[i] <= '9')) return false;
    *slot = (span){str ? i + 1 : i, str ? v - i - 2 : v - i, str, true};
    return !((slot == &j->cat || slot == &ev->name) && complete_event_matters(b, &j->ph, &j->cat, &ev->name));
}

/* Is the fate of the event whose first key (or '}') is at b[i] read as it is walked (else its
 * callbacks are called)? Not near the end of the bytes at hand, nor for what Kineto's prefix
 * "ph": "X", "cat": "kernel" (a launch, a copy, a GPU annotation) says matters. */
static bool judged_from_start(const char *b, size_t i, size_t end) {
    if (end - i < 64) return false;
    static const char x_cat[] = "\"ph\": \"X\", \"cat\": \"";
    if (memcmp(b + i, x_cat, sizeof x_cat - 1) != 0) return true;
    const char *c = b + i + sizeof x_cat - 1;
    return !(memcmp(c, "kernel\"", 7) == 0 || memcmp(c, "cuda_runtime\"", 13) == 0 || memcmp(c, "gpu_mem", 7) == 0 ||
             memcmp(c, "gpu_user_annotation\"", 20) == 0);
}

/* Is an event judged to its end handled here (counted, or a host span: ev), by its fate? */
static bool fate_handles(const char *b, const judged *j, fast_event *ev) {
    ev->fate = event_fate(b, &j->ph, &j->cat, &ev->name, &j->ts, &j->dur, ev);
    return ev->fate != FATE_YAJL && !(j->dims && ev->fate == FATE_HOST && ev->kind == TC_HOST_CPU_OP);
}

/* The one walk of the event whose '{' is at b[i]. When it is valid by yajl's grammar with plain
 * strings, lies wholly in b[i, end) and a ',' follows it (whitespace aside), the offset just past
 * that comma, with *emit saying how it is handled: false, here (see above; *ev says what it makes);
 * true, by ct_emit_event from its tokens in p->toks. Else, or when it must be emitted but holds more
 * than TOK_CAP tokens or nests deeper than SKIP_MAX_DEPTH, 0. Its tokens are written down as it is
 * checked, and its keys read for its fate until it is known to matter (a kernel, a FLOP op), so
 * every event is walked once; Kineto's prefix "ph": "X", "cat": "kernel" says so at once. An event
 * whose "ph" is read and is not "X" is only counted, whatever its other keys hold: from there on it
 * is only checked (no tokens, no keys judged), and a second "ph" sends it to yajl. *whole says
 * whether p->toks then holds all its tokens (a template can be made of them). */
static size_t event_walk(tc_ct_parser *p, const char *b, size_t i, size_t end, fast_event *ev, bool *emit, bool *whole,
                         const vs_index *ix) {
    judged j; /* a span's other fields are read only once it is seen: no zeroing (a rep stos per event) */
    j.ph.seen = j.cat.seen = j.ts.seen = j.dur.seen = j.dims = false;
    tok_sink *s = &p->toks; /* NULL once the tokens cannot be handed over */
#define PUT_TOP(k, a, l) do { \
        if (s && s->n == TOK_CAP) s = NULL; \
        if (s) s->t[s->n++] = (tok){(a), (l), (k)}; \
        else if (!judge) return 0; \
    } while (0)
    ev->name = ev->pid = ev->tid = (span){0, 0, false, false}; /* read by the host span: empty when absent */
    /* once its "ph" is read and is not "X": no token is written and no key judged but a "ph" */
    bool count_only = false;
    s->n = 1;
    s->t[0] = (tok){i, 1, TK_OPEN_MAP};
    i = skip_json_ws(b, i + 1, end, ix);
    bool judge = judged_from_start(b, i, end);
    if (i < end && b[i] == '}') judge = false; /* {}: an event without keys is emitted */
    else
        for (;;) {
            size_t k;
            if (i >= end || b[i] != '"' || !(k = plain_string_end(b, i, end, ix))) return 0;
            PUT_TOP(TK_KEY, i + 1, k - i - 2);
            size_t key = i + 1;
            if (k + 2 < end && b[k] == ':' && b[k + 1] == ' ' && !is_json_ws(b[k + 2])) i = k + 2; /* Kineto's ": " */
            else {
                i = skip_json_ws(b, k, end, ix);
                if (i >= end || b[i] != ':') return 0;
                i = skip_json_ws(b, i + 1, end, ix);
                if (i >= end) return 0;
            }
            size_t v, n0 = s ? s->n : 0;
            char c = b[i];
            if (c == '"') {
                if (!(v = plain_string_end(b, i, end, ix))) return 0;
                PUT_TOP(TK_STRING, i + 1, v - i - 2);
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if (!(v = number_end(b, i, end))) return 0;
                PUT_TOP(TK_NUMBER, i, v - i);
            } else if (!s || !(v = value_tokens(b, i, end, s, ix, SKIP_MAX_DEPTH - 1))) {
                /* too many tokens, or nested too deep for the '{' around it: still handled here when
                 * its fate allows */
                if (!judge || !(v = value_end(b, i, end, ix))) return 0;
                s = NULL;
            }
            if (count_only) {
                /* a second "ph" could make it matter, with keys passed over since: yajl's */
                if (k - key - 1 == 2 && b[key] == 'p' && b[key + 1] == 'h') return 0;
            } else if (judge && !judge_key(b, b + key, k - key - 1, i, v, &j, ev, s, n0, s ? s->n : 0)) {
                judge = false;
                if (!s) return 0;
            } else if (judge && j.ph.seen && j.ph.is_string && !(j.ph.len == 1 && b[j.ph.at] == 'X')) {
                count_only = true; /* only counted (event_fate), whatever its other keys say */
                s = NULL;
            }
            if (v + 2 < end && b[v] == ',' && b[v + 1] == ' ' && b[v + 2] == '"') { /* Kineto's ", " */
                i = v + 2;
                continue;
            }
            i = skip_json_ws(b, v, end, ix);
            if (i >= end) return 0;
            if (b[i] == '}') break;
            if (b[i] != ',') return 0;
            i = skip_json_ws(b, i + 1, end, ix);
        }
    PUT_TOP(TK_CLOSE_MAP, i, 1);
#undef PUT_TOP
    i = skip_json_ws(b, i + 1, end, ix);
    if (i >= end || b[i] != ',') return 0;
    *whole = s != NULL;
    if (judge && fate_handles(b, &j, ev)) {
        *emit = false;
        return i + 1;
    }
    *emit = true;
    return s ? i + 1 : 0;
}

/* ---- templates -------------------------------------------------------------------------------
 * Most events of a trace repeat a few shapes byte for byte but for their values (Kineto writes every
 * kernel with the same keys, spaces and line breaks). An event walked whole becomes a template
 * (ct_template): its bytes around its slots (strings but a top-level "ph" or "cat" value, and
 * numbers; literals, keys, brackets and whitespace are bytes) and where its tokens lie. An event
 * whose bytes around the slots equal a template's, and whose slots hold a plain string
 * (plain_string_end) or a number (number_end) where the template's did, has the same structure as
 * that template's event, so the walk would write the same token kinds, at the places the template
 * gives, and reach the same end: its tokens are written from the template, its fate read from them
 * as the walk reads it (template_fate), and the walk is not run. Templates only save time: any
 * mismatch is the walk's, and the results are the same with them or without (TRACECOST_TEMPLATES=off,
 * the tests). */

/* a[0, n) == b[0, n), by 8-byte words (the last one overlapping) */
static inline bool same_bytes(const char *a, const char *b, size_t n) {
    uint64_t x, y;
    if (n >= 8) {
        for (; n > 8; a += 8, b += 8, n -= 8) {
            memcpy(&x, a, 8);
            memcpy(&y, b, 8);
            if (x != y) return false;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t u, v, w, z;
        memcpy(&u, a, 4); memcpy(&v, b, 4); memcpy(&w, a + n - 4, 4); memcpy(&z, b + n - 4, 4);
        return u == v && w == z;
    }
    for (; n; n--)
        if (*a++ != *b++) return false;
    return true;
}

/* Makes template m of the event b[at, e) whose tokens p->toks holds (whole). False when it does not
 * fit a template's bounds. */
static bool template_make(ct_template *m, const tok_sink *s, const char *b, size_t at, size_t e) {
    m->n_toks = 0; /* fits nothing until it is whole */
    if (s->n > TMPL_TOKS || e - at > TMPL_BYTES) return false;
    size_t from = at, lit = 0; /* bytes b[from, ...) not yet copied; lit bytes copied */
    unsigned slots = 0, depth = 0;
    bool literal_value = false; /* the string after a top-level "ph" or "cat" key is bytes */
    for (size_t k = 0; k < s->n; k++) {
        const tok *t = &s->t[k];
        bool slot = (t->kind == TK_STRING && !literal_value) || t->kind == TK_NUMBER;
        literal_value = t->kind == TK_KEY && depth == 1 &&
                        ((t->len == 2 && memcmp(b + t->at, "ph", 2) == 0) || (t->len == 3 && memcmp(b + t->at, "cat", 3) == 0));
        depth += t->kind == TK_OPEN_MAP || t->kind == TK_OPEN_ARRAY;
        depth -= t->kind == TK_CLOSE_MAP || t->kind == TK_CLOSE_ARRAY;
        m->tok_kind[k] = t->kind;
        if (!slot) { /* in the bytes before slot `slots`, which start at b[from] */
            m->tok_ref[k] = (uint16_t)slots;
            m->tok_off[k] = (uint16_t)(t->at - from);
            m->tok_len[k] = (uint16_t)t->len;
            continue;
        }
        if (slots == TMPL_SLOTS) return false;
        m->tok_len[k] = UINT16_MAX; /* a slot's */
        size_t v0 = t->kind == TK_STRING ? t->at - 1 : t->at, v1 = t->kind == TK_STRING ? t->at + t->len + 1 : t->at + t->len;
        memcpy(m->lit + lit, b + from, v0 - from);
        lit += v0 - from;
        m->seg_end[slots] = (uint16_t)lit;
        m->slot_kind[slots] = t->kind;
        m->tok_ref[k] = (uint16_t)slots++;
        from = v1;
    }
    memcpy(m->lit + lit, b + from, e - from);
    m->seg_end[slots] = (uint16_t)(lit + e - from);
    m->n_slots = (uint16_t)slots;
    m->n_toks = (uint16_t)s->n;
    return true;
}

/* Does the event whose '{' is at b[at] fit template m (see above)? Then its tokens are in p->toks and
 * the offset just past its '}' is returned; else 0. */
static size_t template_fit(tc_ct_parser *p, const ct_template *m, const char *b, size_t at, size_t end,
                           const vs_index *ix) {
    size_t seg[TMPL_SLOTS + 1], v0[TMPL_SLOTS], v1[TMPL_SLOTS], pos = at, l0 = 0;
    if (!m->n_toks) return 0;
    for (unsigned k = 0;; k++) {
        size_t len = m->seg_end[k] - l0;
        if (end - pos <= len || !same_bytes(b + pos, m->lit + l0, len)) return 0;
        seg[k] = pos;
        pos += len;
        l0 = m->seg_end[k];
        if (k == m->n_slots) break;
        size_t v;
        if (m->slot_kind[k] == TK_STRING) v = b[pos] == '"' ? plain_string_end(b, pos, end, ix) : 0;
        else v = b[pos] == '-' || (b[pos] >= '0' && b[pos] <= '9') ? number_end(b, pos, end) : 0;
        if (!v) return 0;
        v0[k] = pos;
        v1[k] = pos = v;
    }
    tok_sink *s = &p->toks;
    for (unsigned k = 0; k < m->n_toks; k++) {
        unsigned r = m->tok_ref[k];
        tok *t = &s->t[k];
        t->kind = m->tok_kind[k];
        if (m->tok_len[k] == UINT16_MAX) { /* a slot */
            bool str = t->kind == TK_STRING;
            t->at = (uint32_t)(v0[r] + str);
            t->len = (uint32_t)(v1[r] - v0[r] - 2 * str);
        } else {
            t->at = (uint32_t)(seg[r] + m->tok_off[k]);
            t->len = m->tok_len[k];
        }
    }
    s->n = m->n_toks;
    return pos;
}

/* The fate of the event whose tokens p->toks holds (from a template), read as event_walk reads it as
 * it walks: judged from its start or not, its keys judged in order until it is known to matter, only
 * counted from a "ph" that is not "X" on. False where the walk ends in 0. */
static bool template_fate(tc_ct_parser *p, const char *b, size_t end, fast_event *ev, bool *emit) {
    const tok_sink *s = &p->toks;
    const tok *t = s->t;
    judged j;
    j.ph.seen = j.cat.seen = j.ts.seen = j.dur.seen = j.dims = false;
    ev->name = ev->pid = ev->tid = (span){0, 0, false, false};
    bool judge = t[1].kind == TK_KEY && judged_from_start(b, t[1].at - 1, end), count_only = false;
    for (size_t k = 1; judge && t[k].kind == TK_KEY;) {
        size_t vk = k + 1, ve = vk + 1; /* the value's tokens: s->t[vk, ve) */
        if (t[vk].kind == TK_OPEN_MAP || t[vk].kind == TK_OPEN_ARRAY)
            for (int depth = 1; depth; ve++)
                depth += (t[ve].kind == TK_OPEN_MAP || t[ve].kind == TK_OPEN_ARRAY) -
                         (t[ve].kind == TK_CLOSE_MAP || t[ve].kind == TK_CLOSE_ARRAY);
        bool str = t[vk].kind == TK_STRING;
        size_t i = t[vk].at - str, v = ve > vk + 1 ? t[ve - 1].at + 1u : t[vk].at + t[vk].len + str;
        if (count_only) {
            if (t[k].len == 2 && b[t[k].at] == 'p' && b[t[k].at + 1] == 'h') return false;
        } else if (!judge_key(b, b + t[k].at, t[k].len, i, v, &j, ev, s, vk, ve)) {
            judge = false;
        } else if (j.ph.seen && j.ph.is_string && !(j.ph.len == 1 && b[j.ph.at] == 'X')) {
            count_only = true;
        }
        k = ve;
    }
    if (judge && fate_handles(b, &j, ev)) {
        *emit = false;
        return true;
    }
    *emit = true;
    return !count_only;
}

/* The event whose '{' is at b[at] by a template that fits it (see above): what event_walk would
 * return, or 0 when none fits (or where the walk ends in 0). */
static size_t template_event(tc_ct_parser *p, const char *b, size_t at, size_t end, fast_event *ev, bool *emit,
                             const vs_index *ix) {
    size_t e = 0;
    unsigned first = p->tmpl[p->tmpl_last].next; /* events come in runs of shapes: the one that came next last time */
    for (unsigned n = 0; n < p->n_tmpl && !e; n++) {
        unsigned k = (first + n) % p->n_tmpl;
        if ((e = template_fit(p, &p->tmpl[k], b, at, end, ix))) {
            p->tmpl[p->tmpl_last].next = (uint8_t)k;
            p->tmpl_last = k;
        }
    }
    if (!e) return 0;
    size_t i = skip_json_ws(b, e, end, ix);
    if (i >= end || b[i] != ',' || !template_fate(p, b, end, ev, emit)) return 0;
    p->tmpl_hits++;
    return i + 1;
}

/* Makes a template of the event at b[at] just walked whole (p->toks), in place of the oldest when
 * all are in use. Where templates seldom fit (events of many shapes), only every 16th walk does. */
static void template_learn(tc_ct_parser *p, const char *b, size_t at) {
    p->tmpl_walks++;
    if (p->tmpl_learned >= 64 && p->tmpl_hits < 4 * p->tmpl_learned && p->tmpl_walks % 16) return;
    if (!p->tmpl && !(p->tmpl = malloc(TMPL_COUNT * sizeof *p->tmpl))) return; /* templates only save time */
    unsigned k = p->n_tmpl < TMPL_COUNT ? p->n_tmpl : p->tmpl_next;
    const tok_sink *s = &p->toks;
    if (!template_make(&p->tmpl[k], s, b, at, s->t[s->n - 1].at + 1u)) return;
    p->tmpl[k].next = (uint8_t)k;
    if (p->n_tmpl < TMPL_COUNT) p->n_tmpl++;
    else p->tmpl_next = (p->tmpl_next + 1) % TMPL_COUNT;
    if (p->n_tmpl > 1) p->tmpl[p->tmpl_last].next = (uint8_t)k;
    p->tmpl_last = k;
    p->tmpl_learned++;
}

/* True when the parser stands where an element of the events array may begin: inside it, and
 * `at` follows an event skipped here (resume), or (whitespace aside, in buf[from, at)) the array's
 * '[' or a ',' right after the last element yajl read (elem_end). Only yajl's own positions are
 * trusted: a '[' or ',' inside a string yajl is still reading (a broken document: ["a,{...) must
 * not start an element, and cannot pass this test, since only whitespace and one comma may lie
 * between elem_end and the '{', so no quote. */
static bool at_element_start(tc_ct_parser *p, const char *buf, size_t from, size_t at, size_t resume) {
    if (top_kind(p) != F_EVENTS) return false;
    size_t i = at;
    while (i > from && is_json_ws(buf[i - 1])) i--;
    if (i == resume) return true;
    if (i <= from) return false;
    if (buf[i - 1] == '[') return p->fed_before + i == p->elem_end;
    if (buf[i - 1] != ',') return false;
    for (i--; i > from && is_json_ws(buf[i - 1]);) i--;
    return p->fed_before + i == p->elem_end;
}

/* Whitespace aside, does buf[from, at) end where an element may begin: after a '[' or a ',', or at
 * `resume`? The part of at_element_start that needs no yajl position, checked before the event is
 * read: an object that is the value of a key ("args") follows a ':' and is passed over at once. */
static bool may_start_element(const char *buf, size_t from, size_t at, size_t resume) {
    size_t i = at;
    while (i > from && is_json_ws(buf[i - 1])) i--;
    return i == resume || (i > from && (buf[i - 1] == ',' || buf[i - 1] == '['));
}

/* Is b[i, end) whitespace alone? */
static inline bool only_ws(const char *b, size_t i, size_t end) {
    while (i < end && is_json_ws(b[i])) i++;
    return i == end;
}

/* Offset of the first '{' in b[i, end), or end. Inline: braces are a hundred bytes apart, too
 * close for a memchr call each. */
static size_t next_brace(const char *b, size_t i, size_t end) {
#if defined(__SSE2__)
    const __m128i brace = _mm_set1_epi8('{');
    for (; i + 16 <= end; i += 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(b + i)), brace));
        if (m) return i + (size_t)__builtin_ctz(m);
    }
#endif
    while (i < end && b[i] != '{') i++;
    return i;
}

/* Passes bytes [from, to) of the current chunk to yajl, but for the events handled here (see
 * above): counted, their host spans recorded, or their callbacks called by ct_emit_event. 0 ok, -1
 * error described. */
int ct_pass_on(tc_ct_parser *p, const char *buf, size_t from, size_t to) {
    size_t seg = from, i = from, resume = SIZE_MAX;
    if (to > UINT32_MAX) return ct_yajl_feed(p, buf, from, to); /* a token's offset (tok) takes 32 bits */
    const vs_index *ix = p->vs.buf == buf ? &p->vs : NULL; /* the chunk's index, when it was built */
    assert(!ix || to <= ix->len);
    while (i < to) {
        size_t at = ix ? vs_next_brace(ix, i, to) : next_brace(buf, i, to);
        if (at >= to) break;
        i = at + 1;
        if (!may_start_element(buf, from, at, resume)) continue;
        /* a '{' inside a string (by the index) is read byte by byte: the index's strings are not
         * the ones a walk from there would see */
        const vs_index *w = ix && !vs_brace_in_string(ix, at) ? ix : NULL;
        fast_event ev;
        bool emit, whole = false;
        size_t end = p->n_tmpl ? template_event(p, buf, at, to, &ev, &emit, w) : 0;
        if (!end) {
            end = event_walk(p, buf, at, to, &ev, &emit, &whole, w);
            if (end && whole && p->templates) template_learn(p, buf, at);
        }
        if (!end) continue;
        /* only whitespace since the event handled here last: yajl, which stopped before that
         * event's '{' (after a '[', a ',' or whitespace), would read nothing from it */
        if (!(seg == resume && only_ws(buf, seg, at)) && ct_yajl_feed(p, buf, seg, at)) return -1;
        seg = at;
        if (!at_element_start(p, buf, from, at, resume)) continue;
        if (emit) {
            if (ct_emit_event(p, buf, at, end)) return -1;
            seg = i = resume = end;
            continue;
        }
        p->t->events_total++;
        p->events_skipped_early++;
        if (ev.fate == FATE_HOST) {
            size_t nl = ev.name.len > NAME_CAP - 1 ? NAME_CAP - 1 : ev.name.len; /* as on_scalar_text cuts */
            ct_add_host_span(p, ev.kind, buf + ev.name.at, nl, ev.ts_ns, ev.dur_ns, buf + ev.pid.at, ev.pid.len,
                          buf + ev.tid.at, ev.tid.len);
            if (p->oom) { ct_describe_error(p, at, "out of memory"); return -1; }
        }
        seg = i = resume = end;
    }
    return ct_yajl_feed(p, buf, seg, to);
}
