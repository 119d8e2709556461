#!/usr/bin/env bash
# The shared command-line flags (--json, -o/--output, -q/--quiet, --threads, --time-limit,
# --seed, --table, --target, --set, -h/--help) are written once, in cli/flags.def: name,
# short letter, argument and help line. This test fails when a command file spells one of
# them again by hand: a getopt_long entry {"NAME", ...} or a help line starting with
# "  --NAME" / "  -S, --NAME" / "  -S " (a line saying "deprecated" is an alias's own line).
# It also checks the table itself: every flag listed once in CLI_FLAGS, each help line
# spelled from its name and letter with the text after 22 characters, and every command's --help
# showing a flag's table line at most once.
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
done <"$T/flags"

# every command's help shows a table line at most once
"$LAYSIM" --help >"$T/top" 2>/dev/null
for c in $(awk '/^commands:/ {f = 1; next} /^$/ {f = 0} f {print $1}' "$T/top"); do
    "$LAYSIM" "$c" --help >"$T/h" 2>/dev/null || { bad "$c --help failed"; continue; }
    while read -r id name short; do
        n=$(grep -cE -- "^  (-$short, )?--$name( |$)" "$T/h")
        [ "$n" -le 1 ] && ok || bad "$c --help documents --$name $n times"
    done <"$T/flags"
done

finish
