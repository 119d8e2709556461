#!/usr/bin/env bash
# One table per option family: each option's name, default and help are written once.
# - The shared command-line flags (--json, -o/--output, -q/--quiet, --threads, --time-limit,
#   --seed, --table, --target, --set, -h/--help) live in cli/flags.def: name, short letter,
#   argument and help line. This fails when a command file spells one of them again by hand:
#   a getopt_long entry {"NAME", ...} or a help line starting with "  --NAME" / "  -S, --NAME"
#   / "  -S " (a line saying "deprecated" is an alias's own line). It also checks the table
#   itself: every flag listed once in CLI_FLAGS, each help line spelled from its name and
#   letter with the text after 22 characters, and every command's --help showing a flag's
#   table line at most once. No command spells a flag's name as a whole string ("--seed":
#   CLI_FLAG_ARG(SEED)), and a default shared with the library is one macro (the seed:
#   LS_SEED_DEFAULT in util/prng.h, which --seed's help spells, no `seed = 1` elsewhere; the
#   target: SIM_TARGET_DEFAULT in sim/target.h, no "nc-v2" in cli/, study/ or api/ code),
#   and a command's own numeric defaults are spelled from the code's macro (a per-file
#   count lists the ones still written by hand).
# - The model options: graph/model.h MODEL_OPTIONS names them (getopt entries, the API's
#   keys), cli/model_flags.def holds each one's help; no command spells either by hand.
# - The solver parameters: solver/params.def, each key once; every key a solver reads is in
#   it and read through lsp_param_num/word (docs/solvers.md: tests/cli/solveopts.sh).
# - The target keys live in sim/target_keys.def (key, struct field, range, nc-v2 and nc-v3
#   values): each key once, struct sim_target without a hand-written field, no other key
#   table, and docs/targets.md's key table naming the same keys with the same values.
# usage: bash tests/cli/one_table.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

DEF="$SRC/cli/flags.def"
# one row per flag: ID NAME SHORT (SHORT is 0 or the letter)
awk -F'X\\(' '/^#define CLI_FLAG_[A-Z_]+\(X\) X\(/ {
    split($2, f, ", *"); s = f[3]; gsub(/\047/, "", s); gsub(/"/, "", f[2])
    print f[1], f[2], s }' "$DEF" >"$T/flags"
[ "$(wc -l <"$T/flags")" -ge 10 ] && ok || bad "flags.def: expected >= 10 flags, found $(wc -l <"$T/flags")"

# the list CLI_FLAGS names every defined flag exactly once
sed -n '/^#define CLI_FLAGS(X)/,/[^\\]$/p' "$DEF" | grep -o 'CLI_FLAG_[A-Z_]*' | sort >"$T/listed"
sed 's/^\([A-Z_]*\) .*/CLI_FLAG_\1/' "$T/flags" | sort >"$T/defined"
cmp -s "$T/listed" "$T/defined" && ok || bad "CLI_FLAGS does not list each defined flag once:
$(diff "$T/defined" "$T/listed")"

# the help line: "  [-S, ]--NAME[ ARG]", padded so that the text starts at column 22
while read -r id name short; do
    lead="  "
    [ "$short" != 0 ] && lead="  -$short, "
    line=$(grep -A1 "^#define CLI_FLAG_$id(X)" "$DEF" | tail -1 | sed 's/^ *"//')
    case "$line" in
    "$lead--$name"*) ok ;;
    *) bad "$id: help line '$line' does not start with '$lead--$name'" ;;
    esac
    [ "${line:22:1}" != " " ] && [ "${line:21:1}" = " " ] && ok ||
        bad "$id: the help text of '$line' does not start after 22 characters"
done <"$T/flags"

