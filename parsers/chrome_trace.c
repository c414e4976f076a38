/* chrome_trace.c: yajl callbacks that turn Chrome-trace JSON into tc_trace records.
 *
 * Design: a stack of frames, one per open container, each tagged with what it is (the top object,
 * the traceEvents array, one event, its args, deviceProperties, ...). Scalars are interpreted by
 * (frame, key). One event's fields go into a fixed scratch struct that is reset at each `{` inside
 * traceEvents and turned into at most one compact record at its `}`; nothing else is kept.
 * Invariants: frames deeper than MAX_FRAMES are all F_SKIP (only the depth is counted); the scratch
 * never holds more than one event. */
#include "chrome_trace.h"
#include "base/util.h"
#include "model/comm_kernels.h"
#include "model/ops.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAX_FRAMES 64
#define NAME_CAP (64u * 1024u) /* longer names are cut (kernel names are a few KB at most) */
#define SMALL 128
/* String bytes passed on to yajl: the rest of a longer string is dropped before yajl sees it. yajl
 * re-reads a token that spans chunks from its start at every chunk (quadratic in its length) and
 * buffers all of it; this cap keeps both bounded. Longer than NAME_CAP, so no kept name changes. */
#ifndef STR_CAP
#define STR_CAP (1u << 20) /* the fuzz build sets a small one to reach the cut */
#endif

/* Frames before F_DIMS are objects or arrays whose scalars only matter under a known key
 * (on_scalar_text relies on the order). */
typedef enum {
    F_SKIP, F_TOP, F_EVENTS, F_EVENT, F_ARGS, F_DEVPROPS, F_DEVPROP, F_DISTINFO,
    F_PGCONFIG, F_PG, /* distributedInfo.pg_config and one entry of it */
    F_DIMS, F_DIM, F_TYPES, F_CONCRETE, /* args "Input Dims" (and one input's list), "Input type", "Concrete Inputs" */
    F_PGRANKS /* a pg_config entry's "ranks" list */
} frame_kind;

typedef enum {
    K_OTHER,
    /* top level */
    K_TRACE_EVENTS, K_DEVICE_PROPERTIES, K_DISTRIBUTED_INFO, K_BASE_TIME, K_RECORD_SHAPES,
    /* event */
    K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS,
    /* args */
    K_CORRELATION, K_COLL_NAME, K_IN_NELEMS, K_OUT_NELEMS, K_GROUP_SIZE, K_DTYPE, K_PG_NAME,
    K_PG_DESC, K_PG_RANKS, K_SEQ, K_EXTERNAL_ID, K_INPUT_DIMS, K_INPUT_TYPE, K_CONCRETE_INPUTS,
    /* deviceProperties entry / distributedInfo (a pg_config entry reuses K_PG_NAME, K_PG_DESC,
     * K_PG_RANKS and K_GROUP_SIZE for pg_name, pg_desc, ranks and pg_size) */
    K_ID, K_RANK, K_WORLD_SIZE, K_BACKEND, K_PG_CONFIG
} key_kind;

typedef enum {
    CAT_OTHER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_RUNTIME, CAT_USER_ANNOTATION,
    CAT_GPU_USER_ANNOTATION, CAT_CPU_OP
} cat_kind;

/* Why a number field was unusable; ordered by the reason table below. */
typedef enum { NUM_MISSING = 0, NUM_OK, NUM_NOT_NUMERIC, NUM_NEGATIVE, NUM_OVERFLOW } num_state;

typedef struct {
    uint8_t kind; /* frame_kind */
    uint8_t key;  /* key_kind of the last key read in this container */
} frame;

typedef struct {
    char text[SMALL]; /* NUL-terminated, cut at SMALL-1 bytes */
    uint16_t len;
    bool set;
} small_str;

/* A text of any length, NUL-terminated, grown as needed (text_put); owned by the parser. */
typedef struct {
    char *text;
    size_t len, cap;
} grown_text;

typedef struct {
    bool has_ph;
    char ph;           /* first byte of ph */
    bool ph_long;      /* ph had more than one byte: not a phase we use */
    cat_kind cat;
    bool has_name;
    char *name;        /* NAME_CAP buffer owned by the parser */
    const char *name_at; /* the name still in the bytes yajl is parsing (not copied); else NULL */
    size_t name_len;
    small_str pid, tid;
    bool pid_numeric;
    int64_t pid_value;
    num_state ts_state, dur_state;
    int64_t ts_ns, dur_ns;
    /* args */
    bool has_correlation;
    uint64_t correlation;
    small_str coll_name, dtype, pg_name, pg_desc;
    /* "Process Group Ranks" whole (grown, owned by the parser): a group of 32 ranks spaced 8 apart
     * is 150 bytes, and a cut list is no list (the group's nodes, scope and link are lost) */
    grown_text pg_ranks; bool pg_ranks_set;
    int64_t in_nelems, out_nelems, group_size, seq;
    int64_t external_id;
} event_scratch; /* reset_event resets every field: add new ones there */

/* One token of an event read before yajl (scan_value), as yajl would hand it to a callback: a key
 * or string is the text between its quotes, a number or literal its text, a bracket itself.
 * `at` is an offset into the bytes at hand. */
typedef enum { TK_OPEN_MAP, TK_CLOSE_MAP, TK_OPEN_ARRAY, TK_CLOSE_ARRAY, TK_KEY, TK_STRING, TK_NUMBER, TK_TRUE, TK_FALSE,
               TK_NULL } tok_kind;
typedef struct { size_t at, len; tok_kind kind; } tok;
#define TOK_CAP 512 /* tokens of one event read before yajl; an event with more goes to yajl */
typedef struct { tok t[TOK_CAP]; size_t n; } tok_sink;

struct tc_ct_parser {
    yajl_handle yh;
    tc_trace *t;
    frame frames[MAX_FRAMES];
    int depth;              /* open containers; frames[depth-1] is the innermost stored one */
    int documents;          /* top-level values seen */
    bool events_mode;       /* tc_ct_parser_new_events: input is "[" + a run of events + "]" */
    event_scratch ev;
    /* device entry being read */
    int64_t dev_id; bool dev_has_id;
    small_str dev_name;
    /* pg_config entry being read */
    small_str pg_name, pg_desc;
    int64_t pg_size;
    grown_text pg_ranks;    /* its ranks as text "[0, 1]" */
    bool pg_ranks_set, pg_ranks_bad; /* ranks given; a value in them that is not a rank */
    uintptr_t parsing_from, parsing_to; /* the bytes of the yajl_parse call under way */
    uint64_t elem_end;      /* input offset just past the events array's '[' or its last element that
                             * yajl read (UINT64_MAX unknown): where the next element may follow a ',' */
    bool emitting;          /* the callbacks are called by emit_event, not yajl: yajl_offset is emit_pos */
    uint64_t emit_pos;      /* input offset just past the token emit_event is handing over */
    tok_sink toks;          /* the tokens of the event emit_event hands over */
    /* failure reporting */
    const unsigned char *chunk; size_t chunk_len;
    uint64_t fed_before;    /* bytes fed before the current chunk */
    uint64_t lines_before;  /* newlines before the current chunk */
    uint64_t line_start_before; /* offset just after the last newline before the chunk */
    uint64_t error_offset;
    bool in_events_at_error;
    bool oom;
    char error[512];
    /* shapes of the current event (record_shapes); bounded, reset at each event */
    tc_op_shapes shapes;
    bool has_dims;
    /* string-length guard (see STR_CAP): raw-byte tracking of where strings are */
    bool in_str;            /* inside a string */
    bool after_backslash;   /* the chunk ended just after a backslash inside a string */
    uint8_t esc_left;       /* escape bytes still to skip at the start of the next chunk */
    bool dropping;          /* inside a string past STR_CAP: bytes are not passed on */
    uint64_t str_start;     /* offset of the current string's first content byte */
    uint64_t long_strings, dropped_bytes;
    /* the comm-kernel catalog's verdict per kernel-name string id (tc_comm_kernel_lib + 1; 0 =
     * not looked up yet): each distinct name is matched once */
    uint8_t *comm_of; size_t comm_of_cap;
    uint64_t events_skipped_early; /* events kept from yajl (pass_on): counted, and a host span recorded
                                    * when it is one, never parsed by yajl */
    uint64_t events_emitted; /* events whose callbacks emit_event called: never parsed by yajl */
    /* the last "Process Group Ranks" interned and its id: a group's collectives repeat one text of up
     * to a few KB (every rank of the world), which is compared, not hashed again */
    grown_text last_ranks; uint32_t last_ranks_id;
    /* the CPU thread of the last host event (thread_id): its pid and tid text and string id */
    char last_pid[SMALL], last_tid[SMALL];
    uint16_t last_pid_len, last_tid_len;
    uint32_t last_thread;   /* TC_NONE: none yet */
    bool bad_base;          /* a baseTimeNanoseconds that is no number or lies past +-2^62 ns: ignored */
    uint64_t bad_group_sizes; /* "Group size" values that are no whole number in 1..2^31-1: ignored */
    /* skipped-event reasons */
    uint64_t skip_missing_ph, skip_missing_ts, skip_missing_dur, skip_bad_number[5];
};

