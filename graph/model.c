/* graph/model: zoo:NAME | config.json | .onnx | .lg -> graph. */
#include <stdlib.h>
#include <string.h>

#include "graph/foldbn.h"
#include "graph/hf.h"
#include "graph/lg.h"
#include "graph/model.h"
#include "graph/onnx.h"
#include "util/fileio.h"

int model_opts_any(const struct zoo_opts *o)
{
    return o && (o->layers || o->seq || o->batch || o->hidden || o->image || o->dtype >= 0);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The graph of spec as its source describes it (scaled, no dtype pass). */
static int load_raw(const char *spec, const struct zoo_opts *opts, struct graph **out,
                    struct ls_error *err)
{
    *out = NULL;
    if (!spec || !*spec)
        return ls_error_msg(err, LS_ERR_INPUT, "empty model name");
    if (!strncmp(spec, "zoo:", 4))
        return zoo_build(spec + 4, opts, out, err);
    int json = ends_with(spec, ".json");
    char *buf = NULL;
    size_t len = 0;
    int rc = ls_read_file(spec, &buf, &len, err);
    if (rc) {
        struct zoo_arch a;
        struct ls_error ignored;
        if (!strchr(spec, '/') && zoo_arch_get(spec, &a, &ignored) == 0) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            ls_error_set(err, rc, spec, 0, 0, "%s; did you mean zoo:%s (the built-in model)?",
                         msg, spec);
        }
        return rc;
    }
    if (ends_with(spec, ".onnx") || (!json && onnx_sniff(buf, len))) {
        if (opts->layers || opts->hidden || opts->image || opts->dtype >= 0) {
            free(buf);
            return ls_error_set(err, LS_ERR_INPUT, spec, 0, 0,
                                "--layers, --hidden, --image and --dtype scale zoo: models and "
                                "config.json files; an ONNX model takes --input, --batch, --seq");
        }
        rc = onnx_import(spec, buf, len, opts, out, err);
        free(buf);
        return rc;
    }
    if (!json) {
        size_t i = 0;
        while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
            i++;
        json = i < len && buf[i] == '{';
    }
    if (json) {
        struct zoo_arch a;
        rc = hf_arch_parse(spec, buf, len, &a, err);
        free(buf);
        if (!rc)
            rc = zoo_arch_scale(&a, opts, err);
        if (!rc)
            rc = zoo_arch_build(&a, out, err);
        return rc;
    }
    if (model_opts_any(opts) || opts->inputs) {
        free(buf);
        return ls_error_set(err, LS_ERR_INPUT, spec, 0, 0,
                            "scaling options (--layers, --seq, --batch, --hidden...) apply to "
                            "zoo: models and config.json files and --input/--batch/--seq to "
                            "ONNX models, not to graph files");
    }
    rc = graph_read(spec, buf, len, out, err);
    free(buf);
    return rc;
}

int model_load(const char *spec, const struct zoo_opts *opts, struct graph **out,
               struct ls_error *err)
{
    struct zoo_opts defaults;
    if (!opts) {
        zoo_opts_init(&defaults);
        opts = &defaults;
    }
    struct graph *raw = NULL, *folded = NULL;
    int rc = load_raw(spec, opts, &raw, err);
    if (rc || opts->autocast == GRAPH_AUTOCAST_NONE) {   /* NONE: the graph as loaded */
        *out = raw;
        return rc;
    }
    /* the inference compiler's passes: batchnorm folding, then the bf16 auto-cast */
    rc = graph_fold_batchnorm(raw, &folded, err);
    graph_free(raw);
    if (rc)
        return rc;
    rc = graph_autocast(folded, (enum graph_autocast)opts->autocast, out, err);
    graph_free(folded);
    return rc;
}
