/* strtab.h: string interning. Owns copies of every distinct string added; hands out dense
 * uint32_t ids (0, 1, 2, ...) so events store 4 bytes instead of a name. Strings are stored
 * with their length, so embedded NUL bytes survive. */
#ifndef TC_STRTAB_H
#define TC_STRTAB_H
#include <stddef.h>
#include <stdint.h>

typedef struct tc_strtab tc_strtab;

tc_strtab *tc_strtab_new(void);
void tc_strtab_free(tc_strtab *t); /* NULL is a no-op */
/* Returns the id of s[0..len), adding a copy when new; TC_NONE when out of memory. */
uint32_t tc_strtab_intern(tc_strtab *t, const char *s, size_t len);
/* For a string a caller will intern soon (a parser that has read a kernel's name, interned when
 * the event ends): its hash, with the slot it would probe first fetched into the cache, so a new
 * name's probe does not wait for memory. Give the hash to tc_strtab_intern_with_hash with the same
 * bytes. */
uint64_t tc_strtab_prefetch(const tc_strtab *t, const char *s, size_t len);
/* tc_strtab_intern, with the hash tc_strtab_prefetch gave for these bytes. */
uint32_t tc_strtab_intern_with_hash(tc_strtab *t, const char *s, size_t len, uint64_t hash);
/* Interns every string of src into t in src's id order: ids[i] is the id in t of src's string i
 * (as tc_strtab_intern on each, with the next strings hashed and their slots fetched ahead: the
 * merge of a parallel parse may meet millions of new names). 0, or -1 out of memory. */
int tc_strtab_intern_all(tc_strtab *t, const tc_strtab *src, uint32_t *ids);
/* Drops the index of a table that is done growing (a parsed trace's: 5 bytes a slot, 1.33 to 2.67
 * slots a string, 40 MB for 5 million names); ids, texts and lengths stay. The next intern builds
 * it again (as a rehash does), and a find meanwhile compares every string. */
void tc_strtab_seal(tc_strtab *t);
/* Looks s up without adding; TC_NONE when absent. */
uint32_t tc_strtab_find(const tc_strtab *t, const char *s, size_t len);
/* NUL-terminated text of id (valid until the table is freed); "" for TC_NONE. */
const char *tc_strtab_get(const tc_strtab *t, uint32_t id);
size_t tc_strtab_len(const tc_strtab *t, uint32_t id);
size_t tc_strtab_count(const tc_strtab *t);
size_t tc_strtab_bytes(const tc_strtab *t); /* memory held, for accounting */
/* The table's hash of s[0..len), for callers that index strings they do not copy. */
uint32_t tc_strtab_hash(const char *s, size_t len);
#endif
