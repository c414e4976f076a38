/* bgzf.c: finding BGZF members by their headers and inflating runs of them (see bgzf.h). Each run
 * is inflated member by member with a fresh state, so runs are independent of each other. */
#define _POSIX_C_SOURCE 200809L
#include "bgzf.h"
#include "source.h"
#include <errno.h>
#include <unistd.h>
#include <zlib.h>
#ifdef TC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <stdlib.h>

#define BGZF_HEAD 512u /* bytes of a header read: fixed part, XLEN and the extra field */

static uint32_t le32(const unsigned char *p) {
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The total compressed size of the member whose header is h[0, n) (at most `left` bytes of the
 * file from it), or 0 when it is no BGZF member. */
static uint64_t header_size(const unsigned char *h, size_t n, uint64_t left) {
    if (n < 18 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || !(h[3] & 0x04) || (h[3] & 0xe0)) return 0;
    size_t xlen = h[10] | (size_t)h[11] << 8;
    if (12 + xlen > n) return 0;
    for (size_t i = 12; i + 4 <= 12 + xlen;) { /* subfields: SI1 SI2 SLEN(2) data */
        size_t slen = h[i + 2] | (size_t)h[i + 3] << 8;
        if (h[i] == 'B' && h[i + 1] == 'C' && slen == 2 && i + 6 <= 12 + xlen) {
            uint64_t bsize = (uint64_t)(h[i + 4] | (unsigned)h[i + 5] << 8) + 1;
            return bsize >= 12 + xlen + 8 && bsize <= left ? bsize : 0;
        }
        i += 4 + slen;
    }
    return 0;
}

/* The member's total compressed size from the header at off, or 0 when it is no BGZF member. */
static uint64_t member_size(int fd, uint64_t size, uint64_t off) {
    unsigned char h[BGZF_HEAD];
    size_t want = size - off < BGZF_HEAD ? (size_t)(size - off) : BGZF_HEAD;
    long n = tc_pread_full(fd, h, want, off);
    return n > 0 ? header_size(h, (size_t)n, size - off) : 0;
}

bool tc_bgzf_detect(int fd, uint64_t size) { return size > 0 && member_size(fd, size, 0) > 0; }

int tc_bgzf_span(int fd, uint64_t size, uint64_t from, size_t cap, uint64_t *to, size_t *decoded) {
    uint64_t off = from;
    size_t got = 0;
    while (off < size) {
        uint64_t m = member_size(fd, size, off);
        if (!m) return -1;
        unsigned char t[4];
        if (tc_pread_full(fd, t, 4, off + m - 4) != 4) return -1;
        uint32_t isize = le32(t);
        if (isize > cap - got) {
            if (off == from) return -1; /* a member bigger than a window: not BGZF's 64 KiB */
            break;
        }
        got += isize;
        off += m;
    }
    *to = off;
    *decoded = got;
    return off > from ? 1 : 0;
}

/* One member in[0, n) into out[0, room): header, data, and the trailer's CRC-32 and length
 * checked. The bytes it decoded, or -1 on damage. */
#ifdef TC_HAVE_ISAL
static long member_isal(struct inflate_state *st, const unsigned char *in, size_t n, char *out, size_t room) {
    isal_inflate_init(st);
    st->crc_flag = ISAL_GZIP;
    st->next_in = (uint8_t *)in;
    st->avail_in = (uint32_t)n;
    st->next_out = (uint8_t *)out;
    st->avail_out = (uint32_t)room;
    int r = isal_inflate(st);
    return r >= 0 && st->block_state == ISAL_BLOCK_FINISH && st->avail_in == 0 ? (long)(room - st->avail_out) : -1;
}
#endif

static long member_zlib(z_stream *z, const unsigned char *in, size_t n, char *out, size_t room) {
    if (inflateReset(z) != Z_OK) return -1;
    z->next_in = (unsigned char *)in;
    z->avail_in = (uInt)n;
    z->next_out = (unsigned char *)out;
    z->avail_out = (uInt)room;
    int r = inflate(z, Z_FINISH);
    return r == Z_STREAM_END && z->avail_in == 0 ? (long)(room - z->avail_out) : -1;
}

int tc_bgzf_inflate(int fd, uint64_t from, uint64_t to, unsigned char *in, char *out, size_t decoded, bool isal) {
    size_t n = (size_t)(to - from);
    if (tc_pread_full(fd, in, n, from) != (long)n) return -1;
    z_stream z = {0};
#ifdef TC_HAVE_ISAL
    struct inflate_state *st = isal ? malloc(sizeof *st) : NULL; /* heap: the state is large */
    if (isal && !st) return -1;
#else
    isal = false;
#endif
    if (!isal && inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return -1;
    int rc = 0;
    size_t put = 0;
    for (size_t at = 0; rc == 0 && at < n;) {
        uint64_t m = header_size(in + at, n - at < BGZF_HEAD ? n - at : BGZF_HEAD, n - at);
        if (!m) { rc = -1; break; }
        size_t want = le32(in + at + m - 4);
        if (want > decoded - put) { rc = -1; break; }
        char spare; /* an empty member (BGZF's end mark) still gets room, so no engine stalls */
        char *dst = want ? out + put : &spare;
        size_t room = want ? want : 1;
        long got;
#ifdef TC_HAVE_ISAL
        if (st) got = member_isal(st, in + at, (size_t)m, dst, room);
        else
#endif
            got = member_zlib(&z, in + at, (size_t)m, dst, room);
        if (got != (long)want) rc = -1;
        at += (size_t)m;
        put += want;
    }
    if (put != decoded) rc = -1;
#ifdef TC_HAVE_ISAL
    free(st);
#endif
    if (!isal) inflateEnd(&z);
    return rc;
}
