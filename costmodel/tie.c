/* costmodel/tie: the model-hash and the other build keys of a .lsp's tie headers. */
#include "costmodel/tie.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "util/fileio.h"
#include "util/hash.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "model zoo:NAME", or "model-file HASH" of a file's contents. */
static int print_model(FILE *fp, const char *spec, struct ls_error *err)
{
    if (strncmp(spec, "zoo:", 4) == 0) {
        fprintf(fp, "model %s\n", spec);
        return 0;
    }
    char *file = NULL;
    size_t flen = 0;
    int rc = ls_read_file(spec, &file, &flen, err);
    if (rc)
        return rc;
    fprintf(fp, "model-file %016llx\n", (unsigned long long)ls_fnv1a64(file, flen));
    free(file);
    return 0;
}

/* The pins, sorted: the order of the flags is moot. */
static int print_pins(FILE *fp, const char *const *pins, int npins, struct ls_error *err)
{
    if (npins <= 0)
        return 0;
    const char **sorted = malloc(sizeof *sorted * (size_t)npins);
    if (!sorted)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    memcpy(sorted, pins, sizeof *sorted * (size_t)npins);
    qsort(sorted, (size_t)npins, sizeof *sorted, cmp_str);
    for (int i = 0; i < npins; i++)
        fprintf(fp, "pin %s\n", sorted[i]);
    free(sorted);
    return 0;
}

int cm_model_hash(const char *spec, const struct zoo_opts *z, const struct cg_options *cg,
                  const char *const *pins, int npins, uint64_t *out, struct ls_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = print_model(fp, spec, err);
    if (!rc) {
        fprintf(fp, "layers %lld\nseq %lld\nbatch %lld\nhidden %lld\nimage %lld\ndtype %d\n"
                    "autocast %d\nexact-transpose %d\n",
                (long long)z->layers, (long long)z->seq, (long long)z->batch,
                (long long)z->hidden, (long long)z->image, z->dtype, z->autocast,
                cg ? cg->exact_transpose : 0);
        if (cg && cg->memplan == CG_MEMPLAN_PARTIAL)   /* absent by default: older hashes hold */
            fprintf(fp, "memplan partial\n");
        rc = print_pins(fp, pins, npins, err);
    }
    fclose(fp);
    if (!rc)
        *out = ls_fnv1a64(text, len);
    free(text);
    return rc;
}

void cm_tie_set(struct lsp_tie *tie, uint64_t model_hash, const struct sim_target *t,
                const struct cm_table *tb)
{
    memset(tie, 0, sizeof *tie);
    lsp_tie_set_hash(tie, LSP_TIE_MODEL, model_hash);
    lsp_tie_set_hash(tie, LSP_TIE_TARGET, sim_target_hash(t));
    lsp_tie_set_hash(tie, LSP_TIE_TABLE, cm_table_hash(tb));
    lsp_tie_set(tie, LSP_TIE_CODEGEN, CG_VERSION);
}
