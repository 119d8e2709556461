/* solver/gen_files: the generators' file inputs: a DIMACS CNF formula for the 3-SAT gadget
 * and an edge list for the odd-cycle-transversal gadget. Every error names the file, line
 * and column (util/scan). */
#include <stdlib.h>

#include "solver/gen.h"
#include "util/fileio.h"
#include "util/scan.h"
#include "util/vec.h"

/* DIMACS CNF: 'c' comment lines, 'p cnf V C', literals separated by blanks, 0 ends a
 * clause. Lines are tokenized with util/scan ('c' lines skipped by hand). */
int lsp_gen_sat_file(const char *path, struct lsp_problem **out, struct ls_error *err)
{
    char *buf;
    size_t len;
    int rc = ls_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    struct ls_scan sc;
    ls_scan_init(&sc, path, buf, len);
    LS_VEC(int32_t) off = {0};
    LS_VEC(int32_t) lits = {0};
    int64_t nvars = -1, nclauses = 0;
    int open = 0, header_line = 1;
    while ((rc = ls_scan_next(&sc, err)) > 0) {
        rc = 0;
        if (ls_tok_eq(&sc.tok[0], "c") || ls_tok_eq(&sc.tok[0], "%"))
            continue;
        if (ls_tok_eq(&sc.tok[0], "p")) {
            uint64_t v, c;
            if (nvars >= 0 || sc.ntok != 4 || !ls_tok_eq(&sc.tok[1], "cnf")) {
                rc = ls_scan_error(&sc, 0, err, "expected one header 'p cnf <vars> <clauses>'");
                break;
            }
            if ((rc = ls_scan_u64(&sc, 2, "variables", &v, err)) ||
                (rc = ls_scan_u64(&sc, 3, "clauses", &c, err)))
                break;
            if (v > 1000000 || c > 10000000) {
                rc = ls_scan_error(&sc, 2, err, "formula too large");
                break;
            }
            nvars = (int64_t)v;
            nclauses = (int64_t)c;
            header_line = sc.line;
            continue;
        }
        if (nvars < 0) {
            rc = ls_scan_error(&sc, 0, err, "clause before the 'p cnf' header");
            break;
        }
        for (size_t i = 0; i < sc.ntok && !rc; i++) {
            int64_t l;
            if ((rc = ls_scan_i64(&sc, i, "literal", &l, err)))
                break;
            if (l < -nvars || l > nvars) {
                rc = ls_scan_error(&sc, i, err, "literal %lld: variables are 1..%lld",
                                   (long long)l, (long long)nvars);
                break;
            }
            if (!open) {
                if (l == 0)
                    continue;
                if (LS_VEC_PUSH(&off, (int32_t)lits.len)) {
                    rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                    break;
                }
                open = 1;
            }
            if (l == 0)
                open = 0;
            else if (lits.len - (size_t)off.data[off.len - 1] == LSP_GEN_SAT_MAX_LITS)
                rc = ls_scan_error(&sc, i, err, "clause %zu has more than %d literals",
                                   off.len, LSP_GEN_SAT_MAX_LITS);
            else if (LS_VEC_PUSH(&lits, (int32_t)l))
                rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        }
        if (rc)
            break;
    }
    if (rc < 0)
        rc = err->code ? err->code : LS_ERR_INPUT;
    if (!rc && nvars < 0)
        rc = ls_error_set(err, LS_ERR_INPUT, path, 1, 1, "no 'p cnf' header");
    if (!rc && open)
        rc = ls_error_set(err, LS_ERR_INPUT, path, sc.line, 1, "last clause does not end in 0");
    if (!rc && (int64_t)off.len != nclauses)
        rc = ls_error_set(err, LS_ERR_INPUT, path, header_line, 1,
                          "header says %lld clauses, found %zu",
                          (long long)nclauses, off.len);
    if (!rc && LS_VEC_PUSH(&off, (int32_t)lits.len))
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = lsp_gen_sat((int32_t)nvars, (int32_t)nclauses, off.data, lits.data, out, err);
    ls_scan_free(&sc);
    free(buf);
    LS_VEC_FREE(&off);
    LS_VEC_FREE(&lits);
    return rc;
}

/* Edge list: the vertex count, then one "u v" line per edge (0-based). */
int lsp_gen_oct_file(const char *path, struct lsp_problem **out, struct ls_error *err)
{
    char *buf;
    size_t len;
    int rc = ls_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    struct ls_scan sc;
    ls_scan_init(&sc, path, buf, len);
    LS_VEC(int32_t) edges = {0};
    int64_t n = -1;
    while ((rc = ls_scan_next(&sc, err)) > 0) {
        uint64_t u, v;
        rc = 0;
        if (n < 0) {
            if ((rc = ls_scan_arity(&sc, 1, 1, "<vertex count>", err)) ||
                (rc = ls_scan_u64(&sc, 0, "vertex count", &u, err)))
                break;
            if (u < 1 || u > 10000000) {
                rc = ls_scan_error(&sc, 0, err, "vertex count must be 1..10000000");
                break;
            }
            n = (int64_t)u;
            continue;
        }
        if ((rc = ls_scan_arity(&sc, 2, 2, "<u> <v>", err)) ||
            (rc = ls_scan_u64(&sc, 0, "vertex", &u, err)) ||
            (rc = ls_scan_u64(&sc, 1, "vertex", &v, err)))
            break;
        if ((int64_t)u >= n || (int64_t)v >= n || u == v) {
            rc = ls_scan_error(&sc, (int64_t)u >= n || u == v ? 0 : 1, err,
                               "edge %llu %llu: vertices must differ and be below %lld",
                               (unsigned long long)u, (unsigned long long)v, (long long)n);
            break;
        }
        if (LS_VEC_PUSH(&edges, (int32_t)u) || LS_VEC_PUSH(&edges, (int32_t)v)) {
            rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            break;
        }
    }
    if (rc < 0)
        rc = err->code ? err->code : LS_ERR_INPUT;
    if (!rc && n < 0)
        rc = ls_error_set(err, LS_ERR_INPUT, path, 1, 1, "empty graph file: expected the vertex count");
    if (!rc)
        rc = lsp_gen_oct((int32_t)n, (int32_t)(edges.len / 2), edges.data, out, err);
    ls_scan_free(&sc);
    free(buf);
    LS_VEC_FREE(&edges);
    return rc;
}
