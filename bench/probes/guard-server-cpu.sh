#!/usr/bin/env bash
# Probe (not part of `npm run bench`): CPU per request of one guard benchmark server and of Redis,
# with the server pinned to vCPU 0 and autocannon to vCPU 1, so two variants compare on the same
# core. Each run: 3 s warm-up, then 8 s at 64 connections. Variants alternate, twice each.
#   npx nx run @tollgate/api:build
#   bash bench/probes/guard-server-cpu.sh guarded "guarded BENCH_STORE_MAX_BATCH=1" unguarded
# A variant is a server mode (bench/guard/server.ts) followed by environment assignments.
set -euo pipefail
cd "$(dirname "$0")/../.."
redis_pid=$(pgrep -x redis-server | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
cannon() { taskset -c 1 npx autocannon -c 64 -d "$2" -H "authorization=Bearer tg_bench" "$1/v1/demo/echo" 2>&1 | grep -o '[0-9.]*k requests in' | sed 's/k requests in//'; }

run() {
  local mode=$1; shift
  local out; out=$(mktemp)
  env BENCH_PREFIX="tgprobe:cpu:$$:" BENCH_KEY=tg_bench "$@" taskset -c 0 node --import tsx bench/guard/server.ts "$mode" > "$out" 2>&1 &
  local pid=$!
  for _ in $(seq 150); do grep -q READY "$out" && break; sleep 0.2; done
  local url="http://127.0.0.1:$(awk '/READY/ {print $2}' "$out")"
  cannon "$url" 3 > /dev/null
  local s0 r0 s1 r1 k
  s0=$(ticks "$pid"); r0=$(ticks "$redis_pid")
  k=$(cannon "$url" 8)
  s1=$(ticks "$pid"); r1=$(ticks "$redis_pid")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  rm -f "$out"
  # ticks are 10 ms; k thousands of requests: us per request = ticks * 10000 / (k * 1000)
  awk -v m="$mode $*" -v k="$k" -v s=$((s1 - s0)) -v r=$((r1 - r0)) \
    'BEGIN { printf "%-40s %6.0fk req  server %5.1f us/req  redis %5.1f us/req\n", m, k, s * 10 / k, r * 10 / k }'
}

for _ in 1 2; do
  for variant in "$@"; do
    # shellcheck disable=SC2086
    run $variant
  done
done
redis-cli --scan --pattern "tgprobe:cpu:$$:*" | xargs -r redis-cli del > /dev/null
