/* strtab.c: open-addressing hash table over an arena of strings (see strtab.h).
 * Invariant: slots[] holds id+1 (0 = empty); load factor stays below 1/2. */
#include "strtab.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (1u << 20)

typedef struct {
    char *text;   /* NUL-terminated copy, lives in an arena block */
    uint32_t len; /* bytes, without the NUL */
    uint32_t hash;
} entry;

struct tc_strtab {
    entry *entries;  /* by id */
    size_t count, cap;
    uint32_t *slots; /* id + 1, 0 = empty */
    size_t nslots;   /* power of two */
    char **blocks;   /* arena blocks */
    size_t nblocks, blocks_cap;
    size_t block_used, block_size; /* of the last block */
    size_t bytes;
};

/* Eight bytes per step (a byte at a time cost 2% of a parse: every kernel and op name is
 * interned). Only slot positions depend on it; ids follow insertion order. */
static uint32_t hash_bytes(const char *s, size_t len) {
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
    return (uint32_t)h;
}

uint32_t tc_strtab_hash(const char *s, size_t len) { return hash_bytes(s, len); }

tc_strtab *tc_strtab_new(void) {
    tc_strtab *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->nslots = 1024;
    t->slots = calloc(t->nslots, sizeof *t->slots);
    if (!t->slots) { free(t); return NULL; }
    return t;
}

void tc_strtab_free(tc_strtab *t) {
    if (!t) return;
    for (size_t i = 0; i < t->nblocks; i++) free(t->blocks[i]);
    free(t->blocks);
    free(t->entries);
    free(t->slots);
    free(t);
}

static char *arena_copy(tc_strtab *t, const char *s, size_t len) {
    size_t need = len + 1;
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
    memcpy(d, s, len);
    d[len] = 0;
    t->block_used += need;
    return d;
}

static int rehash(tc_strtab *t) {
    size_t n = t->nslots * 2;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s) return -1;
    for (size_t id = 0; id < t->count; id++) {
        size_t i = t->entries[id].hash & (n - 1);
        while (s[i]) i = (i + 1) & (n - 1);
        s[i] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = n;
    return 0;
}

static size_t probe(const tc_strtab *t, const char *s, size_t len, uint32_t h) {
    size_t i = h & (t->nslots - 1);
    while (t->slots[i]) {
        const entry *e = &t->entries[t->slots[i] - 1];
        if (e->hash == h && e->len == len && memcmp(e->text, s, len) == 0) return i;
        i = (i + 1) & (t->nslots - 1);
    }
    return i;
}

uint32_t tc_strtab_find(const tc_strtab *t, const char *s, size_t len) {
    size_t i = probe(t, s, len, hash_bytes(s, len));
    return t->slots[i] ? t->slots[i] - 1 : TC_NONE;
}

uint32_t tc_strtab_intern(tc_strtab *t, const char *s, size_t len) {
    if (len > UINT32_MAX - 1) return TC_NONE;
    uint32_t h = hash_bytes(s, len);
    size_t i = probe(t, s, len, h);
    if (t->slots[i]) return t->slots[i] - 1;
    if (t->count >= UINT32_MAX - 1) return TC_NONE;
    if ((t->count + 1) * 2 > t->nslots) {
        if (rehash(t)) return TC_NONE;
        i = probe(t, s, len, h);
    }
    char *copy = arena_copy(t, s, len);
    if (!copy) return TC_NONE;
    entry e = {copy, (uint32_t)len, h};
    if (TC_PUSH(t->entries, t->count, t->cap, e)) return TC_NONE;
    t->slots[i] = (uint32_t)t->count;
    return (uint32_t)t->count - 1;
}

const char *tc_strtab_get(const tc_strtab *t, uint32_t id) {
    return (id == TC_NONE || id >= t->count) ? "" : t->entries[id].text;
}

size_t tc_strtab_len(const tc_strtab *t, uint32_t id) {
    return (id == TC_NONE || id >= t->count) ? 0 : t->entries[id].len;
}

size_t tc_strtab_count(const tc_strtab *t) { return t->count; }
size_t tc_strtab_bytes(const tc_strtab *t) {
    return t->bytes + t->cap * sizeof(entry) + t->nslots * sizeof(uint32_t);
}
