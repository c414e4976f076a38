/* chrome_trace.c: the Chrome-trace parser's public API (chrome_trace.h): its life, feeding (the
 * string-length guard in front of the scanner and yajl, a leading byte order mark passed over, the
 * vertical tabs and form feeds yajl would take for whitespace refused), the end of the input, line
 * counts and error descriptions. Its other files are named in chrome_trace_int.h. */
#include "chrome_trace.h"
#include "chrome_trace_int.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* String bytes passed on to yajl: the rest of a longer string is dropped before yajl sees it. yajl
 * re-reads a token that spans chunks from its start at every chunk (quadratic in its length) and
 * buffers all of it; this cap keeps both bounded. Longer than NAME_CAP, so no kept name changes. */
#ifndef STR_CAP
#define STR_CAP (1u << 20) /* the fuzz build sets a small one to reach the cut */
#endif

/* Appends s[0, n) to t, kept NUL-terminated. 0, or -1 out of memory (t unchanged). */
int ct_text_put(grown_text *t, const char *s, size_t n) {
    if (tc_grow((void **)&t->text, &t->cap, t->len + n + 1, 1)) return -1;
    memcpy(t->text + t->len, s, n);
    t->len += n;
    t->text[t->len] = '\0';
    return 0;
}

tc_ct_parser *tc_ct_parser_new(tc_trace *dst) {
    tc_ct_parser *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->t = dst;
    p->last_thread = TC_NONE;
    p->last_ranks_id = TC_NONE;
    p->elem_end = UINT64_MAX;
    p->scan_path = vs_choose(getenv("TRACECOST_SCAN")); /* scalar, sse2 or avx2: to compare the paths */
    const char *tm = getenv("TRACECOST_TEMPLATES"); /* "off": every event walked, to compare the paths */
    p->templates = !tm || strcmp(tm, "off") != 0;
    p->ev.name = malloc(NAME_CAP);
    p->yh = yajl_alloc(&ct_callbacks, NULL, p);
    if (!p->ev.name || !p->yh) { tc_ct_parser_free(p); return NULL; }
    /* strings are checked where they are written out (invalid UTF-8 becomes U+FFFD there), so the
     * parser need not reject a whole trace for one bad byte in a kernel name */
    yajl_config(p->yh, yajl_dont_validate_strings, 1);
    yajl_config(p->yh, yajl_allow_multiple_values, 1);
    return p;
}

tc_ct_parser *tc_ct_parser_new_events(tc_trace *dst) {
    tc_ct_parser *p = tc_ct_parser_new(dst);
    if (!p) return NULL;
    p->events_mode = true;
    /* one array only: a piece whose boundary was wrong can close the array early (a candidate
     * boundary past the end of a bare array, in a second document), which must not parse */
    yajl_config(p->yh, yajl_allow_multiple_values, 0);
    return p;
}

void tc_ct_parser_absorb(tc_ct_parser *into, const tc_ct_parser *from) {
    into->skip_missing_ph += from->skip_missing_ph;
    into->skip_missing_ts += from->skip_missing_ts;
    into->skip_missing_dur += from->skip_missing_dur;
    for (int i = 0; i < 5; i++) into->skip_bad_number[i] += from->skip_bad_number[i];
    into->long_strings += from->long_strings; /* strings cut at STR_CAP inside the piece */
    into->bad_group_sizes += from->bad_group_sizes;
    into->dropped_bytes += from->dropped_bytes;
}

void tc_ct_parser_set_comm(tc_ct_parser *p, const tc_comm_patterns *user) { p->user_comm = user; }

void tc_ct_parser_set_scan(tc_ct_parser *p, vs_path path) { p->scan_path = vs_supported(path) ? path : vs_choose(NULL); }

void tc_ct_parser_set_templates(tc_ct_parser *p, bool on) { p->templates = on; }

void tc_ct_parser_free(tc_ct_parser *p) {
    if (!p) return;
    if (p->yh) yajl_free(p->yh);
    free(p->ev.name);
    free(p->ev.pg_ranks.text);
    free(p->ev.in_splits.text);
    free(p->last_ranks.text);
    free(p->comm_of);
    free(p->tmpl);
    free(p->pg_ranks.text);
    free(p->op_key_slots);
    free(p->shapes_buf);
    free(p->op_recent);
    vs_free(&p->vs);
    free(p);
}

