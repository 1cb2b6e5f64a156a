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
out=$(mktemp -d)
valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" redis-server --port "$PORT" --save '' --appendonly no > "$out/valgrind.log" 2>&1 &
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
done
