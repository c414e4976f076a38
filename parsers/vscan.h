/* vscan.h: the structural index of one chunk the Chrome-trace parser is fed (stage 1, as simdjson's
 * first stage): per 64-byte block, bitmasks of the unescaped quotes and the bytes a plain string
 * must not hold, of whitespace and of the '{' bytes (and which of them lie inside strings), built
 * 64 bytes at a time by one of three paths (scalar, SSE2, AVX2 with PCLMULQDQ), chosen where the
 * parser is created. The queries below let chrome_scan.c jump from token to token instead of
 * reading strings and whitespace byte by byte. No state outside the vs_index a parser owns. */
#ifndef TC_VSCAN_H
#define TC_VSCAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* VS_NONE: no index (the byte scanner alone; for tests). */
typedef enum { VS_NONE, VS_SCALAR, VS_SSE2, VS_AVX2 } vs_path;

/* The stage-1 state at a block's start: whether its first byte is escaped (an odd run of
 * backslashes ended the bytes before) and whether it lies inside a string (0 or ~0). */
typedef struct {
    uint64_t escaped;
    uint64_t in_str;
} vs_carry;

/* The masks of one block kept for the walk. qr: unescaped quotes and refused bytes (a backslash
 * anywhere, a control byte inside a string); ws: space, tab, LF, CR; brace: '{'; brace_in: the '{'
 * bytes inside strings. Bit k is byte 64 * block + k. */
typedef struct {
    uint64_t qr, ws, brace, brace_in;
} vs_block;

/* The index of buf[0, len) (the chunk fed), with the state carried from the chunk before. */
typedef struct {
    vs_block *blocks;
    size_t cap; /* blocks allocated */
    const char *buf;
    size_t len;
    vs_carry carry; /* the state after the last chunk indexed */
    bool plain;     /* no byte of the chunk is refused: every qr bit is a quote */
} vs_index;

/* What the guard in front of the scanner needs of a chunk, from the same pass. */
typedef struct {
    bool backslash;    /* a backslash lies in the chunk */
    unsigned quote_parity; /* number of '"' bytes, mod 2 */
    size_t vtff;       /* offset of the first vertical tab or form feed, or len */
    uint64_t newlines; /* with lines: '\n' bytes in the chunk, and the offset of the last one */
    size_t last_newline;
} vs_summary;

/* All masks of one block, for the tests (vs_block_masks). */
typedef struct {
    uint64_t quote, quote_raw, backslash, escaped, in_str, structural, ws, nl, refused, brace, vtff;
} vs_masks;

/* The path TRACECOST_SCAN names ("scalar", "sse2", "avx2"; env may be NULL), or the best this CPU
 * supports when it names none or one the CPU lacks. */
vs_path vs_choose(const char *env);
bool vs_supported(vs_path path);
/* Indexes buf[0, len) with path (not VS_NONE), starting from ix->carry, and fills *sum (its
 * newlines only with lines). 0, or -1 out of memory (the index is then empty: ix->buf NULL). */
int vs_build(vs_index *ix, vs_path path, const char *buf, size_t len, bool lines, vs_summary *sum);
void vs_free(vs_index *ix);
/* The masks of the 64 bytes at b with path, from *c (updated to the state after them). */
void vs_block_masks(vs_path path, const char *b, vs_carry *c, vs_masks *out);

/* ---- queries (i < end <= ix->len) ------------------------------------------------------------ */

/* The first position >= i and < end whose bit is set in the masks of field `f` (after xor with
 * flip), or end. */
#define VS_SCAN_FIELD(ix, i, end, f, flip) do { \
        size_t w_ = (i) >> 6; \
        uint64_t m_ = ((ix)->blocks[w_].f ^ (flip)) & (~0ull << ((i) & 63)); \
        while (!m_) { \
            if (++w_ << 6 >= (end)) return (end); \
            m_ = (ix)->blocks[w_].f ^ (flip); \
        } \
        size_t at_ = (w_ << 6) + (size_t)__builtin_ctzll(m_); \
        return at_ < (end) ? at_ : (end); \
    } while (0)

/* First unescaped quote or refused byte at or after i (before end), or end. */
static inline size_t vs_next_qr(const vs_index *ix, size_t i, size_t end) { VS_SCAN_FIELD(ix, i, end, qr, 0); }
/* First byte that is not JSON whitespace at or after i (before end), or end. */
static inline size_t vs_skip_ws(const vs_index *ix, size_t i, size_t end) { VS_SCAN_FIELD(ix, i, end, ws, ~0ull); }
/* First '{' at or after i (before end), or end. */
static inline size_t vs_next_brace(const vs_index *ix, size_t i, size_t end) { VS_SCAN_FIELD(ix, i, end, brace, 0); }
static inline bool vs_brace_in_string(const vs_index *ix, size_t at) { return ix->blocks[at >> 6].brace_in >> (at & 63) & 1; }
#endif
