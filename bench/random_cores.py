"""Hidden cores drawn at random: nc-v2 with every timing key redrawn, for calibration tests on
cores nobody tuned against (docs/calibration.md, "Cores nobody chose").

    python3 bench/random_cores.py N [SEED]

prints N lines "NAME KEY=VALUE ...", one core each, reproducible from SEED (default 1).
Each key is drawn log-uniformly within its range below (nc-v2's value inside it); clocks are
multiples of 20 MHz whose least common multiple stays within the target's 100,000 MHz limit
(redrawn until it does). Structural keys (array, SBUF, PSUM, queue counts) stay nc-v2's: they
change the programs, not the timings a table must learn."""
import math
import random
import sys

# key: (low, high, integer); nc-v2's value lies inside every range
RANGES = {
    "pe.mm_min_ii": (32, 128, True),
    "pe.ls_speedup": (2, 8, True),
    "dma.bytes_per_ns": (8, 32, False),
    "dma.desc_min_ns": (60, 300, True),
    "dma.transfer_latency_ns": (300, 1500, True),
    "hbm.bytes_per_ns": (200, 800, True),
    "vec.min_ii": (32, 128, True),
    "vec.access_overhead": (20, 160, True),
    "vec.static_overhead": (40, 250, True),
    "pool.start_cycles": (60, 400, True),
}
# clock: (low, high) MHz; drawn as multiples of CLOCK_STEP
CLOCKS = {
    "clock.base_mhz": (1000, 2000),
    "clock.pe_mhz": (1800, 3600),
    "clock.dve_mhz": (800, 1600),
    "clock.act_mhz": (1000, 2000),
    "clock.pool_mhz": (1000, 2000),
}
CLOCK_STEP = 20
LCM_MAX = 100000


def loguniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def draw_clocks(rng):
    while True:
        c = {k: CLOCK_STEP * round(loguniform(rng, lo, hi) / CLOCK_STEP)
             for k, (lo, hi) in CLOCKS.items()}
        lcm = 1
        for v in c.values():
            lcm = lcm * v // math.gcd(lcm, v)
        if lcm <= LCM_MAX:
            return c


def draw(rng):
    core = draw_clocks(rng)
    for k, (lo, hi, integer) in RANGES.items():
        v = loguniform(rng, lo, hi)
        core[k] = round(v) if integer else round(v, 1)
    return core


def main():
    if len(sys.argv) < 2 or not sys.argv[1].isdigit():
        sys.stderr.write(__doc__)
        sys.exit(2)
    n, seed = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    for i in range(n):
        core = draw(rng)
        print("r%d-%d %s" % (seed, i, " ".join("%s=%s" % kv for kv in core.items())))


if __name__ == "__main__":
    main()
