/* Every model option of the CLI reaches laysim_model_load with the CLI's meaning: per
 * option (laysim_model_option_name lists them), the problem the API builds with it is the
 * .lsp `laysim problem --NAME VALUE` writes, byte for byte (hash headers included), and
 * differs from the one without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "laysim/laysim.h"

#define ONNX_ATTN LAYSIM_SOURCE_DIR "/tests/data/onnx/tiny_attn.onnx"

/* One option: a model, options every run of the case takes, and the option's own
 * "NAME=VALUE" entries (input is repeatable: two). */
static const struct option_case {
    const char *name, *spec;
    const char *base[3], *opt[3];
} cases[] = {
    {"layers", "zoo:bert-base", {"layers=1"}, {"layers=2"}},
    {"seq", "zoo:bert-base", {"layers=1"}, {"seq=64"}},
    {"batch", "zoo:bert-base", {"layers=1"}, {"batch=2"}},
    {"hidden", "zoo:bert-base", {"layers=1"}, {"hidden=256"}},
    {"image", "zoo:cnn", {"layers=1"}, {"image=64"}},
    {"dtype", "zoo:bert-base", {"layers=1"}, {"dtype=fp16"}},
    {"autocast", "zoo:bert-base", {"layers=1"}, {"autocast=none"}},
    {"decode", "zoo:olmo-7b", {"layers=1", "hidden=256"}, {"decode=64"}},
    {"input", ONNX_ATTN, {NULL}, {"input=x=3x5x32", "input=mask=3x1x1x5"}},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* A .lsp file's problem and hash headers ("# key: value"), without its other comments
 * (the CLI's command line and build time); malloc'd. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap), line[4096];
    assert_non_null(out);
    while (fgets(line, sizeof line, f)) {
        size_t key = line[0] == '#' ? strspn(line + 2, "abcdefghijklmnopqrstuvwxyz-") : 0;
        if (line[0] == '#' && !(key && !strncmp(line + 2 + key, ": ", 2)))
            continue;
        size_t n = strlen(line);
        while (len + n + 1 > cap)
            assert_non_null(out = realloc(out, cap *= 2));
        memcpy(out + len, line, n);
        len += n;
    }
    fclose(f);
    out[len] = 0;
    return out;
}

/* The problem the API builds for spec under the options, as .lsp text (malloc'd). */
static char *api_problem(laysim_ctx *cx, const char *spec, const char *const *opts,
                         const char *path)
{
    laysim_model *m;
    laysim_target *t;
    laysim_instance *in;
    if (laysim_model_load(cx, spec, opts, &m))
        fail_msg("%s: %s", spec, laysim_errmsg(cx));
    assert_int_equal(laysim_target_load(cx, "nc-v2", &t), 0);
    assert_int_equal(laysim_instance_new(cx, m, t, NULL, &in), 0);
    assert_int_equal(laysim_problem_write(cx, laysim_instance_problem(in), path), 0);
    laysim_instance_free(in);
    laysim_target_free(t);
    laysim_model_free(m);
    return slurp(path);
}

/* opts as command-line arguments: "NAME=VALUE" -> " --NAME VALUE", appended to cmd. */
static void cli_args(char *cmd, size_t n, const char *const *opts)
{
    for (size_t i = 0; opts[i]; i++) {
        const char *eq = strchr(opts[i], '=');
        size_t len = strlen(cmd);
        snprintf(cmd + len, n - len, " --%.*s '%s'", (int)(eq - opts[i]), opts[i], eq + 1);
    }
}

static void check_case(laysim_ctx *cx, const struct option_case *c, const char *dir)
{
    const char *with[8], *without[8];
    size_t k = 0;
    for (size_t i = 0; i < 3 && c->base[i]; i++)
        with[k++] = c->base[i];
    memcpy(without, with, sizeof *with * k);
    without[k] = NULL;
    for (size_t i = 0; i < 3 && c->opt[i]; i++)
        with[k++] = c->opt[i];
    with[k] = NULL;
    char a[256], b[256], cl[256], cmd[2048];
    snprintf(a, sizeof a, "%s/%s.api.lsp", dir, c->name);
    snprintf(b, sizeof b, "%s/%s.base.lsp", dir, c->name);
    snprintf(cl, sizeof cl, "%s/%s.cli.lsp", dir, c->name);
    char *api = api_problem(cx, c->spec, with, a);
    char *base = api_problem(cx, c->spec, without, b);
    snprintf(cmd, sizeof cmd, "'%s' problem '%s'", LAYSIM_BINARY, c->spec);
    cli_args(cmd, sizeof cmd, with);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " -q -o '%s'", cl);
    assert_int_equal(system(cmd), 0);
    char *cli = slurp(cl);
    if (strcmp(api, cli))
        fail_msg("option %s: the API's problem differs from `%s`", c->name, cmd);
    if (!strcmp(api, base))
        fail_msg("option %s: the problem is the same without it", c->name);
    free(api);
    free(base);
    free(cli);
}

static void test_every_option(void **state)
{
    (void)state;
    /* the cases name every option, in the API's order */
    assert_int_equal(laysim_model_option_count(), (int32_t)NCASES);
    for (size_t i = 0; i < NCASES; i++)
        assert_string_equal(laysim_model_option_name((int32_t)i), cases[i].name);
    assert_null(laysim_model_option_name((int32_t)NCASES));
    assert_null(laysim_model_option_name(-1));
    char dir[] = "/tmp/laysim-opts-XXXXXX";
    assert_non_null(mkdtemp(dir));
    laysim_ctx *cx = laysim_new();
    for (size_t i = 0; i < NCASES; i++)
        check_case(cx, &cases[i], dir);
    /* a bad value names the option; input is checked like --input */
    laysim_model *m = NULL;
    const char *bad[] = {"input=x=3xx5", NULL};
    assert_int_equal(laysim_model_load(cx, ONNX_ATTN, bad, &m), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(cx), "--input 'x=3xx5'"));
    const char *unknown[] = {"input=y=3x5x32", NULL};
    assert_int_equal(laysim_model_load(cx, ONNX_ATTN, unknown, &m), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(cx), "no input 'y'"));
    assert_null(m);
    laysim_free(cx);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
