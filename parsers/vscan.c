/* vscan.c: stage 1 of the scanner before yajl (vscan.h): one pass over a chunk, 64 bytes at a
 * time, classifies its bytes (quote, backslash, '{', whitespace, control byte, vertical tab / form
 * feed), finds the escaped bytes (an odd run of backslashes escapes the byte after it; the run's
 * parity is carried across blocks and chunks), the in-string mask (the prefix XOR of the unescaped
 * quotes: a carry-less multiply by all ones where the CPU has PCLMULQDQ, a shift-xor cascade
 * otherwise) and from them the masks chrome_scan.c walks. Three paths give the same masks: scalar
 * (any CPU), SSE2 (every x86-64) and AVX2 + PCLMULQDQ (chosen at run time; compiled with function
 * target attributes, so the build needs no -m flags). */
#include "parsers/vscan.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#define VS_X86 1
#include <immintrin.h>
#endif

/* One block's bytes by class (bit k: byte k); vtff and structural only when asked for (the tests'
 * masks): the index finds vertical tabs and form feeds among the control bytes that are not
 * whitespace. */
typedef struct {
    uint64_t quote, bs, brace, ws, ctrl, nl, vtff, structural;
} vs_raw;

static void classify_scalar(const char *b, vs_raw *r, bool full) {
    (void)full;
    memset(r, 0, sizeof *r);
    for (int k = 0; k < 64; k++) {
        unsigned char c = (unsigned char)b[k];
        uint64_t bit = 1ull << k;
        if (c == '"') r->quote |= bit;
        if (c == '\\') r->bs |= bit;
        if (c == '{') r->brace |= bit;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') r->ws |= bit;
        if (c == '\n') r->nl |= bit;
        if (c < 0x20) r->ctrl |= bit;
        if (c == '\v' || c == '\f') r->vtff |= bit;
        if (c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',') r->structural |= bit;
    }
}

/* The vertical tabs and form feeds of a block (rare: only a block with a control byte that is not
 * whitespace is looked at). */
static uint64_t vtff_scalar(const char *b) {
    uint64_t m = 0;
    for (int k = 0; k < 64; k++)
        if (b[k] == '\v' || b[k] == '\f') m |= 1ull << k;
    return m;
}

static inline uint64_t prefix_xor_cascade(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The escaped bytes of a block with backslashes bs, from c->escaped (updated for the next block).
 * A run of backslashes that starts at an even bit and ends before an odd one has odd length, so it
 * escapes that odd byte (and the other way round): adding each run's first bit to the backslash
 * mask carries to the byte just past the run. */
static inline uint64_t escaped_bytes(uint64_t bs, vs_carry *c) {
    const uint64_t even = 0x5555555555555555ull;
    uint64_t b = bs & ~c->escaped; /* an escaped backslash escapes nothing */
    uint64_t starts = b & ~(b << 1);
    uint64_t after_even = b + (starts & even), after_odd;
    bool out = __builtin_add_overflow(b, starts & ~even, &after_odd); /* an odd-start run reaches bit 63 */
    uint64_t esc = (after_even & ~b & ~even) | (after_odd & ~b & even) | c->escaped;
    c->escaped = out;
    return esc;
}

/* The masks of a block from its classes and px, the prefix XOR of its unescaped quotes q. */
static inline void finish_block(const vs_raw *r, uint64_t q, uint64_t esc, uint64_t px, vs_carry *c, vs_masks *m) {
    uint64_t in = px ^ c->in_str; /* an opening quote and its string's bytes; not the closing quote */
    c->in_str = (uint64_t)((int64_t)in >> 63);
    m->quote = q;
    m->quote_raw = r->quote;
    m->backslash = r->bs;
    m->escaped = esc;
    m->in_str = in;
    m->structural = r->structural & ~in;
    m->ws = r->ws;
    m->refused = r->bs | (r->ctrl & in);
    m->brace = r->brace;
    m->vtff = r->vtff;
}

#if VS_X86
static inline uint64_t mask16(__m128i x) { return (uint64_t)(unsigned)_mm_movemask_epi8(x); }

/* Bytes b[0, 16) into bits s.. of r's masks. */
__attribute__((always_inline)) static inline void classify_sse2_quarter(const char *b, vs_raw *r, bool full, int s) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);
    r->quote |= mask16(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))) << s;
    r->bs |= mask16(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))) << s;
    __m128i br = _mm_cmpeq_epi8(v, _mm_set1_epi8('{'));
    r->brace |= mask16(br) << s;
    __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                              _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
    r->ws |= mask16(ws) << s;
    r->nl |= mask16(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))) << s;
    r->ctrl |= mask16(_mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v)) << s;
    if (!full) return;
    r->vtff |= mask16(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\v')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\f')))) << s;
    __m128i st = _mm_or_si128(_mm_or_si128(br, _mm_cmpeq_epi8(v, _mm_set1_epi8('}'))),
                              _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('[')), _mm_cmpeq_epi8(v, _mm_set1_epi8(']'))));
    st = _mm_or_si128(st, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')), _mm_cmpeq_epi8(v, _mm_set1_epi8(','))));
    r->structural |= mask16(st) << s;
}

