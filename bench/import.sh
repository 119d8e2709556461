#!/usr/bin/env bash
# bench/import.sh: real models through the whole chain (not CI).
# Every model of the corpus list (bench/import.corpus: ONNX and TF.js models inside npm
# packages, torchvision and torch.nn architectures exported to ONNX, HuggingFace configs of
# 13B-70B decoders under bench/hf/) goes through `graph -> problem -> solve --solver exact ->
# check -> compile -> sim`. Per model it prints the IR ops, the last stage reached, the
# simulated cycles and the first error line; then the totals and the failures per blocker.
#
# Usage: bench/import.sh [LAYSIM] [MODEL ARGS...]
#   CORPUS=DIR   where the models are fetched or exported (default ~/.cache/laysim-corpus):
#                npm packages by `npm pack` into DIR/npm, ONNX exports (bench/import_export.py,
#                Debian's python3-torch and python3-torchvision) into DIR/torch; both kept
#                and reused
#   LIST=FILE    the corpus list (default bench/import.corpus beside this script)
#   ONLY=REGEX   run only the list lines matching REGEX
#   FETCH=only   fetch and export, run nothing;  LIMIT=S  seconds per stage (default 300)
# A MODEL given on the command line (with its ARGS) is run instead of the list.
# A failure that is not exit 2 (a crash, a timeout) is marked `!rc=N` in the table.
set -uo pipefail
laysim=${1:-build/laysim}
shift || true
[ -x "$laysim" ] || { echo "bench/import.sh: no laysim binary at $laysim" >&2; exit 2; }
laysim=$(realpath "$laysim")
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
corpus=${CORPUS:-$HOME/.cache/laysim-corpus}
list=${LIST:-$here/import.corpus}
limit=${LIMIT:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$corpus/npm" "$corpus/torch"

# the file of list entry KIND SOURCE (fetched or exported when missing); empty on failure
model_file() {
    local kind=$1 src=$2
    case $kind in
    npm)
        local pkg=${src%%:*} path=${src#*:}
        local dir
        dir="$corpus/npm/$(echo "$pkg" | tr '@/' '_-')"
        if [ ! -d "$dir/package" ]; then
            mkdir -p "$dir" && (cd "$dir" && npm pack --silent "$pkg" >/dev/null 2>&1 &&
                tar xzf ./*.tgz) || echo "bench/import.sh: npm pack $pkg failed" >&2
        fi
        [ -s "$dir/package/$path" ] && echo "$dir/package/$path" ;;
    tv | nn)
        local f="$corpus/torch/${src%@*}-op${src#*@}.onnx"
        [ -s "$f" ] || $py "$here/import_export.py" "$kind" "${src%@*}" "${src#*@}" "$f" \
            >"$tmp/export.log" 2>&1 || echo "bench/import.sh: export of $src failed" >&2
        [ -s "$f" ] && echo "$f" ;;
    hf) echo "$here/$src" ;;
    esac
}

# runs stage $1 (a laysim command line after it) within the time limit; on failure records
# the stage, its exit code and first error line in $stage/$rc/$why
run() {
    local name=$1
    shift
    timeout "$limit" "$laysim" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 0 ] && { stage=$name; return 0; }
    why=$(grep -m1 -v '^$' "$tmp/err" | sed 's#^\(laysim [a-z]*: \)[^ ]*/#\1#' | cut -c1-240)
    [ $rc = 124 ] && why="timeout after ${limit}s"
    return 1
}

# one model: file $1, args after it; prints its table row, appends its result to $tmp/results
chain() {
    local f=$1 label=$2
    shift 2
    stage=- rc=0 why="" ops=- cycles=-
    if run graph graph "$f" "$@"; then
        ops=$(sed -n 's/.*[ (]\([0-9][0-9]*\) ops.*/\1/p' "$tmp/out" | head -1)
        run problem problem "$f" "$@" -o "$tmp/p.lsp" &&
            run solve solve "$tmp/p.lsp" --solver exact -q -o "$tmp/s.sol" &&
            run check check "$tmp/p.lsp" "$tmp/s.sol" &&
            run compile compile "$f" "$@" --layout "$tmp/s.sol" -o "$tmp/m.prog" &&
            run sim sim "$tmp/m.prog" --json &&
            cycles=$(sed -n 's/^  "cycles": \([0-9]*\),/\1/p' "$tmp/out" | head -1)
    fi
    local mark=""
    [ $rc != 0 ] && [ $rc != 2 ] && mark="!rc=$rc "
    printf '%-50s %6s %-8s %12s  %s\n' "$label" "$ops" "$stage" "$cycles" "$mark$why"
    printf '%s\t%s\t%s\t%s\n' "$label" "$stage" "$rc" "$why" >>"$tmp/results"
}

# the blocker an error line names: the node's operator "(Op)", an IR op's kind and the
# message, else the message's start
blocker() {
    local op
    op=$(echo "$1" | sed -n "s/.*node '[^']*' (\([A-Za-z0-9_]*\)).*/\1/p")
    [ -n "$op" ] && { echo "$op"; return; }
    op=$(echo "$1" | sed -n "s/.* op [^ ]* (\([a-z0-9_]*\)): \(.*\)/\1: \2/p")
    [ -n "$op" ] || op=$(echo "$1" | sed 's/^laysim [a-z]*: [^ ]*: //')
    echo "$op" | sed 's/[0-9][0-9,]*/N/g' | cut -c1-70
}

printf '%-50s %6s %-8s %12s  %s\n' model ops reached cycles error
: >"$tmp/results"
if [ $# -gt 0 ]; then
    chain "$1" "$(basename "$1")" "${@:2}"
else
    while read -r kind src rest; do
        case $kind in '' | '#'*) continue ;; esac
        [ -n "${ONLY:-}" ] && ! [[ "$kind $src $rest" =~ $ONLY ]] && continue
        f=$(model_file "$kind" "$src")
        [ "${FETCH:-}" = only ] && continue
        label="$kind:$(basename "${src%@*}")"
        pkg=${src%@*:*}
        [ "$kind" = npm ] && label="npm:${pkg#@*/}/$(basename "${src#*:}")"
        [ "$kind" = tv ] || [ "$kind" = nn ] && label="$kind:$src"
        if [ -z "$f" ]; then
            printf '%-50s %6s %-8s %12s  %s\n' "$label" - fetch - "not fetched"
            printf '%s\tfetch\t1\tnot fetched\n' "$label" >>"$tmp/results"
            continue
        fi
        read -r -a args <<<"$rest"
        chain "$f" "$label" "${args[@]}"
    done <"$list"
fi
[ "${FETCH:-}" = only ] && exit 0
awk -F'\t' '{ n++; if ($2 == "sim") ok++; if ($1 ~ /^npm:/) npm++; if ($1 ~ /^hf:/) hf++;
              if ($2 != "sim" && $3 != 2) bad++ }
    END { printf "\nmodels %d (npm %d, hf %d): %d reach sim (%.1f%%); failures not exit 2: %d\n",
                 n, npm, hf, ok, n ? 100 * ok / n : 0, bad }' "$tmp/results"
echo "failures per blocker:"
while IFS=$'\t' read -r _ st _ why; do
    [ "$st" = sim ] || blocker "$why"
done <"$tmp/results" | sort | uniq -c | sort -rn
