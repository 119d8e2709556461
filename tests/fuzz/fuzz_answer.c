// libFuzzer target for the external-answer reader (lsp_answer_parse). Not built by default:
// tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* The first byte picks the format (wcnf, cfn, lp: its value mod 3), the rest is the answer,
 * read against a small built-in problem. An accepted answer must be a full assignment
 * whose cost is the objective and that lsp_solution_verify accepts, optimal only with a
 * bound equal to the cost; a rejected one must carry a located LS_ERR_INPUT. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solver/answer.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    struct ls_error err;
    ls_error_clear(&err);
    struct lsp_problem *p = NULL;
    if (lsp_parse("fuzz.lsp", builtin_lsp, sizeof builtin_lsp - 1, &p, &err))
        abort();
    struct lsp_solution s;
    struct lsp_answer_claim claim;
    int rc = lsp_answer_parse(p, data[0] % 3, "fuzz.answer", (const char *)data + 1, size - 1,
                              &s, &claim, &err);
    if (rc) {
        if (rc != LS_ERR_INPUT || err.line < 1 || err.col < 1 || s.cfg)
            abort();
        lsp_free(p);
        return 0;
    }
    if (!s.cfg || s.nops != p->nops || lsp_check_assignment(p, s.cfg, &err) ||
        s.cost != lsp_eval(p, s.cfg, NULL, NULL) || lsp_solution_verify(p, &s, &err))
        abort();
    if (s.status == LSP_OPTIMAL && (!s.has_bound || s.bound != s.cost))
        abort();
    lsp_solution_free(&s);
    lsp_free(p);
    return 0;
}
