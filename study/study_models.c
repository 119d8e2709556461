/* study/study_models: model sets, target variants (what-if products), shard specs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/study.h"
#include "util/vec.h"

/* The quick scale of every zoo model: small enough that one model's eight
 * compile + simulate runs take about a second. Unlisted models keep their size. */
struct quick_scale {
    const char *name;
    int64_t layers, seq, hidden, image;
};

static const struct quick_scale quick_scales[] = {
    {"bert-base", 2, 128, 256, 0},     {"bert-large", 2, 128, 256, 0},
    {"albert-large", 2, 128, 256, 0},  {"electra-large", 2, 128, 256, 0},
    {"xlm-roberta", 2, 128, 256, 0},   {"bart-base", 1, 64, 256, 0},
    {"distilbart", 1, 64, 256, 0},     {"olmo-7b", 1, 128, 512, 0},
    {"qwen2", 1, 128, 512, 0},         {"ministral", 1, 128, 512, 0},
    {"gemma", 1, 128, 512, 0},         {"whisper-enc", 2, 128, 256, 0},
    {"whisper-dec", 2, 64, 256, 0},    {"cnn", 0, 0, 0, 0},
    {"resnet50", 0, 0, 0, 64},         {"vit-b16", 2, 0, 256, 64},
    {"perceiver", 1, 256, 320, 0},     {"olmoe", 1, 64, 512, 0},
    {"granite-moe", 1, 64, 512, 0},    {"flexolmo", 1, 64, 512, 0},
    {"musicgen", 2, 64, 256, 0},       {"paligemma", 1, 64, 512, 56},
    {"qwen-vl", 1, 64, 512, 56},       {"kosmos", 1, 64, 512, 56},
};

/* The default set: one model per architecture family (graph/zoo.h enum zoo_family), and
 * a mixture-of-experts decoder, ordered as the paper's Table 1 (dense first). */
static const char *const quick_set[] = {"bert-base", "bart-base", "olmo-7b", "whisper-enc",
                                        "cnn", "resnet50", "vit-b16", "perceiver",
                                        "musicgen", "kosmos", "olmoe"};

static const struct quick_scale *quick_of(const char *name)
{
    for (size_t i = 0; i < sizeof quick_scales / sizeof quick_scales[0]; i++)
        if (!strcmp(quick_scales[i].name, name))
            return &quick_scales[i];
    return NULL;
}

/* A model file (a path: it names a directory or ends in .json/.lg/.onnx): its row key is
 * the base name (the parent directory's too for model.json), its spec the path. */
