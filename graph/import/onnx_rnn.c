/* graph/import/onnx_rnn: ONNX LSTM, GRU and RNN unrolled over their sequence length (static, from
 * X's shape) into the IR's matmuls and elementwise ops: one input projection of every step
 * at once, then per step one matmul of the state with all the gates' recurrent weights
 * (two for a GRU without linear_before_reset), gate slices, sigmoid/tanh and the state
 * update. Forward, reverse and bidirectional; layout 0 and 1. */
#include <stdio.h>
#include <string.h>

#include "graph/import/onnx_ops.h"

#define RNN_MAX_STEPS 512   /* more steps than this are refused, not unrolled */

struct rnn {
    struct ox *x;
    int lstm, plain;           /* LSTM; RNN (one gate: H = tanh(X W^T + H R^T)); else GRU */
    int gates;                 /* 4 (LSTM: i o f c), 3 (GRU: z r h) or 1 (RNN) */
    int64_t seq, batch, in, hid;
    int layout;                /* 0: X [S,B,I], states [D,B,H]; 1: X [B,S,I], states [B,D,H] */
    int dirs, dir, reverse;    /* directions; the one being built, and whether it runs back */
    int lbr;                   /* GRU linear_before_reset */
    enum ls_dtype dt;
    const char *brole, *srole; /* the roles of X's batch and sequence axes (NULL: none) */
    int want[3];               /* the node names output k (Y, Y_h, Y_c): it is built */
};

/* "<node>.d<dir>.<what>[<step>]" */
static const char *nm(struct rnn *r, const char *what, int64_t step, char *buf, size_t n)
{
    char sfx[64];
    if (step >= 0)
        snprintf(sfx, sizeof sfx, ".d%d.%s%lld", r->dir, what, (long long)step);
    else
        snprintf(sfx, sizeof sfx, ".d%d.%s", r->dir, what);
    return ox_name(r->x, sfx, buf, n);
}

static int32_t unary(struct rnn *r, enum graph_op_kind k, int32_t a, const char *what,
                     int64_t t)
{
    char b[GRAPH_MAX_NAME + 1];
    return a < 0 ? -1 : graph_unary(r->x->g, nm(r, what, t, b, sizeof b), k, a);
}

static int32_t binary(struct rnn *r, enum graph_op_kind k, int32_t a, int32_t c,
                      const char *what, int64_t t)
{
    char b[GRAPH_MAX_NAME + 1];
    return a < 0 || c < 0 ? -1 : graph_binary(r->x->g, nm(r, what, t, b, sizeof b), k, a, c);
}

static int32_t slice(struct rnn *r, int32_t a, int axis, int64_t from, int64_t to,
                     const char *what, int64_t t)
{
    char b[GRAPH_MAX_NAME + 1];
    return a < 0 ? -1 : graph_slice(r->x->g, nm(r, what, t, b, sizeof b), a, axis, from, to, 1);
}

/* A reshape whose axes get the roles axes[i]: 'b' X's batch role, 's' its sequence role,
 * '.' none (the IR would otherwise carry roles over by size alone: a batch of 1 taken for
 * a step of the sequence). */
static int32_t reshape(struct rnn *r, int32_t a, const char *axes, const int64_t *dims,
                       const char *what, int64_t t)
{
    if (a < 0)
        return -1;
    char roles[GRAPH_MAX_RANK * (GRAPH_MAX_ROLE + 1) + 1], b[GRAPH_MAX_NAME + 1];
    size_t n = 0;
    int rank = (int)strlen(axes);
    for (int i = 0; i < rank; i++) {
        const char *role = axes[i] == 'b' ? r->brole : axes[i] == 's' ? r->srole : NULL;
        n += (size_t)snprintf(roles + n, sizeof roles - n, "%s%s", i ? "," : "",
                              role ? role : "");
    }
    return graph_reshape(r->x->g, nm(r, what, t, b, sizeof b), a, rank, dims, roles);
}

/* A weight that exists for its shape: a folded bias, a zero initial state. */
static int32_t block(struct rnn *r, const char *what, int rank, const int64_t *dims)
{
    char sfx[64];
    snprintf(sfx, sizeof sfx, ".d%d.%s", r->dir, what);
    return ox_block(r->x, sfx, r->dt, rank, dims);
}

