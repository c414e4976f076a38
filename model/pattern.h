/* pattern.h: the --comm-kernel pattern dialect and its linear-time matcher. The dialect is POSIX
 * extended regular expressions without back-references: literals, '.', bracket expressions
 * ([abc], [a-z], [^...], the POSIX classes [:alpha:] [:digit:] [:alnum:] [:upper:] [:lower:]
 * [:space:] [:xdigit:] [:punct:] [:blank:] [:cntrl:] [:print:] [:graph:]), '*', '+', '?',
 * intervals {m} {m,} {m,n} {,n} with n <= TC_PATTERN_MAX_REPEAT, alternation '|', groups
 * '(...)' (they only group), the anchors '^' and '$', escapes of punctuation ('\.', '\(', ...)
 * and \w \W \s \S. Bytes are matched as bytes (the C locale). A pattern is compiled to a Thompson
 * NFA and run as a set of states (a Pike VM without captures), so a search costs at most
 * (states x name bytes) whatever the pattern: no back-tracking, no blow-up. The search is
 * unanchored like regexec; only the first TC_PATTERN_MAX_NAME bytes of a name are looked at, and
 * '$' does not match a name that is longer. Compiled patterns are read-only: any number of
 * threads may search with one. No I/O. */
#ifndef TC_PATTERN_H
#define TC_PATTERN_H
#include <stdbool.h>
#include <stddef.h>

#define TC_PATTERN_MAX_REPEAT 1000  /* the largest count in {m,n} */
#define TC_PATTERN_MAX_STATES 4000  /* a compiled pattern's size (intervals copy their operand) */
#define TC_PATTERN_MAX_NAME 16384   /* bytes of a name a search looks at */
#define TC_PATTERN_MAX_TEXT 1024    /* the longest pattern text */

typedef struct tc_pattern tc_pattern;

/* Compiles text (NUL-terminated). NULL with why it is not in the dialect in err (without the
 * pattern itself; "out of memory" when it is). */
tc_pattern *tc_pattern_compile(const char *text, char *err, size_t errlen);
void tc_pattern_free(tc_pattern *p); /* NULL is a no-op */

/* Whether p matches anywhere in the n bytes of s (only the first TC_PATTERN_MAX_NAME count). */
bool tc_pattern_search(const tc_pattern *p, const char *s, size_t n);

/* Whether p matches the empty string at the start of a non-empty name or at its end: then it
 * matches every non-empty name ("", "a*", "x|", "$"). "^$" and "^a*$" do not. */
bool tc_pattern_matches_every_name(const tc_pattern *p);
#endif
