/* solver/problem: the in-memory builder, validation and derived fields. */
#include "solver/problem.h"
#include "solver/problem_impl.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

static int name_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == ':' || c == '/' || c == '@' || c == '-';
}

int lsp_valid_name(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_char((unsigned char)s[i]))
            return 0;
    return 1;
}

int lsp_valid_kind(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == '\0' ||
            s[i] == '#')
            return 0;
    return 1;
}

struct lsp_problem *lsp_new(void)
{
    struct lsp_problem *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    ls_arena_init(&p->arena, 256 * 1024);
    ls_intern_init(&p->tensor_names);
    ls_intern_init(&p->op_names);
    return p;
}

void lsp_free(struct lsp_problem *p)
{
    if (!p)
        return;
    ls_arena_free(&p->arena);
    ls_intern_free(&p->tensor_names);
    ls_intern_free(&p->op_names);
    free(p->tensors);
    free(p->ops);
    free(p->tr);
    free(p->cfg_cost);
    free(p->cfg_layout);
    free(p->use_off);
    free(p->use_op);
    free(p->use_slot);
    free(p);
}

int lsp_push_tensor(struct lsp_problem *p, const char *name, size_t n, int32_t nlayouts,
                    int32_t *id)
{
    if (ls_vec_reserve_((void **)&p->tensors, &p->cap_tensors, (size_t)p->ntensors + 1,
                        sizeof *p->tensors))
        return LS_ERR_NOMEM;
    int32_t nid = ls_intern_add(&p->tensor_names, name, n);
    if (nid < 0)
        return LS_ERR_NOMEM;
    struct lsp_tensor *t = &p->tensors[p->ntensors];
    memset(t, 0, sizeof *t);
    t->name = ls_intern_str(&p->tensor_names, nid);
    t->nlayouts = nlayouts;
    t->tr0 = -1;
    t->producer = -1;
    *id = p->ntensors++;
    if (nlayouts > p->max_layouts)
        p->max_layouts = nlayouts;
    return 0;
}

int lsp_push_tr(struct lsp_problem *p, int32_t t, int64_t **matrix)
{
    int64_t L = p->tensors[t].nlayouts;
    if (ls_vec_reserve_((void **)&p->tr, &p->cap_tr, (size_t)(p->ntr + L * L), sizeof *p->tr))
        return LS_ERR_NOMEM;
    p->tensors[t].tr0 = p->ntr;
    *matrix = p->tr + p->ntr;
    p->ntr += L * L;
    return 0;
}

int lsp_push_op(struct lsp_problem *p, const char *name, size_t n, const char *kind,
                size_t kn, int32_t nin, int32_t out, int32_t **in, int32_t *id)
{
    if (ls_vec_reserve_((void **)&p->ops, &p->cap_ops, (size_t)p->nops + 1, sizeof *p->ops))
        return LS_ERR_NOMEM;
    int32_t nid = ls_intern_add(&p->op_names, name, n);
    if (nid < 0)
        return LS_ERR_NOMEM;
    struct lsp_op *o = &p->ops[p->nops];
    memset(o, 0, sizeof *o);
    o->name = ls_intern_str(&p->op_names, nid);
    o->kind = ls_arena_strndup(&p->arena, kind, kn);
    int32_t *ins = nin ? ls_arena_alloc(&p->arena, (size_t)nin * sizeof *ins) : NULL;
    if (!o->kind || (nin && !ins))
        return LS_ERR_NOMEM;
    o->in = ins;
    o->nin = nin;
    o->out = out;
    o->nslots = nin + (out >= 0);
    o->cfg0 = p->ncfg;
    o->lay0 = p->nlayout;
    *in = ins;
    *id = p->nops++;
    if (out >= 0)
        p->tensors[out].producer = *id;
    return 0;
}