/* a [m, k] times b [n, k] transposed: [m, n]. */
static int32_t matmul_t(struct rnn *r, int32_t a, int32_t b, const char *what, int64_t t)
{
    char buf[GRAPH_MAX_NAME + 1];
    return a < 0 || b < 0 ? -1 : graph_matmul_axes(r->x->g, nm(r, what, t, buf, sizeof buf), a,
                                                   b, 1, 1);
}

/* The shape of v as "[a,b,c]" into buf. */
static const char *shape_str(const struct ox_val *v, char *buf, size_t n)
{
    size_t u = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < v->rank && u < n; i++)
        u += (size_t)snprintf(buf + u, n - u, "%s%lld", i ? "," : "", (long long)v->dims[i]);
    if (u < n)
        snprintf(buf + u, n - u, "]");
    return buf;
}

/* Input k (named what) must have shape want[0..rank): 0, or -1 with the error set. */
static int check_shape(struct rnn *r, const struct ox_val *v, const char *what, int rank,
                       const int64_t *want)
{
    int same = v->rank == rank;
    for (int i = 0; same && i < rank; i++)
        same = v->dims[i] == want[i];
    if (same)
        return 0;
    char got[96], exp[96];
    struct ox_val w;
    w.rank = rank;
    memcpy(w.dims, want, sizeof(int64_t) * (size_t)rank);
    return ox_fail(r->x, "%s has shape %s, expected %s", what, shape_str(v, got, sizeof got),
                   shape_str(&w, exp, sizeof exp)), -1;
}

/* Direction r->dir of a per-direction parameter v of shape [D, rows(, cols)]: a weight of
 * [rows(, cols)] for a constant, else a slice of the tensor. */
static int32_t dir_param(struct rnn *r, struct ox_val *v, const char *what, int64_t rows,
                         int64_t cols)
{
    int64_t want[3] = {r->dirs, rows, cols}, d[2] = {rows, cols};
    int rank = cols ? 3 : 2;
    const char *axes = cols ? ".." : ".";
    if (check_shape(r, v, what, rank, want))
        return -1;
    if (v->konst && v->t < 0)
        return block(r, what, rank - 1, d);
    int32_t t = ox_tensor(r->x, v, r->dt);
    if (t >= 0 && r->dirs > 1)
        t = slice(r, t, 0, r->dir, r->dir + 1, what, -1);
    return reshape(r, t, axes, d, what, -1);
}

/* The initial state (input k: initial_h or initial_c) of this direction as [B, H]; a zero
 * state (a weight of that shape) when absent. */
static int32_t init_state(struct rnn *r, int k, const char *what)
{
    struct ox_val *v = ox_in(r->x, k);
    int64_t d[2] = {r->batch, r->hid};
    if (!v)
        return block(r, what, 2, d);
    int64_t want[3] = {r->dirs, r->batch, r->hid};
    if (r->layout)
        want[0] = r->batch, want[1] = r->dirs;
    if (check_shape(r, v, what, 3, want))
        return -1;
    if (v->konst && v->t < 0)
        return block(r, what, 2, d);
    int32_t t = ox_tensor(r->x, v, r->dt);
    if (t >= 0 && r->dirs > 1)
        t = slice(r, t, r->layout, r->dir, r->dir + 1, what, -1);
    return reshape(r, t, "b.", d, what, -1);
}

/* The input projection of every step with the bias of both W and R added:
 * [S, B, G*H] (layout 0) or [B, S, G*H]. */
static int32_t project_inputs(struct rnn *r, int32_t xin, int32_t w)
{
    int64_t gh = r->gates * r->hid, flat[2] = {r->seq * r->batch, r->in};
    int64_t out[3] = {r->seq, r->batch, gh};
    if (r->layout)
        out[0] = r->batch, out[1] = r->seq;
    int32_t p = matmul_t(r, reshape(r, xin, "..", flat, "x2d", -1), w, "xw", -1);
    struct ox_val *bv = ox_in(r->x, 3);
    int64_t want[2] = {r->dirs, 2 * gh};
    if (bv && check_shape(r, bv, "B", 2, want))
        return -1;
    if (bv && bv->konst && bv->t < 0) {   /* a constant B: Wb + Rb folded into one weight */
        p = binary(r, GRAPH_OP_ADD, p, block(r, "bias", 1, &gh), "xwb", -1);
    } else if (bv) {                      /* a computed B: Wb + Rb added */
        int32_t b = dir_param(r, bv, "B", 2 * gh, 0);
        b = binary(r, GRAPH_OP_ADD, slice(r, b, 0, 0, gh, "wb", -1),
                   slice(r, b, 0, gh, 2 * gh, "rb", -1), "bias", -1);
        p = binary(r, GRAPH_OP_ADD, p, b, "xwb", -1);
    }
    return reshape(r, p, r->layout ? "bs." : "sb.", out, "xproj", -1);
}

