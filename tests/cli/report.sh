#!/usr/bin/env bash
# laysim study / whatif reports (issue 22): the findings summary is the first section; figure
# numbers are unique; every plot's value axis spans the data, exceeding it by at most 10 % of
# the data's range on each side, with round tick values; no constant series is drawn.
# Issue 46: predicted vs simulated is a log-log scatter (ticks on both axes, y = x, error
# bands); coinciding lines are told apart and noted; panel labels are unique; tables scroll
# inside their own container.
# usage: bash tests/cli/report.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# check_report DIR WHAT: the checks on DIR/report.html and DIR/report.md
check_report() {
    local dir=$1 what=$2
    if grep -o '<h2[^>]*>[^<]*</h2>' "$dir/report.html" | head -1 | grep -q '>Findings summary<' &&
       [ "$(grep -m1 '^## ' "$dir/report.md")" = "## Findings summary" ]; then ok; else
        bad "$what: the first section is not the findings summary"; fi
    if grep -q 'Tensor Seeks Layout' "$dir/report.md"; then ok; else bad "$what: the paper is not cited"; fi
    for f in report.html report.md; do
        local nums
        nums=$(grep -oE '(<figcaption>|\*)Figure [0-9]+\.' "$dir/$f" | grep -oE '[0-9]+')
        if [ -n "$nums" ] && [ -z "$(sort <<<"$nums" | uniq -d)" ] &&
           [ "$(head -1 <<<"$nums")" = 1 ] && [ "$(sort -n <<<"$nums" | tail -1)" = "$(wc -l <<<"$nums")" ]; then ok; else
            bad "$what: $f figure numbers not unique 1..N: $(tr '\n' ' ' <<<"$nums")"; fi
    done
    # every HTML table scrolls inside its own container (a wide one cannot widen the page)
    if [ "$(grep -c '<table>' "$dir/report.html")" = "$(grep -c '<div class="tbl"><table>' "$dir/report.html")" ] &&
       grep -q '\.tbl{[^}]*overflow-x:auto' "$dir/report.html"; then ok; else
        bad "$what: a table outside a scrolling container"; fi
    if python3 "$T/axes.py" "$dir/report.html" >"$T/axes.out" 2>&1; then ok; else
        bad "$what: plot axes: $(head -c 1500 "$T/axes.out")"; fi
}

cat >"$T/axes.py" <<'PY'
# Every <svg> with a value axis: the axis (from its <desc data-*>) covers the data's range and
# exceeds it by at most 10 % of that range per side; the tick labels are round (1/2/5 x 10^k
# steps) and lie on the axis at the pixel rows its ends imply; the plotted marks (polyline
# points, bars' data-v) map back into the declared data range and reach its ends; no drawn
# series is constant. A scatter (data-kind="scatter") shares one log axis between x and y
# over a square plot: x ticks too, every point drawn where its data-x / data-y map, the y = x
# line corner to corner and two error bands.
import math, re, sys
html = open(sys.argv[1]).read()
bad = []
svgs = re.findall(r'<svg.*?</svg>', html, re.S)
def attr(tag, name):
    m = re.search(r'\b%s="([^"]*)"' % name, tag)
    return float(m.group(1)) if m else None

def check_ticks(where, ticks, lo, hi, logy, to_px, eps, what):
    """ticks: (value, drawn pixel) pairs; to_px maps the axis scale to the expected pixel"""
    if not ticks:
        bad.append("%s: no %s tick labels" % (where, what))
    for v, px in ticks:
        x = math.log10(v) if logy else v
        if not (lo - eps <= x <= hi + eps):
            bad.append("%s: %s tick %g outside the axis" % (where, what, v))
        if abs(to_px(x) - px) > 0.2:
            bad.append("%s: %s tick %g drawn at %g, want %g" % (where, what, v, px, to_px(x)))
        # round: on a log axis d x 10^k; on any axis a multiple of a 1, 2 or 5 x 10^k step
        # no finer than a twentieth of the axis (0.0065 is round on 0.0062 .. 0.0069)
        mant = v / 10 ** math.floor(math.log10(abs(v))) if v else 1
        span = 10 ** hi - 10 ** lo if logy else hi - lo
        steps = [b * 10 ** math.ceil(math.log10(span / 20 / b)) for b in (1, 2, 5)]
        if not (logy and abs(mant - round(mant)) < 1e-6) and \
           not any(abs(v / s - round(v / s)) < 1e-6 for s in steps):
            bad.append("%s: %s tick %g is not round" % (where, what, v))

