/* cli/traceops: `laysim trace FILE ops`, a trace's time per graph op and conversion beside
 * the cost model's prediction (study/opattr.h), as text, JSON or CSV. */
#ifndef LS_CLI_TRACEOPS_H
#define LS_CLI_TRACEOPS_H

#include "traces/trace.h"

struct cli_trace_ops_opts {
    const char *problem, *solution;  /* required */
    double base_mhz;                 /* 0: the trace's target's base clock */
    unsigned long long top;          /* ops in the text table */
    int json, csv;
    const char *out;                 /* NULL: stdout */
};

/* Exit code (CLI_OK, CLI_BAD_INPUT...). */
int cli_trace_ops(const char *path, struct trace_reader *r, const struct cli_trace_ops_opts *o);

#endif