static bool stack_has_events(const tc_ct_parser *p) {
    int n = p->depth < MAX_FRAMES ? p->depth : MAX_FRAMES;
    for (int i = 0; i < n; i++)
        if (p->frames[i].kind == F_EVENTS) return true;
    return false;
}

/* Fills p->error with location (line:column from newlines seen) and an excerpt around `at`
 * (an offset inside the current chunk). */
void ct_describe_error(tc_ct_parser *p, size_t at, const char *what) {
    uint64_t line = p->lines_before + 1, line_start = p->line_start_before;
    for (size_t i = 0; i < at && i < p->chunk_len; i++)
        if (p->chunk[i] == '\n') { line++; line_start = p->fed_before + i + 1; }
    uint64_t off = p->fed_before + at;
    char excerpt[64];
    size_t e = 0;
    size_t from = at > 24 ? at - 24 : 0;
    for (size_t i = from; i < p->chunk_len && i < at + 16 && e < sizeof excerpt - 1; i++) {
        unsigned char ch = p->chunk[i];
        excerpt[e++] = (ch >= 0x20 && ch < 0x7f && ch != '\'') ? (char)ch : '.';
    }
    excerpt[e] = 0;
    p->error_offset = off;
    p->in_events_at_error = stack_has_events(p);
    snprintf(p->error, sizeof p->error, "byte %llu (line %llu, column %llu): %s near '%s'",
             (unsigned long long)off, (unsigned long long)line,
             (unsigned long long)(off - line_start + 1), what, excerpt);
}

/* One vector pass over buf[0, len): the number of bytes equal to `c`, or SIZE_MAX when a byte
 * equals `stop` (stop = c: never stops). With vtff, also whether a vertical tab or form feed lies
 * in the bytes passed (set true when one does; the pass may stop early at `stop`). */
static inline size_t count_byte_unless(const char *buf, size_t len, char c, char stop, bool *vtff) {
    size_t n = 0, i = 0;
#if defined(__SSE2__)
    const __m128i want = _mm_set1_epi8(c), halt = _mm_set1_epi8(stop), zero = _mm_setzero_si128();
    const __m128i vt = _mm_set1_epi8('\v'), ff = _mm_set1_epi8('\f');
    while (i + 16 <= len) {
        __m128i counts = zero, seen = zero, odd = zero; /* per-byte-lane counts: at most 255 rounds */
        for (int k = 0; k < 255 && i + 16 <= len; k++, i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
            counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(v, want)); /* a match is -1 */
            seen = _mm_or_si128(seen, _mm_cmpeq_epi8(v, halt));
            if (vtff) odd = _mm_or_si128(odd, _mm_or_si128(_mm_cmpeq_epi8(v, vt), _mm_cmpeq_epi8(v, ff)));
        }
        if (vtff && _mm_movemask_epi8(odd)) *vtff = true;
        if (stop != c && _mm_movemask_epi8(seen)) return SIZE_MAX;
        __m128i sums = _mm_sad_epu8(counts, zero);
        n += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; i < len; i++) {
        if (vtff && (buf[i] == '\v' || buf[i] == '\f')) *vtff = true;
        if (stop != c && buf[i] == stop) return SIZE_MAX;
        n += buf[i] == c;
    }
    return n;
}

/* Newlines in buf[0, len) and where the last line starts, for error positions (one vector pass:
 * a memchr call per line cost 5% of a sequential parse of Kineto's short lines; with the
 * scanner's index, stage 1 counted them: lines). */
static void count_lines(tc_ct_parser *p, const char *buf, size_t len, const vs_summary *lines) {
    if (lines) {
        if (lines->newlines == 0) return;
        p->lines_before += lines->newlines;
        p->line_start_before = p->fed_before + lines->last_newline + 1;
        return;
    }
    size_t n = count_byte_unless(buf, len, '\n', '\n', NULL);
    if (n == 0) return;
    p->lines_before += n;
    size_t last = len;
    while (buf[last - 1] != '\n') last--;
    p->line_start_before = p->fed_before + last;
}

