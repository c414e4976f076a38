/* test_bgzf.c: gzip inflated in parallel where it is safe (parsers/bgzf.h). The bundled .gz
 * samples re-packed as BGZF (by the tiny writer below: zlib raw deflate per 64 KiB block, a "BC"
 * extra field with the block's size) take the BGZF path (runs inflated on the pool), load record
 * for record as the sequential parse does, and give the plain file's JSON byte for byte (path and
 * byte counts aside) with -j 1, 2 and 3; the same samples as concatenated plain members take the
 * one stream and agree too; a damaged member, and a BGZF file followed by a plain member, are
 * reported as today with the file name and byte offset, the same with -j1 and -j2. Scratch files
 * go to build/test-bgzf/. */
#include <criterion/criterion.h>
#include "testutil.h"
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "parsers/bgzf.h"
#include "parsers/load.h"
#include "parsers/parallel.h"
#include "parsers/source.h"

#define TMP "build/test-bgzf"
#define BLOCK 65280 /* input bytes per block, as bgzip: the block fits 64 KiB compressed */

static void setup(void) { mkdir("build", 0777); mkdir(TMP, 0777); }

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }

/* One BGZF member of data[0, n) to f. */
static void bgzf_block(FILE *f, const unsigned char *data, size_t n) {
    unsigned char out[70000];
    z_stream z = {0};
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)n;
    z.next_out = out + 18;
    z.avail_out = (uInt)(sizeof out - 26);
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t clen = z.total_out;
    deflateEnd(&z);
    static const unsigned char head[16] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0};
    memcpy(out, head, 16);
    put16(out + 16, (unsigned)(18 + clen + 8 - 1));
    put32(out + 18 + clen, (uint32_t)crc32(0, data, (uInt)n));
    put32(out + 18 + clen + 4, (uint32_t)n);
    cr_assert_eq(fwrite(out, 1, 18 + clen + 8, f), 18 + clen + 8);
}

/* Writes the file `plain` as BGZF to `dst`, with the empty end-of-file member bgzip writes. */
static void write_bgzf(const char *plain, const char *dst) {
    size_t len;
    char *data = tu_read_file(plain, &len);
    cr_assert_not_null(data, "%s", plain);
    FILE *f = fopen(dst, "wb");
    cr_assert_not_null(f);
    for (size_t at = 0; at < len; at += BLOCK)
        bgzf_block(f, (unsigned char *)data + at, len - at < BLOCK ? len - at : BLOCK);
    bgzf_block(f, (const unsigned char *)"", 0);
    fclose(f);
    free(data);
}

/* analyze -jJ of `in` into TMP/tag.jJ.json and .err; its exit status. */
static int analyze(const char *in, const char *tag, int j) {
    return tu_sh(NULL, "%s analyze -q -j%d --json %s/%s.j%d.json '%s' 2>%s/%s.j%d.err", tu_bin(), j, TMP, tag, j, in,
                 TMP, tag, j);
}

/* The JSON of tag with -jJ without the lines that name the file or count its bytes. */
static void strip(const char *tag, int j, const char *to) {
    cr_assert_eq(tu_sh(NULL, "grep -v -e '\"path\"' -e '\"bytes' %s/%s.j%d.json > %s", TMP, tag, j, to), 0);
}

/* Loads path sequentially and in parallel on `threads` threads; asserts BGZF runs were inflated
 * on the pool when bgzf, none otherwise, and the same trace. */
