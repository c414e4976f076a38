/* chrome_callbacks.c: the Chrome-trace parser's yajl callbacks (see chrome_trace_int.h): frames and
 * keys, each scalar into the event's scratch or the metadata it belongs to, yajl fed and its errors
 * described, and the tokens of an event read before yajl handed to the same callbacks. */
#include "chrome_trace_int.h"
#include "base/util.h"
#include <stdio.h>
#include <string.h>

static void small_set(small_str *d, const unsigned char *s, size_t len) {
    if (len > SMALL - 1) len = SMALL - 1;
    memcpy(d->text, s, len);
    d->text[len] = 0;
    d->len = (uint16_t)len;
    d->set = true;
}

static void small_clear(small_str *d) {
    d->text[0] = 0;
    d->len = 0;
    d->set = false;
}

#define KEY_IS(lit) (len == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

/* An event's key (frame F_EVENT), by length and first byte: every key of every event passes here. */
__attribute__((always_inline)) static inline key_kind event_key(const char *k, size_t len) {
    switch (len) {
    case 2: return KEY_IS("ph") ? K_PH : KEY_IS("ts") ? K_TS : K_OTHER;
    case 3:
        switch (k[0]) {
        case 'c': return KEY_IS("cat") ? K_CAT : K_OTHER;
        case 'p': return KEY_IS("pid") ? K_PID : K_OTHER;
        case 't': return KEY_IS("tid") ? K_TID : K_OTHER;
        case 'd': return KEY_IS("dur") ? K_DUR : K_OTHER;
        default: return K_OTHER;
        }
    case 4: return KEY_IS("name") ? K_NAME : KEY_IS("args") ? K_ARGS : K_OTHER;
    default: return K_OTHER;
    }
}

/* An arg's key (frame F_ARGS), by length first: kernels carry a dozen args we do not read. */
__attribute__((always_inline)) static inline key_kind args_key(const char *k, size_t len) {
    switch (len) {
    case 3: return KEY_IS("Seq") ? K_SEQ : K_OTHER;
    case 5: return KEY_IS("dtype") ? K_DTYPE : K_OTHER;
    case 8: /* P2P peers as PyTorch's saveNcclMeta writes them (global ranks) */
        if (KEY_IS("Src Rank")) return K_SRC_RANK;
        return KEY_IS("Dst Rank") ? K_DST_RANK : K_OTHER;
    case 10:
        if (KEY_IS("Group size")) return K_GROUP_SIZE;
        if (KEY_IS("Input Dims")) return K_INPUT_DIMS;
        return KEY_IS("Input type") ? K_INPUT_TYPE : K_OTHER;
    case 11:
        if (KEY_IS("correlation")) return K_CORRELATION;
        return KEY_IS("External id") ? K_EXTERNAL_ID : K_OTHER;
    case 13:
        if (KEY_IS("In msg nelems")) return K_IN_NELEMS;
        return KEY_IS("In split size") ? K_IN_SPLITS : K_OTHER;
    case 14: return KEY_IS("Out msg nelems") ? K_OUT_NELEMS : K_OTHER;
    case 15:
        if (KEY_IS("Collective name")) return K_COLL_NAME;
        return KEY_IS("Concrete Inputs") ? K_CONCRETE_INPUTS : K_OTHER;
    case 18: return KEY_IS("Process Group Name") ? K_PG_NAME : K_OTHER;
    case 19: return KEY_IS("Process Group Ranks") ? K_PG_RANKS : K_OTHER;
    case 25: return KEY_IS("Process Group Description") ? K_PG_DESC : K_OTHER;
    default: return K_OTHER;
    }
}

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
        if (KEY_IS("host_name") || KEY_IS("hostname")) return K_HOST_NAME; /* Meta's Kineto writes host_name */
        return K_OTHER;
    case F_EVENT: return event_key(k, len);
    case F_ARGS: return args_key(k, len);
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

cat_kind ct_classify_cat(const unsigned char *c, size_t len) {
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
    case 15:
        if (KEY_IS("user_annotation")) return CAT_USER_ANNOTATION;
        return KEY_IS("python_function") ? CAT_PYTHON_FUNCTION : CAT_OTHER;
    case 19: return KEY_IS("gpu_user_annotation") ? CAT_GPU_USER_ANNOTATION : CAT_OTHER;
    default: return CAT_OTHER;
    }
}