__attribute__((always_inline)) static inline void classify_sse2(const char *b, vs_raw *r, bool full) {
    memset(r, 0, sizeof *r);
    classify_sse2_quarter(b, r, full, 0);
    classify_sse2_quarter(b + 16, r, full, 16);
    classify_sse2_quarter(b + 32, r, full, 32);
    classify_sse2_quarter(b + 48, r, full, 48);
}

__attribute__((target("avx2"))) static inline uint64_t mask32(__m256i x) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(x);
}

/* Bytes b[0, 32) into bits s.. of r's masks. */
__attribute__((target("avx2"), always_inline)) static inline void classify_avx2_half(const char *b, vs_raw *r, bool full,
                                                                                      int s) {
    /* whitespace by one lookup on the low nibble: ' ' (0x20), '\t', '\n', '\r' are the only bytes
     * equal to their nibble's entry (a byte with its top bit set looks up 0) */
    const __m256i ws_tab = _mm256_setr_epi8(' ', -1, -1, -1, -1, -1, -1, -1, -1, '\t', '\n', -1, -1, '\r', -1, 0,
                                            ' ', -1, -1, -1, -1, -1, -1, -1, -1, '\t', '\n', -1, -1, '\r', -1, 0);
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)b);
    r->quote |= mask32(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"'))) << s;
    r->bs |= mask32(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\'))) << s;
    __m256i br = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('{'));
    r->brace |= mask32(br) << s;
    r->ws |= mask32(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(ws_tab, v), v)) << s;
    r->nl |= mask32(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))) << s;
    r->ctrl |= mask32(_mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v)) << s;
    if (!full) return;
    r->vtff |= mask32(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\v')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\f'))))
               << s;
    __m256i st = _mm256_or_si256(
        _mm256_or_si256(br, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('}'))),
        _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('[')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8(']'))));
    st = _mm256_or_si256(st, _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(':')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8(','))));
    r->structural |= mask32(st) << s;
}

__attribute__((target("avx2"), always_inline)) static inline void classify_avx2(const char *b, vs_raw *r, bool full) {
    memset(r, 0, sizeof *r);
    classify_avx2_half(b, r, full, 0);
    classify_avx2_half(b + 32, r, full, 32);
}

__attribute__((target("pclmul"))) static inline uint64_t prefix_xor_clmul(uint64_t x) {
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}
#endif

/* One block's masks by a path's classifier and prefix XOR. */
#define VS_BLOCK(CLASSIFY, PXOR, b, c, m, full) do { \
        vs_raw r_; \
        CLASSIFY((b), &r_, (full)); \
        if (!(full) && (r_.ctrl & ~r_.ws)) r_.vtff = vtff_scalar(b); \
        uint64_t esc_ = escaped_bytes(r_.bs, (c)); \
        uint64_t q_ = r_.quote & ~esc_; \
        finish_block(&r_, q_, esc_, PXOR(q_), (c), (m)); \
        (m)->nl = r_.nl; \
    } while (0)

/* The index loop of one path: every block of buf[0, len), the last one padded with spaces (its
 * carry is then the state at len, not after the padding). */
