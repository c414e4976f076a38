/* pipeline.c: the life of the pipeline results (pipeline.h): freeing them. */
#include "pipeline.h"
#include <stdlib.h>
#include <string.h>

void tc_pipeline_free(tc_pipeline_result *p) {
    free(p->stages);
    free(p->steps);
    free(p->transfers);
    memset(p, 0, sizeof *p);
}
