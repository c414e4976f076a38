/* chrome_trace_int.h: the inside of the Chrome-trace parser (chrome_trace.h), included only by its
 * files, parsers/chrome_*.c: the parser's state (struct tc_ct_parser), the helpers several of them
 * inline, and what each file offers the others:
 *   chrome_trace.c      the public API: life, feeding (the string-length guard), the end, errors
 *   chrome_callbacks.c  yajl's callbacks: frames, keys, scalars into the event's scratch; yajl fed
 *                       (ct_yajl_feed) and an event read before yajl handed to the same callbacks
 *                       (ct_emit_event)
 *   chrome_events.c     an event's end: its scratch into at most one record (ct_finish_event), host
 *                       spans, collective args, comm-kernel classes, pg_config entries
 *   chrome_scan.c       the events handled before yajl: the scanner (ct_pass_on), which walks
 *                       the chunk's structural index (vscan.c) where it has one
 *   chrome_numbers.c    numbers from their text
 *
 * Design: a stack of frames, one per open container, each tagged with what it is (the top object,
 * the traceEvents array, one event, its args, deviceProperties, ...). Scalars are interpreted by
 * (frame, key). One event's fields go into a fixed scratch struct that is reset at each `{` inside
 * traceEvents and turned into at most one compact record at its `}`; nothing else is kept.
 * Invariants: frames deeper than MAX_FRAMES are all F_SKIP (only the depth is counted); the scratch
 * never holds more than one event. */
#ifndef TC_CHROME_TRACE_INT_H
#define TC_CHROME_TRACE_INT_H
#include "model/comm_kernels.h"
#include "model/ops.h"
#include "model/trace.h"
#include "parsers/vscan.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <yajl/yajl_parse.h>

/* chrome_trace.h's name for the parser (repeated, not included: chrome_trace.c includes both, and a
 * header of its own folder that included it back would make an include circle) */
typedef struct tc_ct_parser tc_ct_parser;

#define MAX_FRAMES 64
#define NAME_CAP (64u * 1024u) /* longer names are cut (kernel names are a few KB at most) */
#define SMALL 128

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
    K_TRACE_EVENTS, K_DEVICE_PROPERTIES, K_DISTRIBUTED_INFO, K_BASE_TIME, K_RECORD_SHAPES, K_HOST_NAME,
    /* event */
    K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS,
    /* args */
    K_CORRELATION, K_COLL_NAME, K_IN_NELEMS, K_IN_SPLITS, K_OUT_NELEMS, K_GROUP_SIZE, K_DTYPE, K_PG_NAME,
    K_PG_DESC, K_PG_RANKS, K_SEQ, K_SRC_RANK, K_DST_RANK, K_EXTERNAL_ID, K_INPUT_DIMS, K_INPUT_TYPE, K_CONCRETE_INPUTS,
    /* deviceProperties entry / distributedInfo (a pg_config entry reuses K_PG_NAME, K_PG_DESC,
     * K_PG_RANKS and K_GROUP_SIZE for pg_name, pg_desc, ranks and pg_size) */
    K_ID, K_RANK, K_WORLD_SIZE, K_BACKEND, K_PG_CONFIG
} key_kind;

typedef enum {
    CAT_OTHER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_RUNTIME, CAT_USER_ANNOTATION,
    CAT_GPU_USER_ANNOTATION, CAT_CPU_OP, CAT_PYTHON_FUNCTION
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

/* A text of any length, NUL-terminated, grown as needed (ct_text_put); owned by the parser. */
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
    bool name_fetched;   /* a kernel's name whose slot was fetched when it was read: name_hash is its hash */
    uint64_t name_hash;
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
    /* "In split size" whole ("[3, 1, 4]", one entry per rank of the group: all-to-all(v)); an
     * empty list "[]" is not kept */
    grown_text in_splits; bool in_splits_set;
    int64_t in_nelems, out_nelems, group_size, seq;
    int64_t src_rank, dst_rank; /* P2P peers, "Src Rank" / "Dst Rank"; -1 absent */
    int64_t external_id;
} event_scratch; /* reset_event resets every field: add new ones there */

/* One token of an event read before yajl (scan_value), as yajl would hand it to a callback: a key
 * or string is the text between its quotes, a number or literal its text, a bracket itself.
 * `at` is an offset into the bytes at hand (a chunk of 4 GiB or more goes to yajl whole, so it fits
 * 32 bits). The scalars come last, from TK_STRING on (emit_tokens relies on it). */