/* The string guard's fast path, for a chunk without a backslash (the usual case): every quote then
 * opens or closes a string, so strings are the spans between consecutive quotes. When every
 * STR_CAP/2 bytes hold a quote and a string carried in from the last chunk closes in time, no
 * string reaches STR_CAP here; the state at the end follows from the quote count's parity (quotes:
 * the count or its parity, SIZE_MAX with a backslash) and the last quote. Returns false (nothing
 * changed) when the exact scan must decide. */
static bool guard_fast(tc_ct_parser *p, const char *buf, size_t len, size_t quotes) {
    if (p->esc_left || p->after_backslash || p->dropping || len == 0) return false;
    if (quotes == SIZE_MAX) return false;
    size_t stride = STR_CAP / 2 ? STR_CAP / 2 : 1;
    for (size_t off = 0; off + stride <= len; off += stride)
        if (!memchr(buf + off, '"', stride)) return false;
    const char *first = memchr(buf, '"', len);
    if (p->in_str) {
        uint64_t end = p->fed_before + (first ? (uint64_t)(first - buf) : len);
        if (end - p->str_start > STR_CAP) return false;
    }
    if (!first) return true; /* no quote, short chunk: the state is unchanged */
    bool in_str = p->in_str ^ (quotes & 1);
    if (in_str) {
        const char *last = buf + len - 1; /* a quote exists (first); quotes are dense, so this is short */
        while (*last != '"') last--;
        p->str_start = p->fed_before + (uint64_t)(last - buf) + 1;
    }
    p->in_str = in_str;
    return true;
}

/* Offset of the first vertical tab or form feed in buf[0, len), or len. yajl takes both for
 * whitespace; JSON's whitespace is only space, tab, LF and CR, and a string must escape them, so
 * such a byte is an error wherever it stands. Only called when the guard's pass (tc_ct_parser_feed)
 * saw one or stopped at a backslash. */
static size_t first_vt_ff(const char *buf, size_t len) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i vt = _mm_set1_epi8('\v'), ff = _mm_set1_epi8('\f');
    for (; i + 16 <= len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
        if (_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, vt), _mm_cmpeq_epi8(v, ff)))) break;
    }
#endif
    for (; i < len; i++)
        if (buf[i] == '\v' || buf[i] == '\f') return i;
    return len;
}

/* The bytes of the input's start that are a UTF-8 byte order mark (EF BB BF), which RFC 8259 lets a
 * parser ignore (Windows tools write one): passed over with a note, counted in the offsets (they
 * stay those of the input). A mark cut by the chunk's end is held until the next chunk decides.
 * Returns how many bytes of buf it took, or SIZE_MAX for a mark begun and not finished (an error,
 * described: no JSON text starts with those bytes, whatever the chunks). */
static size_t skip_bom(tc_ct_parser *p, const char *buf, size_t len) {
    static const char bom[3] = {'\xEF', '\xBB', '\xBF'};
    size_t k = 0;
    while (k < len && p->bom_seen < 3 && buf[k] == bom[p->bom_seen]) { k++; p->bom_seen++; }
    if (p->bom_seen == 3) {
        p->bom_decided = true;
        tc_trace_warn(p->t, "skipped a UTF-8 byte order mark (EF BB BF) at the start of the input");
    } else if (k == len) {
        return k; /* all a mark so far: held */
    } else {
        p->bom_decided = true;
        if (p->bom_seen == 0) return 0;
        p->error_offset = 0;
        p->in_events_at_error = false;
        snprintf(p->error, sizeof p->error,
                 "byte 0 (line 1, column 1): invalid JSON (the input begins with %u of the 3 bytes of a UTF-8 byte order mark)",
                 (unsigned)p->bom_seen);
        return SIZE_MAX;
    }
    return k;
}

static int feed_chunk(tc_ct_parser *p, const char *buf, size_t len, size_t quotes, const vs_summary *lines);