/* ---- numbers from their text ---------------------------------------------------------------- */

/* Parses decimal text (optional sign, digits, fraction, exponent) as value * 10^scale, rounded to
 * the nearest integer. Exact for any number of digits that matter; never goes through a double. */
static num_state parse_scaled(const char *s, size_t len, int scale, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; i++; }
    uint64_t mant = 0;
    int exp10 = 0, round_digit = 0;
    bool any = false, dropped = false;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        any = true;
        if (mant <= (UINT64_MAX - 9) / 10) mant = mant * 10 + (uint64_t)(s[i] - '0');
        else exp10++; /* integer digit beyond 19 digits: magnitude only */
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            any = true;
            if (mant <= (UINT64_MAX - 9) / 10) { mant = mant * 10 + (uint64_t)(s[i] - '0'); exp10--; }
            else if (!dropped) { round_digit = s[i] - '0'; dropped = true; }
        }
    }
    if (!any) return NUM_NOT_NUMERIC;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+')) { eneg = s[i] == '-'; i++; }
        int e = 0;
        bool edig = false;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) { edig = true; if (e < 10000) e = e * 10 + (s[i] - '0'); }
        if (!edig) return NUM_NOT_NUMERIC;
        exp10 += eneg ? -e : e;
    }
    if (i != len) return NUM_NOT_NUMERIC;
    int total = exp10 + scale;
    if (mant == 0) { *out = 0; return NUM_OK; }
    if (total >= 0) {
        for (int k = 0; k < total; k++) {
            if (mant > (uint64_t)INT64_MAX / 10) return neg ? NUM_NEGATIVE : NUM_OVERFLOW;
            mant *= 10;
        }
    } else {
        if (total < -25) { mant = 0; round_digit = 0; }
        for (int k = 0; k < -total && mant > 0; k++) { round_digit = (int)(mant % 10); mant /= 10; }
        if (round_digit >= 5) mant++;
    }
    if (mant > (uint64_t)INT64_MAX) return neg ? NUM_NEGATIVE : NUM_OVERFLOW;
    if (neg && mant != 0) return NUM_NEGATIVE;
    *out = (int64_t)mant;
    return NUM_OK;
}

/* A signed time ("ts"): as parse_scaled, and a leading '-' is kept: relative times before
 * baseTimeNanoseconds are negative (Chrome-trace allows it: a GPU event recorded just before the
 * profiler's base). Only a negative "dur" is unusable. */
static num_state parse_scaled_signed(const char *s, size_t len, int scale, int64_t *out) {
    bool neg = len > 0 && s[0] == '-';
    num_state st = parse_scaled(neg ? s + 1 : s, neg ? len - 1 : len, scale, out);
    if (neg && st == NUM_NEGATIVE) return NUM_NOT_NUMERIC; /* "--5" */
    if (neg && st == NUM_OK) *out = -*out;
    return st;
}

/* Signed integer from text (fractions rounded); false when unusable. */
static bool parse_int(const char *s, size_t len, int64_t *out) {
    bool neg = len > 0 && s[0] == '-';
    int64_t v;
    num_state st = parse_scaled(neg ? s + 1 : s, neg ? len - 1 : len, 0, &v);
    if (st != NUM_OK) return false;
    *out = neg ? -v : v;
    return true;
}

static bool parse_uint64(const char *s, size_t len, uint64_t *out) {
    uint64_t v = 0;
    if (len == 0) return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            if (s[i] == '.') break; /* "123.0" */
            return false;
        }
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

/* ---- small helpers -------------------------------------------------------------------------- */

static void small_set(small_str *d, const unsigned char *s, size_t len) {
    if (len > SMALL - 1) len = SMALL - 1;
    memcpy(d->text, s, len);
    d->text[len] = 0;
    d->len = (uint16_t)len;
    d->set = true;
}

#define KEY_IS(lit) (len == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

static key_kind classify_key(frame_kind where, const unsigned char *key, size_t len) {
    const char *k = (const char *)key;
    switch (where) {
    case F_TOP:
        if (KEY_IS("traceEvents")) return K_TRACE_EVENTS;
        if (KEY_IS("deviceProperties")) return K_DEVICE_PROPERTIES;
        if (KEY_IS("computeProperties")) return K_DEVICE_PROPERTIES; /* its name in 2021 Kineto */
        if (KEY_IS("distributedInfo")) return K_DISTRIBUTED_INFO;
        if (KEY_IS("baseTimeNanoseconds")) return K_BASE_TIME;
        if (KEY_IS("record_shapes")) return K_RECORD_SHAPES;
        return K_OTHER;
    case F_EVENT:
        if (len == 2) {
            if (KEY_IS("ph")) return K_PH;
            if (KEY_IS("ts")) return K_TS;
        }
        if (KEY_IS("cat")) return K_CAT;
        if (KEY_IS("name")) return K_NAME;
        if (KEY_IS("pid")) return K_PID;
        if (KEY_IS("tid")) return K_TID;
        if (KEY_IS("dur")) return K_DUR;
        if (KEY_IS("args")) return K_ARGS;
        return K_OTHER;
    case F_ARGS: /* by length first: kernels carry a dozen args we do not read */
        switch (len) {
        case 3: return KEY_IS("Seq") ? K_SEQ : K_OTHER;
        case 5: return KEY_IS("dtype") ? K_DTYPE : K_OTHER;
        case 10:
            if (KEY_IS("Group size")) return K_GROUP_SIZE;
            if (KEY_IS("Input Dims")) return K_INPUT_DIMS;
            return KEY_IS("Input type") ? K_INPUT_TYPE : K_OTHER;
        case 11:
            if (KEY_IS("correlation")) return K_CORRELATION;
            return KEY_IS("External id") ? K_EXTERNAL_ID : K_OTHER;
        case 13: return KEY_IS("In msg nelems") ? K_IN_NELEMS : K_OTHER;
        case 14: return KEY_IS("Out msg nelems") ? K_OUT_NELEMS : K_OTHER;
        case 15:
            if (KEY_IS("Collective name")) return K_COLL_NAME;
            return KEY_IS("Concrete Inputs") ? K_CONCRETE_INPUTS : K_OTHER;
        case 18: return KEY_IS("Process Group Name") ? K_PG_NAME : K_OTHER;
        case 19: return KEY_IS("Process Group Ranks") ? K_PG_RANKS : K_OTHER;
        case 25: return KEY_IS("Process Group Description") ? K_PG_DESC : K_OTHER;
        default: return K_OTHER;
        }
    case F_DEVPROP:
        if (KEY_IS("id")) return K_ID;
        if (KEY_IS("name")) return K_NAME;
        return K_OTHER;
    case F_DISTINFO:
        if (KEY_IS("rank")) return K_RANK;
        if (KEY_IS("world_size")) return K_WORLD_SIZE;
        if (KEY_IS("backend")) return K_BACKEND;
        if (KEY_IS("pg_config")) return K_PG_CONFIG;
        return K_OTHER;
    case F_PG:
        if (KEY_IS("pg_name")) return K_PG_NAME;
        if (KEY_IS("pg_desc")) return K_PG_DESC;
        if (KEY_IS("pg_size")) return K_GROUP_SIZE;
        if (KEY_IS("ranks")) return K_PG_RANKS;
        return K_OTHER;
    default:
        return K_OTHER;
    }
}

