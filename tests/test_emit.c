/* test_emit.c: the per-event path once an event's tokens are known (chrome_callbacks.c
 * emit_tokens, chrome_numbers.c, the strtab's recent names, chrome_events.c's op-key cache): each
 * shortcut gives what the long way gives. Events of every key and value kind read without yajl are
 * compared with the same events read by yajl (fed a byte at a time); plain numbers with the same
 * numbers through the general reader; cached names and op keys with fresh ones. */
#include "model/strtab.h"
#include "model/trace.h"
#include "parsers/chrome_trace.h"
#include "parsers/chrome_trace_int.h"
#include "testutil.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses doc into t whole (chunk 0) or `chunk` bytes at a time; the events read without yajl. */
static uint64_t parse_doc(const char *doc, size_t len, tc_trace *t, size_t chunk) {
    cr_assert_eq(tc_trace_init(t, "emit"), 0);
    tc_ct_parser *p = tc_ct_parser_new(t);
    cr_assert_not_null(p);
    size_t step = chunk ? chunk : len;
    for (size_t off = 0; off < len; off += step)
        cr_assert_eq(tc_ct_parser_feed(p, doc + off, off + step > len ? len - off : step), 0);
    cr_assert_eq(tc_ct_parser_finish(p), 0);
    uint64_t emitted = tc_ct_parser_emitted(p);
    tc_ct_parser_free(p);
    return emitted;
}

/* doc whole (most events read without yajl) and a byte at a time (all by yajl): the same trace. */
static void assert_paths_agree(const char *doc, size_t len, const char *what, uint64_t min_emitted) {
    tc_trace whole, bytewise;
    uint64_t emitted = parse_doc(doc, len, &whole, 0);
    cr_assert_eq(parse_doc(doc, len, &bytewise, 1), 0);
    cr_assert_geq(emitted, min_emitted, "%s: %llu emitted", what, (unsigned long long)emitted);
    tu_assert_same_trace(&whole, &bytewise, what);
    tc_trace_free(&whole);
    tc_trace_free(&bytewise);
}

static const char *const event_keys[] = {"ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "id", "bp", "s"};
static const char *const arg_keys[] = {
    "correlation", "Collective name", "In msg nelems", "In split size", "Out msg nelems", "Group size", "dtype",
    "Process Group Name", "Process Group Description", "Process Group Ranks", "Seq", "Src Rank", "Dst Rank",
    "External id", "Input Dims", "Input type", "Concrete Inputs", "device", "stream", "grid", "Ev Idx"};
/* every value kind, and containers holding keys that matter elsewhere (under a key that is not read,
 * they must change nothing) */
static const char *const values[] = {
    "\"X\"", "\"kernel\"", "\"cpu_op\"", "\"[0, 1]\"", "\"[]\"", "\"\"", "7", "-3", "12.5", "1e3", "0.0004", "2.0005",
    "123456789012345678901", "true", "false", "null", "{}", "[]", "[[2, 3], [4], []]", "[[1, [2]], 5, \"x\"]",
    "[\"float\", \"\", \"c10::BFloat16\"]", "{\"ts\": 5, \"dur\": 9, \"args\": {\"correlation\": 3}}",
    "[{\"name\": \"n\", \"Input Dims\": [[1]]}]", "{\"a\": [true, false, null, {\"b\": {}}]}"};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

Test(emit, every_key_and_value_kind_reads_as_yajl_reads_it) {
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    cr_assert_not_null(f);
    fputs("{\"traceEvents\": [\n", f);
    static const char *const cats[] = {"kernel", "cpu_op", "cuda_runtime", "gpu_memcpy"};
    static const char *const names[] = {"k", "aten::mm", "cudaLaunchKernel", "Memcpy HtoD (Pinned -> Device)"};
    for (size_t c = 0; c < N_OF(cats); c++)
        for (size_t v = 0; v < N_OF(values); v++) {
            for (size_t k = 0; k < N_OF(event_keys); k++) /* the key last (its value wins), then first */
                fprintf(f, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 1, \"tid\": 2, \"ts\": 10, "
                           "\"dur\": 4, \"%s\": %s},\n{\"%s\": %s, \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", "
                           "\"pid\": 1, \"tid\": 2, \"ts\": 10, \"dur\": 4},\n",
                        cats[c], names[c], event_keys[k], values[v], event_keys[k], values[v], cats[c], names[c]);
            for (size_t k = 0; k < N_OF(arg_keys); k++)
                fprintf(f, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 1, \"tid\": 2, \"ts\": 10, "
                           "\"dur\": 4, \"args\": {\"External id\": 3, \"Collective name\": \"allreduce\", "
                           "\"Input Dims\": [[2, 3]], \"%s\": %s, \"correlation\": 9}},\n",
                        cats[c], names[c], arg_keys[k], values[v]);
        }
    /* the last event goes to yajl either way */
    fputs("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"end\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1}\n]}", f);
    cr_assert_eq(fclose(f), 0);
    assert_paths_agree(doc, len, "keys x values", N_OF(cats) * N_OF(values) * 2 * N_OF(event_keys) / 2);
    free(doc);
}

