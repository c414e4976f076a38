/* strtab.c: open-addressing hash table over an arena of strings (see strtab.h).
 * A string is one record in an arena block: its length (one byte below 255; else four bytes and a
 * 255 byte), its bytes and a NUL; texts[id] points at the bytes. The index is two arrays of nslots
 * (a power of two; none once sealed, until the next intern): slots[] holds id + 1 (0 = empty) and
 * tags[] a byte of the hash (never 0 where the slot is used), so a probe reads a byte until a tag
 * matches; load factor stays below 3/4.
 * Per string: its bytes + 2 (+ 4 from 255 bytes on), 8 for texts[], 5 per slot (1.33 to 2.67 slots
 * per string): about 60 bytes for a 43-byte kernel name (docs/performance.md). No hash is kept: a
 * rehash reads the strings again, in id order (the order they lie in the arena). */
#include "strtab.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (1u << 20)
#define LONG_LEN 255u /* a length byte of 255: the length is in the four bytes before it */
#define RECENT_BITS 8
#define RECENT (1u << RECENT_BITS)

struct tc_strtab {
    const char **texts; /* by id: the string's bytes in its record */
    size_t count, cap;
    uint32_t *slots;    /* id + 1, 0 = empty */
    uint8_t *tags;      /* tag_of(hash) where slots[i] != 0 */
    size_t nslots;      /* power of two */
    char **blocks;      /* arena blocks */
    size_t nblocks, blocks_cap;
    size_t block_used, block_size; /* of the last block */
    size_t bytes;
    /* the strings interned last, by a hash of their length and a few of their bytes (recent_slot):
     * most calls intern one of a few hundred names again, which skips hash_bytes and the probe */
    struct { const char *text; uint32_t len, id; } recent[RECENT];
};

/* Eight bytes per step (a byte at a time cost 2% of a parse: every kernel and op name is
 * interned). Only slot positions depend on it; ids follow insertion order. */
static uint64_t hash_bytes(const char *s, size_t len) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)len, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    if (i < len) {
        w = 0;
        memcpy(&w, s + i, len - i);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
    }
    h ^= h >> 29;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 32;
    return h;
}

/* The slot index uses the hash's low bits, the tag its top byte: 1..255, 0 is "empty". */
static uint8_t tag_of(uint64_t h) { return (uint8_t)(1 + (h >> 56) % 255); }

uint32_t tc_strtab_hash(const char *s, size_t len) { return (uint32_t)hash_bytes(s, len); }

static size_t text_len(const char *text) {
    uint8_t b = (uint8_t)text[-1];
    if (b < LONG_LEN) return b;
    uint32_t n;
    memcpy(&n, text - 5, 4);
    return n;
}

/* nslots (a power of two) empty slots and tags, or -1 out of memory. */
static int index_alloc(size_t nslots, uint32_t **slots, uint8_t **tags) {
    *slots = tc_big_alloc(nslots, sizeof **slots, true);
    *tags = tc_big_alloc(nslots, 1, true);
    if (*slots && *tags) return 0;
    free(*slots);
    free(*tags);
    return -1;
}

tc_strtab *tc_strtab_new(void) {
    tc_strtab *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->nslots = 1024;
    if (index_alloc(t->nslots, &t->slots, &t->tags)) { free(t); return NULL; }
    return t;
}

void tc_strtab_free(tc_strtab *t) {
    if (!t) return;
    for (size_t i = 0; i < t->nblocks; i++) free(t->blocks[i]);
    free(t->blocks);
    free(t->texts);
    free(t->slots);
    free(t->tags);
    free(t);
}

/* A record for s[0..len) in the arena; returns its text. */
static const char *arena_copy(tc_strtab *t, const char *s, size_t len) {
    size_t head = len < LONG_LEN ? 1 : 5, need = head + len + 1;
    if (t->nblocks == 0 || t->block_used + need > t->block_size) {
        size_t size = need > ARENA_BLOCK ? need : ARENA_BLOCK;
        char *b = malloc(size);
        if (!b) return NULL;
        if (TC_PUSH(t->blocks, t->nblocks, t->blocks_cap, b)) { free(b); return NULL; }
        t->block_used = 0;
        t->block_size = size;
        t->bytes += size;
    }
    char *d = t->blocks[t->nblocks - 1] + t->block_used;
    if (head == 1) {
        d[0] = (char)(uint8_t)len;
    } else {
        uint32_t n = (uint32_t)len;
        memcpy(d, &n, 4);
        d[4] = (char)(uint8_t)LONG_LEN;
    }
    d += head;
    memcpy(d, s, len);
    d[len] = 0;
    t->block_used += need;
    return d;
}

