/* sim/micro: built-in microbenchmark programs (`laysim sim --micro SPEC`).
 *
 * SPEC is KIND:key=value,key=value... (keys in brackets are optional)
 *   gemm:M=512,K=256,N=1024[,dtype=bf16,swap=0]   C[MxN] = A[MxK] B[KxN] on the PE array
 *   dma:bytes_per_partition=256,count=64[,partitions=128,queues=4,dir=load|store|sbuf,transpose=0]
 *   dve:op=add,free=2048[,partitions=128,dtype=bf16,count=1,dep=0]
 *   act:free=1,count=64[,partitions=128,dep=1,func=exp]
 *   mix:instructions=1000000[,seed=1]   a large mixed program (bench/sim.sh)
 * The program is built for the given target (sizes are checked against it). */
#ifndef LS_SIM_MICRO_H
#define LS_SIM_MICRO_H

#include "sim/program.h"
#include "sim/target.h"
#include "util/error.h"

int sim_micro_build(const char *spec, const struct sim_target *t, struct sim_program **out,
                    struct ls_error *err);

#endif
