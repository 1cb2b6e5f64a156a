#!/usr/bin/env bash
# Probe (not part of `npm run bench`): instructions Redis executes per guard decision, counted by
# valgrind's callgrind on a private redis-server (port 6390 by default), so the figure does not
# move with the machine's load as CPU time does. For KEYS=one and KEYS=many: a warm-up (loads the
# script), then N decisions in batches of B, counted alone (callgrind_control -z / -d). Includes
# everything Redis does for them: reading the commands, the script, the replies, Lua's GC.
# Repeated runs agree within a few percent (Lua's GC timing varies).
#   npx nx run @tollgate/rate-limit:build    # the probe runs libs/rate-limit/dist
#   bash bench/probes/script-instructions.sh  # N=12800 B=16 PORT=6390 to change them
#   METER=0 bash bench/probes/script-instructions.sh  # without the usage meter (metering off)
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT=${PORT:-6390}; N=${N:-12800}; B=${B:-16}; METER=${METER:-1}
# REDIS_SERVER: the binary to count (default the machine's). PROFILE=N also prints the N functions
# with the most instructions of their own; names need a binary with symbols (Debian's is stripped):
# see bench/probes/README.md for building one from Debian's source.
REDIS_SERVER=${REDIS_SERVER:-redis-server}; PROFILE=${PROFILE:-0}
out=$(mktemp -d)
# No name compression: each dump then stands alone for callgrind_annotate.
valgrind --tool=callgrind --compress-strings=no --callgrind-out-file="$out/cg.%p" "$REDIS_SERVER" --port "$PORT" --save '' --appendonly no > "$out/valgrind.log" 2>&1 &
vg=$!
trap 'kill $vg 2>/dev/null; wait $vg 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 100); do redis-cli -p "$PORT" ping > /dev/null 2>&1 && break; sleep 0.2; done
for keys in one many; do
  REDIS_URL="redis://127.0.0.1:$PORT" N=300 B="$B" KEYS=$keys METER="$METER" npx tsx bench/probes/script-instructions.ts
  callgrind_control -z "$vg" > /dev/null 2>&1
  REDIS_URL="redis://127.0.0.1:$PORT" N="$N" B="$B" KEYS=$keys METER="$METER" npx tsx bench/probes/script-instructions.ts
  callgrind_control -d "$vg" > /dev/null 2>&1
  dump=$(ls -t "$out"/cg.* | head -1)
  awk -v n="$N" -v k="$keys" -v b="$B" -v m="$METER" '/^(summary|totals):/ { printf "KEYS=%-4s METER=%s batches of %s: %.0f instructions per decision (%d decisions)\n", k, m, b, $2 / n, n; exit }' "$dump"
  if [ "$PROFILE" -gt 0 ]; then
    # Self instructions per function (a cost line right after `calls=` is the callee's, not ours).
    awk -v n="$N" '/^summary:/ { total = $2 } /^fn=/ { fn = substr($0, 4); next } /^calls=/ { callee = 1; next }
      /^[0-9+*-]/ { if (callee) { callee = 0; next } self[fn] += $2 }
      END { for (f in self) printf "%d %5.1f%% %7.0f per decision  %s\n", self[f], 100 * self[f] / total, self[f] / n, f }' "$dump" |
      sort -nr | head -n "$PROFILE" | cut -d' ' -f2-
  fi
done
