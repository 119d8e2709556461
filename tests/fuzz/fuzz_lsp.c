// libFuzzer target for the .lsp problem reader (lsp_parse). Not built by default:
// tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* Every input must give a finished problem that writes back, re-reads and writes again to
 * the same text (and the same totals), or a located LS_ERR_INPUT; anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/problem.h"

static char *write_text(const struct lsp_problem *p, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp || lsp_write_fp(p, fp))
        abort();
    fclose(fp);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lsp_problem *p = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = lsp_parse("fuzz.lsp", (const char *)data, size, &p, &err);
    if (rc) {
        if (p || (rc == LS_ERR_INPUT && (err.line < 1 || err.col < 1)))
            abort();
        return 0;
    }
    if (!p->finished || p->nops < 0 || p->ntensors < 0 || p->cost_sum >= LSP_COST_LIMIT)
        abort();
    /* The objective of the all-zero assignment is defined and below the cost sum. */
    int32_t *cfg = calloc((size_t)p->nops + 1, sizeof *cfg);
    if (!cfg || lsp_check_assignment(p, cfg, &err))
        abort();
    int64_t total = lsp_eval(p, cfg, NULL, NULL);
    if (total < 0 || total > p->cost_sum)
        abort();
    free(cfg);

    size_t len1 = 0, len2 = 0;
    char *t1 = write_text(p, &len1);
    struct lsp_problem *q = NULL;
    if (lsp_parse("again.lsp", t1, len1, &q, &err))
        abort();
    if (q->ntensors != p->ntensors || q->nops != p->nops || q->ncfg != p->ncfg ||
        q->cost_sum != p->cost_sum || q->max_cfg != p->max_cfg ||
        q->max_layouts != p->max_layouts)
        abort();
    char *t2 = write_text(q, &len2);
    if (len1 != len2 || memcmp(t1, t2, len1) != 0)
        abort();
    free(t1);
    free(t2);
    lsp_free(q);
    lsp_free(p);
    return 0;
}