static cat_kind classify_cat(const unsigned char *c, size_t len) {
    const char *k = (const char *)c;
    switch (len) { /* by length first: every event's category passes here, some twice */
    case 6:
        if (KEY_IS("kernel") || KEY_IS("Kernel")) return CAT_KERNEL;
        if (KEY_IS("cpu_op")) return CAT_CPU_OP;
        if (KEY_IS("Memcpy")) return CAT_MEMCPY;
        return KEY_IS("Memset") ? CAT_MEMSET : CAT_OTHER;
    case 7: return KEY_IS("Runtime") ? CAT_RUNTIME : CAT_OTHER;
    case 8: return KEY_IS("Operator") ? CAT_CPU_OP : CAT_OTHER;
    case 10:
        if (KEY_IS("gpu_memcpy")) return CAT_MEMCPY;
        return KEY_IS("gpu_memset") ? CAT_MEMSET : CAT_OTHER;
    case 11: return KEY_IS("cuda_driver") ? CAT_RUNTIME : CAT_OTHER;
    case 12: return KEY_IS("cuda_runtime") ? CAT_RUNTIME : CAT_OTHER;
    case 15: return KEY_IS("user_annotation") ? CAT_USER_ANNOTATION : CAT_OTHER;
    case 19: return KEY_IS("gpu_user_annotation") ? CAT_GPU_USER_ANNOTATION : CAT_OTHER;
    default: return CAT_OTHER;
    }
}

static frame *top(tc_ct_parser *p) { return p->depth > 0 && p->depth <= MAX_FRAMES ? &p->frames[p->depth - 1] : NULL; }

static frame_kind top_kind(tc_ct_parser *p) {
    frame *f = top(p);
    return f ? (frame_kind)f->kind : F_SKIP;
}

static key_kind top_key(tc_ct_parser *p) {
    frame *f = top(p);
    return f ? (key_kind)f->key : K_OTHER;
}

static void push(tc_ct_parser *p, frame_kind kind) {
    if (p->depth < MAX_FRAMES) { p->frames[p->depth].kind = (uint8_t)kind; p->frames[p->depth].key = K_OTHER; }
    p->depth++;
}

/* Resets every field of the scratch but the text buffers, which are only read up to their
 * lengths: clearing them too was a kilobyte of memset per event, 6% of a run. */
static void reset_event(event_scratch *ev) {
    small_str *const texts[] = {&ev->pid, &ev->tid, &ev->coll_name, &ev->dtype, &ev->pg_name, &ev->pg_desc};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) { texts[i]->len = 0; texts[i]->set = false; }
    ev->pg_ranks.len = 0;
    ev->pg_ranks_set = false;
    ev->has_ph = ev->ph_long = ev->has_name = ev->pid_numeric = ev->has_correlation = false;
    ev->ph = 0;
    ev->cat = CAT_OTHER;
    ev->name_len = 0;
    ev->name_at = NULL;
    ev->pid_value = ev->ts_ns = ev->dur_ns = 0;
    ev->ts_state = ev->dur_state = NUM_MISSING;
    ev->correlation = 0;
    ev->in_nelems = ev->out_nelems = ev->group_size = ev->seq = -1;
    ev->external_id = -1;
}

/* ---- building records at the end of an event ------------------------------------------------ */

static int64_t step_number(const char *name, size_t len) {
    /* "ProfilerStep#551" -> 551; -1 when the suffix is not a number */
    int64_t v;
    const char *h = memchr(name, '#', len);
    if (!h) return -1;
    size_t rest = len - (size_t)(h + 1 - name);
    return parse_int(h + 1, rest, &v) ? v : -1;
}

static void note_bad(tc_ct_parser *p, num_state st) { p->skip_bad_number[st]++; }

/* An event's start and end lie within +-TC_TIME_LIMIT_NS (model/trace.h; dur >= 0). */
static bool times_fit(int64_t ts_ns, int64_t dur_ns) {
    return ts_ns > -TC_TIME_LIMIT_NS && ts_ns < TC_TIME_LIMIT_NS - dur_ns;
}

/* FNV-1a of the pid and tid text: a thread key for op nesting. */
static uint64_t thread_key(const event_scratch *ev) {
    uint64_t h = 1469598103934665603ULL;
    for (uint16_t i = 0; i < ev->pid.len; i++) { h ^= (unsigned char)ev->pid.text[i]; h *= 1099511628211ULL; }
    h ^= 0xff; h *= 1099511628211ULL;
    for (uint16_t i = 0; i < ev->tid.len; i++) { h ^= (unsigned char)ev->tid.text[i]; h *= 1099511628211ULL; }
    return h;
}

/* The string id of the CPU thread with this pid and tid text (each cut at SMALL - 1 bytes, as
 * small_set cuts them), through a one-entry cache: a thread's events come in runs. */
static uint32_t thread_id(tc_ct_parser *p, const char *pid, size_t pid_len, const char *tid, size_t tid_len) {
    if (pid_len > SMALL - 1) pid_len = SMALL - 1;
    if (tid_len > SMALL - 1) tid_len = SMALL - 1;
    if (p->last_thread != TC_NONE && p->last_pid_len == pid_len && p->last_tid_len == tid_len &&
        memcmp(p->last_pid, pid, pid_len) == 0 && memcmp(p->last_tid, tid, tid_len) == 0)
        return p->last_thread;
    uint32_t id = tc_trace_intern_thread(p->t, pid, pid_len, tid, tid_len);
    memcpy(p->last_pid, pid, pid_len);
    memcpy(p->last_tid, tid, tid_len);
    p->last_pid_len = (uint16_t)pid_len;
    p->last_tid_len = (uint16_t)tid_len;
    p->last_thread = id;
    return id;
}

/* A CPU op or user annotation that is not a ProfilerStep: one tc_host_span. yajl's path
 * (finish_event) and the check before yajl (pass_on) both come here, so both make the same record
 * and intern the same strings in the same order (the name, then the thread). */
static void add_host_span(tc_ct_parser *p, tc_host_kind kind, const char *name, size_t name_len, int64_t ts_ns,
                          int64_t dur_ns, const char *pid, size_t pid_len, const char *tid, size_t tid_len) {
    tc_trace *t = p->t;
    tc_host_span h;
    memset(&h, 0, sizeof h); /* the explicit padding too (model/trace_arrays.def) */
    h.ts_ns = ts_ns;
    h.dur_ns = dur_ns;
    h.kind = (uint8_t)kind;
    h.name = tc_strtab_intern(t->strings, name, name_len);
    h.thread = thread_id(p, pid, pid_len, tid, tid_len);
    if (h.name == TC_NONE || h.thread == TC_NONE || TC_PUSH(t->host, t->n_host, t->cap_host, h)) p->oom = true;
}

/* A cpu_op that is a FLOP op (flops.h): kept with its shapes; without shapes only counted. */
static void add_flop_op(tc_ct_parser *p, const char *name, size_t name_len) {
    tc_flop_op op = tc_flop_op_from_name(name, name_len);
    if (op == TC_FOP_NONE) return;
    event_scratch *ev = &p->ev;
    tc_trace *t = p->t;
    if (!p->has_dims) { t->ops_without_shapes++; return; }
    t->ops_with_shapes++;
    if (tc_trace_add_shaped_op(t, op, name, name_len, ev->ts_ns, ev->dur_ns, thread_key(ev), ev->external_id, &p->shapes))
        p->oom = true;
}

/* The comm-kernel catalog's library for a kernel name (comm_kernels.h), looked up once per name. */
static uint8_t comm_lib_of(tc_ct_parser *p, uint32_t name_id) {
    tc_trace *t = p->t;
    size_t old = p->comm_of_cap;
    if (name_id >= old && tc_grow((void **)&p->comm_of, &p->comm_of_cap, (size_t)name_id + 1, 1) == 0)
        memset(p->comm_of + old, 0, p->comm_of_cap - old);
    if (name_id < p->comm_of_cap && p->comm_of[name_id]) return (uint8_t)(p->comm_of[name_id] - 1);
    uint8_t lib = tc_comm_kernel_lib(tc_trace_str(t, name_id), tc_strtab_len(t->strings, name_id));
    if (name_id < p->comm_of_cap) p->comm_of[name_id] = (uint8_t)(lib + 1);
    return lib;
}

