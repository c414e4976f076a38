/* chrome_events.c: the end of a Chrome-trace event (see chrome_trace_int.h): its scratch turned into
 * at most one record (a GPU event, a launch, a host span with its op key, a module span, a step, a
 * FLOP op, collective args), and the end of a pg_config entry. */
#include "chrome_trace_int.h"
#include "base/util.h"
#include "model/comm_kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t step_number(const char *name, size_t len) {
    /* "ProfilerStep#551" -> 551; -1 when the suffix is not a number */
    int64_t v;
    const char *h = memchr(name, '#', len);
    if (!h) return -1;
    size_t rest = len - (size_t)(h + 1 - name);
    return ct_parse_int(h + 1, rest, &v) ? v : -1;
}

static void note_bad(tc_ct_parser *p, num_state st) { p->skip_bad_number[st]++; }

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
 * (ct_finish_event) and the check before yajl (ct_pass_on) both come here, so both make the same record
 * and intern the same strings in the same order (the name, then the thread). */
void ct_add_host_span(tc_ct_parser *p, tc_host_kind kind, const char *name, size_t name_len, int64_t ts_ns,
                          int64_t dur_ns, const char *pid, size_t pid_len, const char *tid, size_t tid_len) {
    tc_trace *t = p->t;
    tc_host_span h;
    memset(&h, 0, sizeof h); /* the explicit padding too (model/trace_arrays.def) */
    h.ts_ns = ts_ns;
    h.dur_ns = dur_ns;
    h.kind = (uint8_t)kind;
    h.op_key = TC_NONE;
    h.name = tc_strtab_intern(t->strings, name, name_len);
    h.thread = thread_id(p, pid, pid_len, tid, tid_len);
    if (h.name == TC_NONE || h.thread == TC_NONE || TC_PUSH(t->host, t->n_host, t->cap_host, h)) p->oom = true;
}

/* v in decimal at out (20 bytes at most, no NUL): snprintf costs a tenth of a parse here. Its length. */
static size_t put_int(char *out, int64_t v) {
    char tmp[24];
    size_t n = 0, k = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do { tmp[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) out[k++] = '-';
    while (n) out[k++] = tmp[--n];
    return k;
}

/* The op's Input Dims as text in buf (SHAPES_CAP bytes), as PyTorch writes them ("[[8, 512], [],
 * [512]]"); an input without one shape (a nested list, too many dims) is "[...]". Its length. */
static size_t shapes_text(const tc_op_shapes *s, char *buf) {
    size_t n = 0;
    buf[n++] = '[';
    for (int i = 0; i < s->n_inputs; i++) {
        const tc_op_tensor *in = &s->in[i];
        if (i) { buf[n++] = ','; buf[n++] = ' '; }
        if (in->ndims < 0) { memcpy(buf + n, "[...]", 5); n += 5; continue; }
        buf[n++] = '[';
        for (int d = 0; d < in->ndims; d++) { /* 22 bytes a size at most: 16 x 8 x 24 < SHAPES_CAP */
            if (d) { buf[n++] = ','; buf[n++] = ' '; }
            n += put_int(buf + n, in->d[d]);
        }
        buf[n++] = ']';
    }
    buf[n++] = ']';
    buf[n] = 0;
    return n;
}

static uint32_t key_hash(uint32_t name, uint32_t shapes, uint32_t types) {
    uint64_t h = (((uint64_t)name << 32 | shapes) ^ types) * 0x9E3779B97F4A7C15ULL;
    return (uint32_t)(h >> 32);
}

/* Doubles the op-key table (16 slots at first). 0, or -1 out of memory. */
static int grow_op_keys(tc_ct_parser *p) {
    size_t cap = p->op_key_cap ? 2 * p->op_key_cap : 16;
    op_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < p->op_key_cap; i++) {
        const op_slot *o = &p->op_key_slots[i];
        if (!o->key1) continue;
        size_t at = key_hash(o->name, o->shapes, o->types) & (cap - 1);
        while (slots[at].key1) at = (at + 1) & (cap - 1);
        slots[at] = *o;
    }
    free(p->op_key_slots);
    p->op_key_slots = slots;
    p->op_key_cap = cap;
    return 0;
}

