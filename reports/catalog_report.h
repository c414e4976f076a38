/* catalog_report.h: the GPU catalog (model/gpu_catalog.h) as `tracecost gpus` shows it: an aligned
 * table with every entry's sources and name patterns, or one JSON array. Writers only. */
#ifndef TC_CATALOG_REPORT_H
#define TC_CATALOG_REPORT_H
#include <stdio.h>
#include "jsonw.h"

/* Writes the catalog for `tracecost gpus`: an aligned table no wider than 100 columns, then the
 * sources and name patterns of every entry. Write errors show in ferror(out). */
void tc_gpu_catalog_print(FILE *out);

/* Writes the catalog as one JSON array value (the caller writes any key before it): per GPU
 * {id, name, patterns[], peak_tflops{fp32..fp8, null when unsupported}, memory_bandwidth_GBps,
 * tdp_W, flops_source, spec_source, rent{usd_per_gpu_hour, date, source},
 * purchase{usd_per_gpu, date, source}}. */
void tc_gpu_catalog_json(jw *w);
#endif
