// libFuzzer target for the simulator program text reader (sim/program_text.c:
// sim_program_parse). Not built by default: tests/fuzz/run.sh builds and runs it.
/* A parsed program must write back, re-read to the same instruction count and write again
 * to the same text; a rejected one must carry a located LS_ERR_INPUT. Anything else
 * aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/program.h"

static char *write_text(const struct sim_program *p, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp || sim_program_write(p, fp))
        abort();
    fclose(fp);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_program *p = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = sim_program_parse(&p, "fuzz.lsprog", (const char *)data, size, &err);
    if (rc) {
        /* binary programs (fuzz_progz) are located by byte offset, text ones by line */
        int located = sim_program_is_binary(data, size) || (err.line >= 1 && err.col >= 1);
        if (p || (rc == LS_ERR_INPUT && !located))
            abort();
        return 0;
    }
    size_t n = sim_program_count(p);
    for (size_t i = 0; i < n; i++) {
        size_t nd = 0;
        const uint32_t *d = sim_program_deps(p, i, &nd);
        for (size_t k = 0; k < nd; k++)
            if (d[k] >= i)
                abort();   /* dependencies point backwards (a topological order) */
        char where[128];
        (void)sim_program_where(p, i, where, sizeof where);
    }
    size_t len1 = 0, len2 = 0;
    char *t1 = write_text(p, &len1);
    struct sim_program *q = NULL;
    if (sim_program_parse(&q, "again.lsprog", t1, len1, &err) || sim_program_count(q) != n)
        abort();
    char *t2 = write_text(q, &len2);
    if (len1 != len2 || memcmp(t1, t2, len1) != 0)
        abort();
    free(t1);
    free(t2);
    sim_program_free(q);
    sim_program_free(p);
    return 0;
}