# no command file spells a table flag by hand
files=$(ls "$SRC"/cli/*.c "$SRC"/cli/*.h)
while read -r id name short; do
    hits=$(grep -nE "\{ *\"$name\", *(no|required|optional)_argument" $files)
    [ -z "$hits" ] && ok || bad "--$name has a getopt entry outside cli/flags.def (use CLI_LONGOPT($id)):
$hits"
    pat="^ *(CLI_[A-Z_]+ *)?\"  (-[a-zA-Z], )?--$name([ =\"]|\\\\n)"
    [ "$short" != 0 ] && pat="$pat|^ *(CLI_[A-Z_]+ *)?\"  -$short( |\\\\n)"
    hits=$(grep -nE "$pat" $files | grep -v deprecated)
    [ -z "$hits" ] && ok || bad "--$name has a help line outside cli/flags.def (use CLI_HELP($id)):
$hits"
    # the name as a whole string (a parser's or message's argument): CLI_FLAG_ARG(ID)
    hits=$(grep -nE "\"--$name\"" $files)
    [ -z "$hits" ] && ok || bad "--$name is spelled \"--$name\" outside cli/flags.def (use CLI_FLAG_ARG($id)):
$hits"
done <"$T/flags"

# a default the library shares is one macro: no option struct assigns the seed by hand
hits=$(grep -rnE '(\.|->)seed *= *[0-9]+ *;' --include='*.c' "$SRC" | grep -v "^$SRC/tests/")
[ -z "$hits" ] && ok || bad "a seed default written by hand (use LS_SEED_DEFAULT, util/prng.h):
$hits"
grep -q 'default " LS_STRINGIFY(LS_SEED_DEFAULT)' "$DEF" && ok ||
    bad "cli/flags.def: --seed's help does not spell LS_SEED_DEFAULT"
grep -q 'default "  *\\$' "$DEF" && grep -q '^ *SIM_TARGET_DEFAULT ")' "$DEF" && ok ||
    bad "cli/flags.def: --target's help does not spell SIM_TARGET_DEFAULT"
hits=$(grep -rn '"nc-v2"' --include='*.c' "$SRC"/cli "$SRC"/study "$SRC"/api)
[ -z "$hits" ] && ok || bad "the default target spelled by hand (use SIM_TARGET_DEFAULT, sim/target.h):
$hits"
# --threads' default (online CPUs) is computed in one place
n=$(grep -rl '_SC_NPROCESSORS_ONLN' "$SRC"/cli | wc -l)
[ "$n" -le 1 ] && ok || bad "the online-CPU default of --threads is computed in $n cli files"

# every command's help shows a table line at most once
"$LAYSIM" --help >"$T/top" 2>/dev/null
for c in $(awk '/^commands:/ {f = 1; next} /^$/ {f = 0} f {print $1}' "$T/top"); do
    "$LAYSIM" "$c" --help >"$T/h" 2>/dev/null || { bad "$c --help failed"; continue; }
    while read -r id name short; do
        n=$(grep -cE -- "^  (-$short, )?--$name( |$)" "$T/h")
        [ "$n" -le 1 ] && ok || bad "$c --help documents --$name $n times"
    done <"$T/flags"
done

# ---- a command's own numeric defaults: its help spells the macro the code uses (e.g.
# "(default " LS_STRINGIFY(LSP_GEN_DEFAULT_CFGS) ")"), not a number written again (none is
# allowed; an entry here would allow a file that many):
declare -A todo=()
for f in "$SRC"/cli/*.c "$SRC"/cli/*.h "$SRC"/cli/*.def; do
    rel=cli/${f##*/}
    n=$(grep -cE '"[^"]*default (0\.[0-9]+|[1-9])' "$f")
    [ "$n" -le "${todo[$rel]:-0}" ] && ok || bad "$rel: $n help lines write a default by hand (allowed ${todo[$rel]:-0}):
$(grep -nE '"[^"]*default (0\.[0-9]+|[1-9])' "$f")"
done

# ---- model options: graph/model.h MODEL_OPTIONS lists the names (getopt entries and the
# API's NAME=VALUE keys come from it), cli/model_flags.def holds each one's help, once
MDEF="$SRC/cli/model_flags.def"
sed -n '/^#define MODEL_OPTIONS(X)/,/[^\\]$/p' "$SRC/graph/model.h" | grep -o 'X([a-z_]*)' |
    sed 's/X(\(.*\))/\1/' >"$T/mopts"
[ "$(wc -l <"$T/mopts")" -ge 8 ] && ok || bad "MODEL_OPTIONS: $(wc -l <"$T/mopts") options"
grep -oE '^#define CLI_MODEL_HELP_[a-z_]+ ' "$MDEF" | sed 's/.*HELP_//; s/ $//' | sort >"$T/mhelp"
sort "$T/mopts" | cmp -s - "$T/mhelp" && ok ||
    bad "cli/model_flags.def does not hold one help per model option: $(sort "$T/mopts" | diff - "$T/mhelp")"
while read -r name; do
    hits=$(grep -nE "\{ *\"$name\", *(no|required|optional)_argument" $files)
    [ -z "$hits" ] && ok || bad "model option --$name has a getopt entry by hand (use CLI_MODEL_LONGOPT($name)):
$hits"
    hits=$(grep -nE "^ *\"  --$name[ ,]" $files)
    [ -z "$hits" ] && ok || bad "model option --$name has a help line outside cli/model_flags.def:
$hits"
done <"$T/mopts"

