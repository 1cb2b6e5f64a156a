#!/usr/bin/env bash
# Probe (not part of `npm run bench`): Postgres cost of the flusher's rollup writes on a table shaped
# like UsageRollup (same columns, primary key and three secondary indexes; 100 owners and one plan,
# like the flusher bench), in a scratch database dropped at the end. Prints psql timings for:
#   1. 50 000 minute rows (10 000 keys x 5 minutes, the flusher bench's Sparse run, owner and plan
#      joined from a key table), after a CHECKPOINT, three times each with all four indexes, without
#      the owner index, without the owner and plan indexes, and with the primary key alone;
#   2. hour-row upserts of 20 000 existing rows, repeated, at fillfactor 100 and 90, with the share
#      of HOT updates;
#   3. WAL written by (1) with wal_compression off and lz4.
# Needs psql and a superuser (for CHECKPOINT and wal_compression):
#   bash bench/probes/rollup-write-cost.sh            # PGURL defaults to postgresql://postgres@127.0.0.1:5432
set -euo pipefail
source "$(dirname "$0")/scratch-db.sh" tollgate_probe_rollup

db <<'SQL'
CREATE TYPE g AS ENUM ('minute', 'hour', 'day');
CREATE TABLE k (id text PRIMARY KEY, owner text, plan text);
INSERT INTO k SELECT 'key_bench_' || i, 'owner_' || (i % 100), 'plan_bench' FROM generate_series(1, 60000) i;
CREATE TABLE r (keyid text, ownerid text, planid text, gran g, bs timestamp, valid bigint DEFAULT 0,
  rl bigint DEFAULT 0, qe bigint DEFAULT 0, inv bigint DEFAULT 0, upd timestamp DEFAULT now(),
  PRIMARY KEY (keyid, gran, bs));
CREATE INDEX r_gb ON r (gran, bs);
CREATE INDEX r_o ON r (ownerid, gran, bs);
CREATE INDEX r_p ON r (planid, gran, bs);
-- Earlier usage: 20 000 keys x 60 minutes.
INSERT INTO r (keyid, ownerid, planid, gran, bs, valid)
SELECT 'key_bench_' || i, 'owner_' || (i % 100), 'plan_bench', 'minute', timestamp '2026-12-01' + m * interval '1 minute', 1
FROM generate_series(1, 20000) i, generate_series(1, 60) m;
VACUUM ANALYZE r; VACUUM ANALYZE k;
SQL

# 50 000 minute rows for keys lo..lo+9999; prints ms and WAL bytes.
minute_rows() {
  db -v lo="$1" -At <<'SQL'
CHECKPOINT;
SELECT pg_current_wal_lsn() AS l0, clock_timestamp() AS t0 \gset
INSERT INTO r (keyid, ownerid, planid, gran, bs, valid)
SELECT x.id, k.owner, k.plan, 'minute', timestamp '2026-12-02' + m * interval '1 minute', 1
FROM generate_series(1, 5) m, (SELECT 'key_bench_' || i AS id FROM generate_series(:lo, :lo + 9999) i) x
LEFT JOIN k ON k.id = x.id ORDER BY m, x.id;
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000) || ' ms, WAL ' || pg_size_pretty(pg_current_wal_lsn() - :'l0');
SQL
}
reset_minutes() { db -c "DELETE FROM r WHERE bs >= '2026-12-02'" -c "VACUUM ANALYZE r" >/dev/null; }
three_runs() { for lo in 20001 30001 40001; do echo "  $(minute_rows $lo)"; done; reset_minutes; }

echo "1. 50 000 minute rows (us per row = ms / 50)"
echo " all four indexes:"; three_runs
echo " all four indexes, wal_compression = lz4:"; PGOPTIONS="-c wal_compression=lz4" three_runs
db -c "DROP INDEX r_o"
echo " without the owner index:"; three_runs
db -c "DROP INDEX r_p"
echo " without the owner and plan indexes:"; three_runs
db -c "DROP INDEX r_gb"
echo " the primary key alone:"; three_runs
db -c "CREATE INDEX r_gb ON r (gran, bs)" -c "CREATE INDEX r_o ON r (ownerid, gran, bs)" -c "CREATE INDEX r_p ON r (planid, gran, bs)"

echo "2. upserts of 20 000 existing hour rows, six in a row (us per row = ms / 20)"
for ff in 100 90; do
  db -c "DELETE FROM r WHERE gran = 'hour'" -c "ALTER TABLE r SET (fillfactor = $ff)" -c "VACUUM FULL r" -c "ANALYZE r" -c "SELECT pg_stat_reset()" >/dev/null
  line=" fillfactor $ff:"
  for rep in 1 2 3 4 5 6; do
    line="$line $(db -At <<'SQL'
SELECT clock_timestamp() AS t0 \gset
INSERT INTO r (keyid, ownerid, planid, gran, bs, valid)
SELECT x.id, k.owner, k.plan, 'hour', timestamp '2026-12-03', 1
FROM (SELECT 'key_bench_' || i AS id FROM generate_series(1, 20000) i) x LEFT JOIN k ON k.id = x.id ORDER BY x.id
ON CONFLICT (keyid, gran, bs) DO UPDATE SET valid = r.valid + EXCLUDED.valid, ownerid = EXCLUDED.ownerid, planid = EXCLUDED.planid, upd = now();
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000) || 'ms';
SQL
)"
  done
  sleep 1 # let the statistics collector catch up
  echo "$line; HOT updates: $(db -At -c "SELECT n_tup_hot_upd || ' of ' || n_tup_upd FROM pg_stat_user_tables WHERE relname = 'r'")"
done
