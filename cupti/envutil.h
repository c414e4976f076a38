/* envutil.h: small dependency-free helpers shared by the record launcher and the injected
 * CUPTI tracer: exact seconds parsing (no floating point) and reading the launcher's rank
 * from the environment. Neither side links the other; both compile this file. */
#ifndef TC_CUPTI_ENVUTIL_H
#define TC_CUPTI_ENVUTIL_H
#include <stdint.h>

/* Parses a non-negative decimal number of seconds ("2", "0.5", "1.25") into nanoseconds,
 * exactly (digits beyond the 9th decimal are rejected). Returns 0 and sets *ns on success,
 * -1 on anything else (empty, sign, exponent, trailing text, over about 584 years).
 * *ns is cleared on entry. */
int tc_parse_seconds_ns(const char *text, uint64_t *ns);

/* The launcher's view of this process in a distributed job, read from the environment at the
 * moment of the call (read it late: launchers and Python may set these after start).
 * -1 means unknown. Sources, first present wins:
 *   rank:       RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID, PMI_RANK, PMIX_RANK
 *   world_size: WORLD_SIZE, OMPI_COMM_WORLD_SIZE, SLURM_NTASKS, PMI_SIZE
 *   local_rank: LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID */
typedef struct tc_dist_env {
    int rank;       /* global rank, or -1 */
    int world_size; /* number of ranks, or -1 */
    int local_rank; /* rank within the node, or -1 */
} tc_dist_env;

void tc_dist_env_read(tc_dist_env *out);

/* Parses a whole non-negative decimal int (no sign, no spaces) below 2^31; -1 otherwise. */
int tc_parse_nonneg_int(const char *text);
/* Creates path and its missing parents (mode 0777 before umask). 0 when it exists as a folder
 * afterwards, else an errno value (ENOTDIR when a non-folder is in the way). */
int tc_mkdir_p(const char *path);

#endif