# ---- solver parameters: solver/params.def is the one table (key, type, default, range,
# help; docs/solvers.md agrees with it: tests/cli/solveopts.sh). Each key once, and every
# key a solver reads is in it, read through the typed readers (no ad hoc lsp_opt_str)
PDEF="$SRC/solver/params.def"
grep -oE '^LSP_PARAM\([a-z0-9_]+, *"[a-z0-9_.]+"' "$PDEF" | cut -d'"' -f2 | sort >"$T/pkeys"
[ "$(wc -l <"$T/pkeys")" -ge 8 ] && ok || bad "params.def: $(wc -l <"$T/pkeys") keys"
[ -z "$(uniq -d "$T/pkeys")" ] && ok || bad "params.def lists a key twice: $(uniq -d "$T/pkeys")"
grep -rhoE 'lsp_param_(num|word)\([^,]+, *"[a-z0-9_.]+"' --include='*.c' "$SRC/solver" "$SRC/study" |
    cut -d'"' -f2 | sort -u >"$T/pread"
[ -s "$T/pread" ] && [ -z "$(comm -23 "$T/pread" "$T/pkeys")" ] && ok ||
    bad "a solver reads a parameter missing from params.def: $(comm -23 "$T/pread" "$T/pkeys")"
hits=$(grep -rn 'lsp_opt_str(' --include='*.c' "$SRC" | grep -vE "^$SRC/(solver/(params|solver)\.c|tests/)")
[ -z "$hits" ] && ok || bad "a parameter read ad hoc (use lsp_param_num/lsp_param_word): $hits"

# ---- target keys: sim/target_keys.def is the one list (struct field, range, nc-v2 and
# nc-v3 values); docs/targets.md's table documents each key once, with the same values.
KEYS="$SRC/sim/target_keys.def"
grep -oE '^SIM_TARGET_KEY\("[a-z0-9_.]+"' "$KEYS" | cut -d'"' -f2 >"$T/tkeys"
[ "$(wc -l <"$T/tkeys")" -ge 30 ] && ok || bad "target_keys.def: $(wc -l <"$T/tkeys") keys"
sort -c "$T/tkeys" 2>/dev/null && ok || bad "target_keys.def is not sorted by key"
[ -z "$(uniq -d "$T/tkeys")" ] && ok || bad "target_keys.def lists a key twice: $(uniq -d "$T/tkeys")"
# struct sim_target holds the name, the generated fields and one flag: no field by hand
sed -n '/^struct sim_target {/,/^};/p' "$SRC/sim/target.h" | grep -vE '^ *(/?\*|#|$)' |
    grep -vE '^struct sim_target|^};|char name\[|SIM_TARGET_CTYPE_##type field;|int dma_desc_min_explicit;' >"$T/fields"
[ ! -s "$T/fields" ] && ok || bad "struct sim_target has hand-written fields: $(cat "$T/fields")"
# no other source file holds a table row for a key ("pe.rows", followed by its field)
hits=$(grep -rnE '"(clock|dma|hbm|mem|pe|pool|psum|sbuf|vec)\.[a-z0-9_]+", *[a-z]+_[a-z0-9_]+ *,' \
    --include='*.c' --include='*.h' --include='*.def' "$SRC" | grep -v "^$KEYS:" | grep -v "^$SRC/tests/")
[ -z "$hits" ] && ok || bad "a target key table outside sim/target_keys.def: $hits"
# docs/targets.md: | `key` | nc-v2 | nc-v3 | range | meaning |, one row per key, values as built
grep -E '^\| `[a-z]+\.[a-z0-9_]+` \|' "$SRC/docs/targets.md" |
    awk -F'|' '{gsub(/[` ]/, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); print $2, $3, $4}' |
    sort >"$T/doc"
cut -d' ' -f1 "$T/doc" | cmp -s - "$T/tkeys" && ok ||
    bad "docs/targets.md's key table and sim/target_keys.def differ: $(cut -d' ' -f1 "$T/doc" | diff - "$T/tkeys")"
for t in nc-v2 nc-v3; do
    "$LAYSIM" sim --print-target --target $t | grep -v '^#\|^hash=' | tr '=' ' ' >"$T/$t"
done
join "$T/nc-v2" "$T/nc-v3" | join - "$T/doc" |
    awk '$2 != $4 || $3 != $5 {print $1 ": built", $2, $3, "docs", $4, $5; n++} END {exit n > 0}' \
    >"$T/vdiff" && ok || bad "docs/targets.md's nc-v2/nc-v3 values differ from the built-ins:
$(cat "$T/vdiff")"

finish
