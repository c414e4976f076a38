/* source.c: file/stdin reader with transparent gzip inflate: ISA-L (streaming isal_inflate, about
 * 3x zlib's speed) when built with TC_HAVE_ISAL, zlib otherwise. See source.h.
 * Invariant: `in` holds raw bytes [in_pos, in_len) not yet consumed by the inflater. */
#define _POSIX_C_SOURCE 200809L
#include "source.h"
#include "base/status.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef TC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define RAW_CHUNK (256u * 1024u)

struct tc_source {
    FILE *f;
    bool owns_file;
    char *path;
    tc_source_format format;
    unsigned char *in;   /* raw input buffer, RAW_CHUNK bytes */
    size_t in_pos, in_len;
    bool raw_eof;
    z_stream z;
    bool z_ready;
#ifdef TC_HAVE_ISAL
    struct inflate_state *isal; /* heap: the state is large */
#endif
    /* gzip container state (read_gzip): the phase of the current member, the header field being
     * read, bytes of it seen (gz_fixed: the fixed header, or the zlib trailer) or left */
    int gz_phase, gz_step;
    unsigned char gz_fixed[10];
    size_t gz_have;
    uint32_t gz_left;
    uint32_t gz_hcrc;       /* CRC-32 of the header bytes so far (for FHCRC) */
    uint32_t gz_crc, gz_isize; /* zlib: CRC-32 and length mod 2^32 of the member's data so far */
    uint64_t gz_members;    /* members read whole */
    bool truncated;
    bool failed;
    char damage[320];    /* the first damage message, repeated by later reads */
    uint64_t raw_bytes, decoded_bytes, file_size;
};

#ifdef TC_HAVE_ISAL
const char *tc_source_gzip_engine(void) { return "isa-l"; }
#else
const char *tc_source_gzip_engine(void) { return "zlib"; }
#endif

static void fill(tc_source *s) {
    if (s->raw_eof) return;
    if (s->in_pos < s->in_len) return;
    size_t n = fread(s->in, 1, RAW_CHUNK, s->f);
    s->in_pos = 0;
    s->in_len = n;
    s->raw_bytes += n;
    if (n < RAW_CHUNK) s->raw_eof = true;
}

static void gz_member_start(tc_source *s);

tc_source *tc_source_open(const char *path, char *err, size_t errlen) {
    tc_source *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "%s: out of memory", path); return NULL; }
    s->in = malloc(RAW_CHUNK);
    s->path = malloc(strlen(path) + 1);
    if (!s->in || !s->path) { snprintf(err, errlen, "%s: out of memory", path); goto fail; }
    strcpy(s->path, path);
    if (strcmp(path, "-") == 0) {
        s->f = stdin;
    } else {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: is a directory", path);
            goto fail;
        }
        s->f = fopen(path, "rb");
        if (!s->f) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); goto fail; }
        s->owns_file = true;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) s->file_size = (uint64_t)st.st_size;
    }
    fill(s);
    if (ferror(s->f)) { snprintf(err, errlen, "%s: read error: %s", path, strerror(errno)); goto fail; }
    if (s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
        s->format = TC_SOURCE_GZIP;
#ifdef TC_HAVE_ISAL
        /* TRACECOST_GZIP=zlib selects zlib (to compare the engines) */
        const char *engine = getenv("TRACECOST_GZIP");
        if (!engine || strcmp(engine, "zlib") != 0) {
            s->isal = malloc(sizeof *s->isal);
            if (!s->isal) { snprintf(err, errlen, "%s: out of memory", path); goto fail; }
            isal_inflate_init(s->isal);
            gz_member_start(s);
            return s;
        }
#endif
        if (inflateInit2(&s->z, -MAX_WBITS) != Z_OK) { /* raw deflate: the container is read here */
            snprintf(err, errlen, "%s: cannot start gzip inflate", path);
            goto fail;
        }
        s->z_ready = true;
        gz_member_start(s);
    }
    return s;
fail:
    tc_source_close(s);
    return NULL;
}

static long read_plain(tc_source *s, char *buf, size_t cap) {
    size_t total = 0;
    if (cap >= RAW_CHUNK && s->in_pos >= s->in_len && !s->raw_eof) {
        /* large read with nothing buffered: straight into the caller's buffer, no second copy */
        size_t n = fread(buf, 1, cap, s->f);
        s->raw_bytes += n;
        if (n < cap) s->raw_eof = true;
        return (long)n;
    }
    while (total < cap) {
        fill(s);
        if (s->in_pos >= s->in_len) break;
        size_t n = s->in_len - s->in_pos;
        if (n > cap - total) n = cap - total;
        memcpy(buf + total, s->in + s->in_pos, n);
        s->in_pos += n;
        total += n;
    }
    return (long)total;
}