/* FNV-1a of the op's Input type texts, then its Concrete Inputs hash: with its name and shapes, what
 * decides its dtype and its cost. */
static uint32_t types_hash(const tc_op_shapes *s, uint32_t concrete) {
    uint32_t h = 2166136261u ^ concrete;
    for (int i = 0; i < s->n_types; i++) {
        for (const char *c = s->types[i]; *c; c++) { h ^= (unsigned char)*c; h *= 16777619u; }
        h ^= 0xff;
        h *= 16777619u;
    }
    return h;
}

/* The index into t->op_keys of the cpu_op's (name, Input Dims, dtype, cost), added when new;
 * TC_NONE out of memory. The table is looked up by (name, shapes, Input types and Concrete Inputs):
 * a repeated call costs no tc_op_cost_of; a new one whose dtype and cost make an existing key (one of
 * the last 8) reuses that key. */
static uint32_t op_key_of(tc_ct_parser *p, uint32_t name_id, const char *name, size_t name_len) {
    tc_trace *t = p->t;
    if (!p->shapes_buf && !(p->shapes_buf = malloc(SHAPES_CAP))) return TC_NONE;
    size_t len = shapes_text(&p->shapes, p->shapes_buf);
    uint32_t shapes = tc_strtab_intern(t->strings, p->shapes_buf, len);
    if (shapes == TC_NONE) return TC_NONE;
    uint32_t concrete = tc_op_concrete_hash(&p->shapes);
    uint32_t types = types_hash(&p->shapes, concrete);
    if (2 * (p->n_op_slots + 1) > p->op_key_cap && grow_op_keys(p)) return TC_NONE;
    size_t at = key_hash(name_id, shapes, types) & (p->op_key_cap - 1);
    for (; p->op_key_slots[at].key1; at = (at + 1) & (p->op_key_cap - 1)) {
        const op_slot *o = &p->op_key_slots[at];
        if (o->name == name_id && o->shapes == shapes && o->types == types) return o->key1 - 1;
    }
    tc_op_cost c;
    tc_op_cost_of(name, name_len, &p->shapes, &c);
    tc_op_key key;
    memset(&key, 0, sizeof key); /* the explicit padding too */
    key.name = name_id;
    key.shapes = shapes;
    key.dtype = (int8_t)c.dtype;
    key.family = c.family;
    key.has_flops = c.has_flops;
    key.flops = c.has_flops ? c.flops : 0;
    key.has_bytes = c.has_bytes;
    key.bytes = c.has_bytes ? c.bytes : 0;
    size_t k = t->n_op_keys; /* keys of this name and shapes are few: look among the last ones */
    while (k > 0 && !tc_op_key_same(&t->op_keys[k - 1], &key) && t->n_op_keys - k < 8) k--;
    if (!(k > 0 && tc_op_key_same(&t->op_keys[k - 1], &key))) {
        if (TC_PUSH(t->op_keys, t->n_op_keys, t->cap_op_keys, key)) return TC_NONE;
        k = t->n_op_keys;
    }
    p->op_key_slots[at] = (op_slot){name_id, shapes, types, (uint32_t)k};
    p->n_op_slots++;
    return (uint32_t)(k - 1);
}

/* Do two ops read the same shapes, Input types and Concrete Inputs (the entries in use)? */
static bool same_shapes(const tc_op_shapes *a, const tc_op_shapes *b) {
    if (a->n_inputs != b->n_inputs || a->n_types != b->n_types || a->n_concrete != b->n_concrete) return false;
    for (int i = 0; i < a->n_inputs; i++) {
        const tc_op_tensor *x = &a->in[i], *y = &b->in[i];
        if (x->ndims != y->ndims || (x->ndims > 0 && memcmp(x->d, y->d, (size_t)x->ndims * sizeof x->d[0]) != 0))
            return false;
    }
    for (int i = 0; i < a->n_types; i++)
        if (strcmp(a->types[i], b->types[i]) != 0) return false;
    for (int i = 0; i < a->n_concrete; i++)
        if (strcmp(a->concrete[i], b->concrete[i]) != 0) return false;
    return true;
}

/* op_key_of through p->op_recent: the same key, found again at the cost of a comparison when the
 * op's name was last seen with the same shapes, types and Concrete Inputs. */