Test(emit, plain_numbers_read_as_the_general_reader_reads_them) {
    /* parse_plain (digits, a '.', at most `scale` digits) must give what the general reader gives:
     * the same text with "e0" after it never takes the plain path. */
    static const char *const fixed[] = {"0", "00", "7", "7000.000", "416.667", "416.6667", "14.", "0.0005", "0.0004",
                                        "999999999999999999", "99999999999999999.9", "9999999999999999.999",
                                        "1234567890123456.789", "18446744073709551615", "9223372036854775807",
                                        "9223372036854775808", "5.5", "12.345", "1.0", "0.5", "3.14159", "", ".",
                                        "1.2.3", "12a", "+5", "-0", "0x10"};
    char buf[64], slow[80];
    unsigned seed = 12345;
    for (int n = 0; n < 20000; n++) {
        const char *s = buf;
        if (n < (int)N_OF(fixed)) s = fixed[n];
        else { /* 1..21 random digits, maybe a '.' inside */
            size_t l = 1 + (seed = seed * 1103515245u + 12345u) % 21, at = 0, dot = (seed >> 8) % (l + 3);
            for (size_t i = 0; i < l; i++) {
                if (i == dot && i > 0) buf[at++] = '.';
                buf[at++] = (char)('0' + ((seed = seed * 1103515245u + 12345u) >> 16) % 10);
            }
            buf[at] = 0;
        }
        size_t len = strlen(s);
        /* digits with at most one '.' after the first: the general reader's answer with "e0" */
        bool plain = len > 0 && s[0] != '.' && strspn(s, "0123456789.") == len && strchr(s, '.') == strrchr(s, '.');
        snprintf(slow, sizeof slow, "%se0", s);
        for (int scale = 0; scale <= 9; scale += 3) {
            int64_t a = -1, b = -1;
            num_state sa = ct_parse_scaled(s, len, scale, &a), sb = ct_parse_scaled(slow, len + 2, scale, &b);
            if (!plain) continue;
            cr_assert_eq(sa, sb, "'%s' scale %d: %d vs %d", s, scale, sa, sb);
            if (sa == NUM_OK) cr_assert_eq(a, b, "'%s' scale %d: %lld vs %lld", s, scale, (long long)a, (long long)b);
        }
        if (!plain) continue;
        int64_t a = -1, b = -1;
        bool oa = ct_parse_int(s, len, &a), ob = ct_parse_int(slow, len + 2, &b);
        cr_assert_eq(oa, ob, "'%s'", s);
        if (oa) cr_assert_eq(a, b, "'%s'", s);
    }
    int64_t v;
    cr_assert_eq(ct_parse_scaled("7000.000", 8, 3, &v), NUM_OK);
    cr_assert_eq(v, 7000000);
    cr_assert_eq(ct_parse_scaled("416.6667", 8, 3, &v), NUM_OK);
    cr_assert_eq(v, 416667, "rounded by the general reader");
    cr_assert_eq(ct_parse_scaled("0.0005", 6, 3, &v), NUM_OK);
    cr_assert_eq(v, 1);
    cr_assert_eq(ct_parse_scaled("14.", 3, 3, &v), NUM_OK);
    cr_assert_eq(v, 14000);
    cr_assert(ct_parse_int("4096", 4, &v) && v == 4096);
    /* bytes next to the digits ('/' and ':'), and high bytes, in a group of four read at once */
    static const char *const bad[] = {"12/4", "12:4", "/234", "123:", "1234567/", "9999:999", "12\x80" "4", "\xff" "234",
                                      "1 34", "12345678:"};
    for (size_t i = 0; i < N_OF(bad); i++) {
        cr_assert_eq(ct_parse_scaled(bad[i], strlen(bad[i]), 3, &v), NUM_NOT_NUMERIC, "'%s'", bad[i]);
        cr_assert(!ct_parse_int(bad[i], strlen(bad[i]), &v), "'%s'", bad[i]);
    }
    cr_assert(ct_parse_int("12345678", 8, &v) && v == 12345678);
    cr_assert(ct_parse_int("900000000000000009", 18, &v) && v == 900000000000000009LL);
    cr_assert_eq(ct_parse_scaled("1234567.891", 11, 3, &v), NUM_OK);
    cr_assert_eq(v, 1234567891);
    cr_assert(ct_parse_int("-12", 3, &v) && v == -12);
}

