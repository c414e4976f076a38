/* comm_model.h: each matching group's collective time model, transfer = alpha + bytes·f/beta (f the
 * nccl-tests bus factor), fitted from its matched instances (docs/definitions.md "Collective time
 * model"): least squares over message sizes when the group has two or more distinct sizes, else beta
 * from the group's link rating (intra-node: the GPU's link; inter-node: the fabric) and alpha the
 * rest. And the transfer an instance would take on a changed model (the fabric what-if). */
#ifndef TC_COMM_MODEL_H
#define TC_COMM_MODEL_H
#include "model/job.h"

/* Fits j->inst_groups[g].model for every group with matched instances of known bytes. After
 * tc_collectives_match and tc_groups_finish (links known). 0, or -1 out of memory. */
int tc_comm_model_fit(tc_job *j);

/* The transfer of instance `in` when its group's model changes from `was` to `now`: its measured
 * transfer + (now.alpha − was.alpha) + bytes·f·(1/now.beta − 1/was.beta), at least 0, ns. An
 * instance of unknown bytes changes by the alpha difference only. */
int64_t tc_comm_model_project(const tc_coll_instance *in, const tc_coll_model *was, const tc_coll_model *now);
#endif