/* The new table's slots in id order: every write a cache miss when the table is big. */
static void reinsert_by_id(const tc_strtab *t, uint32_t *s, uint8_t *g, size_t n) {
    for (size_t id = 0; id < t->count; id++) {
        const char *text = t->texts[id];
        uint64_t h = hash_bytes(text, text_len(text));
        size_t i = h & (n - 1);
        while (g[i]) i = (i + 1) & (n - 1); /* the tags: 5 times denser than the slots */
        s[i] = (uint32_t)id + 1;
        g[i] = tag_of(h);
    }
}

/* The same in the order of the strings' home regions, a million strings at a time (one counting
 * pass of (home, tag, id) keys by the home's top 11 bits): each million is written front to back,
 * several times faster than at random for millions of strings, with 16 MB of keys at most. Only while n <= 2^28
 * (ids and homes in 28 bits each); -1 when that or memory is short. */
#define KEY_BITS 28
#define KEY_CHUNK ((size_t)1 << 20)
#define HOME_BUCKET_BITS 11
static int reinsert_by_home(const tc_strtab *t, uint32_t *s, uint8_t *g, size_t n) {
    if (n > ((size_t)1 << KEY_BITS) || t->count < 4096) return -1;
    size_t chunk = t->count < KEY_CHUNK ? t->count : KEY_CHUNK;
    uint64_t *block = malloc(2 * chunk * sizeof *block);
    if (!block) return -1;
    const uint64_t id_mask = ((uint64_t)1 << KEY_BITS) - 1;
    for (size_t from = 0; from < t->count; from += chunk) {
        size_t m = t->count - from < chunk ? t->count - from : chunk;
        uint64_t *key = block, *tmp = block + chunk;
        for (size_t k = 0; k < m; k++) {
            const char *text = t->texts[from + k];
            uint64_t h = hash_bytes(text, text_len(text));
            key[k] = (h & (n - 1)) << 36 | (uint64_t)tag_of(h) << KEY_BITS | (from + k);
        }
        /* one pass by the home's top bits (2^HOME_BUCKET_BITS runs of slots, 16 KiB of slots and
         * 4 KiB of tags each at 8 million slots) is enough: the writes stay in a cached window */
        size_t bits = 0;
        while (((size_t)1 << bits) < n) bits++;
        size_t b = bits < HOME_BUCKET_BITS ? bits : HOME_BUCKET_BITS, shift = 36 + bits - b, sum = 0;
        size_t count[1u << HOME_BUCKET_BITS] = {0};
        for (size_t k = 0; k < m; k++) count[key[k] >> shift]++;
        for (size_t d = 0; d < ((size_t)1 << b); d++) { size_t c = count[d]; count[d] = sum; sum += c; }
        for (size_t k = 0; k < m; k++) tmp[count[key[k] >> shift]++] = key[k];
        key = tmp;
        for (size_t k = 0; k < m; k++) {
            size_t i = (size_t)(key[k] >> 36);
            while (g[i]) i = (i + 1) & (n - 1);
            s[i] = (uint32_t)(key[k] & id_mask) + 1;
            g[i] = (uint8_t)(key[k] >> KEY_BITS);
        }
    }
    free(block);
    return 0;
}

/* The index made again with n slots (a power of two above count * 4 / 3). */
static int reindex(tc_strtab *t, size_t n) {
    uint32_t *s;
    uint8_t *g;
    if (index_alloc(n, &s, &g)) return -1;
    if (reinsert_by_home(t, s, g, n)) reinsert_by_id(t, s, g, n);
    free(t->slots);
    free(t->tags);
    t->slots = s;
    t->tags = g;
    t->nslots = n;
    return 0;
}

static int rehash(tc_strtab *t) { return reindex(t, t->nslots * 2); }

void tc_strtab_seal(tc_strtab *t) {
    free(t->slots);
    free(t->tags);
    t->slots = NULL;
    t->tags = NULL;
    t->nslots = 0;
}

/* A sealed table's index, made again for an intern: the size the strings would have grown it to. */
static int unseal(tc_strtab *t) {
    size_t n = 1024;
    while ((t->count + 1) * 4 > n * 3) n *= 2;
    return reindex(t, n);
}

/* The id of s[0..len), or TC_NONE with *at the empty slot where it would go. */
static uint32_t probe(const tc_strtab *t, const char *s, size_t len, uint64_t h, size_t *at) {
    size_t i = h & (t->nslots - 1);
    uint8_t tag = tag_of(h);
    for (; t->tags[i]; i = (i + 1) & (t->nslots - 1)) {
        if (t->tags[i] != tag) continue;
        uint32_t id = t->slots[i] - 1;
        const char *text = t->texts[id];
        if (text_len(text) == len && memcmp(text, s, len) == 0) return id;
    }
    *at = i;
    return TC_NONE;
}

uint32_t tc_strtab_find(const tc_strtab *t, const char *s, size_t len) {
    size_t i;
    if (!t->nslots) { /* sealed */
        for (size_t id = 0; id < t->count; id++)
            if (text_len(t->texts[id]) == len && memcmp(t->texts[id], s, len) == 0) return (uint32_t)id;
        return TC_NONE;
    }
    return probe(t, s, len, hash_bytes(s, len), &i);
}