/* ct_parse_uint64 as it was before its fast path: digits, stopped by a '.', false on any other byte
 * or past 2^64. */
static bool uint64_by_loop(const char *s, size_t len, uint64_t *out) {
    uint64_t v = 0;
    if (len == 0) return false;
    for (size_t i = 0; i < len && s[i] != '.'; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

Test(emit, fixed_point_numbers_read_as_the_general_reader_reads_them) {
    /* parse_fixed (1..15 digits, or for scale 3 digits + '.' + three digits, read a word at a time)
     * must give what the general reader gives, and reject what it rejects: every length from 1 to
     * 20, with and without Kineto's three decimals, and with one byte replaced by a byte that is no
     * digit (next to the digits, high bytes, a second '.'). Each text lies in a buffer of its own
     * length, so that a read past it shows under ASan. */
    static const unsigned char odd[] = {'/', ':', ' ', 0x80, 0xff, 0xb9, 0xc6, 0x00, '.', 'x', 0x3a - 0x30};
    unsigned seed = 777;
    char text[32], slow[40];
    for (int n = 0; n < 60000; n++) {
        size_t l = 1 + (seed = seed * 1103515245u + 12345u) % 20, at = 0;
        bool dot = (seed >> 9) % 2 && l >= 5;
        for (size_t i = 0; i < l; i++)
            text[at++] = dot && i == l - 4 ? '.' : (char)('0' + ((seed = seed * 1103515245u + 12345u) >> 16) % 10);
        bool bad = (seed >> 5) % 3 == 0;
        if (bad) {
            seed = seed * 1103515245u + 12345u;
            text[(seed >> 16) % l] = (char)odd[(seed >> 8) % sizeof odd];
        }
        char *s = malloc(l);
        cr_assert_not_null(s);
        memcpy(s, text, l);
        memcpy(slow, text, l);
        memcpy(slow + l, "e0", 2); /* never the fast paths: the general reader's answer */
        for (int scale = 0; scale <= 3; scale += 3) {
            int64_t a = -1, b = -1;
            num_state sa = ct_parse_scaled(s, l, scale, &a), sb = ct_parse_scaled(slow, l + 2, scale, &b);
            cr_assert_eq(sa, sb, "'%.*s' scale %d: %d vs %d", (int)l, text, scale, sa, sb);
            if (sa == NUM_OK) cr_assert_eq(a, b, "'%.*s' scale %d: %lld vs %lld", (int)l, text, scale, (long long)a, (long long)b);
        }
        int64_t a = -1, b = -1;
        bool oa = ct_parse_int(s, l, &a), ob = ct_parse_int(slow, l + 2, &b);
        cr_assert_eq(oa, ob, "'%.*s'", (int)l, text);
        if (oa) cr_assert_eq(a, b, "'%.*s'", (int)l, text);
        uint64_t u = 1, w = 2;
        bool ua = ct_parse_uint64(s, l, &u), ub = uint64_by_loop(s, l, &w);
        cr_assert_eq(ua, ub, "'%.*s'", (int)l, text);
        if (ua) cr_assert_eq(u, w, "'%.*s'", (int)l, text);
        free(s);
    }
    int64_t v;
    cr_assert_eq(ct_parse_scaled("7600.000", 8, 3, &v), NUM_OK);
    cr_assert_eq(v, 7600000);
    cr_assert_eq(ct_parse_scaled("999999999999999.999", 19, 3, &v), NUM_OK); /* 15 + 3 digits: the widest */
    cr_assert_eq(v, 999999999999999999LL);
    cr_assert_eq(ct_parse_scaled_signed("-416.667", 8, 3, &v), NUM_OK);
    cr_assert_eq(v, -416667);
}

Test(emit, a_kernels_pid_reads_as_its_device_whatever_its_length) {
    /* ct_finish_event reads a GPU event's pid from the text small_set kept (SMALL - 1 bytes at
     * most); a longer pid was read whole when its value came: "000...0001" of 200 digits is
     * device 1 either way, and the last of two pids wins, long or short. Both paths agree. */
    char zeros[203]; /* a string: JSON has no leading zeros */
    memset(zeros, '0', 202);
    zeros[0] = zeros[201] = '"';
    zeros[200] = '1';
    zeros[202] = 0;
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    cr_assert_not_null(f);
    fputs("{\"traceEvents\": [\n", f);
    const char *const pids[][2] = {{zeros, NULL}, {"3", NULL}, {"\"4\"", NULL}, {zeros, "5"}, {"6", zeros},
                                   {"-2", NULL}, {"1e3", NULL}, {"null", NULL}, {"7", "null"}};
    const int32_t device[] = {1, 3, 4, 5, 1, -1, 1000, -1, -1};
    cr_assert_eq(strlen(zeros), 202);
    for (size_t i = 0; i < N_OF(pids); i++) {
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": %s, \"tid\": 7, \"ts\": %zu, "
                   "\"dur\": 1", pids[i][0], 10 + i);
        if (pids[i][1]) fprintf(f, ", \"pid\": %s", pids[i][1]);
        fputs("},\n", f);
    }
    fputs("{\"ph\": \"i\", \"name\": \"end\", \"pid\": 0, \"tid\": 7, \"ts\": 1}\n]}", f);
    cr_assert_eq(fclose(f), 0);
    assert_paths_agree(doc, len, "pids", N_OF(pids));
    tc_trace t;
    parse_doc(doc, len, &t, 0);
    free(doc);
    cr_assert_eq(t.n_gpu, N_OF(pids));
    for (size_t i = 0; i < N_OF(pids); i++) cr_assert_eq(t.gpu[i].device, device[i], "kernel %zu: %d", i, t.gpu[i].device);
    tc_trace_free(&t);
}

Test(emit, names_that_share_a_recent_entry_keep_their_own_ids) {
    /* recent_slot reads a name's length and its first, middle and last bytes: names that differ
     * only elsewhere share an entry and push each other out; each must keep its first id. Short
     * names (1..7 bytes) too. tc_strtab_find never reads the recent entries. */
    tc_strtab *t = tc_strtab_new();
    cr_assert_not_null(t);
    char names[64][48];
    size_t lens[64];
    for (int i = 0; i < 64; i++) {
        if (i < 32) { /* 40 bytes: they differ in bytes 10 and 28 only */
            memset(names[i], 'k', 40);
            names[i][10] = (char)('a' + i % 16);
            names[i][28] = (char)('a' + i / 16);
            lens[i] = 40;
        } else { /* 1..7 bytes: "ab", "aXb"-like, differing in a byte recent_slot may not read */
            size_t l = 1 + (size_t)(i % 7);
            memset(names[i], 'q', l);
            if (l > 4) names[i][1 + i % 2] = (char)('A' + i % 5);
            if (l == 3) names[i][1] = (char)('A' + i % 3);
            lens[i] = l;
        }
        names[i][lens[i]] = 0;
    }
    uint32_t ids[64];
    for (int round = 0; round < 4; round++)
        for (int i = 0; i < 64; i++) {
            int j = round % 2 ? 63 - i : i; /* forward, then backward: every pair evicts the other */
            uint32_t id = tc_strtab_intern(t, names[j], lens[j]);
            cr_assert_neq(id, TC_NONE);
            if (round == 0) ids[j] = id;
            cr_assert_eq(id, ids[j], "name %d round %d", j, round);
            cr_assert_eq(tc_strtab_find(t, names[j], lens[j]), id);
            cr_assert_eq(tc_strtab_len(t, id), lens[j]);
            cr_assert_eq(memcmp(tc_strtab_get(t, id), names[j], lens[j]), 0);
        }
    /* distinct names got distinct ids, duplicates (the short ones repeat) the same */
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++) {
            bool same = lens[i] == lens[j] && memcmp(names[i], names[j], lens[i]) == 0;
            cr_assert_eq(ids[i] == ids[j], same, "%d %d", i, j);
        }
    cr_assert_eq(tc_strtab_intern(t, "", 0), tc_strtab_intern(t, "", 0));
    cr_assert_eq(tc_strtab_len(t, tc_strtab_intern(t, "", 0)), 0);
    tc_strtab_free(t);
}

