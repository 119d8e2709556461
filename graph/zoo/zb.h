/* graph/zoo: private building blocks shared by every family builder (blocks.c).
 *
 * A `struct zb` wraps the graph builder with a name path ("dec.l3.self.") so blocks can use
 * short local names, and with weight sharing: while `share` is set, weights are named without
 * the layer component of the path and created only once (ALBERT). Every block returns a
 * tensor id or -1; the graph's sticky error carries the first failure. */
#ifndef LS_GRAPH_ZOO_ZB_H
#define LS_GRAPH_ZOO_ZB_H

#include "graph/graph.h"
#include "graph/zoo.h"

#define ZB_DEPTH 8

struct zb {
    struct graph *g;
    enum ls_dtype dt;
    int64_t batch;
    int share;                       /* weights of the current stack are shared across layers */
    char path[256], wpath[256];      /* activation prefix, weight prefix */
    size_t plen[ZB_DEPTH], wlen[ZB_DEPTH];
    int depth;
    /* Decode steps (docs/zoo.md): kv_len > 0 makes every self-attention attend over a KV
     * cache of kv_len >= 2 tokens (kv_len - 1 cached, graph inputs "<scope>k_cache" and
     * "<scope>v_cache", plus the new token's); cross-attention given ZB_MEM_CACHED reads
     * cached K/V of mem_len memory positions instead of projecting a memory tensor. */
    int64_t kv_len, mem_len;
};

/* The `mem` argument of a layer/stack/attention whose memory K/V are cached (decode). */
#define ZB_MEM_CACHED (-2)

void zb_init(struct zb *z, struct graph *g, enum ls_dtype dt, int64_t batch);
/* Enter a name scope ("attn"); layer scopes are left out of weight names while sharing. */
void zb_push(struct zb *z, const char *name, int is_layer);
void zb_pushf(struct zb *z, int is_layer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void zb_pop(struct zb *z);

int64_t zb_dim(struct zb *z, int32_t t, int axis);  /* size; negative axis from the end */

/* Graph-level tensors, named without the scope; created on first use, then reused. */
int32_t zb_input(struct zb *z, const char *name, enum ls_dtype dt, int rank,
                 const int64_t *sizes, const char *roles);
/* A weight in the current scope (shared scopes reuse it). */
int32_t zb_weight(struct zb *z, const char *name, int rank, const int64_t *sizes,
                  const char *roles);

/* x[..., in] @ W[in, out] (+ b[out]); weight "<name>.w", bias "<name>.b". */
int32_t zb_linear(struct zb *z, const char *name, int32_t x, int64_t out, int bias);
/* Norm along the last axis: "<name>" with params "<name>.g" / "<name>.b". */
int32_t zb_norm(struct zb *z, const char *name, int32_t x, enum zoo_norm kind);
int32_t zb_act(struct zb *z, const char *name, int32_t x, enum zoo_act act);
int32_t zb_add(struct zb *z, const char *name, int32_t a, int32_t b);
int32_t zb_mul(struct zb *z, const char *name, int32_t a, int32_t b);
int32_t zb_reshape(struct zb *z, const char *name, int32_t x, int rank, const int64_t *sizes);
int32_t zb_transpose(struct zb *z, const char *name, int32_t x, int rank, const int *perm);
/* Embedding lookup: gather(table[V, H], ids) -> [ids..., H]; the table id in *table. */
int32_t zb_embed(struct zb *z, const char *name, int32_t ids, int64_t vocab, int64_t width,
                 int32_t *table);
/* Tied LM head: x[B,S,H] contracted with table[V,H] along H -> [B,S,V]. */
int32_t zb_tied_head(struct zb *z, const char *name, int32_t x, int32_t table);

/* conv2d with a weight [cout, cin/groups, kh, kw] and separate strides/pads per axis. */
int32_t zb_conv(struct zb *z, const char *name, int32_t x, int64_t cout, int64_t kh,
                int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int bias);
/* conv2d (k x k, stride, pad) + batchnorm (+ relu). */
int32_t zb_conv_bn(struct zb *z, const char *name, int32_t x, int64_t cout, int64_t k,
                   int64_t stride, int64_t pad, int relu);

/* Patch embedding (vision.c): conv2d kernel = stride = patch, [B,W,n,n] -> [B,n*n,W]. */
int32_t zb_patch_embed(struct zb *z, int32_t img, int64_t patch, int64_t width);

/* Multi-head attention of x[B,Sq,*] over mem[B,Sk,*] (mem == x: self-attention), output
 * [B,Sq,out]. Heads, KV heads, head size, biases and q/k norm come from s; rotary and
 * causal masking only for self-attention. */
int32_t zb_attention(struct zb *z, const char *name, int32_t x, int32_t mem,
                     const struct zoo_stack *s, int64_t out, int rotary, int causal);
/* Feed-forward (dense or gated) of width ffn: [.., H] -> [.., H]. */
int32_t zb_ffn(struct zb *z, const char *name, int32_t x, int64_t ffn, enum zoo_act act,
               int gated, int bias);
/* Mixture of experts over x[B,S,H] (docs/zoo.md: dense dispatch weighted by top-k gates). */
int32_t zb_moe(struct zb *z, const char *name, int32_t x, const struct zoo_stack *s);
/* One transformer layer: self-attention, cross-attention over mem (mem < 0: none), FFN. */
int32_t zb_layer(struct zb *z, int32_t x, int32_t mem, const struct zoo_stack *s, int rotary);
/* s->layers layers in scope "<name>.l<i>" (+ final norm "<name>.norm" when final_norm). */
int32_t zb_stack(struct zb *z, const char *name, int32_t x, int32_t mem,
                 const struct zoo_stack *s, int rotary, int final_norm);

/* Family builders (text.c, vision.c, multi.c): the graph of a checked description. */
int32_t zb_build_encoder(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_encdec(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_decoder(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_whisper(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_cnn(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_resnet(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_vit(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_perceiver(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_musicgen(struct zb *z, const struct zoo_arch *a);
int32_t zb_build_vlm(struct zb *z, const struct zoo_arch *a);

#endif
