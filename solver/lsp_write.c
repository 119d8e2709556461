/* solver/lsp_write: the .lsp writer (the normative format of docs/design.md). */
#include "solver/problem.h"
#include "util/fileio.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/hash.h"

int lsp_write_fp(const struct lsp_problem *p, FILE *fp)
{
    struct lsp_tie tie = p->tie;
    tie.v[LSP_TIE_PROBLEM][0] = '\0';
    lsp_tie_write(&tie, fp);
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

static uint64_t hash_i64(uint64_t h, int64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)   /* little-endian bytes: the same hash on every host */
        b[i] = (unsigned char)((uint64_t)v >> (8 * i));
    return ls_fnv1a64_update(h, b, sizeof b);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    return ls_fnv1a64_update(h, s, strlen(s) + 1);
}

uint64_t lsp_problem_hash(const struct lsp_problem *p)
{
    uint64_t h = hash_i64(hash_i64(LS_FNV64_INIT, p->ntensors), p->nops);
    for (int32_t t = 0; t < p->ntensors; t++) {
        const struct lsp_tensor *x = &p->tensors[t];
        h = hash_i64(hash_str(h, x->name), x->nlayouts);
        for (int32_t l = 0; x->labels && l < x->nlayouts; l++)
            h = hash_str(h, x->labels[l]);
        for (int32_t a = 0; a < x->nlayouts; a++)
            for (int32_t b = 0; b < x->nlayouts; b++)
                h = hash_i64(h, lsp_tr_cost(p, t, a, b));
    }
    for (int32_t o = 0; o < p->nops; o++) {
        const struct lsp_op *op = &p->ops[o];
        h = hash_i64(hash_str(hash_str(h, op->name), op->kind), op->nin);
        for (int32_t i = 0; i < op->nin; i++)
            h = hash_i64(h, op->in[i]);
        h = hash_i64(hash_i64(h, op->out), op->ncfg);
        for (int32_t c = 0; c < op->ncfg; c++) {
            h = hash_i64(h, lsp_cfg_cost(p, o, c));
            const int32_t *lay = lsp_cfg_layouts(p, o, c);
            for (int32_t s = 0; s < op->nslots; s++)
                h = hash_i64(h, lay[s]);
        }
    }
    return h;
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