static void push(tc_ct_parser *p, frame_kind kind) {
    if (p->depth < MAX_FRAMES) { p->frames[p->depth].kind = (uint8_t)kind; p->frames[p->depth].key = K_OTHER; }
    p->depth++;
}

/* Resets every field of the scratch but the text buffers, which are only read up to their
 * lengths: clearing them too was a kilobyte of memset per event, 6% of a run. */
static void reset_event(event_scratch *ev) {
#define UNSET(str) (ev->str.len = 0, ev->str.set = false) /* written out: a loop over pointers cost 40 instructions */
    UNSET(pid); UNSET(tid); UNSET(coll_name); UNSET(dtype); UNSET(pg_name); UNSET(pg_desc);
#undef UNSET
    ev->pg_ranks.len = 0;
    ev->pg_ranks_set = false;
    ev->in_splits.len = 0;
    ev->in_splits_set = false;
    ev->has_ph = ev->ph_long = ev->has_name = ev->pid_numeric = ev->has_correlation = false;
    ev->ph = 0;
    ev->cat = CAT_OTHER;
    ev->name_len = 0;
    ev->name_at = NULL;
    ev->name_fetched = false;
    ev->pid_value = ev->ts_ns = ev->dur_ns = 0;
    ev->ts_state = ev->dur_state = NUM_MISSING;
    ev->correlation = 0;
    ev->in_nelems = ev->out_nelems = ev->group_size = ev->seq = -1;
    ev->src_rank = ev->dst_rank = -1;
    ev->external_id = -1;
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
        else if (k == K_GROUP_SIZE) { if (!ct_parse_int(c, len, &p->pg_size)) p->pg_size = -1; }
        else if (k == K_PG_RANKS) { /* on-demand traces write the list as a string, "[0, 1]" */
            p->pg_ranks.len = 0;
            p->pg_ranks_set = true;
            p->pg_ranks_bad = !is_string || ct_text_put(&p->pg_ranks, c, len);
        }
        return;
    }
    int64_t v; /* one rank of the list: written back as text */
    if (is_string || !ct_parse_int(c, len, &v) || v < 0) { p->pg_ranks_bad = true; return; }
    if (p->pg_ranks.len > 1 && ct_text_put(&p->pg_ranks, ", ", 2)) p->pg_ranks_bad = true;
    if (ct_text_put(&p->pg_ranks, c, len)) p->pg_ranks_bad = true;
}

/* An arg's text kept whole when it is at least min_len bytes (else unset): 0, or -1 out of memory. */
static int keep_text(tc_ct_parser *p, grown_text *t, bool *set, const char *c, size_t len, size_t min_len) {
    t->len = 0;
    *set = false;
    if (len < min_len) return 0;
    if (ct_text_put(t, c, len)) { p->oom = true; return -1; }
    *set = true;
    return 0;
}

/* An event's own scalar under its key k (scalar_in, frame F_EVENT). */
__attribute__((always_inline)) static inline void event_scalar(tc_ct_parser *p, key_kind k, const unsigned char *s, size_t len) {
    event_scratch *ev = &p->ev;
    const char *c = (const char *)s;
    switch (k) {
    case K_PH:
        ev->has_ph = true;
        ev->ph = len ? c[0] : 0;
        ev->ph_long = len != 1;
        break;
    case K_CAT: ev->cat = ct_classify_cat(s, len); break;
    case K_NAME:
        if (len > NAME_CAP - 1) len = NAME_CAP - 1;
        ev->name_len = len;
        ev->has_name = true;
        /* Most events end within the yajl_parse call that gave their name, while the name is
         * still in the caller's bytes: copy it only if the call ends first (ct_yajl_feed). A name
         * in yajl's own buffer (split across calls) is copied now: yajl reuses that buffer. */
        if ((uintptr_t)s >= p->parsing_from && (uintptr_t)s + len <= p->parsing_to) {
            ev->name_at = c;
        } else {
            memcpy(ev->name, s, len);
            ev->name[len] = 0;
            ev->name_at = NULL;
        }
        /* a kernel (its category read first, as Kineto writes it) in a trace whose kernel names are
         * new: its slot is fetched now and its hash kept for the intern at the event's end */
        ev->name_fetched = ev->cat == CAT_KERNEL && p->kernel_names_new;
        if (ev->name_fetched) ev->name_hash = tc_strtab_prefetch(p->t->strings, c, len);
        break;
    case K_PID:
        small_set(&ev->pid, s, len);
        /* "0" and 0 alike. Read from the kept text by ct_finish_event, and only for GPU events (the
         * device), unless small_set cut it: then now, from the whole text */
        if (len >= SMALL - 1) ev->pid_numeric = ct_parse_int(c, len, &ev->pid_value);
        break;
    case K_TID: small_set(&ev->tid, s, len); break;
    case K_TS: ev->ts_state = ct_parse_scaled_signed(c, len, 3, &ev->ts_ns); break;
    case K_DUR: ev->dur_state = ct_parse_scaled(c, len, 3, &ev->dur_ns); break;
    default: break;
    }
}