/* ---- gzip: members parsed here, their deflate data inflated by the engine ---------------------
 * Both engines get the same raw deflate data and every container rule is checked here, once: the
 * header (magic, method, reserved flags, optional fields of any length, header CRC), what follows
 * a member (zero padding, another member, or data that is not gzip) and where a cut falls. So
 * zlib and ISA-L give the same result and message for every container fault. The trailer (CRC-32
 * and length) is checked here for zlib and by ISA-L itself (ISAL_GZIP_NO_HDR_VER: it reads ahead,
 * so only it knows where the deflate data ends), both as "incorrect data check". */

enum { GZ_HEADER, GZ_DATA, GZ_TRAILER, GZ_AFTER };            /* s->gz_phase */
enum { GH_FIXED, GH_XLEN, GH_EXTRA, GH_NAME, GH_COMMENT, GH_HCRC, GH_DONE }; /* s->gz_step */
#define GZ_FHCRC 0x02
#define GZ_FEXTRA 0x04
#define GZ_FNAME 0x08
#define GZ_FCOMMENT 0x10
#define GZ_RESERVED 0xe0

/* Compressed offset of the next byte not consumed. */
static uint64_t raw_at(const tc_source *s) { return s->raw_bytes - (uint64_t)(s->in_len - s->in_pos); }

/* Records the first damage (message naming the file) and returns what a read returns then: the
 * bytes produced before it, or -1. */
static long gz_damage(tc_source *s, size_t produced, char *err, size_t errlen, const char *fmt, ...)
    TC_FORMAT_LIKE(5, 6);
static long gz_damage(tc_source *s, size_t produced, char *err, size_t errlen, const char *fmt, ...) {
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(s->damage, sizeof s->damage, "%s: %s", s->path, what);
    snprintf(err, errlen, "%s", s->damage);
    s->failed = true;
    s->truncated = true;
    return produced > 0 ? (long)produced : -1;
}

/* The header field after `step` that the flags say is present. */
static int gz_next_field(unsigned flags, int step) {
    if (step < GH_XLEN && (flags & GZ_FEXTRA)) return GH_XLEN;
    if (step < GH_NAME && (flags & GZ_FNAME)) return GH_NAME;
    if (step < GH_COMMENT && (flags & GZ_FCOMMENT)) return GH_COMMENT;
    if (step < GH_HCRC && (flags & GZ_FHCRC)) return GH_HCRC;
    return GH_DONE;
}

static void gz_enter(tc_source *s, int step) { s->gz_step = step; s->gz_have = 0; s->gz_left = 0; }

/* Consumes header bytes of the current member: 1 when the header is complete, 0 when it needs
 * more input, -1 on a fault (*why), -2 when the bytes after a member are not a gzip member. Names,
 * comments and extra fields may be of any length. */
static int gz_read_header(tc_source *s, const char **why) {
    while (s->in_pos < s->in_len) {
        const unsigned char *p = s->in + s->in_pos;
        size_t avail = s->in_len - s->in_pos, used = 1;
        int step = s->gz_step;
        unsigned flags = s->gz_fixed[3];
        switch (step) {
        case GH_FIXED:
            s->gz_fixed[s->gz_have++] = p[0];
            if ((s->gz_have == 1 && p[0] != 0x1f) || (s->gz_have == 2 && p[0] != 0x8b)) {
                *why = "incorrect header check";
                return s->gz_members ? -2 : -1; /* -2: what follows a member is not gzip */
            }
            else if (s->gz_have == 3 && p[0] != 8) *why = "unknown compression method";
            else if (s->gz_have == 4 && (p[0] & GZ_RESERVED)) *why = "unknown header flags set";
            if (*why) return -1;
            if (s->gz_have == 10) gz_enter(s, gz_next_field(s->gz_fixed[3], GH_FIXED));
            break;
        case GH_XLEN: /* two bytes, little-endian: the extra field's length */
            s->gz_left |= (uint32_t)p[0] << (8 * s->gz_have++);
            if (s->gz_have == 2) {
                uint32_t xlen = s->gz_left;
                gz_enter(s, xlen ? GH_EXTRA : gz_next_field(flags, GH_EXTRA));
                s->gz_left = xlen;
            }
            break;
        case GH_EXTRA:
            used = avail < s->gz_left ? avail : s->gz_left;
            s->gz_left -= (uint32_t)used;
            if (!s->gz_left) gz_enter(s, gz_next_field(flags, GH_EXTRA));
            break;
        case GH_NAME: case GH_COMMENT: { /* up to and with a NUL */
            const unsigned char *nul = memchr(p, 0, avail);
            used = nul ? (size_t)(nul - p) + 1 : avail;
            if (nul) gz_enter(s, gz_next_field(flags, step));
            break;
        }
        case GH_HCRC: /* the low 16 bits of the CRC-32 of the header bytes before it */
            s->gz_left |= (uint32_t)p[0] << (8 * s->gz_have++);
            if (s->gz_have == 2) {
                if (s->gz_left != (s->gz_hcrc & 0xffff)) { *why = "header crc mismatch"; return -1; }
                gz_enter(s, GH_DONE);
            }
            break;
        default: break;
        }
        if (step != GH_HCRC) s->gz_hcrc = (uint32_t)crc32(s->gz_hcrc, p, (uInt)used);
        s->in_pos += used;
        if (s->gz_step == GH_DONE) return 1;
    }
    return 0;
}

