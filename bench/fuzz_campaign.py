#!/usr/bin/env python3
"""A mutation campaign against the real CLI (issue 45): every input format laysim reads,
mutated (byte flips, insertions, deletions, repeated chunks, truncation, numbers replaced by
extreme values) and fed to the command that reads it, under a sanitizer build. Per format:
inputs run, exits 0 / 1 / 2, crashes (a signal, or an exit code laysim never uses),
sanitizer reports (AddressSanitizer, LeakSanitizer or UBSan "runtime error"), hangs (no exit
within the timeout). Findings are kept with their command under OUT/findings.

  bench/fuzz_campaign.py [-n INPUTS] [-j JOBS] [-s SEED] [-t SECONDS] [-o OUT]
                         [-f FORMAT[,FORMAT...]] [--json] LAYSIM

LAYSIM: the binary to run, e.g. build-asan/laysim (`make build BUILD=build-asan SANITIZE=1
RTL=0`). -n: inputs over all formats (default 50000), split evenly; -t: timeout per run
(default 20 s); -o: keep the inputs of findings (default: a temporary directory, removed
when nothing was found). Exit 0 when no crash, sanitizer report or hang was found, 1
otherwise, 2 for bad usage."""
import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.path.join(ROOT, "tests", "data")
EXTREMES = [b"0", b"-1", b"1", b"2147483648", b"-2147483649", b"9223372036854775808",
            b"1e308", b"-1e308", b"nan", b"inf", b"4294967297", b"65536", b"0.0000001"]


def files(*globs):
    import glob
    out = []
    for g in globs:
        out += sorted(glob.glob(os.path.join(ROOT, g)))
    return [f for f in out if os.path.isfile(f)]


# format: (seed files, suffix of the mutated file, command with IN and OUT placeholders)
def formats(work):
    lsp = os.path.join(D, "lsp", "small.lsp")
    return {
        "lg": (files("examples/*.lg", "tests/data/bad/*.lg"), ".lg",
               ["problem", "IN", "-q", "-o", "OUT"]),
        "hf": (files("tests/data/hf/*.json"), ".json",
               ["problem", "IN", "--layers", "1", "--seq", "32", "-q", "-o", "OUT"]),
        "onnx": (files("tests/data/onnx/*.onnx"), ".onnx", ["graph", "IN", "--stats"]),
        "tfjs": (files("tests/data/tfjs/*.json"), ".json", ["graph", "IN", "--stats"]),
        "hlo": (files("tests/data/hlo/*.hlo", "tests/data/hlo/*.txt"), ".hlo",
                ["graph", "IN", "--stats"]),
        "lsp": (files("tests/data/lsp/*.lsp"), ".lsp",
                ["solve", "IN", "--solver", "greedy", "-q", "-o", "OUT"]),
        "sol": (files("tests/data/lsp/*.sol") + [os.path.join(work, "seed.sol")], ".sol",
                ["check", lsp, "IN"]),
        "prog": (files("tests/data/prog/*.lsprog", "tests/data/prog/bad/*.lsprog"), ".lsprog",
                 ["sim", "IN"]),
        "target": (files("tests/fuzz/seeds/target/*.ini"), ".ini",
                   ["problem", "examples/fig2.lg", "--target", "IN", "-q", "-o", "OUT"]),
        "table": (files("tests/fuzz/seeds/cmtable/*.json"), ".json",
                  ["problem", "examples/fig2.lg", "--table", "IN", "-q", "-o", "OUT"]),
        "trace-csv": (files("tests/data/traces/*.csv"), ".csv",
                      ["trace", "import", "IN", "--clock-mhz", "1400", "-o", "OUT"]),
        "trace-json": (files("tests/data/traces/*.json"), ".json",
                       ["trace", "import", "IN", "--clock-mhz", "1400", "-o", "OUT"]),
        "lstrace": ([os.path.join(work, "seed.lstrace")], ".lstrace", ["trace", "IN", "summary"]),
    }


def make_seeds(laysim, work):
    """The formats with no seed in the repository, written by laysim itself."""
    lsp = os.path.join(D, "lsp", "small.lsp")
    run = lambda *a: subprocess.run([laysim, *a], cwd=ROOT, capture_output=True, timeout=120)
    run("solve", lsp, "--solver", "greedy", "-q", "-o", os.path.join(work, "seed.sol"))
    prog = os.path.join(work, "seed.lsprog")
    run("compile", "examples/fig2.lg", "-q", "-o", prog)
    run("sim", prog, "--trace", os.path.join(work, "seed.lstrace"))


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 5])):
        # numbers replaced by extreme values most often: past the syntax checks, into the
        # shapes, sizes and timings the commands compute with
        k = rng.choice([0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6])
        n = len(data)
        if n == 0:
            data += bytes([rng.randrange(256)])
            continue
        i = rng.randrange(n)
        if k == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif k == 1:
            data[i] = rng.randrange(256)
        elif k == 2:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
        elif k == 3:
            del data[i:i + rng.randrange(1, 17)]
        elif k == 4:
            j = min(n, i + rng.randrange(1, 65))
            data[j:j] = data[i:j] * rng.randrange(1, 4)
        elif k == 5:
            del data[rng.randrange(n):]
        else:
            nums = [m for m in re.finditer(rb"-?\d+(\.\d+)?(e-?\d+)?", bytes(data))]
            if nums:
                m = rng.choice(nums)
                data[m.start():m.end()] = rng.choice(EXTREMES)
    return bytes(data)


