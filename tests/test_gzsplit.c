/* test_gzsplit.c: gzip files that are not BGZF split at speculative candidates (parsers/gzsplit.h).
 * Generated traces in the four layouts, written here with zlib as deflate with Z_FULL_FLUSH every
 * N KiB, as concatenated members (empty members between), and (when pigz is installed) as `pigz
 * --independent`, are split into runs on the pool with either engine and load record for record
 * as the sequential parse does, and -j1, -j2 and -j3 give the same JSON; Z_SYNC_FLUSH (pigz's
 * dependent blocks: the same flush bytes) and plain `gzip -6` take the one stream; full flushes
 * then sync flushes split, the refused runs inflated again with their window; a run that decodes
 * to more than its buffer, cuts and damage in every run fall back, with the stream's messages and
 * exit status; candidate bytes planted in stored data never change what is decoded. Scratch files
 * go to build/test-gzsplit/. */
#include <criterion/criterion.h>
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "base/pool.h"
#include "parsers/gzsplit.h"
#include "parsers/load.h"
#include "parsers/parallel.h"
#include "parsers/source.h"

#define TMP "build/test-gzsplit"

static void setup(void) { mkdir("build", 0777); mkdir(TMP, 0777); }

/* data[0, n) as one gzip member to f, deflated at `level` with `flush` after every `every` bytes
 * (Z_NO_FLUSH: none). */
static void write_member(FILE *f, const unsigned char *data, size_t n, int level, int flush, size_t every) {
    z_stream z = {0};
    cr_assert_eq(deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, n) + 64 * (n / (every ? every : n + 1) + 2);
    unsigned char *out = malloc(cap);
    cr_assert_not_null(out);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    for (size_t at = 0; at < n;) {
        size_t k = every && n - at > every ? every : n - at;
        z.next_in = (unsigned char *)data + at;
        z.avail_in = (uInt)k;
        at += k;
        cr_assert_eq(deflate(&z, at < n && every ? flush : Z_NO_FLUSH), Z_OK);
    }
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    cr_assert_eq(fwrite(out, 1, z.total_out, f), z.total_out);
    deflateEnd(&z);
    free(out);
}

/* The file plain as `kind` to dst: "ff64"/"ff1m" full flush every 64 KiB / 1 MiB, "sync" sync
 * flush every 64 KiB, "mix" full flushes for the first quarter then sync flushes, "members"
 * 300 KB members, "empties" the same with an empty member after each, "g6" one plain member. */
static void write_kind(const char *plain, const char *kind, const char *dst) {
    size_t len;
    unsigned char *d = (unsigned char *)tu_read_file(plain, &len);
    cr_assert_not_null(d, "%s", plain);
    FILE *f = fopen(dst, "wb");
    cr_assert_not_null(f);
    if (!strcmp(kind, "ff64")) write_member(f, d, len, 6, Z_FULL_FLUSH, 65536);
    else if (!strcmp(kind, "ff1m")) write_member(f, d, len, 6, Z_FULL_FLUSH, 1 << 20);
    else if (!strcmp(kind, "sync")) write_member(f, d, len, 6, Z_SYNC_FLUSH, 65536);
    else if (!strcmp(kind, "g6")) write_member(f, d, len, 6, Z_NO_FLUSH, 0);
    else if (!strcmp(kind, "mix")) {
        /* one member: full flushes, then sync flushes (the runs after refuse a fresh state) */
        z_stream z = {0};
        cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
        size_t cap = deflateBound(&z, len) + 64 * (len / 65536 + 2);
        unsigned char *out = malloc(cap);
        z.next_out = out;
        z.avail_out = (uInt)cap;
        for (size_t at = 0; at < len; at += 65536) {
            z.next_in = d + at;
            z.avail_in = (uInt)(len - at < 65536 ? len - at : 65536);
            cr_assert_eq(deflate(&z, at < len / 4 ? Z_FULL_FLUSH : Z_SYNC_FLUSH), Z_OK);
        }
        cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
        fwrite(out, 1, z.total_out, f);
        deflateEnd(&z);
        free(out);
    } else {
        bool empties = !strcmp(kind, "empties");
        cr_assert(empties || !strcmp(kind, "members"), "%s", kind);
        for (size_t at = 0; at < len; at += 300000) {
            write_member(f, d + at, len - at < 300000 ? len - at : 300000, 6, Z_NO_FLUSH, 0);
            if (empties) write_member(f, (const unsigned char *)"", 0, 6, Z_NO_FLUSH, 0);
        }
    }
    fclose(f);
    free(d);
}

