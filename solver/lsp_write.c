/* solver/lsp_write: the .lsp writer (the normative format of docs/design.md). */
#include "solver/problem.h"
#include "util/fileio.h"

#include <inttypes.h>
#include <stdio.h>

int lsp_write_fp(const struct lsp_problem *p, FILE *fp)
{
    fputs("lsp 1\n", fp);
    /* Each tensor (and its transpose line) right before its producer. */
    for (int32_t o = 0; o < p->nops; o++) {
        const struct lsp_op *op = &p->ops[o];
        if (op->out >= 0) {
            const struct lsp_tensor *t = &p->tensors[op->out];
            fprintf(fp, "tensor %s %" PRId32, t->name, t->nlayouts);
            if (t->labels)
                for (int32_t l = 0; l < t->nlayouts; l++)
                    fprintf(fp, " %s", t->labels[l]);
            fputc('\n', fp);
            if (t->nlayouts >= 2) {
                fprintf(fp, "transpose %s", t->name);
                int64_t n = (int64_t)t->nlayouts * t->nlayouts;
                for (int64_t k = 0; k < n; k++)
                    fprintf(fp, " %" PRId64, p->tr[t->tr0 + k]);
                fputc('\n', fp);
            }
        }
        fprintf(fp, "op %s %s %" PRId32, op->name, op->kind, op->nin);
        for (int32_t i = 0; i < op->nin; i++)
            fprintf(fp, " %s", p->tensors[op->in[i]].name);
        fprintf(fp, " %s\n", op->out >= 0 ? p->tensors[op->out].name : "-");
        for (int32_t c = 0; c < op->ncfg; c++) {
            fprintf(fp, "cfg %" PRId64, lsp_cfg_cost(p, o, c));
            const int32_t *lay = lsp_cfg_layouts(p, o, c);
            for (int32_t s = 0; s < op->nslots; s++)
                fprintf(fp, " %" PRId32, lay[s]);
            fputc('\n', fp);
        }
    }
    return ferror(fp) ? -1 : 0;
}

int lsp_write(const struct lsp_problem *p, const char *path, struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    if (lsp_write_fp(p, af.fp)) {
        ls_atomic_abort(&af);
        return ls_error_msg(err, LS_ERR_IO, "%s: write error", path);
    }
    return ls_atomic_commit(&af, err);
}