/* A scalar of an event's args under its key k (scalar_in, frame F_ARGS). 1, or 0 out of memory. */
__attribute__((always_inline)) static inline int args_scalar(tc_ct_parser *p, key_kind k, const char *c, size_t len) {
    event_scratch *ev = &p->ev;
    const unsigned char *s = (const unsigned char *)c;
    switch (k) {
    case K_CORRELATION: ev->has_correlation = ct_parse_uint64(c, len, &ev->correlation); break;
    case K_COLL_NAME: small_set(&ev->coll_name, s, len); break;
    case K_DTYPE: small_set(&ev->dtype, s, len); break;
    case K_PG_NAME: small_set(&ev->pg_name, s, len); break;
    case K_PG_DESC: small_set(&ev->pg_desc, s, len); break;
    case K_PG_RANKS: if (keep_text(p, &ev->pg_ranks, &ev->pg_ranks_set, c, len, 0)) return 0; break;
    /* PyTorch writes the split list as a string; "[]" (even splits, or none) is not kept */
    case K_IN_SPLITS: if (keep_text(p, &ev->in_splits, &ev->in_splits_set, c, len, 3)) return 0; break;
    case K_IN_NELEMS: if (!ct_parse_int(c, len, &ev->in_nelems)) ev->in_nelems = -1; break;
    case K_OUT_NELEMS: if (!ct_parse_int(c, len, &ev->out_nelems)) ev->out_nelems = -1; break;
    case K_GROUP_SIZE: /* NCCL's rank count is an int: anything else is not a group size */
        if (!ct_parse_int(c, len, &ev->group_size) || ev->group_size < 1 || ev->group_size > INT32_MAX) {
            ev->group_size = -1;
            p->bad_group_sizes++;
        }
        break;
    case K_SEQ: if (!ct_parse_int(c, len, &ev->seq)) ev->seq = -1; break;
    /* a number, or its text ("3"): either way a rank; anything else is no peer */
    case K_SRC_RANK: if (!ct_parse_int(c, len, &ev->src_rank) || ev->src_rank < 0) ev->src_rank = -1; break;
    case K_DST_RANK: if (!ct_parse_int(c, len, &ev->dst_rank) || ev->dst_rank < 0) ev->dst_rank = -1; break;
    case K_EXTERNAL_ID: if (!ct_parse_int(c, len, &ev->external_id)) ev->external_id = -1; break;
    default: break;
    }
    return 1;
}

/* A scalar read in frame fk under its key k (K_OTHER in a list): into the scratch or the metadata
 * it belongs to. 1, or 0 out of memory. Both paths come here: yajl's through on_scalar_text, the
 * tokens of an event read before yajl from emit_tokens. */
