// libFuzzer target for the .sol solution reader (lsp_sol_parse). Not built by default:
// tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* The input is a .sol text read against a small built-in problem, or "LSP %%\nSOL": a
 * problem and a solution. A parsed solution must satisfy the format's rules (status,
 * bound <= cost, every cfg in range), write back and re-read to the same solution; a
 * rejected one must carry a located LS_ERR_INPUT. Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/problem.h"

static const char builtin_lsp[] =
    "lsp 1\n"
    "tensor x 2 p:m p:k\n"
    "transpose x 0 30 30 0\n"
    "op load_x input 0 x\n"
    "cfg 10 0\n"
    "cfg 40 1\n"
    "tensor y 2\n"
    "transpose y 0 20 20 0\n"
    "op mm matmul 2 x x y\n"
    "cfg 50 1 0 0\n"
    "cfg 52 1 0 1\n"
    "cfg 7 0 0 1\n"
    "op out return 1 y -\n"
    "cfg 0 1\n";

static const char sep[] = "%%\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data, *sol = text;
    size_t sol_len = size;
    const char *lsp = builtin_lsp;
    size_t lsp_len = sizeof builtin_lsp - 1;
    for (size_t i = 0; i + 3 <= size; i++)
        if (memcmp(text + i, sep, 3) == 0 && (i == 0 || text[i - 1] == '\n')) {
            lsp = text;
            lsp_len = i;
            sol = text + i + 3;
            sol_len = size - i - 3;
            break;
        }
    struct ls_error err;
    ls_error_clear(&err);
    struct lsp_problem *p = NULL;
    if (lsp_parse("fuzz.lsp", lsp, lsp_len, &p, &err)) {
        if (lsp == builtin_lsp)
            abort();
        return 0;
    }
    struct lsp_solution s, t;
    lsp_solution_init(&s);
    lsp_solution_init(&t);
    int rc = lsp_sol_parse(p, "fuzz.sol", sol, sol_len, &s, &err);
    if (rc) {
        if (rc == LS_ERR_INPUT && (err.line < 1 || err.col < 1))
            abort();
        lsp_solution_free(&s);
        lsp_free(p);
        return 0;
    }
    if (s.status < LSP_UNKNOWN || s.status > LSP_OPTIMAL)
        abort();
    if (s.has_bound && s.bound > s.cost)
        abort();
    if (s.status == LSP_OPTIMAL && (!s.has_bound || s.bound != s.cost))
        abort();
    if (s.nops != 0 && s.nops != p->nops)
        abort();
    if (s.nops) {
        if (!s.cfg || lsp_check_assignment(p, s.cfg, &err))
            abort();
        (void)lsp_solution_verify(p, &s, &err);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp || lsp_sol_write_fp(p, &s, fp))
        abort();
    fclose(fp);
    if (lsp_sol_parse(p, "again.sol", buf, len, &t, &err))
        abort();
    if (t.status != s.status || t.nops != s.nops || t.cost != s.cost ||
        t.has_bound != s.has_bound || (s.has_bound && t.bound != s.bound) ||
        (s.nops && memcmp(s.cfg, t.cfg, sizeof *s.cfg * (size_t)s.nops) != 0))
        abort();
    free(buf);
    lsp_solution_free(&t);
    lsp_solution_free(&s);
    lsp_free(p);
    return 0;
}
