// libFuzzer target for the binary program reader (sim/program_bin.c:
// sim_program_parse_binary). Not built by default: tests/fuzz/run.sh builds and runs it.
/* A program read from the binary form must write back to the same bytes (the writer is
 * deterministic and canonical) and its dependencies point backwards; a rejected input must
 * be an LS_ERR_INPUT naming a byte offset (or out of memory / a limit). Anything else
 * aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/program.h"

static char *write_bin(const struct sim_program *p, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp || sim_program_write_binary(p, fp))
        abort();
    fclose(fp);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_program *p = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = sim_program_parse_binary(&p, "fuzz.lsprogz", data, size, &err);
    if (rc) {
        if (p || (rc == LS_ERR_INPUT && !strstr(err.msg, "byte offset")))
            abort();
        return 0;
    }
    size_t n = sim_program_count(p);
    for (size_t i = 0; i < n; i++) {
        size_t nd = 0;
        const uint32_t *d = sim_program_deps(p, i, &nd);
        for (size_t k = 0; k < nd; k++)
            if (d[k] >= i)
                abort();
    }
    size_t len1 = 0;
    char *b1 = write_bin(p, &len1);
    struct sim_program *q = NULL;
    if (sim_program_parse_binary(&q, "again.lsprogz", b1, len1, &err) ||
        sim_program_count(q) != n)
        abort();
    size_t len2 = 0;
    char *b2 = write_bin(q, &len2);
    if (len1 != len2 || memcmp(b1, b2, len1) != 0)
        abort();
    free(b1);
    free(b2);
    sim_program_free(q);
    sim_program_free(p);
    return 0;
}