/* PyTorch's op that carries a collective's arguments (RECORD_PARAM_COMMS): its args are kept for
 * the kernels it launches (finish_event), so the check before yajl never leaves it out. */
static bool is_param_comms(const char *name, size_t len) {
    return len == 18 && memcmp(name, "record_param_comms", 18) == 0;
}

/* Appends s[0, n) to t, kept NUL-terminated. 0, or -1 out of memory (t unchanged). */
static int text_put(grown_text *t, const char *s, size_t n) {
    if (tc_grow((void **)&t->text, &t->cap, t->len + n + 1, 1)) return -1;
    memcpy(t->text + t->len, s, n);
    t->len += n;
    t->text[t->len] = '\0';
    return 0;
}

/* The string id of the event's "Process Group Ranks" text (TC_NONE out of memory). */
static uint32_t intern_ranks(tc_ct_parser *p) {
    event_scratch *ev = &p->ev;
    const grown_text *r = &ev->pg_ranks;
    if (p->last_ranks_id != TC_NONE && r->len == p->last_ranks.len && memcmp(r->text, p->last_ranks.text, r->len) == 0)
        return p->last_ranks_id;
    uint32_t id = tc_strtab_intern(p->t->strings, r->text, r->len);
    p->last_ranks.len = 0;
    p->last_ranks_id = id != TC_NONE && !text_put(&p->last_ranks, r->text, r->len) ? id : TC_NONE;
    return id;
}

/* The event's collective arguments as a record of t->colls: its index, or TC_NONE out of memory
 * (p->oom set). */
static uint32_t push_coll_args(tc_ct_parser *p) {
    event_scratch *ev = &p->ev;
    tc_trace *t = p->t;
    tc_coll_args c;
    memset(&c, 0, sizeof c); /* the explicit padding too (model/trace_arrays.def) */
    c.coll_name = tc_strtab_intern(t->strings, ev->coll_name.text, ev->coll_name.len);
    c.dtype = ev->dtype.set ? tc_strtab_intern(t->strings, ev->dtype.text, ev->dtype.len) : TC_NONE;
    c.pg_name = ev->pg_name.set ? tc_strtab_intern(t->strings, ev->pg_name.text, ev->pg_name.len) : TC_NONE;
    c.pg_desc = ev->pg_desc.set ? tc_strtab_intern(t->strings, ev->pg_desc.text, ev->pg_desc.len) : TC_NONE;
    c.pg_ranks = ev->pg_ranks_set ? intern_ranks(p) : TC_NONE;
    c.in_nelems = ev->in_nelems;
    c.out_nelems = ev->out_nelems;
    c.group_size = ev->group_size;
    c.seq = ev->seq;
    if (TC_PUSH(t->colls, t->n_colls, t->cap_colls, c)) { p->oom = true; return TC_NONE; }
    return (uint32_t)(t->n_colls - 1);
}

static void finish_event(tc_ct_parser *p) {
    event_scratch *ev = &p->ev;
    tc_trace *t = p->t;
    t->events_total++;
    if (!ev->has_ph) { p->skip_missing_ph++; t->events_skipped++; return; }
    if (ev->ph != 'X' || ev->ph_long) return; /* only complete events carry what we measure */
    if (ev->ts_state != NUM_OK) {
        if (ev->ts_state == NUM_MISSING) p->skip_missing_ts++; else note_bad(p, ev->ts_state);
        t->events_skipped++;
        return;
    }
    if (ev->dur_state != NUM_OK) {
        if (ev->dur_state == NUM_MISSING) p->skip_missing_dur++; else note_bad(p, ev->dur_state);
        t->events_skipped++;
        return;
    }
    if (!times_fit(ev->ts_ns, ev->dur_ns)) { note_bad(p, NUM_OVERFLOW); t->events_skipped++; return; }

    const char *name = !ev->has_name ? "" : ev->name_at ? ev->name_at : ev->name;
    size_t name_len = ev->has_name ? ev->name_len : 0;
    bool is_step = name_len > 13 && memcmp(name, "ProfilerStep#", 13) == 0;

    if ((ev->cat == CAT_CPU_OP || ev->cat == CAT_USER_ANNOTATION) && !is_step) {
        add_host_span(p, ev->cat == CAT_CPU_OP ? TC_HOST_CPU_OP : TC_HOST_ANNOTATION, name, name_len, ev->ts_ns,
                      ev->dur_ns, ev->pid.text, ev->pid.len, ev->tid.text, ev->tid.len);
        if (ev->cat == CAT_CPU_OP) add_flop_op(p, name, name_len);
        /* record_param_comms: its arguments are the collective's, for kernels that carry none */
        if (ev->cat == CAT_CPU_OP && is_param_comms(name, name_len) && ev->coll_name.set && ev->external_id >= 0 &&
            ev->external_id < (int64_t)TC_NONE) {
            tc_op_coll o = {(uint32_t)ev->external_id, push_coll_args(p)};
            if (o.coll != TC_NONE && TC_PUSH(t->op_colls, t->n_op_colls, t->cap_op_colls, o)) p->oom = true;
        }
        return;
    }
    switch (ev->cat) {
    case CAT_KERNEL:
    case CAT_MEMCPY:
    case CAT_MEMSET: {
        tc_gpu_event g;
        memset(&g, 0, sizeof g);
        g.start_ns = ev->ts_ns;
        g.dur_ns = ev->dur_ns;
        g.name = tc_strtab_intern(t->strings, name, name_len);
        g.stream = tc_strtab_intern(t->strings, ev->tid.text, ev->tid.len);
        g.correlation = (ev->has_correlation && ev->correlation < TC_NONE) ? (uint32_t)ev->correlation : TC_NONE;
        g.device = (ev->pid_numeric && ev->pid_value >= 0 && ev->pid_value < INT32_MAX) ? (int32_t)ev->pid_value : -1;
        g.kind = ev->cat == CAT_KERNEL ? TC_GPU_KERNEL : ev->cat == CAT_MEMCPY ? TC_GPU_MEMCPY : TC_GPU_MEMSET;
        g.coll = TC_NONE;
        if (g.kind == TC_GPU_KERNEL) {
            g.is_comm = g.name == TC_NONE ? TC_COMM_NO : comm_lib_of(p, g.name);
            if (!g.is_comm && ev->coll_name.set) g.is_comm = TC_COMM_ARGS;
            if (ev->coll_name.set && (g.coll = push_coll_args(p)) == TC_NONE) return;
        }
        if (g.name == TC_NONE || g.stream == TC_NONE || TC_PUSH(t->gpu, t->n_gpu, t->cap_gpu, g)) p->oom = true;
        return;
    }
    case CAT_RUNTIME:
        if (ev->has_correlation && ev->correlation < TC_NONE) {
            tc_launch l;
            l.correlation = (uint32_t)ev->correlation;
            l.external_id = (ev->external_id >= 0 && ev->external_id < (int64_t)TC_NONE) ? (uint32_t)ev->external_id : TC_NONE;
            l.ts_ns = ev->ts_ns;
            l.dur_ns = ev->dur_ns;
            l.name = tc_strtab_intern(t->strings, name, name_len);
            l.thread = thread_id(p, ev->pid.text, ev->pid.len, ev->tid.text, ev->tid.len);
            if (l.name == TC_NONE || l.thread == TC_NONE || TC_PUSH(t->launches, t->n_launches, t->cap_launches, l))
                p->oom = true;
        }
        return;
    case CAT_GPU_USER_ANNOTATION:
        if (is_step) {
            tc_step_span s = {ev->ts_ns, ev->dur_ns, step_number(name, name_len)};
            if (TC_PUSH(t->gpu_steps, t->n_gpu_steps, t->cap_gpu_steps, s)) p->oom = true;
        }
        return;
    default:
        if (is_step) { /* user_annotation, or cpu_op/Operator in older traces */
            tc_step_span s = {ev->ts_ns, ev->dur_ns, step_number(name, name_len)};
            if (TC_PUSH(t->cpu_steps, t->n_cpu_steps, t->cap_cpu_steps, s)) p->oom = true;
        }
        return;
    }
}

/* ---- distributedInfo.pg_config ----------------------------------------------------------------- */

