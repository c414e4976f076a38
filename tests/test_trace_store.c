/* test_trace_store.c: the event store's one list (model/trace_arrays.def). Two traces with records
 * in every array and every field set are appended to an empty one: every record survives, value
 * fields byte for byte, every string id names the same text (and each listed string-id field of the
 * second trace is renumbered, its table differing), every index points at the same record; the
 * counters and warnings add up; tc_trace_refs_valid refuses an id or index out of range. The
 * records are made and checked by walking the .def, so a new array or field is covered as listed. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/trace.h"

/* a count per array, by the array's name */
typedef struct {
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) size_t field;
#include "model/trace_arrays.def"
} counts;

static counts counts_of(const tc_trace *t) {
    counts c;
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) c.field = t->count;
#include "model/trace_arrays.def"
    return c;
}

/* The text of string-id field `field` of record k of trace `tag`: even records share their texts
 * with the other trace, odd ones have their own; every sixth has no string (TC_NONE). */
static uint32_t text_id(tc_trace *t, const char *field, size_t k, int tag) {
    if (k % 6 == 5) return TC_NONE;
    char s[96];
    if (k % 2 == 0) snprintf(s, sizeof s, "%s #%zu", field, k % 4);
    else snprintf(s, sizeof s, "%s of trace %d #%zu", field, tag, k);
    uint32_t id = tc_strtab_intern(t->strings, s, strlen(s));
    cr_assert_neq(id, TC_NONE);
    return id;
}

/* fill_<type>(t, r, k, tag, len): record k of trace tag, every field set: values to a byte pattern
 * of k and the field's place, string ids to text_id, indexes to a record of their array (TC_NONE
 * for every fourth record, or when the array is empty). */
#define TC_VALUE(f) memset(&r->f, (int)((k * 31 + (size_t)((char *)&r->f - (char *)r)) & 0xff), sizeof r->f);
#define TC_STRING_ID(f) r->f = text_id(t, #f, k, tag);
#define TC_INDEX(f, array) r->f = (k % 4 == 3 || len->array == 0) ? TC_NONE : (uint32_t)((k * 7) % len->array);
#define TC_TRACE_RECORD(type, fields)                                                              \
    static void fill_##type(tc_trace *t, type *r, size_t k, int tag, const counts *len) {         \
        (void)t; (void)tag; (void)len;                                                             \
        fields                                                                                     \
    }
#include "model/trace_arrays.def"

/* A trace with n + (the array's place) records in each array. The second trace interns texts of
 * its own first, so the texts it shares with the first have other ids there. */
static void make_trace(tc_trace *t, int tag, size_t n) {
    cr_assert_eq(tc_trace_init(t, NULL), 0);
    for (int i = 0; tag == 2 && i < 3; i++) {
        char s[32];
        snprintf(s, sizeof s, "first in trace 2 #%d", i);
        cr_assert_neq(tc_strtab_intern(t->strings, s, strlen(s)), TC_NONE);
    }
    counts len;
    size_t place = 0;
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) len.field = n + place++;
#include "model/trace_arrays.def"
#define TC_TRACE_ARRAY(field, count, cap, type, reserve)                                           \
    t->field = calloc(len.field, sizeof(type));                                                   \
    cr_assert_not_null(t->field);                                                                  \
    t->count = t->cap = len.field;                                                                 \
    for (size_t k = 0; k < len.field; k++) fill_##type(t, &t->field[k], k, tag, &len);
#include "model/trace_arrays.def"
    t->events_total = 100 * (uint64_t)tag;
    t->events_skipped = 10 * (uint64_t)tag;
    t->ops_with_shapes = 3 * (uint64_t)tag;
    t->ops_without_shapes = (uint64_t)tag;
    t->warnings_dropped = (uint64_t)tag;
    tc_trace_warn(t, "warning of trace %d", tag);
    cr_assert(tc_trace_refs_valid(t));
}

#define MAX_IDS 16 /* string-id fields of one record type */

/* check_<type>(name, dst, got, src, want, n, base, renumbered): n records of dst (from got) equal
 * src's (from want) moved by an append after base records; renumbered[i] counts the records whose
 * i-th string-id field has another id in dst than in src. */