/* One LSTM step: gates [B, 4H] in the order i o f c; *c updated; returns H. */
static int32_t lstm_step(struct rnn *r, int32_t g, int32_t *c, int64_t t)
{
    int64_t h = r->hid;
    int32_t i = unary(r, GRAPH_OP_SIGMOID, slice(r, g, 1, 0, h, "gi", t), "i", t);
    int32_t o = unary(r, GRAPH_OP_SIGMOID, slice(r, g, 1, h, 2 * h, "go", t), "o", t);
    int32_t f = unary(r, GRAPH_OP_SIGMOID, slice(r, g, 1, 2 * h, 3 * h, "gf", t), "f", t);
    int32_t cc = unary(r, GRAPH_OP_TANH, slice(r, g, 1, 3 * h, 4 * h, "gc", t), "cc", t);
    int32_t keep = binary(r, GRAPH_OP_MUL, f, *c, "keep", t);
    *c = binary(r, GRAPH_OP_ADD, keep, binary(r, GRAPH_OP_MUL, i, cc, "write", t), "c", t);
    return binary(r, GRAPH_OP_MUL, o, unary(r, GRAPH_OP_TANH, *c, "tc", t), "h", t);
}

/* One GRU step from the input projection xw [B, 3H] (order z r h) and the state; rz, rh:
 * R's z/r rows and h rows (rz = all of R, rh = -1 with linear_before_reset). */
static int32_t gru_step(struct rnn *r, int32_t xw, int32_t hp, int32_t rz, int32_t rh,
                        int32_t rbh, int64_t t)
{
    int64_t h = r->hid;
    int32_t rec = matmul_t(r, hp, rz, "rec", t);   /* [B, 2H], or [B, 3H] with lbr */
    int32_t zr = binary(r, GRAPH_OP_ADD, slice(r, xw, 1, 0, 2 * h, "xzr", t),
                        r->lbr ? slice(r, rec, 1, 0, 2 * h, "rzr", t) : rec, "gzr", t);
    zr = unary(r, GRAPH_OP_SIGMOID, zr, "zr", t);
    int32_t z = slice(r, zr, 1, 0, h, "z", t), rs = slice(r, zr, 1, h, 2 * h, "r", t);
    int32_t cand;
    if (r->lbr) {   /* r * (H R_h^T + Rb_h) */
        int32_t rech = slice(r, rec, 1, 2 * h, 3 * h, "rech", t);
        if (rbh >= 0)
            rech = binary(r, GRAPH_OP_ADD, rech, rbh, "rechb", t);
        cand = binary(r, GRAPH_OP_MUL, rs, rech, "reset", t);
    } else {        /* (r * H) R_h^T */
        cand = matmul_t(r, binary(r, GRAPH_OP_MUL, rs, hp, "reset", t), rh, "rech", t);
    }
    cand = binary(r, GRAPH_OP_ADD, slice(r, xw, 1, 2 * h, 3 * h, "xh", t), cand, "gh", t);
    cand = unary(r, GRAPH_OP_TANH, cand, "cand", t);
    /* (1 - z) * cand + z * H  =  cand + z * (H - cand) */
    int32_t d = binary(r, GRAPH_OP_MUL, z, binary(r, GRAPH_OP_SUB, hp, cand, "diff", t), "zd", t);
    return binary(r, GRAPH_OP_ADD, cand, d, "h", t);
}

/* The gate inputs of step t: X's projection at t as [B, G*H]. */
static int32_t step_input(struct rnn *r, int32_t xp, int64_t t)
{
    int64_t d[2] = {r->batch, r->gates * r->hid};
    return reshape(r, slice(r, xp, r->layout, t, t + 1, "xt", t), "b.", d, "xt2d", t);
}

/* Build direction r->dir: Y's part [S, 1, B, H] (layout 1: [B, S, 1, H]) into *y, the last
 * H and C as [1, B, H] (layout 1: [B, 1, H]). 0 or -1. */