/* Loads path sequentially and on `threads` threads; asserts it was split (or not) and the same
 * trace. */
static void check_load(const char *path, int threads, bool split) {
    tc_trace seq, par;
    char msg[600], err[512];
    cr_assert_eq(tc_trace_init(&seq, path), 0);
    cr_assert_eq(tc_load_trace(&seq, path, NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s: %s", path, msg);
    cr_assert_eq(tc_trace_init(&par, path), 0);
    tc_source *src = tc_source_open(path, err, sizeof err);
    cr_assert_not_null(src, "%s", err);
    tc_par_info info;
    cr_assert_eq(tc_parallel_load(&par, src, threads, 0, NULL, NULL, NULL, &info), TC_PAR_OK, "%s: %s", path,
                 info.why ? info.why : "?");
    cr_assert_eq(info.gzip_split > 1, split, "%s: %llu runs split", path, (unsigned long long)info.gzip_split);
    cr_assert_eq(info.gzip_runs, 0);
    par.bytes = info.raw_bytes;
    par.bytes_decoded = info.decoded_bytes;
    tc_source_close(src);
    tu_assert_same_trace(&seq, &par, path);
    tc_trace_free(&seq);
    tc_trace_free(&par);
}

/* analyze -jJ of `in` into TMP/tag.jJ.json and .err; its exit status. */
static int analyze(const char *in, const char *tag, int j) {
    return tu_sh(NULL, "%s analyze -q -j%d --json %s/%s.j%d.json '%s' 2>%s/%s.j%d.err", tu_bin(), j, TMP, tag, j, in,
                 TMP, tag, j);
}

/* The JSON with -j1, -j2 and -j3 of in: the same, and the plain file's (path and byte counts aside). */
static void same_json(const char *in, const char *plain_txt, const char *tag) {
    char a[300], b[300];
    for (int j = 1; j <= 3; j++) {
        cr_assert_eq(analyze(in, tag, j), 0, "%s -j%d", in, j);
        snprintf(a, sizeof a, "%s/%s.j1.json", TMP, tag);
        snprintf(b, sizeof b, "%s/%s.j%d.json", TMP, tag, j);
        cr_assert(tu_same_file(a, b), "%s: -j1 and -j%d JSON differ", in, j);
    }
    cr_assert_eq(tu_sh(NULL, "grep -v -e '\"path\"' -e '\"bytes' %s/%s.j2.json > %s/%s.txt", TMP, tag, TMP, tag), 0);
    snprintf(b, sizeof b, "%s/%s.txt", TMP, tag);
    cr_assert(tu_same_file(plain_txt, b), "%s: JSON differs from the plain file's", in);
}

/* A generated trace in `layout` at TMP/dir/rank0.pt.trace.json and its stripped JSON. */
static void gen(const char *dir, const char *layout, char *plain, size_t plen, char *txt, size_t tlen) {
    cr_assert_eq(tu_sh(NULL, "rm -rf %s/%s && %s -o %s/%s --ranks 1 --steps 120 --layout %s >/dev/null", TMP, dir,
                       tu_gen(), TMP, dir, layout), 0);
    const char *name = dir;
    snprintf(plain, plen, "%s/%s/rank0.pt.trace.json", TMP, name);
    snprintf(txt, tlen, "%s/%s.plain.txt", TMP, name);
    char tag[64];
    snprintf(tag, sizeof tag, "%s.plain", name);
    cr_assert_eq(analyze(plain, tag, 1), 0, "%s", plain);
    cr_assert_eq(tu_sh(NULL, "grep -v -e '\"path\"' -e '\"bytes' %s/%s.j1.json > %s", TMP, tag, txt), 0);
}

static void layout_case(const char *layout) {
    char plain[300], txt[300], dst[300], tag[64];
    gen(layout, layout, plain, sizeof plain, txt, sizeof txt);
    static const char *split_kinds[] = {"ff64", "ff1m", "members", "empties", "mix"};
    for (size_t i = 0; i < sizeof split_kinds / sizeof *split_kinds; i++) {
        snprintf(dst, sizeof dst, "%s/%s.%s.gz", TMP, layout, split_kinds[i]);
        write_kind(plain, split_kinds[i], dst);
        unsetenv("TRACECOST_GZIP");
        check_load(dst, 2, true);
        check_load(dst, 3, true);
        setenv("TRACECOST_GZIP", "zlib", 1);
        check_load(dst, 2, true);
        unsetenv("TRACECOST_GZIP");
        snprintf(tag, sizeof tag, "%s.%s", layout, split_kinds[i]);
        same_json(dst, txt, tag);
    }
    static const char *stream_kinds[] = {"sync", "g6"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(dst, sizeof dst, "%s/%s.%s.gz", TMP, layout, stream_kinds[i]);
        write_kind(plain, stream_kinds[i], dst);
        check_load(dst, 2, false);
        snprintf(tag, sizeof tag, "%s.%s", layout, stream_kinds[i]);
        same_json(dst, txt, tag);
    }
    if (tu_sh(NULL, "command -v pigz >/dev/null") == 0) {
        snprintf(dst, sizeof dst, "%s/%s.pigzi.gz", TMP, layout);
        cr_assert_eq(tu_sh(NULL, "pigz -i -c %s > %s", plain, dst), 0);
        check_load(dst, 2, true);
        snprintf(tag, sizeof tag, "%s.pigzi", layout);
        same_json(dst, txt, tag);
        snprintf(dst, sizeof dst, "%s/%s.pigz.gz", TMP, layout);
        cr_assert_eq(tu_sh(NULL, "pigz -c %s > %s", plain, dst), 0);
        check_load(dst, 2, false);
    }
}

Test(gzsplit, kineto_every_kind, .init = setup, .timeout = 600) { layout_case("kineto"); }
Test(gzsplit, oneline_every_kind, .init = setup, .timeout = 600) { layout_case("oneline"); }
Test(gzsplit, indent2sorted_every_kind, .init = setup, .timeout = 600) { layout_case("indent2sorted"); }
Test(gzsplit, indent4_every_kind, .init = setup, .timeout = 600) { layout_case("indent4"); }

/* The run inflater: a run after a sync flush is refused with a fresh state, inflated with its
 * window; one after a full flush is not refused. */
Test(gzsplit, sync_flush_refused_full_flush_accepted, .init = setup) {
    unsigned char data[200000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)"abcdefghij"[(i * 7 + i / 1000) % 10];
    for (int full = 0; full < 2; full++) {
        z_stream z = {0};
        cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
        static unsigned char out[300000];
        z.next_out = out;
        z.avail_out = sizeof out;
        z.next_in = data;
        z.avail_in = 100000;
        cr_assert_eq(deflate(&z, full ? Z_FULL_FLUSH : Z_SYNC_FLUSH), Z_OK);
        size_t cut = z.total_out;
        cr_assert_eq(memcmp(out + cut - 4, "\0\0\xff\xff", 4), 0);
        z.avail_in = 100000;
        cr_assert_eq(deflate(&z, Z_SYNC_FLUSH), Z_OK);
        size_t end = z.total_out;
        deflateEnd(&z);
        static char got[300000];
        size_t len;
        for (int isal = 0; isal < 2; isal++) {
            cr_assert_eq(tc_gzsplit_inflate(out, cut, false, NULL, 0, got, sizeof got, isal, &len), 0);
            cr_assert_eq(len, 100000);
            cr_assert_eq(memcmp(got, data, len), 0);
            int rc = tc_gzsplit_inflate(out + cut, end - cut, false, NULL, 0, got, sizeof got, isal, &len);
            cr_assert_eq(rc, full ? 0 : 1, "full %d isal %d: rc %d", full, isal, rc);
            cr_assert_eq(tc_gzsplit_inflate(out + cut, end - cut, false, data + 100000 - 32768, 32768, got, sizeof got,
                                            isal, &len), 0);
            cr_assert_eq(len, 100000);
            cr_assert_eq(memcmp(got, data + 100000, len), 0);
            /* a cap too small: overflow; a range that ends inside a block: doubt */
            cr_assert_eq(tc_gzsplit_inflate(out, cut, false, NULL, 0, got, 5000, isal, &len), 2);
            cr_assert_eq(tc_gzsplit_inflate(out, cut - 7, false, NULL, 0, got, sizeof got, isal, &len), 3);
        }
    }
}

/* Stored (level 0) data with candidate bytes planted in it (an empty stored block's bytes, gzip
 * headers) and full flushes: whatever the split decides, it never hands out other bytes. */
Test(gzsplit, planted_candidates_never_change_the_bytes, .init = setup) {
    size_t n = 3u << 20;
    unsigned char *d = malloc(n);
    cr_assert_not_null(d);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) { x = x * 1103515245u + 12345u; d[i] = (unsigned char)(x >> 24); }
    static const unsigned char plants[][10] = {{1, 0, 0, 0xff, 0xff}, {0, 0, 0, 0xff, 0xff},
                                               {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}};
    for (size_t at = 1000; at + 10 < n; at += 7919) memcpy(d + at, plants[at % 3], 10);
    for (int level = 0; level < 2; level++) {
        FILE *f = fopen(TMP "/planted.gz", "wb");
        cr_assert_not_null(f);
        write_member(f, d, n, level, Z_FULL_FLUSH, 100000);
        fclose(f);
        f = fopen(TMP "/planted.gz", "rb");
        struct stat st;
        cr_assert_eq(fstat(fileno(f), &st), 0);
        tc_gzsplit *g = tc_gzsplit_open(fileno(f), (uint64_t)st.st_size, false);
        if (g) {
            tc_pool *pool = tc_pool_new(2);
            tc_gzsplit_start(g, pool);
            size_t got = 0, len;
            bool failed = false;
            const char *b;
            for (uint64_t k = 0; (b = tc_gzsplit_get(g, k, k, &len, &failed)); k++) {
                cr_assert_leq(got + len, n);
                cr_assert_eq(memcmp(b, d + got, len), 0, "level %d run %llu differs", level, (unsigned long long)k);
                got += len;
            }
            cr_assert(failed || got == n, "level %d: %zu of %zu bytes without a failure", level, got, n);
            tc_gzsplit_close(g);
            tc_pool_free(pool);
        }
        fclose(f);
    }
    free(d);
}

/* Runs analyze -j1 and -j2 on `in`: the same exit status and messages. */
static void same_messages(const char *in, const char *tag) {
    int r1 = analyze(in, tag, 1), r2 = analyze(in, tag, 2);
    cr_assert_eq(r1, r2, "%s: exit %d with -j1, %d with -j2", in, r1, r2);
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/%s.j1.err", TMP, tag);
    snprintf(b, sizeof b, "%s/%s.j2.err", TMP, tag);
    cr_assert(tu_same_file(a, b), "%s: -j1 and -j2 messages differ", in);
}

/* Cuts and flipped bytes in every run, CRC-32s and lengths flipped, a run too big for its buffer:
 * the stream's messages; the big run's file parses as the plain one. */
Test(gzsplit, damage_cuts_and_big_runs_fall_back, .init = setup, .timeout = 600) {
    char plain[300], txt[300];
    gen("dmg", "kineto", plain, sizeof plain, txt, sizeof txt);
    write_kind(plain, "ff64", TMP "/d.gz");
    write_kind(plain, "members", TMP "/m.gz");
    struct stat st;
    cr_assert_eq(stat(TMP "/d.gz", &st), 0);
    for (int i = 1; i < 12; i++) {
        char tag[32];
        long at = (long)st.st_size * i / 12;
        cr_assert_eq(tu_sh(NULL, "head -c %ld %s/d.gz > %s/cut.gz", at, TMP, TMP), 0);
        snprintf(tag, sizeof tag, "cut%d", i);
        same_messages(TMP "/cut.gz", tag);
        cr_assert_eq(tu_sh(NULL, "cp %s/d.gz %s/bad.gz && printf '\\252\\125' | dd of=%s/bad.gz bs=1 seek=%ld "
                           "conv=notrunc 2>/dev/null", TMP, TMP, TMP, at), 0);
        snprintf(tag, sizeof tag, "bad%d", i);
        same_messages(TMP "/bad.gz", tag);
    }
    /* the final trailer's CRC-32 and length; a middle member's CRC-32 */
    cr_assert_eq(tu_sh(NULL, "cp %s/d.gz %s/crc.gz && printf '\\125' | dd of=%s/crc.gz bs=1 seek=%ld conv=notrunc "
                       "2>/dev/null", TMP, TMP, TMP, (long)st.st_size - 8), 0);
    same_messages(TMP "/crc.gz", "crc");
    cr_assert_eq(tu_sh(NULL, "cp %s/d.gz %s/len.gz && printf '\\125' | dd of=%s/len.gz bs=1 seek=%ld conv=notrunc "
                       "2>/dev/null", TMP, TMP, TMP, (long)st.st_size - 2), 0);
    same_messages(TMP "/len.gz", "len");
    cr_assert_eq(tu_sh(NULL, "cp %s/m.gz %s/mcrc.gz && python3 -c \"import sys;d=open('%s/mcrc.gz','rb').read();"
                       "i=d.find(b'\\x1f\\x8b\\x08',len(d)//2);b=bytearray(d);b[i-8]^=0x55;"
                       "open('%s/mcrc.gz','wb').write(b)\"", TMP, TMP, TMP, TMP), 0);
    same_messages(TMP "/mcrc.gz", "mcrc");
    cr_assert_eq(tu_sh(NULL, "cp %s/m.gz %s/tail.gz && printf 'garbage' >> %s/tail.gz", TMP, TMP, TMP), 0);
    same_messages(TMP "/tail.gz", "tail");
    /* 8 MiB of spaces between two events, flushed nowhere inside: a run decodes past its buffer */
    size_t len;
    char *d = tu_read_file(plain, &len);
    cr_assert_not_null(d);
    char *comma = strstr(d + len / 3, "},");
    cr_assert_not_null(comma);
    size_t head = (size_t)(comma - d) + 2, pad = 8u << 20;
    unsigned char *big = malloc(len + pad);
    memcpy(big, d, head);
    memset(big + head, ' ', pad);
    memcpy(big + head + pad, d + head, len - head);
    FILE *f = fopen(TMP "/big.json", "wb");
    fwrite(big, 1, len + pad, f);
    fclose(f);
    /* one member: head with full flushes, the spaces and the rest after one full flush */
    f = fopen(TMP "/big.gz", "wb");
    z_stream z = {0};
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, len + pad) + 64 * ((len + pad) / 65536 + 2);
    unsigned char *out = malloc(cap);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    for (size_t at = 0; at < len + pad;) {
        size_t k = at >= head && at < head + pad ? head + pad - at : 65536;
        if (k > len + pad - at) k = len + pad - at;
        z.next_in = big + at;
        z.avail_in = (uInt)k;
        at += k;
        cr_assert_eq(deflate(&z, Z_FULL_FLUSH), Z_OK);
    }
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    fwrite(out, 1, z.total_out, f);
    fclose(f);
    deflateEnd(&z);
    char err[512];
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, NULL), 0);
    tc_source *src = tc_source_open(TMP "/big.gz", err, sizeof err);
    cr_assert_not_null(src);
    tc_par_info info;
    cr_assert_eq(tc_parallel_load(&t, src, 2, 0, NULL, NULL, NULL, &info), TC_PAR_FALLBACK);
    tc_source_close(src);
    tc_trace_free(&t);
    cr_assert_eq(analyze(TMP "/big.json", "bigplain", 1), 0);
    cr_assert_eq(tu_sh(NULL, "grep -v -e '\"path\"' -e '\"bytes' %s/bigplain.j1.json > %s/bigplain.txt", TMP, TMP), 0);
    same_json(TMP "/big.gz", TMP "/bigplain.txt", "big");
    free(out);
    free(big);
    free(d);
}