static void check_load(const char *path, int threads, bool bgzf) {
    tc_trace seq, par;
    char msg[600], err[512];
    cr_assert_eq(tc_trace_init(&seq, path), 0);
    cr_assert_eq(tc_load_trace(&seq, path, NULL, NULL, msg, sizeof msg), TC_LOAD_OK, "%s: %s", path, msg);
    cr_assert_eq(tc_trace_init(&par, path), 0);
    tc_source *src = tc_source_open(path, err, sizeof err);
    cr_assert_not_null(src, "%s", err);
    tc_par_info info;
    cr_assert_eq(tc_parallel_load(&par, src, threads, 64 * 1024, NULL, NULL, NULL, &info), TC_PAR_OK, "%s: %s", path,
                 info.why ? info.why : "?");
    cr_assert_eq(info.gzip_runs > 0, bgzf, "%s: %llu BGZF runs", path, (unsigned long long)info.gzip_runs);
    cr_assert_gt(info.pieces, 1, "%s", path);
    par.bytes = info.raw_bytes;
    par.bytes_decoded = info.decoded_bytes;
    tc_source_close(src);
    tu_assert_same_trace(&seq, &par, path);
    tc_trace_free(&seq);
    tc_trace_free(&par);
}

Test(bgzf, finds_members_without_inflating, .init = setup) {
    cr_assert_eq(tu_sh(NULL, "gzip -dc tests/data/alexnet_cuda_sync.json.gz > %s/a.json", TMP), 0);
    write_bgzf(TMP "/a.json", TMP "/a.bgzf.gz");
    FILE *f = fopen(TMP "/a.bgzf.gz", "rb");
    cr_assert_not_null(f);
    int fd = fileno(f);
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    uint64_t size = (uint64_t)st.st_size, at = 0, total = 0;
    cr_assert(tc_bgzf_detect(fd, size));
    size_t plain_len;
    char *plain = tu_read_file(TMP "/a.json", &plain_len);
    char *out = malloc(1 << 20);
    unsigned char *in = malloc(1 << 20);
    for (int runs = 0;; runs++) {
        uint64_t to;
        size_t decoded;
        int rc = tc_bgzf_span(fd, size, at, 1 << 18, &to, &decoded);
        if (rc == 0) { cr_assert_gt(runs, 1); break; }
        cr_assert_eq(rc, 1);
        cr_assert_leq(decoded, 1 << 18);
        cr_assert_eq(tc_bgzf_inflate(fd, at, to, in, out, decoded, false), 0);
        cr_assert_eq(memcmp(out, plain + total, decoded), 0, "run %d differs", runs);
        total += decoded;
        at = to;
    }
    cr_assert_eq(total, plain_len);
    /* a plain gzip file is no BGZF; a flipped byte is damage */
    FILE *g = fopen("tests/data/alexnet_cuda_sync.json.gz", "rb");
    cr_assert(!tc_bgzf_detect(fileno(g), 1000));
    fclose(g);
    uint64_t to;
    size_t decoded;
    cr_assert_eq(tc_bgzf_span(fd, size, 0, 1 << 20, &to, &decoded), 1);
    cr_assert_eq(tc_bgzf_inflate(fd, 0, to, in, out, decoded, false), 0);
    fclose(f);
    free(plain);
    free(out);
    free(in);
}