def check_scatter(where, svg, d, lo, hi, dlo, dhi, eps):
    top, bottom = attr(d, "data-plot-top"), attr(d, "data-plot-bottom")
    left, right = attr(d, "data-plot-left"), attr(d, "data-plot-right")
    if abs((right - left) - (bottom - top)) > 0.5:
        bad.append(where + ": the scatter's plot is not square")
    ypx = lambda x: bottom - (x - lo) / (hi - lo) * (bottom - top)
    xpx = lambda x: left + (x - lo) / (hi - lo) * (right - left)
    yt = [(float(v), float(y)) for v, y in re.findall(r'class="ytick" data-v="([^"]*)" x="[^"]*" y="([^"]*)"', svg)]
    xt = [(float(v), float(x)) for v, x in re.findall(r'class="xtick" data-v="([^"]*)" x="([^"]*)"', svg)]
    check_ticks(where, yt, lo, hi, 1, lambda x: ypx(x) + 4, eps, "y")
    check_ticks(where, xt, lo, hi, 1, xpx, eps, "x")
    pts = re.findall(r'<path class="data" data-x="([^"]*)" data-y="([^"]*)" transform="translate\(([^,]*),([^)]*)\)"', svg)
    if not pts:
        bad.append(where + ": no points")
        return
    vals = []
    for x, y, px, py in pts:
        lx, ly = math.log10(float(x)), math.log10(float(y))
        vals += [lx, ly]
        if abs(xpx(lx) - float(px)) > 0.05 or abs(ypx(ly) - float(py)) > 0.05:
            bad.append("%s: point (%s, %s) drawn at (%s, %s)" % (where, x, y, px, py))
    if abs(min(vals) - dlo) > 1e-6 or abs(max(vals) - dhi) > 1e-6:
        bad.append("%s: points span %g..%g, the axis declares data %g..%g" % (where, min(vals), max(vals), dlo, dhi))
    diag = '<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f"' % (left, bottom, right, top)
    if diag not in svg:
        bad.append(where + ": no y = x line from corner to corner")
    if len(re.findall(r'<polygon points=', svg)) != 2:
        bad.append(where + ": not two error bands")

naxes = 0
for k, svg in enumerate(svgs):
    title = re.search(r'font-weight="bold">([^<]*)<', svg).group(1)
    where = "plot %d (%s)" % (k + 1, title)
    desc = re.search(r'<desc [^>]*>', svg)
    if not desc:
        if 'class="data"' in svg:
            bad.append(where + ": marks without a value-axis description")
        continue
    naxes += 1
    d = desc.group(0)
    lo, hi, dlo, dhi = (attr(d, n) for n in ("data-axis-lo", "data-axis-hi", "data-data-lo", "data-data-hi"))
    logy, top, bottom = attr(d, "data-logy"), attr(d, "data-plot-top"), attr(d, "data-plot-bottom")
    rng = dhi - dlo
    eps = 1e-6 * max(1.0, abs(dlo), abs(dhi))
    if not (lo <= dlo + eps and hi >= dhi - eps):
        bad.append("%s: axis %g..%g does not cover the data %g..%g" % (where, lo, hi, dlo, dhi))
    if rng > 0 and (dlo - lo > 0.1 * rng + eps or hi - dhi > 0.1 * rng + eps):
        bad.append("%s: axis %g..%g exceeds the data %g..%g by more than 10%%" % (where, lo, hi, dlo, dhi))
    labels = re.findall(r'class="ytick"[^>]*>([^<]*)<', svg)
    if len(set(labels)) != len(labels):
        bad.append("%s: repeated tick labels %s" % (where, labels))
    if 'data-kind="scatter"' in d:
        check_scatter(where, svg, d, lo, hi, dlo, dhi, eps)
        continue
    def to_px(x):
        return bottom - (x - lo) / (hi - lo) * (bottom - top)
    def from_px(y):
        return lo + (bottom - y) / (bottom - top) * (hi - lo)
    ticks = [(float(v), float(y)) for v, y in re.findall(r'class="ytick" data-v="([^"]*)" x="[^"]*" y="([^"]*)"', svg)]
    check_ticks(where, ticks, lo, hi, logy, lambda x: to_px(x) + 4, eps, "y")
    # lines stay distinguishable: each its own dash pattern and markers; lines drawn on top of
    # each other are named in a "lines coincide" note (and only then)
    lines = re.findall(r'<polyline class="data"[^>]*stroke-dasharray="([^"]*)" points="([^"]*)"', svg)
    if len(set(dash for dash, _ in lines)) != len(lines):
        bad.append(where + ": two lines share a dash pattern")
    if lines and svg.count('class="mark"') < len(lines):
        bad.append(where + ": lines without markers")
    same = len(set(pts for _, pts in lines)) < len(lines)
    if same != ('class="coincide"' in svg):
        bad.append("%s: coinciding lines %s, a 'lines coincide' note %s" %
                   (where, same, 'class="coincide"' in svg))
    marks = []
    for pts in re.findall(r'<polyline class="data"[^>]* points="([^"]*)"', svg):
        ys = [from_px(float(p.split(",")[1])) for p in pts.split()]
        if len(ys) > 2 and max(ys) - min(ys) < 1e-9 * max(1, abs(ys[0])):
            bad.append(where + ": a constant series is drawn")
        marks += ys
    for v in re.findall(r'<rect class="data" data-v="([^"]*)"', svg):
        marks.append(math.log10(float(v)) if logy else float(v))
    if not marks:
        bad.append(where + ": no data marks")
        continue
    tol = 0.02 * (hi - lo) / (bottom - top) * 10   # a tenth of a pixel, ten times over
    if min(marks) < dlo - tol or max(marks) > dhi + tol or \
       abs(min(marks) - dlo) > tol or abs(max(marks) - dhi) > tol:
        bad.append("%s: marks span %g..%g, the axis declares data %g..%g" % (where, min(marks), max(marks), dlo, dhi))