typedef enum { TK_OPEN_MAP, TK_CLOSE_MAP, TK_OPEN_ARRAY, TK_CLOSE_ARRAY, TK_KEY, TK_STRING, TK_NUMBER, TK_TRUE, TK_FALSE,
               TK_NULL } tok_kind;
typedef struct { uint32_t at, len; uint8_t kind; } tok; /* 12 bytes: ct_pass_on walks chunks under 4 GiB */
#define TOK_CAP 512 /* tokens of one event read before yajl; an event with more goes to yajl */
typedef struct { tok t[TOK_CAP]; size_t n; } tok_sink;

/* The shape of an event read before yajl (chrome_scan.c, "templates"): its bytes but for its
 * values (strings but a top-level "ph" or "cat" value, numbers), which are slots, and its tokens,
 * each a slot or at a fixed place in the bytes around the slots. An event whose bytes around the
 * slots are the same and whose slots hold a plain string or a number where the template's did is
 * tokenized as the walk would tokenize it, without walking it. */
#define TMPL_BYTES 2048 /* an event's bytes around its slots */
#define TMPL_SLOTS 128
#define TMPL_TOKS 256
#define TMPL_COUNT 8    /* templates a parser keeps */
typedef struct {
    uint16_t n_slots, n_toks;
    uint8_t next;                     /* the template the event after this one's last fitted (tried first) */
    uint16_t seg_end[TMPL_SLOTS + 1]; /* end in lit of the bytes before slot k (k = n_slots: after the last) */
    uint8_t slot_kind[TMPL_SLOTS];    /* TK_STRING or TK_NUMBER */
    uint8_t tok_kind[TMPL_TOKS];
    uint16_t tok_ref[TMPL_TOKS];      /* a slot's token: the slot; else the bytes before which slot hold it */
    uint16_t tok_off[TMPL_TOKS], tok_len[TMPL_TOKS]; /* not a slot: offset in those bytes, length */
    char lit[TMPL_BYTES];
} ct_template;

/* One (name id, shapes id, hash of the Input types) seen, and its op key's index + 1 (0: empty). */
typedef struct { uint32_t name, shapes, types, key1; } op_slot;
/* The last op key found for a name (name id TC_NONE: empty) and the shapes, Input types and
 * Concrete Inputs it was found for (only the entries in use are kept): an op called again with
 * the same ones has the same key, found without its shapes' text, hashes and lookups. */
#define OP_RECENT 32
typedef struct { uint32_t name, key; tc_op_shapes shapes; } op_recent;

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
    bool emitting;          /* the callbacks are called by ct_emit_event, not yajl: yajl_offset is emit_pos */
    uint64_t emit_pos;      /* input offset just past the token ct_emit_event is handing over */
    tok_sink toks;          /* the tokens of the event ct_emit_event hands over */
    bool templates;         /* events are tokenized by templates where they fit (TRACECOST_TEMPLATES) */
    ct_template *tmpl;      /* TMPL_COUNT templates (NULL until the first is learned), n_tmpl in use */
    unsigned n_tmpl, tmpl_last, tmpl_next; /* the one that fitted or was made last; the next one to replace */
    uint64_t tmpl_hits, tmpl_learned, tmpl_walks; /* events tokenized by a template; templates made; walks */
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
    /* the trace's op keys (tc_trace.op_keys) by (name, shapes, Input types): open addressing;
     * op_key_cap a power of two or 0 */
    op_slot *op_key_slots; size_t op_key_cap, n_op_slots;
    char *shapes_buf;       /* SHAPES_CAP bytes: the current op's Input Dims as text */
    op_recent *op_recent;   /* OP_RECENT entries by name id (NULL until the first op key) */
    /* string-length guard (see STR_CAP): raw-byte tracking of where strings are */
    bool in_str;            /* inside a string */
    bool after_backslash;   /* the chunk ended just after a backslash inside a string */
    uint8_t esc_left;       /* escape bytes still to skip at the start of the next chunk */
    bool dropping;          /* inside a string past STR_CAP: bytes are not passed on */
    uint64_t str_start;     /* offset of the current string's first content byte */
    uint64_t long_strings, dropped_bytes;
    /* the scanner's stage 1 (vscan.h): its path (TRACECOST_SCAN, read at creation) and the index
     * of the chunk being fed (buf NULL: none, the byte scanner alone) */
    vs_path scan_path;
    vs_index vs;
    /* a UTF-8 byte order mark before the document (ct_skip_bom): bytes of it matched so far, and
     * whether the start is decided */
    uint8_t bom_seen;
    bool bom_decided;
    /* comm-kernel classes (tc_comm_classify + 1; 0 = not asked yet) at [2 * name id + has args]:
     * each distinct name is matched once with args and once without */
    const tc_comm_patterns *user_comm; /* the user's patterns, NULL none (tc_ct_parser_set_comm) */
    uint8_t *comm_of; size_t comm_of_cap;
    bool kernel_names_new; /* the last kernel's name was new to the trace: fetch the next one's slot
                            * as its name is read (a trace of distinct names waits on memory) */
    bool comm_ix_ready;  /* comm_ix made (at the first name asked) */
    tc_comm_index comm_ix;
    uint64_t events_skipped_early; /* events kept from yajl (ct_pass_on): counted, and a host span recorded
                                    * when it is one, never parsed by yajl */
    uint64_t events_emitted; /* events whose callbacks ct_emit_event called: never parsed by yajl */
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

