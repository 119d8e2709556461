/* study/tune_store: the autotuner's store hook (solver/tune.h) on the results database's
 * metric rows (study/db.h), and the problem hash of its key (study/study_tune.h). */
#include <stdio.h>
#include <stdlib.h>

#include "study/db.h"
#include "study/study_tune.h"
#include "util/hash.h"

static void key_of(const struct study_tune_store *st, uint64_t hash, struct study_db_tune_key *k)
{
    k->problem_hash = st->problem_hash;
    k->assignment_hash = hash;
    k->target_hash = st->target_hash;
    k->table_hash = st->table_hash;
    k->codegen_version = st->codegen_version;
}

static int store_lookup(void *ctx, const int32_t *a, int32_t nops, uint64_t hash,
                        double *cycles, int *found, struct ls_error *err)
{
    struct study_tune_store *st = ctx;
    struct study_db_tune_key k;
    key_of(st, hash, &k);
    int rc = study_db_tune_get(st->db, &k, a, nops, cycles, found, err);
    if (!rc && *found)
        st->hits++;
    return rc;
}

static int store_save(void *ctx, const int32_t *a, int32_t nops, uint64_t hash, double cycles,
                      struct ls_error *err)
{
    struct study_tune_store *st = ctx;
    struct study_db_tune_key k;
    key_of(st, hash, &k);
    int rc = study_db_tune_put(st->db, &k, a, nops, cycles, err);
    if (!rc)
        st->saved++;
    return rc;
}

void study_tune_store_hook(struct study_tune_store *st, struct lsp_tune_store *hook)
{
    hook->ctx = st;
    hook->lookup = store_lookup;
    hook->save = store_save;
}

uint64_t study_tune_problem_hash(const struct lsp_problem *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return 0;
    lsp_write_fp(p, f);
    fclose(f);
    uint64_t h = ls_fnv1a64(buf, len);
    free(buf);
    return h;
}