/* The end of a pg_config entry: one tc_pg_info when it has a name. */
static void finish_pg(tc_ct_parser *p) {
    tc_trace *t = p->t;
    if (!p->pg_name.set) return;
    tc_pg_info g;
    memset(&g, 0, sizeof g); /* the explicit padding too */
    g.size = p->pg_size;
    g.name = tc_strtab_intern(t->strings, p->pg_name.text, p->pg_name.len);
    g.desc = p->pg_desc.set ? tc_strtab_intern(t->strings, p->pg_desc.text, p->pg_desc.len) : TC_NONE;
    bool ranks = p->pg_ranks_set && !p->pg_ranks_bad && p->pg_ranks.len > 0;
    g.ranks = ranks ? tc_strtab_intern(t->strings, p->pg_ranks.text, p->pg_ranks.len) : TC_NONE;
    if (g.name == TC_NONE || (ranks && g.ranks == TC_NONE) || (p->pg_desc.set && g.desc == TC_NONE) ||
        TC_PUSH(t->pgs, t->n_pgs, t->cap_pgs, g))
        p->oom = true;
}

/* ---- yajl callbacks ------------------------------------------------------------------------- */
/* Input offset just past the token yajl is handling (in a callback), UINT64_MAX outside a feed. */
static uint64_t yajl_offset(tc_ct_parser *p) {
    if (p->emitting) return p->emit_pos;
    if (!p->parsing_from || !p->chunk) return UINT64_MAX;
    return p->fed_before + (uint64_t)(p->parsing_from - (uintptr_t)p->chunk) + yajl_get_bytes_consumed(p->yh);
}


/* A scalar of a distributedInfo.pg_config entry (F_PG) or of its ranks list (F_PGRANKS). */
static void pg_scalar(tc_ct_parser *p, frame_kind fk, key_kind k, const char *c, size_t len, bool is_string) {
    if (fk == F_PG) {
        if (k == K_PG_NAME && is_string) small_set(&p->pg_name, (const unsigned char *)c, len);
        else if (k == K_PG_DESC && is_string) small_set(&p->pg_desc, (const unsigned char *)c, len);
        else if (k == K_GROUP_SIZE) { if (!parse_int(c, len, &p->pg_size)) p->pg_size = -1; }
        else if (k == K_PG_RANKS) { /* on-demand traces write the list as a string, "[0, 1]" */
            p->pg_ranks.len = 0;
            p->pg_ranks_set = true;
            p->pg_ranks_bad = !is_string || text_put(&p->pg_ranks, c, len);
        }
        return;
    }
    int64_t v; /* one rank of the list: written back as text */
    if (is_string || !parse_int(c, len, &v) || v < 0) { p->pg_ranks_bad = true; return; }
    if (p->pg_ranks.len > 1 && text_put(&p->pg_ranks, ", ", 2)) p->pg_ranks_bad = true;
    if (text_put(&p->pg_ranks, c, len)) p->pg_ranks_bad = true;
}

static int on_scalar_text(tc_ct_parser *p, const unsigned char *s, size_t len, bool is_string) {
    frame_kind fk = top_kind(p);
    key_kind k = top_key(p);
    /* most scalars are values of keys we do not read: leave before the dispatch */
    if (k == K_OTHER && fk < F_DIMS) return 1;
    event_scratch *ev = &p->ev;
    tc_trace *t = p->t;
    const char *c = (const char *)s;
    switch (fk) {
    case F_EVENT:
        switch (k) {
        case K_PH:
            ev->has_ph = true;
            ev->ph = len ? c[0] : 0;
            ev->ph_long = len != 1;
            break;
        case K_CAT: ev->cat = classify_cat(s, len); break;
        case K_NAME:
            if (len > NAME_CAP - 1) len = NAME_CAP - 1;
            ev->name_len = len;
            ev->has_name = true;
            /* Most events end within the yajl_parse call that gave their name, while the name is
             * still in the caller's bytes: copy it only if the call ends first (yajl_feed). A name
             * in yajl's own buffer (split across calls) is copied now: yajl reuses that buffer. */
            if ((uintptr_t)s >= p->parsing_from && (uintptr_t)s + len <= p->parsing_to) {
                ev->name_at = c;
            } else {
                memcpy(ev->name, s, len);
                ev->name[len] = 0;
                ev->name_at = NULL;
            }
            break;
        case K_PID:
            small_set(&ev->pid, s, len);
            ev->pid_numeric = parse_int(c, len, &ev->pid_value); /* "0" and 0 alike */
            break;
        case K_TID: small_set(&ev->tid, s, len); break;
        case K_TS: ev->ts_state = parse_scaled_signed(c, len, 3, &ev->ts_ns); break;
        case K_DUR: ev->dur_state = parse_scaled(c, len, 3, &ev->dur_ns); break;
        default: break;
        }
        break;
    case F_ARGS:
        switch (k) {
        case K_CORRELATION: ev->has_correlation = parse_uint64(c, len, &ev->correlation); break;
        case K_COLL_NAME: small_set(&ev->coll_name, s, len); break;
        case K_DTYPE: small_set(&ev->dtype, s, len); break;
        case K_PG_NAME: small_set(&ev->pg_name, s, len); break;
        case K_PG_DESC: small_set(&ev->pg_desc, s, len); break;
        case K_PG_RANKS:
            ev->pg_ranks.len = 0;
            if (text_put(&ev->pg_ranks, c, len)) { p->oom = true; return 0; }
            ev->pg_ranks_set = true;
            break;
        case K_IN_NELEMS: if (!parse_int(c, len, &ev->in_nelems)) ev->in_nelems = -1; break;
        case K_OUT_NELEMS: if (!parse_int(c, len, &ev->out_nelems)) ev->out_nelems = -1; break;
        case K_GROUP_SIZE: /* NCCL's rank count is an int: anything else is not a group size */
            if (!parse_int(c, len, &ev->group_size) || ev->group_size < 1 || ev->group_size > INT32_MAX) {
                ev->group_size = -1;
                p->bad_group_sizes++;
            }
            break;
        case K_SEQ: if (!parse_int(c, len, &ev->seq)) ev->seq = -1; break;
        case K_EXTERNAL_ID: if (!parse_int(c, len, &ev->external_id)) ev->external_id = -1; break;
        default: break;
        }
        break;
    case F_DIM: { /* one size of the current input's dims */
        tc_op_tensor *in = &p->shapes.in[p->shapes.n_inputs - 1];
        int64_t v;
        if (in->ndims < 0) break;
        if (is_string || in->ndims >= TC_OP_MAX_DIMS || !parse_int(c, len, &v)) { in->ndims = -1; break; }
        in->d[in->ndims++] = v;
        break;
    }
    case F_TYPES:
    case F_CONCRETE: {
        tc_op_shapes *sh = &p->shapes;
        int *n = fk == F_TYPES ? &sh->n_types : &sh->n_concrete;
        if (*n >= TC_OP_MAX_INPUTS) break;
        char *dst = fk == F_TYPES ? sh->types[*n] : sh->concrete[*n];
        size_t l = len < TC_OP_TEXT - 1 ? len : TC_OP_TEXT - 1;
        memcpy(dst, s, l);
        dst[l] = 0;
        (*n)++;
        break;
    }
    case F_DIMS: /* a scalar where an input's list belongs: an input without usable dims */
        if (p->shapes.n_inputs < TC_OP_MAX_INPUTS) p->shapes.in[p->shapes.n_inputs++].ndims = -1;
        break;
    case F_TOP:
        if (k == K_BASE_TIME) {
            int64_t v;
            if (parse_int(c, len, &v) && v > -TC_TIME_LIMIT_NS && v < TC_TIME_LIMIT_NS) { t->base_ns = v; t->has_base = true; }
            else p->bad_base = true;
        } else if (k == K_RECORD_SHAPES) {
            t->record_shapes = len > 0 && (c[0] == '1' || c[0] == 't' || c[0] == 'T');
        }
        break;
    case F_DEVPROP:
        if (k == K_ID) p->dev_has_id = parse_int(c, len, &p->dev_id);
        else if (k == K_NAME) small_set(&p->dev_name, s, len);
        break;
    case F_PG:
    case F_PGRANKS: pg_scalar(p, fk, k, c, len, is_string); break;
    case F_DISTINFO:
        if (k == K_RANK) { int64_t v; if (parse_int(c, len, &v) && v >= 0) t->rank = v; }
        else if (k == K_WORLD_SIZE) { int64_t v; if (parse_int(c, len, &v) && v > 0) t->world_size = v; }
        else if (k == K_BACKEND && is_string) t->backend = tc_strtab_intern(t->strings, c, len);
        break;
    default:
        break;
    }
    return 1;
}

