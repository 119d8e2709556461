/* graph/model: zoo:NAME | config.json | TF.js model.json | .onnx | HLO text | .lg -> graph. */
#include <stdlib.h>
#include <string.h>

#include "graph/autocast.h"
#include "graph/foldbn.h"
#include "graph/hf.h"
#include "graph/hlo.h"
#include "graph/inputs.h"
#include "graph/lg.h"
#include "graph/model.h"
#include "graph/onnx.h"
#include "graph/tfjs.h"
#include "util/dtype.h"
#include "util/fileio.h"

int model_opts_any(const struct zoo_opts *o)
{
    return o && (o->layers || o->seq || o->batch || o->hidden || o->image || o->decode ||
                 o->dtype >= 0);
}

const char *const model_opt_names[MODEL_NOPTS] = {
#define MODEL_OPT_NAME_(n) #n,
    MODEL_OPTIONS(MODEL_OPT_NAME_)
#undef MODEL_OPT_NAME_
};

/* One --input entry appended to *inputs (joined by ';'), which o->inputs then names. */
static int input_append(struct zoo_opts *o, char **inputs, const char *value,
                        struct ls_error *err)
{
    if (!inputs)
        return ls_error_msg(err, LS_ERR_INPUT, "--input: not taken here");
    if (graph_inputs_check(value, err))
        return LS_ERR_INPUT;
    if (strchr(value, ';'))
        return ls_error_msg(err, LS_ERR_INPUT, "--input '%s': one NAME=DIMS per --input",
                            value);
    size_t old = *inputs ? strlen(*inputs) : 0, n = strlen(value);
    char *buf = realloc(*inputs, old + n + 2);
    if (!buf)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (old)
        buf[old++] = ';';
    memcpy(buf + old, value, n + 1);
    *inputs = buf;
    o->inputs = buf;
    return 0;
}

int model_opts_set(struct zoo_opts *o, const char *name, const char *value, char **inputs,
                   struct ls_error *err)
{
    if (!strcmp(name, "input"))
        return input_append(o, inputs, value, err);
    if (!strcmp(name, "dtype")) {
        enum ls_dtype dt;
        if (ls_dtype_parse(value, strlen(value), &dt) || dt == LS_DT_INT32 || dt == LS_DT_INT8)
            return ls_error_msg(err, LS_ERR_INPUT,
                                "--dtype: expected fp32, bf16, fp16 or fp8, got '%s'", value);
        o->dtype = (int)dt;
        return 0;
    }
    if (!strcmp(name, "autocast")) {
        enum graph_autocast m;
        if (graph_autocast_parse(value, &m))
            return ls_error_msg(err, LS_ERR_INPUT,
                                "--autocast: expected none or matmul, got '%s'", value);
        o->autocast = (int)m;
        return 0;
    }
    int64_t *slot = !strcmp(name, "layers")   ? &o->layers
                    : !strcmp(name, "seq")    ? &o->seq
                    : !strcmp(name, "batch")  ? &o->batch
                    : !strcmp(name, "hidden") ? &o->hidden
                    : !strcmp(name, "image")  ? &o->image
                    : !strcmp(name, "decode") ? &o->decode : NULL;
    if (!slot)
        return ls_error_msg(err, LS_ERR_INPUT, "unknown scaling option --%s", name);
    char *end = NULL;
    long long v = strtoll(value, &end, 10);
    if (!*value || *end || v < 1 || v > (1LL << 20))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "--%s: expected an integer in 1..%lld, got '%s'", name, 1LL << 20,
                            value);
    *slot = v;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

#define MAX_INPUT_SPECS 64

/* The --input entries (zoo_opts.inputs) as TF.js input shapes; names point into *copy
 * (freed by the caller). */
static int tfjs_input_specs(const char *spec, struct tfjs_input_shape *in, size_t *n,
                            char **copy, struct ls_error *err)
{
    *n = 0;
    *copy = NULL;
    if (!spec || !*spec)
        return 0;
    if (graph_inputs_check(spec, err))
        return LS_ERR_INPUT;
    if (!(*copy = strdup(spec)))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (char *p = *copy; p && *p; *n += 1) {
        if (*n == MAX_INPUT_SPECS)
            return ls_error_msg(err, LS_ERR_INPUT, "more than %d --input entries",
                                MAX_INPUT_SPECS);
        char *next = strchr(p, ';'), *eq = strchr(p, '=');
        if (next)
            *next++ = 0;
        *eq = 0;   /* graph_inputs_check saw NAME=DIMS */
        in[*n].name = p;
        if (graph_inputs_find(spec, p, &in[*n].rank, in[*n].dims, err) != 1)
            return LS_ERR_INPUT;
        in[*n].has_value = graph_inputs_value(spec, p, &in[*n].value);
        p = next;
    }
    return 0;
}

/* A TF.js model.json: --input, --batch and --image fill its unknown input dims; the other
 * scaling options have nothing to scale. */
static int load_tfjs(const char *spec, const char *buf, size_t len, const struct zoo_opts *o,
                     struct graph **out, struct ls_error *err)
{
    if (o->layers || o->seq || o->hidden || o->decode || o->dtype >= 0)
        return ls_error_set(err, LS_ERR_INPUT, spec, 0, 0,
                            "a TF.js model takes --batch and --image (its unknown input dims) "
                            "but not --layers, --seq, --hidden, --decode or --dtype");
    struct tfjs_opts t;
    tfjs_opts_init(&t);
    if (o->batch)
        t.batch = o->batch, t.batch_set = 1;
    if (o->image)
        t.image = o->image;
    struct tfjs_input_shape in[MAX_INPUT_SPECS];
    char *copy = NULL;
    int rc = tfjs_input_specs(o->inputs, in, &t.ninputs, &copy, err);
    t.inputs = in;
    if (!rc)
        rc = tfjs_import(spec, buf, len, &t, out, err);
    free(copy);
    return rc;
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
    if (!json && (ends_with(spec, ".hlo") || hlo_sniff(buf, len))) {
        if (model_opts_any(opts) || opts->inputs)
            rc = ls_error_set(err, LS_ERR_INPUT, spec, 0, 0,
                              "an HLO module has static shapes: scaling options and --input "
                              "do not apply");
        else
            rc = hlo_import(spec, buf, len, out, err);
        free(buf);
        return rc;
    }
    if (ends_with(spec, ".onnx") || (!json && onnx_sniff(buf, len))) {
        if (opts->layers || opts->hidden || opts->image || opts->decode || opts->dtype >= 0) {
            free(buf);
            return ls_error_set(err, LS_ERR_INPUT, spec, 0, 0,
                                "--layers, --hidden, --image, --decode and --dtype apply to "
                                "zoo: models and config.json files; an ONNX model takes --input, "
                                "--batch and --seq");
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
    if (json && tfjs_is_model(buf, len)) {
        rc = load_tfjs(spec, buf, len, opts, out, err);
        free(buf);
        return rc;
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
                            "zoo: models and config.json files and --input to ONNX and TF.js "
                            "models, not to graph files");
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
