#!/usr/bin/env bash
# The status line of laysim study (cli/status, docs/study.md "Progress"): under a
# pseudo-terminal made by script(1) (util-linux) it appears within a second of the start,
# naming what runs before any job ended, then jobs done/total with an ETA; Ctrl-C (a ^C
# typed into the terminal) prints what was kept and the exact command that resumes, the
# run dies of SIGINT (130), and that command completes the study without running the kept
# jobs again. Nothing is drawn on a non-terminal or with -q; SIGTERM on a non-terminal
# prints the hint too, and laysim loop says it keeps nothing. Without script it exits 77
# (skipped).
# usage: bash tests/cli/study_progress.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

need_script study_progress
LAYSIM=$(cd "$(dirname "$LAYSIM")" && pwd)/$(basename "$LAYSIM")
cd "$T" || exit 1

# a study of three small models whose jobs take about a second each (mcts capped by time)
ARGS=(study --models cnn,whisper-enc:quick,bert-base:quick --out "$T/s" --threads 1
      --mcts-evaluations 1000 --mcts-time-limit 1)
now_ms() { date +%s%3N; }
# the status lines drawn so far on the terminal (each redraw starts with \r)
lines() { tr '\r' '\n' <"$T/tty" | grep -a '^study \['; }
# wait_for REGEX SECONDS: poll the terminal until a status line matches; 1 if it never did
wait_for() {
    local end=$(($(now_ms) + $2 * 1000))
    while [ "$(now_ms)" -lt "$end" ]; do
        lines | grep -Eq -- "$1" && return 0
        sleep 0.05
    done
    return 1
}

mkfifo "$T/keys"
t0=$(now_ms)
script -qefc "$(printf '%q ' "$LAYSIM" "${ARGS[@]}") >$T/out" "$T/tty" <"$T/keys" >/dev/null 2>&1 &
pid=$!
exec 3>"$T/keys"   # the terminal's keyboard, held open until ^C is typed
if wait_for '\| [a-z]' 1; then ok; else
    bad "no status line naming a phase within 1 s of the start ($(($(now_ms) - t0)) ms)"; fi
first=$(lines | head -1)
if echo "$first" | grep -Eq '^study \[\.+\] +0% 0/[0-9]+ jobs [0-9]+s \| [a-z]'; then ok; else
    bad "the first status line '$first' does not say what runs before any job ended"; fi
if wait_for ' [1-9][0-9]*/[0-9]+ jobs [0-9ms]+, ETA [0-9ms]+ \| .+ @ nc-v2' 60; then ok; else
    bad "no status line with jobs done, an ETA and the current model: $(lines | tail -1)"; fi
printf '\003' >&3   # Ctrl-C
exec 3>&-
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ]; then ok; else bad "study after ^C: exit $rc, want 130"; fi
hint=$(tr -d '\r' <"$T/tty")
kept=$(echo "$hint" | sed -n 's/.*interrupted: the cells of \([0-9]*\) of \([0-9]*\) jobs of this run are kept in .*s\/results.sqlite$/\1/p')
if [ -n "$kept" ] && [ "$kept" -ge 1 ]; then ok; else
    bad "^C did not say which jobs were kept: $(echo "$hint" | tail -3)"; fi
again=$(echo "$hint" | sed -n 's/^resume with: //p')
want="$LAYSIM ${ARGS[*]} --resume"   # every argument is plain: no quotes
if [ "$again" = "$want" ]; then ok; else bad "resume hint '$again', want '$want'"; fi
# the hinted command, run literally, keeps the finished model pairs (jobs are halves)
if eval "$again --json" >"$T/resumed.json" 2>"$T/resumed.err" &&
    jq -e --argjson k "$kept" '.jobs == 3 and .jobs_skipped >= ($k / 2 | floor)' \
        "$T/resumed.json" >/dev/null; then ok; else
    bad "the resume command failed or ran kept jobs again: $(head -c 300 "$T/resumed.err") $(jq -c '{jobs, jobs_skipped}' "$T/resumed.json" 2>/dev/null)"; fi

# no status line on a non-terminal, nor with -q on a terminal
"$LAYSIM" study --models cnn --out "$T/n" --mcts-evaluations 0 >/dev/null 2>"$T/n.err"
if grep -q 'study \[' "$T/n.err"; then bad "status line drawn though stderr is no terminal"; else ok; fi
script -qec "$(printf '%q ' "$LAYSIM") study --models cnn --out $T/q --mcts-evaluations 0 -q >/dev/null" "$T/q.tty" >/dev/null 2>&1 </dev/null
if grep -q 'study \[' "$T/q.tty"; then bad "study -q: status line drawn"; else ok; fi

# SIGTERM on a non-terminal (a batch system's time limit): the hint, then death by SIGTERM;
# the hinted command is quoted for the shell (an --out with a space and a quote) and has
# --force dropped
ODD="$T/a b'c"
# (a long mcts budget, so that the study is still running whatever the machine's speed;
# the signal goes once it has started writing its results store)
TERM_ARGS=(study --models cnn,whisper-enc:quick,bert-base:quick --out "$ODD" --threads 1
           --mcts-evaluations 1000000 --mcts-time-limit 60)
"$LAYSIM" "${TERM_ARGS[@]}" --force -q >/dev/null 2>"$T/term.err" &
pid=$!
for _ in $(seq 100); do [ -e "$ODD/results.sqlite" ] && break; sleep 0.1; done
sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 143 ]; then ok; else bad "SIGTERM: exit $rc, want 143"; fi
again=$(sed -n 's/^resume with: //p' "$T/term.err")
# the words a shell makes of it, one per line, against the arguments it should give back
got=$(bash -c 'eval "set -- $1" && printf "%s\n" "$@"' _ "$again" 2>&1)
want=$(printf '%s\n' "$LAYSIM" "${TERM_ARGS[@]}" -q --resume)
if [ "$got" = "$want" ]; then ok; else
    bad "SIGTERM: the resume hint '$again' does not give back the arguments: $(cat "$T/term.err")"; fi

# laysim loop keeps nothing to resume from, and says so (with where its traces are)
"$LAYSIM" loop zoo:olmo-7b zoo:gemma --traces "$T/tr" -q >/dev/null 2>"$T/loop.err" &
pid=$!
sleep 1.5
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 143 ] && grep -q '^laysim loop: interrupted .*: no table is kept' "$T/loop.err" &&
    grep -q "^the traces written so far are in $T/tr\$" "$T/loop.err"; then ok; else
    bad "loop after SIGTERM: exit $rc, want 143 with what was kept: $(cat "$T/loop.err")"; fi

finish