static int cb_null(void *ctx) { (void)ctx; return 1; }
static int cb_boolean(void *ctx, int v) {
    return on_scalar_text(ctx, (const unsigned char *)(v ? "true" : "false"), v ? 4 : 5, false);
}
static int cb_number(void *ctx, const char *s, size_t len) {
    return on_scalar_text(ctx, (const unsigned char *)s, len, false);
}
static int cb_string(void *ctx, const unsigned char *s, size_t len) {
    return on_scalar_text(ctx, s, len, true);
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len) {
    tc_ct_parser *p = ctx;
    frame *f = top(p);
    if (f && f->kind != F_SKIP && f->kind != F_EVENTS) f->key = (uint8_t)classify_key((frame_kind)f->kind, key, len);
    return 1;
}

static int cb_start_map(void *ctx) {
    tc_ct_parser *p = ctx;
    if (p->depth == 0) { p->documents++; push(p, F_TOP); return 1; }
    frame_kind fk = top_kind(p);
    key_kind k = top_key(p);
    if (fk == F_EVENTS) {
        reset_event(&p->ev);
        p->shapes.n_inputs = p->shapes.n_types = p->shapes.n_concrete = 0;
        p->has_dims = false;
        push(p, F_EVENT);
    }
    else if (fk == F_EVENT && k == K_ARGS) push(p, F_ARGS);
    else if (fk == F_TOP && k == K_DISTRIBUTED_INFO) push(p, F_DISTINFO);
    else if (fk == F_PGCONFIG) {
        p->pg_name.set = p->pg_desc.set = p->pg_ranks_set = p->pg_ranks_bad = false;
        p->pg_size = -1;
        p->pg_ranks.len = 0;
        push(p, F_PG);
    }
    else if (fk == F_DEVPROPS) {
        p->dev_has_id = false;
        p->dev_name.set = false;
        push(p, F_DEVPROP);
    } else {
        if (fk == F_PGRANKS) p->pg_ranks_bad = true; /* an object inside the ranks: not ranks */
        push(p, F_SKIP);
    }
    return 1;
}

static int cb_end_map(void *ctx) {
    tc_ct_parser *p = ctx;
    frame_kind fk = top_kind(p);
    if (fk == F_EVENT) { finish_event(p); p->ev.name_at = NULL; p->elem_end = yajl_offset(p); }
    else if (fk == F_PG) finish_pg(p);
    else if (fk == F_DEVPROP && p->dev_has_id) {
        tc_trace *t = p->t;
        tc_device d = {.id = p->dev_id,
                       .name = p->dev_name.set && p->dev_name.len > 0 /* "" is no name */
                                   ? tc_strtab_intern(t->strings, p->dev_name.text, p->dev_name.len) : TC_NONE};
        if (TC_PUSH(t->devices, t->n_devices, t->cap_devices, d)) p->oom = true;
    }
    if (p->depth > 0) p->depth--;
    return p->oom ? 0 : 1;
}

static int cb_start_array(void *ctx) {
    tc_ct_parser *p = ctx;
    if (p->depth == 0) { /* bare array of events (or a piece of traceEvents in events mode) */
        if (!p->events_mode) p->documents++;
        push(p, F_EVENTS);
        p->elem_end = yajl_offset(p);
        return 1;
    }
    frame_kind fk = top_kind(p);
    key_kind k = top_key(p);
    if (fk == F_TOP && k == K_TRACE_EVENTS) { push(p, F_EVENTS); p->elem_end = yajl_offset(p); }
    else if (fk == F_TOP && k == K_DEVICE_PROPERTIES) push(p, F_DEVPROPS);
    else if (fk == F_DISTINFO && k == K_PG_CONFIG) push(p, F_PGCONFIG);
    else if (fk == F_PG && k == K_PG_RANKS) {
        p->pg_ranks.len = 0;
        p->pg_ranks_set = true;
        p->pg_ranks_bad = text_put(&p->pg_ranks, "[", 1) != 0;
        push(p, F_PGRANKS);
    }
    else if (fk == F_ARGS && k == K_INPUT_DIMS) {
        p->shapes.n_inputs = 0;
        p->has_dims = true;
        push(p, F_DIMS);
    } else if (fk == F_ARGS && k == K_INPUT_TYPE) { p->shapes.n_types = 0; push(p, F_TYPES); }
    else if (fk == F_ARGS && k == K_CONCRETE_INPUTS) { p->shapes.n_concrete = 0; push(p, F_CONCRETE); }
    else if (fk == F_DIMS && p->shapes.n_inputs < TC_OP_MAX_INPUTS) {
        p->shapes.in[p->shapes.n_inputs++].ndims = 0;
        push(p, F_DIM);
    } else {
        if (fk == F_PGRANKS) p->pg_ranks_bad = true; /* a list inside the ranks: not ranks */
        /* a list nested in one input's dims (TensorList): that input has no single shape */
        if (fk == F_DIM) p->shapes.in[p->shapes.n_inputs - 1].ndims = -1;
        push(p, F_SKIP);
    }
    return 1;
}

