#!/usr/bin/env bash
# Figure 6's CPU per idle poll of this tree and another checkout, measured at the same time.
#
# This machine's speed drifts by a third within hours (the same code read 0.79 and 1.21 ms a poll
# two hours apart), so runs one after the other cannot resolve a change of a few per cent. Two
# quick runs side by side share whatever state the machine is in: each `callsync run` process's
# CPU is its own, and the pair's ratio is what a change did. Redis command counts are server-wide,
# so in a pair they are both runs' together: read those from a run alone.
#
# usage: scripts/bench-pair.sh <other checkout with node_modules> [rounds, default 2]
set -euo pipefail
other=$(cd "$1" && pwd)
rounds=${2:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
logs=$(mktemp -d)
cpu() { grep 'idle poll cost' "$1" | grep -o '[0-9.]* ms CPU' | cut -d' ' -f1; }
for round in $(seq 1 "$rounds"); do
  # Each round starts the other tree first, so neither always meets the other's backfill.
  if (( round % 2 )); then first=$here; second=$other; else first=$other; second=$here; fi
  (cd "$first" && npm run bench -- --quick --only 6 >"$logs/first-$round.log" 2>&1) &
  sleep 2
  (cd "$second" && npm run bench -- --quick --only 6 >"$logs/second-$round.log" 2>&1) &
  wait
  a=$(cpu "$logs/first-$round.log"); b=$(cpu "$logs/second-$round.log")
  if [[ $first == "$here" ]]; then mine=$a; theirs=$b; else mine=$b; theirs=$a; fi
  echo "round $round: this tree ${mine} ms CPU per idle poll, $other ${theirs} ms, ratio $(awk "BEGIN { printf \"%.2f\", $mine / $theirs }")"
done
echo "logs in $logs"