/* *out: a new, zeroed entry named name; fails on a name listed twice or out of memory. */
static int new_model(struct study_models *ms, const char *name, struct study_model **out,
                     struct ls_error *err)
{
    for (size_t i = 0; i < ms->n; i++)
        if (!strcmp(ms->m[i].name, name))
            return ls_error_msg(err, LS_ERR_INPUT, "--models: %s listed twice", name);
    if (LS_ARRAY_RESERVE(ms->m, ms->cap, ms->n + 1))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct study_model *m = &ms->m[ms->n++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    *out = m;
    return 0;
}

static int add_file(struct study_models *ms, const char *path, struct ls_error *err)
{
    size_t len = strlen(path);
    if (len >= sizeof ms->m[0].spec)
        return ls_error_msg(err, LS_ERR_INPUT, "--models: path too long: %s", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[sizeof ms->m[0].name];
    snprintf(name, sizeof name, "%s", base);
    if (!strcmp(base, "model.json") && base > path + 1) { /* .../NAME/model.json -> NAME */
        const char *p = base - 1;
        while (p > path && p[-1] != '/')
            p--;
        snprintf(name, sizeof name, "%.*s", (int)(base - 1 - p), p);
    }
    struct study_model *m;
    int rc = new_model(ms, name, &m, err);
    if (rc)
        return rc;
    snprintf(m->spec, sizeof m->spec, "%s", path);
    snprintf(m->family, sizeof m->family, "file");
    snprintf(m->group, sizeof m->group, "complex");
    zoo_opts_init(&m->opts);
    return 0;
}

static int is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json")) ||
           (n > 3 && !strcmp(s + n - 3, ".lg")) || (n > 5 && !strcmp(s + n - 5, ".onnx"));
}

static int add_model(struct study_models *ms, const char *name, int quick, struct ls_error *err)
{
    const struct zoo_entry *e = NULL;
    if (is_path(name))
        return quick ? ls_error_msg(err, LS_ERR_INPUT, "--models: %s: ':quick' applies to zoo "
                                    "models only", name)
                     : add_file(ms, name, err);
    for (size_t i = 0; i < zoo_count(); i++)
        if (!strcmp(zoo_entry(i)->name, name))
            e = zoo_entry(i);
    if (!e) {
        struct zoo_arch a;
        struct ls_error known = {0};
        zoo_arch_get(name, &a, &known); /* its message lists the known names */
        /* formatted from a copy: err's own message cannot be its argument */
        return ls_error_msg(err, LS_ERR_INPUT, "--models: %s", known.msg[0] ? known.msg : name);
    }
    struct study_model *m;
    int rc = new_model(ms, name, &m, err);
    if (rc)
        return rc;
    snprintf(m->spec, sizeof m->spec, "zoo:%s", name);
    snprintf(m->family, sizeof m->family, "%s", e->family);
    struct zoo_arch a;
    int dense = 0;
    if (!zoo_arch_get(name, &a, NULL))
        dense = (a.family == ZOO_ENCODER || a.family == ZOO_ENCDEC ||
                 a.family == ZOO_DECODER || a.family == ZOO_WHISPER) &&
                a.main.experts == 0;
    snprintf(m->group, sizeof m->group, "%s", dense ? "dense" : "complex");
    zoo_opts_init(&m->opts);
    const struct quick_scale *q = quick ? quick_of(name) : NULL;
    if (q) {
        int o = 0;
        m->opts.layers = q->layers;
        m->opts.seq = q->seq;
        m->opts.hidden = q->hidden;
        m->opts.image = q->image;
        if (q->layers)
            o += snprintf(m->scale + o, sizeof m->scale - (size_t)o, " --layers %lld",
                          (long long)q->layers);
        if (q->seq)
            o += snprintf(m->scale + o, sizeof m->scale - (size_t)o, " --seq %lld",
                          (long long)q->seq);
        if (q->hidden)
            o += snprintf(m->scale + o, sizeof m->scale - (size_t)o, " --hidden %lld",
                          (long long)q->hidden);
        if (q->image)
            snprintf(m->scale + o, sizeof m->scale - (size_t)o, " --image %lld",
                     (long long)q->image);
        if (m->scale[0] == ' ')
            memmove(m->scale, m->scale + 1, strlen(m->scale));
    }
    return 0;
}

int study_models_select(const char *set, struct study_models *out, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = 0;
    if (!set || !strcmp(set, "quick")) {
        for (size_t i = 0; !rc && i < sizeof quick_set / sizeof quick_set[0]; i++)
            rc = add_model(out, quick_set[i], 1, err);
    } else if (!strcmp(set, "full") || !strcmp(set, "all-quick")) {
        int quick = !strcmp(set, "all-quick");
        for (size_t i = 0; !rc && i < zoo_count(); i++)
            rc = add_model(out, zoo_entry(i)->name, quick, err);
    } else {
        char buf[1024];
        if (strlen(set) >= sizeof buf)
            return ls_error_msg(err, LS_ERR_INPUT, "--models: list too long");
        snprintf(buf, sizeof buf, "%s", set);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok && !rc;
             tok = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(tok, ':');
            int quick = 0;
            if (colon) {
                if (strcmp(colon + 1, "quick")) {
                    rc = ls_error_msg(err, LS_ERR_INPUT,
                                      "--models: '%s': the only suffix is ':quick'", tok);
                    break;
                }
                *colon = 0;
                quick = 1;
            }
            rc = add_model(out, tok, quick, err);
        }
        if (!rc && out->n == 0)
            rc = ls_error_msg(err, LS_ERR_INPUT, "--models: empty list");
    }
    if (rc)
        study_models_free(out);
    return rc;
}

void study_models_free(struct study_models *ms)
{
    free(ms->m);
    memset(ms, 0, sizeof *ms);
}

/* ---- what-if products ------------------------------------------------------------ */

#define MAX_KEYS 8
#define MAX_VALUES 16
#define MAX_VARIANTS 256

struct axis {
    char key[64];
    char val[MAX_VALUES][32];
    int n;
};

static int parse_axis(const char *s, struct axis *ax, struct ls_error *err)
{
    memset(ax, 0, sizeof *ax);
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof ax->key)
        return ls_error_msg(err, LS_ERR_INPUT, "--set '%s': expected KEY=V1,V2,...", s);
    memcpy(ax->key, s, (size_t)(eq - s));
    const char *p = eq + 1;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0 || len >= sizeof ax->val[0])
            return ls_error_msg(err, LS_ERR_INPUT, "--set %s: empty or too long value in '%s'",
                                ax->key, s);
        if (ax->n == MAX_VALUES)
            return ls_error_msg(err, LS_ERR_INPUT, "--set %s: at most %d values", ax->key,
                                MAX_VALUES);
        memcpy(ax->val[ax->n], p, len);
        ax->val[ax->n][len] = 0;
        for (int i = 0; i < ax->n; i++)
            if (!strcmp(ax->val[i], ax->val[ax->n]))
                return ls_error_msg(err, LS_ERR_INPUT, "--set %s: value %s listed twice",
                                    ax->key, ax->val[i]);
        ax->n++;
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