static int run_direction(struct rnn *r, int32_t xin, int32_t *y, int32_t *hl, int32_t *cl)
{
    struct ox *x = r->x;
    int64_t gh = r->gates * r->hid, h = r->hid;
    int32_t w = dir_param(r, ox_in(x, 1), "W", gh, r->in);
    int32_t rr = w < 0 ? -1 : dir_param(r, ox_in(x, 2), "R", gh, h);
    int32_t xp = rr < 0 ? -1 : project_inputs(r, xin, w);
    int32_t hs = xp < 0 ? -1 : init_state(r, 5, "initial_h");
    int32_t cs = r->lstm && hs >= 0 ? init_state(r, 6, "initial_c") : -1;
    int32_t rz = rr, rh = -1, rbh = -1, gru = !r->lstm && !r->plain;
    if (gru && !r->lbr) {
        rz = slice(r, rr, 0, 0, 2 * h, "Rzr", -1);
        rh = slice(r, rr, 0, 2 * h, 3 * h, "Rh", -1);
    } else if (gru && ox_in(x, 3)) {
        rbh = block(r, "Rbh", 1, &h);
    }
    if (hs < 0 || (r->lstm && cs < 0))
        return -1;
    int32_t steps[RNN_MAX_STEPS];
    int64_t one[4] = {1, 1, r->batch, h};
    if (r->layout)
        one[0] = r->batch, one[2] = 1;
    for (int64_t k = 0; k < r->seq && hs >= 0; k++) {
        int64_t t = r->reverse ? r->seq - 1 - k : k;
        int32_t xt = step_input(r, xp, t);
        if (gru) {
            hs = gru_step(r, xt, hs, rz, rh, rbh, t);
        } else {
            int32_t g = binary(r, GRAPH_OP_ADD, xt, matmul_t(r, hs, rr, "rec", t), "gates", t);
            hs = r->lstm ? lstm_step(r, g, &cs, t) : unary(r, GRAPH_OP_TANH, g, "h", t);
        }
        if (r->want[0])
            steps[t] = reshape(r, hs, r->layout ? "bs.." : "s.b.", one, "y", t);
    }
    if (hs < 0)
        return -1;
    char buf[GRAPH_MAX_NAME + 1];
    if (r->want[0])
        *y = graph_concat(x->g, nm(r, "Y", -1, buf, sizeof buf), (int)r->seq, steps, r->layout);
    int64_t last[3] = {1, r->batch, h};
    if (r->layout)
        last[0] = r->batch, last[1] = 1;
    const char *axes = r->layout ? "b.." : ".b.";
    if (r->want[1])
        *hl = reshape(r, hs, axes, last, "Y_h", -1);
    if (r->want[2])
        *cl = reshape(r, cs, axes, last, "Y_c", -1);
    return (r->want[0] && *y < 0) || (r->want[1] && *hl < 0) || (r->want[2] && *cl < 0) ? -1
                                                                                        : 0;
}

/* Attributes the lowering does not model: 0, or -1 naming the first. */
static int check_attrs(struct rnn *r)
{
    struct ox *x = r->x;
    static const char *const dflt[3][3] = {{"Sigmoid", "Tanh", ""}, {"Sigmoid", "Tanh", "Tanh"},
                                           {"Tanh", "", ""}};
    static const char *const names[3] = {"Sigmoid, Tanh", "Sigmoid, Tanh, Tanh", "Tanh"};
    const Onnx__AttributeProto *a = ox_attr(x, "activations");
    int kind = r->lstm ? 1 : r->plain ? 2 : 0, per = r->lstm ? 3 : r->plain ? 1 : 2;
    for (size_t i = 0; a && i < a->n_strings; i++) {
        const char *want = dflt[kind][i % (size_t)per];
        if (a->strings[i].len != strlen(want) || memcmp(a->strings[i].data, want, strlen(want)))
            return ox_fail(x, "activations other than the defaults (%s) are not supported",
                           names[kind]), -1;
    }
    if (ox_attr(x, "clip"))
        return ox_fail(x, "attribute 'clip' is not supported"), -1;
    if (ox_attr_i(x, "input_forget", 0))
        return ox_fail(x, "input_forget=1 is not supported"), -1;
    if (r->lstm && ox_in(x, 7))
        return ox_fail(x, "peepholes (input P) are not supported"), -1;
    return 0;
}

