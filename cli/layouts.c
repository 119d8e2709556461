/* cli/layouts: the per-tensor layout listing of `laysim solve --layouts`. What is listed
 * (produced layout, requested layouts, conversions and their cost) comes from the solver
 * layer (lsp_tensor_layout, lsp_use_layout, lsp_tensor_conversion), which the API's
 * listing calls too; this file only formats it. */
#include "cli/layouts.h"

#include <inttypes.h>
#include <string.h>

void cli_layouts_print(const struct lsp_problem *p, const int32_t *cfg, FILE *fp)
{
    char b1[24], b2[24];
    int64_t paid = 0, nconv = 0, c;
    fputs("tensor: produced layout <- producer (cfg) -> consumer[slot] requested layout; "
          "conversions paid\n", fp);
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t pr = p->tensors[t].producer, src = lsp_tensor_layout(p, cfg, t), l;
        fprintf(fp, "  %s: %s <- %s (cfg %d) ->", p->tensors[t].name,
                lsp_layout_label(p, t, src, b1, sizeof b1), p->ops[pr].name, cfg[pr]);
        if (p->use_off[t] == p->use_off[t + 1])
            fputs(" (no consumer)", fp);
        for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
            fprintf(fp, " %s[%d] %s", p->ops[p->use_op[i]].name, p->use_slot[i],
                    lsp_layout_label(p, t, lsp_use_layout(p, cfg, i), b2, sizeof b2));
        for (int32_t i = 0; (l = lsp_tensor_conversion(p, cfg, t, i, &c)) >= 0; i++) {
            fprintf(fp, "; convert %s -> %s cost %" PRId64,
                    lsp_layout_label(p, t, src, b1, sizeof b1),
                    lsp_layout_label(p, t, l, b2, sizeof b2), c);
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
    int64_t c;
    int32_t pr = p->tensors[t].producer, src = lsp_tensor_layout(p, cfg, t), l;
    json_t *o = json_object(), *cons = json_array(), *conv = json_array();
    json_object_set_new(o, "tensor", json_string(p->tensors[t].name));
    json_object_set_new(o, "layout", json_string(lsp_layout_label(p, t, src, b, sizeof b)));
    json_object_set_new(o, "producer", json_string(p->ops[pr].name));
    json_object_set_new(o, "producer_cfg", json_integer(cfg[pr]));
    for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
        json_array_append_new(cons, json_pack("{s:s, s:i, s:s}", "op",
                                              p->ops[p->use_op[i]].name, "slot",
                                              p->use_slot[i], "layout",
                                              lsp_layout_label(p, t, lsp_use_layout(p, cfg, i), b,
                                                               sizeof b)));
    for (int32_t i = 0; (l = lsp_tensor_conversion(p, cfg, t, i, &c)) >= 0; i++)
        json_array_append_new(conv, json_pack("{s:s, s:I}", "to",
                                              lsp_layout_label(p, t, l, b, sizeof b), "cost",
                                              (json_int_t)c));
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
