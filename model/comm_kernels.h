/* comm_kernels.h: which GPU kernels are communication, decided in one place (tc_comm_classify). The
 * built-in catalog (comm_kernels.def: NCCL, RCCL, PyTorch symmetric memory, DeepEP, MSCCL++,
 * NVSHMEM, custom all-reduces, ...) names each kernel's library; a kernel with a "Collective name"
 * arg is communication whatever its name; user patterns (`--comm-kernel REGEX`, the dialect of
 * pattern.h: POSIX extended without back-references, linear time) add more. A GPU event's is_comm holds its tc_comm_lib (0: compute). No I/O;
 * the catalog is static data. */
#ifndef TC_COMM_KERNELS_H
#define TC_COMM_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What made a kernel communication: its library (comm_kernels.def), its collective args, or a
 * user pattern. Stored in tc_gpu_event.is_comm (a byte). */
typedef enum {
    TC_COMM_NO = 0,            /* compute (or not a kernel) */
#define TC_COMM_LIBRARY(ID, name, source) TC_COMM_##ID,
#include "comm_kernels.def"
    TC_COMM_ARGS,              /* carries a "Collective name" arg, name not in the catalog */
    TC_COMM_USER,              /* matched a --comm-kernel pattern */
    TC_COMM_LIB_COUNT
} tc_comm_lib;

/* The built-in catalog's rules as masks of the byte values their texts hold, made once by whoever
 * classifies many names (each parser holds one): a rule is searched for only in a name that holds
 * every byte of its text (a million distinct names would otherwise search most rules each). */
#define TC_COMM_RULES_MAX 64
#define TC_COMM_WINDOW_BITS 14 /* the windows' filter: 2^14 bits, 2 KiB */
typedef struct {
    uint64_t need[TC_COMM_RULES_MAX][2]; /* rule i's bytes: bit b of need[i][b >> 6] (ASCII only) */
    /* A filter of the 4-byte windows at offsets 0-3 of every CONTAINS rule's text (a hash per
     * window): a rule of 7 bytes or more inside a name covers one of the name's windows at a
     * multiple of 4 with one of those, so a name none of whose such windows is in the filter holds
     * no CONTAINS rule. Used only when every CONTAINS rule has 7 bytes or more (windows_ok). */
    uint64_t windows[(1u << TC_COMM_WINDOW_BITS) / 64];
    bool windows_ok;
    uint8_t prefix[TC_COMM_RULES_MAX]; /* the PREFIX rules' indices, in rule order */
    uint8_t n_prefix;
} tc_comm_index;
void tc_comm_index_init(tc_comm_index *ix);

/* The library of a kernel name by the built-in catalog; TC_COMM_NO when it is not communication.
 * name holds len bytes (need not be NUL-terminated). ix: the catalog's masks (NULL: made here, for
 * a single name). */
uint8_t tc_comm_kernel_lib(const tc_comm_index *ix, const char *name, size_t len);

/* A library's name as reports show it ("NCCL", "DeepEP", "collective args", "--comm-kernel");
 * "" for TC_COMM_NO or an unknown value. */
const char *tc_comm_lib_name(uint8_t lib);

/* One rule of the built-in catalog, for docs and tests: its text, whether it is a prefix, and its
 * library (TC_COMM_NO for an exclusion). i >= tc_comm_rule_count(): returns false. */
size_t tc_comm_rule_count(void);
bool tc_comm_rule_at(size_t i, const char **text, bool *prefix, uint8_t *lib, const char **why);

/* User patterns: compiled once, read by any number of threads (pattern.h). */
typedef struct tc_comm_patterns tc_comm_patterns;

tc_comm_patterns *tc_comm_patterns_new(void); /* NULL when out of memory */
void tc_comm_patterns_free(tc_comm_patterns *p); /* NULL is a no-op */
/* Adds a pattern of pattern.h's dialect, matched anywhere in a kernel name (anchor it with ^ and
 * $; only a name's first TC_PATTERN_MAX_NAME bytes are looked at). 0, or -1 with why (naming
 * the pattern) in err: not in the dialect, empty, or matching the empty string (so every name). */
int tc_comm_patterns_add(tc_comm_patterns *p, const char *regex, char *err, size_t errlen);
size_t tc_comm_patterns_count(const tc_comm_patterns *p); /* 0 for NULL */
const char *tc_comm_patterns_at(const tc_comm_patterns *p, size_t i);

/* The one rule that decides a kernel's tc_comm_lib (the Chrome-trace parser asks it once per
 * distinct name, with and without args): the first rule of the built-in catalog that matches the
 * name decides when it names a library; else a kernel that carries collective args is
 * TC_COMM_ARGS; else one whose name matches one of the user's patterns (NULL: none) is
 * TC_COMM_USER; else TC_COMM_NO. A kernel the catalog excludes can thus still be communication by
 * its args or a user pattern. name holds len bytes and ends with a NUL (patterns are matched up to
 * its first NUL, the catalog over all len bytes). */
uint8_t tc_comm_classify(const tc_comm_index *ix, const tc_comm_patterns *user, const char *name, size_t len,
                         bool has_coll_args);
#endif
