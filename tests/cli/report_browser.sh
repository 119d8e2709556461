#!/usr/bin/env bash
# The study report as a browser shows it (issue 46): headless Chromium renders report.html in a
# 900 px wide window; the page does not scroll sideways (wide tables scroll inside their own
# container, plots shrink), every plot shows tick labels on its value axis (the scatter on both
# axes), and no two tick labels of one axis overlap. Skipped (77) without Chromium
# (`scripts/deps.sh test` installs it; `make test` runs that).
# usage: bash tests/cli/report_browser.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then
    echo "skip: chromium not found (scripts/deps.sh test installs it)"
    exit 77
fi
source "$(dirname "$0")/lib.bash"

# probe HTML WIDTH: render HTML with a script appended that writes what it measured into the
# DOM; prints the measurement (JSON) from Chromium's --dump-dom
probe() {
    local html=$1 width=$2 prof
    sed 's|</body>|<script src="probe.js"></script></body>|' "$html" >"$T/probe.html"
    prof=$(mktemp -d)
    timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$prof" --window-size="$width",1000 --virtual-time-budget=5000 \
        --dump-dom "file://$T/probe.html" 2>/dev/null |
        sed -n 's|.*<pre id="probe">\([^<]*\)</pre>.*|\1|p'
    rm -rf "$prof"
}

cat >"$T/probe.js" <<'JS'
// page width against the window; per plot its title and the visible tick labels' boxes
function boxes(svg, sel) {
    return Array.from(svg.querySelectorAll(sel)).map(e => e.getBoundingClientRect())
        .filter(r => r.width > 0 && r.height > 0)
        .map(r => [r.left, r.top, r.right, r.bottom]);
}
const out = {
    innerWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    plots: Array.from(document.querySelectorAll("svg")).map(svg => ({
        title: (svg.querySelector("text[font-weight=bold]") || {}).textContent,
        scatter: !!svg.querySelector('desc[data-kind="scatter"]'),
        y: boxes(svg, "text.ytick"),
        x: boxes(svg, "text.xtick"),
    })),
};
const pre = document.createElement("pre");
pre.id = "probe";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
JS

cat >"$T/check.py" <<'PY'
import html, json, sys
d = json.loads(html.unescape(sys.stdin.read()))   # --dump-dom escapes the text (&amp; &lt;)
bad = []
if d["innerWidth"] != int(sys.argv[1]):
    bad.append("the window is %d px wide, not %s" % (d["innerWidth"], sys.argv[1]))
if d["scrollWidth"] > d["innerWidth"]:
    bad.append("the page is %d px wide in a %d px window" % (d["scrollWidth"], d["innerWidth"]))
if not d["plots"]:
    bad.append("no plots")
def overlaps(b):
    return any(p[0] < q[2] - 0.5 and q[0] < p[2] - 0.5 and p[1] < q[3] - 0.5 and q[1] < p[3] - 0.5
               for i, p in enumerate(b) for q in b[i + 1:])
for p in d["plots"]:
    axes = ["y", "x"] if p["scatter"] else ["y"]
    for a in axes:
        if len(p[a]) < 2:
            bad.append("%s: %d visible %s tick labels" % (p["title"], len(p[a]), a))
        if overlaps(p[a]):
            bad.append("%s: %s tick labels overlap" % (p["title"], a))
print("\n".join(bad) if bad else "%d plots checked" % len(d["plots"]))
sys.exit(1 if bad else 0)
PY

# check DIR WHAT: the report in DIR at 900 px
check() {
    probe "$1/report.html" 900 >"$T/probe.json"
    if [ -s "$T/probe.json" ] &&
       python3 "$T/check.py" 900 <"$T/probe.json" >"$T/check.out" 2>&1; then ok; else
        bad "$2 at 900 px: $(head -c 1500 "$T/check.out")"; fi
}

# a calibrated study (two scatters) and a what-if sweep (a grouped bar plot over the models)
expect 0 "study" "$LAYSIM" study --models cnn,bert-base,resnet50,vit-b16 --out "$T/s" --quiet \
    --threads 2 --mcts-evaluations 0
check "$T/s" "study"
expect 0 "whatif" "$LAYSIM" whatif --set pe.rows=64,128 --models cnn,bert-base --out "$T/w" \
    --quiet --no-calibrate
check "$T/w" "whatif"
finish