static uint32_t op_key_cached(tc_ct_parser *p, uint32_t name_id, const char *name, size_t name_len) {
    if (!p->op_recent) {
        if (!(p->op_recent = malloc(OP_RECENT * sizeof *p->op_recent))) return TC_NONE;
        for (size_t i = 0; i < OP_RECENT; i++) p->op_recent[i].name = TC_NONE;
    }
    op_recent *r = &p->op_recent[name_id % OP_RECENT];
    const tc_op_shapes *s = &p->shapes;
    if (r->name == name_id && same_shapes(&r->shapes, s)) return r->key;
    uint32_t key = op_key_of(p, name_id, name, name_len);
    if (key == TC_NONE) return TC_NONE;
    r->name = name_id;
    r->key = key;
    r->shapes.n_inputs = s->n_inputs;
    r->shapes.n_types = s->n_types;
    r->shapes.n_concrete = s->n_concrete;
    memcpy(r->shapes.in, s->in, (size_t)s->n_inputs * sizeof s->in[0]);
    memcpy(r->shapes.types, s->types, (size_t)s->n_types * sizeof s->types[0]);
    memcpy(r->shapes.concrete, s->concrete, (size_t)s->n_concrete * sizeof s->concrete[0]);
    return key;
}

/* An nn.Module python_function event: one tc_module_span named without the prefix. */
static void add_module_span(tc_ct_parser *p, const char *name, size_t name_len) {
    event_scratch *ev = &p->ev;
    tc_trace *t = p->t;
    tc_module_span m = {ev->ts_ns, ev->dur_ns, TC_NONE, TC_NONE};
    m.name = tc_strtab_intern(t->strings, name + MODULE_PREFIX_LEN, name_len - MODULE_PREFIX_LEN);
    m.thread = thread_id(p, ev->pid.text, ev->pid.len, ev->tid.text, ev->tid.len);
    if (m.name == TC_NONE || m.thread == TC_NONE || TC_PUSH(t->modules, t->n_modules, t->cap_modules, m)) p->oom = true;
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

/* A kernel's comm class by its name and whether it carries collective args (tc_comm_classify:
 * the catalog, then the args, then the user's patterns), asked once per name and args presence. */
static uint8_t comm_lib_of(tc_ct_parser *p, uint32_t name_id, bool has_args) {
    tc_trace *t = p->t;
    size_t at = 2 * (size_t)name_id + has_args, old = p->comm_of_cap;
    if (at >= old && tc_grow((void **)&p->comm_of, &p->comm_of_cap, at + 1, 1) == 0)
        memset(p->comm_of + old, 0, p->comm_of_cap - old);
    if (at < p->comm_of_cap && p->comm_of[at]) return (uint8_t)(p->comm_of[at] - 1);
    if (!p->comm_ix_ready) {
        tc_comm_index_init(&p->comm_ix);
        p->comm_ix_ready = true;
    }
    uint8_t lib = tc_comm_classify(&p->comm_ix, p->user_comm, tc_trace_str(t, name_id), tc_strtab_len(t->strings, name_id),
                                   has_args);
    if (at < p->comm_of_cap) p->comm_of[at] = (uint8_t)(lib + 1);
    return lib;
}

/* The string id of the event's "Process Group Ranks" text (TC_NONE out of memory). */
static uint32_t intern_ranks(tc_ct_parser *p) {
    event_scratch *ev = &p->ev;
    const grown_text *r = &ev->pg_ranks;
    if (p->last_ranks_id != TC_NONE && r->len == p->last_ranks.len && memcmp(r->text, p->last_ranks.text, r->len) == 0)
        return p->last_ranks_id;
    uint32_t id = tc_strtab_intern(p->t->strings, r->text, r->len);
    p->last_ranks.len = 0;
    p->last_ranks_id = id != TC_NONE && !ct_text_put(&p->last_ranks, r->text, r->len) ? id : TC_NONE;
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
    c.in_splits = ev->in_splits_set ? tc_strtab_intern(t->strings, ev->in_splits.text, ev->in_splits.len) : TC_NONE;
    c.in_nelems = ev->in_nelems;
    c.out_nelems = ev->out_nelems;
    c.group_size = ev->group_size;
    c.seq = ev->seq;
    c.src_rank = ev->src_rank;
    c.dst_rank = ev->dst_rank;
    if (TC_PUSH(t->colls, t->n_colls, t->cap_colls, c)) { p->oom = true; return TC_NONE; }
    return (uint32_t)(t->n_colls - 1);
}

void ct_finish_event(tc_ct_parser *p) {
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
        ct_add_host_span(p, ev->cat == CAT_CPU_OP ? TC_HOST_CPU_OP : TC_HOST_ANNOTATION, name, name_len, ev->ts_ns,
                      ev->dur_ns, ev->pid.text, ev->pid.len, ev->tid.text, ev->tid.len);
        if (ev->cat == CAT_CPU_OP && p->has_dims && !p->oom) { /* its op group's key (issue 34) */
            tc_host_span *h = &t->host[t->n_host - 1];
            if ((h->op_key = op_key_cached(p, h->name, name, name_len)) == TC_NONE) p->oom = true;
        }
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
    case CAT_PYTHON_FUNCTION:
        if (is_module_name(name, name_len)) add_module_span(p, name, name_len);
        return;
    case CAT_KERNEL:
    case CAT_MEMCPY:
    case CAT_MEMSET: {
        tc_gpu_event g;
        memset(&g, 0, sizeof g);
        g.start_ns = ev->ts_ns;
        g.dur_ns = ev->dur_ns;
        size_t strings = tc_strtab_count(t->strings);
        g.name = ev->name_fetched ? tc_strtab_intern_with_hash(t->strings, name, name_len, ev->name_hash)
                                  : tc_strtab_intern(t->strings, name, name_len);
        if (ev->cat == CAT_KERNEL) p->kernel_names_new = tc_strtab_count(t->strings) > strings;
        g.stream = tc_strtab_intern(t->strings, ev->tid.text, ev->tid.len);
        g.correlation = (ev->has_correlation && ev->correlation < TC_NONE) ? (uint32_t)ev->correlation : TC_NONE;
        if (ev->pid.len < SMALL - 1) /* the pid read now (event_scalar): whole, it is not cut */
            ev->pid_numeric = ev->pid.set && ct_parse_int(ev->pid.text, ev->pid.len, &ev->pid_value);
        g.device = (ev->pid_numeric && ev->pid_value >= 0 && ev->pid_value < INT32_MAX) ? (int32_t)ev->pid_value : -1;
        g.kind = ev->cat == CAT_KERNEL ? TC_GPU_KERNEL : ev->cat == CAT_MEMCPY ? TC_GPU_MEMCPY : TC_GPU_MEMSET;
        g.coll = TC_NONE;
        g.copy = (uint8_t)tc_copy_kind_of((tc_gpu_kind)g.kind, name, name_len);
        if (g.kind == TC_GPU_KERNEL) {
            g.is_comm = g.name == TC_NONE ? TC_COMM_NO : comm_lib_of(p, g.name, ev->coll_name.set);
            if (ev->coll_name.set && (g.coll = push_coll_args(p)) == TC_NONE) return;
        }
        if (g.name == TC_NONE || g.stream == TC_NONE || TC_PUSH(t->gpu, t->n_gpu, t->cap_gpu, g)) p->oom = true;
        return;
    }
    case CAT_RUNTIME: { /* with or without a correlation id: a call without one can still hold the host */
        tc_launch l;
        l.correlation = ev->has_correlation && ev->correlation < TC_NONE ? (uint32_t)ev->correlation : TC_NONE;
        l.external_id = (ev->external_id >= 0 && ev->external_id < (int64_t)TC_NONE) ? (uint32_t)ev->external_id : TC_NONE;
        l.ts_ns = ev->ts_ns;
        l.dur_ns = ev->dur_ns;
        l.name = tc_strtab_intern(t->strings, name, name_len);
        l.thread = thread_id(p, ev->pid.text, ev->pid.len, ev->tid.text, ev->tid.len);
        if (l.name == TC_NONE || l.thread == TC_NONE || TC_PUSH(t->launches, t->n_launches, t->cap_launches, l))
            p->oom = true;
        return;
    }
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

/* The end of a pg_config entry: one tc_pg_info when it has a name. */
void ct_finish_pg(tc_ct_parser *p) {
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
