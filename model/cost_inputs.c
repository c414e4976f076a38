/* cost_inputs.c: the cost inputs' table built from cost_inputs.def, lookup by name, and the range
 * each kind allows (see cost_inputs.h). All data is const. */
#include "cost_inputs.h"
#include "base/status.h"
#include <math.h>
#include <strings.h>

static const tc_cost_input_desc inputs[TC_COST_INPUT_COUNT] = {
#define TC_COST_INPUT(field, name, kind, unit, letter, help)                                               \
    {TC_COST_INPUT_##field, name, #field, TC_COST_KIND_##kind, unit, letter, help},
#include "cost_inputs.def"
#undef TC_COST_INPUT
};

const tc_cost_input_desc *tc_cost_input(tc_cost_input_id id) {
    return (unsigned)id < TC_COST_INPUT_COUNT ? &inputs[id] : NULL;
}

const tc_cost_input_desc *tc_cost_input_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < TC_COST_INPUT_COUNT; i++)
        if (strcasecmp(name, inputs[i].name) == 0) return &inputs[i];
    return NULL;
}

/* What is wrong with v for a value of this kind, or NULL when it is in range. */
static const char *out_of_range(tc_cost_kind kind, double v) {
    switch (kind) {
    case TC_COST_KIND_GPUS:
        if (v < 1 || v != floor(v)) return "must be a whole number of GPUs, at least 1";
        if (v > 1e7) return "must be at most 10,000,000";
        return NULL;
    case TC_COST_KIND_MONTHS:
        if (v < 1 || v > TC_COST_MAX_MONTHS || v != floor(v))
            return "must be a whole number of months from 1 to 600";
        return NULL;
    case TC_COST_KIND_MONEY:
        if (v < 0) return "must not be negative";
        if (v > 1e13) return "must be at most $10 trillion";
        return NULL;
    case TC_COST_KIND_PRICE:
        if (v <= 0) return "must be greater than 0";
        if (v > 1e6) return "must be at most $1,000,000";
        return NULL;
    case TC_COST_KIND_SHARE:
        if (!(v > 0 && v <= 1)) return "must be in (0, 1], a share of time (0.6 = 60%)";
        return NULL;
    case TC_COST_KIND_PUE:
        if (v < 1) return "must be at least 1 (1.0 = no cooling or power-conversion overhead)";
        if (v > 10) return "must be at most 10";
        return NULL;
    case TC_COST_KIND_BANDWIDTH:
        if (v <= 0) return "must be greater than 0 GB/s";
        if (v > 1e7) return "must be at most 10,000,000 GB/s";
        return NULL;
    case TC_COST_KIND_LATENCY:
        if (v < 0) return "must not be negative";
        if (v > 1e6) return "must be at most 1,000,000 µs";
        return NULL;
    case TC_COST_KIND_POWER:
        if (v < 0) return "must not be negative";
        if (v > 1000) return "must be at most 1,000 kW per GPU";
        return NULL;
    }
    return NULL;
}

bool tc_cost_input_check(const tc_cost_input_desc *d, double v, char *why, size_t why_len) {
    const char *bad = out_of_range(d->kind, v);
    if (!bad) return true;
    tc_format(why, why_len, "%s; got %.10g", bad, v);
    return false;
}