Test(bgzf, samples_as_bgzf_and_members_give_the_plain_json, .init = setup) {
    glob_t g;
    cr_assert_eq(glob("tests/data/*.json.gz", 0, NULL, &g), 0);
    cr_assert_geq(g.gl_pathc, 4);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char plain[300], bg[300], cat[300], tag[64], a[300], b[300];
        snprintf(plain, sizeof plain, "%s/s%zu.json", TMP, i);
        snprintf(bg, sizeof bg, "%s/s%zu.bgzf.json.gz", TMP, i);
        snprintf(cat, sizeof cat, "%s/s%zu.cat.json.gz", TMP, i);
        cr_assert_eq(tu_sh(NULL, "gzip -dc %s > %s", g.gl_pathv[i], plain), 0);
        write_bgzf(plain, bg);
        /* three plain members: cat a.gz b.gz c.gz */
        cr_assert_eq(tu_sh(NULL, "n=$(wc -c < %s); k=$((n / 3)); (head -c $k %s | gzip; tail -c +$((k + 1)) %s | "
                         "head -c $k | gzip; tail -c +$((2 * k + 1)) %s | gzip) > %s", plain, plain, plain, plain, cat), 0);
        check_load(bg, 2, true);
        check_load(bg, 3, true);
        check_load(cat, 2, false);
        snprintf(tag, sizeof tag, "p%zu", i);
        cr_assert_eq(analyze(plain, tag, 1), 0, "%s", plain);
        snprintf(a, sizeof a, "%s/%s.txt", TMP, tag);
        strip(tag, 1, a);
        const char *ins[] = {bg, cat};
        for (int k = 0; k < 2; k++)
            for (int j = 1; j <= 3; j++) {
                snprintf(tag, sizeof tag, "%s%zu", k ? "c" : "b", i);
                cr_assert_eq(analyze(ins[k], tag, j), 0, "%s -j%d", ins[k], j);
                snprintf(b, sizeof b, "%s/%s.j%d.txt", TMP, tag, j);
                strip(tag, j, b);
                cr_assert(tu_same_file(a, b), "%s -j%d: JSON differs from the plain file's (%s vs %s)", ins[k], j, a, b);
                if (j > 1) {
                    char j1[300], jj[300];
                    snprintf(j1, sizeof j1, "%s/%s.j1.json", TMP, tag);
                    snprintf(jj, sizeof jj, "%s/%s.j%d.json", TMP, tag, j);
                    cr_assert(tu_same_file(j1, jj), "%s: -j1 and -j%d JSON differ", ins[k], j);
                }
            }
    }
    globfree(&g);
}

/* Runs analyze -j1 and -j2 on `in`; the same exit status and messages; returns the -j2 stderr. */
static char *same_messages(const char *in, const char *tag) {
    int r1 = analyze(in, tag, 1), r2 = analyze(in, tag, 2);
    cr_assert_eq(r1, r2, "%s: exit %d with -j1, %d with -j2", in, r1, r2);
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/%s.j1.err", TMP, tag);
    snprintf(b, sizeof b, "%s/%s.j2.err", TMP, tag);
    cr_assert(tu_same_file(a, b), "%s: -j1 and -j2 messages differ", in);
    size_t n;
    char *e = tu_read_file(b, &n);
    cr_assert_not_null(e);
    return e;
}

Test(bgzf, damage_is_reported_as_by_the_stream, .init = setup) {
    cr_assert_eq(tu_sh(NULL, "gzip -dc tests/data/alexnet_cuda_sync.json.gz > %s/d.json", TMP), 0);
    write_bgzf(TMP "/d.json", TMP "/d.bgzf.gz");
    /* garbage inside the deflate data of a member in the middle: whatever it decodes to, the
     * messages are the stream's */
    cr_assert_eq(tu_sh(NULL, "cp %s/d.bgzf.gz %s/bad.gz && n=$(wc -c < %s/bad.gz) && printf '\\377\\377\\377\\377' | "
                     "dd of=%s/bad.gz bs=1 seek=$((n / 2)) conv=notrunc 2>/dev/null", TMP, TMP, TMP, TMP), 0);
    char *e = same_messages(TMP "/bad.gz", "bad");
    cr_assert(strstr(e, TMP "/bad.gz: "), "%s", e);
    free(e);
    /* the CRC-32 of the third member flipped: the JSON is cut where that member starts */
    FILE *f = fopen(TMP "/d.bgzf.gz", "rb");
    cr_assert_not_null(f);
    struct stat st;
    cr_assert_eq(fstat(fileno(f), &st), 0);
    uint64_t to = 0, at = 0;
    size_t decoded;
    for (int m = 0; m < 3; m++, at = to)
        cr_assert_eq(tc_bgzf_span(fileno(f), (uint64_t)st.st_size, at, BLOCK, &to, &decoded), 1);
    fclose(f);
    cr_assert_eq(tu_sh(NULL, "cp %s/d.bgzf.gz %s/crc.gz && printf '\\125' | dd of=%s/crc.gz bs=1 seek=%llu conv=notrunc "
                     "2>/dev/null", TMP, TMP, TMP, (unsigned long long)(to - 8)), 0);
    e = same_messages(TMP "/crc.gz", "crc");
    char want[200];
    snprintf(want, sizeof want, "%s/crc.gz: gzip stream ends early (JSON cut at byte %d ", TMP, 3 * BLOCK);
    cr_assert(strstr(e, want), "%s", e);
    free(e);
    /* a BGZF file with a plain member after it: the stream reads both */
    cr_assert_eq(tu_sh(NULL, "head -c -28 %s/d.bgzf.gz > %s/mixed.gz && printf ' ' | gzip >> %s/mixed.gz", TMP, TMP, TMP), 0);
    e = same_messages(TMP "/mixed.gz", "mixed");
    free(e);
    cr_assert_eq(analyze(TMP "/d.json", "dplain", 1), 0);
    strip("dplain", 1, TMP "/dplain.txt");
    strip("mixed", 2, TMP "/mixed.txt");
    cr_assert(tu_same_file(TMP "/dplain.txt", TMP "/mixed.txt"), "BGZF + a plain member differs from the plain file");
    /* cut short inside a member */
    cr_assert_eq(tu_sh(NULL, "head -c $(($(wc -c < %s/d.bgzf.gz) / 2)) %s/d.bgzf.gz > %s/cut.gz", TMP, TMP, TMP), 0);
    e = same_messages(TMP "/cut.gz", "cut");
    cr_assert(strstr(e, TMP "/cut.gz"), "%s", e);
    free(e);
}