#define TC_VALUE(f)                                                                                \
    cr_assert(memcmp(&r->f, &w->f, sizeof r->f) == 0, "%s[%zu].%s changed", name, k, #f);
#define TC_STRING_ID(f)                                                                            \
    cr_assert_eq(r->f == TC_NONE, w->f == TC_NONE, "%s[%zu].%s: TC_NONE not kept", name, k, #f);  \
    cr_assert_str_eq(tc_trace_str(dst, r->f), tc_trace_str(src, w->f), "%s[%zu].%s", name, k, #f); \
    cr_assert_lt(sf, MAX_IDS);                                                                     \
    renumbered[sf++] += r->f != w->f;
#define TC_INDEX(f, array)                                                                         \
    cr_assert_eq(r->f, w->f == TC_NONE ? TC_NONE : w->f + (uint32_t)base->array, "%s[%zu].%s", name, k, #f);
#define TC_TRACE_RECORD(type, fields)                                                              \
    static size_t check_##type(const char *name, const tc_trace *dst, const type *got, const tc_trace *src, \
                               const type *want, size_t n, const counts *base, size_t *renumbered) { \
        (void)dst; (void)src; (void)base; (void)renumbered;                                        \
        size_t n_ids = 0;                                                                          \
        for (size_t k = 0; k < n; k++) {                                                           \
            const type *r = &got[k], *w = &want[k];                                                \
            size_t sf = 0;                                                                         \
            fields                                                                                 \
            n_ids = sf;                                                                            \
        }                                                                                          \
        return n_ids;                                                                              \
    }
#include "model/trace_arrays.def"

Test(trace_store, append_keeps_every_record_and_string) {
    tc_trace a, b, dst;
    make_trace(&a, 1, 5);
    make_trace(&b, 2, 8);
    cr_assert_eq(tc_trace_init(&dst, "joined"), 0);
    uint32_t *scratch = NULL;
    size_t scratch_cap = 0;
    cr_assert_eq(tc_trace_append(&dst, &a, &scratch, &scratch_cap), 0);
    cr_assert_eq(tc_trace_append(&dst, &b, &scratch, &scratch_cap), 0);
    free(scratch);

    counts none, after_a = counts_of(&a);
    memset(&none, 0, sizeof none);
    size_t arrays = 0, id_fields = 0;
#define TC_TRACE_ARRAY(field, count, cap, type, reserve)                                           \
    do {                                                                                           \
        size_t ren_a[MAX_IDS] = {0}, ren_b[MAX_IDS] = {0};                                         \
        cr_assert_eq(dst.count, a.count + b.count, "%s: %zu records", #field, dst.count);         \
        check_##type(#field, &dst, dst.field, &a, a.field, a.count, &none, ren_a);                \
        size_t ids = check_##type(#field, &dst, dst.field + a.count, &b, b.field, b.count, &after_a, ren_b); \
        for (size_t i = 0; i < ids; i++) {                                                         \
            cr_assert_eq(ren_a[i], 0, "%s: the first trace's ids are kept", #field);              \
            cr_assert_gt(ren_b[i], 0, "%s: string-id field %zu is never renumbered", #field, i);  \
        }                                                                                          \
        arrays++;                                                                                  \
        id_fields += ids;                                                                          \
    } while (0);
#include "model/trace_arrays.def"
    cr_assert_geq(arrays, 7);
    cr_assert_geq(id_fields, 9, "gpu name/stream, 5 collective args, op name, device name");
    cr_assert_str_eq(dst.path, "joined");
    cr_assert_eq(dst.events_total, 300);
    cr_assert_eq(dst.events_skipped, 30);
    cr_assert_eq(dst.ops_with_shapes, 9);
    cr_assert_eq(dst.ops_without_shapes, 3);
    cr_assert_eq(dst.warnings_dropped, 3);
    cr_assert_eq(dst.n_warnings, 2);
    cr_assert_str_eq(dst.warnings[0], "warning of trace 1");
    cr_assert_str_eq(dst.warnings[1], "warning of trace 2");
    cr_assert(tc_trace_refs_valid(&dst));
    tc_trace_free(&a);
    tc_trace_free(&b);
    tc_trace_free(&dst);
}

Test(trace_store, append_of_empty_trace_changes_nothing) {
    tc_trace a, empty;
    make_trace(&a, 1, 3);
    cr_assert_eq(tc_trace_init(&empty, NULL), 0);
    counts before = counts_of(&a);
    size_t strings = tc_strtab_count(a.strings);
    uint32_t *scratch = NULL;
    size_t scratch_cap = 0;
    cr_assert_eq(tc_trace_append(&a, &empty, &scratch, &scratch_cap), 0);
    free(scratch);
    counts after = counts_of(&a);
    cr_assert(memcmp(&before, &after, sizeof before) == 0);
    cr_assert_eq(tc_strtab_count(a.strings), strings);
    tc_trace_free(&a);
    tc_trace_free(&empty);
}

Test(trace_store, refs_out_of_range_are_refused) {
    tc_trace t;
    make_trace(&t, 1, 4);
    uint32_t name = t.gpu[0].name;
    t.gpu[0].name = (uint32_t)tc_strtab_count(t.strings);
    cr_assert_not(tc_trace_refs_valid(&t), "a string id past the table");
    t.gpu[0].name = name;
    t.gpu[0].coll = (uint32_t)t.n_colls;
    cr_assert_not(tc_trace_refs_valid(&t), "an index past its array");
    t.gpu[0].coll = TC_NONE;
    t.devices[0].name = TC_NONE;
    cr_assert(tc_trace_refs_valid(&t), "TC_NONE is no reference");
    t.backend = (uint32_t)tc_strtab_count(t.strings) + 1;
    cr_assert_not(tc_trace_refs_valid(&t), "the backend's id too");
    tc_trace_free(&t);
}