/* One cpu_op "aten::mm" with these Input Dims, Input type and Concrete Inputs texts (JSON). */
static void put_op(FILE *f, int ts, const char *dims, const char *types, const char *concrete) {
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1, "
               "\"args\": {\"External id\": %d, \"Input Dims\": %s, \"Input type\": %s, \"Concrete Inputs\": %s}},\n",
            ts, ts, dims, types, concrete);
}

static const char *const op_dims[] = {"[[2, 3], [3, 4]]", "[[2, 3], [3, 5]]", "[[2, 3], [3]]", "[[2, 3], [3, 4], []]",
                                      "[[2, 3], [[3], 4]]", "[[2, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]]", "[[2, 3], 7]"};
static const char *const op_types[] = {"[\"float\", \"float\"]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
                                       "[\"float\", \"double\"]", "[\"float\"]"};
static const char *const op_concrete[] = {"[\"\", \"\"]", "[\"\", \"1\"]", "[\"1\", \"\"]", "[]"};

#define N_DIMS N_OF(op_dims)
#define N_TYPES N_OF(op_types)
#define N_CONCRETE N_OF(op_concrete)
#define N_CALLS (N_DIMS * N_TYPES * N_CONCRETE)

/* The combination of the call at position i of round r: each round changes a different part first
 * (the Concrete Inputs, the types, then the dims), so that consecutive calls differ in that part only. */
