/* cli/layouts: the per-tensor layout listing of `laysim solve --layouts`. */
#include "cli/layouts.h"

#include <inttypes.h>
#include <string.h>

/* The label of layout l of tensor t, or its index when the tensor has no labels. */
static const char *label(const struct lsp_problem *p, int32_t t, int32_t l, char *buf,
                         size_t n)
{
    if (p->tensors[t].labels)
        return p->tensors[t].labels[l];
    snprintf(buf, n, "%d", l);
    return buf;
}

static int32_t produced(const struct lsp_problem *p, const int32_t *cfg, int32_t t)
{
    int32_t pr = p->tensors[t].producer;
    return lsp_cfg_out_layout(p, pr, cfg[pr]);
}

void cli_layouts_print(const struct lsp_problem *p, const int32_t *cfg, FILE *fp)
{
    char b1[24], b2[24];
    int64_t paid = 0, nconv = 0;
    fputs("tensor: produced layout <- producer (cfg) -> consumer[slot] requested layout; "
          "conversions paid\n", fp);
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t pr = p->tensors[t].producer, src = produced(p, cfg, t);
        fprintf(fp, "  %s: %s <- %s (cfg %d) ->", p->tensors[t].name,
                label(p, t, src, b1, sizeof b1), p->ops[pr].name, cfg[pr]);
        if (p->use_off[t] == p->use_off[t + 1])
            fputs(" (no consumer)", fp);
        for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
            fprintf(fp, " %s[%d] %s", p->ops[p->use_op[i]].name, p->use_slot[i],
                    label(p, t, lsp_use_layout(p, cfg, i), b2, sizeof b2));
        for (int32_t l = 0; l < p->tensors[t].nlayouts; l++) {
            if (l == src || !lsp_tensor_requests(p, cfg, t, l))
                continue;
            int64_t c = lsp_tr_cost(p, t, src, l);
            fprintf(fp, "; convert %s -> %s cost %" PRId64, label(p, t, src, b1, sizeof b1),
                    label(p, t, l, b2, sizeof b2), c);
            paid += c;
            nconv++;
        }
        fputc('\n', fp);
    }
    fprintf(fp, "%" PRId64 " conversions, cost %" PRId64 "\n", nconv, paid);
}

static json_t *tensor_json(const struct lsp_problem *p, const int32_t *cfg, int32_t t)
{
    char b[24];
    int32_t pr = p->tensors[t].producer, src = produced(p, cfg, t);
    json_t *o = json_object(), *cons = json_array(), *conv = json_array();
    json_object_set_new(o, "tensor", json_string(p->tensors[t].name));
    json_object_set_new(o, "layout", json_string(label(p, t, src, b, sizeof b)));
    json_object_set_new(o, "producer", json_string(p->ops[pr].name));
    json_object_set_new(o, "producer_cfg", json_integer(cfg[pr]));
    for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
        json_array_append_new(cons, json_pack("{s:s, s:i, s:s}", "op",
                                              p->ops[p->use_op[i]].name, "slot",
                                              p->use_slot[i], "layout",
                                              label(p, t, lsp_use_layout(p, cfg, i), b, sizeof b)));
    for (int32_t l = 0; l < p->tensors[t].nlayouts; l++)
        if (l != src && lsp_tensor_requests(p, cfg, t, l))
            json_array_append_new(conv, json_pack("{s:s, s:I}", "to", label(p, t, l, b, sizeof b),
                                                  "cost", (json_int_t)lsp_tr_cost(p, t, src, l)));
    json_object_set_new(o, "consumers", cons);
    json_object_set_new(o, "conversions", conv);
    return o;
}

json_t *cli_layouts_json(const struct lsp_problem *p, const int32_t *cfg)
{
    json_t *a = json_array();
    for (int32_t t = 0; t < p->ntensors; t++)
        json_array_append_new(a, tensor_json(p, cfg, t));
    return a;
}