static int scalar_in(tc_ct_parser *p, frame_kind fk, key_kind k, const unsigned char *s, size_t len, bool is_string) {
    tc_trace *t = p->t;
    const char *c = (const char *)s;
    switch (fk) {
    case F_EVENT: event_scalar(p, k, s, len); break;
    case F_ARGS: return args_scalar(p, k, c, len);
    case F_DIM: { /* one size of the current input's dims */
        tc_op_tensor *in = &p->shapes.in[p->shapes.n_inputs - 1];
        int64_t v;
        if (in->ndims < 0) break;
        if (is_string || in->ndims >= TC_OP_MAX_DIMS || !ct_parse_int(c, len, &v)) { in->ndims = -1; break; }
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
            if (ct_parse_int(c, len, &v) && v > -TC_TIME_LIMIT_NS && v < TC_TIME_LIMIT_NS) { t->base_ns = v; t->has_base = true; }
            else p->bad_base = true;
        } else if (k == K_RECORD_SHAPES) {
            t->record_shapes = len > 0 && (c[0] == '1' || c[0] == 't' || c[0] == 'T');
        } else if (k == K_HOST_NAME && is_string && len > 0) {
            uint32_t id = tc_strtab_intern(t->strings, c, len < 255 ? len : 255);
            if (id == TC_NONE) { p->oom = true; return 0; }
            t->host_name = id;
        }
        break;
    case F_DEVPROP:
        if (k == K_ID) p->dev_has_id = ct_parse_int(c, len, &p->dev_id);
        else if (k == K_NAME) small_set(&p->dev_name, s, len);
        break;
    case F_PG:
    case F_PGRANKS: pg_scalar(p, fk, k, c, len, is_string); break;
    case F_DISTINFO:
        if (k == K_RANK) { int64_t v; if (ct_parse_int(c, len, &v) && v >= 0) t->rank = v; }
        else if (k == K_WORLD_SIZE) { int64_t v; if (ct_parse_int(c, len, &v) && v > 0) t->world_size = v; }
        else if (k == K_BACKEND && is_string) t->backend = tc_strtab_intern(t->strings, c, len);
        break;
    default:
        break;
    }
    return 1;
}

/* A value of a key that a frame before F_DIMS (an object, or a list of them) does not read
 * (K_OTHER) does nothing: a scalar is passed over, a container is an F_SKIP frame and all in it
 * (cb_start_map, cb_start_array). emit_tokens passes such values over without their callbacks. */
static inline bool value_ignored(frame_kind fk, key_kind k) { return k == K_OTHER && fk < F_DIMS; }

static int on_scalar_text(tc_ct_parser *p, const unsigned char *s, size_t len, bool is_string) {
    frame_kind fk = top_kind(p);
    key_kind k = top_key(p);
    /* most scalars are values of keys we do not read: leave before the dispatch */
    if (value_ignored(fk, k)) return 1;
    return scalar_in(p, fk, k, s, len, is_string);
}

/* A null is the value missing (docs/damage.md): the last value wins, so a null after a value of
 * the same key resets what that value set (an event's keys and args, baseTimeNanoseconds, a
 * device's id). Nulls elsewhere (in a list of dims, under keys not read) are passed over. */
static void null_in(tc_ct_parser *p, frame_kind fk, key_kind k) {
    event_scratch *ev = &p->ev;
    if (fk == F_EVENT) {
        switch (k) {
        case K_PH: ev->has_ph = false; ev->ph = 0; ev->ph_long = false; break;
        case K_CAT: ev->cat = CAT_OTHER; break;
        case K_NAME: ev->has_name = false; ev->name_len = 0; ev->name_at = NULL; ev->name_fetched = false; break;
        case K_PID: small_clear(&ev->pid); ev->pid_numeric = false; ev->pid_value = 0; break;
        case K_TID: small_clear(&ev->tid); break;
        case K_TS: ev->ts_state = NUM_MISSING; ev->ts_ns = 0; break;
        case K_DUR: ev->dur_state = NUM_MISSING; ev->dur_ns = 0; break;
        default: break;
        }
    } else if (fk == F_ARGS) {
        switch (k) {
        case K_CORRELATION: ev->has_correlation = false; ev->correlation = 0; break;
        case K_COLL_NAME: small_clear(&ev->coll_name); break;
        case K_DTYPE: small_clear(&ev->dtype); break;
        case K_PG_NAME: small_clear(&ev->pg_name); break;
        case K_PG_DESC: small_clear(&ev->pg_desc); break;
        case K_PG_RANKS: ev->pg_ranks.len = 0; ev->pg_ranks_set = false; break;
        case K_IN_SPLITS: ev->in_splits.len = 0; ev->in_splits_set = false; break;
        case K_IN_NELEMS: ev->in_nelems = -1; break;
        case K_OUT_NELEMS: ev->out_nelems = -1; break;
        case K_GROUP_SIZE: ev->group_size = -1; break;
        case K_SEQ: ev->seq = -1; break;
        case K_SRC_RANK: ev->src_rank = -1; break;
        case K_DST_RANK: ev->dst_rank = -1; break;
        case K_EXTERNAL_ID: ev->external_id = -1; break;
        default: break;
        }
    } else if (fk == F_TOP && k == K_BASE_TIME) {
        p->t->has_base = false;
        p->t->base_ns = 0;
    } else if (fk == F_DEVPROP && k == K_ID) {
        p->dev_has_id = false;
    }
}
static int cb_null(void *ctx) {
    tc_ct_parser *p = ctx;
    null_in(p, top_kind(p), top_key(p));
    return 1;
}
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