static int cb_end_array(void *ctx) {
    tc_ct_parser *p = ctx;
    if (top_kind(p) == F_PGRANKS && text_put(&p->pg_ranks, "]", 1)) p->pg_ranks_bad = true;
    if (p->depth > 0) p->depth--;
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_boolean, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* ---- public API ----------------------------------------------------------------------------- */

tc_ct_parser *tc_ct_parser_new(tc_trace *dst) {
    tc_ct_parser *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->t = dst;
    p->last_thread = TC_NONE;
    p->last_ranks_id = TC_NONE;
    p->elem_end = UINT64_MAX;
    p->ev.name = malloc(NAME_CAP);
    p->yh = yajl_alloc(&callbacks, NULL, p);
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

void tc_ct_parser_free(tc_ct_parser *p) {
    if (!p) return;
    if (p->yh) yajl_free(p->yh);
    free(p->ev.name);
    free(p->ev.pg_ranks.text);
    free(p->last_ranks.text);
    free(p->comm_of);
    free(p->pg_ranks.text);
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
static void describe_error(tc_ct_parser *p, size_t at, const char *what) {
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
 * equals `stop` (stop = c: never stops). */
static size_t count_byte_unless(const char *buf, size_t len, char c, char stop) {
    size_t n = 0, i = 0;
#if defined(__SSE2__)
    const __m128i want = _mm_set1_epi8(c), halt = _mm_set1_epi8(stop), zero = _mm_setzero_si128();
    while (i + 16 <= len) {
        __m128i counts = zero, seen = zero; /* per-byte-lane counts: at most 255 rounds */
        for (int k = 0; k < 255 && i + 16 <= len; k++, i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
            counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(v, want)); /* a match is -1 */
            seen = _mm_or_si128(seen, _mm_cmpeq_epi8(v, halt));
        }
        if (stop != c && _mm_movemask_epi8(seen)) return SIZE_MAX;
        __m128i sums = _mm_sad_epu8(counts, zero);
        n += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; i < len; i++) {
        if (stop != c && buf[i] == stop) return SIZE_MAX;
        n += buf[i] == c;
    }
    return n;
}

/* Newlines in buf[0, len) and where the last line starts, for error positions (one vector pass:
 * a memchr call per line cost 5% of a sequential parse of Kineto's short lines). */
static void count_lines(tc_ct_parser *p, const char *buf, size_t len) {
    size_t n = count_byte_unless(buf, len, '\n', '\n');
    if (n == 0) return;
    p->lines_before += n;
    size_t last = len;
    while (buf[last - 1] != '\n') last--;
    p->line_start_before = p->fed_before + last;
}

/* After the callbacks for the bytes at hand: an event still open keeps its name, which must
 * outlive these bytes (on_scalar_text left it in place). */
static void keep_open_name(tc_ct_parser *p) {
    event_scratch *ev = &p->ev;
    if (ev->name_at) {
        memcpy(ev->name, ev->name_at, ev->name_len);
        ev->name[ev->name_len] = 0;
        ev->name_at = NULL;
    }
}

/* Passes bytes [from, to) of the current chunk to yajl. 0 ok, -1 error described. */
static int yajl_feed(tc_ct_parser *p, const char *buf, size_t from, size_t to) {
    if (to <= from) return 0;
    p->parsing_from = (uintptr_t)(buf + from);
    p->parsing_to = (uintptr_t)(buf + to);
    yajl_status st = yajl_parse(p->yh, (const unsigned char *)buf + from, to - from);
    keep_open_name(p);
    p->parsing_from = p->parsing_to = 0;
    if (st == yajl_status_ok) return 0;
    size_t at = from + yajl_get_bytes_consumed(p->yh);
    if (p->oom) describe_error(p, at, "out of memory");
    else {
        unsigned char *msg = yajl_get_error(p->yh, 0, (const unsigned char *)buf + from, to - from);
        char what[160], text[128];
        snprintf(text, sizeof text, "%s", msg ? (const char *)msg : "parse error");
        if (msg) yajl_free_error(p->yh, msg);
        size_t w = strlen(text); /* yajl ends its message with a newline */
        while (w > 0 && (text[w - 1] == '\n' || text[w - 1] == ' ' || text[w - 1] == '.')) text[--w] = 0;
        snprintf(what, sizeof what, "invalid JSON (%s)", text);
        /* yajl may report the error one byte past the offending one */
        describe_error(p, at > from ? at - 1 : from, what);
    }
    return -1;
}

/* ---- events handled before yajl ---------------------------------------------------------------
 * Most of a Kineto trace's bytes are events whose only effect is to add to events_total (flows,
 * instants and counters: finish_event reads only phase "X"; Python functions), or to add one host
 * span, whose fields are all in the event's top-level keys (CPU ops that are not FLOP ops,
 * annotations that are not a ProfilerStep). Such an event is handled here without yajl, counted
 * and its span recorded by the same add_host_span, when all of this holds, so this changes nothing
 * but the time taken:
 *  - the parser stands between two elements of the events array (top frame F_EVENTS, and the last
 *    byte yajl saw before the event, whitespace aside, was the array's '[' or a ',' right after the
 *    element yajl read last, by yajl's own byte count: not a '[' or ',' inside a string), or right
 *    after an event handled here;
 *  - the event is an object that is valid JSON by the grammar yajl applies (strings without
 *    escapes or control bytes, numbers, literals, nesting up to SKIP_MAX_DEPTH), wholly inside the
 *    bytes at hand, with its keys in any order and any whitespace (Kineto's "ph" first, a re-saved
 *    trace's "args" first);
 *  - by the last value of each of its keys, finish_event would do nothing but count it or add a
 *    host span (event_fate), and in particular a complete event's "ts" and "dur" are valid numbers
 *    and its "pid" and "tid", when present, a string or a number;
 *  - a ',' follows it, so yajl, which then sees neither the event nor its comma, still expects a
 *    value next.
 * Any other event for which the first two rules and the last one hold (a kernel, a launch, a FLOP
 * op, a step, ...) is read without yajl too: scan_value writes its tokens down as it checks it,
 * and emit_event calls the callbacks yajl would call for them, in the same order with the same
 * bytes (a string's text between its quotes, a number's text), so the same record results. This
 * parser is cheaper than yajl's because it knows the event is whole and plain before the first
 * callback: no token can straddle two feeds and no string needs decoding.
 * Anything else (an escape, nesting past SKIP_MAX_DEPTH, more than TOK_CAP tokens, the events
 * array's last event) goes to yajl as before. */

#define SKIP_MAX_DEPTH 32

static bool is_json_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* Offset just past the string that opens at b[i] ('"'), or 0 when it holds an escape, a control
 * byte, or runs past end. */
static size_t plain_string_end(const char *b, size_t i, size_t end) {
    for (i++; i < end; i++) {
        unsigned char c = (unsigned char)b[i];
        if (c == '"') return i + 1;
        if (c == '\\' || c < 0x20) return 0;
    }
    return 0;
}

/* Offset just past the JSON number at b[i], or 0 when it is not one by the JSON grammar. */
static size_t number_end(const char *b, size_t i, size_t end) {
    if (i < end && b[i] == '-') i++;
    if (i >= end) return 0;
    if (b[i] == '0') i++;
    else if (b[i] >= '1' && b[i] <= '9') while (i < end && b[i] >= '0' && b[i] <= '9') i++;
    else return 0;
    if (i < end && b[i] == '.') {
        size_t d = ++i;
        while (i < end && b[i] >= '0' && b[i] <= '9') i++;
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

static inline size_t skip_json_ws(const char *b, size_t i, size_t end) {
    if (i < end && !is_json_ws(b[i])) return i; /* most often: no whitespace at all */
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

/* Offset just past the JSON value at b[i] (any nesting up to SKIP_MAX_DEPTH), or 0 when it is
 * not valid by yajl's grammar, holds an escape or runs past end. With a sink, its tokens are
 * written there too, in the order yajl would call back for them (0 when more than the sink holds). */
static size_t scan_value(const char *b, size_t i, size_t end, tok_sink *sink) {
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
            if (depth == SKIP_MAX_DEPTH) return 0;
            PUT(c == '{' ? TK_OPEN_MAP : TK_OPEN_ARRAY, i, 1);
            open[depth++] = c;
            i = skip_json_ws(b, i + 1, end);
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
        if (c == '"') { v = plain_string_end(b, i, end); k = TK_STRING; }
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
        i = skip_json_ws(b, i, end);
        if (i >= end) return 0;
        if (b[i] == (open[depth - 1] == '{' ? '}' : ']')) {
            PUT(open[depth - 1] == '{' ? TK_CLOSE_MAP : TK_CLOSE_ARRAY, i, 1);
            i++;
            depth--;
            goto after_value;
        }
        if (b[i] != ',') return 0;
        i = skip_json_ws(b, i + 1, end);
        if (open[depth - 1] == '[') continue;
    at_key:
        if (i >= end || b[i] != '"' || !(v = plain_string_end(b, i, end))) return 0;
        PUT(TK_KEY, i + 1, v - i - 2);
        i = skip_json_ws(b, v, end);
        if (i >= end || b[i] != ':') return 0;
        i = skip_json_ws(b, i + 1, end);
    }
#undef PUT
}

static size_t value_end(const char *b, size_t i, size_t end) { return scan_value(b, i, end, NULL); }

typedef struct { size_t at, len; bool is_string; bool seen; } span;

/* What finish_event would do with an event, judged before yajl: hand it to yajl (it may matter, or
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
    cat_kind k = cat->seen ? classify_cat((const unsigned char *)b + cat->at, cat->len) : CAT_OTHER;
    if (k != CAT_CPU_OP && k != CAT_OTHER && k != CAT_USER_ANNOTATION) return true;
    if (!name->seen) return false;
    size_t nl = name->len > NAME_CAP - 1 ? NAME_CAP - 1 : name->len;
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
    if (parse_scaled_signed(b + ts->at, ts->len, 3, &t0) != NUM_OK || parse_scaled(b + dur->at, dur->len, 3, &d) != NUM_OK)
        return FATE_YAJL;
    if (!times_fit(t0, d)) return FATE_YAJL;
    cat_kind k = cat->seen ? classify_cat((const unsigned char *)b + cat->at, cat->len) : CAT_OTHER;
    if (k != CAT_CPU_OP && k != CAT_USER_ANNOTATION) return FATE_COUNT;
    ev->kind = k == CAT_CPU_OP ? TC_HOST_CPU_OP : TC_HOST_ANNOTATION;
    ev->ts_ns = t0;
    ev->dur_ns = d;
    return FATE_HOST;
}

/* When the '{' at b[i] opens an event that is handled here (see above) and a ',' follows it
 * (whitespace aside), the offset just past that comma, with *ev saying what it makes; else 0.
 * Leaves as soon as a key's value shows the event matters (a kernel, a FLOP op): most events are
 * judged on their first keys. */
static size_t skippable_event_end(const char *b, size_t i, size_t end, fast_event *ev) {
    span ph = {0}, cat = {0}, ts = {0}, dur = {0};
    memset(ev, 0, sizeof *ev);
    i = skip_json_ws(b, i + 1, end);
    if (end - i < 64) return 0;
    /* Kineto writes complete events as "ph": "X", "cat": "...": those that always matter (a
     * kernel, a launch, a copy, a GPU annotation) are known from that prefix alone; in other
     * layouts the loop below leaves at the category */
    static const char x_cat[] = "\"ph\": \"X\", \"cat\": \"";
    if (memcmp(b + i, x_cat, sizeof x_cat - 1) == 0) {
        const char *c = b + i + sizeof x_cat - 1;
        if (memcmp(c, "kernel\"", 7) == 0 || memcmp(c, "cuda_runtime\"", 13) == 0 || memcmp(c, "gpu_mem", 7) == 0 ||
            memcmp(c, "gpu_user_annotation\"", 20) == 0)
            return 0;
    }
    for (;;) {
        if (i >= end || b[i] != '"') return 0;
        size_t k = plain_string_end(b, i, end);
        if (!k) return 0;
        const char *key = b + i + 1;
        size_t kl = k - i - 2;
        span *slot = NULL;
        if (kl == 2 && memcmp(key, "ph", 2) == 0) slot = &ph;
        else if (kl == 2 && memcmp(key, "ts", 2) == 0) slot = &ts;
        else if (kl == 3 && memcmp(key, "cat", 3) == 0) slot = &cat;
        else if (kl == 3 && memcmp(key, "dur", 3) == 0) slot = &dur;
        else if (kl == 3 && memcmp(key, "pid", 3) == 0) slot = &ev->pid;
        else if (kl == 3 && memcmp(key, "tid", 3) == 0) slot = &ev->tid;
        else if (kl == 4 && memcmp(key, "name", 4) == 0) slot = &ev->name;
        i = skip_json_ws(b, k, end);
        if (i >= end || b[i] != ':') return 0;
        i = skip_json_ws(b, i + 1, end);
        size_t v = i < end && b[i] == '"' ? plain_string_end(b, i, end) : value_end(b, i, end);
        if (!v) return 0;
        if (slot) {
            bool str = b[i] == '"';
            /* a pid or tid that is not a string or a number: yajl's path keeps other text */
            if ((slot == &ev->pid || slot == &ev->tid) && !str && b[i] != '-' && !(b[i] >= '0' && b[i] <= '9')) return 0;
            *slot = (span){str ? i + 1 : i, str ? v - i - 2 : v - i, str, true};
            /* judged early: a kernel, a launch or a FLOP op goes to yajl without reading on */
            if ((slot == &cat || slot == &ev->name) && complete_event_matters(b, &ph, &cat, &ev->name)) return 0;
        }
        i = skip_json_ws(b, v, end);
        if (i >= end) return 0;
        if (b[i] == '}') break;
        if (b[i] != ',') return 0;
        i = skip_json_ws(b, i + 1, end);
    }
    ev->fate = event_fate(b, &ph, &cat, &ev->name, &ts, &dur, ev);
    if (ev->fate == FATE_YAJL) return 0;
    i = skip_json_ws(b, i + 1, end);
    return i < end && b[i] == ',' ? i + 1 : 0;
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

/* When the '{' at b[i] opens an event that is valid JSON by yajl's grammar with plain strings (no
 * escape or control byte), holds at most TOK_CAP tokens, lies wholly in b[i, end) and is followed by
 * a ',' (whitespace aside), the offset just past that comma, with its tokens in p->toks; else 0. */
static size_t event_tokens(tc_ct_parser *p, const char *b, size_t i, size_t end) {
    p->toks.n = 0;
    size_t v = scan_value(b, i, end, &p->toks);
    if (!v) return 0;
    v = skip_json_ws(b, v, end);
    return v < end && b[v] == ',' ? v + 1 : 0;
}

/* Calls the callbacks yajl would call for the event whose tokens event_tokens left in p->toks
 * (bytes b[from, to)), in the same order with the same bytes, so the same record results; yajl never
 * sees the event. 0 ok, -1 error described (only running out of memory stops a callback). */
static int emit_event(tc_ct_parser *p, const char *b, size_t from, size_t to) {
    p->emitting = true;
    p->parsing_from = (uintptr_t)(b + from); /* on_scalar_text may keep the name in place */
    p->parsing_to = (uintptr_t)(b + to);
    int ok = 1;
    for (size_t k = 0; k < p->toks.n && ok; k++) {
        const tok *t = &p->toks.t[k];
        const unsigned char *s = (const unsigned char *)b + t->at;
        p->emit_pos = p->fed_before + t->at + (t->kind == TK_KEY || t->kind == TK_STRING ? t->len + 1 : t->len);
        switch (t->kind) {
        case TK_OPEN_MAP: ok = cb_start_map(p); break;
        case TK_CLOSE_MAP: ok = cb_end_map(p); break;
        case TK_OPEN_ARRAY: ok = cb_start_array(p); break;
        case TK_CLOSE_ARRAY: ok = cb_end_array(p); break;
        case TK_KEY: ok = cb_map_key(p, s, t->len); break;
        case TK_STRING: ok = cb_string(p, s, t->len); break;
        case TK_NUMBER: ok = cb_number(p, (const char *)s, t->len); break;
        case TK_TRUE: ok = cb_boolean(p, 1); break;
        case TK_FALSE: ok = cb_boolean(p, 0); break;
        case TK_NULL: ok = cb_null(p); break;
        }
    }
    keep_open_name(p);
    p->emitting = false;
    p->parsing_from = p->parsing_to = 0;
    if (ok && !p->oom) {
        p->events_emitted++;
        return 0;
    }
    describe_error(p, from, "out of memory");
    return -1;
}

/* Passes bytes [from, to) of the current chunk to yajl, but for the events handled here (see
 * above): counted, their host spans recorded, or their callbacks called by emit_event. 0 ok, -1
 * error described. */
static int pass_on(tc_ct_parser *p, const char *buf, size_t from, size_t to) {
    size_t seg = from, i = from, resume = SIZE_MAX;
    while (i < to) {
        size_t at = next_brace(buf, i, to);
        if (at >= to) break;
        i = at + 1;
        if (!may_start_element(buf, from, at, resume)) continue;
        fast_event ev;
        size_t end = skippable_event_end(buf, at, to, &ev);
        bool emit = !end;
        if (emit && !(end = event_tokens(p, buf, at, to))) continue;
        if (yajl_feed(p, buf, seg, at)) return -1;
        seg = at;
        if (!at_element_start(p, buf, from, at, resume)) continue;
        if (emit) {
            if (emit_event(p, buf, at, end)) return -1;
            seg = i = resume = end;
            continue;
        }
        p->t->events_total++;
        p->events_skipped_early++;
        if (ev.fate == FATE_HOST) {
            size_t nl = ev.name.len > NAME_CAP - 1 ? NAME_CAP - 1 : ev.name.len; /* as on_scalar_text cuts */
            add_host_span(p, ev.kind, buf + ev.name.at, nl, ev.ts_ns, ev.dur_ns, buf + ev.pid.at, ev.pid.len,
                          buf + ev.tid.at, ev.tid.len);
            if (p->oom) { describe_error(p, at, "out of memory"); return -1; }
        }
        seg = i = resume = end;
    }
    return yajl_feed(p, buf, seg, to);
}

/* The string guard's fast path, for a chunk without a backslash (the usual case): every quote then
 * opens or closes a string, so strings are the spans between consecutive quotes. When every
 * STR_CAP/2 bytes hold a quote and a string carried in from the last chunk closes in time, no
 * string reaches STR_CAP here; the state at the end follows from the quote count's parity and the
 * last quote. Returns false (nothing changed) when the exact scan must decide. */
static bool guard_fast(tc_ct_parser *p, const char *buf, size_t len) {
    if (p->esc_left || p->after_backslash || p->dropping || len == 0) return false;
    size_t quotes = count_byte_unless(buf, len, '"', '\\');
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

int tc_ct_parser_feed(tc_ct_parser *p, const char *buf, size_t len) {
    p->chunk = (const unsigned char *)buf;
    p->chunk_len = len;
    if (guard_fast(p, buf, len)) {
        if (pass_on(p, buf, 0, len)) return -1;
        if (!p->events_mode) count_lines(p, buf, len);
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
            if (pass_on(p, buf, seg, cut)) return -1;
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
    if (pass_on(p, buf, seg, len)) return -1;
    if (!p->events_mode) count_lines(p, buf, len); /* events mode reports no positions */
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
