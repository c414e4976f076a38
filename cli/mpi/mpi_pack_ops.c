/* mpi_pack_ops.c: the flat encoding of one rank's op parts (analyzer/op_groups.h tc_op_parts) in a
 * rank's results message (tc_rank_result_pack): every member, strings owned on both sides. */
#include "mpi_pack.h"
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tc_op_part_group) == 2 * sizeof(char *) + 8 + 2 * 8 + 3 * 8 + sizeof(int64_t *),
               "a tc_op_part_group member tc_op_parts_pack does not ship");
_Static_assert(sizeof(tc_op_part_parent) == 8 + sizeof(char *) + 8, "a tc_op_part_parent member tc_op_parts_pack does not ship");

void tc_op_parts_pack(tc_buf *b, const tc_op_parts *p) {
    tc_buf_u64(b, (uint64_t)p->has | (uint64_t)p->has_modules << 1 | (uint64_t)p->module_source << 2);
    tc_buf_i64(b, p->compute_ns);
    tc_buf_i64(b, p->attributed_ns);
    tc_buf_i64(b, p->unknown_shapes_ns);
    tc_buf_u64(b, p->n_groups);
    for (size_t i = 0; i < p->n_groups; i++) {
        const tc_op_part_group *g = &p->groups[i];
        tc_buf_str(b, g->op);
        tc_buf_str(b, g->shapes);
        tc_buf_i64(b, g->dtype);
        tc_buf_u64(b, (uint64_t)g->family | (uint64_t)g->has_flops << 8 | (uint64_t)g->has_bytes << 9);
        tc_buf_f64(b, g->flops);
        tc_buf_f64(b, g->bytes);
        tc_buf_i64(b, g->count);
        tc_buf_i64(b, g->kernels);
        tc_buf_i64(b, g->gpu_ns);
        tc_buf_put(b, g->durs, (size_t)g->kernels * sizeof *g->durs);
    }
    tc_buf_u64(b, p->n_modules);
    for (size_t i = 0; i < p->n_modules; i++) {
        tc_buf_str(b, p->modules[i].path);
        tc_buf_i64(b, p->modules[i].self_ns);
    }
    tc_buf_u64(b, p->n_fusions);
    for (size_t i = 0; i < p->n_fusions; i++) {
        const tc_fusion_row *f = &p->fusions[i];
        tc_buf_str(b, f->kernels);
        tc_buf_u64(b, f->length);
        tc_buf_i64(b, f->occurrences);
        tc_buf_i64(b, f->gpu_ns);
    }
    tc_buf_u64(b, p->n_parents);
    for (size_t i = 0; i < p->n_parents; i++) {
        tc_buf_u64(b, p->parents[i].group);
        tc_buf_str(b, p->parents[i].op);
        tc_buf_i64(b, p->parents[i].calls);
    }
}

/* A count read from b that the bytes left can hold (each entry at least 8 bytes); else b->bad. */
static size_t get_count(tc_buf *b) {
    uint64_t n = tc_buf_get_u64(b);
    if (b->bad || n > (b->n - b->off) / 8) { b->bad = true; return 0; }
    return (size_t)n;
}

static void get_group(tc_buf *b, tc_op_part_group *g) {
    g->op = tc_buf_get_str(b);
    g->shapes = tc_buf_get_str(b);
    g->dtype = (int8_t)tc_buf_get_i64(b);
    uint64_t f = tc_buf_get_u64(b);
    g->family = (uint8_t)(f & 0xff);
    g->has_flops = (f >> 8) & 1;
    g->has_bytes = (f >> 9) & 1;
    g->flops = tc_buf_get_f64(b);
    g->bytes = tc_buf_get_f64(b);
    g->count = tc_buf_get_i64(b);
    g->kernels = tc_buf_get_i64(b);
    g->gpu_ns = tc_buf_get_i64(b);
    if (!g->op || g->kernels < 0 || (uint64_t)g->kernels > (b->n - b->off) / 8 || g->family >= TC_OPF_COUNT) {
        b->bad = true;
        return;
    }
    g->durs = malloc(((size_t)g->kernels ? (size_t)g->kernels : 1) * sizeof *g->durs);
    if (!g->durs || !tc_buf_get(b, g->durs, (size_t)g->kernels * sizeof *g->durs)) b->bad = true;
}

int tc_op_parts_unpack(tc_buf *b, tc_op_parts *p) {
    memset(p, 0, sizeof *p);
    uint64_t flags = tc_buf_get_u64(b);
    p->has = flags & 1;
    p->has_modules = (flags >> 1) & 1;
    p->module_source = (uint8_t)((flags >> 2) & 3);
    p->compute_ns = tc_buf_get_i64(b);
    p->attributed_ns = tc_buf_get_i64(b);
    p->unknown_shapes_ns = tc_buf_get_i64(b);
    size_t n = get_count(b);
    if (!b->bad && !(p->groups = calloc(n ? n : 1, sizeof *p->groups))) b->bad = true;
    for (size_t i = 0; i < n && !b->bad; i++) {
        get_group(b, &p->groups[i]);
        p->n_groups = i + 1; /* freed with the parts, even when damaged */
    }
    n = b->bad ? 0 : get_count(b);
    if (!b->bad && !(p->modules = calloc(n ? n : 1, sizeof *p->modules))) b->bad = true;
    for (size_t i = 0; i < n && !b->bad; i++) {
        p->modules[i].path = tc_buf_get_str(b);
        p->modules[i].self_ns = tc_buf_get_i64(b);
        p->n_modules = i + 1;
    }
    n = b->bad ? 0 : get_count(b);
    if (!b->bad && !(p->fusions = calloc(n ? n : 1, sizeof *p->fusions))) b->bad = true;
    for (size_t i = 0; i < n && !b->bad; i++) {
        tc_fusion_row *f = &p->fusions[i];
        f->kernels = tc_buf_get_str(b);
        f->length = (uint32_t)tc_buf_get_u64(b);
        f->occurrences = tc_buf_get_i64(b);
        f->gpu_ns = tc_buf_get_i64(b);
        p->n_fusions = i + 1;
        if (!f->kernels) b->bad = true;
    }
    n = b->bad ? 0 : get_count(b);
    if (!b->bad && !(p->parents = calloc(n ? n : 1, sizeof *p->parents))) b->bad = true;
    for (size_t i = 0; i < n && !b->bad; i++) {
        tc_op_part_parent *pp = &p->parents[i];
        pp->group = tc_buf_get_u64(b);
        pp->op = tc_buf_get_str(b); /* NULL: top level */
        pp->calls = tc_buf_get_i64(b);
        p->n_parents = i + 1;
        if (pp->group >= p->n_groups) b->bad = true;
    }
    p->cap_groups = p->n_groups;
    p->cap_modules = p->n_modules;
    p->cap_fusions = p->n_fusions;
    p->cap_parents = p->n_parents;
    if (b->bad) { tc_op_parts_free(p); return -1; }
    return 0;
}