__attribute__((always_inline)) static inline int cb_start_map(void *ctx) {
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
    if (fk == F_EVENT) { ct_finish_event(p); p->ev.name_at = NULL; p->elem_end = yajl_offset(p); }
    else if (fk == F_PG) ct_finish_pg(p);
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

__attribute__((always_inline)) static inline int cb_start_array(void *ctx) {
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
        p->pg_ranks_bad = ct_text_put(&p->pg_ranks, "[", 1) != 0;
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
    if (top_kind(p) == F_PGRANKS && ct_text_put(&p->pg_ranks, "]", 1)) p->pg_ranks_bad = true;
    if (p->depth > 0) p->depth--;
    return 1;
}

const yajl_callbacks ct_callbacks = {
    cb_null, cb_boolean, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

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
int ct_yajl_feed(tc_ct_parser *p, const char *buf, size_t from, size_t to) {
    if (to <= from) return 0;
    p->parsing_from = (uintptr_t)(buf + from);
    p->parsing_to = (uintptr_t)(buf + to);
    yajl_status st = yajl_parse(p->yh, (const unsigned char *)buf + from, to - from);
    keep_open_name(p);
    p->parsing_from = p->parsing_to = 0;
    if (st == yajl_status_ok) return 0;
    size_t at = from + yajl_get_bytes_consumed(p->yh);
    if (p->oom) ct_describe_error(p, at, "out of memory");
    else {
        unsigned char *msg = yajl_get_error(p->yh, 0, (const unsigned char *)buf + from, to - from);
        char what[160], text[128];
        snprintf(text, sizeof text, "%s", msg ? (const char *)msg : "parse error");
        if (msg) yajl_free_error(p->yh, msg);
        size_t w = strlen(text); /* yajl ends its message with a newline */
        while (w > 0 && (text[w - 1] == '\n' || text[w - 1] == ' ' || text[w - 1] == '.')) text[--w] = 0;
        snprintf(what, sizeof what, "invalid JSON (%s)", text);
        /* yajl may report the error one byte past the offending one */
        ct_describe_error(p, at > from ? at - 1 : from, what);
    }
    return -1;
}

/* Past the value whose first token is v (a scalar, or a container to its closing token). */
static const tok *skip_value(const tok *v) {
    if (v->kind != TK_OPEN_MAP && v->kind != TK_OPEN_ARRAY) return v + 1;
    int depth = 0;
    do {
        depth += v->kind == TK_OPEN_MAP || v->kind == TK_OPEN_ARRAY;
        depth -= v->kind == TK_CLOSE_MAP || v->kind == TK_CLOSE_ARRAY;
        v++;
    } while (depth > 0);
    return v;
}

/* The scalar token v, read in frame fk under key k. */
__attribute__((always_inline)) static inline int scalar_token(tc_ct_parser *p, frame_kind fk, key_kind k, const char *b, const tok *v) {
    const unsigned char *s = (const unsigned char *)b + v->at;
    if (v->kind == TK_STRING || v->kind == TK_NUMBER) { /* most: straight to the event's or its args' reader */
        if (fk == F_EVENT) { event_scalar(p, k, s, v->len); return 1; }
        if (fk == F_ARGS) return args_scalar(p, k, (const char *)s, v->len);
    }
    switch (v->kind) {
    case TK_STRING: return scalar_in(p, fk, k, s, v->len, true);
    case TK_NUMBER: return scalar_in(p, fk, k, s, v->len, false);
    case TK_TRUE: return scalar_in(p, fk, k, (const unsigned char *)"true", 4, false);
    case TK_FALSE: return scalar_in(p, fk, k, (const unsigned char *)"false", 5, false);
    default: null_in(p, fk, k); return 1;
    }
}

/* The tokens of p->toks (bytes b) through the callbacks' semantics, as yajl would call them, but
 * for what would do nothing: a key a frame does not read, with its value (value_ignored), and an
 * F_SKIP container, are passed over; a key and its scalar value are one step, with the frame at
 * hand. 1, or 0 out of memory. What it calls a token (the key classes, scalar_token, event_scalar,
 * args_scalar, cb_start_map, cb_start_array) is forced inline: a call each cost about 10
 * instructions of spills, about 3 % of a run together (docs/performance.md). */
static int emit_tokens(tc_ct_parser *p, const char *b) {
    const tok *t = p->toks.t, *end = t + p->toks.n;
    int ok = 1;
    frame *f = top(p); /* the top frame: only a container's callbacks change it */
    while (t < end && ok) {
        if (t->kind == TK_KEY) { /* most tokens: a test, not the switch's jump, which mispredicts */
            frame_kind fk = f ? (frame_kind)f->kind : F_SKIP;
            key_kind k = K_OTHER;
            const char *kt = b + t->at; /* an event's and its args' keys inline: most keys are theirs */
            if (fk == F_EVENT) k = event_key(kt, t->len);
            else if (fk == F_ARGS) k = args_key(kt, t->len);
            else if (fk != F_SKIP && fk != F_EVENTS) k = classify_key(fk, (const unsigned char *)kt, t->len);
            if (fk != F_SKIP && fk != F_EVENTS) f->key = (uint8_t)k;
            const tok *v = t + 1;
            if (value_ignored(fk, k)) t = skip_value(v);
            else if (v->kind >= TK_STRING) { ok = scalar_token(p, fk, k, b, v); t = v + 1; }
            else t = v; /* a container: its callbacks next */
            continue;
        }
        switch (t->kind) {
        case TK_OPEN_MAP:
        case TK_OPEN_ARRAY: {
            p->emit_pos = p->fed_before + t->at + 1;
            ok = t->kind == TK_OPEN_MAP ? cb_start_map(p) : cb_start_array(p);
            f = top(p);
            if ((f ? (frame_kind)f->kind : F_SKIP) == F_SKIP) { /* nothing in it has an effect: to its closing token */
                t = skip_value(t) - 1;
                continue;
            }
            break;
        }
        case TK_CLOSE_MAP: p->emit_pos = p->fed_before + t->at + 1; ok = cb_end_map(p); f = top(p); break;
        case TK_CLOSE_ARRAY: ok = cb_end_array(p); f = top(p); break;
        default: { /* the scalars of a list (dims, types), in one run: its frame is the same for all */
            frame_kind fk = f ? (frame_kind)f->kind : F_SKIP;
            key_kind k = f ? (key_kind)f->key : K_OTHER;
            bool ignored = value_ignored(fk, k);
            for (; t < end && t->kind >= TK_STRING && ok; t++)
                if (!ignored) ok = scalar_token(p, fk, k, b, t);
            continue;
        }
        }
        t++;
    }
    return ok;
}

/* Calls the callbacks yajl would call for the event whose tokens event_tokens left in p->toks
 * (bytes b[from, to)), in the same order with the same bytes, so the same record results (but for
 * those that would do nothing: emit_tokens); yajl never sees the event. 0 ok, -1 error described
 * (only running out of memory stops a callback). */
int ct_emit_event(tc_ct_parser *p, const char *b, size_t from, size_t to) {
    p->emitting = true;
    p->parsing_from = (uintptr_t)(b + from); /* on_scalar_text may keep the name in place */
    p->parsing_to = (uintptr_t)(b + to);
    int ok = emit_tokens(p, b);
    keep_open_name(p);
    p->emitting = false;
    p->parsing_from = p->parsing_to = 0;
    if (ok && !p->oom) {
        p->events_emitted++;
        return 0;
    }
    ct_describe_error(p, from, "out of memory");
    return -1;
}