# panel labels: each plot's title starts with "Figure N" or "Figure N(x)", none twice
titles = [re.search(r'font-weight="bold">([^<]*)<', svg).group(1) for svg in svgs]
labels = [re.match(r'Figure \d+(\([a-z]\))?:', t) for t in titles]
if not all(labels) or len(set(l.group(0) for l in labels if l)) != len(labels):
    bad.append("panel labels not unique 'Figure N(x):': %s" % titles)
if naxes == 0:
    bad.append("no plot with a value axis")
if not any('data-kind="scatter"' in s for s in svgs):
    bad.append("no predicted-vs-simulated scatter")
print("\n".join(bad) if bad else "%d plots checked" % naxes)
sys.exit(1 if bad else 0)
PY

# a small study: calibrated, two models, no autotuner
expect 0 "study" "$LAYSIM" study --models cnn,bert-base --out "$T/s" --quiet --threads 2 --mcts-evaluations 0
check_report "$T/s" "study"
# cnn and bert-base: Greedy, Rule-Based and Exact reach the best time on both (RQ1)
if grep -q 'class="coincide"[^>]*>lines coincide: Greedy = Rule-Based = Exact<' "$T/s/report.html" &&
   grep -q 'Lines coincide (the same value on every model): Greedy = Rule-Based = Exact\.' "$T/s/report.md"; then ok; else
    bad "study: no 'lines coincide' note for Greedy, Rule-Based and Exact"; fi
if grep -q 'Does exactness pay off on simulated time' "$T/s/report.md" &&
   grep -q '^Calibration (in sample) ' "$T/s/report.md" && grep -q '^Failed cells: none' "$T/s/report.md"; then ok; else
    bad "study: the summary lacks exactness, calibration or failed cells"; fi

# a dp cell over its memory limit: the summary lists it with its reason as skipped (an
# expected limit), not as failed
expect 0 "study with a failing dp cell" "$LAYSIM" study --models cnn,bert-base --autocast none --no-calibrate \
    --mcts-evaluations 0 --dp-mem-limit 1 --out "$T/f" --quiet
check_report "$T/f" "failing study"
if grep -Eq '^\| cnn \| dp \| datasheet \| .* \| solver dp: .*dp.mem_limit' "$T/f/report.md" &&
   grep -q '^Failed cells: none' "$T/f/report.md" &&
   grep -q '^Skipped cells ([0-9]*): dp over its memory limit' "$T/f/report.md" &&
   grep -q '^Calibration was not run' "$T/f/report.md"; then ok; else
    bad "the summary does not list the skipped dp cell: $(grep -A4 'cells' "$T/f/report.md")"; fi

# what-if: the variants' effects in the summary; the base (always 1.0) is not plotted
expect 0 "whatif" "$LAYSIM" whatif --set pe.rows=64,128 --models cnn,bert-base --out "$T/w" --quiet --no-calibrate
check_report "$T/w" "whatif"
if grep -q '^What-if pe.rows=64: Exact' "$T/w/report.md" && grep -q 'base target itself is 1.0' "$T/w/report.md"; then ok; else
    bad "whatif: the summary lacks the variants' effects"; fi
finish