#define VS_BUILD(CLASSIFY, PXOR) do { \
        vs_carry c = ix->carry; \
        uint64_t qx = 0, bs = 0, rf = 0; \
        size_t nb = (len + 63) / 64; \
        sum->vtff = len; \
        sum->newlines = 0; \
        sum->last_newline = 0; \
        for (size_t k = 0; k < nb; k++) { \
            char tail[64]; \
            const char *b = buf + 64 * k; \
            size_t r = len - 64 * k; \
            if (r < 64) { memset(tail, ' ', 64); memcpy(tail, b, r); b = tail; } \
            vs_masks m; \
            VS_BLOCK(CLASSIFY, PXOR, b, &c, &m, false); \
            ix->blocks[k] = (vs_block){m.quote | m.refused, m.ws, m.brace, m.brace & m.in_str}; \
            qx ^= m.quote_raw; \
            bs |= m.backslash; \
            rf |= m.refused; \
            if (lines && m.nl) { \
                sum->newlines += (uint64_t)__builtin_popcountll(m.nl); \
                sum->last_newline = 64 * k + 63 - (size_t)__builtin_clzll(m.nl); \
            } \
            if (m.vtff && sum->vtff == len) sum->vtff = 64 * k + (size_t)__builtin_ctzll(m.vtff); \
            if (r < 64) { \
                c.escaped = m.escaped >> r & 1; \
                c.in_str = m.in_str >> r & 1 ? ~0ull : 0; \
            } \
        } \
        ix->carry = c; \
        ix->plain = rf == 0; \
        sum->backslash = bs != 0; \
        sum->quote_parity = (unsigned)__builtin_parityll(qx); \
    } while (0)

static void build_scalar(vs_index *ix, const char *buf, size_t len, bool lines, vs_summary *sum) {
    VS_BUILD(classify_scalar, prefix_xor_cascade);
}
#if VS_X86
static void build_sse2(vs_index *ix, const char *buf, size_t len, bool lines, vs_summary *sum) {
    VS_BUILD(classify_sse2, prefix_xor_cascade);
}
__attribute__((target("avx2,pclmul,popcnt"))) static void build_avx2(vs_index *ix, const char *buf, size_t len, bool lines, vs_summary *sum) {
    VS_BUILD(classify_avx2, prefix_xor_clmul);
}
#endif

bool vs_supported(vs_path path) {
    switch (path) {
    case VS_NONE:
    case VS_SCALAR: return true;
#if VS_X86
    case VS_SSE2: return true;
    case VS_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
#else
    default: return false;
#endif
    }
    return false;
}

vs_path vs_choose(const char *env) {
    vs_path want = VS_AVX2;
    if (env && strcmp(env, "scalar") == 0) want = VS_SCALAR;
    else if (env && strcmp(env, "sse2") == 0) want = VS_SSE2;
    if (vs_supported(want)) return want;
    if (vs_supported(VS_AVX2)) return VS_AVX2;
    return vs_supported(VS_SSE2) ? VS_SSE2 : VS_SCALAR;
}

int vs_build(vs_index *ix, vs_path path, const char *buf, size_t len, bool lines, vs_summary *sum) {
    ix->buf = NULL;
    ix->len = 0;
    if (tc_grow((void **)&ix->blocks, &ix->cap, len / 64 + 1, sizeof *ix->blocks)) return -1;
    switch (path) {
#if VS_X86
    case VS_AVX2: build_avx2(ix, buf, len, lines, sum); break;
    case VS_SSE2: build_sse2(ix, buf, len, lines, sum); break;
#endif
    default: build_scalar(ix, buf, len, lines, sum); break;
    }
    ix->buf = buf;
    ix->len = len;
    return 0;
}

void vs_free(vs_index *ix) {
    free(ix->blocks);
    ix->blocks = NULL;
    ix->cap = 0;
    ix->buf = NULL;
    ix->len = 0;
}

#if VS_X86
__attribute__((target("avx2,pclmul"))) static void block_avx2(const char *b, vs_carry *c, vs_masks *m) {
    VS_BLOCK(classify_avx2, prefix_xor_clmul, b, c, m, true);
}
#endif

void vs_block_masks(vs_path path, const char *b, vs_carry *c, vs_masks *m) {
    switch (vs_supported(path) ? path : VS_SCALAR) {
#if VS_X86
    case VS_AVX2: block_avx2(b, c, m); return;
    case VS_SSE2: VS_BLOCK(classify_sse2, prefix_xor_cascade, b, c, m, true); return;
#endif
    default: VS_BLOCK(classify_scalar, prefix_xor_cascade, b, c, m, true); return;
    }
}
