/* group_ranks.h: the ranks text of a process group as a trace records it (pg_config's ranks, a
 * collective's group ranks): read into rank numbers. Used by job assembly (parsers/job_rules.h: do
 * two inputs agree on a group?) and by the process groups (analyzer/groups.h). */
#ifndef TC_GROUP_RANKS_H
#define TC_GROUP_RANKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses a ranks text as PyTorch writes it, "[0, 1, 2]" (whitespace free), into a new ascending
 * array (*out, *n); false when it is not such a list of non-negative integers (a truncated
 * "[0, 1, ...]", an empty list) or out of memory. */
bool tc_parse_group_ranks(const char *text, int64_t **out, size_t *n);
#endif
