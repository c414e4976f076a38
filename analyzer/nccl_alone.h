/* nccl_alone.h: NCCL Inspector logs analyzed without a PyTorch trace (docs/nccl.md "Logs alone"):
 * the communicators, their bandwidth table per collective and message size against the rated link,
 * the straggler their GPU timings show, and notes on what only a trace can tell. Pure: no printing,
 * no option names. */
#ifndef TC_NCCL_ALONE_ANALYZE_H
#define TC_NCCL_ALONE_ANALYZE_H
#include "analyze_options.h"
#include "model/nccl_alone.h"

/* Fills out (zeroed first) from log's Inspector records; the rated links from opt (gpu: the link
 * inside a node; fabric or nic_gbps: between nodes). out points into log (hostnames): log outlives
 * it. 0, or -1 out of memory (out freed). */
int tc_nccl_alone_analyze(const tc_nccl_log *log, const tc_analyze_options *opt, tc_nccl_alone *out);
#endif