SAN = re.compile(r"ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: UndefinedBehavior")


def classify(rc, err):
    if rc is None:
        return "hang"
    if SAN.search(err):
        return "sanitizer"
    if rc < 0 or rc > 2:
        return "crash"
    return "exit%d" % rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("laysim", help="the laysim binary to run, e.g. build-asan/laysim")
    ap.add_argument("-n", type=int, default=50000, help="inputs over all formats (default 50000)")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1,
                    help="runs at a time (default: online CPUs)")
    ap.add_argument("-s", type=int, default=1, help="seed of the mutations (default 1)")
    ap.add_argument("-t", type=float, default=20,
                    help="seconds before a run counts as a hang (default 20)")
    ap.add_argument("-o", default="", help="keep the findings' inputs under this directory")
    ap.add_argument("-f", default="", help="only these formats, comma-separated")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    a = ap.parse_args()
    laysim = os.path.abspath(a.laysim)
    if not os.access(laysim, os.X_OK) or a.n < 1 or a.j < 1 or a.t <= 0:
        ap.print_usage(sys.stderr)
        print("fuzz_campaign.py: need an executable LAYSIM, -n >= 1, -j >= 1, -t > 0",
              file=sys.stderr)
        return 2
    out = a.o or tempfile.mkdtemp(prefix="laysim-campaign-")
    work = os.path.join(out, "work")
    os.makedirs(os.path.join(out, "findings"), exist_ok=True)
    os.makedirs(work, exist_ok=True)
    make_seeds(laysim, work)
    fm = formats(work)
    chosen = a.f.split(",") if a.f else list(fm)
    bad = [f for f in chosen if f not in fm]
    if bad:
        print("fuzz_campaign.py: unknown format %s (known: %s)" % (", ".join(bad), ", ".join(fm)),
              file=sys.stderr)
        return 2
    seeds = {f: [open(p, "rb").read() for p in fm[f][0] if os.path.isfile(p)] for f in chosen}
    chosen = [f for f in chosen if seeds[f]]
    per = max(1, a.n // len(chosen))
    counts = {f: {} for f in chosen}
    lock = threading.Lock()
    done = [0]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87",
               LAYSIM_TRACE_MAX_RECORDS="2000000")

    def one(fmt, k):
        rng = random.Random((a.s << 40) ^ (zlib.crc32(fmt.encode()) << 8) ^ k)
        data = mutate(rng.choice(seeds[fmt]), rng)
        d = tempfile.mkdtemp(dir=work)
        inp = os.path.join(d, "in" + fm[fmt][1])
        with open(inp, "wb") as fp:
            fp.write(data)
        cmd = [laysim] + [inp if x == "IN" else os.path.join(d, "out") if x == "OUT" else x
                          for x in fm[fmt][2]]
        try:
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=a.t, env=env)
            rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = None, ""
        kind = classify(rc, err)
        if kind in ("hang", "sanitizer", "crash"):
            keep = os.path.join(out, "findings", "%s-%d%s" % (fmt, k, fm[fmt][1]))
            shutil.copy(inp, keep)
            with open(keep + ".txt", "w") as fp:
                fp.write(" ".join(cmd) + "\nexit %s\n%s" % (rc, err[-4000:]))
        shutil.rmtree(d, ignore_errors=True)
        with lock:
            counts[fmt][kind] = counts[fmt].get(kind, 0) + 1
            done[0] += 1
            if sys.stderr.isatty() and done[0] % 100 == 0:
                print("\r%d / %d inputs" % (done[0], per * len(chosen)), end="", file=sys.stderr)

    with cf.ThreadPoolExecutor(a.j) as ex:
        for f in as_completed_all(ex, [(f, k) for k in range(per) for f in chosen], one):
            pass
    if sys.stderr.isatty():
        print(file=sys.stderr)
    kinds = ["exit0", "exit1", "exit2", "crash", "sanitizer", "hang"]
    total = {k: sum(c.get(k, 0) for c in counts.values()) for k in kinds}
    findings = total["crash"] + total["sanitizer"] + total["hang"]
    if a.json:
        print(json.dumps({"laysim": laysim, "seed": a.s, "inputs": per * len(chosen),
                          "formats": counts, "total": total, "findings_dir":
                          os.path.join(out, "findings") if findings else None}, indent=1))
    else:
        print("%-11s %7s %7s %7s %7s %6s %9s %5s" % ("format", "inputs", "exit 0", "exit 1",
                                                   "exit 2", "crash", "sanitizer", "hang"))
        for f in chosen + ["all"]:
            c = total if f == "all" else counts[f]
            print("%-11s %7d %7d %7d %7d %6d %9d %5d" % (f, sum(c.get(k, 0) for k in kinds),
                                                       *(c.get(k, 0) for k in kinds)))
        if findings:
            print("findings kept in %s" % os.path.join(out, "findings"))
    shutil.rmtree(work, ignore_errors=True)
    if not findings and not a.o:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if findings else 0


def as_completed_all(ex, jobs, fn):
    """Run fn(*job) for every job on ex, at most a few thousand queued at a time."""
    pending = set()
    for job in jobs:
        pending.add(ex.submit(fn, *job))
        if len(pending) >= 4096:
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for f in finished:
                f.result()
                yield f
    for f in cf.as_completed(pending):
        f.result()
        yield f


if __name__ == "__main__":
    sys.exit(main())
