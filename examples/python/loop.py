"""The whole laysim loop from Python (docs/python.md): load a zoo model, price it on a
target, solve, compile the chosen layouts, simulate.

    PYTHONPATH=PREFIX/lib/python3/site-packages python3 loop.py [zoo:NAME [SOLVER]]

The last line, "objective=N cycles=M", matches examples/c/api_loop.c and the CLI."""
import sys

import laysim

spec = sys.argv[1] if len(sys.argv) > 1 else "zoo:cnn"
solver = sys.argv[2] if len(sys.argv) > 2 else "exact"
target = laysim.Target("nc-v2")
with laysim.Model(spec) as model, laysim.Instance(model, target) as inst:
    print(f"laysim {laysim.version()}: {spec}, {len(inst.problem.ops)} ops on {target.name}")
    sol = inst.solve(solver)
    prog = inst.compile(sol)
    res = prog.simulate(target)
    print(f"{solver}: {sol.status}, {prog.instructions} instructions, {res.cycles} cycles")
    for name, e in res.engines.items():
        print(f"  {name:<5} busy {e.busy_cycles:10} cycles ({100 * e.utilization:.1f}%)")
    print(f"objective={sol.cost} cycles={res.cycles}")
