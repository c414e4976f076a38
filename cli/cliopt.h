/* cliopt.h: command-line option helpers shared by every subcommand: "--name value" and
 * "--name=value" forms, and the closest known option for a misspelt one. */
#ifndef TC_CLIOPT_H
#define TC_CLIOPT_H
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int argc;
    char **argv;
    int i;              /* next argument to read */
    const char *name;   /* option just read, without its "=value" part (points into a buffer) */
    const char *inline_value; /* value after '=', or NULL */
    char buf[128];
} tc_opts;

void tc_opts_init(tc_opts *o, int argc, char **argv, int first);
/* Next argument: 1 = an option (o->name set), 0 = an operand (*operand set), -1 = end.
 * After "--" everything is an operand. */
int tc_opts_next(tc_opts *o, const char **operand);
/* The option's value (inline or the next argument); NULL when missing. */
const char *tc_opts_value(tc_opts *o);
/* Edit distance ignoring case; a swap of two neighbours counts 1 ("gpsu" is 1 from "gpus").
 * Strings over 63 bytes count as far apart. */
size_t tc_edit_distance(const char *a, const char *b);
/* Closest of known[] (NULL-terminated) to name by edit distance, or NULL when nothing is close. */
const char *tc_closest_option(const char *name, const char *const *known);
/* Strict number parsing: the whole text must be a finite number. */
bool tc_parse_double(const char *s, double *out);
bool tc_parse_long(const char *s, long *out);
#endif
