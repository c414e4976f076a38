/* source.c: file/stdin reader with transparent gzip inflate: ISA-L (streaming isal_inflate, about
 * 3x zlib's speed) when built with TC_HAVE_ISAL, zlib otherwise. See source.h.
 * Invariant: `in` holds raw bytes [in_pos, in_len) not yet consumed by the inflater. */
#define _POSIX_C_SOURCE 200809L
#include "source.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    bool z_member_done; /* last inflate reached the end of a gzip member */
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
            s->isal->crc_flag = ISAL_GZIP;
            return s;
        }
#endif
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
            snprintf(err, errlen, "%s: cannot start gzip inflate", path);
            goto fail;
        }
        s->z_ready = true;
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

/* Skips the zero padding that often follows the last gzip member. */
static void skip_zero_padding(tc_source *s) {
    fill(s);
    while (s->in_pos < s->in_len && s->in[s->in_pos] == 0) {
        s->in_pos++;
        if (s->in_pos >= s->in_len) fill(s);
    }
}

static long read_gzip(tc_source *s, char *buf, size_t cap, char *err, size_t errlen) {
    s->z.next_out = (unsigned char *)buf;
    s->z.avail_out = (uInt)cap;
    while (s->z.avail_out > 0) {
        fill(s);
        if (s->in_pos >= s->in_len) {
            /* no more raw input: fine between members, truncation inside one */
            if (!s->z_member_done) s->truncated = true;
            break;
        }
        if (s->z_member_done) {
            /* another gzip member follows (concatenated .gz files): keep going */
            if (inflateReset(&s->z) != Z_OK) break;
            s->z_member_done = false;
        }
        s->z.next_in = s->in + s->in_pos;
        s->z.avail_in = (uInt)(s->in_len - s->in_pos);
        int rc = inflate(&s->z, Z_NO_FLUSH);
        s->in_pos = s->in_len - s->z.avail_in;
        if (rc == Z_STREAM_END) {
            s->z_member_done = true;
            /* trailing zero padding after the last member is common; treat it as the end */
            skip_zero_padding(s);
            if (s->in_pos >= s->in_len && s->raw_eof) break;
            continue;
        }
        if (rc == Z_BUF_ERROR && s->z.avail_in == 0) continue; /* needs more input */
        if (rc != Z_OK) {
            uint64_t at = s->raw_bytes - (uint64_t)(s->in_len - s->in_pos);
            snprintf(s->damage, sizeof s->damage, "%s: corrupt gzip data near compressed byte %llu (%s)", s->path,
                     (unsigned long long)at, s->z.msg ? s->z.msg : "inflate error");
            snprintf(err, errlen, "%s", s->damage);
            s->failed = true;
            s->truncated = true;
            long got = (long)(cap - s->z.avail_out);
            return got > 0 ? got : -1;
        }
    }
    return (long)(cap - s->z.avail_out);
}

#ifdef TC_HAVE_ISAL
/* zlib's words for ISA-L's error codes, so messages read the same with either engine */
static const char *isal_error_text(int rc) {
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid literal/length code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "inflate error";
    }
}

/* Same contract and damage handling as read_gzip (multi-member, zero padding, truncation). */
static long read_gzip_isal(tc_source *s, char *buf, size_t cap, char *err, size_t errlen) {
    struct inflate_state *st = s->isal;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    st->next_out = (uint8_t *)buf;
    st->avail_out = (uint32_t)cap;
    while (st->avail_out > 0) {
        fill(s);
        if (s->in_pos >= s->in_len) {
            if (!s->z_member_done) s->truncated = true;
            break;
        }
        if (s->z_member_done) {
            /* another gzip member follows (concatenated .gz files): keep going */
            isal_inflate_reset(st);
            st->crc_flag = ISAL_GZIP;
            s->z_member_done = false;
        }
        st->next_in = s->in + s->in_pos;
        st->avail_in = (uint32_t)(s->in_len - s->in_pos);
        uint32_t in_before = st->avail_in, out_before = st->avail_out;
        int rc = isal_inflate(st);
        s->in_pos = s->in_len - st->avail_in;
        if (rc >= 0 && st->block_state == ISAL_BLOCK_FINISH) {
            s->z_member_done = true;
            skip_zero_padding(s);
            if (s->in_pos >= s->in_len && s->raw_eof) break;
            continue;
        }
        if (rc == ISAL_DECOMP_OK || rc == ISAL_END_INPUT || rc == ISAL_OUT_OVERFLOW) {
            if (st->avail_in == 0 || st->avail_out == 0) continue;
            if (st->avail_in != in_before || st->avail_out != out_before) continue;
            rc = ISAL_INVALID_BLOCK; /* no progress with input and room left: treat as damage */
        }
        uint64_t at = s->raw_bytes - (uint64_t)(s->in_len - s->in_pos);
        snprintf(err, errlen, "%s: corrupt gzip data near compressed byte %llu (%s)", s->path,
                 (unsigned long long)at, isal_error_text(rc));
        s->failed = true;
        s->truncated = true;
        long got = (long)(cap - st->avail_out);
        return got > 0 ? got : -1;
    }
    return (long)(cap - st->avail_out);
}
#endif

long tc_source_read(tc_source *s, char *buf, size_t cap, char *err, size_t errlen) {
    if (s->failed) { snprintf(err, errlen, "%s", s->damage[0] ? s->damage : "stopped at damaged data"); return -1; }
#ifdef TC_HAVE_ISAL
    long n = s->format != TC_SOURCE_GZIP ? read_plain(s, buf, cap)
             : s->isal ? read_gzip_isal(s, buf, cap, err, errlen) : read_gzip(s, buf, cap, err, errlen);
    if (s->failed && !s->damage[0]) snprintf(s->damage, sizeof s->damage, "%s", err); /* keep the first damage */
#else
    long n = s->format == TC_SOURCE_GZIP ? read_gzip(s, buf, cap, err, errlen) : read_plain(s, buf, cap);
#endif
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
