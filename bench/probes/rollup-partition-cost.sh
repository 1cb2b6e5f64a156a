#!/usr/bin/env bash
# Probe (not part of `npm run bench`): the steady-state flush in Postgres on UsageRollup as it is
# now (partitioned by granularity, hour/day at fillfactor 70) against the same table unpartitioned
# at fillfactor 100, in a scratch database migrated like production and dropped at the end.
# Each round, per table, in one transaction: 10 000 keys' minute rows inserted, then their hour and
# day rows upserted (existing after round 0), owner and plan joined from ApiKey, as the flusher
# does. Prints µs per key-minute per round and table, then each table's updates and HOT updates.
# Quoted in docs/metering.md and the partition migration. Needs psql:
#   bash bench/probes/rollup-partition-cost.sh        # PGURL defaults to postgresql://postgres@127.0.0.1:5432
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${ROUNDS:-10}"
source bench/probes/scratch-db.sh tollgate_probe_partition
DATABASE_URL="$PGURL/$DB" node node_modules/prisma/build/index.js migrate deploy >/dev/null

db <<'SQL'
INSERT INTO "Plan" (id, name, "updatedAt") VALUES ('plan_bench', 'bench', now());
INSERT INTO "ApiKey" (id, hash, start, prefix, name, "planId", "ownerId", "updatedAt")
  SELECT 'key_bench_' || i, md5(i::text), 'tg_bench', 'tg', 'bench ' || i, 'plan_bench', 'owner_' || (i % 100), now() FROM generate_series(1, 10000) AS i;
-- The unpartitioned shape of before: same columns and indexes, fillfactor 100.
CREATE TABLE flat (LIKE "UsageRollup" INCLUDING DEFAULTS, PRIMARY KEY ("keyId", granularity, "bucketStart"));
CREATE INDEX ON flat (granularity, "bucketStart");
CREATE INDEX ON flat ("ownerId", granularity, "bucketStart");
CREATE INDEX ON flat ("planId", granularity, "bucketStart");
VACUUM ANALYZE;
SQL

round() { # $1 table, $2 round
  db -v tbl="$1" -v round="$2" <<'SQL'
BEGIN;
SELECT set_config('jit', 'off', true), set_config('random_page_cost', '1.1', true) \g /dev/null
SELECT clock_timestamp() AS t0 \gset
INSERT INTO :tbl ("keyId", "ownerId", "planId", granularity, "bucketStart", valid, "updatedAt")
SELECT r.id, k."ownerId", k."planId", 'minute', timestamp '2026-01-01 00:00' + :round * interval '1 minute', 1, now()
FROM (SELECT 'key_bench_' || i AS id FROM generate_series(1, 10000) i ORDER BY 1) r LEFT JOIN "ApiKey" k ON k.id = r.id;
INSERT INTO :tbl ("keyId", "ownerId", "planId", granularity, "bucketStart", valid, "updatedAt")
SELECT r.id, k."ownerId", k."planId", gr::"Granularity", timestamp '2026-01-01 00:00', 1, now()
FROM unnest(ARRAY['hour', 'day']) gr, (SELECT 'key_bench_' || i AS id FROM generate_series(1, 10000) i ORDER BY 1) r LEFT JOIN "ApiKey" k ON k.id = r.id
ON CONFLICT ("keyId", granularity, "bucketStart") DO UPDATE SET valid = :tbl.valid + EXCLUDED.valid, "ownerId" = EXCLUDED."ownerId", "planId" = EXCLUDED."planId", "updatedAt" = now();
COMMIT;
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1e6 / 10000) AS us \gset
\echo :tbl round :round: :us us per key-minute
SQL
}

for r in $(seq 0 $((ROUNDS - 1))); do
  round flat "$r"
  round '"UsageRollup"' "$r"
  sleep 1
done
sleep 1 # statistics are reported asynchronously
db -c "SELECT relname, n_tup_upd AS updates, n_tup_hot_upd AS hot_updates FROM pg_stat_user_tables WHERE relname IN ('flat', 'UsageRollup_hour', 'UsageRollup_day') ORDER BY 1"