/* ---- helpers inlined where they are used ------------------------------------------------------ */

static inline frame *top(tc_ct_parser *p) {
    return p->depth > 0 && p->depth <= MAX_FRAMES ? &p->frames[p->depth - 1] : NULL;
}

static inline frame_kind top_kind(tc_ct_parser *p) {
    frame *f = top(p);
    return f ? (frame_kind)f->kind : F_SKIP;
}

static inline key_kind top_key(tc_ct_parser *p) {
    frame *f = top(p);
    return f ? (key_kind)f->key : K_OTHER;
}

/* An event's start and end lie within +-TC_TIME_LIMIT_NS (model/trace.h; dur >= 0). */
static inline bool times_fit(int64_t ts_ns, int64_t dur_ns) {
    return ts_ns > -TC_TIME_LIMIT_NS && ts_ns < TC_TIME_LIMIT_NS - dur_ns;
}

/* An nn.Module python_function event's name prefix ("nn.Module: Linear_0"). */
#define MODULE_PREFIX "nn.Module: "
#define MODULE_PREFIX_LEN (sizeof MODULE_PREFIX - 1)
static inline bool is_module_name(const char *name, size_t len) {
    return len > MODULE_PREFIX_LEN && memcmp(name, MODULE_PREFIX, MODULE_PREFIX_LEN) == 0;
}
#define SHAPES_CAP 4096 /* bytes of an op's Input Dims text (16 inputs of 8 dims fit) */

/* PyTorch's op that carries a collective's arguments (RECORD_PARAM_COMMS): its args are kept for
 * the kernels it launches (ct_finish_event), so the check before yajl never leaves it out. */
static inline bool is_param_comms(const char *name, size_t len) {
    return len == 18 && memcmp(name, "record_param_comms", 18) == 0;
}

/* ---- what the files offer each other ---------------------------------------------------------- */

/* chrome_numbers.c */
num_state ct_parse_scaled(const char *s, size_t len, int scale, int64_t *out);
num_state ct_parse_scaled_signed(const char *s, size_t len, int scale, int64_t *out);
bool ct_parse_int(const char *s, size_t len, int64_t *out);
bool ct_parse_uint64(const char *s, size_t len, uint64_t *out);

/* chrome_trace.c */
int ct_text_put(grown_text *t, const char *s, size_t n);
void ct_describe_error(tc_ct_parser *p, size_t at, const char *what);

/* chrome_callbacks.c */
extern const yajl_callbacks ct_callbacks;
cat_kind ct_classify_cat(const unsigned char *c, size_t len);
int ct_yajl_feed(tc_ct_parser *p, const char *buf, size_t from, size_t to);
int ct_emit_event(tc_ct_parser *p, const char *b, size_t from, size_t to);

/* chrome_events.c */
void ct_add_host_span(tc_ct_parser *p, tc_host_kind kind, const char *name, size_t name_len, int64_t ts_ns,
                      int64_t dur_ns, const char *pid, size_t pid_len, const char *tid, size_t tid_len);
void ct_finish_event(tc_ct_parser *p);
void ct_finish_pg(tc_ct_parser *p);

/* chrome_scan.c */
int ct_pass_on(tc_ct_parser *p, const char *buf, size_t from, size_t to);
#endif