/* A new member's header follows: its state is reset, and the engine's. */
static void gz_member_start(tc_source *s) {
    s->gz_phase = GZ_HEADER;
    gz_enter(s, GH_FIXED);
    s->gz_hcrc = 0;
    s->gz_crc = 0;
    s->gz_isize = 0;
#ifdef TC_HAVE_ISAL
    if (s->isal) {
        isal_inflate_reset(s->isal);
        s->isal->crc_flag = ISAL_GZIP_NO_HDR_VER; /* the header is read here; ISA-L checks the trailer */
        return;
    }
#endif
    inflateReset(&s->z);
}

#ifdef TC_HAVE_ISAL
/* zlib's words for ISA-L's error codes, so messages read the same with either engine */
static const char *isal_error_text(int rc) {
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid literal/length code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "inflate error";
    }
}

/* Inflates into buf[*out, cap) with ISA-L: 1 at the member's end (trailer checked), 0 to go on,
 * -1 on damage (*why). */
static int gz_inflate_isal(tc_source *s, char *buf, size_t cap, size_t *out, const char **why) {
    struct inflate_state *st = s->isal;
    size_t room = cap - *out < UINT32_MAX ? cap - *out : UINT32_MAX;
    st->next_in = s->in + s->in_pos;
    st->avail_in = (uint32_t)(s->in_len - s->in_pos);
    st->next_out = (uint8_t *)buf + *out;
    st->avail_out = (uint32_t)room;
    uint32_t in_before = st->avail_in;
    int rc = isal_inflate(st);
    s->in_pos = s->in_len - st->avail_in;
    *out += room - st->avail_out;
    if (rc >= 0 && st->block_state == ISAL_BLOCK_FINISH) return 1;
    if (rc == ISAL_DECOMP_OK || rc == ISAL_END_INPUT || rc == ISAL_OUT_OVERFLOW) {
        if (st->avail_in == 0 || st->avail_out == 0 || st->avail_in != in_before || st->avail_out != room) return 0;
        rc = ISAL_INVALID_BLOCK; /* no progress with input and room left: damage */
    }
    *why = isal_error_text(rc);
    return -1;
}
#endif

/* Inflates into buf[*out, cap) with zlib (raw deflate; the CRC-32 and length counted for the
 * trailer): 1 at the end of the member's deflate data, 0 to go on, -1 on damage (*why). */
static int gz_inflate_zlib(tc_source *s, char *buf, size_t cap, size_t *out, const char **why) {
    size_t room = cap - *out < UINT_MAX ? cap - *out : UINT_MAX;
    s->z.next_in = s->in + s->in_pos;
    s->z.avail_in = (uInt)(s->in_len - s->in_pos);
    s->z.next_out = (unsigned char *)buf + *out;
    s->z.avail_out = (uInt)room;
    int rc = inflate(&s->z, Z_NO_FLUSH);
    size_t got = room - s->z.avail_out;
    s->gz_crc = (uint32_t)crc32(s->gz_crc, (const unsigned char *)buf + *out, (uInt)got);
    s->gz_isize += (uint32_t)got;
    s->in_pos = s->in_len - s->z.avail_in;
    *out += got;
    if (rc == Z_STREAM_END) return 1;
    if (rc == Z_OK || (rc == Z_BUF_ERROR && (s->z.avail_in == 0 || s->z.avail_out == 0))) return 0;
    *why = s->z.msg ? s->z.msg : "inflate error";
    return -1;
}

/* zlib's trailer: CRC-32 and length (mod 2^32) of the member's data, little-endian. 1 checked, 0
 * needs more input, -1 mismatch. */
static int gz_trailer(tc_source *s) {
    while (s->in_pos < s->in_len && s->gz_have < 8) s->gz_fixed[s->gz_have++] = s->in[s->in_pos++];
    if (s->gz_have < 8) return 0;
    const unsigned char *t = s->gz_fixed;
    uint32_t crc = t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    uint32_t len = t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
    return crc == s->gz_crc && len == s->gz_isize ? 1 : -1;
}

