#!/usr/bin/env python3
"""Treewidth that a cost term between operators adjacent in program order would add to a
layout problem (issue 41): a min-fill upper bound of the problem's interaction graph (one
vertex per op with >= 2 configurations; a clique over each tensor's producer and consumers
when the tensor has >= 2 layouts, since its conversion cost depends on all of them), then
the same with an edge between each two consecutive such ops in file (program) order.

  bench/pair_treewidth.py PROBLEM.lsp...      (e.g. from `laysim problem zoo:bert-base`)

Not `laysim zoo`'s tw_ub, which bounds the op graph (producer-consumer edges only)."""
import sys, collections
def parse(path):
    ops=[]; prod={}; L={}; cur=None
    for line in open(path):
        line=line.split('#')[0].split()
        if not line: continue
        if line[0]=='tensor': L[line[1]]=int(line[2])
        elif line[0]=='op':
            n=int(line[3]); ins=line[4:4+n]; out=line[4+n]
            cur={'name':line[1],'ins':ins,'out':out,'ncfg':0}; ops.append(cur)
            if out!='-': prod[out]=len(ops)-1
        elif line[0]=='cfg': cur['ncfg']+=1
    return ops,prod,L
def graph(ops,prod,L,seq):
    adj=collections.defaultdict(set)
    cons=collections.defaultdict(set)
    for i,o in enumerate(ops):
        for t in o['ins']:
            if L.get(t,1)>=2: cons[t].add(i)
    for t,cs in cons.items():
        grp=set(cs)|{prod[t]}
        grp={v for v in grp if ops[v]['ncfg']>=2}
        for a in grp:
            for b in grp:
                if a!=b: adj[a].add(b)
    if seq:
        var=[i for i,o in enumerate(ops) if o['ncfg']>=2]
        for a,b in zip(var,var[1:]):
            adj[a].add(b); adj[b].add(a)
    for i,o in enumerate(ops):
        if o['ncfg']>=2: adj[i]
    return adj
def minfill(adj):
    adj={k:set(v) for k,v in adj.items()}; w=0
    while adj:
        best=None
        for v,nb in adj.items():
            nbl=list(nb); fill=0
            for i in range(len(nbl)):
                for j in range(i+1,len(nbl)):
                    if nbl[j] not in adj[nbl[i]]: fill+=1
            key=(fill,len(nb))
            if best is None or key<best[0]: best=(key,v)
            if fill==0 and len(nb)<=1: break
        v=best[1]; nb=adj.pop(v); w=max(w,len(nb))
        for a in nb:
            adj[a].discard(v); adj[a]|=(nb-{a})
    return w
if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)
for p in sys.argv[1:]:
    ops,prod,L=parse(p)
    print("%-28s vars=%5d  tw_ub=%d  with program-order pairs: %d"%(p.split('/')[-1], sum(1 for o in ops if o['ncfg']>=2), minfill(graph(ops,prod,L,False)), minfill(graph(ops,prod,L,True))))