static void op_combo(int r, size_t i, size_t *d, size_t *y, size_t *c) {
    if (r == 0) { *c = i % N_CONCRETE; *y = i / N_CONCRETE % N_TYPES; *d = i / N_CONCRETE / N_TYPES; }
    else if (r == 1) { *y = i % N_TYPES; *c = i / N_TYPES % N_CONCRETE; *d = i / N_TYPES / N_CONCRETE; }
    else { *d = i % N_DIMS; *y = i / N_DIMS % N_TYPES; *c = i / N_DIMS / N_TYPES; }
}

Test(emit, op_keys_found_again_are_the_keys_found_fresh) {
    /* ops of one name whose shapes, types or Concrete Inputs differ in one part, called in turns
     * (each evicts the other from the op-key cache) and again: each call's op key must read as the
     * key the same call gets in a trace of its own, and a call repeated has its first key. */
    char *doc = NULL;
    size_t len = 0, d, y, c;
    FILE *f = open_memstream(&doc, &len);
    cr_assert_not_null(f);
    fputs("{\"traceEvents\": [\n", f);
    int ts = 1;
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < N_CALLS; i++) {
            op_combo(round, i, &d, &y, &c);
            put_op(f, ts++, op_dims[d], op_types[y], op_concrete[c]);
        }
    fputs("{\"ph\": \"i\", \"name\": \"end\", \"pid\": 0, \"tid\": 7, \"ts\": 1}\n]}", f);
    cr_assert_eq(fclose(f), 0);
    assert_paths_agree(doc, len, "ops", 3 * N_CALLS);
    tc_trace all;
    parse_doc(doc, len, &all, 0);
    free(doc);
    cr_assert_eq(all.n_host, (size_t)(ts - 1));
    uint32_t first[N_DIMS][N_TYPES][N_CONCRETE];
    for (size_t n = 0; n < all.n_host; n++) {
        op_combo((int)(n / N_CALLS), n % N_CALLS, &d, &y, &c);
        uint32_t key = all.host[n].op_key;
        if (n < N_CALLS) first[d][y][c] = key;
        else cr_assert_eq(key, first[d][y][c], "call %zu", n); /* the same call again: the same key */
        char *one = NULL;
        size_t one_len = 0;
        FILE *g = open_memstream(&one, &one_len);
        cr_assert_not_null(g);
        fputs("{\"traceEvents\": [\n", g);
        put_op(g, (int)n + 1, op_dims[d], op_types[y], op_concrete[c]);
        fputs("{\"ph\": \"i\", \"name\": \"end\", \"pid\": 0, \"tid\": 7, \"ts\": 1}\n]}", g);
        cr_assert_eq(fclose(g), 0);
        tc_trace alone;
        parse_doc(one, one_len, &alone, 0);
        free(one);
        cr_assert_eq(alone.n_host, 1);
        const tc_op_key *a = &all.op_keys[key], *b = &alone.op_keys[alone.host[0].op_key];
        cr_assert_str_eq(tc_trace_str(&all, a->shapes), tc_trace_str(&alone, b->shapes), "call %zu", n);
        cr_assert_str_eq(tc_trace_str(&all, a->name), tc_trace_str(&alone, b->name));
        cr_assert_eq(a->dtype, b->dtype, "call %zu", n);
        cr_assert_eq(a->family, b->family);
        cr_assert_eq(a->has_flops, b->has_flops);
        cr_assert_eq(a->has_bytes, b->has_bytes);
        cr_assert(a->flops == b->flops && a->bytes == b->bytes, "call %zu", n);
        tc_trace_free(&alone);
    }
    /* calls that differ have different keys where their dtype or cost differ: the types do */
    cr_assert_neq(first[0][0][0], first[0][1][0]);
    tc_trace_free(&all);
}