static uint32_t intern_hashed(tc_strtab *t, const char *s, size_t len, uint64_t h) {
    size_t i;
    if (!t->nslots && unseal(t)) return TC_NONE;
    uint32_t id = probe(t, s, len, h, &i);
    if (id != TC_NONE) return id;
    if (t->count >= UINT32_MAX - 1) return TC_NONE;
    if ((t->count + 1) * 4 > t->nslots * 3) {
        if (rehash(t)) return TC_NONE;
        probe(t, s, len, h, &i);
    }
    const char *copy = arena_copy(t, s, len);
    if (!copy) return TC_NONE;
    if (TC_PUSH(t->texts, t->count, t->cap, copy)) return TC_NONE;
    t->slots[i] = (uint32_t)t->count;
    t->tags[i] = tag_of(h);
    return (uint32_t)t->count - 1;
}

/* The recent[] entry of s[0, len) (len > 0): its length and its first, middle and last bytes
 * (at most 24 of them), mixed. Only which entry a string takes depends on it. */
static size_t recent_slot(const char *s, size_t len) {
    uint64_t a, b, c = 0;
    if (len >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + len - 8, 8);
        if (len > 16) memcpy(&c, s + len / 2 - 4, 8);
    } else if (len >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + len - 4, 4);
        a = x;
        b = y;
    } else {
        a = (uint8_t)s[0] | (uint32_t)(uint8_t)s[len / 2] << 8 | (uint32_t)(uint8_t)s[len - 1] << 16;
        b = 0;
    }
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ULL) ^ (c * 0xc4ceb9fe1a85ec53ULL) ^ len) * 0xff51afd7ed558ccdULL;
    return (size_t)(h >> (64 - RECENT_BITS));
}

/* tc_strtab_intern with the hash known (have) or not. */
static uint32_t intern(tc_strtab *t, const char *s, size_t len, bool have, uint64_t hash) {
    if (len > UINT32_MAX - 1) return TC_NONE;
    if (len == 0) return intern_hashed(t, s, len, have ? hash : hash_bytes(s, len));
    size_t r = recent_slot(s, len);
    if (t->recent[r].len == len && memcmp(t->recent[r].text, s, len) == 0) return t->recent[r].id;
    uint32_t id = intern_hashed(t, s, len, have ? hash : hash_bytes(s, len));
    if (id != TC_NONE) {
        t->recent[r].text = t->texts[id];
        t->recent[r].len = (uint32_t)len;
        t->recent[r].id = id;
    }
    return id;
}

uint32_t tc_strtab_intern(tc_strtab *t, const char *s, size_t len) { return intern(t, s, len, false, 0); }

uint32_t tc_strtab_intern_with_hash(tc_strtab *t, const char *s, size_t len, uint64_t hash) {
    return intern(t, s, len, true, hash);
}

uint64_t tc_strtab_prefetch(const tc_strtab *t, const char *s, size_t len) {
    uint64_t h = hash_bytes(s, len);
    if (t->nslots) {
        size_t i = h & (t->nslots - 1);
        __builtin_prefetch(&t->tags[i]);
        __builtin_prefetch(&t->slots[i], 1);
    }
    return h;
}

#define AHEAD 16 /* strings hashed and their tags fetched before the first of them is looked up */
int tc_strtab_intern_all(tc_strtab *t, const tc_strtab *src, uint32_t *ids) {
    uint64_t h[AHEAD];
    if (!t->nslots && unseal(t)) return -1;
    for (size_t from = 0; from < src->count; from += AHEAD) {
        size_t m = src->count - from < AHEAD ? src->count - from : AHEAD;
        for (size_t k = 0; k < m; k++) {
            const char *text = src->texts[from + k];
            h[k] = hash_bytes(text, text_len(text));
            __builtin_prefetch(&t->tags[h[k] & (t->nslots - 1)]);
            __builtin_prefetch(&t->slots[h[k] & (t->nslots - 1)], 1); /* a new string's slot is written */
        }
        for (size_t k = 0; k < m; k++) {
            const char *text = src->texts[from + k];
            if ((ids[from + k] = intern_hashed(t, text, text_len(text), h[k])) == TC_NONE) return -1;
        }
    }
    return 0;
}

const char *tc_strtab_get(const tc_strtab *t, uint32_t id) {
    return (id == TC_NONE || id >= t->count) ? "" : t->texts[id];
}

size_t tc_strtab_len(const tc_strtab *t, uint32_t id) {
    return (id == TC_NONE || id >= t->count) ? 0 : text_len(t->texts[id]);
}

size_t tc_strtab_count(const tc_strtab *t) { return t->count; }
size_t tc_strtab_bytes(const tc_strtab *t) {
    return t->bytes + t->cap * sizeof *t->texts + t->nslots * (sizeof *t->slots + sizeof *t->tags);
}
