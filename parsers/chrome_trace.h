/* chrome_trace.h: streaming Chrome-trace (Kineto) JSON parser on yajl. Feeds a tc_trace with the
 * events the analyses need and drops the rest as it goes: memory follows the GPU events kept, not
 * the file size. Accepts metadata before or after traceEvents, a bare top-level array, string or
 * integer pid/tid, old category spellings, integer epoch µs and fractional relative µs, unknown keys
 * anywhere, and numbers of any size (taken from their text). */
#ifndef TC_CHROME_TRACE_H
#define TC_CHROME_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include "model/comm_kernels.h"
#include "model/trace.h"
#include "parsers/vscan.h"

typedef struct tc_ct_parser tc_ct_parser;

/* The parser writes into dst (not owned) until tc_ct_parser_free. NULL when out of memory. */
tc_ct_parser *tc_ct_parser_new(tc_trace *dst);
void tc_ct_parser_free(tc_ct_parser *p); /* NULL is a no-op */
/* Entry mode for parsing traceEvents in pieces (parsers/parallel.c): the input is "[" + a run of
 * events + "]", one array only (anything after its ']' is an error). Counts no document, writes no
 * warnings at finish (tc_ct_parser_absorb hands its skip counters to the parser of the whole
 * document) and tracks no line numbers. */
tc_ct_parser *tc_ct_parser_new_events(tc_trace *dst);
void tc_ct_parser_absorb(tc_ct_parser *into, const tc_ct_parser *from);
/* The user's --comm-kernel patterns its kernels are classified with, after the catalog and the
 * collective args (tc_comm_classify, model/comm_kernels.h); NULL, the default: none. Set before
 * the first feed; not owned (they outlive the parser). */
void tc_ct_parser_set_comm(tc_ct_parser *p, const tc_comm_patterns *user);
/* The scanner's stage-1 path (parsers/vscan.h), for tests and the fuzzer: the default is
 * TRACECOST_SCAN's (scalar, sse2, avx2; else the best the CPU has); VS_NONE: no index, the byte
 * scanner alone; a path the CPU lacks: the best it has. Set before the first feed. */
void tc_ct_parser_set_scan(tc_ct_parser *p, vs_path path);
/* Whether events are tokenized by templates of the shapes seen before where they fit (on by
 * default; TRACECOST_TEMPLATES=off: off), for tests and the fuzzer: the results are the same either
 * way. Set before the first feed. */
void tc_ct_parser_set_templates(tc_ct_parser *p, bool on);
/* Feeds the next len bytes. 0 ok; -1 the JSON is broken here (see tc_ct_parser_error). */
int tc_ct_parser_feed(tc_ct_parser *p, const char *buf, size_t len);
/* Ends the input and adds the warnings of what was skipped (call it after a failed feed too: it then
 * keeps that error). 0 ok; -1 the document is incomplete or broken (see tc_ct_parser_error). */
int tc_ct_parser_finish(tc_ct_parser *p);
/* After a -1: "byte B (line L, column C): <what> near '<excerpt>'" (no path). */
const char *tc_ct_parser_error(const tc_ct_parser *p);
/* Byte offset of the error (or of the end, for an incomplete document). */
uint64_t tc_ct_parser_error_offset(const tc_ct_parser *p);
/* Events handled before yajl (valid, and finish_event would only count them or add a host span:
 * flows, instants, ops that are not FLOP ops, annotations that are not steps...; see
 * chrome_scan.c): counted in events_total, their host spans recorded. For tests and benchmarks. */
uint64_t tc_ct_parser_fast_skipped(const tc_ct_parser *p);
/* Events read without yajl: valid with plain strings (no escape), so the parser called yajl's
 * callbacks for their tokens itself (ct_emit_event in chrome_callbacks.c). For tests and benchmarks. */
uint64_t tc_ct_parser_emitted(const tc_ct_parser *p);
/* Events whose tokens a template of an earlier event's shape gave (tc_ct_parser_set_templates), for
 * tests: the rest were walked, or read by yajl. */
uint64_t tc_ct_parser_template_fits(const tc_ct_parser *p);
/* True when the document ended inside the traceEvents array (the usual truncation). */
int tc_ct_parser_in_events(const tc_ct_parser *p);
#endif