static int push_target(struct study_targets *ts, const struct study_target *t,
                       struct ls_error *err)
{
    if (ls_vec_reserve_((void **)&ts->t, &ts->cap, ts->n + 1, sizeof *ts->t))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    ts->t[ts->n++] = *t;
    return 0;
}

int study_targets_product(const struct sim_target *base, const char *const *sets,
                          size_t nsets, int include_base, struct study_targets *out,
                          struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    if (nsets > MAX_KEYS)
        return ls_error_msg(err, LS_ERR_INPUT, "at most %d --set keys", MAX_KEYS);
    struct axis ax[MAX_KEYS];
    size_t total = 1;
    int rc = 0;
    for (size_t i = 0; i < nsets; i++) {
        if ((rc = parse_axis(sets[i], &ax[i], err)))
            return rc;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(ax[j].key, ax[i].key))
                return ls_error_msg(err, LS_ERR_INPUT, "--set %s given twice", ax[i].key);
        /* every value alone on the base first: names the key and value precisely */
        for (int v = 0; v < ax[i].n; v++) {
            struct sim_target t = *base;
            struct ls_error e2 = {0};
            if (sim_target_set(&t, ax[i].key, ax[i].val[v], &e2) ||
                sim_target_validate(&t, &e2))
                return ls_error_msg(err, LS_ERR_INPUT, "--set %s=%s: %s", ax[i].key,
                                    ax[i].val[v], e2.msg);
        }
        total *= (size_t)ax[i].n;
        if (total > MAX_VARIANTS)
            return ls_error_msg(err, LS_ERR_INPUT, "--set: more than %d target variants",
                                MAX_VARIANTS);
    }
    uint64_t hbase = sim_target_hash(base);
    int base_seen = 0;
    struct study_targets vars = {0};
    for (size_t k = 0; k < total && !rc; k++) {
        struct study_target st;
        memset(&st, 0, sizeof st);
        st.t = *base;
        size_t rest = k, o = 0;
        /* first key varies slowest */
        size_t idx[MAX_KEYS];
        for (size_t i = nsets; i-- > 0;) {
            idx[i] = rest % (size_t)ax[i].n;
            rest /= (size_t)ax[i].n;
        }
        for (size_t i = 0; i < nsets && !rc; i++) {
            struct ls_error e2 = {0};
            if (sim_target_set(&st.t, ax[i].key, ax[i].val[idx[i]], &e2))
                rc = ls_error_msg(err, LS_ERR_INPUT, "--set %s: %s", ax[i].key, e2.msg);
            o += (size_t)snprintf(st.variant + o, o < sizeof st.variant ? sizeof st.variant - o : 0,
                                  "%s%s=%s", i ? " " : "", ax[i].key, ax[i].val[idx[i]]);
        }
        /* the label is the rows' key: cut, two variants could share it */
        if (!rc && (o >= sizeof st.variant ||
                    (size_t)snprintf(st.label, sizeof st.label, "%s%s%s", base->name,
                                     nsets ? " " : "", st.variant) >= sizeof st.label))
            rc = ls_error_msg(err, LS_ERR_INPUT,
                              "--set: the target variant '%s%s' is longer than %zu characters",
                              st.variant, o >= sizeof st.variant ? "..." : "",
                              sizeof st.label - 1);
        struct ls_error e2 = {0};
        if (!rc && sim_target_validate(&st.t, &e2))
            rc = ls_error_msg(err, LS_ERR_INPUT, "--set %s: %s", st.variant, e2.msg);
        snprintf(st.t.name, sizeof st.t.name, "%s", base->name);
        if (sim_target_hash(&st.t) == hbase)
            base_seen = 1;
        if (!rc)
            rc = push_target(&vars, &st, err);
    }
    if (!rc && include_base && !base_seen && nsets) {
        struct study_target b;
        memset(&b, 0, sizeof b);
        b.t = *base;
        snprintf(b.label, sizeof b.label, "%s", base->name);
        rc = push_target(out, &b, err);
    }
    for (size_t i = 0; !rc && i < vars.n; i++)
        rc = push_target(out, &vars.t[i], err);
    study_targets_free(&vars);
    if (rc)
        study_targets_free(out);
    return rc;
}

void study_targets_free(struct study_targets *ts)
{
    free(ts->t);
    memset(ts, 0, sizeof *ts);
}

int study_parse_shard(const char *s, int *k, int *n, struct ls_error *err)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != '/')
        return ls_error_msg(err, LS_ERR_INPUT, "--shard '%s': expected K/N", s);
    const char *p = end + 1;
    long b = strtol(p, &end, 10);
    if (end == p || *end || b < 1 || a < 1 || a > b || b > 100000)
        return ls_error_msg(err, LS_ERR_INPUT, "--shard '%s': expected K/N with 1 <= K <= N",
                            s);
    *k = (int)a;
    *n = (int)b;
    return 0;
}
