#!/usr/bin/env bash
# Verilate the tensor-engine RTL at 128x128 in its own build directory, run the cosim sweep
# on it, and report the build time and RTL cycles per second, of wall time and of CPU time
# (the latter is what a loaded machine does not inflate). Last line: a JSON object.
#   bash bench/rtl.sh [build-dir]      (default: build-bench-rtl under the source tree)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bdir=${1:-$src/build-bench-rtl}
jobs=${JOBS:-2}
cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DLAYSIM_RTL=ON \
      -DLAYSIM_RTL_SIZES=128 >/dev/null
t0=$(date +%s.%N)
cmake --build "$bdir" -j"$jobs" --target laysim >/dev/null
t1=$(date +%s.%N)
build_s=$(echo "$t1 - $t0" | bc)
json=$("$bdir/laysim" cosim --rows 128 --cols 128 --json || true)
printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = float(sys.argv[1])
print("rtl 128x128: build %.1f s, %d cases (%d failed), %d RTL cycles in %.2f s wall, %.2f CPU s: "
      "%.0f cycles/s, %.0f cycles per CPU second"
      % (b, len(d["cases"]), d["failed"], d["rtl_cycles"], d["rtl_seconds"],
         d["rtl_cpu_seconds"], d["rtl_cycles_per_second"], d["rtl_cycles_per_cpu_second"]))
print(json.dumps({"rows": 128, "cols": 128, "build_seconds": round(b, 1),
                  "cases": len(d["cases"]), "failed": d["failed"],
                  "rtl_cycles": d["rtl_cycles"], "rtl_seconds": round(d["rtl_seconds"], 3),
                  "rtl_cpu_seconds": round(d["rtl_cpu_seconds"], 3),
                  "rtl_cycles_per_second": round(d["rtl_cycles_per_second"]),
                  "rtl_cycles_per_cpu_second": round(d["rtl_cycles_per_cpu_second"])}))
' "$build_s"