/* Read X's shape, the direction and the hidden size into r: 0 or -1. */
static int read_shape(struct rnn *r, int32_t xin)
{
    struct ox *x = r->x;
    const struct graph_shape *s = &graph_tensor(x->g, xin)->shape;
    r->dt = graph_tensor(x->g, xin)->dtype;
    r->layout = (int)ox_attr_i(x, "layout", 0);
    if (s->rank != 3)
        return ox_fail(x, "X has rank %d, expected 3 (%s)", s->rank,
                       r->layout ? "[batch, seq, input]" : "[seq, batch, input]"), -1;
    r->seq = s->dims[r->layout ? 1 : 0].size;
    r->batch = s->dims[r->layout ? 0 : 1].size;
    r->srole = s->dims[r->layout ? 1 : 0].role;
    r->brole = s->dims[r->layout ? 0 : 1].role;
    r->in = s->dims[2].size;
    char dir[32];
    if (!ox_attr_s(x, "direction", dir, sizeof dir))
        snprintf(dir, sizeof dir, "forward");
    r->dirs = !strcmp(dir, "bidirectional") ? 2 : 1;
    r->reverse = !strcmp(dir, "reverse");
    if (r->dirs == 1 && !r->reverse && strcmp(dir, "forward"))
        return ox_fail(x, "direction '%s' (forward, reverse or bidirectional)", dir), -1;
    struct ox_val *w = ox_in(x, 1);
    if (!w || !ox_in(x, 2))
        return ox_fail(x, "inputs W and R are required"), -1;
    r->hid = ox_attr_i(x, "hidden_size", w->rank == 3 ? w->dims[1] / r->gates : 0);
    if (r->hid < 1)
        return ox_fail(x, "hidden_size must be given or W must be [D, %d*hidden, input]",
                       r->gates), -1;
    if (r->seq > RNN_MAX_STEPS)
        return ox_fail(x, "sequence length %lld: at most %d steps are unrolled (set a "
                       "shorter one with --input or --seq)", (long long)r->seq,
                       RNN_MAX_STEPS), -1;
    return 0;
}

/* Bind Y (parts concatenated over directions), Y_h and Y_c. */
static int bind_outputs(struct rnn *r, const int32_t *y, const int32_t *hl, const int32_t *cl)
{
    struct ox *x = r->x;
    char b[GRAPH_MAX_NAME + 1];
    const int32_t *parts[3] = {y, hl, cl};
    static const char *const sfx[3] = {".Y", ".Y_h", ".Y_c"};
    for (int k = 0; k < 3; k++) {
        if (!r->want[k])
            continue;
        int axis = k == 0 ? r->layout + 1 : r->layout;   /* the directions axis */
        int32_t out = r->dirs == 1 ? parts[k][0]
                                   : graph_concat(x->g, ox_name(x, sfx[k], b, sizeof b), 2,
                                                  parts[k], axis);
        if (ox_bind(x, k, out))
            return -1;
    }
    return 0;
}

/* gates: 4 LSTM, 3 GRU, 1 RNN. */
static int import_rnn(struct ox *x, int gates)
{
    struct rnn r;
    memset(&r, 0, sizeof r);
    int lstm = gates == 4;
    r.x = x, r.lstm = lstm, r.plain = gates == 1, r.gates = gates;
    r.lbr = gates == 3 && ox_attr_i(x, "linear_before_reset", 0);
    for (int k = 0; k < (lstm ? 3 : 2); k++)
        r.want[k] = (size_t)k < x->node->n_output && x->node->output[k][0];
    int32_t xin = oxo_req(x, 0);
    if (xin < 0 || check_attrs(&r) || read_shape(&r, xin))
        return -1;
    int32_t y[2] = {-1, -1}, hl[2] = {-1, -1}, cl[2] = {-1, -1};
    for (r.dir = 0; r.dir < r.dirs; r.dir++) {
        if (r.dirs == 2)
            r.reverse = r.dir == 1;
        if (run_direction(&r, xin, &y[r.dir], &hl[r.dir], &cl[r.dir]))
            return -1;
    }
    return bind_outputs(&r, y, hl, cl);
}

int oxo_lstm(struct ox *x)
{
    return import_rnn(x, 4);
}

int oxo_gru(struct ox *x)
{
    return import_rnn(x, 3);
}

int oxo_rnn(struct ox *x)
{
    return import_rnn(x, 1);
}