int lsp_push_cfg(struct lsp_problem *p, int32_t op, int64_t cost, int32_t **layouts)
{
    struct lsp_op *o = &p->ops[op];
    if (ls_vec_reserve_((void **)&p->cfg_cost, &p->cap_cfg, (size_t)p->ncfg + 1,
                        sizeof *p->cfg_cost) ||
        /* + 1: an op without slots (no inputs, no output) still gets a non-null array, so
         * lsp_cfg_layouts never offsets a null pointer. */
        ls_vec_reserve_((void **)&p->cfg_layout, &p->cap_layout,
                        (size_t)(p->nlayout + o->nslots) + 1, sizeof *p->cfg_layout))
        return LS_ERR_NOMEM;
    p->cfg_cost[p->ncfg++] = cost;
    *layouts = p->cfg_layout + p->nlayout;
    p->nlayout += o->nslots;
    o->ncfg++;
    if (o->ncfg > p->max_cfg)
        p->max_cfg = o->ncfg;
    return 0;
}

/* Add c to the running cost sum; LS_ERR_INPUT when it reaches 2^53. */
static int add_cost(struct lsp_problem *p, int64_t c, struct ls_error *err)
{
    if (c < 0)
        return ls_error_msg(err, LS_ERR_INPUT, "negative cost %lld", (long long)c);
    if (c >= LSP_COST_LIMIT || p->cost_sum >= LSP_COST_LIMIT - c)
        return ls_error_msg(err, LS_ERR_INPUT, "the sum of all costs reaches 2^53");
    p->cost_sum += c;
    return 0;
}

static int check_open(struct lsp_problem *p, struct ls_error *err)
{
    if (p->finished)
        return ls_error_msg(err, LS_ERR_INTERNAL, "problem already finished");
    return 0;
}

int lsp_add_tensor(struct lsp_problem *p, const char *name, int32_t nlayouts,
                   const char *const *labels, const int64_t *transpose, int32_t *id,
                   struct ls_error *err)
{
    if (check_open(p, err))
        return err ? err->code : LS_ERR_INTERNAL;
    size_t n = strlen(name);
    if (!lsp_valid_name(name, n) || !strcmp(name, "-"))
        return ls_error_msg(err, LS_ERR_INPUT, "invalid tensor name '%s'", name);
    if (nlayouts < 1)
        return ls_error_msg(err, LS_ERR_INPUT, "tensor %s: layout count must be >= 1", name);
    if (ls_intern_find(&p->tensor_names, name, n) >= 0)
        return ls_error_msg(err, LS_ERR_INPUT, "duplicate tensor name '%s'", name);
    if (labels) {
        for (int32_t i = 0; i < nlayouts; i++) {
            if (!labels[i] || !lsp_valid_name(labels[i], strlen(labels[i])))
                return ls_error_msg(err, LS_ERR_INPUT, "tensor %s: invalid label %d", name, i);
            for (int32_t j = 0; j < i; j++)
                if (!strcmp(labels[i], labels[j]))
                    return ls_error_msg(err, LS_ERR_INPUT, "tensor %s: duplicate label '%s'",
                                        name, labels[i]);
        }
    }
    int32_t t;
    if (lsp_push_tensor(p, name, n, nlayouts, &t))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (labels) {
        const char **l = ls_arena_alloc(&p->arena, (size_t)nlayouts * sizeof *l);
        if (!l)
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        for (int32_t i = 0; i < nlayouts; i++)
            if (!(l[i] = ls_arena_strdup(&p->arena, labels[i])))
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        p->tensors[t].labels = l;
    }
    if (id)
        *id = t;
    if (transpose && nlayouts >= 2)
        return lsp_set_transpose(p, t, transpose, err);
    return 0;
}

