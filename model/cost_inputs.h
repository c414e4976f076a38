/* cost_inputs.h: what each input of the cost model is, as data (cost_inputs.def): its name as
 * flags and config files spell it, its JSON key, its kind (which fixes its valid range), unit and
 * help line, and the range check itself. The values live in model/cost_result.h (tc_cost_inputs); the
 * command line (cli/cost_options.h) and the reports (reports/cost_report.h) read this table so a
 * name, unit or range is written once. Static const data; nothing here keeps state or prints. */
#ifndef TC_COST_INPUTS_H
#define TC_COST_INPUTS_H
#include <stdbool.h>
#include <stddef.h>

#define TC_COST_MAX_MONTHS 600 /* upper bound of the months input (50 years) */

/* Kinds of value; each fixes the valid range (tc_cost_input_check) and how the value prints. */
typedef enum {
    TC_COST_KIND_GPUS,      /* whole number of GPUs, 1..10,000,000 */
    TC_COST_KIND_MONTHS,    /* whole number of months, 1..TC_COST_MAX_MONTHS */
    TC_COST_KIND_MONEY,     /* dollars, 0..10 trillion */
    TC_COST_KIND_PRICE,     /* dollars, > 0 and <= 1,000,000 */
    TC_COST_KIND_SHARE,     /* share of time, (0, 1]; may be typed as a percentage */
    TC_COST_KIND_PUE,       /* ratio, 1..10 */
    TC_COST_KIND_BANDWIDTH, /* GB/s, > 0 and <= 10,000,000 */
    TC_COST_KIND_POWER,     /* kW per GPU, 0..1,000 */
    TC_COST_KIND_LATENCY    /* µs, 0..1,000,000 */
} tc_cost_kind;

/* One id per row of cost_inputs.def, in file order: TC_COST_INPUT_gpus, ... */
typedef enum {
#define TC_COST_INPUT(field, name, kind, unit, letter, help) TC_COST_INPUT_##field,
#include "cost_inputs.def"
#undef TC_COST_INPUT
    TC_COST_INPUT_COUNT
} tc_cost_input_id;

typedef struct tc_cost_input_desc {
    tc_cost_input_id id;  /* its row */
    const char *name;     /* flag without dashes and config key: "price-per-gpu-hour" */
    const char *key;      /* JSON key and tc_cost_inputs field: "price_per_gpu_hour" */
    tc_cost_kind kind;    /* valid range and print format */
    const char *unit;     /* "$/GPU-hour" */
    const char *letter;   /* in the formulas: "P" */
    const char *help;     /* one --help line */
} tc_cost_input_desc;

/* The row of id; NULL when id is out of range. */
const tc_cost_input_desc *tc_cost_input(tc_cost_input_id id);

/* The row whose name is `name` (case-insensitive, no dashes); NULL when none is. */
const tc_cost_input_desc *tc_cost_input_find(const char *name);

/* Checks v against d's range. Returns true, or false with a phrase such as "must be greater than
 * 0; got -2" in why (why_len bytes, always NUL-terminated when why_len > 0). */
bool tc_cost_input_check(const tc_cost_input_desc *d, double v, char *why, size_t why_len);
#endif