/* Three files on one queue (issue 35 item 3): the same JSON with -j 1, 2 and 3, plain, BGZF and
 * a gzip stream mixed, and three plain files. */
Test(bgzf, three_files_on_one_queue_j1_j2_j3, .init = setup) {
    cr_assert_eq(tu_sh(NULL, "rm -rf %s/three && %s -o %s/three --ranks 3 --steps 30 --clock-offset-us 700 --straggler 2 "
                     ">/dev/null && gzip -kf %s/three/rank2.pt.trace.json", TMP, tu_gen(), TMP, TMP), 0);
    write_bgzf(TMP "/three/rank1.pt.trace.json", TMP "/three/rank1.bgzf.json.gz");
    static const char *sets[] = {
        TMP "/three/rank0.pt.trace.json' '" TMP "/three/rank1.pt.trace.json' '" TMP "/three/rank2.pt.trace.json",
        TMP "/three/rank0.pt.trace.json' '" TMP "/three/rank1.bgzf.json.gz' '" TMP "/three/rank2.pt.trace.json.gz",
    };
    for (int k = 0; k < 2; k++) {
        char tag[32], j1[300], jj[300];
        snprintf(tag, sizeof tag, "three%d", k);
        for (int j = 1; j <= 3; j++) cr_assert_eq(analyze(sets[k], tag, j), 0, "set %d -j%d", k, j);
        for (int j = 2; j <= 3; j++) {
            snprintf(j1, sizeof j1, "%s/%s.j1.json", TMP, tag);
            snprintf(jj, sizeof jj, "%s/%s.j%d.json", TMP, tag, j);
            cr_assert(tu_same_file(j1, jj), "set %d: -j1 and -j%d JSON differ", k, j);
        }
    }
    /* the mixed set gives the plain set's figures (its file names aside) */
    strip("three0", 2, TMP "/three0.txt");
    strip("three1", 2, TMP "/three1.raw");
    cr_assert_eq(tu_sh(NULL, "sed -e 's/rank1[.]bgzf[.]json[.]gz/rank1.pt.trace.json/g' -e 's/[.]json[.]gz/.json/g' "
                     "%s/three1.raw > %s/three1.txt", TMP, TMP), 0);
    cr_assert(tu_same_file(TMP "/three0.txt", TMP "/three1.txt"), "BGZF and gzip inputs change the figures");
}