int lsp_set_transpose(struct lsp_problem *p, int32_t t, const int64_t *transpose,
                      struct ls_error *err)
{
    if (check_open(p, err))
        return err ? err->code : LS_ERR_INTERNAL;
    if (t < 0 || t >= p->ntensors)
        return ls_error_msg(err, LS_ERR_INPUT, "no tensor %d", t);
    struct lsp_tensor *x = &p->tensors[t];
    int32_t L = x->nlayouts;
    if (L < 2)
        return ls_error_msg(err, LS_ERR_INPUT, "tensor %s has one layout: no transpose matrix",
                            x->name);
    if (x->tr0 >= 0)
        return ls_error_msg(err, LS_ERR_INPUT, "tensor %s already has a transpose matrix",
                            x->name);
    if (x->producer >= 0)
        return ls_error_msg(err, LS_ERR_INPUT, "tensor %s: transpose matrix after its producer",
                            x->name);
    for (int32_t i = 0; i < L; i++)
        for (int32_t j = 0; j < L; j++) {
            int64_t c = transpose[(int64_t)i * L + j];
            if (i == j && c != 0)
                return ls_error_msg(err, LS_ERR_INPUT, "tensor %s: transpose diagonal must be 0",
                                    x->name);
            if (add_cost(p, c, err))
                return err ? err->code : LS_ERR_INPUT;
        }
    int64_t *m;
    if (lsp_push_tr(p, t, &m))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    memcpy(m, transpose, (size_t)L * (size_t)L * sizeof *m);
    return 0;
}

int lsp_add_op(struct lsp_problem *p, const char *name, const char *kind, int32_t nin,
               const int32_t *in, int32_t out, int32_t *id, struct ls_error *err)
{
    if (check_open(p, err))
        return err ? err->code : LS_ERR_INTERNAL;
    size_t n = strlen(name);
    if (!lsp_valid_name(name, n))
        return ls_error_msg(err, LS_ERR_INPUT, "invalid op name '%s'", name);
    if (!kind || !lsp_valid_kind(kind, strlen(kind)))
        return ls_error_msg(err, LS_ERR_INPUT, "op %s: invalid kind", name);
    if (ls_intern_find(&p->op_names, name, n) >= 0)
        return ls_error_msg(err, LS_ERR_INPUT, "duplicate op name '%s'", name);
    if (nin < 0)
        return ls_error_msg(err, LS_ERR_INPUT, "op %s: negative input count", name);
    if (p->nops > 0 && p->ops[p->nops - 1].ncfg == 0)
        return ls_error_msg(err, LS_ERR_INPUT, "op %s has no configuration",
                            p->ops[p->nops - 1].name);
    for (int32_t i = 0; i < nin; i++) {
        if (in[i] < 0 || in[i] >= p->ntensors)
            return ls_error_msg(err, LS_ERR_INPUT, "op %s: input %d: no tensor %d", name, i + 1,
                                in[i]);
        if (p->tensors[in[i]].producer < 0)
            return ls_error_msg(err, LS_ERR_INPUT,
                                "op %s: input %s is not the output of an earlier op", name,
                                p->tensors[in[i]].name);
    }
    if (out >= 0) {
        if (out >= p->ntensors)
            return ls_error_msg(err, LS_ERR_INPUT, "op %s: no output tensor %d", name, out);
        struct lsp_tensor *x = &p->tensors[out];
        if (x->producer >= 0)
            return ls_error_msg(err, LS_ERR_INPUT, "op %s: tensor %s is already the output of %s",
                                name, x->name, p->ops[x->producer].name);
        if (x->nlayouts >= 2 && x->tr0 < 0)
            return ls_error_msg(err, LS_ERR_INPUT,
                                "op %s: output %s has no transpose matrix yet", name, x->name);
    }
    int32_t *dst, o;
    if (lsp_push_op(p, name, n, kind, strlen(kind), nin, out, &dst, &o))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (nin)
        memcpy(dst, in, (size_t)nin * sizeof *dst);
    if (id)
        *id = o;
    return 0;
}

static int32_t slot_tensor(const struct lsp_op *o, int32_t s)
{
    return s < o->nin ? o->in[s] : o->out;
}

