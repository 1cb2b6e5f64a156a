#!/usr/bin/env bash
# Probe (not part of `npm run bench`): CPU per request of one guard benchmark server and of Redis,
# with the server pinned to vCPU 0 and autocannon to vCPU 1, so two variants compare on the same
# core. Each run: 3 s warm-up, then 8 s at 64 connections. Variants alternate, twice each. Also
# prints the whole machine's busy CPU per request and its idle share (/proc/stat). PIN=0 runs
# unpinned, as the guard bench does; REPEAT=N alternates N times instead of twice.
#   npx nx run @tollgate/api:build
#   bash bench/probes/guard-server-cpu.sh guarded "guarded BENCH_STORE_MAX_BATCH=1" unguarded
# A variant is a server mode (bench/guard/server.ts) followed by environment assignments.
set -euo pipefail
cd "$(dirname "$0")/../.."
redis_pid=$(pgrep -x redis-server | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
if [ "${PIN:-1}" = 1 ]; then pin0=(taskset -c 0); pin1=(taskset -c 1); else pin0=(); pin1=(); fi
cannon() { "${pin1[@]}" npx autocannon -c 64 -d "$2" -H "authorization=Bearer tg_bench" "$1/v1/demo/echo" 2>&1 | grep -o '[0-9.]*k requests in' | sed 's/k requests in//'; }

run() {
  local mode=$1; shift
  local out; out=$(mktemp)
  env BENCH_PREFIX="tgprobe:cpu:$$:" BENCH_KEY=tg_bench "$@" "${pin0[@]}" node --import tsx bench/guard/server.ts "$mode" > "$out" 2>&1 &
  local pid=$!
  for _ in $(seq 150); do grep -q READY "$out" && break; sleep 0.2; done
  local url="http://127.0.0.1:$(awk '/READY/ {print $2}' "$out")"
  cannon "$url" 3 > /dev/null
  local s0 r0 s1 r1 k
  s0=$(ticks "$pid"); r0=$(ticks "$redis_pid"); read -r _ u0 n0 y0 i0 w0 q0 sq0 st0 _ < /proc/stat
  k=$(cannon "$url" 8)
  s1=$(ticks "$pid"); r1=$(ticks "$redis_pid"); read -r _ u1 n1 y1 i1 w1 q1 sq1 st1 _ < /proc/stat
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  rm -f "$out"
  # ticks are 10 ms; k thousands of requests: us per request = ticks * 10000 / (k * 1000)
  awk -v m="$mode $*" -v k="$k" -v s=$((s1 - s0)) -v r=$((r1 - r0)) \
    -v busy=$(((u1 + n1 + y1 + q1 + sq1) - (u0 + n0 + y0 + q0 + sq0))) -v idle=$(((i1 + w1) - (i0 + w0))) -v steal=$((st1 - st0)) \
    'BEGIN { printf "%-40s %6.0fk req  server %5.1f us/req  redis %5.1f us/req  machine %5.1f us/req busy, %2d%% idle\n", m, k, s * 10 / k, r * 10 / k, busy * 10 / k, idle * 100 / (busy + idle + steal) }'
}

for _ in $(seq ${REPEAT:-2}); do
  for variant in "$@"; do
    # shellcheck disable=SC2086
    run $variant
  done
done
# The throttler mode's keys are hash-tagged: '{<key>:<throttler>}:hits'.
for pattern in "tgprobe:cpu:$$:*" "{tgprobe:cpu:$$:*"; do redis-cli --scan --pattern "$pattern" | xargs -r redis-cli del > /dev/null; done
