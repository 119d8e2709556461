/* solver/dp_ntd: turning an elimination-order tree decomposition into a nice one.
 * For each bag (children first): each child's top is walked to this bag by forgetting
 * the vertices it does not share and introducing the missing ones; several children are
 * combined by joins; a bag without children starts from a leaf. Each root finally
 * forgets its whole bag. The width is unchanged. */
#include "solver/dp_ntd.h"

#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

static int new_node(struct dp_ntd *nt, int32_t type, int32_t v, int32_t c0, int32_t c1,
                    const int32_t *bag, int32_t len, int32_t *id)
{
    if (nt->nnodes == INT32_MAX ||
        LS_ARRAY_RESERVE(nt->node, nt->cap, (size_t)nt->nnodes + 1) ||
        LS_ARRAY_RESERVE(nt->bag, nt->capbag, (size_t)(nt->nbag + len)))
        return LS_ERR_NOMEM;
    if (len)
        memmove(nt->bag + nt->nbag, bag, (size_t)len * sizeof *bag);
    nt->node[nt->nnodes] = (struct dp_node){type, v, {c0, c1}, (int32_t)nt->nbag, len};
    nt->nbag += len;
    *id = nt->nnodes++;
    return 0;
}

static int contains(const int32_t *a, int32_t n, int32_t x)
{
    for (int32_t i = 0; i < n; i++)
        if (a[i] == x)
            return 1;
    return 0;
}

/* Walk from node `from` (its bag) to bag target: forget, then introduce. */
static int walk(struct dp_ntd *nt, int32_t from, const int32_t *target, int32_t tlen,
                int32_t *cur, int32_t *out)
{
    int32_t len = nt->node[from].bag_len;
    if (len)
        memcpy(cur, nt->bag + nt->node[from].bag_off, (size_t)len * sizeof *cur);
    int32_t id = from;
    for (int32_t i = 0; i < len;) {
        if (contains(target, tlen, cur[i])) {
            i++;
            continue;
        }
        int32_t v = cur[i];
        memmove(cur + i, cur + i + 1, (size_t)(len - i - 1) * sizeof *cur);
        len--;
        if (new_node(nt, DP_FORGET, v, id, -1, cur, len, &id))
            return LS_ERR_NOMEM;
    }
    for (int32_t i = 0; i < tlen; i++) {
        int32_t v = target[i];
        if (contains(cur, len, v))
            continue;
        int32_t j = len;   /* insert keeping cur sorted */
        while (j > 0 && cur[j - 1] > v) {
            cur[j] = cur[j - 1];
            j--;
        }
        cur[j] = v;
        len++;
        if (new_node(nt, DP_INTRO, v, id, -1, cur, len, &id))
            return LS_ERR_NOMEM;
    }
    *out = id;
    return 0;
}

int dp_ntd_build(const struct ls_treedec *td, struct dp_ntd *nt, struct ls_error *err)
{
    memset(nt, 0, sizeof *nt);
    nt->width = td->width;
    int32_t n = td->n;
    int32_t *top = malloc((size_t)(n ? n : 1) * sizeof *top);
    int32_t *cur = malloc((size_t)(td->width + 2) * sizeof *cur);
    int32_t *fch = malloc((size_t)(n ? n : 1) * sizeof *fch);   /* first child */
    int32_t *sib = malloc((size_t)(n ? n : 1) * sizeof *sib);
    int rc = LS_ERR_NOMEM;
    if (!top || !cur || !fch || !sib || LS_ARRAY_RESERVE(nt->root, nt->caproots, (size_t)n))
        goto out;
    for (int32_t i = 0; i < n; i++)
        fch[i] = -1;
    for (int32_t i = n - 1; i >= 0; i--)
        if (td->parent[i] >= 0) {
            sib[i] = fch[td->parent[i]];
            fch[td->parent[i]] = i;
        }
    for (int32_t i = 0; i < n; i++) {   /* parents come after their children */
        const int32_t *bag = td->bag + td->bag_off[i];
        int32_t len = td->bag_off[i + 1] - td->bag_off[i];
        int32_t acc = -1;
        for (int32_t c = fch[i]; c >= 0; c = sib[c]) {
            int32_t t;
            if (walk(nt, top[c], bag, len, cur, &t))
                goto out;
            if (acc < 0)
                acc = t;
            else if (new_node(nt, DP_JOIN, -1, acc, t, bag, len, &acc))
                goto out;
        }
        if (acc < 0) {
            int32_t leaf;
            if (new_node(nt, DP_LEAF, -1, -1, -1, NULL, 0, &leaf) ||
                walk(nt, leaf, bag, len, cur, &acc))
                goto out;
        }
        top[i] = acc;
        if (td->parent[i] < 0) {
            int32_t r;
            if (walk(nt, acc, NULL, 0, cur, &r))
                goto out;
            nt->root[nt->nroots++] = r;
        }
    }
    rc = 0;
out:
    free(top);
    free(cur);
    free(fch);
    free(sib);
    if (rc) {
        dp_ntd_free(nt);
        return ls_error_msg(err, rc, "dp: out of memory building the nice tree decomposition");
    }
    return 0;
}

int dp_ntd_add_single(struct dp_ntd *nt, int32_t v, struct ls_error *err)
{
    int32_t a, b, c;
    if (LS_ARRAY_RESERVE(nt->root, nt->caproots, (size_t)nt->nroots + 1) ||
        new_node(nt, DP_LEAF, -1, -1, -1, NULL, 0, &a) ||
        new_node(nt, DP_INTRO, v, a, -1, &v, 1, &b) ||
        new_node(nt, DP_FORGET, v, b, -1, NULL, 0, &c))
        return ls_error_msg(err, LS_ERR_NOMEM, "dp: out of memory");
    nt->root[nt->nroots++] = c;
    if (nt->width < 0)
        nt->width = 0;
    return 0;
}

void dp_ntd_free(struct dp_ntd *nt)
{
    free(nt->node);
    free(nt->bag);
    free(nt->root);
    memset(nt, 0, sizeof *nt);
}