int lsp_add_cfg(struct lsp_problem *p, int32_t op, int64_t cost, const int32_t *layouts,
                int32_t *index, struct ls_error *err)
{
    if (check_open(p, err))
        return err ? err->code : LS_ERR_INTERNAL;
    if (op < 0 || op != p->nops - 1)
        return ls_error_msg(err, LS_ERR_INPUT, "configurations go to the last added op");
    struct lsp_op *o = &p->ops[op];
    for (int32_t s = 0; s < o->nslots; s++) {
        int32_t t = slot_tensor(o, s);
        if (layouts[s] < 0 || layouts[s] >= p->tensors[t].nlayouts)
            return ls_error_msg(err, LS_ERR_INPUT, "op %s: slot %d: layout %d out of range 0..%d",
                                o->name, s + 1, layouts[s], p->tensors[t].nlayouts - 1);
    }
    if (add_cost(p, cost, err))
        return err ? err->code : LS_ERR_INPUT;
    int32_t *dst;
    if (lsp_push_cfg(p, op, cost, &dst))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (o->nslots)
        memcpy(dst, layouts, (size_t)o->nslots * sizeof *dst);
    if (index)
        *index = o->ncfg - 1;
    return 0;
}

int lsp_build_uses(struct lsp_problem *p)
{
    int64_t nuses = 0;
    for (int32_t o = 0; o < p->nops; o++)
        nuses += p->ops[o].nin;
    free(p->use_off);
    free(p->use_op);
    free(p->use_slot);
    p->use_off = calloc((size_t)p->ntensors + 1, sizeof *p->use_off);
    p->use_op = malloc(((size_t)nuses + 1) * sizeof *p->use_op);
    p->use_slot = malloc(((size_t)nuses + 1) * sizeof *p->use_slot);
    if (!p->use_off || !p->use_op || !p->use_slot)
        return LS_ERR_NOMEM;
    for (int32_t o = 0; o < p->nops; o++)
        for (int32_t s = 0; s < p->ops[o].nin; s++)
            p->use_off[p->ops[o].in[s] + 1]++;
    for (int32_t t = 0; t < p->ntensors; t++)
        p->use_off[t + 1] += p->use_off[t];
    int32_t *fill = malloc(((size_t)p->ntensors + 1) * sizeof *fill);
    if (!fill)
        return LS_ERR_NOMEM;
    memcpy(fill, p->use_off, (size_t)p->ntensors * sizeof *fill);
    for (int32_t o = 0; o < p->nops; o++)
        for (int32_t s = 0; s < p->ops[o].nin; s++) {
            int32_t i = fill[p->ops[o].in[s]]++;
            p->use_op[i] = o;
            p->use_slot[i] = s;
        }
    free(fill);
    return 0;
}

int lsp_finish(struct lsp_problem *p, struct ls_error *err)
{
    if (check_open(p, err))
        return err ? err->code : LS_ERR_INTERNAL;
    for (int32_t t = 0; t < p->ntensors; t++) {
        const struct lsp_tensor *x = &p->tensors[t];
        if (x->producer < 0)
            return ls_error_set(err, LS_ERR_INPUT, NULL, x->line, x->line ? 1 : 0,
                                "tensor %s is not the output of any op", x->name);
        if (x->nlayouts >= 2 && x->tr0 < 0)
            return ls_error_set(err, LS_ERR_INPUT, NULL, x->line, x->line ? 1 : 0,
                                "tensor %s has no transpose line", x->name);
    }
    for (int32_t o = 0; o < p->nops; o++)
        if (p->ops[o].ncfg == 0)
            return ls_error_set(err, LS_ERR_INPUT, NULL, p->ops[o].line, p->ops[o].line ? 1 : 0,
                                "op %s has no configuration", p->ops[o].name);
    if (lsp_build_uses(p))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    p->finished = 1;
    return 0;
}

int32_t lsp_find_tensor(const struct lsp_problem *p, const char *name, size_t n)
{
    return ls_intern_find(&p->tensor_names, name, n);
}

int32_t lsp_find_op(const struct lsp_problem *p, const char *name, size_t n)
{
    return ls_intern_find(&p->op_names, name, n);
}

/* ---- objective ------------------------------------------------------------------- */

/* Transpose cost of tensor t. seen: scratch of max_layouts entries holding stamps, or
 * NULL (then distinctness is checked pairwise). */