static long read_gzip(tc_source *s, char *buf, size_t cap, char *err, size_t errlen) {
    size_t out = 0;
    const char *why = NULL;
    while (out < cap) {
        fill(s);
        if (s->in_pos >= s->in_len) { /* no more input: fine after a member, a cut anywhere else */
            if (s->gz_phase != GZ_AFTER) s->truncated = true;
            break;
        }
        uint64_t at = raw_at(s);
        int r;
        switch (s->gz_phase) {
        case GZ_AFTER: /* zero padding, another member, or data that is not gzip */
            while (s->in_pos < s->in_len && s->in[s->in_pos] == 0) s->in_pos++;
            if (s->in_pos < s->in_len) gz_member_start(s);
            continue;
        case GZ_HEADER:
            r = gz_read_header(s, &why);
            if (r > 0) s->gz_phase = GZ_DATA;
            break;
        case GZ_DATA:
#ifdef TC_HAVE_ISAL
            if (s->isal) {
                r = gz_inflate_isal(s, buf, cap, &out, &why);
                if (r > 0) { s->gz_members++; s->gz_phase = GZ_AFTER; }
                if (r < 0) at = raw_at(s);
                break;
            }
#endif
            r = gz_inflate_zlib(s, buf, cap, &out, &why);
            if (r > 0) { s->gz_phase = GZ_TRAILER; s->gz_have = 0; }
            if (r < 0) at = raw_at(s);
            break;
        default: /* GZ_TRAILER */
            r = gz_trailer(s);
            if (r < 0) { why = "incorrect data check"; at = raw_at(s); } /* after the trailer, as ISA-L */
            if (r > 0) { s->gz_members++; s->gz_phase = GZ_AFTER; }
            break;
        }
        if (r == -2) /* a header fault is at the byte consumed last, the one that is wrong */
            return gz_damage(s, out, err, errlen, "compressed byte %llu: the data after the end of the gzip stream is "
                             "not gzip (not read)", (unsigned long long)raw_at(s));
        if (r < 0)
            return gz_damage(s, out, err, errlen, "corrupt gzip data near compressed byte %llu (%s)",
                             (unsigned long long)(s->gz_phase == GZ_HEADER ? raw_at(s) : at), why);
    }
    return (long)out;
}

long tc_source_read(tc_source *s, char *buf, size_t cap, char *err, size_t errlen) {
    if (s->failed) { snprintf(err, errlen, "%s", s->damage[0] ? s->damage : "stopped at damaged data"); return -1; }
    long n = s->format == TC_SOURCE_GZIP ? read_gzip(s, buf, cap, err, errlen) : read_plain(s, buf, cap);
    if (n >= 0 && ferror(s->f)) {
        snprintf(s->damage, sizeof s->damage, "%s: read error: %s", s->path, strerror(errno));
        snprintf(err, errlen, "%s", s->damage);
        s->failed = true;
        s->truncated = true;
        return n > 0 ? n : -1;
    }
    if (n > 0) s->decoded_bytes += (uint64_t)n;
    return n;
}

tc_source_format tc_source_format_of(const tc_source *s) { return s->format; }
uint64_t tc_source_raw_bytes(const tc_source *s) { return s->raw_bytes; }
uint64_t tc_source_decoded_bytes(const tc_source *s) { return s->decoded_bytes; }
bool tc_source_truncated(const tc_source *s) { return s->truncated; }
uint64_t tc_source_file_size(const tc_source *s) { return s->file_size; }

int tc_source_map_fd(const tc_source *s, uint64_t *size) {
    if (s->format != TC_SOURCE_PLAIN || !s->owns_file || s->file_size == 0) return -1;
    *size = s->file_size;
    return fileno(s->f);
}

int tc_source_gzip_fd(const tc_source *s, uint64_t *size, bool *isal) {
    if (s->format != TC_SOURCE_GZIP || !s->owns_file || s->file_size == 0) return -1;
    *size = s->file_size;
#ifdef TC_HAVE_ISAL
    *isal = s->isal != NULL;
#else
    *isal = false;
#endif
    return fileno(s->f);
}

void tc_source_close(tc_source *s) {
    if (!s) return;
    if (s->z_ready) inflateEnd(&s->z);
#ifdef TC_HAVE_ISAL
    free(s->isal);
#endif
    if (s->f && s->owns_file) fclose(s->f);
    free(s->in);
    free(s->path);
    free(s);
}

long tc_pread_full(int fd, void *buf, size_t n, uint64_t off) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (long)got;
}
