/* util/prng: deterministic xoshiro256** seeded by splitmix64. Same seed, same stream,
 * on every platform. */
#ifndef LS_UTIL_PRNG_H
#define LS_UTIL_PRNG_H

#include <stdint.h>

/* The seed every seeded option starts from: solvers, tuners, generators, synthetic traces
 * and the CLI's --seed (cli/flags.def spells its help from it). */
#define LS_SEED_DEFAULT 1
/* A macro's value as a string literal: LS_STRINGIFY(LS_SEED_DEFAULT) is "1". */
#define LS_STRINGIFY_(x) #x
#define LS_STRINGIFY(x) LS_STRINGIFY_(x)

struct ls_rng {
    uint64_t s[4];
};

void ls_rng_seed(struct ls_rng *r, uint64_t seed);
uint64_t ls_rng_next(struct ls_rng *r);
/* Uniform in [0, n); n > 0. Unbiased (rejection). */
uint64_t ls_rng_below(struct ls_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double ls_rng_double(struct ls_rng *r);

#endif