static int64_t tensor_cost(const struct lsp_problem *p, const int32_t *cfg, int32_t t,
                           int64_t *seen, int64_t stamp, int32_t *nconv)
{
    const struct lsp_tensor *x = &p->tensors[t];
    int32_t conv = 0;
    int64_t sum = 0;
    if (x->nlayouts >= 2 && x->producer >= 0) {
        int32_t src = lsp_cfg_out_layout(p, x->producer, cfg[x->producer]);
        for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++) {
            int32_t o = p->use_op[i];
            int32_t l = lsp_cfg_layouts(p, o, cfg[o])[p->use_slot[i]];
            if (l == src)
                continue;
            int dup = 0;
            if (seen) {
                dup = seen[l] == stamp;
                seen[l] = stamp;
            } else {
                for (int32_t j = p->use_off[t]; j < i && !dup; j++) {
                    int32_t oj = p->use_op[j];
                    dup = lsp_cfg_layouts(p, oj, cfg[oj])[p->use_slot[j]] == l;
                }
            }
            if (!dup) {
                conv++;
                sum += lsp_tr_cost(p, t, src, l);
            }
        }
    }
    if (nconv)
        *nconv = conv;
    return sum;
}

int64_t lsp_eval_tensor(const struct lsp_problem *p, const int32_t *cfg, int32_t t,
                        int32_t *nconv)
{
    return tensor_cost(p, cfg, t, NULL, 0, nconv);
}

int64_t lsp_eval(const struct lsp_problem *p, const int32_t *cfg, int64_t *op_part,
                 int64_t *tr_part)
{
    int64_t ops = 0, trs = 0;
    for (int32_t o = 0; o < p->nops; o++)
        ops += lsp_cfg_cost(p, o, cfg[o]);
    int64_t *seen = p->max_layouts > 0 ? malloc((size_t)p->max_layouts * sizeof *seen) : NULL;
    if (seen)
        for (int32_t l = 0; l < p->max_layouts; l++)
            seen[l] = -1;
    for (int32_t t = 0; t < p->ntensors; t++)
        trs += tensor_cost(p, cfg, t, seen, t, NULL);
    free(seen);
    if (op_part)
        *op_part = ops;
    if (tr_part)
        *tr_part = trs;
    return ops + trs;
}

int lsp_tensor_requests(const struct lsp_problem *p, const int32_t *cfg, int32_t t,
                        int32_t l)
{
    for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
        if (lsp_use_layout(p, cfg, i) == l)
            return 1;
    return 0;
}

int32_t lsp_tensor_layout(const struct lsp_problem *p, const int32_t *cfg, int32_t t)
{
    int32_t pr = p->tensors[t].producer;
    return lsp_cfg_out_layout(p, pr, cfg[pr]);
}

int32_t lsp_tensor_conversion(const struct lsp_problem *p, const int32_t *cfg, int32_t t,
                              int32_t i, int64_t *cost)
{
    int32_t src = lsp_tensor_layout(p, cfg, t);
    for (int32_t l = 0; l < p->tensors[t].nlayouts; l++) {
        if (l == src || !lsp_tensor_requests(p, cfg, t, l) || i-- > 0)
            continue;
        if (cost)
            *cost = lsp_tr_cost(p, t, src, l);
        return l;
    }
    return -1;
}

const char *lsp_layout_label(const struct lsp_problem *p, int32_t t, int32_t l, char *buf,
                             size_t n)
{
    if (p->tensors[t].labels)
        return p->tensors[t].labels[l];
    snprintf(buf, n, "%d", l);
    return buf;
}

int lsp_check_assignment(const struct lsp_problem *p, const int32_t *cfg,
                         struct ls_error *err)
{
    for (int32_t o = 0; o < p->nops; o++)
        if (cfg[o] < 0 || cfg[o] >= p->ops[o].ncfg)
            return ls_error_msg(err, LS_ERR_INPUT, "op %s: configuration %d out of range 0..%d",
                                p->ops[o].name, cfg[o], p->ops[o].ncfg - 1);
    return 0;
}