int tc_ct_parser_feed(tc_ct_parser *p, const char *buf, size_t len) {
    if (!p->bom_decided && !p->events_mode) {
        size_t k = skip_bom(p, buf, len);
        if (k == SIZE_MAX) return -1;
        p->fed_before += k;
        buf += k;
        len -= k;
        if (!p->bom_decided) return 0;
    }
    /* the string guard's pass over the chunk (stage 1 of the scanner, or without it a count of
     * quotes) looks for vertical tabs and form feeds too */
    size_t quotes, bad;
    vs_summary sum, *lines = NULL;
    if (p->scan_path != VS_NONE && vs_build(&p->vs, p->scan_path, buf, len, !p->events_mode, &sum) == 0) {
        lines = &sum;
        quotes = sum.backslash ? SIZE_MAX : sum.quote_parity;
        bad = sum.vtff;
    } else {
        bool vtff = false;
        p->vs.buf = NULL; /* no index: the byte scanner */
        quotes = count_byte_unless(buf, len, '"', '\\', &vtff);
        bad = quotes == SIZE_MAX || vtff ? first_vt_ff(buf, len) : len;
    }
    if (bad == len) return feed_chunk(p, buf, len, quotes, lines);
    /* an error before it is yajl's to report */
    if (feed_chunk(p, buf, bad, count_byte_unless(buf, bad, '"', '\\', NULL), NULL)) return -1;
    p->chunk = (const unsigned char *)buf + bad;
    p->chunk_len = len - bad;
    ct_describe_error(p, 0, buf[bad] == '\v' ? "invalid JSON (a vertical tab: JSON's whitespace is space, tab, LF and CR)"
                                              : "invalid JSON (a form feed: JSON's whitespace is space, tab, LF and CR)");
    return -1;
}

/* Feeds buf[0, len), which holds no vertical tab or form feed, through the string guard; quotes:
 * count_byte_unless(buf, len, '"', '\\'), or only its parity (guard_fast reads no more); lines: the
 * newlines stage 1 counted in buf[0, len), or NULL (count_lines counts them). */
static int feed_chunk(tc_ct_parser *p, const char *buf, size_t len, size_t quotes, const vs_summary *lines) {
    p->chunk = (const unsigned char *)buf;
    p->chunk_len = len;
    if (guard_fast(p, buf, len, quotes)) {
        if (ct_pass_on(p, buf, 0, len)) return -1;
        if (!p->events_mode) count_lines(p, buf, len, lines);
        p->fed_before += len;
        return 0;
    }
    /* Walk string boundaries (a quote opens or closes a string unless escaped; outside strings a
     * backslash is a JSON error yajl reports), cutting strings at STR_CAP content bytes. Cuts fall
     * only between escapes, so what yajl sees stays well formed. */
    size_t i = 0, seg = 0; /* seg: first byte not yet passed on (or dropped) */
    if (p->after_backslash && len > 0) { p->after_backslash = false; p->esc_left = buf[0] == 'u' ? 5 : 1; }
    while (i < len) {
        if (p->esc_left) {
            size_t k = p->esc_left < len - i ? p->esc_left : len - i;
            i += k;
            p->esc_left = (uint8_t)(p->esc_left - k);
            continue;
        }
        if (!p->in_str) {
            while (i < len && buf[i] != '"') i++; /* plain loops: spans are short, memchr calls cost more */
            if (i == len) break;
            i++;
            p->in_str = true;
            p->str_start = p->fed_before + i;
            continue;
        }
        size_t stop = i; /* bytes [i, stop) hold no quote or escape */
        while (stop < len && buf[stop] != '"' && buf[stop] != '\\') stop++;
        bool b = stop < len && buf[stop] == '\\', q = stop < len && buf[stop] == '"';
        size_t qi = stop;
        if (!p->dropping && p->fed_before + stop - p->str_start > STR_CAP) {
            uint64_t cap_at = p->str_start + STR_CAP;
            size_t cut = cap_at > p->fed_before + i ? (size_t)(cap_at - p->fed_before) : i;
            if (ct_pass_on(p, buf, seg, cut)) return -1;
            seg = cut;
            p->dropping = true;
            p->long_strings++;
        }
        if (b) {
            if (stop + 1 < len) {
                i = stop + (buf[stop + 1] == 'u' ? 6 : 2);
                if (i > len) { p->esc_left = (uint8_t)(i - len); i = len; }
            } else {
                p->after_backslash = true;
                i = len;
            }
        } else if (q) {
            if (p->dropping) { p->dropped_bytes += qi - seg; seg = qi; p->dropping = false; }
            p->in_str = false;
            i = qi + 1;
        } else {
            i = len;
        }
    }
    if (p->dropping) { p->dropped_bytes += len - seg; seg = len; }
    if (ct_pass_on(p, buf, seg, len)) return -1;
    if (!p->events_mode) count_lines(p, buf, len, lines); /* events mode reports no positions */
    p->fed_before += len;
    return 0;
}

