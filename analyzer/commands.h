/* commands.h: the subcommands' entry points. Each returns an exit code (exitcodes.h); only main()
 * exits. */
#ifndef TC_COMMANDS_H
#define TC_COMMANDS_H
#include <stdbool.h>
#include <stdio.h>
int tc_cmd_analyze(int argc, char **argv);
int tc_cmd_gpus(int argc, char **argv);
/* True when colour should be used on f: a terminal, NO_COLOR unset, TERM not "dumb". */
bool tc_use_color(FILE *f);
#endif
