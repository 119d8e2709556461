/* solver/tie: the `# key: value` comment headers that tie a .lsp to the options it was
 * built from (model, target, latency table, codegen version) and a .sol to its problem.
 *
 * The formats stay `lsp 1` / `lsp-solution 1`: the headers are comments, so every reader
 * that ignores comments still reads the files, and files without them (hand-written,
 * generated, from external solvers) are read as before with an empty tie. docs/formats.md
 * "Solutions tied to their problem". The solver layer only carries and compares the
 * values; the commands that know a model compute the first four. */
#ifndef LS_SOLVER_TIE_H
#define LS_SOLVER_TIE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum lsp_tie_key {
    LSP_TIE_MODEL,           /* model-hash: model spec or file contents, scaling, pins */
    LSP_TIE_TARGET,          /* target-hash: sim_target_hash */
    LSP_TIE_TABLE,           /* table-hash: cm_table_hash */
    LSP_TIE_CODEGEN,         /* codegen-version: CG_VERSION */
    LSP_TIE_PROBLEM,         /* problem-hash: lsp_problem_hash (.sol only) */
    LSP_TIE_NKEYS
};

#define LSP_TIE_VALUE_MAX 40

/* One value per key; "" = absent. */
struct lsp_tie {
    char v[LSP_TIE_NKEYS][LSP_TIE_VALUE_MAX];
};

/* "model-hash", "target-hash", "table-hash", "codegen-version", "problem-hash". */
const char *lsp_tie_key_name(int key);
/* The short name used in messages: "model", "target", "table", "codegen", "problem". */
const char *lsp_tie_what(int key);
/* Set key to value (truncated to LSP_TIE_VALUE_MAX - 1 characters). */
void lsp_tie_set(struct lsp_tie *t, int key, const char *value);
/* Set key to the 64-bit hash h written as 16 hex digits. */
void lsp_tie_set_hash(struct lsp_tie *t, int key, uint64_t h);
/* 1 when no key has a value. */
int lsp_tie_empty(const struct lsp_tie *t);
/* Collect the `# <key>: <value>` lines of a text (comment lines starting at column 1 with
 * one of the keys above; anything else is left alone). A later line wins. */
void lsp_tie_scan(const char *buf, size_t len, struct lsp_tie *t);
/* Write the keys that have a value, one `# key: value` line each. */
void lsp_tie_write(const struct lsp_tie *t, FILE *fp);
/* The first key (in enum order) present in both with different values; -1 when none. */
int lsp_tie_diff(const struct lsp_tie *a, const struct lsp_tie *b);
/* The keys on which a .sol's headers (sol) differ from a problem's own (here), as one
 * phrase "target differs (target-hash X in the .sol, Y here); ..." in buf; the problem
 * hash is named only when nothing upstream of it differs. Returns 1 when some key
 * differs, else 0 (buf ""). `laysim compile` and laysim_compile share it. */
int lsp_tie_mismatch(const struct lsp_tie *sol, const struct lsp_tie *here, char *buf, size_t n);

#endif