static void summarize_skips(tc_ct_parser *p) {
    static const char *const why[] = {"", "", "non-numeric", "negative", "overflowing"};
    tc_trace *t = p->t;
    if (p->skip_missing_ph) tc_trace_warn(t, "skipped %llu events without \"ph\"", (unsigned long long)p->skip_missing_ph);
    if (p->skip_missing_ts) tc_trace_warn(t, "skipped %llu complete events without \"ts\"", (unsigned long long)p->skip_missing_ts);
    if (p->skip_missing_dur) tc_trace_warn(t, "skipped %llu complete events without \"dur\"", (unsigned long long)p->skip_missing_dur);
    for (int s = NUM_NOT_NUMERIC; s <= NUM_OVERFLOW; s++)
        if (p->skip_bad_number[s]) /* a negative "ts" is kept: only "dur" can be negative here */
            tc_trace_warn(t, "skipped %llu events with %s %s", (unsigned long long)p->skip_bad_number[s], why[s],
                          s == NUM_NEGATIVE ? "\"dur\"" : "\"ts\" or \"dur\"");
    if (p->long_strings)
        tc_trace_warn(t, "cut %llu strings longer than %u bytes (%llu bytes not read)", (unsigned long long)p->long_strings,
                      STR_CAP, (unsigned long long)p->dropped_bytes);
    if (p->documents > 1) tc_trace_warn(t, "input holds %d concatenated JSON documents; events of all were read", p->documents);
    if (p->bad_base) tc_trace_warn(t, "baseTimeNanoseconds is not a number within 2^62 ns (146 years): ignored");
    if (p->bad_group_sizes)
        tc_trace_warn(t, "ignored %llu \"Group size\" values that are not a rank count (1 to 2147483647)",
                      (unsigned long long)p->bad_group_sizes);
}

int tc_ct_parser_finish(tc_ct_parser *p) {
    p->chunk = NULL;
    p->chunk_len = 0;
    if (!p->bom_decided && p->bom_seen > 0 && !p->error[0]) skip_bom(p, "", 1); /* a mark cut by the end */
    if (!p->events_mode) summarize_skips(p);
    if (p->error[0]) return -1; /* a feed failed: its error stands (the warnings above still go out) */
    yajl_status st = yajl_complete_parse(p->yh);
    if (st != yajl_status_ok || p->depth != 0) {
        p->error_offset = p->fed_before;
        p->in_events_at_error = stack_has_events(p);
        snprintf(p->error, sizeof p->error, "byte %llu (line %llu, column %llu): the JSON ends early%s",
                 (unsigned long long)p->fed_before, (unsigned long long)p->lines_before + 1,
                 (unsigned long long)(p->fed_before - p->line_start_before + 1),
                 p->in_events_at_error ? " inside traceEvents" : "");
        return -1;
    }
    return 0;
}

const char *tc_ct_parser_error(const tc_ct_parser *p) { return p->error; }
uint64_t tc_ct_parser_error_offset(const tc_ct_parser *p) { return p->error_offset; }
int tc_ct_parser_in_events(const tc_ct_parser *p) { return p->in_events_at_error; }
uint64_t tc_ct_parser_fast_skipped(const tc_ct_parser *p) { return p->events_skipped_early; }
uint64_t tc_ct_parser_emitted(const tc_ct_parser *p) { return p->events_emitted; }
uint64_t tc_ct_parser_template_fits(const tc_ct_parser *p) { return p->tmpl_hits; }

